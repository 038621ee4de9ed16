/* joblist: the jobs of renderings, listed through render's sink. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/joblist.h"
#include "unit.h"

/* What `fanout jobs` prints for each input (one group each, written to a file of its
 * own) in `format`; *rcs the groups' exit codes, or'ed. Malloc'd. */
static char *list(const char *const *inputs, size_t n, enum joblist_format format, int *rcs)
{
    char dir[] = "/tmp/fanout-jobs-XXXXXX", path[64], *text = NULL, *msgs = NULL;
    size_t len, mlen;
    FILE *out = open_memstream(&text, &len), *err = open_memstream(&msgs, &mlen);
    struct diag *d = diag_create(err, DIAG_TEXT);
    struct joblist *l = joblist_create(d);
    struct render_opts opts = {.validate = true};

    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_ptr_nonnull(l);
    *rcs = 0;
    for (size_t i = 0; i < n; i++) {
        const char *paths[] = {path};
        FILE *f;

        snprintf(path, sizeof(path), "%s/%zu.yml", dir, i);
        ck_assert_ptr_nonnull(f = fopen(path, "w"));
        fputs(inputs[i], f);
        fclose(f);
        *rcs |= joblist_render(l, paths, 1, &opts, d);
        unlink(path);
    }
    ck_assert_int_eq(joblist_write(l, format, out), 0);
    joblist_destroy(l);
    diag_destroy(d);
    fclose(out);
    fclose(err);
    free(msgs);
    rmdir(dir);
    return text;
}

/* A Buildkite matrix job knows only its own index: each is told the fan-out's count
 * once the fan-out has ended, and a wait between two fan-outs ends the first. */
START_TEST(matrix_count_known_at_its_end)
{
    static const char *const in[] = {"steps:\n"
                                     "  - {key: b, command: x, matrix: [a, b, c]}\n"
                                     "  - wait\n"
                                     "  - {key: b2, command: x, matrix: [a, b]}\n"};
    int rc;
    char *tsv = list(in, 1, JOBLIST_TSV, &rc);

    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_nonnull(strstr(tsv, "\nb\t\t\t1\t3\tmatrix=a\t"));
    ck_assert_ptr_nonnull(strstr(tsv, "\nb\t\t\t3\t3\tmatrix=c\t"));
    ck_assert_ptr_nonnull(strstr(tsv, "\nwait\t\t\t1\t1\t\t"));
    ck_assert_ptr_nonnull(strstr(tsv, "\nb2\t\t\t2\t2\tmatrix=b\t"));
    free(tsv);
}
END_TEST

/* A reference to a later fanned-out step makes render read again and feed the sink
 * anew: the jobs of the first read are dropped, each job is listed once. */
START_TEST(second_pass_lists_each_job_once)
{
    static const char *const in[] = {"steps:\n"
                                     "  - {key: a, command: x, depends_on: b}\n"
                                     "  - {key: b, command: x, parallelism: 2}\n"};
    int rc;
    char *text = list(in, 1, JOBLIST_TEXT, &rc);

    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(strstr(text, "\nruns on"), "\nruns on  jobs\n(none)      3\ntotal       3\n");
    ck_assert_ptr_nonnull(strstr(text, "\nb#2  -  -  shard 2/2  "));
    ck_assert_ptr_null(strstr(strstr(text, "b#1") + 1, "b#1"));
    free(text);
}
END_TEST

/* A group whose render fails lists nothing (pass 1 fed the sink before the key index
 * found the collision); the groups before it are kept. */
START_TEST(failed_group_lists_nothing)
{
    static const char *const in[] = {"steps:\n  - {key: ok, command: x, agents: {queue: q}}\n",
                                     "on: push\njobs:\n  j: {runs-on: [self-hosted, x], steps: [{run: y}]}\n",
                                     "steps:\n  - {key: fed, command: x}\n  - {key: fed, command: y}\n"};
    int rc;
    char *json = list(in, 3, JOBLIST_JSON, &rc);

    ck_assert_int_eq(rc, DIAG_FINDING);
    ck_assert_ptr_null(strstr(json, "\"fed\""));
    ck_assert_ptr_nonnull(strstr(json, "{\"id\": \"ok\", \"name\": null, \"runs_on\": \"queue=q\", "
                                       "\"fanout\": {\"part\": 1, \"parts\": 1, \"values\": null}"));
    ck_assert_ptr_nonnull(strstr(json, "\"totals\": {\"runs_on\": {\"queue=q\": 1, \"self-hosted,x\": 1}, "
                                       "\"jobs\": 2}"));
    free(json);
}
END_TEST

/* A name with a line break or a table's bar stays on its line and in its cell. */
START_TEST(names_stay_in_their_cells)
{
    static const char *const in[] = {"steps:\n  - {label: \"a|b\\nc\", command: x}\n"};
    int rc;
    char *md = list(in, 1, JOBLIST_MARKDOWN, &rc), *tsv = list(in, 1, JOBLIST_TSV, &rc),
         *json = list(in, 1, JOBLIST_JSON, &rc);

    ck_assert_ptr_nonnull(strstr(md, "\n| a\\|b c | a\\|b c | - | - | "));
    ck_assert_ptr_nonnull(strstr(tsv, "\na|b c\ta|b c\t\t1\t1\t\t"));
    ck_assert_ptr_nonnull(strstr(json, "\"name\": \"a|b\\nc\""));
    free(md);
    free(tsv);
    free(json);
}
END_TEST

Suite *jobs_suite(void)
{
    Suite *s = suite_create("jobs");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, matrix_count_known_at_its_end);
    tcase_add_test(tc, second_pass_lists_each_job_once);
    tcase_add_test(tc, failed_group_lists_nothing);
    tcase_add_test(tc, names_stay_in_their_cells);
    suite_add_tcase(s, tc);
    return s;
}
