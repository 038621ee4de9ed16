/* change: the changed files, read and looked up by directory; the build's values. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/change.h"

#include "unit.h"

struct seen {
    char text[256];
};

static int collect(void *user, const char *file)
{
    struct seen *s = user;

    strcat(s->text, file);
    strcat(s->text, ";");
    return 0;
}

static const char *under(const struct change *c, const char *dir)
{
    static struct seen s;

    s.text[0] = '\0';
    change_each_under(c, dir, strlen(dir), collect, &s);
    return s.text;
}

/* Lines as git diff --name-only prints them, CR LF and "./" tolerated, sorted and each
 * once; a directory's files are the directory itself and what is below it, not its
 * namesakes (`dir-x` sorts between `dir` and `dir/a`). */
START_TEST(files_under_a_directory)
{
    struct change *c = change_of("vllm/b.py\r\n./vllm/a.py\n\nvllm-x/c.py\nvllm\nvllm/a.py\ndocs/index.md\n");

    ck_assert(change_known(c));
    ck_assert_uint_eq(change_count(c), 5);
    ck_assert_str_eq(change_file(c, 0), "docs/index.md");
    ck_assert_str_eq(under(c, "vllm"), "vllm;vllm/a.py;vllm/b.py;");
    ck_assert_str_eq(under(c, "vllm/a.py"), "vllm/a.py;");
    ck_assert_str_eq(under(c, "vll"), "");
    ck_assert_str_eq(under(c, "tests"), "");
    ck_assert(change_has(c, "vllm-x/c.py", 11));
    ck_assert(!change_has(c, "vllm-x", 6));
    change_destroy(c);
}
END_TEST

START_TEST(build_values)
{
    struct change *c = change_create();

    ck_assert(!change_known(c));
    ck_assert_int_eq(change_set_build(c, "env.RUN_ALL=1"), 0);
    ck_assert_int_eq(change_set_build(c, "branch=main"), 0);
    ck_assert_int_eq(change_set_build(c, "env.RUN_ALL=0"), 0);
    ck_assert_int_eq(change_set_build(c, "no-equals"), -1);
    ck_assert_int_eq(change_set_build(c, "=x"), -1);
    ck_assert_str_eq(change_build(c, "env.RUN_ALL"), "0");
    ck_assert_str_eq(change_build(c, "branch"), "main");
    ck_assert_ptr_null(change_build(c, "env.NIGHTLY"));
    change_destroy(c);
}
END_TEST

Suite *change_suite(void)
{
    Suite *s = suite_create("change");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, files_under_a_directory);
    tcase_add_test(tc, build_values);
    suite_add_tcase(s, tc);
    return s;
}
