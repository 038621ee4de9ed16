/* arrays: the growth of a heap array that doubles, written once for the ~35 arrays that
 * grow as they are filled (a list of items, anchors, findings, a string buffer). */
#ifndef FANOUT_ARRAYS_H
#define FANOUT_ARRAYS_H

#include <stddef.h>

/* Array `v` (NULL, or from malloc) of *cap items of `size` bytes, grown to hold `need`:
 * its capacity doubled (from `first`, above 0, when it is 0) until `need` fits, *cap set
 * to it. Returns the array (`v` itself when `need` already fits), or NULL with `v` and
 * *cap untouched (still the caller's to free) when memory is out or the byte count would
 * overflow. */
void *array_grow(void *v, size_t *cap, size_t need, size_t first, size_t size);

#endif
