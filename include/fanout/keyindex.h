/* keyindex: every key a rendering defines and every depends_on reference, across all
 * input files (keys are unique per Buildkite build), in bounded memory.
 * Pass 1 records definitions and references; keyindex_resolve sorts them (an external
 * sort: records spill to a temporary file past the budget), reports collisions and
 * dangling references, and prepares the answers pass 2 reads back in order: for each
 * reference, the number of shards its key was expanded into. Keys are compared by two
 * independent 64-bit hashes, which makes a false match about as likely as 1 in 2^100
 * for a million keys. */
#ifndef FANOUT_KEYINDEX_H
#define FANOUT_KEYINDEX_H

#include <stddef.h>

#include "fanout/ynode.h"

/* Key text kept for messages; longer keys are shown cut, with "...". */
#define KEYINDEX_TEXT 48

struct keyindex_entry {
    char key[KEYINDEX_TEXT + 4]; /* NUL-terminated, maybe cut */
    unsigned shards;             /* definitions: N for the original key of a step
                                    expanded into N shards, else 0 */
    struct ypos pos;             /* pos.file: the caller's file number */
};

struct keyindex_problems {
    /* `again` defines a key `first` defined already. */
    void (*collision)(void *user, const struct keyindex_entry *first,
                      const struct keyindex_entry *again);
    /* A reference to a key nothing defines. */
    void (*dangling)(void *user, const struct keyindex_entry *ref);
    /* The `seq`th reference recorded (from 0) names a sharded key. */
    void (*sharded)(void *user, size_t seq);
};

struct keyindex;

/* `mem_budget` bytes of records are kept in memory before spilling to disk. */
struct keyindex *keyindex_create(size_t mem_budget);
void keyindex_destroy(struct keyindex *ki);

/* Pass 1. Each returns 0, or -1 on an I/O or memory failure. */
int keyindex_define(struct keyindex *ki, const char *key, size_t len, unsigned shards,
                    struct ypos pos);
int keyindex_reference(struct keyindex *ki, const char *key, size_t len, struct ypos pos);

/* After pass 1: reports collisions and dangling references (in key order), and makes
 * the answers for pass 2. 0, or -1 on an I/O or memory failure. */
int keyindex_resolve(struct keyindex *ki, const struct keyindex_problems *problems, void *user);

/* Pass 2: the shard count of the target of the next reference, the references being
 * asked for in the order pass 1 recorded them (0: leave the reference as it is). */
unsigned keyindex_next_reference(struct keyindex *ki);

/* After keyindex_resolve: how many references name a sharded key. */
size_t keyindex_sharded_references(const struct keyindex *ki);

/* After keyindex_resolve: how many references name a key defined after them. */
size_t keyindex_forward_references(const struct keyindex *ki);

/* Definitions recorded. */
size_t keyindex_count(const struct keyindex *ki);

#endif
