#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/expr.h"
#include "dialect/gha/matrix.h"
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
    /* numbers as NumberExpressionData.ToString (G15) prints them */
    m = matrix_of("v: [[.nan, .inf, -.inf, 1e-7, 1e15, 0.30000000000000004, -0.0]]\n");
    ck_assert_int_eq(matrix_expand(m, &rows, &err), 0);
    t = shown_text(&rows.rows[0]);
    ck_assert_str_eq(t, "NaN, Infinity, -Infinity, 1E-07, 1E+15, 0.3, -0");
    free(t);
    matrix_free(&rows);
    expr_unref(m);
}
END_TEST

/* The shown values are kept in one block per row: values past its first 256 bytes, and
 * one with a NUL (the name reads it up to there), each show as before. */
START_TEST(name_values_long_and_nul)
{
    char yaml[1024], want[1024], *t;
    struct expr_value *m;
    struct matrix rows;
    struct matrix_error err;

    snprintf(yaml, sizeof(yaml), "a: [\"x\\0y\"]\nb: [\"%0200d\"]\nc: [\"%0200d\"]\nd: [\"\\0\"]\n", 7, 8);
    snprintf(want, sizeof(want), "x, %0200d, %0200d, ", 7, 8);
    m = matrix_of(yaml);
    ck_assert_int_eq(matrix_expand(m, &rows, &err), 0);
    ck_assert_uint_eq(rows.n, 1);
    ck_assert_uint_eq(rows.rows[0].n_shown, 4);
    t = shown_text(&rows.rows[0]);
    ck_assert_str_eq(t, want);
    free(t);
    matrix_free(&rows);
    expr_unref(m);
}
END_TEST

/* matrix_names_values says whether a row lists any value, as shown_leaves lists them:
 * null and "" are skipped at any depth; false, 0 and NaN are shown. */
START_TEST(names_values_as_shown)
{
    static const struct {
        const char *yaml;
        bool any;
    } cases[] = {
        {"{}", false},           {"{a: null}", false},      {"{a: ''}", false},
        {"{a: [null, '']}", false}, {"{a: {b: [{}]}}", false}, {"{a: false}", true},
        {"{a: 0}", true},        {"{a: .nan}", true},       {"{a: [null, x]}", true},
        {"{a: {b: ''}, c: ' '}", true},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        struct expr_value *m = matrix_of(cases[i].yaml);

        if (matrix_names_values(m) != cases[i].any)
            ck_abort_msg("matrix_names_values(%s) is %d", cases[i].yaml, !cases[i].any);
        expr_unref(m);
    }
}
END_TEST

/* MatrixFilter tests one `==` per leaf of an include or exclude value, on the row
 * indexed by the leaf's path: {} and [] have no leaf and match every row; {x: null}
 * matches a scalar (indexing it gives null); [1] matches [1, 2]; a list index reads an
 * object's key "0". */
START_TEST(filters_match_leaf_by_leaf)
{
    static const char *const all[] = {"v=Object,tag=t", "v=2,tag=t", "v=Array,tag=t"};
    static const char *const one[] = {"v=Object"};
    static const char *const both[] = {"v=Array,tag=t", "v=Array,tag=t", "v=Object,tag=t"};

    expect_rows("v: [{x: 1}, 2, [1, 2]]\ninclude:\n  - v: {}\n    tag: t\n", all, 3);
    expect_rows("v: [{x: 1}, 2, [1, 2]]\ninclude:\n  - v: []\n    tag: t\n", all, 3);
    expect_rows("v: [{x: 1}, 2, {x: ~}]\nexclude:\n  - v: {x: null}\n", one, 1);
    expect_rows("v: [[1, 2], [1], {'0': 1}]\ninclude:\n  - v: [1]\n    tag: t\n", both, 3);
}
END_TEST

/* A filter number is compared through its G15 text: 0.30000000000000004 is written 0.3
 * and matches 0.3, not itself (left: the first row, whose text is 0.3 too);
 * 1234567890123456789 matches nothing. */
START_TEST(filters_compare_g15_literals)
{
    static const char *const want[] = {"v=0.3", "v=1234567890123456800"};

    expect_rows("v: [0.30000000000000004, 0.3, 1234567890123456789, 0.1]\nexclude:\n"
                "  - v: 0.30000000000000004\n  - v: 1234567890123456789\n  - v: 0.1\n",
                want, 2);
}
END_TEST

/* JobNameBuilder cuts a name longer than 100 UTF-16 code units to 97 and "...": a
 * character past U+FFFF counts two, and one cut in half is U+FFFD as GitHub sends it. */
START_TEST(name_cut_in_utf16)
{
    char name[400];
    size_t len;

    memset(name, 'a', 101);
    ck_assert_uint_eq(matrix_name_cut(name, 100), 100);
    ck_assert_uint_eq(matrix_name_cut(name, 101), 100);
    ck_assert_int_eq(memcmp(name + 96, "a...", 5), 0);
    for (len = 0; len < 120; len += 2) /* 60 characters, 120 bytes: not cut */
        memcpy(name + len, "\xC3\xA9", 2);
    ck_assert_uint_eq(matrix_name_cut(name, 120), 120);
    memset(name, 'a', 99); /* 99 and an emoji: 101 code units */
    memcpy(name + 99, "\xF0\x9F\x98\x80", 5);
    ck_assert_uint_eq(matrix_name_cut(name, 103), 100);
    ck_assert_str_eq(name + 97, "...");
    memset(name, 'a', 96); /* the emoji at code units 96 and 97 */
    memcpy(name + 96, "\xF0\x9F\x98\x80" "aaaaaaaaaa", 15);
    ck_assert_uint_eq(matrix_name_cut(name, 110), 102);
    ck_assert_str_eq(name + 96, "\xEF\xBF\xBD...");
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

/* Eight vectors of ten values (10^8 combinations) whose excludes leave 100: GitHub
 * applies its limit of 256 after exclude, and so does fanout, without walking them all. */
START_TEST(exclude_applies_before_the_limit)
{
    char yaml[4096];
    size_t o = 0;
    struct expr_value *m;
    struct matrix rows;
    struct matrix_error err;
    char *t;

    for (char v = 'a'; v <= 'h'; v++)
        o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "%c: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n", v);
    o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "exclude:\n");
    for (char v = 'c'; v <= 'h'; v++) {
        for (int i = 1; i < 10; i++)
            o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "  - {%c: %d}\n", v, i);
    }
    m = matrix_of(yaml);
    ck_assert_int_eq(matrix_expand(m, &rows, &err), 0);
    ck_assert_uint_eq(rows.n, 100);
    t = row_text(&rows.rows[0]);
    ck_assert_str_eq(t, "a=0,b=0,c=0,d=0,e=0,f=0,g=0,h=0");
    free(t);
    t = row_text(&rows.rows[37]);
    ck_assert_str_eq(t, "a=3,b=7,c=0,d=0,e=0,f=0,g=0,h=0");
    free(t);
    matrix_free(&rows);
    expr_unref(m);
}
END_TEST

/* The same order and rows as the plain definition (every combination, first vector
 * slowest, those matching an exclude entry on all its keys left out), on random matrices:
 * entries on any vectors, in any order, partial, overlapping. */
START_TEST(exclude_agrees_with_the_definition)
{
    unsigned seed = 12345;

    for (int round = 0; round < 300; round++) {
        int nv = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 4, sizes[4], n_ex, ex[8][4];
        char yaml[2048];
        size_t o = 0, want_n = 0, total = 1;
        struct expr_value *m;
        struct matrix rows;
        struct matrix_error err;

        for (int v = 0; v < nv; v++) {
            sizes[v] = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 4;
            total *= (size_t)sizes[v];
            o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "v%d: [", v);
            for (int i = 0; i < sizes[v]; i++)
                o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "%s%d", i ? ", " : "", i);
            o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "]\n");
        }
        n_ex = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 8;
        if (n_ex)
            o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "exclude:\n");
        for (int e = 0; e < n_ex; e++) {
            bool any = false;

            o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "  - {");
            for (int v = 0; v < nv; v++) {
                /* -1: the entry does not name v (but every entry names one) */
                ex[e][v] = (int)((seed = seed * 1103515245u + 12345u) >> 16) % (sizes[v] + 1) - 1;
                if (v == nv - 1 && !any && ex[e][v] < 0)
                    ex[e][v] = 0;
                if (ex[e][v] >= 0)
                    o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "%sv%d: %d", any ? ", " : "", v, ex[e][v]);
                any |= ex[e][v] >= 0;
            }
            o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "}\n");
        }
        m = matrix_of(yaml);
        ck_assert_int_eq(matrix_expand(m, &rows, &err), 0);
        for (size_t c = 0; c < total; c++) {
            int at[4];
            size_t rest = c;
            bool excluded = false;

            for (int v = nv - 1; v >= 0; v--) {
                at[v] = (int)(rest % (size_t)sizes[v]);
                rest /= (size_t)sizes[v];
            }
            for (int e = 0; e < n_ex && !excluded; e++) {
                excluded = true;
                for (int v = 0; v < nv; v++)
                    excluded &= ex[e][v] < 0 || ex[e][v] == at[v];
            }
            if (excluded)
                continue;
            ck_assert_uint_lt(want_n, rows.n);
            for (int v = 0; v < nv; v++)
                ck_assert_int_eq((int)expr_number_value(expr_member(rows.rows[want_n].values, (size_t)v)), at[v]);
            want_n++;
        }
        ck_assert_msg(rows.n == want_n, "%s: %zu rows, want %zu", yaml, rows.n, want_n);
        matrix_free(&rows);
        expr_unref(m);
    }
}
END_TEST

/* Includes that match no row are jobs too: 256 rows and one more is over the limit. */
START_TEST(limit_counts_appended_includes)
{
    expect_error("a: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]\n"
                 "b: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]\n"
                 "include:\n  - {a: 99, b: 99}\n",
                 "the matrix generates more than 256 jobs (GitHub's limit)", NULL, -1);
}
END_TEST

/* GitHub counts the combinations in a 32-bit integer; fanout bounds the work of exclude:
 * a product excluded one combination at a time on its last vector stops there. */
START_TEST(product_and_work_bounds)
{
    char yaml[4096];
    size_t o = 0;

    for (char v = 'a'; v <= 'j'; v++)
        o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "%c: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n", v);
    expect_error(yaml, "the matrix has more than 2147483647 combinations before exclude "
                 "(GitHub counts them in a 32-bit integer and fails)", NULL, -1);
    o = 0;
    for (char v = 'a'; v <= 'h'; v++)
        o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "%c: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n", v);
    o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "exclude:\n");
    for (int i = 0; i < 10; i++)
        o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "  - {h: %d}\n", i);
    expect_error(yaml, "applying exclude to the matrix takes more than 16777216 steps (fanout's limit): "
                 "most of its combinations are excluded one by one; list the jobs with include instead",
                 NULL, -1);
}
END_TEST

/* Many exclude entries on a long vector: their tables count against the bound too. */
START_TEST(exclude_tables_are_bounded)
{
    size_t cap = 1 << 17, o = 0;
    char *yaml = malloc(cap);

    o += (size_t)snprintf(yaml + o, cap - o, "a: [0");
    for (int i = 1; i < 4096; i++)
        o += (size_t)snprintf(yaml + o, cap - o, ", %d", i);
    o += (size_t)snprintf(yaml + o, cap - o, "]\nexclude:\n");
    for (int i = 0; i < 5000; i++)
        o += (size_t)snprintf(yaml + o, cap - o, "  - {a: %d}\n", i);
    ck_assert_uint_lt(o, cap - 1);
    expect_error(yaml, "applying exclude to the matrix takes more than 16777216 steps (fanout's limit): "
                 "most of its combinations are excluded one by one; list the jobs with include instead",
                 NULL, -1);
    free(yaml);
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
    tcase_add_test(tc, names_values_as_shown);
    tcase_add_test(tc, filters_match_leaf_by_leaf);
    tcase_add_test(tc, filters_compare_g15_literals);
    tcase_add_test(tc, name_cut_in_utf16);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, limit_is_inclusive);
    tcase_add_test(tc, exclude_applies_before_the_limit);
    tcase_add_test(tc, exclude_agrees_with_the_definition);
    tcase_add_test(tc, limit_counts_appended_includes);
    tcase_add_test(tc, product_and_work_bounds);
    tcase_add_test(tc, exclude_tables_are_bounded);
    tcase_add_test(tc, name_values_long_and_nul);
    suite_add_tcase(s, tc);
    return s;
}
