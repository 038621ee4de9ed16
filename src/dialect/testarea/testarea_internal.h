/* testarea_internal: what the test-area dialect's files share: the reader of a file
 * (testarea.c) and the generator's field model it checks each step against (fields.c). */
#ifndef FANOUT_TESTAREA_INTERNAL_H
#define FANOUT_TESTAREA_INTERNAL_H

#include <stdbool.h>

#include "fanout/ynode.h"

#include "testarea.h"

struct testarea {
    struct diag *diag;
    const char *const *files;
    struct ta_options opts;
    ta_observe_fn observe;
    void *observe_user;
    struct ynode_doc *amd;   /* the AMD group being built, or NULL */
    struct ynode *amd_steps; /* its steps */
    struct ta_run_all *run_all; /* the pipeline config's run_all patterns (gating.c) */
    bool run_all_read;
};

#define SHORT(len) ((int)((len) > 80 ? 80 : (len)))

int ta_error_at(const struct testarea *ta, const struct ynode *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- fields.c: the generator's step model ---- */

/* A string as vLLM's generator reads it (PyYAML: `3.10` is a float, `"3.10"` a string). */
bool ta_is_string(const struct ynode *v);
/* A file's or a step's depends_on: a list of keys, or null (the step model's List[str]). */
bool ta_is_depends_on(const struct ynode *v);
/* A step's fields checked against the generator's step model, and its mirror's shape;
 * *overrides is the mirror's `amd` overrides (NULL when it has none). 0, or -1 after an
 * error (reported). A number or boolean field is written as the generator writes it (`010`
 * is 8), in `doc`, the step's document. */
int ta_check_step(const struct testarea *ta, struct ynode_doc *doc, struct ynode *step,
                  const struct ynode **overrides);
/* Whether every key of `step` is a field of the generator's step model, or a typo of
 * one (its error is this dialect's to report). */
bool ta_step_fields_known(const struct ynode *step);

/* ---- gating.c: the steps a change does not run (render --changed) ---- */

/* Why vLLM's generator does not run `step` (its file's defaults applied; `amd_gpu`: its
 * device is an AMD GPU) for the change, or NULL when it does (or no change is given). */
const char *ta_step_not_run(struct testarea *ta, const struct ynode *step, bool amd_gpu);
/* The same for the AMD mirror of `parent` with its `overrides`. */
const char *ta_mirror_not_run(struct testarea *ta, const struct ynode *parent, const struct ynode *overrides);
/* Frees what the gating read of the pipeline config (NULL: nothing). */
void ta_run_all_free(struct ta_run_all *r);
/* Tells the change's not-run hook that the step at `at` of `steps` does not run, and
 * why (`why`, then the block step's key), and puts the generator's block step ("Run
 * <label>", key <prefix><key>, depends_on `block_depends_on` or none) before it, which
 * waits for it (first among its depends_on, or last), unless the steps are kept as they
 * are (keep_not_run). The block steps put in (1, or 0), or -1 when out of memory or
 * when the hook said stop. */
int ta_block_step(struct testarea *ta, struct ynode_doc *doc, struct ynode *steps, size_t at, const char *label,
                  const char *prefix, const struct ynode *block_depends_on, bool first, const char *why);

#endif
