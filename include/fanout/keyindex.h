/* keyindex: every key a rendering defines, across all input files (keys are unique per
 * Buildkite build), with the shard count of expanded steps, plus the depends_on
 * references that named a key before it was defined (checked at the end). */
#ifndef FANOUT_KEYINDEX_H
#define FANOUT_KEYINDEX_H

#include <stddef.h>

#include "fanout/ynode.h"

struct keyindex_entry {
    unsigned shards; /* N for the original key of a step expanded into N shards, else 0 */
    unsigned file;   /* caller's file number */
    struct ypos pos;
};

struct keyindex;

struct keyindex *keyindex_create(void);
void keyindex_destroy(struct keyindex *ki);

/* 0: defined; 1: already defined (*prev tells where); -1: out of memory. */
int keyindex_define(struct keyindex *ki, const char *key, size_t len, unsigned shards,
                    unsigned file, struct ypos pos, struct keyindex_entry *prev);

/* The definition of `key`, or NULL. */
const struct keyindex_entry *keyindex_find(const struct keyindex *ki, const char *key, size_t len);

/* Remembers a reference to a key not defined yet. 0, or -1 when out of memory. */
int keyindex_defer(struct keyindex *ki, const char *key, size_t len, unsigned file, struct ypos pos);

typedef void (*keyindex_dangling_fn)(void *user, const char *key, unsigned file, struct ypos pos);

/* Calls `fn` for each deferred reference whose key is still not defined, in order. */
void keyindex_each_dangling(const struct keyindex *ki, keyindex_dangling_fn fn, void *user);

size_t keyindex_count(const struct keyindex *ki);

#endif
