/* gate: which steps run for a change (render --changed, --build): `if_changed` as
 * buildkite-agent applies it at `pipeline upload`, and `if:` and `branches:` decided from
 * the build's values as Buildkite's server would. Nothing changes without a change (ctx->change). */
#ifndef FANOUT_BK_GATE_H
#define FANOUT_BK_GATE_H

#include "fanout/dialect.h"

#include "steps.h"

enum bk_gate {
    BK_GATE_RUNS,     /* as far as the change tells */
    BK_GATE_SKIPPED,  /* the agent set its `skip` (if_changed matched no changed file) */
    BK_GATE_LEFT_OUT, /* its `if:` is false or its `branches:` do not match: no job */
};

/* Gates `step` (a mapping of `kind`) in place: with changed files, removes its
 * `if_changed` and sets `skip` when no changed file matches it (command, trigger and
 * group steps, as the agent does); says each step that does not run and why
 * (bk_gate_not_run). 0, or -1 when out of memory. */
int bk_gate_step(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *step, enum bk_kind kind,
                 enum bk_gate *gate);

/* Tells the change's not-run hook (dialect_ctx.on_not_run) that `step` does not run, and why: the
 * one place the dialect reports a step left out. 0, or -1 when the hook said stop. */
int bk_gate_not_run(const struct dialect_ctx *ctx, const struct ynode *step, enum bk_kind kind, const char *why);

#endif
