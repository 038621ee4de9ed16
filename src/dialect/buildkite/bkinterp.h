/* bkinterp: a Buildkite pipeline interpolated as `buildkite-agent pipeline upload` does it
 * before it uploads (buildkite/go-pipeline's Pipeline.Interpolate): the top-level `env`
 * first, in order, each entry interpolated and then set for what follows; then every
 * string of the steps and of the other top-level keys, mapping keys too, with the agent's
 * exceptions (a command step's `signature`, the typed fields of `checkout`, a cache's
 * fields besides name, paths and size, the top-level `secrets`). The strings are
 * interpolated for a rendering the agent interpolates again (interp_partial): a variable
 * that is not given stays as written, with a note once per variable.
 *
 * The variables come from the options (bkinterp_vars); a run's interpolation
 * (struct bkinterp) is shared by its passes over the input, through the Buildkite
 * dialect's reader (dialect_input.interp). docs/buildkite.md, "Upload-time interpolation". */
#ifndef FANOUT_BKINTERP_H
#define FANOUT_BKINTERP_H

#include <stdbool.h>
#include <stddef.h>

#include "fanout/diag.h"
#include "fanout/stream.h"

/* Text a pass's interpolation may add beyond the length of the strings it read (past
 * it: an interpolation bomb). */
#define BKINTERP_MAX_GROWTH (4u << 20)
/* Notes about variables not given, one per variable; past it, one note says so. */
#define BKINTERP_MAX_NOTES 100
/* Keys only known at upload that a depends_on may name, and their pattern's length. */
#define BKINTERP_MAX_PATTERNS 1024
#define BKINTERP_MAX_PATTERN 1024

/* ---- the variables the options give ---- */

struct bkinterp_vars;

struct bkinterp_vars *bkinterp_vars_create(void);
void bkinterp_vars_destroy(struct bkinterp_vars *v);

/* --env NAME=VALUE (a later value wins): NULL, or what is wrong with `arg`. */
const char *bkinterp_vars_set(struct bkinterp_vars *v, const char *arg);

/* --env-file FILE: `NAME=VALUE` lines as buildkite-agent writes a job's BUILDKITE_ENV_FILE
 * (VALUE double-quoted as Go's %q quotes it) or as a .env file has them (raw to the end
 * of the line, or single-quoted; `export ` before, `#` comments and blank lines allowed);
 * a name alone on its line is skipped (the agent's file starts with such names). 0, or
 * -1 after an error was reported to `d` (rule `env-file`, at its line and column). */
int bkinterp_vars_read(struct bkinterp_vars *v, const char *path, struct diag *d);

/* --env-from-environment: the variables of `environ` that no option gave, and every
 * other variable is unset (as in the agent, which reads its own environment). 0, or
 * -1 when out of memory. */
int bkinterp_vars_take_environment(struct bkinterp_vars *v, char *const *environ);

/* --no-interpolation: the pipeline is read as written (the agent's flag of that name). */
void bkinterp_vars_off(struct bkinterp_vars *v);

/* ---- one run ---- */

struct bkinterp;

/* With the variables `given` (NULL: none given, interpolation on). NULL: out of memory. */
struct bkinterp *bkinterp_create(const struct bkinterp_vars *given);
void bkinterp_destroy(struct bkinterp *b);

/* A pass over the inputs begins: the variables are the given ones again. Messages go
 * to `d`, with the input names `names` (by ypos.file). */
void bkinterp_begin(struct bkinterp *b, struct diag *d, const char *const *names);

/* One item as read, interpolated in place (for dialect_input.transform). 0, or -1 after
 * an error was reported. */
int bkinterp_item(void *b, struct stream_item *item);

/* Whether a depends_on naming `key` may name a step whose key is only known at upload
 * (`${VERSION:-v6}_tests` may be `v6_tests`): no dangling-depends-on for it. */
bool bkinterp_key_may_name(struct bkinterp *b, const char *key, size_t len);

#endif
