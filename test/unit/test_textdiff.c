#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/textdiff.h"
#include "unit.h"

static char *diff(const char *a, const char *b, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);

    *rc = textdiff_unified(fp, "a", a, strlen(a), "b", b, strlen(b));
    fclose(fp);
    return buf;
}

START_TEST(equal_texts)
{
    int rc;
    char *out = diff("x\ny\n", "x\ny\n", &rc);

    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(out, "");
    free(out);
}
END_TEST

START_TEST(one_hunk_with_context)
{
    int rc;
    char *out = diff("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n", &rc);

    ck_assert_int_eq(rc, 1);
    ck_assert_str_eq(out, "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
    free(out);
}
END_TEST

START_TEST(separate_hunks_and_edges)
{
    int rc;
    char *out = diff("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n", "A\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n", &rc);

    ck_assert_int_eq(rc, 1);
    ck_assert_str_eq(out, "--- a\n+++ b\n@@ -1,4 +1,4 @@\n-a\n+A\n b\n c\n d\n"
                          "@@ -10,3 +10,4 @@\n j\n k\n l\n+m\n");
    free(out);
    out = diff("x", "x\n", &rc);
    ck_assert_str_eq(out, "--- a\n+++ b\n@@ -1,1 +1,1 @@\n-x\n\\ No newline at end of file\n+x\n");
    free(out);
    out = diff("", "new\n", &rc);
    ck_assert_str_eq(out, "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+new\n");
    free(out);
}
END_TEST

/* A middle too different for Myers' budget is still a correct diff: old out, new in. */
START_TEST(very_different)
{
    size_t n = 5000, o = 0, p = 0;
    char *a = malloc(n * 8), *b = malloc(n * 8), *out;
    int rc, minus = 0, plus = 0;

    for (size_t i = 0; i < n; i++) {
        o += (size_t)sprintf(a + o, "a%zu\n", i);
        p += (size_t)sprintf(b + p, "b%zu\n", i);
    }
    out = diff(a, b, &rc);
    ck_assert_int_eq(rc, 1);
    for (char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        minus += l[0] == '-' && l[1] != '-';
        plus += l[0] == '+' && l[1] != '+';
    }
    ck_assert_int_eq(minus, (int)n);
    ck_assert_int_eq(plus, (int)n);
    free(out);
    free(a);
    free(b);
}
END_TEST

Suite *textdiff_suite(void)
{
    Suite *s = suite_create("textdiff");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, equal_texts);
    tcase_add_test(tc, one_hunk_with_context);
    tcase_add_test(tc, separate_hunks_and_edges);
    tcase_add_test(tc, very_different);
    suite_add_tcase(s, tc);
    return s;
}
