/* conditional: Buildkite's `if:` language over --build values: the reference
 * implementation's test tables (test/conditional/reference.tsv, a value left out is null)
 * and fanout's three-valued rows (test/conditional/fanout.tsv, a value left out is
 * unknown). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect/buildkite/conditional.h"
#include "unit.h"
#include "../glob/tsv_unescape.h"

struct row_values {
    const char *list; /* KEY=VALUE;... */
    bool missing_is_null;
    char value[512];
};

static const char *lookup(void *user, const char *key)
{
    struct row_values *v = user;
    size_t klen = strlen(key);

    for (const char *p = v->list; *p;) {
        size_t n = strcspn(p, ";");

        if (n > klen && p[klen] == '=' && !memcmp(p, key, klen)) {
            snprintf(v->value, sizeof(v->value), "%.*s", (int)(n - klen - 1), p + klen + 1);
            return v->value;
        }
        p += n + (p[n] == ';');
    }
    /* the reference's missing values: null, but an environment variable's absence is
     * not known to fanout */
    return v->missing_is_null && strncmp(key, "env.", 4) != 0 ? "" : NULL;
}

static size_t run_table(const char *path, bool missing_is_null)
{
    static const char *const names[] = {"false", "true", "unknown", "invalid"};
    FILE *f = fopen(path, "r");
    char line[4096];
    size_t rows = 0;

    ck_assert_msg(f != NULL, "cannot open %s", path);
    while (fgets(line, sizeof(line), f)) {
        char *t1, *t2, *t3, why[200];
        struct row_values v = {.missing_is_null = missing_is_null};
        enum bkc_verdict got;
        size_t len;

        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || !line[0])
            continue;
        t1 = strchr(line, '\t');
        t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        t3 = t2 ? strchr(t2 + 1, '\t') : NULL;
        ck_assert_msg(t3 != NULL, "%s: a row needs four columns: %s", path, line);
        *t1 = *t2 = *t3 = '\0';
        line[len = tsv_unescape(line, strlen(line))] = '\0';
        t1[1 + tsv_unescape(t1 + 1, strlen(t1 + 1))] = '\0';
        v.list = t1 + 1;
        got = bkc_decide(line, len, lookup, &v, why, sizeof(why));
        if (!strcmp(t2 + 1, "valid"))
            ck_assert_msg(got != BKC_INVALID, "%s: %s: invalid (%s), want valid (%s)", path, line, why, t3 + 1);
        else
            ck_assert_msg(!strcmp(names[got], t2 + 1), "%s: %s [%s]: %s (%s), want %s (%s)", path, line, v.list,
                          names[got], why, t2 + 1, t3 + 1);
        rows++;
    }
    fclose(f);
    return rows;
}

START_TEST(reference_table)
{
    ck_assert_uint_ge(run_table("test/conditional/reference.tsv", true), 160);
}
END_TEST

START_TEST(fanout_table)
{
    ck_assert_uint_ge(run_table("test/conditional/fanout.tsv", false), 80);
}
END_TEST

/* An invalid expression says why; a NUL ends the input as the reference's lexer reads it. */
START_TEST(why_and_nul)
{
    char why[64];

    ck_assert_int_eq(bkc_decide("build.nope", 10, lookup, &(struct row_values){.list = ""}, why, sizeof(why)),
                     BKC_INVALID);
    ck_assert_str_eq(why, "`build.nope` is not a variable");
    ck_assert_int_eq(bkc_decide("true\0 && false", 14, lookup, &(struct row_values){.list = ""}, why, 0), BKC_TRUE);
}
END_TEST

Suite *conditional_suite(void)
{
    Suite *s = suite_create("conditional");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, reference_table);
    tcase_add_test(tc, fanout_table);
    tcase_add_test(tc, why_and_nul);
    suite_add_tcase(s, tc);
    return s;
}
