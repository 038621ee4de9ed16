/* memo: bytes by an address and a tag (include/fanout/memo.h). */
#include "fanout/memo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Open addressing by the key's address, at most half full; an entry of an earlier
 * generation is free, so forgetting an item touches no slot. */
struct memo_slot {
    const void *key;
    unsigned how, gen;
    size_t at, len; /* in bytes */
};

struct memo {
    struct memo_slot *slots;
    size_t cap, used;
    unsigned gen;
    char *bytes;
    size_t len, room, max;
};

struct memo *memo_create(size_t max_bytes)
{
    struct memo *m = calloc(1, sizeof(*m));

    if (m) {
        m->gen = 1;
        m->max = max_bytes;
    }
    return m;
}

void memo_destroy(struct memo *m)
{
    if (m) {
        free(m->slots);
        free(m->bytes);
    }
    free(m);
}

void memo_reset(struct memo *m)
{
    if (++m->gen == 0) { /* wrapped: the old generations' entries must not come back */
        memset(m->slots, 0, m->cap * sizeof(*m->slots));
        m->gen = 1;
    }
    m->used = 0;
    m->len = 0;
}

static size_t slot_of(const void *key, unsigned how, size_t cap)
{
    return (size_t)((((uintptr_t)key >> 3) ^ how) * 0x9E3779B97F4A7C15u >> 32) & (cap - 1);
}

bool memo_find(const struct memo *m, const void *key, unsigned how, const void **data, size_t *len)
{
    for (size_t at = m->cap ? slot_of(key, how, m->cap) : 0; m->cap && m->slots[at].gen == m->gen;
         at = (at + 1) & (m->cap - 1)) {
        const struct memo_slot *s = &m->slots[at];

        if (s->key == key && s->how == how) {
            *len = s->len;
            *data = m->bytes + s->at;
            return true;
        }
    }
    return false;
}

/* Room for one more entry: the table doubled, its current entries moved. */
static int grow(struct memo *m)
{
    size_t cap = m->cap ? 2 * m->cap : 256;
    struct memo_slot *slots = calloc(cap, sizeof(*slots));

    if (!slots)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        size_t at;

        if (m->slots[i].gen != m->gen)
            continue;
        for (at = slot_of(m->slots[i].key, m->slots[i].how, cap); slots[at].gen == m->gen; at = (at + 1) & (cap - 1))
            ;
        slots[at] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 0;
}

void memo_keep(struct memo *m, const void *key, unsigned how, const void *data, size_t len)
{
    size_t at;

    if (len > m->max - m->len || (2 * (m->used + 1) > m->cap && grow(m) != 0))
        return;
    if (m->len + len > m->room || !m->bytes) { /* an empty entry's bytes are somewhere too */
        size_t room = m->room ? 2 * m->room : 16384;
        char *grown;

        while (room < m->len + len)
            room *= 2;
        if (!(grown = realloc(m->bytes, room)))
            return;
        m->bytes = grown;
        m->room = room;
    }
    for (at = slot_of(key, how, m->cap); m->slots[at].gen == m->gen; at = (at + 1) & (m->cap - 1))
        ;
    if (len)
        memcpy(m->bytes + m->len, data, len);
    m->slots[at] = (struct memo_slot){key, how, m->gen, m->len, len};
    m->len += len;
    m->used++;
}
