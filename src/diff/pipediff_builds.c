/* pipediff_builds: which build of HEAD is which build of BASE, where a side's files are
 * several builds (keys are unique per build: docs/buildkite.md "Builds"). A build is
 * known by its files, not by its first one: builds of the two sides that share a file
 * are one build, and so on through the files they share (docs/diff.md "Builds"), so a
 * build that gains or loses its first file, or a file, is still itself. */
#include "pipediff_internal.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/strhash.h"

const char *pd_operand_path(const char *spec, const char *path)
{
    size_t len = strlen(spec);

    if (strncmp(path, spec, len) != 0)
        return "";
    path += len;
    while (*path == '/')
        path++;
    return path;
}

struct file_at {
    const char *path; /* within its operand */
    uint32_t build;   /* BASE's builds, then HEAD's, by their first file's number */
};

static int by_path(const void *pa, const void *pb)
{
    return strcmp(((const struct file_at *)pa)->path, ((const struct file_at *)pb)->path);
}

static uint32_t joined(uint32_t *up, uint32_t b)
{
    while (up[b] != b)
        b = up[b] = up[up[b]];
    return b;
}

/* The build of file i of side `which` (BASE's numbers, then HEAD's). */
static uint32_t build_of(const struct pd_builds_side *side, unsigned which, size_t i)
{
    return (uint32_t)((which ? side[0].n : 0) + (side[which].first ? side[which].first[i] : 0));
}

/* Which file names each set of joined builds: its first of BASE, else its first of HEAD
 * (a build HEAD adds), as a build unchanged was named by its first file before. */
static void name_sets(const struct pd_builds_side *side, uint32_t *up, uint32_t *name)
{
    for (unsigned which = 0; which < 2; which++) {
        for (size_t i = 0; i < side[which].n; i++) {
            uint32_t set = joined(up, build_of(side, which, i));

            if (name[set] == UINT32_MAX)
                name[set] = (uint32_t)((which ? side[0].n : 0) + i);
        }
    }
}

int pd_builds_match(const struct pd_builds_side side[2], struct hkey *scope[2])
{
    size_t n = side[0].n + side[1].n, k = 0;
    uint32_t *up = malloc((n ? n : 1) * sizeof(*up)), *name = malloc((n ? n : 1) * sizeof(*name));
    struct file_at *v = malloc((n ? n : 1) * sizeof(*v));
    int rc = -1;

    scope[0] = scope[1] = NULL;
    if (!up || !name || !v)
        goto done;
    for (size_t b = 0; b < n; b++) {
        up[b] = (uint32_t)b;
        name[b] = UINT32_MAX;
    }
    for (unsigned which = 0; which < 2; which++) {
        for (size_t i = 0; i < side[which].n; i++) {
            v[k].path = pd_operand_path(side[which].spec, side[which].paths[i]);
            v[k++].build = build_of(side, which, i);
        }
    }
    qsort(v, n, sizeof(*v), by_path);
    for (k = 1; k < n; k++) {
        if (!strcmp(v[k].path, v[k - 1].path)) {
            uint32_t a = joined(up, v[k].build), b = joined(up, v[k - 1].build);

            up[a] = b;
        }
    }
    name_sets(side, up, name);
    for (unsigned which = 0; which < 2; which++) {
        if (!(scope[which] = malloc((side[which].n ? side[which].n : 1) * sizeof(**scope))))
            goto done;
        for (size_t i = 0; i < side[which].n; i++) {
            uint32_t f = name[joined(up, build_of(side, which, i))];
            unsigned of = f >= side[0].n;
            const char *path = pd_operand_path(side[of].spec, side[of].paths[f - (of ? side[0].n : 0)]);

            strhash_pair(path, strlen(path), &scope[which][i].h1, &scope[which][i].h2);
        }
    }
    rc = 0;
done:
    if (rc != 0) {
        free(scope[0]);
        free(scope[1]);
        scope[0] = scope[1] = NULL;
    }
    free(up);
    free(name);
    free(v);
    return rc;
}
