/* pipediff_runners: the --durations reader (TSV, JSON and JUnit XML, and what it refuses,
 * at its line and column), and the runners' table's bound. */
#define _GNU_SOURCE /* open_memstream */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff/pipediff_internal.h"
#include "unit.h"

/* Reads `text` as a durations file; *msgs gets the messages (malloc'd). */
static struct pd_durations *read_text(const char *text, char **msgs)
{
    char path[] = "/tmp/fanout-durations-XXXXXX";
    int fd = mkstemp(path);
    size_t len = 0;
    FILE *fp = open_memstream(msgs, &len);
    struct diag *d = diag_create(fp, DIAG_TEXT);
    struct pd_durations *m;

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
    close(fd);
    m = pd_durations_read(path, d);
    diag_destroy(d);
    fclose(fp);
    unlink(path);
    return m;
}

static double minutes(const struct pd_durations *m, const char *id)
{
    double v = -1;

    return pd_durations_get(m, id, strlen(id), &v) ? v : -1;
}

/* A file the reader refuses, and its message after the file's name. */
struct refusal {
    const char *text, *msg;
};

static void refused(const struct refusal *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *msgs;
        struct pd_durations *m = read_text(cases[i].text, &msgs);
        const char *after = strchr(msgs, ':');

        ck_assert_msg(!m, "case %zu read", i);
        ck_assert_msg(after && !strcmp(after, cases[i].msg), "case %zu: %s", i, msgs);
        free(msgs);
    }
}

START_TEST(test_durations_tsv)
{
    char *msgs;
    struct pd_durations *m = read_text("# from the last build of main\n\nid\tminutes\npooling\t72\r\n"
                                       "pooling#2\t19.5\nLint (py 3.12)\t0\n",
                                       &msgs);

    ck_assert_ptr_nonnull(m);
    ck_assert_str_eq(msgs, "");
    ck_assert(minutes(m, "pooling") == 72);
    ck_assert(minutes(m, "pooling#2") == 19.5);
    ck_assert(minutes(m, "Lint (py 3.12)") == 0);
    ck_assert(minutes(m, "id") == -1); /* the header is no job */
    ck_assert(minutes(m, "lint") == -1);
    pd_durations_free(m);
    free(msgs);
}
END_TEST

START_TEST(test_durations_json)
{
    char *msgs;
    struct pd_durations *m = read_text("{\"pooling#1\": 19.5, \"pooling#2\": 18,\n \"lint\": 4}\n", &msgs);

    ck_assert_ptr_nonnull(m);
    ck_assert(minutes(m, "pooling#1") == 19.5);
    ck_assert(minutes(m, "pooling#2") == 18);
    ck_assert(minutes(m, "lint") == 4);
    ck_assert(minutes(m, "pooling") == -1);
    pd_durations_free(m);
    free(msgs);
    /* an empty object: no job timed */
    m = read_text("{}", &msgs);
    ck_assert_ptr_nonnull(m);
    ck_assert(minutes(m, "lint") == -1);
    pd_durations_free(m);
    free(msgs);
}
END_TEST

START_TEST(test_durations_refused)
{
    static const struct refusal cases[] = {
        {"a\t1\nb 2\n", ":2:1: error: a line is a job id and its minutes, tab-separated [durations]\n"},
        {"a\t1\tx\n", ":1:2: error: a line is a job id and its minutes, tab-separated [durations]\n"},
        {"a\t-1\n", ":1:3: error: a duration is a number of minutes (0 or more) [durations]\n"},
        {"a\tnan\n", ":1:3: error: a duration is a number of minutes (0 or more) [durations]\n"},
        {"a\t12 min\n", ":1:3: error: a duration is a number of minutes (0 or more) [durations]\n"},
        {"\t3\n", ":1:1: error: a job id is not empty [durations]\n"},
        {"a\t1\na\t2\n", ":2:1: error: a job id given twice [durations]\n"},
        {"{\"a\": \"12\"}", ":1:8: error: a duration is a number of minutes (0 or more) [durations]\n"},
        {"{\"a\": [1]}", ":1:7: error: a duration is a number of minutes (0 or more) [durations]\n"},
        {"[[\"a\", 1]]", ":1:2: error: a JSON durations file is an object of job ids and minutes [durations]\n"},
    };

    refused(cases, sizeof(cases) / sizeof(*cases));
}
END_TEST

/* JUnit XML (pipediff_junit.c): a suite a job, its time in seconds, else its testcases';
 * escapes, CDATA and comments are XML's, not ids. */
START_TEST(test_durations_junit)
{
    char *msgs;
    struct pd_durations *m = read_text(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!-- <testsuite name=\"no\" time=\"1\"/> -->\n"
        "<testsuites time=\"9999\">\n"
        "  <testsuite name=\"pooling#1\" tests=\"1\" time=\"1170\">\n"
        "    <testcase classname=\"t.a\" name=\"x\" time=\"5\"><system-out><![CDATA[</testsuite>]]></system-out></testcase>\n"
        "  </testsuite>\n"
        "  <testsuite name=\"docs &amp; site\"><testcase name=\"a\" time=\"300\"/><testcase name=\"b\" time=\"60.5\"/>"
        "<testcase name=\"c\"/></testsuite>\n"
        "  <testsuite name=\"lint\" time=\"0\"/>\n"
        "  <testsuite name=\"outer\" time=\"120\"><testsuite name=\"inner\" time=\"60\"/></testsuite>\n"
        "</testsuites>\n",
        &msgs);

    ck_assert_ptr_nonnull(m);
    ck_assert_str_eq(msgs, "");
    ck_assert(minutes(m, "pooling#1") == 19.5);
    ck_assert(fabs(minutes(m, "docs & site") - 360.5 / 60) < 1e-9);
    ck_assert(minutes(m, "lint") == 0);
    ck_assert(minutes(m, "outer") == 2);
    ck_assert(minutes(m, "inner") == 1);
    ck_assert(minutes(m, "no") == -1);
    ck_assert(minutes(m, "x") == -1); /* a test is no job */
    pd_durations_free(m);
    free(msgs);
}
END_TEST

START_TEST(test_durations_junit_refused)
{
    static const struct refusal cases[] = {
        {"<testsuites>\n<testsuite name=\"a\">\n</testsuites>\n",
         ":3:14: error: not a JUnit XML report: Opening and ending tag mismatch: testsuite line 2 and testsuites [durations]\n"},
        {"<testsuites/>\n", ":1:1: error: a JUnit XML report has <testsuite> elements: the jobs' runs [durations]\n"},
        {"<testsuites>\n<testsuite time=\"1\"/>\n</testsuites>\n",
         ":2:1: error: a <testsuite> has a name: the job's id [durations]\n"},
        {"<testsuite name=\"a\" time=\"1 min\"/>\n",
         ":1:1: error: a <testsuite> time is a number of seconds (0 or more) [durations]\n"},
        {"<testsuite name=\"a\">\n<testcase time=\"-1\"/>\n</testsuite>\n",
         ":2:1: error: a <testcase> time is a number of seconds (0 or more) [durations]\n"},
        {"<r>\n<testsuite name=\"a\" time=\"1\"/>\n<testsuite name=\"a\" time=\"2\"/>\n</r>\n",
         ":3:1: error: a job id given twice [durations]\n"},
    };

    refused(cases, sizeof(cases) / sizeof(*cases));
}
END_TEST

/* Past 4,096 runners a side, the others are one: memory and the sorted insertions stay
 * bounded whatever the rendering. */
START_TEST(test_runners_bounded)
{
    struct pd_tally t;
    const struct pd_runner *more = NULL;

    memset(&t, 0, sizeof(t));
    for (unsigned i = 0; i < 4100; i++) {
        char yaml[64];
        struct ynode_doc *doc;
        struct dialect_job job;

        snprintf(yaml, sizeof(yaml), "{command: x, agents: {queue: q%u}}\n", i);
        doc = doc_from(yaml);
        memset(&job, 0, sizeof(job));
        job.node = ynode_doc_root(doc);
        job.id = "x";
        job.id_len = 1;
        job.parts = job.shards = 1;
        ck_assert_int_eq(pd_tally_job(&t, NULL, &dialect_buildkite_diff, NULL, &job), 0);
        ynode_doc_destroy(doc);
    }
    ck_assert_uint_eq(t.n, 4097);
    ck_assert_uint_eq(t.jobs, 4100);
    for (size_t i = 1; i < t.n; i++)
        ck_assert_int_lt(strcmp(t.slot[i - 1].name, t.slot[i].name), 0);
    for (size_t i = 0; i < t.n; i++)
        if (!strcmp(t.slot[i].name, "(more runners)"))
            more = &t.slot[i];
    ck_assert_ptr_nonnull(more);
    ck_assert_uint_eq(more->jobs, 4);
    pd_tally_clear(&t);
}
END_TEST

Suite *runners_suite(void)
{
    Suite *s = suite_create("runners");
    TCase *tc = tcase_create("durations");

    tcase_add_test(tc, test_durations_tsv);
    tcase_add_test(tc, test_durations_json);
    tcase_add_test(tc, test_durations_refused);
    tcase_add_test(tc, test_durations_junit);
    tcase_add_test(tc, test_durations_junit_refused);
    tcase_add_test(tc, test_runners_bounded);
    suite_add_tcase(s, tc);
    return s;
}
