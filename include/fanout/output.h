/* output: where a rendering goes. A regular file (or a path that does not exist yet) is
 * written to a temporary file in the same directory and renamed over the target only on
 * commit, so readers never see half a file and a failed run leaves the old file
 * untouched (its mode is kept). A symlink is followed: its target is what gets
 * replaced. Anything else (a device such as /dev/null, a FIFO) is written through,
 * never replaced. */
#ifndef FANOUT_OUTPUT_H
#define FANOUT_OUTPUT_H

#include <stdio.h>

#include "fanout/diag.h"

struct output;

/* `path` NULL or "-" means stdout. Errors are reported to `d`; NULL then. */
struct output *output_open(const char *path, struct diag *d);

FILE *output_stream(struct output *o);

/* Flushes and (for a file) renames into place; frees `o`. 0 on success. */
int output_commit(struct output *o);

/* Discards what was written (removes the temporary file); frees `o`. */
void output_abort(struct output *o);

#endif
