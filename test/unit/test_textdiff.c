#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/textdiff.h"
#include "unit.h"

static FILE *file_of(const char *text, size_t len)
{
    FILE *fp = tmpfile();

    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(text, 1, len, fp), len);
    return fp;
}

static char *diff_n(const char *a, size_t alen, const char *b, size_t blen, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len), *fa = file_of(a, alen), *fb = file_of(b, blen);

    *rc = textdiff_files(fp, "a", fa, "b", fb);
    fclose(fp);
    fclose(fa);
    fclose(fb);
    return buf;
}

static char *diff(const char *a, const char *b, int *rc)
{
    return diff_n(a, strlen(a), b, strlen(b), rc);
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

/* A middle larger than TEXTDIFF_FILE_MIDDLE is one hunk, read and written line by line:
 * the context around it and every old and new line, with the right line numbers. */
START_TEST(large_middle_streams)
{
    size_t n = TEXTDIFF_FILE_MIDDLE / 8 + 1000, alen = 0, blen = 0;
    char *a = malloc(n * 16 + 64), *b = malloc(n * 16 + 64), *out, want[128];
    int rc;

    alen += (size_t)sprintf(a, "p1\np2\np3\np4\n");
    blen += (size_t)sprintf(b, "p1\np2\np3\np4\n");
    for (size_t i = 0; i < n; i++) {
        alen += (size_t)sprintf(a + alen, "old %zu\n", i);
        blen += (size_t)sprintf(b + blen, "new %zu\n", i);
    }
    alen += (size_t)sprintf(a + alen, "s1\ns2\ns3\ns4");
    blen += (size_t)sprintf(b + blen, "s1\ns2\ns3\ns4");
    out = diff_n(a, alen, b, blen, &rc);
    ck_assert_int_eq(rc, 1);
    snprintf(want, sizeof(want), "--- a\n+++ b\n@@ -2,%zu +2,%zu @@\n p2\n p3\n p4\n-old 0\n", n + 6, n + 6);
    ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "%.200s", out);
    ck_assert_ptr_nonnull(strstr(out, "\n-old 1\n"));
    ck_assert_ptr_nonnull(strstr(out, "\n+new 0\n"));
    snprintf(want, sizeof(want), "\n+new %zu\n s1\n s2\n s3\n", n - 1);
    ck_assert_str_eq(out + strlen(out) - strlen(want), want);
    free(out);
    free(a);
    free(b);
}
END_TEST

/* Two texts in memory (a field's value): hunks only, lines counted within the texts. */
START_TEST(texts_in_memory)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    const char *a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n", *b = "1\n2\n3\n4\n5\n6\n7\neight\n9\n";

    ck_assert_int_eq(textdiff_texts(fp, a, strlen(a), b, strlen(b)), 0);
    ck_assert_int_eq(textdiff_texts(fp, a, strlen(a), a, strlen(a)), 0); /* alike: nothing */
    fclose(fp);
    ck_assert_str_eq(buf, "@@ -5,5 +5,5 @@\n 5\n 6\n 7\n-8\n+eight\n 9\n");
    free(buf);
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
    tcase_add_test(tc, large_middle_streams);
    tcase_add_test(tc, texts_in_memory);
    suite_add_tcase(s, tc);
    return s;
}
