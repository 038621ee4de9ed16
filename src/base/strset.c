#include "fanout/strset.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/strhash.h"

/* Up to this many strings a lookup scans them (cheaper than hashing for the few keys of
 * a step); past it an open-addressing index finds them, since a mapping of jobs may have
 * 20,000 keys (a linear scan made checking them quadratic: 1.1 s of 1.2 for 20,000 jobs). */
#define STRSET_LINEAR 8

struct strset {
    char **items;
    size_t *lens;
    size_t n, cap;
    size_t *slots; /* the index: an item's position + 1, 0 for an empty slot */
    size_t nslots; /* a power of two, at least twice n; 0 while n <= STRSET_LINEAR */
};

struct strset *strset_create(void)
{
    return calloc(1, sizeof(struct strset));
}

void strset_clear(struct strset *set)
{
    for (size_t i = 0; i < set->n; i++)
        free(set->items[i]);
    set->n = 0;
    if (set->items)
        set->items[0] = NULL;
    if (set->nslots)
        memset(set->slots, 0, set->nslots * sizeof(*set->slots));
}

void strset_destroy(struct strset *set)
{
    if (!set)
        return;
    strset_clear(set);
    free(set->items);
    free(set->lens);
    free(set->slots);
    free(set);
}

/* The slot of `s` in the index: where it is, or the empty slot where it would go. */
static size_t *slot_of(const struct strset *set, const char *s, size_t len)
{
    size_t mask = set->nslots - 1, i = (size_t)strhash_words(s, len) & mask;

    for (;; i = (i + 1) & mask) {
        size_t at = set->slots[i];

        if (!at || (set->lens[at - 1] == len && memcmp(set->items[at - 1], s, len) == 0))
            return &set->slots[i];
    }
}

/* The index rebuilt with `nslots` slots for the items there are; -1: out of memory. */
static int reindex(struct strset *set, size_t nslots)
{
    size_t *slots = calloc(nslots, sizeof(*slots));

    if (!slots)
        return -1;
    free(set->slots);
    set->slots = slots;
    set->nslots = nslots;
    for (size_t i = 0; i < set->n; i++)
        *slot_of(set, set->items[i], set->lens[i]) = i + 1;
    return 0;
}

bool strset_has(const struct strset *set, const char *s, size_t len)
{
    if (set->nslots)
        return *slot_of(set, s, len) != 0;
    for (size_t i = 0; i < set->n; i++) {
        if (set->lens[i] == len && memcmp(set->items[i], s, len) == 0)
            return true;
    }
    return false;
}

int strset_add(struct strset *set, const char *s, size_t len)
{
    if (strset_has(set, s, len))
        return 1;
    if (set->n == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 8;
        char **items = realloc(set->items, (cap + 1) * sizeof(*items)); /* + strset_items' NULL */
        size_t *lens;

        if (!items)
            return -1;
        set->items = items;
        lens = realloc(set->lens, cap * sizeof(*lens));
        if (!lens)
            return -1;
        set->lens = lens;
        set->cap = cap;
    }
    set->items[set->n] = malloc(len + 1);
    if (!set->items[set->n])
        return -1;
    memcpy(set->items[set->n], s, len);
    set->items[set->n][len] = '\0';
    set->lens[set->n++] = len;
    set->items[set->n] = NULL;
    if (set->nslots && set->n * 2 <= set->nslots)
        *slot_of(set, s, len) = set->n;
    else if (set->n > STRSET_LINEAR && reindex(set, set->nslots ? set->nslots * 2 : 4 * STRSET_LINEAR) < 0) {
        free(set->items[--set->n]); /* not in the set, since the index cannot hold it */
        set->items[set->n] = NULL;
        return -1;
    }
    return 0;
}

const char *const *strset_items(const struct strset *set)
{
    static const char *const none[] = {NULL};

    return set->n ? (const char *const *)set->items : none;
}

size_t strset_count(const struct strset *set)
{
    return set->n;
}
