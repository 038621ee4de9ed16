/* emit: the canonical rendering, YAML or JSON. Same tree in, same bytes out:
 * an item's keys in the order its dialect's layout gives (Buildkite: type, label, key,
 * depends_on, command(s), env, agents, then the rest as in the input, a group's `steps`
 * last), 2-space block style, strings
 * quoted only when a YAML 1.1 or 1.2 reader would misread them, multi-line strings
 * as literal blocks. The caller drives it item by item, so nothing is buffered. */
#ifndef FANOUT_EMIT_H
#define FANOUT_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fanout/stream.h"
#include "fanout/ynode.h"

enum emit_format { EMIT_YAML, EMIT_JSON };

/* How a dialect's rendering is laid out: the key of its items' container, whether that
 * is a mapping (a workflow's `jobs`) or a list (`steps`), the keys an item starts with
 * (NULL-terminated; others follow as written) and the key of an item holding items of
 * its own (a group's `steps`, written last; NULL for none). */
struct emit_layout {
    const char *items_key;
    bool items_mapping;
    const char *const *item_key_order;
    const char *nested_key;
};

/* Items under `steps`, keys as written. */
extern const struct emit_layout emit_plain_layout;

struct emitter;

/* `layout` NULL: emit_plain_layout. */
struct emitter *emit_create(FILE *out, enum emit_format format, const struct emit_layout *layout);
void emit_destroy(struct emitter *e);

void emit_doc_start(struct emitter *e);
/* A top-level pair other than steps: `pair` is a mapping holding just that pair. */
void emit_pair(struct emitter *e, const struct ynode *pair);
/* The steps section; started by the first step when not called. */
void emit_steps_start(struct emitter *e);
void emit_steps_end(struct emitter *e);
/* One rendered step (a mapping, or a scalar step such as "wait"). */
void emit_step(struct emitter *e, const struct ynode *step);
void emit_doc_end(struct emitter *e);

/* One item of a rendering (a STEP already expanded and rewritten). */
void emit_item(struct emitter *e, const struct stream_item *item);

/* Ends a rendering: one that had no document gets an empty one (`steps: []`). */
void emit_finish(struct emitter *e);

/* Any node, with the same rules, at top level (used by tests and other commands). */
void emit_node(struct emitter *e, const struct ynode *node);

/* Documents started so far. */
unsigned emit_docs(const struct emitter *e);

/* Bytes written so far, those still gathered included. */
uint64_t emit_offset(const struct emitter *e);

/* Writes `n` bytes of whole documents (`docs` of them) that an emitter of the same format
 * and layout wrote before, as they are (render's pass 2 keeps pass 1's text of a file). */
void emit_text(struct emitter *e, const char *text, size_t n, unsigned docs);

/* Writes out what is gathered (the emitter writes in large blocks; destroying it
 * flushes too). */
void emit_flush(struct emitter *e);

/* Flushes; non-zero when a write failed. */
int emit_error(struct emitter *e);

#endif
