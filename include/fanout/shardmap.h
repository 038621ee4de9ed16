/* shardmap: the keys of the most recent sharded steps and their shard counts, in memory
 * up to a budget that counts the tables (16 bytes a slot, at most three quarters full)
 * and the key texts. render uses it to rewrite depends_on already in pass 1, so that a
 * pipeline whose references point backwards is rendered in one pass.
 *
 * Two generations of half the budget each: when the newer one is full, the older one is
 * forgotten and a new one begins. So the map holds every key while there are at most
 * 24,576 (of about 10 bytes, with the 1 MiB budget), and past that at least the last
 * 12,288. A key it forgot is a miss, which render's count of rewritten references
 * notices (pass 2 then renders it right): the map is a cache, never wrong. */
#ifndef FANOUT_SHARDMAP_H
#define FANOUT_SHARDMAP_H

#include <stdbool.h>
#include <stddef.h>

struct shardmap;

struct shardmap *shardmap_create(size_t budget);
void shardmap_destroy(struct shardmap *m);

/* 0, or -1 when memory is out or the key is empty. */
int shardmap_put(struct shardmap *m, const char *key, size_t len, unsigned shards);

/* The shard count of `key`, 0 when the map does not hold it. */
unsigned shardmap_get(const struct shardmap *m, const char *key, size_t len);

/* Keys held. */
size_t shardmap_count(const struct shardmap *m);

#endif
