/* shardflags: the shard flags of the test runners our users shard with, found in a
 * command's text. Each runner is a pair of PCRE2 patterns, one for the shard count and
 * one for the shard index, and how it numbers shards (from 0 or 1). Built in:
 *   pytest-shard  --num-shards N --shard-id I           (0-based)
 *   run_suite     --auto-partition-size N --auto-partition-id I   (SGLang, 0-based)
 *   diffusion     --total-partitions N --partition-id I (SGLang multimodal_gen, 0-based)
 *   pytest-split  --splits N --group G                  (1-based; `--group` alone is
 *                                                        not taken for it: too common)
 * plus any a config file adds (`shards: [{name, count, index, base}]`, docs/shards.md). */
#ifndef FANOUT_SHARDFLAGS_H
#define FANOUT_SHARDFLAGS_H

#include <stddef.h>

#include "fanout/diag.h"
#include "fanout/ynode.h"

struct shardflags;

/* One use of a runner's flags in a text: the values (quotes removed) and the flags as
 * written ("--num-shards=4"), each NULL when absent. Pointers into the scanned text. */
struct shardflags_hit {
    unsigned runner;
    const char *count, *index;
    size_t count_len, index_len;
    const char *count_flag, *index_flag;
    size_t count_flag_len, index_flag_len;
};

typedef int (*shardflags_hit_fn)(void *user, const struct shardflags_hit *hit);

/* The built-in runners; NULL when out of memory. */
struct shardflags *shardflags_create(void);
/* A copy of f for another thread: a scan writes into its patterns' match data. NULL when
 * out of memory. */
struct shardflags *shardflags_clone(const struct shardflags *f);
void shardflags_destroy(struct shardflags *f);

/* Adds the runners of a config file's `shards` list (`file` names it in messages).
 * 0, or -1 after reporting the entry that is wrong (input error). */
int shardflags_configure(struct shardflags *f, const struct ynode *list, const char *file,
                         struct diag *d);

size_t shardflags_runners(const struct shardflags *f);
const char *shardflags_name(const struct shardflags *f, unsigned runner);
/* "shard", "partition", "group": what the runner calls one of its parts. */
const char *shardflags_noun(const struct shardflags *f, unsigned runner);
unsigned shardflags_base(const struct shardflags *f, unsigned runner);

/* Calls `fn` for every use of a runner's flags in `text`, in order: the k-th count flag
 * of a runner is paired with its k-th index flag. 0, -1 when a pattern failed to run
 * (its match limit), or what `fn` returned. */
int shardflags_scan(struct shardflags *f, const char *text, size_t len, shardflags_hit_fn fn,
                    void *user);

#endif
