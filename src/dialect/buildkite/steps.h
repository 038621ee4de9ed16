/* steps: what Buildkite itself says about a step: its type and the keys it takes. */
#ifndef FANOUT_BK_STEPS_H
#define FANOUT_BK_STEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "fanout/ynode.h"

/* How much of a key or value as written a message about a step quotes: an int for
 * "%.*s". */
#define BK_SHORT(len) ((int)((len) > 80 ? 80 : (len)))

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

/* The key that tells a step's type (command, wait, block, ...) a mistyped `key` is
 * closest to, or NULL. */
const char *bk_type_key_suggest(const char *key, size_t len);

/* Aliases Buildkite accepts for a step's label and key, first preferred. */
extern const char *const bk_label_keys[];
extern const char *const bk_key_keys[];

/* The name of a step's label field (whichever alias it uses; a block's or input's own
 * text, a group's name), or NULL when it has none that is a scalar. */
const char *bk_label_field(const struct ynode *step, enum bk_kind kind);

#endif
