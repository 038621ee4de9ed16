/* textdiff: a unified diff of two texts (Myers' algorithm, 3 lines of context), for
 * `fanout check` to show how a committed rendering is stale and for `fanout diff` to show
 * how a field's multi-line value changed. */
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

/* Writes the hunks of text a[0..alen) (old) against text b[0..blen) (new), in memory, to
 * `out`: each an `@@ -A,B +C,D @@` line (lines counted from 1 in each text) and its
 * lines, no headers; nothing when they are equal. Past a couple of hundred differing
 * lines the middle is shown removed, then added. 0, or -1 when out of memory. */
int textdiff_texts(FILE *out, const char *a, size_t alen, const char *b, size_t blen);

#endif
