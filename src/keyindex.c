#include "fanout/keyindex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct slot {
    char *key; /* NULL = empty */
    size_t len;
    uint64_t hash;
    struct keyindex_entry e;
};

struct deferred {
    char *key;
    size_t len;
    unsigned file;
    struct ypos pos;
};

struct keyindex {
    struct slot *slots;
    size_t cap, count; /* cap is a power of two */
    struct deferred *refs;
    size_t n_refs, cap_refs;
};

static uint64_t hash_key(const char *key, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */

    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 1099511628211ull;
    }
    return h;
}

struct keyindex *keyindex_create(void)
{
    struct keyindex *ki = calloc(1, sizeof(*ki));

    if (!ki)
        return NULL;
    ki->cap = 64;
    ki->slots = calloc(ki->cap, sizeof(*ki->slots));
    if (!ki->slots) {
        free(ki);
        return NULL;
    }
    return ki;
}

void keyindex_destroy(struct keyindex *ki)
{
    if (!ki)
        return;
    for (size_t i = 0; i < ki->cap; i++)
        free(ki->slots[i].key);
    for (size_t i = 0; i < ki->n_refs; i++)
        free(ki->refs[i].key);
    free(ki->slots);
    free(ki->refs);
    free(ki);
}

static struct slot *probe(struct slot *slots, size_t cap, const char *key, size_t len, uint64_t h)
{
    for (size_t i = h & (cap - 1);; i = (i + 1) & (cap - 1)) {
        struct slot *s = &slots[i];

        if (!s->key || (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0))
            return s;
    }
}

static int grow(struct keyindex *ki)
{
    size_t cap = ki->cap * 2;
    struct slot *slots = calloc(cap, sizeof(*slots));

    if (!slots)
        return -1;
    for (size_t i = 0; i < ki->cap; i++) {
        struct slot *s = &ki->slots[i];

        if (s->key)
            *probe(slots, cap, s->key, s->len, s->hash) = *s;
    }
    free(ki->slots);
    ki->slots = slots;
    ki->cap = cap;
    return 0;
}

int keyindex_define(struct keyindex *ki, const char *key, size_t len, unsigned shards,
                    unsigned file, struct ypos pos, struct keyindex_entry *prev)
{
    uint64_t h = hash_key(key, len);
    struct slot *s;

    if ((ki->count + 1) * 2 > ki->cap && grow(ki) != 0)
        return -1;
    s = probe(ki->slots, ki->cap, key, len, h);
    if (s->key) {
        if (prev)
            *prev = s->e;
        return 1;
    }
    s->key = malloc(len + 1);
    if (!s->key)
        return -1;
    memcpy(s->key, key, len);
    s->key[len] = '\0';
    s->len = len;
    s->hash = h;
    s->e.shards = shards;
    s->e.file = file;
    s->e.pos = pos;
    ki->count++;
    return 0;
}

const struct keyindex_entry *keyindex_find(const struct keyindex *ki, const char *key, size_t len)
{
    struct slot *s = probe(ki->slots, ki->cap, key, len, hash_key(key, len));

    return s->key ? &s->e : NULL;
}

int keyindex_defer(struct keyindex *ki, const char *key, size_t len, unsigned file, struct ypos pos)
{
    struct deferred *d;

    if (ki->n_refs == ki->cap_refs) {
        size_t cap = ki->cap_refs ? ki->cap_refs * 2 : 16;

        d = realloc(ki->refs, cap * sizeof(*d));
        if (!d)
            return -1;
        ki->refs = d;
        ki->cap_refs = cap;
    }
    d = &ki->refs[ki->n_refs];
    d->key = malloc(len + 1);
    if (!d->key)
        return -1;
    memcpy(d->key, key, len);
    d->key[len] = '\0';
    d->len = len;
    d->file = file;
    d->pos = pos;
    ki->n_refs++;
    return 0;
}

void keyindex_each_dangling(const struct keyindex *ki, keyindex_dangling_fn fn, void *user)
{
    for (size_t i = 0; i < ki->n_refs; i++) {
        const struct deferred *d = &ki->refs[i];

        if (!keyindex_find(ki, d->key, d->len))
            fn(user, d->key, d->file, d->pos);
    }
}

size_t keyindex_count(const struct keyindex *ki)
{
    return ki->count;
}
