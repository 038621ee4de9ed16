#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/testarea.h"
#include "unit.h"

struct result {
    int rc;
    char *group;    /* rendering of the file's group, or NULL */
    char *amd;      /* rendering of the AMD group, or NULL */
    char *messages;
};

static char *render_doc(struct ynode_doc *fyd)
{
    char *out;

    if (!fyd)
        return NULL;
    out = emit_to_string(ynode_doc_root(fyd), 0);
    ynode_doc_destroy(fyd);
    return out;
}

/* Runs one test-area file through testarea_file. */
static struct result run(const char *yaml, enum ta_platform platform)
{
    char path[] = "/tmp/fanout-ta-XXXXXX";
    int fd = mkstemp(path);
    size_t msg_len = 0;
    FILE *err;
    struct result r = {0};
    const char *files[] = {"t.yaml"};
    struct diag *d;
    struct source *src;
    struct stream *s;
    struct testarea *ta;
    struct ynode_doc *doc = NULL;

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
    close(fd);
    err = open_memstream(&r.messages, &msg_len);
    d = diag_create(err, DIAG_TEXT);
    src = source_open(path, d);
    ck_assert_ptr_nonnull(src);
    s = stream_open(src, 0, d);
    ta = testarea_create(d, files, platform, false);
    r.rc = testarea_file(ta, s, &doc);
    r.group = render_doc(doc);
    r.amd = render_doc(testarea_take_amd_group(ta));
    testarea_destroy(ta);
    stream_close(s);
    source_close(src);
    diag_destroy(d);
    fclose(err);
    unlink(path);
    return r;
}

static void result_free(struct result *r)
{
    free(r->group);
    free(r->amd);
    free(r->messages);
}

START_TEST(mirror_rules)
{
    struct result r = run("group: G\n"
                          "depends_on: [image-build]\n"
                          "steps:\n"
                          "  - label: T\n"
                          "    key: t\n"
                          "    device: h100\n"
                          "    parallelism: 4\n"
                          "    timeout_in_minutes: 30\n"
                          "    env: {A: p, B: p}\n"
                          "    commands: [run]\n"
                          "    mirror:\n"
                          "      amd:\n"
                          "        device: mi300_1\n"
                          "        parallelism: 2\n"
                          "        timeout_in_minutes: 500\n"
                          "        env: {B: m}\n",
                          TA_ALL);

    ck_assert_int_eq(r.rc, 0);
    /* emit_node keeps the nodes' order: the step's own, then what testarea added. */
    ck_assert_str_eq(r.group, "- group: G\n"
                              "  steps:\n"
                              "    - label: T\n"
                              "      key: t\n"
                              "      device: h100\n"
                              "      parallelism: 4\n"
                              "      timeout_in_minutes: 30\n"
                              "      env:\n"
                              "        A: p\n"
                              "        B: p\n"
                              "      commands:\n"
                              "        - run\n"
                              "      depends_on:\n"
                              "        - image-build\n");
    ck_assert_str_eq(r.amd, "- group: Hardware-AMD Tests\n"
                            "  steps:\n"
                            "    - label: \"AMD: T (mi300_1)\"\n"
                            "      key: amd-t\n"
                            "      device: mi300_1\n"
                            "      parallelism: 2\n"
                            "      timeout_in_minutes: 180\n"
                            "      env:\n"
                            "        A: p\n"
                            "        B: m\n"
                            "      commands:\n"
                            "        - run\n"
                            "      dind: true\n"
                            "      depends_on:\n"
                            "        - image-build-amd\n");
    result_free(&r);
}
END_TEST

START_TEST(platform_filter)
{
    static const char yaml[] = "group: G\n"
                               "steps:\n"
                               "  - {label: N, commands: [a], mirror: {amd: {device: mi300_1}}}\n"
                               "  - {label: M, device: mi355_1, commands: [b]}\n";
    struct result nv = run(yaml, TA_NVIDIA), amd = run(yaml, TA_AMD);

    ck_assert_int_eq(nv.rc, 0);
    ck_assert_ptr_null(nv.amd);
    ck_assert_ptr_nonnull(strstr(nv.group, "label: N"));
    ck_assert_ptr_null(strstr(nv.group, "label: M"));
    ck_assert_int_eq(amd.rc, 0);
    ck_assert_ptr_nonnull(strstr(amd.group, "label: M"));
    ck_assert_ptr_null(strstr(amd.group, "label: N"));
    ck_assert_ptr_nonnull(strstr(amd.amd, "AMD: N (mi300_1)"));
    result_free(&nv);
    result_free(&amd);
}
END_TEST

static const struct {
    const char *yaml, *message;
} bad[] = {
    {"group: G\nsteps:\n  - {label: a, comands: [x]}\n", "t.yaml:3:16: error: unknown field 'comands' in a test-area step"},
    {"group: G\nsteps:\n  - {label: a, mirror: {intel: {}}}\n", "mirror platform 'intel' is not supported (only amd)"},
    {"group: G\nsteps:\n  - {label: a, mirror: {amd: x}}\n", "mirror.amd must be a mapping of overrides"},
    {"group: G\nsteps:\n  - {label: a, mirror: {amd: {parallelism: 0}}}\n", "mirror.amd.parallelism must be an integer from 1 to 1000, got '0'"},
    {"group: G\nsteps:\n  - {label: a, optional: maybe}\n", "optional must be true or false, got 'maybe'"},
    {"group: G\nsteps:\n  - {label: a, source_file_dependencies: vllm/}\n", "source_file_dependencies must be a list of strings"},
    {"group: G\nsteps:\n  - {commands: [x]}\n", "a test-area step needs a label"},
    {"steps:\n  - {label: a}\n", "a test-area file needs 'group'"},
    {"group: [G]\nsteps: []\n", "group must be a string"},
    {"group: G\nowner: me\nsteps: []\n", "unknown top-level field 'owner'"},
};

START_TEST(bad_files)
{
    struct result r = run(bad[_i].yaml, TA_ALL);

    ck_assert_int_eq(r.rc, -1);
    ck_assert_msg(strstr(r.messages, bad[_i].message) != NULL, "%s: got [%s]", bad[_i].yaml, r.messages);
    ck_assert_ptr_null(r.group);
    result_free(&r);
}
END_TEST

Suite *testarea_suite(void)
{
    Suite *s = suite_create("testarea");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, mirror_rules);
    tcase_add_test(tc, platform_filter);
    tcase_add_loop_test(tc, bad_files, 0, sizeof(bad) / sizeof(bad[0]));
    suite_add_tcase(s, tc);
    return s;
}
