/* interpolate: the upload-time interpolation of `buildkite-agent pipeline upload`, rule for
 * rule as the agent's buildkite/interpolate package (v0.1.5) does it: `$VAR`, `${VAR}`,
 * `${VAR:-word}`, `${VAR-word}`, `${VAR?word}`, `${VAR:offset}`, `${VAR:offset:length}`,
 * the escapes `$$` and `\$`, and what is literal text (`$(`, a `$` before anything but a
 * letter or `{`, `\\`). docs/buildkite.md ("Upload-time interpolation") cites the source.
 *
 * Two ways to use it: interp_expand is the agent's own Interpolate (every variable set or
 * unset); interp_partial is for a rendering that the agent will interpolate again: what is
 * known is filled in and escaped, what is not is kept as written.
 *
 * The work is bounded: expansions nest at most INTERP_MAX_DEPTH deep, and a text may
 * expand to at most INTERP_MAX_OUTPUT bytes (the agent itself has neither limit). */
#ifndef FANOUT_INTERPOLATE_H
#define FANOUT_INTERPOLATE_H

#include <stdbool.h>
#include <stddef.h>

#define INTERP_MAX_DEPTH 64
#define INTERP_MAX_OUTPUT (4u << 20)

/* What is known of a variable. UNKNOWN: not given (interp_expand reads it as unset). */
enum interp_var { INTERP_SET, INTERP_UNSET, INTERP_UNKNOWN };

/* The variable name[0..len): its state, and when set its value in *value (valid until the
 * interpolation returns). */
typedef enum interp_var (*interp_lookup_fn)(void *user, const char *name, size_t len,
                                            const char **value, size_t *value_len);

/* What went wrong, where: `offset` is the byte of the text where the bad token starts.
 * The message says it in the agent's terms (the upload fails on it). */
struct interp_error {
    size_t offset;
    char message[320];
};

enum interp_rc {
    INTERP_OK = 0,
    INTERP_FAILED = -1, /* *err says why: the agent fails too */
    INTERP_LIMIT = -2,  /* *err says which of fanout's limits the text is past */
    INTERP_NOMEM = -3,
};

/* The agent's Interpolate(env, s): every expansion replaced, every escape resolved to `$`.
 * *out is malloc'd (NUL-terminated, *out_len bytes). Errors, as the agent's: a token that
 * does not parse (reported even in a default that is not used), `${VAR?msg}` with VAR
 * unset; INTERP_LIMIT past the limits above. */
int interp_expand(const char *s, size_t len, interp_lookup_fn lookup, void *user, char **out,
                  size_t *out_len, struct interp_error *err);

/* Told of the unknown variable name[0..name_len) that the top-level expansion
 * text[at..at+len) needs, which is kept as written. */
typedef void (*interp_unknown_fn)(void *user, const char *name, size_t name_len, size_t at, size_t len);

/* For a text that buildkite-agent will interpolate again: each top-level expansion whose
 * value is known is replaced by that value with every `$` doubled, so that the agent gives
 * it back; escapes, literal text and expansions that need an unknown variable are kept as
 * written (`unknown` is told of each such expansion). So the agent's interpolation of
 * *out is its interpolation of the text. When the result would read otherwise (a value's
 * `\` before a `$` makes the escape `\$`; a value's letters after a kept `$NAME` lengthen
 * the name) the whole text is kept as written.
 * *out is NULL when nothing changed, else malloc'd. Errors as interp_expand's. */
int interp_partial(const char *s, size_t len, interp_lookup_fn lookup, interp_unknown_fn unknown,
                   void *user, char **out, size_t *out_len, struct interp_error *err);

/* A text's expansions as `*` in an fnmatch(3) pattern of the rest as written (a key whose
 * value is only known at upload names every key the pattern matches); malloc'd, or NULL
 * when the text has no expansion, does not parse, or out of memory. */
char *interp_glob(const char *s, size_t len);

/* True when s[0..len) has an expansion, without which interpolation changes nothing
 * (its escapes are kept) and cannot fail. */
bool interp_needed(const char *s, size_t len);

#endif
