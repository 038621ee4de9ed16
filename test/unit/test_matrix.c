#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/expr.h"
#include "fanout/matrix.h"
#include "unit.h"

/* The matrix written in YAML, as the dialect hands it over. */
static struct expr_value *matrix_of(const char *yaml)
{
    struct ynode_doc *doc = doc_from(yaml);
    struct expr_value *m = expr_from_ynode(ynode_doc_root(doc));

    ynode_doc_destroy(doc);
    ck_assert_ptr_nonnull(m);
    return m;
}

/* A row as "k=v,k=v" (values as GitHub turns them into strings), for comparing. */
static char *row_text(const struct matrix_row *row)
{
    char *out = calloc(1, 1024);

    for (size_t i = 0; i < expr_len(row->values); i++) {
        size_t len;
        const char *k = expr_key(row->values, i, &len);
        char *v = expr_to_string(expr_member(row->values, i));

        snprintf(out + strlen(out), 1024 - strlen(out), "%s%.*s=%s", i ? "," : "", (int)len, k, v);
        free(v);
    }
    return out;
}

static char *shown_text(const struct matrix_row *row)
{
    char *out = calloc(1, 1024);

    for (size_t i = 0; i < row->n_shown; i++)
        snprintf(out + strlen(out), 1024 - strlen(out), "%s%s", i ? ", " : "", row->shown[i]);
    return out;
}

static void expect_rows(const char *yaml, const char *const *want, size_t n_want)
{
    struct expr_value *m = matrix_of(yaml);
    struct matrix rows;
    struct matrix_error err;

    ck_assert_int_eq(matrix_expand(m, &rows, &err), 0);
    ck_assert_uint_eq(rows.n, n_want);
    for (size_t i = 0; i < rows.n; i++) {
        char *got = row_text(&rows.rows[i]);

        ck_assert_str_eq(got, want[i]);
        free(got);
    }
    matrix_free(&rows);
    expr_unref(m);
}

static void expect_error(const char *yaml, const char *message, const char *key, long index)
{
    struct expr_value *m = matrix_of(yaml);
    struct matrix rows;
    struct matrix_error err;

    ck_assert_int_eq(matrix_expand(m, &rows, &err), -1);
    ck_assert_str_eq(err.message, message);
    if (key)
        ck_assert_str_eq(err.key, key);
    else
        ck_assert_ptr_null(err.key);
    ck_assert_int_eq(err.index, index);
    expr_unref(m);
}

/* GitHub's docs: "Expanding or adding matrix configurations" gives exactly these six. */
START_TEST(docs_include_example)
{
    static const char *const want[] = {
        "fruit=apple,animal=cat,color=pink,shape=circle",
        "fruit=apple,animal=dog,color=green,shape=circle",
        "fruit=pear,animal=cat,color=pink",
        "fruit=pear,animal=dog,color=green",
        "fruit=banana",
        "fruit=banana,animal=cat",
    };

    expect_rows("fruit: [apple, pear]\nanimal: [cat, dog]\ninclude:\n"
                "  - color: green\n  - color: pink\n    animal: cat\n"
                "  - fruit: apple\n    shape: circle\n  - fruit: banana\n"
                "  - fruit: banana\n    animal: cat\n",
                want, 6);
}
END_TEST

/* The first vector varies slowest; exclude entries match partially. */
START_TEST(docs_exclude_example)
{
    static const char *const want[] = {
        "os=macos-latest,version=12,environment=staging",
        "os=macos-latest,version=14,environment=staging",
        "os=macos-latest,version=14,environment=production",
        "os=macos-latest,version=16,environment=staging",
        "os=macos-latest,version=16,environment=production",
        "os=windows-latest,version=12,environment=staging",
        "os=windows-latest,version=12,environment=production",
        "os=windows-latest,version=14,environment=staging",
        "os=windows-latest,version=14,environment=production",
    };

    expect_rows("os: [macos-latest, windows-latest]\nversion: [12, 14, 16]\n"
                "environment: [staging, production]\nexclude:\n"
                "  - os: macos-latest\n    version: 12\n    environment: production\n"
                "  - os: windows-latest\n    version: 16\n",
                want, 9);
}
END_TEST

START_TEST(includes_only)
{
    static const char *const want[] = {"site=production,datacenter=site-a",
                                       "site=staging,datacenter=site-b"};

    expect_rows("include:\n  - site: production\n    datacenter: site-a\n"
                "  - site: staging\n    datacenter: site-b\n",
                want, 2);
}
END_TEST

/* Loose equality: a string filter matches a number, strings ignore case. */
START_TEST(include_matches_loosely)
{
    static const char *const want[] = {"node=16,os=Linux,big=true", "node=18,os=Linux"};

    expect_rows("node: [16, 18]\nos: [Linux]\ninclude:\n  - node: '16'\n    os: linux\n    big: true\n",
                want, 2);
}
END_TEST

/* An extra that an earlier include added can be overwritten by a later one; an include
 * whose vector value differs from the row's does not match it and becomes its own job. */
START_TEST(include_overwrites_added_values_only)
{
    static const char *const want[] = {"os=linux,tag=second,extra=x", "os=windows,tag=third"};

    expect_rows("os: [linux]\ninclude:\n  - tag: first\n  - tag: second\n  - os: linux\n    extra: x\n"
                "  - os: windows\n    tag: third\n",
                want, 2);
}
END_TEST

/* The job name shows the product's values, not the extras; an appended include shows all. */
START_TEST(name_values)
{
    struct expr_value *m = matrix_of("os: [linux]\nnode: [3.10, 14]\ninclude:\n  - color: red\n"
                                     "  - os: windows\n    node: 20\n");
    struct matrix rows;
    struct matrix_error err;
    char *t;

    ck_assert_int_eq(matrix_expand(m, &rows, &err), 0);
    ck_assert_uint_eq(rows.n, 3);
    t = shown_text(&rows.rows[0]);
    ck_assert_str_eq(t, "linux, 3.1");
    free(t);
    t = shown_text(&rows.rows[2]);
    ck_assert_str_eq(t, "windows, 20");
    free(t);
    matrix_free(&rows);
    expr_unref(m);
}
END_TEST

START_TEST(errors)
{
    expect_error("os: [linux]\npart: []\n", "matrix vector 'part' does not contain any values", "part", -1);
    expect_error("os: linux\n", "matrix vector 'os' must be a list", "os", -1);
    expect_error("os: [a, b]\nexclude:\n  - arch: x\n",
                 "matrix exclude key 'arch' does not match any key within the matrix", "exclude", 0);
    expect_error("os: [a]\ninclude:\n  - {}\n", "matrix include entry is empty", "include", 0);
    expect_error("os: [a]\nexclude:\n  - os: a\n  - {}\n", "matrix exclude entry is empty", "exclude", 1);
    expect_error("include: []\n",
                 "the matrix must define at least one vector (or a non-empty include)", NULL, -1);
    expect_error("a: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]\n"
                 "b: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]\n",
                 "the matrix generates more than 256 jobs (GitHub's limit)", NULL, -1);
}
END_TEST

/* 256 jobs exactly is allowed. */
START_TEST(limit_is_inclusive)
{
    struct expr_value *m = matrix_of("a: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]\n"
                                     "b: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]\n");
    struct matrix rows;
    struct matrix_error err;

    ck_assert_int_eq(matrix_expand(m, &rows, &err), 0);
    ck_assert_uint_eq(rows.n, 256);
    matrix_free(&rows);
    expr_unref(m);
}
END_TEST

Suite *matrix_suite(void)
{
    Suite *s = suite_create("matrix");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, docs_include_example);
    tcase_add_test(tc, docs_exclude_example);
    tcase_add_test(tc, includes_only);
    tcase_add_test(tc, include_matches_loosely);
    tcase_add_test(tc, include_overwrites_added_values_only);
    tcase_add_test(tc, name_values);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, limit_is_inclusive);
    suite_add_tcase(s, tc);
    return s;
}
