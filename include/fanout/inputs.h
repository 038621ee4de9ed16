/* inputs: the command line's paths as a list of files. A directory stands for the
 * *.yaml and *.yml files under it (recursively, like vLLM's generator walks its job
 * directories), in path order, so the rendering does not depend on the file system; a
 * repository's root (a directory with .buildkite/ or .github/workflows/) for its CI
 * configuration alone. */
#ifndef FANOUT_INPUTS_H
#define FANOUT_INPUTS_H

#include <stddef.h>
#include <stdio.h>

#include "fanout/diag.h"

struct strset;

struct inputs {
    char **paths;
    size_t n;
    /* the paths a directory operand stands for (NULL: none): a named FILE is one the
     * user put in the run, a walked one is only there (render.h's `walked`) */
    struct strset *walked;
};

/* 0, or -1 after reporting (unreadable directory, a directory without YAML files). */
int inputs_expand(const char *const *paths, size_t n, struct diag *d, struct inputs *out);
/* The same, but a file a directory stands for that is one of `skip` (the same file, by
 * device and inode: a committed rendering the config's `checks` name) is not an input;
 * a file named as such still is. */
int inputs_expand_skipping(const char *const *paths, size_t n, const char *const *skip, size_t n_skip,
                           struct diag *d, struct inputs *out);
void inputs_free(struct inputs *in);

/* `path` as the file `from` (a config) names it, as git reads a path in a config file:
 * relative to from's directory, unless absolute. malloc'd, NULL when out of memory. */
char *inputs_path_from(const char *from, const char *path);

/* One line of a list file (--changed, a durations TSV) into buf, without its line
 * break, *len its length; at most `cap` bytes are read for it, so an endless line
 * (/dev/zero, a binary file) is refused instead of filling memory. 1 a line, 0 at the
 * end, INPUTS_LINE_LONG a line longer than cap, INPUTS_LINE_NUL a NUL byte, -1 a read
 * error (errno set). */
enum { INPUTS_LINE_LONG = -2, INPUTS_LINE_NUL = -3 };
int inputs_read_line(FILE *f, char *buf, size_t cap, size_t *len);

#endif
