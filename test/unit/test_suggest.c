#include <string.h>

#include "fanout/suggest.h"
#include "unit.h"

static unsigned dist(const char *a, const char *b, unsigned limit)
{
    return suggest_distance(a, strlen(a), b, strlen(b), limit);
}

START_TEST(distances)
{
    ck_assert_uint_eq(dist("parallelism", "parallelism", 2), 0);
    ck_assert_uint_eq(dist("paralelism", "parallelism", 2), 1);   /* a deletion */
    ck_assert_uint_eq(dist("parallelsim", "parallelism", 2), 1);  /* a swap of neighbours */
    ck_assert_uint_eq(dist("comands", "commands", 2), 1);
    ck_assert_uint_eq(dist("kye", "key", 1), 1);
    ck_assert_uint_eq(dist("agent", "agents", 2), 1);
    /* over the limit: limit + 1, whatever the real distance */
    ck_assert_uint_eq(dist("label", "commands", 2), 3);
    ck_assert_uint_eq(dist("", "abcd", 2), 3);
}
END_TEST

START_TEST(closest)
{
    static const char *const keys[] = {"command", "commands", "parallelism", "label", NULL};

    ck_assert_str_eq(suggest_closest("paralelism", 10, keys, 2), "parallelism");
    ck_assert_str_eq(suggest_closest("comands", 7, keys, 2), "commands");
    ck_assert_str_eq(suggest_closest("labl", 4, keys, 1), "label");
    ck_assert_ptr_null(suggest_closest("timeout", 7, keys, 2));
    /* the word itself is no suggestion */
    ck_assert_ptr_null(suggest_closest("label", 5, keys, 2));
    {
        char phrase[SUGGEST_PHRASE_MAX];

        ck_assert_str_eq(suggest_phrase("label", phrase), ", did you mean 'label'?");
        ck_assert_str_eq(suggest_phrase(NULL, phrase), "");
    }
    ck_assert_uint_eq(suggest_limit(3), 1);
    ck_assert_uint_eq(suggest_limit(10), 2);
}
END_TEST

Suite *suggest_suite(void)
{
    Suite *s = suite_create("suggest");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, distances);
    tcase_add_test(tc, closest);
    suite_add_tcase(s, tc);
    return s;
}
