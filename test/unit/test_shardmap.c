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

        if (shardmap_put(m, key, (size_t)n, 2) != 0) /* not ck_assert: a write to Check per pass */
            ck_abort_msg("key %d refused", i);
    }
    ck_assert_uint_eq(shardmap_count(m), 15000);
    for (int i = 0; i < 15000; i++) {
        int n = snprintf(key, sizeof(key), "step-%d", i);

        if (shardmap_get(m, key, (size_t)n) != 2)
            ck_abort_msg("key %d lost", i);
    }
    ck_assert_uint_eq(shardmap_get(m, "step-15000", 10), 0);
    shardmap_destroy(m);
}
END_TEST

/* Past the budget the map forgets its oldest keys, never the most recent ones, and what
 * it holds stays right. */
START_TEST(forgets_the_oldest_past_the_budget)
{
    struct shardmap *m = shardmap_create(RENDER_ONE_PASS_BUDGET);
    char key[32];
    int n;

    for (int i = 0; i < 100000; i++) {
        n = snprintf(key, sizeof(key), "step-%d", i);
        if (shardmap_put(m, key, (size_t)n, (unsigned)(i % 7) + 1) != 0 || shardmap_count(m) > 24576)
            ck_abort_msg("key %d: refused or past the budget (%zu kept)", i, shardmap_count(m));
    }
    for (int i = 100000 - 12288; i < 100000; i++) {
        n = snprintf(key, sizeof(key), "step-%d", i);
        if (shardmap_get(m, key, (size_t)n) != (unsigned)(i % 7) + 1)
            ck_abort_msg("recent key %d lost", i);
    }
    ck_assert_uint_eq(shardmap_get(m, "step-0", 6), 0);
    shardmap_destroy(m);
}
END_TEST

/* Renders `steps` sharded steps s0, s1 ...; every 100th depends on the step `back`
 * before it (-1: on s0). Returns the passes taken; the rendering goes to `out`. */
static unsigned render_passes_with(int steps, int back, struct render_opts opts)
{
    char path[] = "/tmp/fanout-onepass-XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    struct render_stats stats = {0};
    FILE *quiet = fopen("/dev/null", "w");
    struct diag *d = diag_create(quiet, DIAG_TEXT); /* the job-limit warnings */
    const char *paths[] = {path};

    fputs("steps:\n", fp);
    for (int i = 0; i < steps; i++) {
        fprintf(fp, "  - key: s%d\n    parallelism: 2\n    command: x\n", i);
        if (i % 100 == 99)
            fprintf(fp, "    depends_on: s%d\n", back < 0 ? 0 : i - back);
    }
    fclose(fp);
    opts.stats = &stats;
    ck_assert_int_le(render_run(paths, 1, &opts, d), 1); /* job-limit warnings only */
    ck_assert_int_eq(diag_has_input_error(d), 0);
    diag_destroy(d);
    fclose(quiet);
    unlink(path);
    return stats.passes;
}

static unsigned render_passes(int steps, int back, FILE *out)
{
    return render_passes_with(steps, back, (struct render_opts){.stream = out});
}

/* 15,000 sharded steps, each 100th depending on the first: one pass (pass 1's
 * rendering is used). */
START_TEST(render_one_pass_at_fifteen_thousand)
{
    FILE *out = fopen("/dev/null", "w");

    ck_assert_uint_eq(render_passes(15000, -1, out), 1);
    fclose(out);
}
END_TEST

/* 100,000 sharded steps whose references reach back 50 steps: still one pass. */
START_TEST(render_one_pass_far_past_the_budget)
{
    FILE *out = fopen("/dev/null", "w");

    ck_assert_uint_eq(render_passes(100000, 50, out), 1);
    fclose(out);
}
END_TEST

/* 30,000 sharded steps depending on the first, which the map has forgotten by then:
 * pass 2 renders those references right. */
START_TEST(render_two_passes_for_a_forgotten_key)
{
    FILE *out = tmpfile();
    char line[256];
    int rewritten = 0;

    ck_assert_uint_eq(render_passes(30000, -1, out), 2);
    rewind(out);
    while (fgets(line, sizeof(line), out))
        rewritten += strcmp(line, "      - s0-1\n") == 0;
    ck_assert_int_eq(rewritten, 600); /* 300 references, each in both shards */
    fclose(out);
}
END_TEST

static int items_seen;

static void count_begin(void *user, const struct dialect *dialect)
{
    (void)user;
    (void)dialect;
}

static int count_item(void *user, const struct stream_item *item)
{
    (void)user;
    (void)item;
    items_seen++;
    return 0;
}

/* The same steps checked only (validate, the lints): one read, and no item rendered. */
START_TEST(checks_only_read_once)
{
    static const struct render_sink counting = {count_begin, count_item, NULL, NULL, NULL, NULL};

    items_seen = 0;
    ck_assert_uint_eq(render_passes_with(30000, -1, (struct render_opts){.sink = &counting, .checks_only = true}), 1);
    ck_assert_int_eq(items_seen, 0);
}
END_TEST

Suite *shardmap_suite(void)
{
    Suite *s = suite_create("shardmap");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, fifteen_thousand_keys_fit);
    tcase_add_test(tc, forgets_the_oldest_past_the_budget);
    tcase_add_test(tc, render_one_pass_far_past_the_budget);
    tcase_add_test(tc, render_two_passes_for_a_forgotten_key);
    tcase_add_test(tc, render_one_pass_at_fifteen_thousand);
    tcase_add_test(tc, checks_only_read_once);
    suite_add_tcase(s, tc);
    return s;
}
