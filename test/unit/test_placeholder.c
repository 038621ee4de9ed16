#include <stdlib.h>
#include <string.h>

#include "dialect/buildkite/placeholder.h"
#include "unit.h"

/* A fill's text, malloc'd */
static char *label(const char *in, unsigned i, unsigned n)
{
    struct ph_out o;
    char *out = ph_label_fill(in, strlen(in), i, n, &o), *copy;

    ck_assert_ptr_nonnull(out);
    ck_assert_ptr_eq(out, o.text);
    ck_assert_uint_eq(o.len, strlen(out));
    ck_assert_ptr_nonnull(copy = strdup(out));
    ph_out_free(&o);
    return copy;
}

START_TEST(label_placeholders)
{
    char *s = label("shard %n of %t (%N/%T) 100%%", 2, 4);

    ck_assert_str_eq(s, "shard 2 of 4 (3/4) 100%");
    free(s);
    s = label("%% %%n %x %", 0, 2);
    ck_assert_str_eq(s, "% %n %x %");
    free(s);
}
END_TEST

/* A fill longer than its out's room is malloc'd, the room's part kept */
START_TEST(fill_past_room)
{
    char in[2 * PH_ROOM + 8], want[2 * PH_ROOM + 8], *s;
    struct ph_out o;

    memset(in, 'a', 2 * PH_ROOM);
    memcpy(in + PH_ROOM - 2, "%N", 2);
    in[2 * PH_ROOM] = '\0';
    memcpy(want, in, sizeof(in));
    want[PH_ROOM - 2] = '1', want[PH_ROOM - 1] = '2';
    s = label(in, 11, 20);
    ck_assert_str_eq(s, want);
    free(s);
    ck_assert_ptr_null(ph_vars_fill(in, PH_ROOM - 6, 0, 2, &o));
    memcpy(in + 2 * PH_ROOM - 24, "$BUILDKITE_PARALLEL_JOB", 23);
    ck_assert_ptr_nonnull(s = ph_vars_fill(in, 2 * PH_ROOM - 1, 3, 4, &o));
    ck_assert_ptr_ne(s, o.room);
    ck_assert_uint_eq(o.len, 2 * PH_ROOM - 1 - 23 + 1);
    ck_assert_int_eq(s[o.len - 2], 'a');
    ck_assert_int_eq(s[o.len - 1], '3');
    ph_out_free(&o);
}
END_TEST

START_TEST(label_find)
{
    ck_assert_int_eq(ph_label_find("abc", 3), -1);
    ck_assert_int_eq(ph_label_find("100%%", 5), -1);
    ck_assert_int_eq(ph_label_find("%%n", 3), -1);
    ck_assert_int_eq(ph_label_find("a %N", 4), 2);
    ck_assert_int_eq(ph_label_find("%%%t", 4), 2);
    ck_assert_int_eq(ph_label_find("50% done", 8), -1);
}
END_TEST

static const struct {
    const char *in, *out;
} vars[] = {
    {"--shard-id=$$BUILDKITE_PARALLEL_JOB", "--shard-id=1"},
    {"--n=$$BUILDKITE_PARALLEL_JOB_COUNT", "--n=3"},
    {"$${BUILDKITE_PARALLEL_JOB}/${BUILDKITE_PARALLEL_JOB_COUNT}", "1/3"},
    {"$BUILDKITE_PARALLEL_JOB-x", "1-x"},
    {"\\$BUILDKITE_PARALLEL_JOB", "1"},
    {"${BUILDKITE_PARALLEL_JOB:-0} ${BUILDKITE_PARALLEL_JOB-7}", "1 1"},
    {"a $$BUILDKITE_PARALLEL_JOB b $$BUILDKITE_PARALLEL_JOB_COUNT c", "a 1 b 3 c"},
};

START_TEST(vars_filled)
{
    struct ph_out o;
    char *out = ph_vars_fill(vars[_i].in, strlen(vars[_i].in), 1, 3, &o);

    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(out, vars[_i].out);
    ck_assert_uint_eq(o.len, strlen(vars[_i].out));
    ck_assert(ph_vars_find(vars[_i].in, strlen(vars[_i].in)));
    ph_out_free(&o);
}
END_TEST

START_TEST(vars_untouched)
{
    static const char *const same[] = {
        "echo $BUILDKITE_PARALLEL_JOBS", "echo $$BUILDKITE_PARALLEL_JOB_COUNTER",
        "echo $$MY_BUILDKITE_PARALLEL_JOB", "echo ${BUILDKITE_PARALLEL_JOB", "plain text",
        "echo ${BUILDKITE_PARALLEL_JOB:?}",
    };

    for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
        struct ph_out o;

        ck_assert_msg(ph_vars_fill(same[i], strlen(same[i]), 0, 2, &o) == NULL, "%s", same[i]);
        ck_assert(!ph_vars_find(same[i], strlen(same[i])));
    }
}
END_TEST

START_TEST(shard_key)
{
    struct ph_out o;
    char *k = ph_shard_key("tests", 5, 12, &o);

    ck_assert_str_eq(k, "tests-12");
    ck_assert_uint_eq(o.len, 8);
    ph_out_free(&o);
}
END_TEST

Suite *placeholder_suite(void)
{
    Suite *s = suite_create("placeholder");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, label_placeholders);
    tcase_add_test(tc, fill_past_room);
    tcase_add_test(tc, label_find);
    tcase_add_loop_test(tc, vars_filled, 0, sizeof(vars) / sizeof(vars[0]));
    tcase_add_test(tc, vars_untouched);
    tcase_add_test(tc, shard_key);
    suite_add_tcase(s, tc);
    return s;
}
