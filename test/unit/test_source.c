#include <stdio.h>
#include <string.h>

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

