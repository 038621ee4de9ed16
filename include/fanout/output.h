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

/* Called first thing: the standard descriptors that are closed are opened on /dev/null
 * (in the mode opposite to their use, so that a write to a closed stdout still fails),
 * so that no file opened later takes their number: `render -o /dev/stdout in.yml >&-`
 * would otherwise open in.yml as descriptor 1 and write the rendering over it. Standard
 * output, when it is a regular file, is one of the files the run writes. */
void output_guard_std(void);

/* When the last write to standard output failed because its reader went away (EPIPE:
 * `fanout render | head`), ends the process by SIGPIPE, quietly, as coreutils do (a
 * shell reads exit status 141; never 0); otherwise returns. */
void output_stdout_gone(void);

/* -1 after reporting (`io`) when the file open as `fd` is one the run writes (standard
 * output, an output open now): an input is never overwritten. Every reader of an input
 * calls it before reading. */
int output_check_input(int fd, const char *name, struct diag *d);

/* `path` NULL or "-" means stdout. Errors are reported to `d`; NULL then, also when
 * it leads to a standard descriptor that was closed at start. From now until commit or
 * abort, the file it replaces is one the run writes (no input may be it), and its
 * temporary file is removed if SIGINT, SIGTERM or SIGHUP ends the run (SIGKILL can
 * leave one). Open it before the inputs, so that they are checked against it. */
struct output *output_open(const char *path, struct diag *d);

FILE *output_stream(struct output *o);

/* Flushes and (for a file) renames into place; frees `o`. 0 on success. */
int output_commit(struct output *o);

/* Discards what was written (removes the temporary file); frees `o`. */
void output_abort(struct output *o);

#endif
