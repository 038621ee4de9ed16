/* text: appending cut to fit (the length is the buffer's size once cut, so a later
 * append adds nothing), decimals, and cuts between UTF-8 characters. */
#include <string.h>

#include "fanout/text.h"
#include "unit.h"

START_TEST(append_cuts_to_fit)
{
    char buf[8];
    size_t len = text_append(buf, sizeof(buf), 0, "abc");

    ck_assert_uint_eq(len, 3);
    len = text_append(buf, sizeof(buf), len, "defg"); /* exactly fills: not cut */
    ck_assert_uint_eq(len, 7);
    ck_assert_str_eq(buf, "abcdefg");
    len = text_append(buf, sizeof(buf), 3, "defgh");
    ck_assert_uint_eq(len, sizeof(buf));
    ck_assert_str_eq(buf, "abcdefg");
    ck_assert_uint_eq(text_append(buf, sizeof(buf), len, "x"), sizeof(buf));
    ck_assert_str_eq(buf, "abcdefg");
}
END_TEST

START_TEST(decimals)
{
    char out[TEXT_DECIMAL_MAX];

    ck_assert_uint_eq(text_decimal(out, 0), 1);
    ck_assert_str_eq(out, "0");
    ck_assert_uint_eq(text_decimal(out, 1200), 4);
    ck_assert_str_eq(out, "1200");
    ck_assert_uint_eq(text_decimal(out, UINT64_MAX), 20);
    ck_assert_str_eq(out, "18446744073709551615");
}
END_TEST

/* A cut never ends inside a character: it backs off to the character's start. */
START_TEST(utf8_cuts_between_characters)
{
    static const struct {
        const char *s;
        size_t max, want;
    } cases[] = {
        {"abcdef", 10, 6},          /* short enough: whole */
        {"abcdef", 3, 3},           /* ASCII: at max */
        {"ab\xc3\xa9z", 3, 2},     /* é is bytes 2-3: max 3 would split it */
        {"ab\xc3\xa9z", 4, 4},     /* after é */
        {"\xe6\x97\xa5\xe6\x9c\xac", 5, 3}, /* 日本: one character fits */
        {"\xe6\x97\xa5", 2, 0},    /* nothing fits */
        {"\xf0\x9f\x98\x80x", 3, 0}, /* a 4-byte character */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        ck_assert_uint_eq(text_utf8_cut(cases[i].s, strlen(cases[i].s), cases[i].max), cases[i].want);
}
END_TEST

/* Shown as a message shows it: whole when it fits, else cut between characters and "...". */
START_TEST(shown_whole_or_cut)
{
    char out[8];

    ck_assert_uint_eq(text_shown(out, "abc", 3, 5), 3);
    ck_assert_int_eq(memcmp(out, "abc", 3), 0);
    ck_assert_uint_eq(text_shown(out, "ab\xc3\xa9z", 5, 3), 5);
    ck_assert_int_eq(memcmp(out, "ab...", 5), 0);
}
END_TEST

Suite *text_suite(void)
{
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, append_cuts_to_fit);
    tcase_add_test(tc, decimals);
    tcase_add_test(tc, utf8_cuts_between_characters);
    tcase_add_test(tc, shown_whole_or_cut);
    suite_add_tcase(s, tc);
    return s;
}
