/* buildkite: what Buildkite itself says about a step: its type and the keys it takes. */
#ifndef FANOUT_BUILDKITE_H
#define FANOUT_BUILDKITE_H

#include <stdbool.h>
#include <stddef.h>

#include "fanout/dialect.h"
#include "fanout/ynode.h"

/* Buildkite's default limits (docs: platform/limits). */
#define BK_JOBS_PER_UPLOAD 500
#define BK_JOBS_PER_BUILD 4000

enum bk_kind {
    BK_COMMAND,
    BK_WAIT,
    BK_BLOCK,
    BK_INPUT,
    BK_TRIGGER,
    BK_GROUP,
    BK_UNKNOWN,  /* a mapping Buildkite would keep with a warning */
    BK_INVALID,  /* not a mapping nor a known scalar step */
};

/* Classifies a step the way buildkite/go-pipeline does: an explicit `type` first,
 * then command/commands/plugins, wait, block/input/manual, trigger, group. */
enum bk_kind bk_step_kind(const struct ynode *step);

const char *bk_kind_name(enum bk_kind kind);

/* True when `key` is a documented attribute of a step of `kind`. */
bool bk_known_key(enum bk_kind kind, const char *key, size_t len);

/* The documented key of the step type a mistyped `key` is closest to (a typo's
 * distance), or NULL. */
const char *bk_key_suggest(enum bk_kind kind, const char *key, size_t len);

/* Aliases Buildkite accepts for a step's label and key, first preferred. */
extern const char *const bk_label_keys[];
extern const char *const bk_key_keys[];

/* Shared with the test-area dialect, whose rendering is Buildkite's: expansion of a
 * STEP item (with the check of undocumented keys), the jobs of an expanded one, the
 * texts of a step that can carry a runner's shard flags (command, commands, env values)
 * and the canonical layout (step keys first in a fixed order, a group's steps last). */
int bk_expand(const struct expand_ctx *ctx, struct ynode_doc *doc, struct ynode *steps);
int bk_rewrite(const struct expand_ctx *ctx, struct ynode_doc *doc, struct ynode *steps,
               depends_shards_fn shards_of, void *user);
long bk_each_job(const struct ynode *steps, dialect_job_fn fn, void *user);
int bk_each_text(const struct ynode *step, dialect_text_fn fn, void *user);
extern const struct emit_layout bk_layout;

#endif
