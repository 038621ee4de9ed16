/* textdiff: a unified diff of two texts (Myers' algorithm, 3 lines of context), for
 * `fanout check` to show how a committed rendering is stale. */
#ifndef FANOUT_TEXTDIFF_H
#define FANOUT_TEXTDIFF_H

#include <stddef.h>
#include <stdio.h>

/* Texts larger than this between their common first and last lines are shown as one
 * hunk (all old lines out, all new in) without searching for the shortest edit. */
#define TEXTDIFF_FILE_MIDDLE (4u << 20)

/* Writes the diff of file `a` (old) and file `b` (new), both seekable, to `out` with
 * `---`/`+++` headers naming them, in bounded memory: the common lines at the start and
 * the end are found by reading, only the lines between are loaded. Past a few thousand
 * differing lines the diff stops being minimal (the differing middle is shown removed,
 * then added) but stays correct. Returns 0 equal (nothing written), 1 different, -1 on
 * a read error or out of memory. */
int textdiff_files(FILE *out, const char *a_name, FILE *a, const char *b_name, FILE *b);

#endif
