/* arrays: a doubling array's growth (include/fanout/arrays.h). */
#include "fanout/arrays.h"

#include <stdint.h>
#include <stdlib.h>

void *array_grow(void *v, size_t *cap, size_t need, size_t first, size_t size)
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
