#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect/buildkite/depends.h"
#include "unit.h"

/* `t` has 2 shards, `g` 3; every other key is a plain step. */
static unsigned shards_of(void *user, const char *key, size_t len)
{
    (void)user;
    if (len == 1 && key[0] == 't')
        return 2;
    if (len == 1 && key[0] == 'g')
        return 3;
    return 0;
}

static char *rewrite(const char *yaml)
{
    struct ynode_doc *fyd = doc_from(yaml);
    char *out;

    ck_assert_int_eq(depends_rewrite(fyd, ynode_doc_root(fyd), shards_of, NULL), 0);
    out = emit_to_string(ynode_doc_root(fyd), 0);
    ynode_doc_destroy(fyd);
    return out;
}

static void check(const char *yaml, const char *want)
{
    char *out = rewrite(yaml);

    ck_assert_str_eq(out, want);
    free(out);
}

START_TEST(forms)
{
    check("[{command: c, depends_on: t}]", "- command: c\n  depends_on:\n    - t-0\n    - t-1\n");
    check("[{command: c, depends_on: [a, t, b]}]",
          "- command: c\n  depends_on:\n    - a\n    - t-0\n    - t-1\n    - b\n");
    check("[{command: c, depends_on: [{step: t, allow_failure: true}]}]",
          "- command: c\n  depends_on:\n    - step: t-0\n      allow_failure: true\n"
          "    - step: t-1\n      allow_failure: true\n");
    check("[{command: c, depends_on: {step: t}}]",
          "- command: c\n  depends_on:\n    - step: t-0\n    - step: t-1\n");
    /* Nothing to rewrite: kept exactly as written. */
    check("[{command: c, depends_on: a}]", "- command: c\n  depends_on: a\n");

    check("[{command: c, depends_on: ~}]", "- command: c\n  depends_on: ~\n");
    check("[{command: c, depends_on: []}]", "- command: c\n  depends_on: []\n");
}
END_TEST

START_TEST(single_mapping_becomes_a_list)
{
    struct ynode_doc *fyd = doc_from("[{command: c, depends_on: {step: a, allow_failure: true}},"
                                       " {group: g, steps: [{command: d, depends_on: {step: b}}]}]");
    char *out;

    ck_assert_int_eq(depends_normalize(fyd, ynode_doc_root(fyd)), 0);
    out = emit_to_string(ynode_doc_root(fyd), 0);
    ck_assert_str_eq(out, "- command: c\n  depends_on:\n    - step: a\n      allow_failure: true\n"
                          "- group: g\n  steps:\n    - command: d\n      depends_on:\n        - step: b\n");
    free(out);
    ynode_doc_destroy(fyd);
}
END_TEST

START_TEST(groups)
{
    check("[{group: G, depends_on: g, steps: [{command: c, depends_on: [t]}]}]",
          "- group: G\n  depends_on:\n    - g-0\n    - g-1\n    - g-2\n"
          "  steps:\n    - command: c\n      depends_on:\n        - t-0\n        - t-1\n");
}
END_TEST

static const char *const files[] = {"t.yml"};

struct seen {
    char keys[8][16];
    int n;
};

static int visit(void *user, const char *key, size_t len, struct ypos pos)
{
    struct seen *s = user;

    (void)pos;
    snprintf(s->keys[s->n++], sizeof(s->keys[0]), "%.*s", (int)len, key);
    return 0;
}

START_TEST(each_visits_all_forms)
{
    struct ynode_doc *fyd = doc_from(
        "[{command: c, depends_on: a}, {command: d, depends_on: [b, {step: c}]},"
        " {group: G, depends_on: {step: d}, steps: [{command: e, depends_on: e}]}, wait]");
    struct diag *dg = diag_create(stderr, DIAG_TEXT);
    struct seen s = {.n = 0};

    ck_assert_int_eq(depends_each(ynode_doc_root(fyd), dg, files, visit, &s), 0);
    ck_assert_int_eq(s.n, 5);
    ck_assert_str_eq(s.keys[0], "a");
    ck_assert_str_eq(s.keys[1], "b");
    ck_assert_str_eq(s.keys[2], "c");
    ck_assert_str_eq(s.keys[3], "d");
    ck_assert_str_eq(s.keys[4], "e");
    diag_destroy(dg);
    ynode_doc_destroy(fyd);
}
END_TEST

START_TEST(each_rejects_bad_entries)
{
    struct ynode_doc *fyd = doc_from("[{command: c, depends_on: [{allow_failure: true}]}]");
    char *msg = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&msg, &len);
    struct diag *dg = diag_create(fp, DIAG_TEXT);
    struct seen s = {.n = 0};

    ck_assert_int_eq(depends_each(ynode_doc_root(fyd), dg, files, visit, &s), -1);
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(msg, "a depends_on entry must be a step key or {step: key}"));
    ck_assert_int_eq(diag_exit_code(dg, false), 2);
    free(msg);
    diag_destroy(dg);
    ynode_doc_destroy(fyd);
}
END_TEST

Suite *depends_suite(void)
{
    Suite *s = suite_create("depends");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, forms);
    tcase_add_test(tc, groups);
    tcase_add_test(tc, single_mapping_becomes_a_list);
    tcase_add_test(tc, each_visits_all_forms);
    tcase_add_test(tc, each_rejects_bad_entries);
    suite_add_tcase(s, tc);
    return s;
}
