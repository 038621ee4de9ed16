/* memo: bytes kept by an address and a small tag while one item is read or written,
 * then forgotten all at once. A matrix job's configurations share the nodes
 * substitution left alike (a step that reads equal values): what was made of such a
 * node once in an item (the text the emitter wrote for it, the shard flags coverage
 * found in it) is found again by its address. The bytes kept are bounded (past the
 * bound, nothing more is kept); forgetting touches no slot. */
#ifndef FANOUT_MEMO_H
#define FANOUT_MEMO_H

#include <stdbool.h>
#include <stddef.h>

struct memo;

/* A memo keeping at most `max_bytes` bytes between resets; NULL when out of memory. */
struct memo *memo_create(size_t max_bytes);
void memo_destroy(struct memo *m);

/* Forgets everything kept (the item's nodes are going). */
void memo_reset(struct memo *m);

/* Whether bytes are kept for `key` and `how`: then *data and *len say them (*data is
 * only byte-aligned, valid until the next memo_keep or memo_reset). */
bool memo_find(const struct memo *m, const void *key, unsigned how, const void **data, size_t *len);

/* Keeps data[0..len) (len may be 0) for `key` and `how`, which memo_find did not find
 * (out of memory, or past the bound: not kept). */
void memo_keep(struct memo *m, const void *key, unsigned how, const void *data, size_t len);

#endif
