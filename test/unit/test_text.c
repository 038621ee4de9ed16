/* text: appending cut to fit (the length is the buffer's size once cut, so a later
 * append adds nothing), and decimals. */
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

Suite *text_suite(void)
{
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, append_cuts_to_fit);
    tcase_add_test(tc, decimals);
    suite_add_tcase(s, tc);
    return s;
}
