/* pyscalar: test-area values as vLLM's generator reads them. The table is the oracle's:
 * each case loaded by PyYAML 6.0.3's yaml.safe_load (`v: <case>`, a quoted case written as
 * a JSON string) and given to a pydantic 2.13.4 model with the step model's three number and
 * boolean types (Optional[int], Optional[bool], Optional[int] = Field(gt=0, strict=True)),
 * as ci-infra's step.py declares them. One departure, marked by the generator of the table:
 * an integer past int64, which Python and pydantic take, is no integer here (yaml.dump
 * writes it and Buildkite's agent refuses it). */
#include <stdint.h>
#include <string.h>

#include "dialect/testarea/pyscalar.h"
#include "unit.h"

static const struct {
    const char *in;
    bool quoted;
    enum py_type type;
    bool is_int; /* pydantic's lax int */
    long long integer;
    bool is_bool; /* pydantic's lax bool */
    bool boolean;
    bool is_count; /* Field(gt=0, strict=True) */
} cases[] = {
        {"4", false, PY_INT, true, 4LL, false, false, true},
        {"010", false, PY_INT, true, 8LL, false, false, true},
        {"0x10", false, PY_INT, true, 16LL, false, false, true},
        {"0x1F", false, PY_INT, true, 31LL, false, false, true},
        {"+4", false, PY_INT, true, 4LL, false, false, true},
        {"-4", false, PY_INT, true, -4LL, false, false, false},
        {"1_000", false, PY_INT, true, 1000LL, false, false, true},
        {"1__0", false, PY_INT, true, 10LL, false, false, true},
        {"0_", false, PY_INT, true, 0LL, true, false, false},
        {"00", false, PY_INT, true, 0LL, true, false, false},
        {"-0", false, PY_INT, true, 0LL, true, false, false},
        {"0_7", false, PY_INT, true, 7LL, false, false, true},
        {"0b11", false, PY_INT, true, 3LL, false, false, true},
        {"-0b11", false, PY_INT, true, -3LL, false, false, false},
        {"0b_", false, PY_FAILS, false, 0LL, false, false, false},
        {"0x_", false, PY_FAILS, false, 0LL, false, false, false},
        {"0o10", false, PY_STR, false, 0LL, false, false, false},
        {"08", false, PY_STR, true, 8LL, false, false, false},
        {"09.5", false, PY_FLOAT, false, 0LL, false, false, false},
        {"1:30", false, PY_INT, true, 90LL, false, false, true},
        {"190:20:30", false, PY_INT, true, 685230LL, false, false, true},
        {"1:30.5", false, PY_FLOAT, false, 0LL, false, false, false},
        {"1:60", false, PY_STR, false, 0LL, false, false, false},
        {"1:5", false, PY_INT, true, 65LL, false, false, true},
        {"2.0", false, PY_FLOAT, true, 2LL, false, false, false},
        {"2.5", false, PY_FLOAT, false, 0LL, false, false, false},
        {"0.0", false, PY_FLOAT, true, 0LL, true, false, false},
        {"1.0", false, PY_FLOAT, true, 1LL, true, true, false},
        {"1.", false, PY_FLOAT, true, 1LL, true, true, false},
        {".5", false, PY_FLOAT, false, 0LL, false, false, false},
        {"-.5", false, PY_STR, false, 0LL, false, false, false},
        {"1e3", false, PY_STR, false, 0LL, false, false, false},
        {"1.0e+3", false, PY_FLOAT, true, 1000LL, false, false, false},
        {"1.0e3", false, PY_STR, false, 0LL, false, false, false},
        {"1.5e3", false, PY_STR, false, 0LL, false, false, false},
        {"1_0.0", false, PY_FLOAT, true, 10LL, false, false, false},
        {".inf", false, PY_FLOAT, false, 0LL, false, false, false},
        {"-.Inf", false, PY_FLOAT, false, 0LL, false, false, false},
        {".nan", false, PY_FLOAT, false, 0LL, false, false, false},
        {"2024-01-01", false, PY_TIMESTAMP, false, 0LL, false, false, false},
        {"2024-1-1 12:00:00", false, PY_TIMESTAMP, false, 0LL, false, false, false},
        {"2001-12-14t21:59:43.10-05:00", false, PY_TIMESTAMP, false, 0LL, false, false, false},
        {"2001-12-14 21:59:43.10 Z", false, PY_TIMESTAMP, false, 0LL, false, false, false},
        {"2024-01-01T1:00:00", false, PY_TIMESTAMP, false, 0LL, false, false, false},
        {"true", false, PY_BOOL, true, 1LL, true, true, false},
        {"True", false, PY_BOOL, true, 1LL, true, true, false},
        {"TRUE", false, PY_BOOL, true, 1LL, true, true, false},
        {"yes", false, PY_BOOL, true, 1LL, true, true, false},
        {"Yes", false, PY_BOOL, true, 1LL, true, true, false},
        {"on", false, PY_BOOL, true, 1LL, true, true, false},
        {"ON", false, PY_BOOL, true, 1LL, true, true, false},
        {"off", false, PY_BOOL, true, 0LL, true, false, false},
        {"No", false, PY_BOOL, true, 0LL, true, false, false},
        {"n", false, PY_STR, false, 0LL, true, false, false},
        {"y", false, PY_STR, false, 0LL, true, true, false},
        {"~", false, PY_NULL, false, 0LL, false, false, false},
        {"null", false, PY_NULL, false, 0LL, false, false, false},
        {"abc", false, PY_STR, false, 0LL, false, false, false},
        {"3.10", false, PY_FLOAT, false, 0LL, false, false, false},
        {"99999999999999999999", false, PY_BIG_INT, false, 0LL, false, false, false},
        {"9223372036854775807", false, PY_INT, true, 9223372036854775807LL, false, false, true},
        {"-9223372036854775808", false, PY_INT, true, INT64_MIN, false, false, false},
        {"9223372036854775808", false, PY_BIG_INT, false, 0LL, false, false, false},
        {"1.0e+20", false, PY_FLOAT, false, 0LL, false, false, false},
        {"4_", false, PY_INT, true, 4LL, false, false, true},
        {"4", true, PY_STR, true, 4LL, false, false, false},
        {" 4 ", true, PY_STR, true, 4LL, false, false, false},
        {"\t4\n", true, PY_STR, true, 4LL, false, false, false},
        {"+4", true, PY_STR, true, 4LL, false, false, false},
        {"-4.0", true, PY_STR, true, -4LL, false, false, false},
        {"1_000", true, PY_STR, true, 1000LL, false, false, false},
        {"1__0", true, PY_STR, false, 0LL, false, false, false},
        {"_1", true, PY_STR, false, 0LL, false, false, false},
        {"4.0", true, PY_STR, true, 4LL, false, false, false},
        {"4.00", true, PY_STR, true, 4LL, false, false, false},
        {"4.", true, PY_STR, false, 0LL, false, false, false},
        {".0", true, PY_STR, false, 0LL, false, false, false},
        {"4.5", true, PY_STR, false, 0LL, false, false, false},
        {"0x10", true, PY_STR, false, 0LL, false, false, false},
        {"010", true, PY_STR, true, 10LL, false, false, false},
        {"00", true, PY_STR, true, 0LL, false, false, false},
        {"4e0", true, PY_STR, false, 0LL, false, false, false},
        {"\xc2\xa0" "4\xe3\x80\x80" "", true, PY_STR, true, 4LL, false, false, false},
        {"\xe2\x80\x8b" "4", true, PY_STR, false, 0LL, false, false, false},
        {"9223372036854775807", true, PY_STR, true, 9223372036854775807LL, false, false, false},
        {"9223372036854775808", true, PY_STR, false, 0LL, false, false, false},
        {"9223372036854775807.0", true, PY_STR, true, 9223372036854775807LL, false, false, false},
        {"yes", true, PY_STR, false, 0LL, true, true, false},
        {"YES", true, PY_STR, false, 0LL, true, true, false},
        {"oN", true, PY_STR, false, 0LL, true, true, false},
        {"true", true, PY_STR, false, 0LL, true, true, false},
        {"t", true, PY_STR, false, 0LL, true, true, false},
        {"F", true, PY_STR, false, 0LL, true, false, false},
        {"n", true, PY_STR, false, 0LL, true, false, false},
        {"1", true, PY_STR, true, 1LL, true, true, false},
        {"0", true, PY_STR, true, 0LL, true, false, false},
        {"off", true, PY_STR, false, 0LL, true, false, false},
        {" true", true, PY_STR, false, 0LL, false, false, false},
        {"2", true, PY_STR, true, 2LL, false, false, false},
        {"1.0", true, PY_STR, true, 1LL, false, false, false},
        {"", true, PY_STR, false, 0LL, false, false, false},
        {"abc", true, PY_STR, false, 0LL, false, false, false},
        {"1:30", true, PY_STR, false, 0LL, false, false, false},
        {"\xd9\xa3" "", true, PY_STR, false, 0LL, false, false, false},
};

START_TEST(as_pyyaml_and_pydantic)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ynode n = {.kind = YNODE_SCALAR, .style = cases[i].quoted ? YNODE_DOUBLE_QUOTED : YNODE_PLAIN,
                          .u.scalar = {cases[i].in, strlen(cases[i].in)}};
        long long v = -99, c = -99;
        bool b = false;

        ck_assert_msg(py_scalar_type(&n) == cases[i].type, "'%s': type %d, not %d", cases[i].in,
                      py_scalar_type(&n), cases[i].type);
        ck_assert_msg(py_lax_int(&n, &v) == cases[i].is_int, "'%s': lax int", cases[i].in);
        if (cases[i].is_int)
            ck_assert_msg(v == cases[i].integer, "'%s': %lld, not %lld", cases[i].in, v, cases[i].integer);
        ck_assert_msg(py_lax_bool(&n, &b) == cases[i].is_bool, "'%s': lax bool", cases[i].in);
        if (cases[i].is_bool)
            ck_assert_msg(b == cases[i].boolean, "'%s': %d", cases[i].in, b);
        ck_assert_msg((py_strict_int(&n, &c) && c > 0) == cases[i].is_count, "'%s': strict count", cases[i].in);
    }
}
END_TEST

/* A missing value and a plain null are None; a mapping or list is no scalar. */
START_TEST(null_and_collections)
{
    struct ynode empty = {.kind = YNODE_SCALAR, .style = YNODE_PLAIN, .u.scalar = {"", 0}};
    struct ynode list = {.kind = YNODE_SEQ};
    long long v;
    bool b;

    ck_assert_int_eq(py_scalar_type(NULL), PY_NULL);
    ck_assert_int_eq(py_scalar_type(&empty), PY_NULL);
    ck_assert_int_eq(py_scalar_type(&list), PY_OTHER);
    ck_assert(!py_lax_int(&list, &v) && !py_lax_bool(&list, &b) && !py_lax_int(&empty, &v));
}
END_TEST

Suite *pyscalar_suite(void)
{
    Suite *s = suite_create("pyscalar");
    TCase *tc = tcase_create("generator");

    tcase_add_test(tc, as_pyyaml_and_pydantic);
    tcase_add_test(tc, null_and_collections);
    suite_add_tcase(s, tc);
    return s;
}
