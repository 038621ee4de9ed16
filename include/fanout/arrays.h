/* arrays: the growth of a heap array that doubles, written once for the ~35 arrays that
 * grow as they are filled (a list of items, findings, a string buffer). Inline: a
 * caller's first capacity and item size are constants, its growth a few instructions
 * (the expression engine grows a thousand buffers in a render of SGLang's workflows). */
#ifndef FANOUT_ARRAYS_H
#define FANOUT_ARRAYS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Array `v` (NULL, or from malloc) of *cap items of `size` bytes, grown to hold `need`:
 * its capacity doubled (from `first`, above 0, when it is 0) until `need` fits, *cap set
 * to it. Returns the array (`v` itself when `need` already fits), or NULL with `v` and
 * *cap untouched (still the caller's to free) when memory is out or the byte count would
 * overflow. */
static inline void *array_grow(void *v, size_t *cap, size_t need, size_t first, size_t size)
{
    size_t c;

    if (need <= *cap)
        return v;
    if (*cap > SIZE_MAX / 2)
        return NULL;
    for (c = *cap ? *cap * 2 : first; c < need; c *= 2) {
        if (c > SIZE_MAX / 2)
            return NULL;
    }
    if (c > SIZE_MAX / size || !(v = realloc(v, c * size)))
        return NULL;
    *cap = c;
    return v;
}

#endif
