#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect/buildkite/depends.h"
#include "dialect/buildkite/expand.h"
#include "unit.h"

/* Expands the steps in `yaml` (a list) and returns the rendering of the result. */
static char *expand_yaml(const char *yaml, bool upload, int *rc, char **messages)
{
    char *msg = NULL;
    size_t msg_len = 0;
    FILE *err = open_memstream(&msg, &msg_len);
    struct diag *d = diag_create(err, DIAG_TEXT);
    static const char *const files[] = {"t.yml"};
    struct dialect_ctx ctx = {.diag = d, .files = files, .upload = upload};
    struct ynode_doc *fyd = doc_from(yaml);
    char *out;

    *rc = expand_steps(&ctx, fyd, ynode_doc_root(fyd));
    out = emit_to_string(ynode_doc_root(fyd), 0);
    ynode_doc_destroy(fyd);
    diag_destroy(d);
    fclose(err);
    if (messages)
        *messages = msg;
    else
        free(msg);
    return out;
}

START_TEST(shards)
{
    int rc;
    char *out = expand_yaml("[{label: 'T %N/%t', key: t, parallelism: 2, command: 'run $$BUILDKITE_PARALLEL_JOB'}]",
                            false, &rc, NULL);

    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(out, "- label: T 1/2\n"
                          "  key: t-0\n"
                          "  command: run 0\n"
                          "  env:\n"
                          "    BUILDKITE_PARALLEL_JOB: \"0\"\n"
                          "    BUILDKITE_PARALLEL_JOB_COUNT: \"2\"\n"
                          "- label: T 2/2\n"
                          "  key: t-1\n"
                          "  command: run 1\n"
                          "  env:\n"
                          "    BUILDKITE_PARALLEL_JOB: \"1\"\n"
                          "    BUILDKITE_PARALLEL_JOB_COUNT: \"2\"\n");
    free(out);
}
END_TEST

/* A run of checks reads a job's identity, its key before its label: a keyed step's
 * shards keep its label as written, an unkeyed one's are filled (their identity). */
START_TEST(labels_unread_keyed_only)
{
    static const char *const files[] = {"t.yml"};
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct dialect_ctx ctx = {.diag = d, .files = files, .labels_unread = true};
    struct ynode_doc *doc = doc_from("[{label: 'T %N', key: t, parallelism: 2, command: a},"
                                     " {label: 'U %N', parallelism: 2, command: b}]");
    struct ynode *steps = ynode_doc_root(doc);

    ck_assert_int_eq(expand_steps(&ctx, doc, steps), 0);
    ck_assert_uint_eq(ynode_len(steps), 4);
    ck_assert_str_eq(ynode_scalar(ynode_get(ynode_item(steps, 1), "label"), NULL), "T %N");
    ck_assert_str_eq(ynode_scalar(ynode_get(ynode_item(steps, 1), "key"), NULL), "t-1");
    ck_assert_str_eq(ynode_scalar(ynode_get(ynode_item(steps, 3), "label"), NULL), "U 2");
    ynode_doc_destroy(doc);
    diag_destroy(d);
}
END_TEST

START_TEST(upload_keeps_references)
{
    int rc;
    char *out = expand_yaml("[{key: t, parallelism: 2, commands: [a $$BUILDKITE_PARALLEL_JOB, b]}]",
                            true, &rc, NULL);

    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_nonnull(strstr(out, "- a $$BUILDKITE_PARALLEL_JOB\n"));
    ck_assert_ptr_null(strstr(out, "a 0"));
    free(out);
}
END_TEST

START_TEST(parallelism_one_keeps_key)
{
    int rc;
    char *out = expand_yaml("[{label: 'x %n', key: t, parallelism: 1, command: c}]", false, &rc, NULL);

    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(out, "- label: x 0\n"
                          "  key: t\n"
                          "  command: c\n"
                          "  env:\n"
                          "    BUILDKITE_PARALLEL_JOB: \"0\"\n"
                          "    BUILDKITE_PARALLEL_JOB_COUNT: \"1\"\n");
    free(out);
}
END_TEST

START_TEST(group_children)
{
    int rc;
    char *out = expand_yaml("[{group: G, steps: [{command: c, parallelism: 2}, wait]}]", false, &rc, NULL);

    ck_assert_int_eq(rc, 0);
    /* Both shards stay inside the group, before the wait. */
    ck_assert_str_eq(out, "- group: G\n"
                          "  steps:\n"
                          "    - command: c\n"
                          "      env:\n"
                          "        BUILDKITE_PARALLEL_JOB: \"0\"\n"
                          "        BUILDKITE_PARALLEL_JOB_COUNT: \"2\"\n"
                          "    - command: c\n"
                          "      env:\n"
                          "        BUILDKITE_PARALLEL_JOB: \"1\"\n"
                          "        BUILDKITE_PARALLEL_JOB_COUNT: \"2\"\n"
                          "    - wait\n");
    free(out);
}
END_TEST

START_TEST(trigger_env_in_build)
{
    int rc;
    char *out = expand_yaml("[{trigger: deploy, parallelism: 2, build: {message: m}}]", false, &rc, NULL);

    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_nonnull(strstr(out, "  build:\n    message: m\n    env:\n      BUILDKITE_PARALLEL_JOB: \"1\"\n"));
    free(out);
}
END_TEST

static const struct {
    const char *yaml, *message;
} bad[] = {
    {"[{command: c, parallelism: 0}]", "parallelism must be an integer from 1 to 1000, got '0'"},
    {"[{command: c, parallelism: -1}]", "got '-1'"},
    {"[{command: c, parallelism: 1001}]", "got '1001'"},
    {"[{command: c, parallelism: 99999999999999999999}]", "got '99999999999999999999'"},
    {"[{command: c, parallelism: '2'}]", "got the string '2'"},
    {"[{command: c, parallelism: 2.5}]", "got '2.5'"}, /* 2.0 is 2 to the agent (JSON) */
    {"[{command: c, parallelism: [2]}]", "got a list"},
    {"[{wait: ~, parallelism: 2}]", "parallelism is not allowed on a wait step"},
    {"[{command: c, matrix: [a], parallelism: 2}]", "matrix and parallelism cannot be combined"},
    {"[{command: c, parallelism: 2, env: [A=1]}]", "env must be a mapping"},
    {"[{group: g, steps: [{group: h, steps: [wait]}]}]", "a group cannot contain another group"},
    {"[{group: g, steps: []}]", "a group needs 'steps'"},
    {"[5]", "a step written as a string must be wait, block or input"},
    {"[[wait]]", "a step must be a mapping"},
};

START_TEST(bad_steps)
{
    int rc;
    char *msg;
    char *out = expand_yaml(bad[_i].yaml, false, &rc, &msg);

    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(msg, bad[_i].message) != NULL, "%s: got [%s]", bad[_i].yaml, msg);
    ck_assert_msg(strstr(msg, "t.yml:") == msg, "message has no file: [%s]", msg);
    free(msg);
    free(out);
}
END_TEST

START_TEST(placeholder_without_parallelism)
{
    int rc;
    char *msg;
    char *out = expand_yaml("[{label: 'Shard %N', command: c}]", false, &rc, &msg);

    /* A finding, not an input error: expansion goes on. */
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_nonnull(strstr(msg, "error: label placeholder '%N' in a step without parallelism"));
    free(msg);
    free(out);
}
END_TEST

/* Each skipped job as "<its rendering, on one line> | <skip>". */
static int note_skipped(void *user, const struct ynode *job, const struct ynode *skip)
{
    char *text = emit_to_string((struct ynode *)job, 0), *list = user;

    for (char *p = text; *p; p++)
        *p = *p == '\n' ? ' ' : *p;
    snprintf(list + strlen(list), 512 - strlen(list), "%s| %s\n", text, ynode_scalar(skip, NULL));
    free(text);
    return 0;
}

START_TEST(matrix_skipped_jobs_told)
{
    char told[512] = "";
    static const char *const files[] = {"t.yml"};
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    struct dialect_ctx ctx = {.diag = d, .files = files, .on_skipped = note_skipped, .user = told};
    struct ynode_doc *doc = doc_from("[{label: B, key: b, command: 'make {{matrix.os}}', matrix: {setup: {os: [l, m], "
                                     "arch: [x, y]}, adjustments: [{with: {os: m, arch: y}, skip: no runners}, "
                                     "{with: {os: w, arch: x}, skip: true}, {with: {os: l, arch: y}, skip: false}]}}]");

    /* as the jobs they would have been, with the step's key (no job's); skip: false
     * skips nothing */
    ck_assert_int_eq(expand_steps(&ctx, doc, ynode_doc_root(doc)), 0);
    ck_assert_uint_eq(ynode_len(ynode_doc_root(doc)), 3);
    ck_assert_str_eq(told, "label: B (m, y) key: b command: make m matrix:   setup:     os:       - m     arch:       - y"
                           " | no runners\n"
                           "label: B (w, x) key: b command: make w matrix:   setup:     os:       - w     arch:       - x"
                           " | true\n");
    ynode_doc_destroy(doc);
    diag_destroy(d);
}
END_TEST

Suite *expand_suite(void)
{
    Suite *s = suite_create("expand");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, shards);
    tcase_add_test(tc, labels_unread_keyed_only);
    tcase_add_test(tc, upload_keeps_references);
    tcase_add_test(tc, parallelism_one_keeps_key);
    tcase_add_test(tc, group_children);
    tcase_add_test(tc, trigger_env_in_build);
    tcase_add_loop_test(tc, bad_steps, 0, sizeof(bad) / sizeof(bad[0]));
    tcase_add_test(tc, placeholder_without_parallelism);
    tcase_add_test(tc, matrix_skipped_jobs_told);
    suite_add_tcase(s, tc);
    return s;
}
