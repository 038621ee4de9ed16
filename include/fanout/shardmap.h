/* shardmap: the keys of sharded steps seen so far and their shard counts, in memory up
 * to a budget. render uses it to rewrite depends_on already in pass 1, so that a small
 * pipeline whose references all point backwards is rendered in one pass. */
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

#endif
