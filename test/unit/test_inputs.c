/* inputs: the bounded line reader the list files (--changed, a durations TSV) go through;
 * the name and real-path matches the walk's readers share. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "fanout/inputs.h"

#include "unit.h"

static FILE *of(const char *text, size_t len)
{
    FILE *f = fmemopen((void *)text, len, "r");

    ck_assert_ptr_nonnull(f);
    return f;
}

/* Lines without their break, the last one without a break too; an empty line is a line. */
START_TEST(lines_and_the_end)
{
    char buf[8];
    size_t len;
    FILE *f = of("ab\n\ncd", 6);

    ck_assert_int_eq(inputs_read_line(f, buf, sizeof(buf), &len), 1);
    ck_assert_uint_eq(len, 2);
    ck_assert(!memcmp(buf, "ab", 2));
    ck_assert_int_eq(inputs_read_line(f, buf, sizeof(buf), &len), 1);
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(inputs_read_line(f, buf, sizeof(buf), &len), 1);
    ck_assert_uint_eq(len, 2);
    ck_assert(!memcmp(buf, "cd", 2));
    ck_assert_int_eq(inputs_read_line(f, buf, sizeof(buf), &len), 0);
    fclose(f);
}
END_TEST

/* A line that fills the buffer is read; one byte more is refused, as is a NUL byte
 * (an endless /dev/zero or a line without end stops there). */
START_TEST(long_lines_and_nul_bytes)
{
    char buf[4];
    size_t len;
    FILE *f = of("abcd\nabcde\n", 11);

    ck_assert_int_eq(inputs_read_line(f, buf, sizeof(buf), &len), 1);
    ck_assert_uint_eq(len, 4);
    ck_assert_int_eq(inputs_read_line(f, buf, sizeof(buf), &len), INPUTS_LINE_LONG);
    fclose(f);
    f = of("a\0b\n", 4);
    ck_assert_int_eq(inputs_read_line(f, buf, sizeof(buf), &len), INPUTS_LINE_NUL);
    fclose(f);
}
END_TEST

/* A suffix needs a byte before it (`.yml` alone is no YAML file's name); each set is its own. */
START_TEST(name_suffixes)
{
    static const char *const only_yaml[] = {".yaml", NULL};

    ck_assert(inputs_name_has_suffix("a.yml", 5, inputs_yaml_suffixes));
    ck_assert(inputs_name_has_suffix("a.yaml", 6, inputs_yaml_suffixes));
    ck_assert(!inputs_name_has_suffix(".yml", 4, inputs_yaml_suffixes));
    ck_assert(!inputs_name_has_suffix("a.yml", 5, only_yaml));
    ck_assert(inputs_name_has_suffix("a.yaml.txt", 6, only_yaml)); /* len bounds the name */
    ck_assert(!inputs_name_has_suffix("a.json", 6, inputs_yaml_suffixes));
}
END_TEST

/* Real paths meet a directory or a tail at a `/` only; NULL (not walked) matches nothing. */
START_TEST(real_path_matches)
{
    ck_assert(inputs_real_under("/r/.buildkite/t/a.yaml", "/r/.buildkite/t", 15));
    ck_assert(!inputs_real_under("/r/.buildkite/tests/a.yaml", "/r/.buildkite/t", 15));
    ck_assert(!inputs_real_under("/r/.buildkite/t", "/r/.buildkite/t", 15));
    ck_assert(!inputs_real_under(NULL, "/r", 2));
    ck_assert(inputs_real_ends_with("/r/.buildkite/b/x.yml", "b/x.yml", 7));
    ck_assert(!inputs_real_ends_with("/r/.buildkite/bb/x.yml", "b/x.yml", 7));
    ck_assert(!inputs_real_ends_with("b/x.yml", "b/x.yml", 7));
    ck_assert(!inputs_real_ends_with(NULL, "x.yml", 5));
}
END_TEST

Suite *inputs_suite(void)
{
    Suite *s = suite_create("inputs");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, lines_and_the_end);
    tcase_add_test(tc, long_lines_and_nul_bytes);
    tcase_add_test(tc, name_suffixes);
    tcase_add_test(tc, real_path_matches);
    suite_add_tcase(s, tc);
    return s;
}
