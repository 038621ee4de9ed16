#include "fanout/strset.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/strhash.h"

/* Past SCAN_MAX strings a set keeps an index (open addressing, half full at most): the
 * keys of a workflow's `jobs` are a set, and 11,000 of them took a scan each. */
#define SCAN_MAX 16

struct strset {
    char **items;
    size_t *lens;
    size_t n, cap;
    size_t *index; /* per slot: the item's number + 1, or 0 when empty; NULL while small */
    size_t slots;
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
    free(set->index);
    set->index = NULL;
    set->slots = 0;
}

void strset_destroy(struct strset *set)
{
    if (!set)
        return;
    strset_clear(set);
    free(set->items);
    free(set->lens);
    free(set);
}

/* The slot of `s` in the index: its item's, or the empty one where it would go. */
static size_t *slot_of(const struct strset *set, const char *s, size_t len)
{
    size_t i = strhash_fnv1a(s, len) & (set->slots - 1), k;

    while ((k = set->index[i]) != 0 && !(set->lens[k - 1] == len && memcmp(set->items[k - 1], s, len) == 0))
        i = (i + 1) & (set->slots - 1);
    return &set->index[i];
}

static int reindex(struct strset *set, size_t slots)
{
    size_t *index = calloc(slots, sizeof(*index));

    if (!index)
        return -1;
    free(set->index);
    set->index = index;
    set->slots = slots;
    for (size_t k = 0; k < set->n; k++)
        *slot_of(set, set->items[k], set->lens[k]) = k + 1;
    return 0;
}

bool strset_has(const struct strset *set, const char *s, size_t len)
{
    if (set->index)
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
    if (set->n > SCAN_MAX && (set->index ? set->n * 2 > set->slots : true))
        return reindex(set, set->index ? set->slots * 2 : 4 * SCAN_MAX);
    if (set->index)
        *slot_of(set, s, len) = set->n;
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
