#include "fanout/strset.h"

#include <stdlib.h>
#include <string.h>

struct strset {
    char **items;
    size_t *lens;
    size_t n, cap;
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

bool strset_has(const struct strset *set, const char *s, size_t len)
{
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
