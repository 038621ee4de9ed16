/* expand: turns a step with `parallelism: N` into N explicit shard steps (DESIGN.md):
 * shard env, label placeholders, shard variables in commands (unless upload mode),
 * keys `<key>-<i>`; group steps are expanded inside. depends_on is left to `depends`. */
#ifndef FANOUT_EXPAND_H
#define FANOUT_EXPAND_H

#include "fanout/dialect.h"

#define EXPAND_MAX_PARALLELISM 1000

/* Expands every step of the sequence `steps` in place (the Buildkite dialect's `expand`:
 * tells ctx->on_key of every key, ctx->on_skipped of every job a matrix adjustment
 * skips; warns about keys Buildkite does not document unless ctx->keys_checked).
 * Returns 0, or -1 after an input error was reported (findings are reported and do not
 * stop expansion). */
int expand_steps(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *steps);

#endif
