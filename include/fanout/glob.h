/* glob: path patterns of three platforms, each matched exactly as its platform matches
 * them (docs/globs.md cites every rule's source). A pattern is compiled once and matched
 * against many paths; a pattern the platform refuses is an error with its byte offset,
 * which the caller turns into a file:line:col message at the pattern's node.
 *
 *  GLOB_PICOMATCH  picomatch 2.3.1 with { dot: true }, as dorny/paths-filter v2/v3/v4
 *                  (src/filter.ts) matches each filter pattern;
 *  GLOB_GITHUB     a GitHub Actions filter pattern (on.<event>.paths, paths-ignore,
 *                  branches, tags): the "Filter pattern cheat sheet";
 *  GLOB_BUILDKITE  buildkite-agent's `if_changed` (zzglob v0.4.3's Parse and Match, as
 *                  clicommand/pipeline_upload.go calls them).
 *
 * What a list of patterns decides is the caller's, except GitHub's order rule
 * (glob_filter), which every GitHub list shares:
 *  - dorny/paths-filter: a file matches a filter when some rule (or, with
 *    `predicate-quantifier: every`, every rule) matches it; a rule is a change-type set
 *    and one pattern or a list of them, any of which matches (picomatch of an array);
 *  - Buildkite if_changed: a step runs when some changed path matches no `exclude`
 *    pattern and some `include` pattern (a string or list is the include form);
 *  - GitHub: glob_filter below; a `paths-ignore` list ignores a path that a pattern
 *    matches. */
#ifndef FANOUT_GLOB_H
#define FANOUT_GLOB_H

#include <stdbool.h>
#include <stddef.h>

enum glob_dialect { GLOB_PICOMATCH, GLOB_GITHUB, GLOB_BUILDKITE };

struct glob;

/* Why a pattern does not compile: a message and the byte offset in the pattern it is at. */
struct glob_error {
    size_t offset;
    char message[160];
};

/* The pattern (`len` bytes of UTF-8) compiled; NULL with `err` filled when the platform
 * refuses it (or when out of memory: offset 0, "out of memory"). */
struct glob *glob_compile(enum glob_dialect dialect, const char *pattern, size_t len,
                          struct glob_error *err);
void glob_free(struct glob *g);

/* Whether `path` (`len` bytes) matches (a glob holds its match data: one thread at a
 * time). A GitHub pattern's leading `!` is not part of
 * what it matches (glob_negated says it was there). */
bool glob_match(const struct glob *g, const char *path, size_t len);

/* A GitHub pattern that began with `!`: it takes back what patterns before it matched. */
bool glob_negated(const struct glob *g);

/* GitHub's order rule for a `paths`, `branches` or `tags` list: the last pattern that
 * matches `path` decides, included unless it is negated; none matching, not included. */
bool glob_filter(struct glob *const *globs, size_t n, const char *path, size_t len);

#endif
