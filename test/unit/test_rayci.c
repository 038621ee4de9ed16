/* The rayci dialect through its entries (open, next), on tables transcribed from
 * ray-project/rayci's raycicmd tests at 52b3334 (array_depends_test.go,
 * array_config_test.go, array_expand_test.go) and its builtin ray-pr config. */
#define _GNU_SOURCE /* open_memstream */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/dialect.h"
#include "fanout/source.h"
#include "unit.h"

struct rendered {
    int rc;
    char *json;     /* each group step as JSON, one a line */
    char *messages; /* what the dialect reported */
};

/* JSON `j` without the whitespace between its tokens, in place. */
static void compact(char *j)
{
    char *o = j;
    bool in_string = false;

    for (; *j; j++) {
        if (in_string && *j == '\\' && j[1]) {
            *o++ = *j++;
        } else if (*j == '"') {
            in_string = !in_string;
        } else if (!in_string && (*j == ' ' || *j == '\n')) {
            continue;
        }
        *o++ = *j;
    }
    *o = '\0';
}

/* `yaml` as a rayci file named `name`, through the dialect's reader. */
static struct rendered render(const char *name, const char *yaml)
{
    struct rendered out = {0};
    size_t json_len = 0, msg_len = 0;
    FILE *json = open_memstream(&out.json, &json_len), *err = open_memstream(&out.messages, &msg_len);
    struct diag *d = diag_create(err, DIAG_TEXT);
    struct source *src = source_open_text(name, yaml, strlen(yaml), d);
    const char *names[] = {name};
    struct dialect_input in = {.diag = d, .shape = dialect_rayci.shape, .sources = &src, .names = names, .n = 1};
    struct dialect_reader *r = dialect_rayci.open(&in, NULL, NULL);
    struct stream_item item;
    int more;

    ck_assert_ptr_nonnull(r);
    while ((more = dialect_rayci.next(r, &item)) > 0) {
        if (item.kind == STREAM_STEP) {
            char *j = emit_to_string(ynode_item(ynode_doc_root(item.doc), 0), 1);

            compact(j);
            fprintf(json, "%s\n", j);
            free(j);
        }
        ynode_doc_destroy(item.doc);
    }
    dialect_rayci.close(r);
    out.rc = more < 0 ? -1 : diag_exit_code(d, false);
    source_close(src);
    diag_destroy(d);
    fclose(json);
    fclose(err);
    return out;
}

static void rendered_free(struct rendered *r)
{
    free(r->json);
    free(r->messages);
}

/* TestParseSelectorErrors: what each bad selector's message holds. */
static const struct {
    const char *selector, *want;
} selector_errors[] = {
    {"($)", "empty"},
    {"ray-build(python=3.11", "missing closing"},
    {"ray-build()", "empty parentheses"},
    {"ray-build(python)", "expected key=value"},
    {"ray-build(=3.11)", "empty dimension"},
    {"ray-build(python=)", "empty value"},
    {"ray-build(python=3.11,)", "empty filter entry"},
    {"ray-build(python=3.11, python=3.11)", "duplicate filter entry"},
};

#define ARRAY_STEP                                                                                                     \
    "group: g\nsteps:\n"                                                                                               \
    "  - key: ray-build\n    label: \"build {{array.python}} {{array.cuda}}\"\n    commands: [\"true\"]\n"             \
    "    array:\n      python: [\"3.10\", \"3.11\"]\n      cuda: [\"12.1.1\", \"12.8.1\"]\n"

START_TEST(selector_error)
{
    char yaml[512];
    struct rendered r;

    snprintf(yaml, sizeof(yaml), ARRAY_STEP "  - key: t\n    commands: [\"true\"]\n    depends_on: \"%s\"\n",
             selector_errors[_i].selector);
    r = render("g.rayci.yml", yaml);
    ck_assert_msg(strstr(r.messages, selector_errors[_i].want) && strstr(r.messages, "[rayci-array]"),
                  "%s: %s", selector_errors[_i].selector, r.messages);
    ck_assert_int_eq(r.rc, 1);
    rendered_free(&r);
}
END_TEST

/* TestParseSelector's selectors, resolved against the array of TestGenerateArrayElementKey
 * (python 3.10/3.11, cuda 12.1.1/12.8.1): the keys each names, in element order. */
static const struct {
    const char *selector, *keys;
} selectors[] = {
    {"ray-build(*)", "\"ray-build--cuda1211-python310\",\"ray-build--cuda1211-python311\","
                     "\"ray-build--cuda1281-python310\",\"ray-build--cuda1281-python311\""},
    {"ray-build(python=3.11)", "\"ray-build--cuda1211-python311\",\"ray-build--cuda1281-python311\""},
    {"ray-build(python=3.11, cuda=12.8.1)", "\"ray-build--cuda1281-python311\""},
    {"ray-build(python=3.10, python=3.11)", "\"ray-build--cuda1211-python310\",\"ray-build--cuda1211-python311\","
                                            "\"ray-build--cuda1281-python310\",\"ray-build--cuda1281-python311\""},
    {"forge", "\"forge\""},
};

START_TEST(selector_keys)
{
    char yaml[512], want[512];
    struct rendered r;

    snprintf(yaml, sizeof(yaml), ARRAY_STEP "  - key: t\n    commands: [\"true\"]\n    depends_on: \"%s\"\n",
             selectors[_i].selector);
    snprintf(want, sizeof(want), "\"depends_on\":[%s]", selectors[_i].keys);
    r = render("g.rayci.yml", yaml);
    ck_assert_msg(r.rc == 0 && strstr(r.json, want), "%s: %s", selectors[_i].selector, r.messages);
    rendered_free(&r);
}
END_TEST

/* TestParseArrayAdjustmentsErrors: what each bad `adjustments` message holds. */
static const struct {
    const char *adjustments, *want;
} adjustment_errors[] = {
    {"bad", "must be an array"},
    {"[bad]", "must be a map"},
    {"[{skip: true}]", "missing required \"with\""},
    {"[{with: bad}]", "\"with\" must be a map"},
    {"[{with: {}}]", "\"with\" cannot be empty"},
    {"[{with: {python: 3}}]", "must be a string"},
    {"[{with: {python: \"3.10\"}, skip: true}, {with: {python: \"3.10\"}, skip: true}]", "duplicate \"with\""},
    {"[{with: {python: \"3.10\"}, extra: 1}]", "unknown key"},
};

START_TEST(adjustment_error)
{
    char yaml[512];
    struct rendered r;

    snprintf(yaml, sizeof(yaml),
             "group: g\nsteps:\n  - key: b\n    label: \"b {{array.python}}\"\n    commands: [\"true\"]\n"
             "    array:\n      python: [\"3.10\", \"3.11\"]\n      adjustments: %s\n",
             adjustment_errors[_i].adjustments);
    r = render("g.rayci.yml", yaml);
    ck_assert_msg(strstr(r.messages, adjustment_errors[_i].want), "%s: %s", adjustment_errors[_i].adjustments,
                  r.messages);
    ck_assert_int_eq(r.rc, 1);
    rendered_free(&r);
}
END_TEST

/* TestSubstituteValues, TestExpandArraySteps: each element's step, its placeholders in
 * strings (lists and maps too) filled, keyed after its values. */
START_TEST(array_expansion)
{
    struct rendered r =
        render("g.rayci.yml", "group: g\nsteps:\n  - key: build-step\n    label: \"Build {{array.python}}\"\n"
                              "    commands: [\"echo {{array.python}}\", \"{{array.other}}\"]\n"
                              "    array:\n      python: [\"3.10\", \"3.11\"]\n");

    ck_assert_int_eq(r.rc, 0);
    ck_assert_ptr_nonnull(strstr(r.json, "\"key\":\"build-step--python310\",\"label\":\"Build 3.10 [g0_s0]\""));
    ck_assert_ptr_nonnull(strstr(r.json, "\"key\":\"build-step--python311\",\"label\":\"Build 3.11 [g0_s1]\""));
    /* a placeholder of no dimension stays */
    ck_assert_ptr_nonnull(strstr(r.json, "\"commands\":[\"echo 3.11\",\"{{array.other}}\"]"));
    ck_assert_ptr_null(strstr(r.json, "\"array\""));
    rendered_free(&r);
    /* TestExpandArraySteps_LabelPlaceholderRequired, _MatrixAndArrayMutuallyExclusive */
    r = render("g.rayci.yml", "group: g\nsteps:\n  - key: b\n    label: Build step\n    commands: [x]\n"
                              "    array:\n      python: [\"3.10\"]\n");
    ck_assert_ptr_nonnull(strstr(r.messages, "placeholder"));
    rendered_free(&r);
    r = render("g.rayci.yml", "group: g\nsteps:\n  - key: b\n    label: \"B {{array.python}}\"\n    commands: [x]\n"
                              "    matrix: [a]\n    array:\n      python: [\"3.10\"]\n");
    ck_assert_ptr_nonnull(strstr(r.messages, "both"));
    rendered_free(&r);
}
END_TEST

/* The ray-pr config's runner queues by instance type (builtin_configs.go). */
static const struct {
    const char *type, *queue;
} queues[] = {
    {"default", "runner_queue_small_pr"}, {"small", "runner_queue_small_pr"},
    {"medium", "runner_queue_medium_pr"}, {"large", "runner_queue_pr"},
    {"gpu", "gpu_runner_queue_pr"},       {"gpu-large", "gpu_large_runner_queue_pr"},
    {"g6-large", "g6_large_runner_queue_pr"}, {"windows", "windows_queue_pr"},
    {"macos", "macos"},                   {"macos-arm64", "macos-pr-arm64"},
    {"medium-arm64", "runner_queue_arm64_medium_pr"},
};

START_TEST(runner_queue)
{
    char yaml[256], want[128];
    struct rendered r;

    snprintf(yaml, sizeof(yaml), "group: g\nsteps:\n  - commands: [x]\n    instance_type: %s\n", queues[_i].type);
    snprintf(want, sizeof(want), "\"agents\":{\"queue\":\"%s\"}", queues[_i].queue);
    r = render("g.rayci.yml", yaml);
    ck_assert_msg(r.rc == 0 && strstr(r.json, want), "%s: %s", queues[_i].type, r.messages);
    rendered_free(&r);
}
END_TEST

/* command_step.go's label, and the keys rayci drops. */
START_TEST(command_label)
{
    struct rendered r = render("g.rayci.yml", "group: g\nsteps:\n  - name: n\n    label: l\n    commands: [x]\n"
                                              "  - label: l\n    commands: [x]\n  - commands: [x]\n"
                                              "    tags: [a]\n    instance_type: small\n");

    ck_assert_int_eq(r.rc, 0);
    ck_assert_ptr_nonnull(strstr(r.json, "\"label\":\"n [g0_s0]\""));
    ck_assert_ptr_nonnull(strstr(r.json, "\"label\":\"l [g0_s1]\""));
    ck_assert_ptr_nonnull(strstr(r.json, "\"label\":\"[g0_s2]\""));
    ck_assert_ptr_null(strstr(r.json, "\"name\""));
    ck_assert_ptr_null(strstr(r.json, "\"tags\""));
    ck_assert_ptr_null(strstr(r.json, "\"instance_type\""));
    rendered_free(&r);
}
END_TEST

/* A skip tag leaves out the step, the steps that wait for it, and a group with one. */
START_TEST(skip_tags)
{
    struct rendered r = render("g.rayci.yml", "group: g\nsteps:\n  - key: a\n    tags: skip-on-premerge\n"
                                              "    commands: [x]\n  - key: b\n    depends_on: a\n    commands: [x]\n"
                                              "  - key: c\n    commands: [x]\n");

    ck_assert_int_eq(r.rc, 0);
    ck_assert_ptr_null(strstr(r.json, "\"key\":\"a\""));
    ck_assert_ptr_null(strstr(r.json, "\"key\":\"b\""));
    ck_assert_ptr_nonnull(strstr(r.json, "\"key\":\"c\""));
    rendered_free(&r);
    /* through a block step, a chain written backwards, and the group's depends_on */
    r = render("g.rayci.yml", "group: g\nsteps:\n  - key: a\n    depends_on: b\n    commands: [x]\n"
                              "  - key: b\n    depends_on: c\n    commands: [x]\n  - block: go\n    key: c\n"
                              "    tags: [disabled]\n  - key: d\n    commands: [x]\n  - key: e\n    commands: [x]\n");
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(r.json, "");
    rendered_free(&r);
    r = render("g.rayci.yml", "group: g\ndepends_on: [a]\nsteps:\n  - key: a\n    tags: [disabled]\n"
                              "    commands: [x]\n  - key: z\n    commands: [x]\n");
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(r.json, "");
    rendered_free(&r);
    r = render("g.rayci.yml", "group: g\ntags: [disabled]\nsteps:\n  - key: c\n    commands: [x]\n");
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(r.json, "");
    rendered_free(&r);
}
END_TEST

Suite *rayci_suite(void)
{
    Suite *s = suite_create("rayci");
    TCase *tc = tcase_create("core");

    tcase_add_loop_test(tc, selector_error, 0, sizeof(selector_errors) / sizeof(selector_errors[0]));
    tcase_add_loop_test(tc, selector_keys, 0, sizeof(selectors) / sizeof(selectors[0]));
    tcase_add_loop_test(tc, adjustment_error, 0, sizeof(adjustment_errors) / sizeof(adjustment_errors[0]));
    tcase_add_test(tc, array_expansion);
    tcase_add_loop_test(tc, runner_queue, 0, sizeof(queues) / sizeof(queues[0]));
    tcase_add_test(tc, command_label);
    tcase_add_test(tc, skip_tags);
    suite_add_tcase(s, tc);
    return s;
}
