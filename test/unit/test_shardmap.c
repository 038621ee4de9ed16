/* shardmap: the budget counts what the map holds, not a table it has already freed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/render.h"
#include "fanout/shardmap.h"
#include "unit.h"

/* 15,000 keys of about 10 bytes fit the 1 MiB budget (the old accounting, which counted
 * the old table and the new one together, gave up at 8,191). */
START_TEST(fifteen_thousand_keys_fit)
{
    struct shardmap *m = shardmap_create(RENDER_ONE_PASS_BUDGET);
    char key[32];

    for (int i = 0; i < 15000; i++) {
        int n = snprintf(key, sizeof(key), "step-%d", i);

        ck_assert_msg(shardmap_put(m, key, (size_t)n, 2) == 0, "key %d refused", i);
    }
    ck_assert_uint_eq(shardmap_count(m), 15000);
    for (int i = 0; i < 15000; i++) {
        int n = snprintf(key, sizeof(key), "step-%d", i);

        ck_assert_uint_eq(shardmap_get(m, key, (size_t)n), 2);
    }
    ck_assert_uint_eq(shardmap_get(m, "step-15000", 10), 0);
    shardmap_destroy(m);
}
END_TEST

/* Past the budget the map refuses, and what it holds stays right. */
START_TEST(refuses_past_the_budget)
{
    struct shardmap *m = shardmap_create(64 * 1024);
    char key[32];
    int i;

    for (i = 0; i < 100000; i++) {
        int n = snprintf(key, sizeof(key), "k%d", i);

        if (shardmap_put(m, key, (size_t)n, (unsigned)(i % 7) + 1) != 0)
            break;
    }
    ck_assert_int_gt(i, 1000);
    ck_assert_int_lt(i, 100000);
    for (int j = 0; j < i; j++) {
        int n = snprintf(key, sizeof(key), "k%d", j);

        ck_assert_uint_eq(shardmap_get(m, key, (size_t)n), (unsigned)(j % 7) + 1);
    }
    shardmap_destroy(m);
}
END_TEST

/* A pipeline with 15,000 sharded steps, each depended on by a later one, renders in
 * one pass (pass 1's rendering is used). */
START_TEST(render_one_pass_at_fifteen_thousand)
{
    char path[] = "/tmp/fanout-onepass-XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    struct render_stats stats = {0};
    struct render_opts opts = {.stats = &stats};
    FILE *quiet = fopen("/dev/null", "w");
    struct diag *d = diag_create(quiet, DIAG_TEXT); /* the job-limit warnings */
    const char *paths[] = {path};

    fputs("steps:\n", fp);
    for (int i = 0; i < 15000; i++)
        fprintf(fp, "  - key: s%d\n    parallelism: 2\n    command: x\n%s", i,
                i % 100 == 99 ? "    depends_on: s0\n" : "");
    fclose(fp);
    opts.stream = fopen("/dev/null", "w");
    ck_assert_int_le(render_run(paths, 1, &opts, d), 1); /* job-limit warnings only */
    ck_assert_int_eq(diag_has_input_error(d), 0);
    ck_assert_uint_eq(stats.passes, 1);
    fclose(opts.stream);
    diag_destroy(d);
    fclose(quiet);
    unlink(path);
}
END_TEST

Suite *shardmap_suite(void)
{
    Suite *s = suite_create("shardmap");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, fifteen_thousand_keys_fit);
    tcase_add_test(tc, refuses_past_the_budget);
    tcase_add_test(tc, render_one_pass_at_fifteen_thousand);
    suite_add_tcase(s, tc);
    return s;
}
