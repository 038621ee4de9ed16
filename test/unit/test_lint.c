/* lint: the rules over a rendering's jobs, each on tiny job lists through its entries
 * (lint_rule.h), and the runner: which rules run, and the order of their findings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/dialect.h"
#include "fanout/lint.h"
#include "fanout/shardflags.h"
#include "lint/lint_rule.h"
#include "unit.h"

static const char *const files[] = {"in.yaml"};

/* A diag whose messages are read back as text. */
struct messages {
    char *buf;
    size_t len;
    FILE *fp;
    struct diag *d;
};

static void messages_open(struct messages *m)
{
    m->buf = NULL;
    m->len = 0;
    m->fp = open_memstream(&m->buf, &m->len);
    ck_assert_ptr_nonnull(m->fp);
    m->d = diag_create(m->fp, DIAG_TEXT);
}

/* The messages so far, which the caller frees. */
static char *messages_close(struct messages *m)
{
    diag_destroy(m->d);
    fclose(m->fp);
    return m->buf;
}

/* `n` jobs of one command step each, no fan-out. */
static char *plain_jobs(size_t n)
{
    static const char job[] = "- command: x\n";
    char *text = malloc(n * (sizeof(job) - 1) + 1);

    ck_assert_ptr_nonnull(text);
    for (size_t i = 0; i < n; i++)
        memcpy(text + i * (sizeof(job) - 1), job, sizeof(job) - 1);
    text[n * (sizeof(job) - 1)] = '\0';
    return text;
}

/* ---- job-limit ---- */

static char *job_limit_on(const struct dialect *dl, size_t document_jobs, size_t jobs)
{
    struct messages m;
    struct lint_run run = {.setup = {.dialect = dl, .files = files}, .document_jobs = document_jobs, .jobs = jobs};

    messages_open(&m);
    run.setup.diag = m.d;
    ck_assert_ptr_null(lint_job_limit.begin); /* always on, no state */
    ck_assert_ptr_null(lint_job_limit.job);   /* the counts are all it needs */
    lint_job_limit.document(NULL, &run, (struct ypos){0, 3, 1});
    ck_assert_int_eq(lint_job_limit.finish(NULL, &run), 0);
    return messages_close(&m);
}

START_TEST(job_limit_per_document_and_build)
{
    char *text = job_limit_on(&dialect_buildkite, DIALECT_BUILDKITE_JOBS_PER_UPLOAD, DIALECT_BUILDKITE_JOBS_PER_BUILD);

    ck_assert_str_eq(text, ""); /* at the limits: accepted */
    free(text);
    text = job_limit_on(&dialect_buildkite, 501, 4001);
    ck_assert_str_eq(text, "in.yaml:3:1: warning: this document renders 501 jobs; Buildkite accepts at most 500 "
                           "per pipeline upload [job-limit]\n"
                           "fanout: warning: renders 4001 jobs; Buildkite allows at most 4000 per build "
                           "[job-limit]\n");
    free(text);
    /* a platform without limits */
    text = job_limit_on(&dialect_gha, 100000, 100000);
    ck_assert_str_eq(text, "");
    free(text);
}
END_TEST

/* ---- shard-coverage ---- */

START_TEST(shard_coverage_only_when_asked)
{
    struct lint_run run = {.setup = {.dialect = &dialect_buildkite, .files = files}};
    void *self = NULL;

    ck_assert_int_eq(lint_shard_coverage.begin(&run, &self), 1);
    ck_assert_ptr_null(self);
}
END_TEST

/* The rule alone, as the runner drives it. */
struct rule_run {
    struct lint_run run;
    void *self;
};

static int to_rule(void *user, const struct dialect_job *job)
{
    struct rule_run *r = user;

    return lint_shard_coverage.job(r->self, &r->run, job);
}

START_TEST(shard_coverage_over_jobs)
{
    struct shardflags *f = shardflags_create();
    struct messages m;
    struct rule_run r = {.run = {.setup = {.dialect = &dialect_buildkite, .files = files, .shards = f}}};
    /* one job that runs shard 0 of 2, then a split that runs both */
    const char *items[] = {"- command: pytest --num-shards=2 --shard-id=0\n",
                           "- key: a-0\n  command: pytest --num-shards=2 --shard-id=0\n"
                           "  env: {BUILDKITE_PARALLEL_JOB: '0', BUILDKITE_PARALLEL_JOB_COUNT: '2'}\n"
                           "- key: a-1\n  command: pytest --num-shards=2 --shard-id=1\n"
                           "  env: {BUILDKITE_PARALLEL_JOB: '1', BUILDKITE_PARALLEL_JOB_COUNT: '2'}\n"};
    char *text;

    messages_open(&m);
    r.run.setup.diag = m.d;
    ck_assert_int_eq(lint_shard_coverage.begin(&r.run, &r.self), 0);
    for (size_t i = 0; i < 2; i++) {
        struct ynode_doc *doc = doc_from(items[i]);

        ck_assert_int_ge(dialect_buildkite.each_job(ynode_doc_root(doc), to_rule, &r), 0);
        ynode_doc_destroy(doc);
    }
    ck_assert_int_eq(lint_shard_coverage.finish(r.self, &r.run), 0);
    lint_shard_coverage.end(r.self);
    text = messages_close(&m);
    ck_assert_str_eq(text, "in.yaml:1:19: error: command: --num-shards=2 but 1 job: shard 1 never runs "
                           "[shard-coverage]\n");
    free(text);
    shardflags_destroy(f);
}
END_TEST

/* ---- the runner ---- */

/* Runs every rule over the documents `docs` (each one item), the end of each told. */
static char *lint_docs(struct shardflags *shards, const char *const *docs, size_t n)
{
    struct messages m;
    struct lint *l;

    messages_open(&m);
    l = lint_begin(&(struct lint_setup){&dialect_buildkite, m.d, files, shards, NULL, NULL, 1});
    ck_assert_ptr_nonnull(l);
    for (size_t i = 0; i < n; i++) {
        struct ynode_doc *doc = doc_from(docs[i]);

        ck_assert_int_eq(lint_item(l, 0, ynode_doc_root(doc)), 0);
        ynode_doc_destroy(doc);
        lint_document(l, (struct ypos){0, 1, 1});
    }
    ck_assert_int_eq(lint_finish(l), 0);
    lint_end(l);
    return messages_close(&m);
}

/* Findings come when each rule knows them: a document's job count at its end, a job's
 * coverage when the next job shows that its fan-out ended (in the next document), and
 * at the end the last fan-out's coverage, then the build's job count. */
START_TEST(runner_order_of_findings)
{
    struct shardflags *f = shardflags_create();
    char *plain_a = plain_jobs(501), *plain_b = plain_jobs(3500);
    const char *bad = "- command: pytest --num-shards=2 --shard-id=0\n";
    char *a = malloc(strlen(plain_a) + strlen(bad) + 1), *b = malloc(strlen(plain_b) + strlen(bad) + 1);
    const char *docs[2];
    char *text;

    ck_assert(a && b);
    strcat(strcpy(a, plain_a), bad);
    strcat(strcpy(b, plain_b), bad);
    docs[0] = a;
    docs[1] = b;
    text = lint_docs(f, docs, 2);
    ck_assert_str_eq(text,
                     "in.yaml:1:1: warning: this document renders 502 jobs; Buildkite accepts at most 500 per "
                     "pipeline upload [job-limit]\n"
                     "in.yaml:502:19: error: command: --num-shards=2 but 1 job: shard 1 never runs [shard-coverage]\n"
                     "in.yaml:1:1: warning: this document renders 3501 jobs; Buildkite accepts at most 500 per "
                     "pipeline upload [job-limit]\n"
                     "in.yaml:3501:19: error: command: --num-shards=2 but 1 job: shard 1 never runs [shard-coverage]\n"
                     "fanout: warning: renders 4003 jobs; Buildkite allows at most 4000 per build [job-limit]\n");
    free(text);
    /* without shard runners, shard-coverage does not run: the jobs are only counted */
    text = lint_docs(NULL, docs, 1);
    ck_assert_str_eq(text, "in.yaml:1:1: warning: this document renders 502 jobs; Buildkite accepts at most 500 "
                           "per pipeline upload [job-limit]\n");
    free(text);
    free(a);
    free(b);
    free(plain_a);
    free(plain_b);
    shardflags_destroy(f);
}
END_TEST

/* A rule that fails stops the item, and says why. */
START_TEST(runner_rule_failure)
{
    struct shardflags *f = shardflags_create();
    struct ynode_doc *cfg = doc_from("- {name: slow, count: '(?:a|a)+[bc]', index: 'I=(\\d)'}\n");
    struct ynode_doc *doc = doc_from("- command: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaax\n");
    struct messages m;
    struct lint *l;
    char *text;

    messages_open(&m);
    ck_assert_int_eq(shardflags_configure(f, ynode_doc_root(cfg), "cfg.yml", m.d), 0);
    l = lint_begin(&(struct lint_setup){&dialect_buildkite, m.d, files, f, NULL, NULL, 1});
    ck_assert_int_eq(lint_item(l, 0, ynode_doc_root(doc)), -1);
    lint_end(l);
    text = messages_close(&m);
    ck_assert_str_eq(text, "fanout: error: cannot check shard coverage (out of memory, or a shard pattern hit "
                           "its match limit) [shard-coverage]\n");
    free(text);
    ynode_doc_destroy(cfg);
    ynode_doc_destroy(doc);
    shardflags_destroy(f);
}
END_TEST

/* Each rule's findings are named by the rule it says it is. */
START_TEST(rules_named)
{
    ck_assert_str_eq(rule_name(lint_job_limit.rule), "job-limit");
    ck_assert_str_eq(rule_name(lint_shard_coverage.rule), "shard-coverage");
}
END_TEST

Suite *lint_suite(void)
{
    Suite *s = suite_create("lint");
    TCase *rules = tcase_create("rules"), *runner = tcase_create("runner");

    tcase_add_test(rules, job_limit_per_document_and_build);
    tcase_add_test(rules, shard_coverage_only_when_asked);
    tcase_add_test(rules, shard_coverage_over_jobs);
    tcase_add_test(rules, rules_named);
    tcase_add_test(runner, runner_order_of_findings);
    tcase_add_test(runner, runner_rule_failure);
    suite_add_tcase(s, rules);
    suite_add_tcase(s, runner);
    return s;
}
