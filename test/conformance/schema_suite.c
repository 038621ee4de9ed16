/* Runs the official JSON Schema test suite (draft7, required tests) against fanout's
 * validator: schema-suite DIR. Prints every failure and skip with its reason, then
 * "schema-suite: N passed, N failed, N skipped"; exits 1 when anything failed. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/schema.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/ynode.h"

/* Files not run, with the reason. */
static const struct {
    const char *file, *why;
} skipped_files[] = {
    {"refRemote.json", "remote $refs need the suite's HTTP server (no network here)"},
};

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *skip_reason(const char *file)
{
    for (size_t i = 0; i < sizeof(skipped_files) / sizeof(skipped_files[0]); i++) {
        if (strcmp(skipped_files[i].file, file) == 0)
            return skipped_files[i].why;
    }
    return NULL;
}

static const char *text(const struct ynode *n)
{
    const char *t = ynode_scalar(n, NULL);

    return t ? t : "?";
}

struct counts {
    unsigned passed, failed, skipped;
};

static void run_group(const char *file, const struct ynode *group, struct counts *c)
{
    const struct ynode *tests = ynode_get(group, "tests");
    struct ynode_doc *sdoc = ynode_doc_create();
    struct ynode *copy = sdoc ? ynode_copy(sdoc, ynode_get(group, "schema")) : NULL;
    char *messages = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&messages, &len);
    struct diag *d = diag_create(err, DIAG_TEXT);
    struct schema *s;

    if (!copy) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    ynode_doc_set_root(sdoc, copy);
    s = schema_compile(sdoc, file, d);
    fclose(err);
    for (size_t i = 0; i < ynode_len(tests); i++) {
        const struct ynode *t = ynode_item(tests, i);
        struct ynode *data = ynode_get(t, "data");
        bool want = strcmp(text(ynode_get(t, "valid")), "true") == 0;
        bool got;

        if (!s) {
            bool remote = messages && strstr(messages, "remote references") &&
                          !strstr(messages, "json-schema.org");
            if (remote) {
                c->skipped++;
                printf("SKIP %s: %s / %s: the schema needs a remote $ref\n", file,
                       text(ynode_get(group, "description")),
                       text(ynode_get(t, "description")));
            } else {
                c->failed++;
                printf("FAIL %s: %s: schema does not compile: %s", file,
                       text(ynode_get(group, "description")),
                       messages ? messages : "\n");
            }
            continue;
        }
        got = schema_is_valid(schema_root(s), data);
        if (got == want) {
            c->passed++;
        } else {
            c->failed++;
            printf("FAIL %s: %s / %s: expected %s\n", file,
                   text(ynode_get(group, "description")),
                   text(ynode_get(t, "description")),
                   want ? "valid" : "invalid");
        }
    }
    schema_free(s);
    diag_destroy(d);
    free(messages);
}

int main(int argc, char **argv)
{
    struct counts c = {0, 0, 0};
    char *names[256];
    size_t n = 0;
    DIR *dh;
    struct dirent *de;

    if (argc != 2) {
        fprintf(stderr, "usage: schema-suite TESTS_DIR\n");
        return 2;
    }
    dh = opendir(argv[1]);
    if (!dh) {
        perror(argv[1]);
        return 2;
    }
    while ((de = readdir(dh)) != NULL && n < 256) {
        size_t l = strlen(de->d_name);

        if (l > 5 && strcmp(de->d_name + l - 5, ".json") == 0)
            names[n++] = strdup(de->d_name);
    }
    closedir(dh);
    qsort(names, n, sizeof(*names), by_name);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        struct diag *d = diag_create(stdout, DIAG_TEXT);
        struct source *src;
        struct stream *st;
        struct ynode_doc *fyd = NULL;
        const struct ynode *groups;
        const char *why = skip_reason(names[i]);

        snprintf(path, sizeof(path), "%s/%s", argv[1], names[i]);
        src = source_open(path, d);
        st = src ? stream_open(src, 0, d) : NULL;
        if (!st || stream_document(st, &fyd) <= 0 || !fyd) {
            printf("FAIL %s: cannot parse\n", names[i]);
            c.failed++;
            stream_close(st);
            source_close(src);
            diag_destroy(d);
            free(names[i]);
            continue;
        }
        groups = ynode_doc_root(fyd);
        for (size_t g = 0; g < ynode_len(groups); g++) {
            const struct ynode *group = ynode_item(groups, g);

            if (why) {
                unsigned k = (unsigned)ynode_len(ynode_get(group, "tests"));

                c.skipped += k;
                printf("SKIP %s: %s (%u tests): %s\n", names[i],
                       text(ynode_get(group, "description")), k, why);
                continue;
            }
            run_group(names[i], group, &c);
        }
        ynode_doc_destroy(fyd);
        stream_close(st);
        source_close(src);
        diag_destroy(d);
        free(names[i]);
    }
    printf("schema-suite: %u passed, %u failed, %u skipped\n", c.passed, c.failed, c.skipped);
    return c.failed ? 1 : 0;
}
