/* scratch: where fanout keeps what it does not hold in memory (spools, sort runs, a
 * revision's files): $TMPDIR, as sort(1) and git use it, else /tmp. glibc's tmpfile()
 * ignores TMPDIR, so a runner whose /tmp is a small tmpfs could not point a 100 MB diff's
 * spools elsewhere. */
#ifndef FANOUT_SCRATCH_H
#define FANOUT_SCRATCH_H

#include <stdio.h>

/* $TMPDIR when set and not empty, else "/tmp". */
const char *scratch_dir(void);
/* A new temporary file in scratch_dir(), open for reading and writing, already removed
 * (it goes when it is closed or the process ends): NULL with errno set when none can be
 * made. */
FILE *scratch_file(void);

#endif
