#define _XOPEN_SOURCE 700 /* realpath */
#include "fanout/inputs.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fanout/arrays.h"
#include "fanout/strset.h"

/* Directories read so far, by device and inode, sorted: each is read once, whatever
 * the links that lead to it (an `up -> ..` link would otherwise loop). */
struct seen_dirs {
    struct dir_id {
        dev_t dev;
        ino_t ino;
    } *ids;
    size_t n, cap;
};

static int dir_id_cmp(const struct dir_id *a, const struct dir_id *b)
{
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    return a->ino < b->ino ? -1 : a->ino > b->ino;
}

/* 1: first visit (recorded); 0: seen before; -1: out of memory. */
static int first_visit(struct seen_dirs *seen, const struct stat *sb)
{
    struct dir_id id = {sb->st_dev, sb->st_ino};
    size_t lo = 0, hi = seen->n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = dir_id_cmp(&seen->ids[mid], &id);

        if (c == 0)
            return 0;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (seen->n == seen->cap) {
        struct dir_id *ids = array_grow(seen->ids, &seen->cap, seen->n + 1, 16, sizeof(*ids));

        if (!ids)
            return -1;
        seen->ids = ids;
    }
    memmove(&seen->ids[lo + 1], &seen->ids[lo], (seen->n - lo) * sizeof(*seen->ids));
    seen->ids[lo] = id;
    seen->n++;
    return 1;
}

static int add(struct inputs *in, size_t *cap, char *path)
{
    if (in->n == *cap) {
        char **p = array_grow(in->paths, cap, in->n + 1, 16, sizeof(*p));

        if (!p) {
            free(path);
            return -1;
        }
        in->paths = p;
    }
    in->paths[in->n++] = path;
    return 0;
}

/* A file a directory stands for: an input, and one of `walked`. */
static int add_walked(struct inputs *in, size_t *cap, char *path)
{
    if ((!in->walked && !(in->walked = strset_create())) || strset_add(in->walked, path, strlen(path)) < 0) {
        free(path);
        return -1;
    }
    return add(in, cap, path);
}

const char *const inputs_yaml_suffixes[] = {".yaml", ".yml", NULL};

bool inputs_name_has_suffix(const char *name, size_t len, const char *const *suffixes)
{
    for (; *suffixes; suffixes++) {
        size_t sl = strlen(*suffixes);

        if (len > sl && !memcmp(name + len - sl, *suffixes, sl))
            return true;
    }
    return false;
}

static bool is_yaml_name(const char *name)
{
    return inputs_name_has_suffix(name, strlen(name), inputs_yaml_suffixes);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join(const char *dir, const char *name)
{
    size_t dl = strlen(dir), nl = strlen(name);
    char *p = malloc(dl + nl + 2);

    if (!p)
        return NULL;
    memcpy(p, dir, dl);
    if (dl && dir[dl - 1] != '/')
        p[dl++] = '/';
    memcpy(p + dl, name, nl + 1);
    return p;
}

static int walk(const char *dir, bool recurse, struct diag *d, struct inputs *in, size_t *cap,
                struct seen_dirs *seen);

/* Walks the subdirectory `path` (stat `sb`) unless it was read already. */
static int walk_into(const char *path, const struct stat *sb, struct diag *d, struct inputs *in,
                     size_t *cap, struct seen_dirs *seen)
{
    int first = first_visit(seen, sb);

    if (first > 0)
        return walk(path, true, d, in, cap, seen);
    if (first < 0)
        return -1;
    diag_report(d, DIAG_WARNING, DIAG_FINDING, path, 0, 0, RULE_SYMLINK_LOOP,
                "skipped: a link to a directory that is read already");
    return 0;
}

/* Adds the YAML files under `dir` (in its subdirectories too when `recurse`), entries
 * sorted by name at every level. */
static int walk(const char *dir, bool recurse, struct diag *d, struct inputs *in, size_t *cap,
                struct seen_dirs *seen)
{
    DIR *dh = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, ncap = 0;
    int rc = 0;

    if (!dh) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, dir, 0, 0, RULE_IO, "cannot read directory: %s",
                    strerror(errno));
        return -1;
    }
    while ((de = readdir(dh)) != NULL) {
        char **grown;

        if (de->d_name[0] == '.')
            continue;
        if (n == ncap) {
            grown = array_grow(names, &ncap, n + 1, 32, sizeof(*names));
            if (!grown) {
                rc = -1;
                break;
            }
            names = grown;
        }
        if (!(names[n] = strdup(de->d_name))) {
            rc = -1;
            break;
        }
        n++;
    }
    closedir(dh);
    if (n)
        qsort(names, n, sizeof(*names), by_name);
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *path = join(dir, names[i]);
        struct stat sb;

        if (!path) {
            rc = -1;
        } else if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            if (recurse)
                rc = walk_into(path, &sb, d, in, cap, seen);
            free(path);
        } else if (is_yaml_name(names[i]) && stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
            /* a FIFO would block the run until a writer came: read only when named */
            diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, RULE_IO,
                        "not a regular file (a FIFO, a socket or a device): a directory's walk does "
                        "not read it; name it as FILE to read it");
            free(path);
            rc = -1;
        } else if (is_yaml_name(names[i])) {
            rc = add_walked(in, cap, path);
        } else {
            free(path);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* A repository's CI configuration: Buildkite's `.buildkite/` (its subdirectories too:
 * vLLM's test_areas) and GitHub's `.github/workflows/` (its own files only: GitHub reads
 * no subdirectory there). Hidden, so a plain walk skips them. */
static const struct {
    const char *dir;
    bool recurse;
} ci_dirs[] = {{".buildkite", true}, {".github/workflows", false}};

/* Walks the CI directories of `root` that exist; 1 when there was none. */
static int walk_ci(const char *root, struct diag *d, struct inputs *in, size_t *cap,
                   struct seen_dirs *seen)
{
    int rc = 1;

    for (size_t i = 0; i < sizeof(ci_dirs) / sizeof(ci_dirs[0]) && rc >= 0; i++) {
        char *path = join(root, ci_dirs[i].dir);
        struct stat sb;

        if (!path)
            return -1;
        if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) && first_visit(seen, &sb) >= 0)
            rc = walk(path, ci_dirs[i].recurse, d, in, cap, seen) != 0 ? -1 : 0;
        free(path);
    }
    return rc;
}

/* Whether `path` is one of `skip` (the same device and inode). */
static bool is_skipped(const char *path, const struct stat *skip, size_t n_skip)
{
    struct stat sb;

    if (!n_skip || stat(path, &sb) != 0)
        return false;
    for (size_t i = 0; i < n_skip; i++) {
        if (skip[i].st_dev == sb.st_dev && skip[i].st_ino == sb.st_ino)
            return true;
    }
    return false;
}

/* Drops the files from `from` on that are among `skip`. */
static void drop_skipped(struct inputs *in, size_t from, const struct stat *skip, size_t n_skip)
{
    size_t kept = from;

    for (size_t i = from; i < in->n; i++) {
        if (is_skipped(in->paths[i], skip, n_skip))
            free(in->paths[i]);
        else
            in->paths[kept++] = in->paths[i];
    }
    in->n = kept;
}

/* Times `path` is among the operands. */
static size_t times_named(const char *const *paths, size_t n, const char *path)
{
    size_t times = 0;

    for (size_t j = 0; j < n; j++)
        times += !strcmp(paths[j], path);
    return times;
}

/* The first operand that is the file at `path` (device and inode: `./d3/p1.yml` and a
 * walk's `d3/p1.yml` are one file), among `named` (each operand's stat, a regular file
 * or none); NULL when none is. */
static const char *named_as(const char *const *paths, const struct stat *named, size_t n, const char *path)
{
    struct stat sb;

    if (stat(path, &sb) != 0)
        return NULL;
    for (size_t j = 0; j < n; j++) {
        if (S_ISREG(named[j].st_mode) && named[j].st_dev == sb.st_dev && named[j].st_ino == sb.st_ino)
            return paths[j];
    }
    return NULL;
}

/* A file both named and in a named directory is named: read as often as named, as named,
 * in the command line's build, not a walked one (`validate a.yml b.yml .` is still
 * `pipeline upload a.yml b.yml`). The same file, however spelled: a walk's copy is first
 * spelled as the operand that names it. 0, or -1 when out of memory. */
static int named_wins(struct inputs *out, const char *const *paths, size_t n)
{
    const char *const *items;
    struct stat *named;
    struct strset *kept = NULL;
    bool any = false;
    int rc = -1;

    if (!out->walked)
        return 0;
    if (!(named = calloc(n ? n : 1, sizeof(*named))))
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(paths[i], "-") || stat(paths[i], &named[i]) != 0 || !S_ISREG(named[i].st_mode))
            named[i].st_mode = 0;
        any |= named[i].st_mode != 0;
    }
    if (!any) {
        free(named);
        return 0;
    }
    /* a walk's copy spelled as no operand is, of a file an operand names: respelled */
    for (size_t k = 0; k < out->n; k++) {
        const char *as;
        char *copy;

        if (!strset_has(out->walked, out->paths[k], strlen(out->paths[k])) || times_named(paths, n, out->paths[k]) ||
            !(as = named_as(paths, named, n, out->paths[k])))
            continue;
        if (!(copy = strdup(as)))
            goto done;
        free(out->paths[k]);
        out->paths[k] = copy;
    }
    if (!(kept = strset_create()))
        goto done;
    for (items = strset_items(out->walked); *items; items++) {
        if (!times_named(paths, n, *items) && !named_as(paths, named, n, *items) &&
            strset_add(kept, *items, strlen(*items)) < 0)
            goto done;
    }
    /* the walk's copies of a named file go: it is read as often as it is named */
    for (size_t k = 0, kept_n = 0, all = out->n; k < all; k++) {
        size_t times = times_named(paths, n, out->paths[k]), before = 0;

        for (size_t j = 0; times && j < kept_n; j++)
            before += !strcmp(out->paths[j], out->paths[k]);
        if (times && before >= times)
            free(out->paths[k]), out->n--;
        else
            out->paths[kept_n++] = out->paths[k];
    }
    strset_destroy(out->walked);
    out->walked = kept;
    kept = NULL;
    rc = 0;
done:
    strset_destroy(kept);
    free(named);
    return rc;
}

int inputs_expand(const char *const *paths, size_t n, struct diag *d, struct inputs *out)
{
    return inputs_expand_skipping(paths, n, NULL, 0, d, out);
}

int inputs_expand_skipping(const char *const *paths, size_t n, const char *const *skip_paths, size_t n_skip,
                           struct diag *d, struct inputs *out)
{
    size_t cap = 0, n_ids = 0;
    struct seen_dirs seen = {NULL, 0, 0};
    struct stat *skip = n_skip ? calloc(n_skip, sizeof(*skip)) : NULL;
    int rc;

    for (size_t i = 0; skip && i < n_skip; i++) {
        if (stat(skip_paths[i], &skip[n_ids]) == 0) /* one not there yet is no input either */
            n_ids++;
    }

    out->paths = NULL;
    out->n = 0;
    out->walked = NULL;
    for (size_t i = 0; i < n; i++) {
        struct stat sb;

        if (strcmp(paths[i], "-") != 0 && stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            size_t before = out->n;

            /* Each operand is walked on its own: naming a directory twice reads it twice. A
             * directory with CI configuration (a repository's root) stands for it alone. */
            seen.n = 0;
            if ((n_skip && !skip) || first_visit(&seen, &sb) < 0 || (rc = walk_ci(paths[i], d, out, &cap, &seen)) < 0 ||
                (rc > 0 && walk(paths[i], true, d, out, &cap, &seen) != 0))
                goto fail;
            drop_skipped(out, before, skip, n_ids);
            if (out->n == before) {
                diag_report(d, DIAG_ERROR, DIAG_INPUT, paths[i], 0, 0, RULE_IO,
                            "no .yaml or .yml files in this directory");
                goto fail;
            }
            continue;
        }
        {
            char *copy = strdup(paths[i]);

            if (!copy || add(out, &cap, copy) != 0)
                goto fail;
        }
    }
    if (named_wins(out, paths, n) != 0)
        goto fail;
    free(seen.ids);
    free(skip);
    return 0;
fail:
    free(seen.ids);
    free(skip);
    if (!diag_has_input_error(d))
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_INTERNAL, "out of memory");
    inputs_free(out);
    return -1;
}

void inputs_free(struct inputs *in)
{
    for (size_t i = 0; i < in->n; i++)
        free(in->paths[i]);
    free(in->paths);
    strset_destroy(in->walked);
    in->paths = NULL;
    in->n = 0;
    in->walked = NULL;
}

char **inputs_walked_real(const char *const *paths, size_t n, const struct strset *walked)
{
    char **real = calloc(n ? n : 1, sizeof(*real));

    for (size_t i = 0; real && i < n; i++) {
        if (strset_has(walked, paths[i], strlen(paths[i])))
            real[i] = realpath(paths[i], NULL); /* NULL: gone since the walk, matches nothing */
    }
    return real;
}

void inputs_real_free(char **real, size_t n)
{
    for (size_t i = 0; real && i < n; i++)
        free(real[i]);
    free(real);
}

bool inputs_real_under(const char *real, const char *dir, size_t len)
{
    return real && !strncmp(real, dir, len) && real[len] == '/';
}

bool inputs_real_ends_with(const char *real, const char *tail, size_t len)
{
    size_t rl = real ? strlen(real) : 0;

    return rl > len && real[rl - len - 1] == '/' && !memcmp(real + rl - len, tail, len);
}

char *inputs_path_from(const char *from, const char *path)
{
    const char *slash = strrchr(from, '/');
    size_t len = slash && path[0] != '/' ? (size_t)(slash - from) + 1 : 0, pl = strlen(path);
    char *joined = malloc(len + pl + 1);

    if (!joined)
        return NULL;
    memcpy(joined, from, len);
    memcpy(joined + len, path, pl + 1);
    return joined;
}

int inputs_read_line(FILE *f, char *buf, size_t cap, size_t *len)
{
    size_t n = 0;
    int c;

    while ((c = getc(f)) != EOF && c != '\n') {
        if (c == '\0')
            return INPUTS_LINE_NUL;
        if (n == cap)
            return INPUTS_LINE_LONG;
        buf[n++] = (char)c;
    }
    if (c == EOF && (ferror(f) || n == 0))
        return ferror(f) ? -1 : 0;
    *len = n;
    return 1;
}
