#include <string.h>

#include "fanout/keyindex.h"
#include "fanout/source.h"
#include "unit.h"

static bool clean(const char *s, size_t len, size_t *bad, unsigned *line, unsigned *col)
{
    return source_check_utf8((const unsigned char *)s, len, bad, line, col);
}

START_TEST(utf8_accepts_valid)
{
    const char ok[] = "a: \xc3\xa9\n\xe2\x82\xac \xf0\x9f\x98\x80\n\xef\xbb\xbf";

    ck_assert(clean(ok, sizeof(ok) - 1, NULL, NULL, NULL));
}
END_TEST

START_TEST(utf8_rejects_bad)
{
    static const struct {
        const char *s;
        size_t len, bad;
        unsigned line, col;
    } cases[] = {
        {"a\nb\xff", 4, 3, 2, 2},          /* invalid byte */
        {"ab\0c", 4, 2, 1, 3},              /* NUL */
        {"\xc0\xaf", 2, 0, 1, 1},           /* overlong */
        {"x\xed\xa0\x80", 4, 2, 1, 2},      /* surrogate: the second byte is out of range */
        {"\xf4\x90\x80\x80", 4, 1, 1, 1},   /* above U+10FFFF */
        {"ok\xe2\x82", 4, 4, 1, 3},         /* cut off at the end */
        {"%\x83", 2, 1, 1, 2},              /* libfyaml's known hang */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t bad;
        unsigned line, col;

        ck_assert_msg(!clean(cases[i].s, cases[i].len, &bad, &line, &col), "case %zu", i);
        ck_assert_uint_eq(bad, cases[i].bad);
        ck_assert_uint_eq(line, cases[i].line);
        ck_assert_uint_eq(col, cases[i].col);
    }
}
END_TEST

Suite *source_suite(void)
{
    Suite *s = suite_create("source");
    TCase *tc = tcase_create("utf8");

    tcase_add_test(tc, utf8_accepts_valid);
    tcase_add_test(tc, utf8_rejects_bad);
    suite_add_tcase(s, tc);
    return s;
}

START_TEST(define_and_find)
{
    struct keyindex *ki = keyindex_create();
    struct keyindex_entry prev;
    char key[32];

    for (int i = 0; i < 5000; i++) {
        int n = snprintf(key, sizeof(key), "step-%d", i);

        ck_assert_int_eq(keyindex_define(ki, key, (size_t)n, (unsigned)i % 3, 0, (struct ypos){(unsigned)i + 1, 1}, NULL), 0);
    }
    ck_assert_uint_eq(keyindex_count(ki), 5000);
    ck_assert_int_eq(keyindex_define(ki, "step-42", 7, 0, 1, (struct ypos){9, 9}, &prev), 1);
    ck_assert_uint_eq(prev.pos.line, 43);
    ck_assert_uint_eq(prev.shards, 0);
    ck_assert_uint_eq(keyindex_find(ki, "step-4999", 9)->shards, 4999 % 3);
    ck_assert_ptr_null(keyindex_find(ki, "step-5000", 9));
    keyindex_destroy(ki);
}
END_TEST

static void count_dangling(void *user, const char *key, unsigned file, struct ypos pos)
{
    (void)file;
    (void)pos;
    ck_assert_str_eq(key, "never");
    (*(int *)user)++;
}

START_TEST(deferred_references)
{
    struct keyindex *ki = keyindex_create();
    int dangling = 0;

    ck_assert_int_eq(keyindex_defer(ki, "later", 5, 0, (struct ypos){1, 1}), 0);
    ck_assert_int_eq(keyindex_defer(ki, "never", 5, 0, (struct ypos){2, 1}), 0);
    ck_assert_int_eq(keyindex_define(ki, "later", 5, 0, 0, (struct ypos){3, 1}, NULL), 0);
    keyindex_each_dangling(ki, count_dangling, &dangling);
    ck_assert_int_eq(dangling, 1);
    keyindex_destroy(ki);
}
END_TEST

Suite *keyindex_suite(void)
{
    Suite *s = suite_create("keyindex");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, define_and_find);
    tcase_add_test(tc, deferred_references);
    suite_add_tcase(s, tc);
    return s;
}
