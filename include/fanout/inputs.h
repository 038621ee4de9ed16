/* inputs: the command line's paths as a list of files. A directory stands for the
 * *.yaml and *.yml files under it (recursively, like vLLM's generator walks its job
 * directories), in path order, so the rendering does not depend on the file system; a
 * repository's root (a directory with .buildkite/ or .github/workflows/) for its CI
 * configuration alone. */
#ifndef FANOUT_INPUTS_H
#define FANOUT_INPUTS_H

#include <stdbool.h>
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

/* Whether name[0..len) ends with one of `suffixes` (NULL-terminated) after at least one
 * byte: each caller keeps the set its tool reads. */
bool inputs_name_has_suffix(const char *name, size_t len, const char *const *suffixes);
/* The names a directory's walk reads (and a revision's tree gives, gitrev): .yaml, .yml. */
extern const char *const inputs_yaml_suffixes[];

/* The real path of each of paths[0..n) that is among `walked` (NULL for the others, and
 * for one that does not resolve): an array of n, malloc'd, freed by inputs_real_free;
 * NULL when out of memory. For matching walked files against the paths a file names. */
char **inputs_walked_real(const char *const *paths, size_t n, const struct strset *walked);
void inputs_real_free(char **real, size_t n);
/* Whether the real path `real` is below the directory `dir` (len bytes, no trailing
 * `/`), or ends with the components `tail` (len bytes): matched at a `/`, so `b/x.yml`
 * is no tail of `/a/bb/x.yml`. NULL `real` matches nothing. */
bool inputs_real_under(const char *real, const char *dir, size_t len);
bool inputs_real_ends_with(const char *real, const char *tail, size_t len);

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
