/* uploads: which of the pipelines a directory holds land in one build. Buildkite keys are
 * unique within a build (docs: pipelines/configure/dependencies, "step keys ... unique
 * in a build"), and a directory is no build: each pipeline file starts its own (it is
 * the pipeline's steps, or a step's `buildkite-agent pipeline upload FILE`). What fanout
 * can prove is the second: a file whose text runs `pipeline upload PATH` puts PATH into
 * its own build (bugsnag-js's block/x.block.yml uploads basic/x.yml). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "uploads.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fanout/strset.h"

/* The longest line looked at: an upload command is short; a longer line is cut. */
#define UPLOADS_LINE 4096

struct files {
    const char *const *paths;
    char **real;      /* each input's real path, or NULL (not walked, or not resolved) */
    unsigned *parent; /* union-find over the inputs */
    size_t n;
};

static unsigned root_of(unsigned *parent, unsigned i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

/* Whether `real` (a walked file's real path) ends with "/" + word. */
static bool ends_with_word(const char *real, const char *word, size_t len)
{
    size_t rl = real ? strlen(real) : 0;

    return rl > len && real[rl - len - 1] == '/' && !memcmp(real + rl - len, word, len);
}

/* The checkout `real` (a walked file's real path) is in: the nearest directory above it
 * holding `.git` (a directory, or a worktree's file). Its length in `real` ("" is the
 * file system's root); -1 when none. */
static int checkout_of(const char *real)
{
    char probe[PATH_MAX];
    int at = (int)strlen(real);

    for (;;) {
        while (at > 0 && real[at - 1] != '/')
            at--;
        if (at-- <= 0 || snprintf(probe, sizeof(probe), "%.*s/.git", at, real) >= (int)sizeof(probe))
            return -1;
        if (access(probe, F_OK) == 0)
            return at;
    }
}

/* The walked input that `word` (a path as the command gives it) names, for the job of
 * input i: the agent reads it from the job's working directory, the checkout's root
 * (Buildkite docs, agent/v3/cli-pipeline), so the walked file at root/word; failing that
 * (no checkout found, or no file there: the job may cd first), the one walked file whose
 * path ends with the word's components. n when none, or several and none at the root. */
static size_t named_by(const struct files *f, size_t i, const char *word, size_t len)
{
    char at_root[PATH_MAX];
    int root = checkout_of(f->real[i]);
    size_t found = f->n, matches = 0;

    while (len > 2 && word[0] == '.' && word[1] == '/')
        word += 2, len -= 2;
    if (root >= 0 && snprintf(at_root, sizeof(at_root), "%.*s/%.*s", root, f->real[i], (int)len, word) <
                         (int)sizeof(at_root)) {
        for (size_t j = 0; j < f->n; j++) {
            if (f->real[j] && !strcmp(f->real[j], at_root))
                return j;
        }
    }
    for (size_t j = 0; j < f->n; j++) {
        if (ends_with_word(f->real[j], word, len))
            found = j, matches++;
    }
    return matches == 1 ? found : f->n;
}

static bool is_pipeline_name(const char *w, size_t len)
{
    return (len > 4 && !memcmp(w + len - 4, ".yml", 4)) || (len > 5 && !memcmp(w + len - 5, ".yaml", 5)) ||
           (len > 5 && !memcmp(w + len - 5, ".json", 5));
}

/* The words after `pipeline upload` on one line, up to a shell separator: the files
 * joined to input `i`'s build. */
static void link_line(struct files *f, size_t i, const char *line)
{
    const char *p = strstr(line, "pipeline upload");

    if (!p || line[strspn(line, " \t")] == '#')
        return;
    p += strlen("pipeline upload");
    for (;;) {
        size_t len, j;

        p += strspn(p, " \t\"'");
        len = strcspn(p, " \t\"';&|)#\r");
        if (!len)
            return;
        if (p[0] != '-' && is_pipeline_name(p, len) && (j = named_by(f, i, p, len)) < f->n)
            f->parent[root_of(f->parent, (unsigned)i)] = root_of(f->parent, (unsigned)j);
        p += len;
    }
}

/* Input `i`'s text, a line at a time (through its source: the read is checked against
 * the run's other reads of it). */
static void scan(struct files *f, size_t i, struct source *src)
{
    char buf[8192], line[UPLOADS_LINE + 1];
    size_t got, used = 0;

    if (source_rewind(src) != 0)
        return; /* the run's own read says why */
    while ((got = source_read(src, buf, sizeof(buf))) > 0) {
        for (size_t k = 0; k < got; k++) {
            if (buf[k] == '\n') {
                line[used] = '\0';
                link_line(f, i, line);
                used = 0;
            } else if (used < UPLOADS_LINE) {
                line[used++] = buf[k];
            }
        }
    }
    line[used] = '\0';
    link_line(f, i, line);
}

int bk_uploads_builds(struct source *const *sources, const char *const *paths, size_t n,
                      const struct strset *walked, unsigned *build, struct diag *d)
{
    struct files f = {paths, calloc(n ? n : 1, sizeof(char *)), calloc(n ? n : 1, sizeof(unsigned)), n};
    int rc = f.real && f.parent ? 0 : -1;

    (void)d; /* the inputs' own sources report */

    size_t n_walked = 0;

    for (size_t i = 0; rc == 0 && i < n; i++) {
        f.parent[i] = (unsigned)i;
        if (strset_has(walked, paths[i], strlen(paths[i])) && (f.real[i] = realpath(paths[i], NULL)) != NULL)
            n_walked++;
    }
    /* one walked file has no other to upload: it is not read again */
    for (size_t i = 0; rc == 0 && n_walked > 1 && i < n; i++) {
        if (f.real[i])
            scan(&f, i, sources[i]);
    }
    /* a file named on the command line is of the command line's build (0), and stays there */
    for (size_t i = 0; rc == 0 && i < n; i++)
        build[i] = strset_has(walked, paths[i], strlen(paths[i])) ? root_of(f.parent, (unsigned)i) + 1 : 0;
    for (size_t i = 0; f.real && i < n; i++)
        free(f.real[i]);
    free(f.real);
    free(f.parent);
    return rc;
}
