/* glob: the three dialects' tables (test/glob/, a file a dialect, each block citing the platform source
 * its rows transcribe), errors with their offsets, and GitHub's order rule. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/glob.h"
#include "unit.h"
#include "../glob/tsv_unescape.h"

/* A row's answer: '1', '0' or 'E'. A pattern column holding newlines is a list, decided by
 * glob_filter (GitHub's order rule). */
static char answer(enum glob_dialect d, char *pattern, size_t plen, const char *path, size_t len)
{
    struct glob *globs[16];
    size_t n = 0;
    char result = 'E';
    struct glob_error err;

    for (size_t start = 0; start <= plen && n < 16;) {
        const char *nl = memchr(pattern + start, '\n', plen - start);
        size_t end = nl ? (size_t)(nl - pattern) : plen;
        if (!(globs[n] = glob_compile(d, pattern + start, end - start, &err)))
            goto done;
        n++;
        start = end + 1;
        if (!nl)
            break;
    }
    result = (n == 1 && !glob_negated(globs[0]) ? glob_match(globs[0], path, len)
                                                 : glob_filter(globs, n, path, len))
                 ? '1'
                 : '0';
done:
    while (n)
        glob_free(globs[--n]);
    return result;
}

/* Every row of `file` answered as it expects; the number of rows. */
static unsigned run_table(const char *file, enum glob_dialect d)
{
    FILE *f = fopen(file, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    unsigned rows = 0, wrong = 0;

    ck_assert_msg(f != NULL, "cannot open %s (the unit tests run from the repository's root)", file);
    while ((got = getline(&line, &cap, f)) > 0) {
        if (line[0] == '#')
            continue;
        if (line[got - 1] == '\n')
            line[--got] = '\0';
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        ck_assert_msg(t2 && t2[1] && !t2[2], "%s: a row is pattern, path, expected: %s", file, line);
        char want = t2[1];
        size_t plen = tsv_unescape(line, (size_t)(t1 - line));
        size_t len = tsv_unescape(t1 + 1, (size_t)(t2 - t1 - 1));
        char have = answer(d, line, plen, t1 + 1, len);
        rows++;
        if (have != want && ++wrong <= 10)
            fprintf(stderr, "%s: pattern %.*s, path %.*s: expected %c, got %c\n", file, (int)plen,
                    line, (int)len, t1 + 1, want, have);
    }
    free(line);
    fclose(f);
    ck_assert_msg(wrong == 0, "%s: %u of %u rows disagree", file, wrong, rows);
    return rows;
}

START_TEST(picomatch_table)
{
    ck_assert_uint_ge(run_table("test/glob/picomatch.tsv", GLOB_PICOMATCH), 200);
}
END_TEST

START_TEST(github_table)
{
    ck_assert_uint_ge(run_table("test/glob/github.tsv", GLOB_GITHUB), 200);
}
END_TEST

START_TEST(buildkite_table)
{
    ck_assert_uint_ge(run_table("test/glob/buildkite.tsv", GLOB_BUILDKITE), 200);
}
END_TEST

static void expect_error(enum glob_dialect d, const char *pattern, size_t offset, const char *words)
{
    struct glob_error err;
    struct glob *g = glob_compile(d, pattern, strlen(pattern), &err);

    ck_assert_msg(g == NULL, "%s compiled", pattern);
    ck_assert_uint_eq(err.offset, offset);
    ck_assert_msg(strstr(err.message, words), "%s: %s", pattern, err.message);
}

/* An error names where in the pattern it is, for the caller's file:line:col. */
START_TEST(errors)
{
    expect_error(GLOB_GITHUB, "docs/[a-Z]", 6, "range");
    expect_error(GLOB_GITHUB, "v[12", 1, "no closing");
    expect_error(GLOB_GITHUB, "a/[]", 2, "no character");
    expect_error(GLOB_GITHUB, "*?", 1, "no character is before it");
    expect_error(GLOB_GITHUB, "a\\", 1, "escapes nothing");
    expect_error(GLOB_GITHUB, "", 0, "not empty");
    expect_error(GLOB_BUILDKITE, "bar/**/[asdf[[[[asdf", 7, "unterminated char class");
    expect_error(GLOB_BUILDKITE, "x/[^ab", 2, "unterminated negated char class");
    expect_error(GLOB_BUILDKITE, "{a{b{c{d", 6, "unterminated alternation");
    expect_error(GLOB_PICOMATCH, "", 0, "empty");
    expect_error(GLOB_PICOMATCH, "!a\\\\\\\\", 0, "never returns");
    /* over picomatch's MAX_LENGTH: refused by its fast path (a leading *) and by parse */
    for (int first = 0; first < 2; first++) {
        char *long_pattern = malloc(65538);

        memset(long_pattern, 'a', 65537);
        long_pattern[0] = first ? '*' : 'a';
        long_pattern[65537] = '\0';
        expect_error(GLOB_PICOMATCH, long_pattern, 0, "over 65536 characters");
        long_pattern[65536] = '\0'; /* at the limit: compiled */
        struct glob_error err;
        struct glob *g = glob_compile(GLOB_PICOMATCH, long_pattern, 65536, &err);
        ck_assert_ptr_nonnull(g);
        glob_free(g);
        free(long_pattern);
    }
}
END_TEST

/* GitHub: the last pattern that matches decides; a negated one alone includes nothing. */
START_TEST(order_rule)
{
    struct glob_error err;
    static const char *const list[] = {"*.md", "!README.md", "README*"};
    struct glob *g[3];

    for (int i = 0; i < 3; i++)
        ck_assert_ptr_nonnull(g[i] = glob_compile(GLOB_GITHUB, list[i], strlen(list[i]), &err));
    ck_assert(glob_negated(g[1]) && !glob_negated(g[0]));
    ck_assert(glob_match(g[1], "README.md", 9)); /* what `!README.md` matches, without its `!` */
    ck_assert(!glob_filter(g, 2, "README.md", 9));
    ck_assert(glob_filter(g, 3, "README.md", 9));
    ck_assert(glob_filter(g, 2, "hello.md", 8));
    ck_assert(!glob_filter(g + 1, 1, "hello.md", 8));
    ck_assert(!glob_filter(g, 0, "hello.md", 8));
    for (int i = 0; i < 3; i++)
        glob_free(g[i]);
}
END_TEST

/* Buildkite: the agent expands ~/ to its home directory, an absolute path no changed file
 * (relative to the repository) is under. */
START_TEST(buildkite_home)
{
    struct glob_error err;
    struct glob *g = glob_compile(GLOB_BUILDKITE, "~/a/**", 6, &err);

    ck_assert_ptr_nonnull(g);
    ck_assert(!glob_match(g, "~/a/b", 5));
    ck_assert(!glob_match(g, "a/b", 3));
    glob_free(g);
}
END_TEST

Suite *glob_suite(void)
{
    Suite *s = suite_create("glob");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, picomatch_table);
    tcase_add_test(tc, github_table);
    tcase_add_test(tc, buildkite_table);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, order_rule);
    tcase_add_test(tc, buildkite_home);
    suite_add_tcase(s, tc);
    return s;
}
