#include "emitmemo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Open addressing by the node's address, at most half full; an entry of an earlier
 * generation is free, so forgetting an item's texts touches no slot. */
struct memo_slot {
    const void *node;
    unsigned how, gen;
    size_t at, len; /* in text */
};

struct emitmemo {
    struct memo_slot *slots;
    size_t cap, used;
    unsigned gen;
    char *text;
    size_t len, room;
};

struct emitmemo *emitmemo_create(void)
{
    struct emitmemo *m = calloc(1, sizeof(*m));

    if (m)
        m->gen = 1;
    return m;
}

void emitmemo_destroy(struct emitmemo *m)
{
    if (m) {
        free(m->slots);
        free(m->text);
    }
    free(m);
}

void emitmemo_reset(struct emitmemo *m)
{
    if (++m->gen == 0) { /* wrapped: the old generations' entries must not come back */
        memset(m->slots, 0, m->cap * sizeof(*m->slots));
        m->gen = 1;
    }
    m->used = 0;
    m->len = 0;
}

static size_t slot_of(const void *node, unsigned how, size_t cap)
{
    return (size_t)((((uintptr_t)node >> 3) ^ how) * 0x9E3779B97F4A7C15u >> 32) & (cap - 1);
}

const char *emitmemo_find(const struct emitmemo *m, const void *node, unsigned how, size_t *len)
{
    for (size_t at = m->cap ? slot_of(node, how, m->cap) : 0; m->cap && m->slots[at].gen == m->gen;
         at = (at + 1) & (m->cap - 1)) {
        const struct memo_slot *s = &m->slots[at];

        if (s->node == node && s->how == how) {
            *len = s->len;
            return m->text + s->at;
        }
    }
    return NULL;
}

/* Room for one more entry: the table doubled, its current entries moved. */
static int grow(struct emitmemo *m)
{
    size_t cap = m->cap ? 2 * m->cap : 256;
    struct memo_slot *slots = calloc(cap, sizeof(*slots));

    if (!slots)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        size_t at;

        if (m->slots[i].gen != m->gen)
            continue;
        for (at = slot_of(m->slots[i].node, m->slots[i].how, cap); slots[at].gen == m->gen; at = (at + 1) & (cap - 1))
            ;
        slots[at] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 0;
}

void emitmemo_keep(struct emitmemo *m, const void *node, unsigned how, const char *text, size_t len)
{
    size_t at;

    if (len > EMITMEMO_MAX_TEXT - m->len || (2 * (m->used + 1) > m->cap && grow(m) != 0))
        return;
    if (m->len + len > m->room) {
        size_t room = m->room ? 2 * m->room : 16384;
        char *grown;

        while (room < m->len + len)
            room *= 2;
        if (!(grown = realloc(m->text, room)))
            return;
        m->text = grown;
        m->room = room;
    }
    for (at = slot_of(node, how, m->cap); m->slots[at].gen == m->gen; at = (at + 1) & (m->cap - 1))
        ;
    memcpy(m->text + m->len, text, len);
    m->slots[at] = (struct memo_slot){node, how, m->gen, m->len, len};
    m->len += len;
    m->used++;
}
