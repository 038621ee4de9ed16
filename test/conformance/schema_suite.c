/* Runs the official JSON Schema test suite (draft7, required tests) against fanout's
 * validator: schema-suite DIR. Prints every failure and skip with its reason, then
 * "schema-suite: N passed, N failed, N skipped"; exits 1 when anything failed. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/schema.h"
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

static const char *text(struct fy_node *n)
{
    const char *t = n ? fy_node_get_scalar0(n) : NULL;

    return t ? t : "?";
}

struct counts {
    unsigned passed, failed, skipped;
};

static void run_group(const char *file, struct fy_node *group, struct counts *c)
{
    struct fy_node *tests = fy_node_mapping_lookup_by_string(group, "tests", FY_NT), *t;
    struct fy_node *schema_node = fy_node_mapping_lookup_by_string(group, "schema", FY_NT);
    struct fy_document *sdoc = fy_document_create(NULL);
    struct fy_node *copy = sdoc ? ynode_copy(sdoc, schema_node) : NULL;
    char *messages = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&messages, &len);
    struct diag *d = diag_create(err, DIAG_TEXT);
    struct schema *s;
    void *it = NULL;

    if (!copy || fy_document_set_root(sdoc, copy) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    s = schema_compile(sdoc, file, d);
    fclose(err);
    while ((t = fy_node_sequence_iterate(tests, &it)) != NULL) {
        struct fy_node *data = fy_node_mapping_lookup_by_string(t, "data", FY_NT);
        bool want = strcmp(text(fy_node_mapping_lookup_by_string(t, "valid", FY_NT)), "true") == 0;
        bool got;

        if (!s) {
            bool remote = messages && strstr(messages, "remote references") &&
                          !strstr(messages, "json-schema.org");
            if (remote) {
                c->skipped++;
                printf("SKIP %s: %s / %s: the schema needs a remote $ref\n", file,
                       text(fy_node_mapping_lookup_by_string(group, "description", FY_NT)),
                       text(fy_node_mapping_lookup_by_string(t, "description", FY_NT)));
            } else {
                c->failed++;
                printf("FAIL %s: %s: schema does not compile: %s", file,
                       text(fy_node_mapping_lookup_by_string(group, "description", FY_NT)),
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
                   text(fy_node_mapping_lookup_by_string(group, "description", FY_NT)),
                   text(fy_node_mapping_lookup_by_string(t, "description", FY_NT)),
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
        struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_JSON_FORCE};
        struct fy_document *fyd;
        struct fy_node *group;
        const char *why = skip_reason(names[i]);
        void *it = NULL;

        snprintf(path, sizeof(path), "%s/%s", argv[1], names[i]);
        fyd = fy_document_build_from_file(&cfg, path);
        if (!fyd) {
            printf("FAIL %s: cannot parse\n", names[i]);
            c.failed++;
            free(names[i]);
            continue;
        }
        while ((group = fy_node_sequence_iterate(fy_document_root(fyd), &it)) != NULL) {
            if (why) {
                unsigned k = (unsigned)fy_node_sequence_item_count(
                    fy_node_mapping_lookup_by_string(group, "tests", FY_NT));

                c.skipped += k;
                printf("SKIP %s: %s (%u tests): %s\n", names[i],
                       text(fy_node_mapping_lookup_by_string(group, "description", FY_NT)), k, why);
                continue;
            }
            run_group(names[i], group, &c);
        }
        fy_document_destroy(fyd);
        free(names[i]);
    }
    printf("schema-suite: %u passed, %u failed, %u skipped\n", c.passed, c.failed, c.skipped);
    return c.failed ? 1 : 0;
}
