/* change: what a run is told about the change it renders for: the files it changes
 * (--changed FILE, --changed-from REF) and the build's values (--build KEY=VALUE:
 * `branch`, `env.NAME`...), for the dialects that decide from them which jobs run
 * (vLLM's generator: source_file_dependencies). The files are kept sorted, so that
 * "some changed file is under this directory" is a binary search. */
#ifndef FANOUT_CHANGE_H
#define FANOUT_CHANGE_H

#include <stdbool.h>
#include <stddef.h>

#include "fanout/diag.h"

struct change;

/* NULL when out of memory. */
struct change *change_create(void);
void change_destroy(struct change *c);

/* The paths listed in `path` ("-": stdin), one a line (`git diff --name-only`'s
 * output; a CR before the line break and blank lines are ignored, a leading "./"
 * dropped). 0, or -1 after reporting (`io`). */
int change_read_file(struct change *c, const char *path, struct diag *d);

/* The files the work tree changes since it left `ref` (its merge base with HEAD; `A...B`:
 * B's since their merge base), as `git diff --name-only --diff-filter=ACMDR` lists them
 * (paths from the repository's root). 0, or -1 after reporting. */
int change_read_git(struct change *c, const char *ref, struct diag *d);

/* `KEY=VALUE` of --build. 0, or -1 when it has no '=' or an empty key (or out of
 * memory). A later value of a key wins. */
int change_set_build(struct change *c, const char *key_value);

/* The build's value of `key`, or NULL when not given. */
const char *change_build(const struct change *c, const char *key);

/* Whether changed files were given (--changed or --changed-from, even none). */
bool change_known(const struct change *c);

/* The changed files, sorted bytewise. */
size_t change_count(const struct change *c);
const char *change_file(const struct change *c, size_t i);

/* Calls fn for each changed file that is `dir` (len bytes, no trailing '/') or under
 * it, until fn returns non-zero; returns that (0: all visited). */
typedef int (*change_file_fn)(void *user, const char *file);
int change_each_under(const struct change *c, const char *dir, size_t len, change_file_fn fn, void *user);

/* Whether `file` (len bytes) is a changed file. */
bool change_has(const struct change *c, const char *file, size_t len);

/* Why jobs left out are left out is said (render --explain). */
void change_set_explain(struct change *c, bool explain);
bool change_explain(const struct change *c);

#endif
