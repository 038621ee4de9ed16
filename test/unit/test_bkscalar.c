/* bkscalar: matrix values as Buildkite's agent makes strings of them. The table is the
 * oracle's: each case read by gopkg.in/yaml.v3 v3.0.1 (Debian's golang-gopkg-yaml.v3-dev)
 * into an `any` and printed by fmt.Sprint, as go-pipeline's ordered.Unmarshal does, with Go
 * 1.19 (the program: a [%s] document, the value's Go type for the kind; "<nil>" and the
 * times are the kinds the agent refuses). */
#include <string.h>

#include "dialect/buildkite/bkscalar.h"
#include "unit.h"

static const struct {
    const char *in;
    enum bk_scalar kind;
    const char *sprint;
} cases[] = {
        {"010", BK_SCALAR_INT, "8"},
        {"0x10", BK_SCALAR_INT, "16"},
        {"0X1f", BK_SCALAR_INT, "31"},
        {"1_000", BK_SCALAR_INT, "1000"},
        {"0o17", BK_SCALAR_INT, "15"},
        {"0O17", BK_SCALAR_INT, "15"},
        {"0b11", BK_SCALAR_INT, "3"},
        {"-0b11", BK_SCALAR_INT, "-3"},
        {"+5", BK_SCALAR_INT, "5"},
        {"-0", BK_SCALAR_INT, "0"},
        {"00", BK_SCALAR_INT, "0"},
        {"08", BK_SCALAR_FLOAT, "8"},
        {"09.5", BK_SCALAR_FLOAT, "9.5"},
        {"0777", BK_SCALAR_INT, "511"},
        {"0x", BK_SCALAR_STRING, "0x"},
        {"0b", BK_SCALAR_STRING, "0b"},
        {"12", BK_SCALAR_INT, "12"},
        {"True", BK_SCALAR_BOOL, "true"},
        {"TRUE", BK_SCALAR_BOOL, "true"},
        {"true", BK_SCALAR_BOOL, "true"},
        {"false", BK_SCALAR_BOOL, "false"},
        {"FALSE", BK_SCALAR_BOOL, "false"},
        {"yes", BK_SCALAR_STRING, "yes"},
        {"on", BK_SCALAR_STRING, "on"},
        {"y", BK_SCALAR_STRING, "y"},
        {"~", BK_SCALAR_NULL, "<nil>"},
        {"null", BK_SCALAR_NULL, "<nil>"},
        {"NULL", BK_SCALAR_NULL, "<nil>"},
        {"3.10", BK_SCALAR_FLOAT, "3.1"},
        {"1.0", BK_SCALAR_FLOAT, "1"},
        {"1e3", BK_SCALAR_FLOAT, "1000"},
        {"1e6", BK_SCALAR_FLOAT, "1e+06"},
        {"1e-5", BK_SCALAR_FLOAT, "1e-05"},
        {"1e-4", BK_SCALAR_FLOAT, "0.0001"},
        {".5", BK_SCALAR_FLOAT, "0.5"},
        {"-.5", BK_SCALAR_FLOAT, "-0.5"},
        {"+.inf", BK_SCALAR_FLOAT, "+Inf"},
        {"-.Inf", BK_SCALAR_FLOAT, "-Inf"},
        {".nan", BK_SCALAR_FLOAT, "NaN"},
        {".NaN", BK_SCALAR_FLOAT, "NaN"},
        {"123456.0", BK_SCALAR_FLOAT, "123456"},
        {"1234567.0", BK_SCALAR_FLOAT, "1.234567e+06"},
        {"0.00012", BK_SCALAR_FLOAT, "0.00012"},
        {"100000", BK_SCALAR_INT, "100000"},
        {"1e20", BK_SCALAR_FLOAT, "1e+20"},
        {"1e21", BK_SCALAR_FLOAT, "1e+21"},
        {"2.5e-300", BK_SCALAR_FLOAT, "2.5e-300"},
        {"9223372036854775807", BK_SCALAR_INT, "9223372036854775807"},
        {"9223372036854775808", BK_SCALAR_UINT, "9223372036854775808"},
        {"-9223372036854775808", BK_SCALAR_INT, "-9223372036854775808"},
        {"-9223372036854775809", BK_SCALAR_FLOAT, "-9.223372036854776e+18"},
        {"18446744073709551615", BK_SCALAR_UINT, "18446744073709551615"},
        {"18446744073709551616", BK_SCALAR_FLOAT, "1.8446744073709552e+19"},
        {"1_0.5", BK_SCALAR_FLOAT, "10.5"},
        {"1__0", BK_SCALAR_INT, "10"},
        {"_1", BK_SCALAR_STRING, "_1"},
        {"1_", BK_SCALAR_INT, "1"},
        {"0x1p-2", BK_SCALAR_STRING, "0x1p-2"},
        {"1e", BK_SCALAR_STRING, "1e"},
        {"1.2.3", BK_SCALAR_STRING, "1.2.3"},
        {"2001-12-14", BK_SCALAR_TIMESTAMP, "2001-12-14 00:00:00 +0000 UTC"},
        {"2001-2-3", BK_SCALAR_TIMESTAMP, "2001-02-03 00:00:00 +0000 UTC"},
        {"2001-02-29", BK_SCALAR_STRING, "2001-02-29"},
        {"2000-02-29", BK_SCALAR_TIMESTAMP, "2000-02-29 00:00:00 +0000 UTC"},
        {"2001-12-14T21:59:43.10Z", BK_SCALAR_TIMESTAMP, "2001-12-14 21:59:43.1 +0000 UTC"},
        {"2001-12-14t21:59:43-05:00", BK_SCALAR_TIMESTAMP, "2001-12-14 21:59:43 -0500 -0500"},
        {"2001-12-14 21:59:43.10", BK_SCALAR_TIMESTAMP, "2001-12-14 21:59:43.1 +0000 UTC"},
        {"2001-12-14T21:59:43", BK_SCALAR_STRING, "2001-12-14T21:59:43"},
        {"2001-12-14 21:59:43.10 -5", BK_SCALAR_STRING, "2001-12-14 21:59:43.10 -5"},
        {"20011-12-14", BK_SCALAR_STRING, "20011-12-14"},
        {"+12:30", BK_SCALAR_STRING, "+12:30"},
        {"1:20", BK_SCALAR_STRING, "1:20"},
        {"0.1", BK_SCALAR_FLOAT, "0.1"},
        {"-0.0", BK_SCALAR_FLOAT, "-0"},
        {"3.14159265358979", BK_SCALAR_FLOAT, "3.14159265358979"},
        {"linux", BK_SCALAR_STRING, "linux"},
        {"1e400", BK_SCALAR_STRING, "1e400"},
        {"-1e400", BK_SCALAR_STRING, "-1e400"},
        {"1.7976931348623159e308", BK_SCALAR_STRING, "1.7976931348623159e308"},
        {"1e308", BK_SCALAR_FLOAT, "1e+308"},
        {"1e-400", BK_SCALAR_FLOAT, "0"},
        {"4.9e-324", BK_SCALAR_FLOAT, "5e-324"},
        {"2.5e-310", BK_SCALAR_FLOAT, "2.5e-310"},
        {"0xFFFFFFFFFFFFFFFF", BK_SCALAR_UINT, "18446744073709551615"},
};

START_TEST(as_yaml_v3_and_sprint)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ynode n = {.kind = YNODE_SCALAR, .style = YNODE_PLAIN, .u.scalar = {cases[i].in, strlen(cases[i].in)}};
        char buf[BK_SCALAR_BUF];
        const char *t;
        size_t len;
        enum bk_scalar kind = bk_scalar_text(&n, buf, &t, &len);

        ck_assert_msg(kind == cases[i].kind, "%s: kind %d, not %d", cases[i].in, kind, cases[i].kind);
        if (kind <= BK_SCALAR_FLOAT || kind == BK_SCALAR_UINT)
            ck_assert_msg(len == strlen(cases[i].sprint) && !memcmp(t, cases[i].sprint, len), "%s: '%.*s', not '%s'",
                          cases[i].in, (int)len, t, cases[i].sprint);
    }
}
END_TEST

/* A quoted scalar is its text, whatever it looks like; a mapping or list is no scalar. */
START_TEST(strings_and_collections)
{
    struct ynode quoted = {.kind = YNODE_SCALAR, .style = YNODE_DOUBLE_QUOTED, .u.scalar = {"010", 3}};
    struct ynode list = {.kind = YNODE_SEQ};
    char buf[BK_SCALAR_BUF];
    const char *t;
    size_t len;

    ck_assert_int_eq(bk_scalar_text(&quoted, buf, &t, &len), BK_SCALAR_STRING);
    ck_assert(len == 3 && !memcmp(t, "010", 3));
    ck_assert_int_eq(bk_scalar_text(&list, buf, &t, &len), BK_SCALAR_OTHER);
}
END_TEST

/* bk_scalar_int: the count the agent sends (parallelism): yaml.v3's int, or a float JSON
 * writes as an integer */
START_TEST(agent_counts)
{
    static const struct {
        const char *in;
        bool is_int;
        long long v;
    } counts[] = {
        {"4", true, 4},      {"010", true, 8},     {"0x2", true, 2},   {"+4", true, 4},  {"2.0", true, 2},
        {"1e1", true, 10},   {"1_0", true, 10},    {"0", true, 0},     {"-1", true, -1}, {"2.5", false, 0},
        {"1e6", false, 0},   {"four", false, 0},   {".inf", false, 0}, {"~", false, 0},
        {"99999999999999999999", false, 0},
    };

    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        struct ynode n = {.kind = YNODE_SCALAR, .style = YNODE_PLAIN, .u.scalar = {counts[i].in, strlen(counts[i].in)}};
        long long v = -99;

        ck_assert_msg(bk_scalar_int(&n, &v) == counts[i].is_int, "%s", counts[i].in);
        if (counts[i].is_int)
            ck_assert_msg(v == counts[i].v, "%s: %lld", counts[i].in, v);
    }
    {
        struct ynode quoted = {.kind = YNODE_SCALAR, .style = YNODE_DOUBLE_QUOTED, .u.scalar = {"3", 1}};
        long long v;

        ck_assert(!bk_scalar_int(&quoted, &v)); /* a string to the agent */
    }
}
END_TEST

Suite *bkscalar_suite(void)
{
    Suite *s = suite_create("bkscalar");
    TCase *tc = tcase_create("agent");

    tcase_add_test(tc, as_yaml_v3_and_sprint);
    tcase_add_test(tc, strings_and_collections);
    tcase_add_test(tc, agent_counts);
    suite_add_tcase(s, tc);
    return s;
}
