/* tmplschema_proofs: what a check of an input item proved (values found valid under a
 * type), for the check of that item's rendering (tmplschema.h says why that holds). A
 * value is known by where the input wrote it (copies keep positions), its kind, and for
 * a scalar its text (copies share it: ynode_copy_in; its style need not be compared,
 * as ynode_new_string_of says), for a container its length; with its type. Open addressing whose slots are stamped with the item they
 * belong to, so clearing is one increment; memory follows the largest item. */
#include "tmplschema_internal.h"

#include <stdlib.h>
#include <string.h>

struct proof {
    const struct tmpl_def *def;
    uint64_t contexts;
    const char *text; /* a scalar's; NULL for a container */
    size_t len;       /* a scalar's bytes, a container's items or pairs */
    struct ypos pos;
    uint8_t kind;   /* the node's, or SHAPE for a mapping's shape (tmpl_proofs_shape) */
    unsigned stamp; /* the item it belongs to: tmpl_proofs.stamp when in use */
    size_t at;      /* a shape's first pair in tmpl_proofs.pairs */
};

#define SHAPE 0x80

struct tmpl_proofs {
    struct proof *slots;
    size_t cap, n; /* cap: a power of two */
    unsigned stamp;
    struct tmpl_shape_pair *pairs; /* the shapes' pairs, of this item */
    size_t n_pairs, cap_pairs;
};

struct tmpl_proofs *tmpl_proofs_create(void)
{
    struct tmpl_proofs *p = calloc(1, sizeof(*p));

    if (p)
        p->stamp = 1;
    return p;
}

void tmpl_proofs_free(struct tmpl_proofs *p)
{
    if (!p)
        return;
    free(p->slots);
    free(p->pairs);
    free(p);
}

void tmpl_proofs_clear(struct tmpl_proofs *p)
{
    p->n = 0;
    p->n_pairs = 0;
    if (++p->stamp == 0) { /* wrapped: stamps of long ago would read as current */
        memset(p->slots, 0, p->cap * sizeof(*p->slots));
        p->stamp = 1;
    }
}

__attribute__((always_inline)) static inline struct proof proof_of(const struct ynode *n, struct tmpl_type t)
{
    struct proof k = {.def = t.def, .contexts = t.contexts, .pos = n->pos, .kind = n->kind};

    if (ynode_is_scalar(n)) {
        k.text = n->u.scalar.text;
        k.len = n->u.scalar.len;
    } else {
        k.len = ynode_len(n);
    }
    return k;
}

__attribute__((always_inline)) static inline size_t slot_of(const struct proof *k, size_t cap)
{
    uint64_t h = (uintptr_t)k->def ^ k->contexts * 0x9E3779B97F4A7C15u;

    h ^= ((uint64_t)k->pos.file << 48 ^ (uint64_t)k->pos.line << 16 ^ k->pos.col) * 0xC2B2AE3D27D4EB4Fu;
    h ^= (uintptr_t)k->text ^ k->len;
    h ^= h >> 29;
    return (size_t)(h * 0x165667B19E3779F9u >> 20) & (cap - 1);
}

static bool same(const struct proof *a, const struct proof *b)
{
    return a->def == b->def && a->contexts == b->contexts && a->text == b->text && a->len == b->len &&
           a->pos.file == b->pos.file && a->pos.line == b->pos.line && a->pos.col == b->pos.col &&
           a->kind == b->kind;
}

bool tmpl_proofs_has(const struct tmpl_proofs *p, const struct ynode *n, struct tmpl_type t)
{
    struct proof k;

    if (!p->n)
        return false;
    k = proof_of(n, t);
    for (size_t i = slot_of(&k, p->cap); p->slots[i].stamp == p->stamp; i = (i + 1) & (p->cap - 1)) {
        if (same(&p->slots[i], &k))
            return true;
    }
    return false;
}

__attribute__((always_inline)) static inline void put(struct tmpl_proofs *p, const struct proof *k)
{
    size_t i = slot_of(k, p->cap);

    while (p->slots[i].stamp == p->stamp)
        i = (i + 1) & (p->cap - 1);
    p->slots[i] = *k;
    p->slots[i].stamp = p->stamp;
    p->n++;
}

/* The table doubled (256 slots at first), this item's proofs put again. Out of memory:
 * false, the table as it was. */
static bool grow(struct tmpl_proofs *p)
{
    struct proof *old = p->slots;
    size_t old_cap = p->cap, cap = old_cap ? old_cap * 2 : 256;

    if (!(p->slots = calloc(cap, sizeof(*p->slots)))) {
        p->slots = old;
        return false;
    }
    p->cap = cap;
    p->n = 0;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].stamp == p->stamp)
            put(p, &old[i]);
    }
    free(old);
    return true;
}

/* Half full at most. Out of memory: the proof is not kept (the value is read again).
 * Inlined with put and slot_of, a proof added was ~100 instructions in four calls
 * (2,720 on SGLang). */
__attribute__((always_inline)) static inline bool room(struct tmpl_proofs *p)
{
    return (p->n + 1) * 2 <= p->cap || grow(p);
}

void tmpl_proofs_add(struct tmpl_proofs *p, struct ynode *n, struct tmpl_type t)
{
    struct proof k = proof_of(n, t);

    if (!room(p))
        return;
    put(p, &k);
    n->proven = (uint8_t)(YNODE_PROVEN | (n->proven & (YNODE_NO_EXPR | YNODE_SHARED)));
}

const struct tmpl_shape_pair *tmpl_proofs_shape(const struct tmpl_proofs *p, const struct ynode *map,
                                                struct tmpl_type t)
{
    struct proof k;

    if (!p->n)
        return NULL;
    k = proof_of(map, t);
    k.kind = SHAPE;
    for (size_t i = slot_of(&k, p->cap); p->slots[i].stamp == p->stamp; i = (i + 1) & (p->cap - 1)) {
        if (same(&p->slots[i], &k))
            return p->pairs + p->slots[i].at;
    }
    return NULL;
}

bool tmpl_shape_same(const struct tmpl_shape_pair *pairs, const struct ynode *map)
{
    for (size_t i = 0; i < map->u.map.n; i++) {
        const struct ynode *key = map->u.map.pairs[i].key;

        /* copies share their keys' texts: a pointer compared is most often enough */
        if (key->u.scalar.len != pairs[i].len || key->style != pairs[i].style ||
            (key->u.scalar.text != pairs[i].text && memcmp(key->u.scalar.text, pairs[i].text, pairs[i].len)))
            return false;
    }
    return true;
}

/* Out of memory: the shape is not kept (its next instance is read in full). */
void tmpl_proofs_shape_add(struct tmpl_proofs *p, const struct ynode *map, struct tmpl_type t,
                           const struct tmpl_shape_pair *pairs)
{
    struct proof k = proof_of(map, t);
    size_t n = k.len;

    /* an empty mapping has no values to skip; keeping it would leave p->pairs NULL */
    if (!n)
        return;
    if (p->n_pairs + n > p->cap_pairs) {
        size_t cap = (p->n_pairs + n) * 2;
        struct tmpl_shape_pair *grown = realloc(p->pairs, cap * sizeof(*grown));

        if (!grown)
            return;
        p->pairs = grown;
        p->cap_pairs = cap;
    }
    if (!room(p))
        return;
    memcpy(p->pairs + p->n_pairs, pairs, n * sizeof(*pairs));
    k.kind = SHAPE;
    k.at = p->n_pairs;
    p->n_pairs += n;
    put(p, &k);
}
