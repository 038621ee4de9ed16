#include "fanout/shardmap.h"
#include "fanout/strhash.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 16 bytes a slot; the key texts live in one buffer. */
struct entry {
    uint32_t hash;   /* low bits of the key's hash */
    uint32_t off;    /* of the key in `keys` */
    uint32_t len;    /* 0: empty slot (keys are never empty) */
    uint32_t shards;
};

/* One generation: an open-addressing table at most three quarters full. */
struct generation {
    struct entry *slots;
    size_t cap, n;
    char *keys;
    size_t keys_len, keys_cap;
};

struct shardmap {
    struct generation now, old; /* lookups try `now` first */
    size_t budget;              /* bytes for one generation's table and keys */
};

struct shardmap *shardmap_create(size_t budget)
{
    struct shardmap *m = calloc(1, sizeof(*m));

    if (m)
        m->budget = budget / 2;
    return m;
}

static void generation_clear(struct generation *g)
{
    free(g->slots);
    free(g->keys);
    *g = (struct generation){0};
}

void shardmap_destroy(struct shardmap *m)
{
    if (!m)
        return;
    generation_clear(&m->now);
    generation_clear(&m->old);
    free(m);
}

static struct entry *slot(const struct generation *g, uint32_t hash, const char *key, size_t len)
{
    for (size_t i = hash & (g->cap - 1);; i = (i + 1) & (g->cap - 1)) {
        struct entry *e = &g->slots[i];

        if (!e->len || (e->hash == hash && e->len == len && memcmp(g->keys + e->off, key, len) == 0))
            return e;
    }
}

/* What a generation would hold with a table of `cap` slots and a key buffer of
 * `keys_cap` bytes: the old table is freed before the budget matters again. */
static bool fits(const struct shardmap *m, size_t cap, size_t keys_cap)
{
    return cap * sizeof(struct entry) + keys_cap <= m->budget;
}

/* 0, 1 when the budget does not allow it, -1 when memory is out. */
static int grow_table(const struct shardmap *m, struct generation *g)
{
    size_t old_cap = g->cap, cap = old_cap ? old_cap * 2 : 64;
    struct entry *old = g->slots, *slots;

    if (!fits(m, cap, g->keys_cap))
        return 1;
    if (!(slots = calloc(cap, sizeof(*slots))))
        return -1;
    g->slots = slots;
    g->cap = cap;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].len)
            *slot(g, old[i].hash, g->keys + old[i].off, old[i].len) = old[i];
    }
    free(old);
    return 0;
}

static int grow_keys(const struct shardmap *m, struct generation *g, size_t need)
{
    size_t cap = g->keys_cap ? g->keys_cap : 4096;
    char *keys;

    while (cap < g->keys_len + need)
        cap *= 2;
    if (cap == g->keys_cap)
        return 0;
    if (cap > UINT32_MAX || !fits(m, g->cap, cap))
        return 1;
    if (!(keys = realloc(g->keys, cap)))
        return -1;
    g->keys = keys;
    g->keys_cap = cap;
    return 0;
}

/* Puts the key into `g`: 0, 1 when the generation is full, -1 when memory is out. */
static int generation_put(const struct shardmap *m, struct generation *g, const char *key,
                          size_t len, uint32_t hash, unsigned shards)
{
    struct entry *e;
    int rc;

    if ((g->n + 1) * 4 > g->cap * 3 && (rc = grow_table(m, g)) != 0)
        return rc;
    e = slot(g, hash, key, len);
    if (!e->len) {
        if ((rc = grow_keys(m, g, len)) != 0)
            return rc;
        memcpy(g->keys + g->keys_len, key, len);
        *e = (struct entry){hash, (uint32_t)g->keys_len, (uint32_t)len, 0};
        g->keys_len += len;
        g->n++;
    }
    e->shards = shards;
    return 0;
}

int shardmap_put(struct shardmap *m, const char *key, size_t len, unsigned shards)
{
    uint32_t hash = (uint32_t)strhash_words(key, len);
    int rc;

    if (len == 0 || len > UINT32_MAX)
        return -1;
    rc = generation_put(m, &m->now, key, len, hash, shards);
    if (rc == 1) {
        /* Full: the older generation is forgotten, and a new one begins. */
        generation_clear(&m->old);
        m->old = m->now;
        m->now = (struct generation){0};
        rc = generation_put(m, &m->now, key, len, hash, shards);
    }
    return rc == 0 ? 0 : -1;
}

static unsigned generation_get(const struct generation *g, const char *key, size_t len, uint32_t hash)
{
    return g->cap ? slot(g, hash, key, len)->shards : 0;
}

unsigned shardmap_get(const struct shardmap *m, const char *key, size_t len)
{
    uint32_t hash = (uint32_t)strhash_words(key, len);
    unsigned n;

    if (len == 0)
        return 0;
    n = generation_get(&m->now, key, len, hash);
    return n ? n : generation_get(&m->old, key, len, hash);
}

size_t shardmap_count(const struct shardmap *m)
{
    return m->now.n + m->old.n;
}
