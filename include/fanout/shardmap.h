/* shardmap: the keys of sharded steps seen so far and their shard counts, in memory up
 * to a budget that counts the table (16 bytes a slot, at most three quarters full) and
 * the key texts. render uses it to rewrite depends_on already in pass 1, so that a
 * pipeline whose references all point backwards is rendered in one pass: with the
 * 1 MiB budget, up to 24,576 sharded keys of 10 bytes. */
#ifndef FANOUT_SHARDMAP_H
#define FANOUT_SHARDMAP_H

#include <stdbool.h>
#include <stddef.h>

struct shardmap;

struct shardmap *shardmap_create(size_t budget);
void shardmap_destroy(struct shardmap *m);

/* 0, or -1 once the budget is spent (or memory is out): the map stops taking keys. */
int shardmap_put(struct shardmap *m, const char *key, size_t len, unsigned shards);

/* The shard count of `key`, 0 when it is not in the map. */
unsigned shardmap_get(const struct shardmap *m, const char *key, size_t len);

/* Keys held. */
size_t shardmap_count(const struct shardmap *m);

#endif
