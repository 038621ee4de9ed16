#include <string.h>

#include "fanout/yscalar.h"
#include "unit.h"

#define TYPE(s) yscalar_type((s), strlen(s))
#define MISREAD(s) yscalar_misread((s), strlen(s))
#define STYLE(s, key) yscalar_style((s), strlen(s), (key))

START_TEST(core_types)
{
    ck_assert_int_eq(TYPE(""), YS_NULL);
    ck_assert_int_eq(TYPE("~"), YS_NULL);
    ck_assert_int_eq(TYPE("Null"), YS_NULL);
    ck_assert_int_eq(TYPE("true"), YS_BOOL);
    ck_assert_int_eq(TYPE("FALSE"), YS_BOOL);
    ck_assert_int_eq(TYPE("yes"), YS_STRING); /* YAML 1.2 */
    ck_assert_int_eq(TYPE("10"), YS_INT);
    ck_assert_int_eq(TYPE("-3"), YS_INT);
    ck_assert_int_eq(TYPE("0x1F"), YS_INT);
    ck_assert_int_eq(TYPE("0o17"), YS_INT);
    ck_assert_int_eq(TYPE("1.5"), YS_FLOAT);
    ck_assert_int_eq(TYPE(".5"), YS_FLOAT);
    ck_assert_int_eq(TYPE("1e3"), YS_FLOAT);
    ck_assert_int_eq(TYPE("-.inf"), YS_FLOAT);
    ck_assert_int_eq(TYPE(".NaN"), YS_FLOAT);
    ck_assert_int_eq(TYPE("1_000"), YS_STRING);
    ck_assert_int_eq(TYPE("h200"), YS_STRING);
    ck_assert_int_eq(TYPE("10\n"), YS_STRING);
}
END_TEST

START_TEST(misread_by_some_reader)
{
    static const char *const bad[] = {
        "yes", "No", "ON", "off", "y", "N", "true", "null", "~", "0123", "0o17", "0x1F",
        "1_000", "12:30", "1:20:30", "+1", ".5", "1e3", ".inf", "-.Inf", ".NaN",
        "2001-12-14", "2001-12-14t21:59:43.10-05:00", "=", "<<", "10", "-3", "1.",
    };
    static const char *const fine[] = {
        "yesterday", "nope", "h200_35gb", "image-build", "4xh100", "1st", "v1.2.3", "a:b",
        "on-call", "--shard-id=0", "12:30pm", "2001-12", "x=1", "<<<", ".venv",
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(MISREAD(bad[i]), "'%s' should need quotes", bad[i]);
    for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++)
        ck_assert_msg(!MISREAD(fine[i]), "'%s' should stay plain", fine[i]);
}
END_TEST

START_TEST(styles)
{
    ck_assert_int_eq(STYLE("pytest -v -s models", false), YS_PLAIN);
    ck_assert_int_eq(STYLE(":nvidia: H200", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("a: b", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("a #b", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("a#b", false), YS_PLAIN);
    ck_assert_int_eq(STYLE("-v", false), YS_PLAIN);
    ck_assert_int_eq(STYLE("- v", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("*x", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("%N", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE(" lead", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("trail ", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("---", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("tab\there", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("line1\nline2\n", false), YS_LITERAL);
    ck_assert_int_eq(STYLE("line1\nline2\n", true), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("a\r\nb", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("a\n  \nb", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("\n\n", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("a\xe2\x80\xa8" "b", false), YS_DOUBLE_QUOTED);
}
END_TEST

Suite *yscalar_suite(void)
{
    Suite *s = suite_create("yscalar");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, core_types);
    tcase_add_test(tc, misread_by_some_reader);
    tcase_add_test(tc, styles);
    suite_add_tcase(s, tc);
    return s;
}
