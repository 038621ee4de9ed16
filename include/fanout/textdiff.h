/* textdiff: a unified diff of two texts (Myers' algorithm, 3 lines of context), for
 * `fanout check` to show how a committed rendering is stale. */
#ifndef FANOUT_TEXTDIFF_H
#define FANOUT_TEXTDIFF_H

#include <stddef.h>
#include <stdio.h>

/* Writes the diff of `a` (old) and `b` (new) to `out` with `---`/`+++` headers naming
 * them. Returns 0 when the texts are equal (nothing written), 1 when they differ,
 * -1 when out of memory. Past a few thousand differing lines the diff stops being
 * minimal (the differing middle is shown removed, then added) but stays correct. */
int textdiff_unified(FILE *out, const char *a_name, const char *a, size_t alen,
                     const char *b_name, const char *b, size_t blen);

#endif
