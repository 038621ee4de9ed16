/* expand: turns a step with `parallelism: N` into N explicit shard steps (DESIGN.md):
 * shard env, label placeholders, shard variables in commands (unless upload mode),
 * keys `<key>-<i>`; group steps are expanded inside. depends_on is left to `depends`. */
#ifndef FANOUT_EXPAND_H
#define FANOUT_EXPAND_H

#include <stdbool.h>

#include "fanout/diag.h"
#include "fanout/expr.h"
#include "fanout/strset.h"
#include "fanout/ynode.h"

struct source;

#define EXPAND_MAX_PARALLELISM 1000

/* Told about every key the rendered steps define. `shards` is N for the original key
 * of a step expanded into N shards (a valid depends_on target, not a step of its own)
 * and 0 for the key of an output step. Return non-zero to stop. */
typedef int (*expand_key_fn)(void *user, const char *key, size_t len, unsigned shards,
                             struct ypos pos);

/* Told about every job a matrix adjustment skips (Buildkite creates none): the job as it
 * would have been (with the step's key, not a job's), and the adjustment's `skip` (true
 * or a reason). For what compares renderings. Return non-zero to stop. */
typedef int (*expand_skipped_fn)(void *user, const struct ynode *job, const struct ynode *skip);

struct expand_ctx {
    struct diag *diag;
    const char *const *files; /* file names by ypos.file, for messages */
    size_t n_files;
    bool upload;              /* keep $$VAR references in commands (env carries the values) */
    bool allow_placeholders;  /* %N in a step without parallelism is not an error */
    expand_key_fn on_key;     /* may be NULL */
    expand_skipped_fn on_skipped; /* may be NULL */
    void *user;
    /* Warn about keys Buildkite does not document (dialects check their own keys). */
    bool check_keys;
    /* Unknown keys already warned about (each is reported once); NULL: report all. */
    struct strset *warned;
    /* Expression contexts known for the whole run (an object: `inputs`, `vars`,
     * `github`...); NULL: none. For the dialects that evaluate expressions. */
    const struct expr_value *contexts;
    /* The dialect's own state for this run (dialect.h), or NULL. */
    void *state;
    /* The inputs by ypos.file, for a dialect that reads one again (a called workflow):
     * each read is checked against the others (source_changed). */
    struct source *const *sources;
};

/* Expands every step of the sequence `steps` in place. Returns 0, or -1 after an
 * input error was reported (findings are reported and do not stop expansion). */
int expand_steps(const struct expand_ctx *ctx, struct ynode_doc *doc, struct ynode *steps);

#endif
