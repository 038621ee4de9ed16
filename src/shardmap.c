#include "fanout/shardmap.h"
#include "fanout/strhash.h"

#include <stdlib.h>
#include <string.h>

struct entry {
    char *key; /* NULL: empty slot */
    size_t len;
    unsigned shards;
};

struct shardmap {
    struct entry *slots;
    size_t cap, n;
    size_t used, budget; /* bytes */
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
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].key);
    free(m->slots);
    free(m);
}

static struct entry *slot(const struct shardmap *m, const char *key, size_t len)
{
    for (size_t i = (size_t)strhash_fnv1a(key, len) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct entry *e = &m->slots[i];

        if (!e->key || (e->len == len && memcmp(e->key, key, len) == 0))
            return e;
    }
}

static int grow(struct shardmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    struct entry *old = m->slots, *slots = calloc(cap, sizeof(*slots));

    if (!slots || m->used + cap * sizeof(*slots) > m->budget) {
        free(slots);
        return -1;
    }
    m->used += (cap - m->cap) * sizeof(*slots);
    m->slots = slots;
    for (size_t i = 0; i < m->cap; i++) {
        if (old[i].key)
            *slot(m, old[i].key, old[i].len) = old[i];
    }
    m->cap = cap;
    free(old);
    return 0;
}

int shardmap_put(struct shardmap *m, const char *key, size_t len, unsigned shards)
{
    struct entry *e;

    if ((m->n + 1) * 2 > m->cap && grow(m) != 0)
        return -1;
    if (m->used + len + 1 > m->budget)
        return -1;
    e = slot(m, key, len);
    if (!e->key) {
        if (!(e->key = malloc(len + 1)))
            return -1;
        memcpy(e->key, key, len);
        e->key[len] = '\0';
        e->len = len;
        m->n++;
        m->used += len + 1;
    }
    e->shards = shards;
    return 0;
}

unsigned shardmap_get(const struct shardmap *m, const char *key, size_t len)
{
    if (!m->cap)
        return 0;
    return slot(m, key, len)->shards;
}
