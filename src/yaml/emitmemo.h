/* emitmemo: the text the emitter wrote for a container, by the node and how it was
 * written (its column and flags), kept while one item is written. A matrix job's
 * configurations share the nodes substitution left alike (a step that reads equal
 * values), and writing one again is a copy of its text. The texts kept are bounded
 * (EMITMEMO_MAX_TEXT; past it, nothing more is kept). */
#ifndef FANOUT_EMITMEMO_H
#define FANOUT_EMITMEMO_H

#include <stddef.h>

#define EMITMEMO_MAX_TEXT (16u << 20)

struct emitmemo;

struct emitmemo *emitmemo_create(void);
void emitmemo_destroy(struct emitmemo *m);

/* Forgets every text (an item written). */
void emitmemo_reset(struct emitmemo *m);

/* The text kept for `node` written as `how` (*len), or NULL. */
const char *emitmemo_find(const struct emitmemo *m, const void *node, unsigned how, size_t *len);

/* Keeps text[0..len) for `node` written as `how` (out of memory, or past the bound: not
 * kept). */
void emitmemo_keep(struct emitmemo *m, const void *node, unsigned how, const char *text, size_t len);

#endif
