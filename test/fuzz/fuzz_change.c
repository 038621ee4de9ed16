/* change: render --changed on test-area input: a changed-files list (one path a line),
 * FUZZ_SPLIT, a test-area file; the first byte picks --upload (bit 0), --explain (bit 1)
 * and a build value (bits 2-3: none, env.NIGHTLY=1, env.RUN_ALL=1, env.NOAUTO=1). Besides
 * not crashing, leaking or hanging, the list as read is sorted and each path once, and
 * the files under a directory are that directory or below it. */
#include <stdlib.h>
#include <string.h>

#include "fanout/change.h"
#include "fanout/diag.h"
#include "fanout/dialect.h"
#include "fanout/render.h"
#include "fuzz.h"

struct under {
    const char *dir;
    size_t len;
};

static int check_under(void *user, const char *file)
{
    const struct under *u = user;

    if (strncmp(file, u->dir, u->len) != 0 || (file[u->len] != '\0' && file[u->len] != '/'))
        abort();
    return 0;
}

static void check_list(const struct change *c)
{
    for (size_t i = 1; i < change_count(c); i++) {
        if (strcmp(change_file(c, i - 1), change_file(c, i)) >= 0)
            abort();
    }
    for (size_t i = 0; i < change_count(c); i++) {
        const char *f = change_file(c, i), *slash = strrchr(f, '/');
        struct under u = {f, slash ? (size_t)(slash - f) : strlen(f)};

        if (!change_has(c, f, strlen(f)))
            abort();
        change_each_under(c, u.dir, u.len, check_under, &u);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const build[] = {NULL, "env.NIGHTLY=1", "env.RUN_ALL=1", "env.NOAUTO=1"};
    struct render_opts opts;
    struct fuzz_file list, in;
    struct change *c;
    struct diag *d;
    const uint8_t *rest;
    size_t list_len, rest_len;
    const char *path;
    uint8_t bits;

    if (size < 1 || fuzz_skip(data, size))
        return 0;
    bits = data[0];
    fuzz_split(data + 1, size - 1, &list_len, &rest, &rest_len);
    fuzz_file_open(&list, data + 1, list_len);
    fuzz_file_open(&in, rest, rest_len);
    d = diag_create(fuzz_null(), DIAG_TEXT);
    c = change_create();
    if (!c)
        abort();
    if (build[(bits >> 2) & 3] && change_set_build(c, build[(bits >> 2) & 3]) != 0)
        abort();
    change_set_explain(c, bits & 2);
    if (change_read_file(c, list.path, d) == 0) {
        check_list(c);
        memset(&opts, 0, sizeof(opts));
        opts.dialect = &dialect_testarea;
        opts.upload = bits & 1;
        opts.validate = true;
        opts.stream = fuzz_null();
        opts.change = c;
        path = in.path;
        render_run(&path, 1, &opts, d);
    }
    change_destroy(c);
    diag_destroy(d);
    fuzz_file_close(&list);
    fuzz_file_close(&in);
    return 0;
}
