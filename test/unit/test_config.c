/* config: a .fanout.yml read once and checked whole, its sections handed out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/config.h"
#include "fanout/diag.h"
#include "unit.h"

/* Loads `text` as a config file; the exit code, the messages in *msgs (malloc'd). */
static int load(const char *text, struct config **out, char **msgs)
{
    char dir[] = "/tmp/fanout-config-XXXXXX", path[64];
    size_t len = 0;
    FILE *fp = open_memstream(msgs, &len), *f;
    struct diag *d = diag_create(fp, DIAG_TEXT);
    int rc;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/.fanout.yml", dir);
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
    rc = config_load(path, d, out);
    diag_destroy(d);
    fclose(fp);
    unlink(path);
    rmdir(dir);
    return rc;
}

START_TEST(config_sections)
{
    struct config *c;
    char *msgs;

    ck_assert_int_eq(load("rules: {job-limit: off}\n"
                          "defaults:\n  render: {no_snippet: true}\n"
                          "known_keys: [x_team]\n", &c, &msgs), 0);
    ck_assert_str_eq(msgs, "");
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_nonnull(config_section(c, "rules"));
    ck_assert_ptr_nonnull(config_section(c, "known_keys"));
    ck_assert_ptr_null(config_section(c, "checks"));
    ck_assert_ptr_nonnull(config_defaults(c, "render"));
    ck_assert_ptr_null(config_defaults(c, "diff"));
    config_destroy(c);
    free(msgs);
}
END_TEST

/* What is wrong is one config error at its line, exit 2, and no config. */
static const struct {
    const char *text, *message;
} bad[] = {
    {"rulez: {}\n", ".fanout.yml:1:1: error: unknown key 'rulez' (checks, shards, rules, known_keys, defaults, limits), did you mean 'rules'?"},
    {"rules: {job-limit: loud}\n", ".fanout.yml:1:20: error: "},
    {"defaults:\n  rendr: {}\n", ".fanout.yml:2:3: error: "},
    {"", "error: the config is empty"},
    {"limits: {jobs_per_step: 0}\n", ".fanout.yml:1:25: error: a limit is a number of jobs, 1 to 1000000"},
    {"limits: [1]\n", ".fanout.yml:1:9: error: limits is a mapping"},
};

START_TEST(config_errors)
{
    struct config *c = (struct config *)1;
    char *msgs;

    ck_assert_int_eq(load(bad[_i].text, &c, &msgs), 2);
    ck_assert_ptr_null(c);
    ck_assert_msg(strstr(msgs, bad[_i].message) && strstr(msgs, "[config]"), "%s: got %s", bad[_i].text, msgs);
    free(msgs);
}
END_TEST

/* A config that is given but cannot be read is an error, not an absent config. */
START_TEST(config_unreadable)
{
    struct config *c = (struct config *)1;
    size_t len = 0;
    char *msgs = NULL;
    FILE *fp = open_memstream(&msgs, &len);
    struct diag *d = diag_create(fp, DIAG_TEXT);

    ck_assert_int_eq(config_load("/nonexistent/.fanout.yml", d, &c), 2);
    ck_assert_ptr_null(c);
    ck_assert(diag_has_input_error(d));
    diag_destroy(d);
    fclose(fp);
    free(msgs);
}
END_TEST

Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, config_sections);
    tcase_add_loop_test(tc, config_errors, 0, (int)(sizeof(bad) / sizeof(bad[0])));
    tcase_add_test(tc, config_unreadable);
    suite_add_tcase(s, tc);
    return s;
}
