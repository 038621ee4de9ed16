/* change: the files a change touches and the build's values (include/fanout/change.h). */
#include "fanout/change.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/gitrev.h"
#include "fanout/inputs.h"

struct build_value {
    char *key, *value;
};

struct change {
    char **files;
    size_t n, cap;
    bool known, explain;
    struct build_value *build;
    size_t n_build;
};

struct change *change_create(void)
{
    return calloc(1, sizeof(struct change));
}

void change_destroy(struct change *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        free(c->files[i]);
    for (size_t i = 0; i < c->n_build; i++) {
        free(c->build[i].key);
        free(c->build[i].value);
    }
    free(c->files);
    free(c->build);
    free(c);
}

static int add_file(struct change *c, const char *s, size_t len)
{
    char *copy;

    while (len >= 2 && s[0] == '.' && s[1] == '/') {
        s += 2;
        len -= 2;
    }
    if (!len)
        return 0;
    if (c->n == c->cap) {
        char **grown = array_grow(c->files, &c->cap, c->n + 1, 64, sizeof(*grown));

        if (!grown)
            return -1;
        c->files = grown;
    }
    if (!(copy = strndup(s, len)))
        return -1;
    c->files[c->n++] = copy;
    return 0;
}

static int by_bytes(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, each file once. */
static void finish(struct change *c)
{
    size_t kept = 0;

    if (c->n) /* an empty list (a change of nothing) has no array to sort */
        qsort(c->files, c->n, sizeof(*c->files), by_bytes);
    for (size_t i = 0; i < c->n; i++) {
        if (kept && !strcmp(c->files[kept - 1], c->files[i]))
            free(c->files[i]);
        else
            c->files[kept++] = c->files[i];
    }
    c->n = kept;
    c->known = true;
}

/* a path a line; a longer one is no path (Linux allows 4 KiB) but an endless input */
#define CHANGE_LINE_MAX 65536u

static int out_of_memory(struct diag *d, const char *what)
{
    diag_report(d, DIAG_ERROR, DIAG_INPUT, what, 0, 0, RULE_IO, "out of memory");
    return -1;
}

int change_read_file(struct change *c, const char *path, struct diag *d)
{
    bool in = !strcmp(path, "-");
    FILE *f = in ? stdin : fopen(path, "r");
    char *line = malloc(CHANGE_LINE_MAX);
    size_t len;
    unsigned no = 0;
    int rc = 0, got = 0;

    if (!f || !line) {
        if (f && !in)
            fclose(f);
        free(line);
        if (f)
            return out_of_memory(d, path);
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, RULE_IO, "cannot open: %s", strerror(errno));
        return -1;
    }
    while (rc == 0 && (got = inputs_read_line(f, line, CHANGE_LINE_MAX, &len)) > 0) {
        no++;
        while (len && line[len - 1] == '\r')
            len--;
        if (add_file(c, line, len) != 0)
            rc = out_of_memory(d, path);
    }
    if (rc == 0 && got < 0) {
        if (got == INPUTS_LINE_LONG || got == INPUTS_LINE_NUL)
            diag_report(d, DIAG_ERROR, DIAG_INPUT, path, no + 1, 1, RULE_IO, "%s: not a list of paths",
                        got == INPUTS_LINE_NUL ? "a NUL byte" : "a line longer than 64 KiB");
        else
            diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, RULE_IO, "cannot read: %s", strerror(errno));
        rc = -1;
    }
    free(line);
    if (!in)
        fclose(f);
    if (rc == 0)
        finish(c);
    return rc;
}

int change_read_git(struct change *c, const char *ref, struct diag *d)
{
    size_t len = 0;
    char *list = gitrev_changed(ref, &len, d);
    int rc = 0;

    if (!list)
        return -1;
    for (size_t at = 0; at < len && rc == 0;) {
        size_t n = strnlen(list + at, len - at);

        if (add_file(c, list + at, n) != 0)
            rc = out_of_memory(d, "git diff");
        at += n + 1;
    }
    free(list);
    if (rc == 0)
        finish(c);
    return rc;
}

int change_set_build(struct change *c, const char *key_value)
{
    const char *eq = strchr(key_value, '=');
    struct build_value *grown, v;

    if (!eq || eq == key_value)
        return -1;
    for (size_t i = 0; i < c->n_build; i++) {
        if (strlen(c->build[i].key) == (size_t)(eq - key_value) &&
            !memcmp(c->build[i].key, key_value, (size_t)(eq - key_value))) {
            char *value = strdup(eq + 1);

            if (!value)
                return -1;
            free(c->build[i].value);
            c->build[i].value = value;
            return 0;
        }
    }
    if (!(grown = realloc(c->build, (c->n_build + 1) * sizeof(*grown))))
        return -1;
    c->build = grown;
    v.key = strndup(key_value, (size_t)(eq - key_value));
    v.value = strdup(eq + 1);
    if (!v.key || !v.value) {
        free(v.key);
        free(v.value);
        return -1;
    }
    c->build[c->n_build++] = v;
    return 0;
}

const char *change_build(const struct change *c, const char *key)
{
    for (size_t i = 0; c && i < c->n_build; i++) {
        if (!strcmp(c->build[i].key, key))
            return c->build[i].value;
    }
    return NULL;
}

bool change_known(const struct change *c)
{
    return c && c->known;
}

size_t change_count(const struct change *c)
{
    return c ? c->n : 0;
}

const char *change_file(const struct change *c, size_t i)
{
    return c->files[i];
}

/* The first file whose first `len` bytes are not before `s`'s. */
static size_t lower_bound(const struct change *c, const char *s, size_t len)
{
    size_t lo = 0, hi = c->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = strncmp(c->files[mid], s, len);

        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int change_each_under(const struct change *c, const char *dir, size_t len, change_file_fn fn, void *user)
{
    char *slash = c ? malloc(len + 2) : NULL;
    size_t i;
    int rc = 0;

    if (!slash)
        return 0;
    /* `dir` itself sorts before `dir/...`, and files such as `dir-x` (a byte below '/')
     * between them: the file and the range are looked up apart. */
    if (change_has(c, dir, len))
        rc = fn(user, c->files[lower_bound(c, dir, len)]);
    memcpy(slash, dir, len);
    slash[len] = '/';
    slash[len + 1] = '\0';
    for (i = lower_bound(c, slash, len + 1); rc == 0 && i < c->n && !strncmp(c->files[i], slash, len + 1); i++)
        rc = fn(user, c->files[i]);
    free(slash);
    return rc;
}

bool change_has(const struct change *c, const char *file, size_t len)
{
    size_t i = c ? lower_bound(c, file, len) : 0;

    return c && i < c->n && strlen(c->files[i]) == len && !memcmp(c->files[i], file, len);
}

void change_set_explain(struct change *c, bool explain)
{
    c->explain = explain;
}

bool change_explain(const struct change *c)
{
    return c && c->explain;
}
