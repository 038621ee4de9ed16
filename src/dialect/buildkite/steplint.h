/* steplint: the rules of a Buildkite step as written, before its expansion: unknown-key
 * (a key Buildkite does not document for the step's type), placeholder (%N in the label
 * of a step without parallelism) and shard-variables (BUILDKITE_PARALLEL_JOB read by a
 * step without parallelism). They run on the source step, not over the rendering's
 * jobs (src/lint): each is said once per step as written (a matrix step's jobs would
 * say it once per combination, and none when every one is skipped), a group's own keys
 * are no job's, a fanned-out job no longer shows that its step had parallelism, and a
 * step's findings come before the expansion error of a later step in the same item
 * (which leaves the item no jobs). */
#ifndef FANOUT_BK_STEPLINT_H
#define FANOUT_BK_STEPLINT_H

#include "fanout/dialect.h"

#include "steps.h"

/* unknown-key on `step` of `kind` (a mapping): an error for a typo of one of the type's
 * keys, else a warning, once per file when the run has a state (ctx->state). */
void steplint_keys(const struct dialect_ctx *ctx, const struct ynode *step, enum bk_kind kind);

/* unknown-key on each key of `step`, a step of no known type, that is a typo of a key
 * that tells a type (`comand`). Whether there was one. */
bool steplint_type_typo(const struct dialect_ctx *ctx, const struct ynode *step);

/* placeholder and shard-variables on `step`, which makes no parallel jobs (no
 * parallelism; a matrix step before its expansion). */
void steplint_unsharded(const struct dialect_ctx *ctx, const struct ynode *step, enum bk_kind kind);

#endif
