#include "fanout/shardmap.h"
#include "fanout/strhash.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 16 bytes a slot; the key texts live in one buffer. */
struct entry {
    uint32_t hash;   /* low bits of the key's hash (0 with len 0: an empty slot) */
    uint32_t off;    /* of the key in `keys` */
    uint32_t len;    /* 0: empty slot (keys are never empty) */
    uint32_t shards;
};

struct shardmap {
    struct entry *slots;
    size_t cap, n;
    char *keys;
    size_t keys_len, keys_cap;
    size_t budget; /* bytes for the table and the key buffer together */
};

struct shardmap *shardmap_create(size_t budget)
{
    struct shardmap *m = calloc(1, sizeof(*m));

    if (m)
        m->budget = budget;
    return m;
}

void shardmap_destroy(struct shardmap *m)
{
    if (!m)
        return;
    free(m->slots);
    free(m->keys);
    free(m);
}

static struct entry *slot(const struct shardmap *m, uint32_t hash, const char *key, size_t len)
{
    for (size_t i = hash & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct entry *e = &m->slots[i];

        if (!e->len || (e->hash == hash && e->len == len && memcmp(m->keys + e->off, key, len) == 0))
            return e;
    }
}

/* What the map would hold with a table of `cap` slots and a key buffer of `keys_cap`
 * bytes: the old table is freed before the budget matters again. */
static bool fits(const struct shardmap *m, size_t cap, size_t keys_cap)
{
    return cap * sizeof(struct entry) + keys_cap <= m->budget;
}

static int grow_table(struct shardmap *m)
{
    size_t old_cap = m->cap, cap = old_cap ? old_cap * 2 : 64;
    struct entry *old = m->slots, *slots;

    if (!fits(m, cap, m->keys_cap) || !(slots = calloc(cap, sizeof(*slots))))
        return -1;
    m->slots = slots;
    m->cap = cap;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].len)
            *slot(m, old[i].hash, m->keys + old[i].off, old[i].len) = old[i];
    }
    free(old);
    return 0;
}

static int grow_keys(struct shardmap *m, size_t need)
{
    size_t cap = m->keys_cap ? m->keys_cap : 4096;
    char *keys;

    while (cap < m->keys_len + need)
        cap *= 2;
    if (cap == m->keys_cap)
        return 0;
    if (cap > UINT32_MAX || !fits(m, m->cap, cap) || !(keys = realloc(m->keys, cap)))
        return -1;
    m->keys = keys;
    m->keys_cap = cap;
    return 0;
}

int shardmap_put(struct shardmap *m, const char *key, size_t len, unsigned shards)
{
    uint32_t hash = (uint32_t)strhash_fnv1a(key, len);
    struct entry *e;

    /* A table at most three quarters full: linear probing stays short. */
    if ((m->n + 1) * 4 > m->cap * 3 && grow_table(m) != 0)
        return -1;
    if (len == 0 || len > UINT32_MAX)
        return -1;
    e = slot(m, hash, key, len);
    if (!e->len) {
        if (grow_keys(m, len) != 0)
            return -1;
        memcpy(m->keys + m->keys_len, key, len);
        e->hash = hash;
        e->off = (uint32_t)m->keys_len;
        e->len = (uint32_t)len;
        m->keys_len += len;
        m->n++;
    }
    e->shards = shards;
    return 0;
}

unsigned shardmap_get(const struct shardmap *m, const char *key, size_t len)
{
    if (!m->cap || len == 0)
        return 0;
    return slot(m, (uint32_t)strhash_fnv1a(key, len), key, len)->shards;
}

size_t shardmap_count(const struct shardmap *m)
{
    return m->n;
}
