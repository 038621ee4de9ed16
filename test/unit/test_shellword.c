#include <string.h>

#include "fanout/shellword.h"
#include "unit.h"

static const struct {
    const char *in, *out;
} words[] = {
    {"/vllm-workspace/tests", "/vllm-workspace/tests"},
    {"a_b.c-d+e:f@g%h=i,j", "a_b.c-d+e:f@g%h=i,j"},
    {"my tests", "'my tests'"},
    {"it's", "'it'\\''s'"},
    {"$HOME", "'$HOME'"},
    {"", "''"},
};

START_TEST(quoted)
{
    char out[64];
    size_t len = shell_word(words[_i].in, strlen(words[_i].in), out);

    ck_assert_uint_le(len, SHELL_WORD_MAX(strlen(words[_i].in)));
    out[len] = '\0';
    ck_assert_str_eq(out, words[_i].out);
}
END_TEST

Suite *shellword_suite(void)
{
    Suite *s = suite_create("shellword");
    TCase *tc = tcase_create("core");

    tcase_add_loop_test(tc, quoted, 0, sizeof(words) / sizeof(words[0]));
    suite_add_tcase(s, tc);
    return s;
}
