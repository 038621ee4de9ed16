/* render: the run as a whole, driven through a sink that acts between reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/render.h"
#include "fanout/strset.h"
#include "unit.h"

/* A sink that rewrites `path` with `text` once it is fed the job `after` (pass 1 feeds
 * the sink as it goes, so the rewrite falls between two reads of the run). */
struct rewriter {
    const char *after, *path, *text;
    bool done;
};

static void rewriter_begin(void *user, const struct dialect *dialect)
{
    (void)user;
    (void)dialect;
}

static int rewriter_item(void *user, const struct stream_item *item)
{
    struct rewriter *w = user;
    const struct ynode *jobs = item->kind == STREAM_STEP ? ynode_doc_root(item->doc) : NULL;
    FILE *f;

    for (size_t i = 0; !w->done && i < ynode_len(jobs); i++) {
        if (ynode_scalar_is(ynode_key(jobs, i), w->after)) {
            ck_assert_ptr_nonnull(f = fopen(w->path, "w"));
            fputs(w->text, f);
            fclose(f);
            w->done = true;
        }
    }
    return 0;
}

static void rewriter_reset(void *user)
{
    (void)user;
}

static const char callee[] = "on: {workflow_call: {}}\njobs:\n  x: {runs-on: old, steps: [{run: x}]}\n";

/* Renders a.yml (jobs `first`, then `calls` jobs calling ./b.yml, then `last`) and b.yml,
 * with b.yml rewritten to `then` once job `after` is fed; the exit code, and whether a
 * message named b.yml as changed. */
static int render_with_rewrite(int calls, const char *after, const char *then, bool *reported)
{
    char dir[] = "/tmp/fanout-reread-XXXXXX", a[64], b[64], *msgs = NULL;
    size_t mlen;
    FILE *err, *f, *out = fopen("/dev/null", "w");
    struct diag *d;
    struct rewriter w = {.after = after, .path = b, .text = then};
    struct render_sink sink = {rewriter_begin, rewriter_item, rewriter_reset, &w, NULL, NULL};
    struct render_opts opts = {.sink = &sink, .validate = true, .stream = out};
    const char *paths[] = {a, b};
    int rc;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(a, sizeof(a), "%s/a.yml", dir);
    snprintf(b, sizeof(b), "%s/b.yml", dir);
    ck_assert_ptr_nonnull(f = fopen(a, "w"));
    fputs("on: push\njobs:\n  first: {runs-on: x, steps: [{run: x}]}\n", f);
    for (int i = 0; i < calls; i++)
        fprintf(f, "  call%d:\n    uses: ./b.yml\n", i);
    fputs("  last: {runs-on: x, steps: [{run: x}]}\n", f);
    fclose(f);
    ck_assert_ptr_nonnull(f = fopen(b, "w"));
    fputs(callee, f);
    fclose(f);
    err = open_memstream(&msgs, &mlen);
    d = diag_create(err, DIAG_TEXT);
    rc = render_run(paths, 2, &opts, d);
    diag_destroy(d);
    fclose(err);
    fclose(out);
    ck_assert(w.done);
    *reported = strstr(msgs, "b.yml: error: changed while it was being read") != NULL;
    free(msgs);
    unlink(a);
    unlink(b);
    rmdir(dir);
    return rc;
}

/* A called workflow is read once per call and once as an input: a rewrite between any
 * two of those reads is an error (the rendering would hold both versions), and a
 * rewrite with the same bytes is not. */
START_TEST(a_called_workflow_rewritten_between_reads)
{
    static const char changed[] = "on: {workflow_call: {}}\njobs:\n  x: {runs-on: new, steps: [{run: x}]}\n";
    bool reported;

    /* between the call and the read of b.yml as an input */
    ck_assert_int_eq(render_with_rewrite(1, "call0-x", changed, &reported), 2);
    ck_assert(reported);
    /* between two calls */
    ck_assert_int_eq(render_with_rewrite(2, "call0-x", changed, &reported), 2);
    ck_assert(reported);
    /* between detection (which reads every input to tell its dialect) and the call */
    ck_assert_int_eq(render_with_rewrite(1, "first", changed, &reported), 2);
    ck_assert(reported);
    ck_assert_int_eq(render_with_rewrite(2, "call0-x", callee, &reported), 0);
    ck_assert(!reported);
}
END_TEST

/* The rules over the rendered jobs report at the end of pass 1, before the findings only
 * known once every key is: the build's job count comes before a dangling reference. */
START_TEST(job_rules_before_key_problems)
{
    char path[] = "/tmp/fanout-order-XXXXXX", *msgs = NULL;
    size_t mlen;
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w"), *err, *out = fopen("/dev/null", "w");
    struct render_opts opts = {.stream = out};
    const char *paths[] = {path};
    struct diag *d;
    char want[512];

    ck_assert_ptr_nonnull(f);
    fputs("steps:\n  - command: x\n    depends_on: nope\n", f);
    for (int i = 0; i < 4000; i++)
        fputs("  - command: x\n", f);
    fclose(f);
    err = open_memstream(&msgs, &mlen);
    d = diag_create(err, DIAG_TEXT);
    ck_assert_int_eq(render_run(paths, 1, &opts, d), 0); /* warnings only */
    diag_destroy(d);
    fclose(err);
    fclose(out);
    snprintf(want, sizeof(want),
             "%s:1:1: warning: this document renders 4001 jobs; Buildkite accepts at most 500 per pipeline "
             "upload [job-limit]\n"
             "fanout: warning: renders 4001 jobs; Buildkite allows at most 4000 per build [job-limit]\n"
             "%s:3:17: warning: depends_on names 'nope', which no rendered step defines (Buildkite fails the "
             "build unless another upload defines it) [dangling-depends-on]\n", path, path);
    ck_assert_str_eq(msgs, want);
    free(msgs);
    unlink(path);
}
END_TEST

/* render_builds says each input's build by its first input (a walked a.yml uploads
 * c.yml: one build; b.yml its own; named files: one build, all 0), and a run handed
 * those builds (opts.builds) keeps keys unique per build as they say, without finding
 * them again. */
static void ignore_begin(void *user, const struct dialect *dialect)
{
    (void)user;
    (void)dialect;
}

/* render_run's exit code for `paths`' checks (the findings are the test's own). */
static int render_builds_run(const char *const *paths, const struct render_opts *opts)
{
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct render_sink sink = {.begin = ignore_begin};
    struct render_opts o = *opts;
    int rc;

    ck_assert_ptr_nonnull(d);
    o.sink = &sink;
    rc = render_run(paths, 3, &o, d);
    diag_destroy(d);
    return rc;
}

START_TEST(render_builds_by_first_input)
{
    char dir[] = "/tmp/fanout-builds-XXXXXX", p[3][64];
    static const char *const texts[] = {"steps:\n  - key: x\n    command: buildkite-agent pipeline upload c.yml\n",
                                        "steps:\n  - key: x\n    command: b\n", "steps:\n  - key: y\n    command: c\n"};
    const char *paths[3] = {p[0], p[1], p[2]};
    struct strset *walked = strset_create();
    struct render_opts opts = {.checks_only = true};
    unsigned *first;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int i = 0; i < 3; i++) {
        FILE *f;

        snprintf(p[i], sizeof(p[i]), "%s/%c.yml", dir, 'a' + i);
        ck_assert_ptr_nonnull(f = fopen(p[i], "w"));
        fputs(texts[i], f);
        fclose(f);
    }
    /* named: one build, where key x twice is an error; handed builds apart, it is not */
    ck_assert_ptr_nonnull(first = render_builds(paths, 3, &opts));
    ck_assert_uint_eq(first[0] + first[1] + first[2], 0);
    free(first);
    ck_assert_int_eq(render_builds_run(paths, &opts), 1);
    opts.builds = (const unsigned[]){0, 1, 0};
    ck_assert_int_eq(render_builds_run(paths, &opts), 0);
    opts.builds = NULL;
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(strset_add(walked, p[i], strlen(p[i])), 0);
    opts.walked = walked;
    ck_assert_ptr_nonnull(first = render_builds(paths, 3, &opts));
    ck_assert_uint_eq(first[0], 0);
    ck_assert_uint_eq(first[1], 1);
    ck_assert_uint_eq(first[2], 0);
    free(first);
    /* one walked file: one build */
    ck_assert_ptr_nonnull(first = render_builds(paths, 1, &opts));
    ck_assert_uint_eq(first[0], 0);
    free(first);
    strset_destroy(walked);
    for (int i = 0; i < 3; i++)
        unlink(p[i]);
    rmdir(dir);
}
END_TEST

/* The rendering of `n` workflows (texts) in one run, and as each alone, joined. */
static void render_workflows(const char *const *texts, size_t n, char **together, char **apart,
                             struct render_stats *stats)
{
    char dir[] = "/tmp/fanout-repass-XXXXXX", paths[4][64];
    const char *argv[4];
    size_t len;
    FILE *out, *f;
    struct diag *d = diag_create(stderr, DIAG_TEXT);

    ck_assert_uint_le(n, 4);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (size_t i = 0; i < n; i++) {
        snprintf(paths[i], sizeof(paths[i]), "%s/w%zu.yml", dir, i);
        argv[i] = paths[i];
        ck_assert_ptr_nonnull(f = fopen(paths[i], "w"));
        fputs(texts[i], f);
        fclose(f);
    }
    ck_assert_ptr_nonnull(out = open_memstream(together, &len));
    ck_assert_int_eq(render_run(argv, n, &(struct render_opts){.stream = out, .stats = stats}, d), 0);
    fclose(out);
    ck_assert_ptr_nonnull(out = open_memstream(apart, &len));
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs("---\n", out);
        ck_assert_int_eq(render_run(&argv[i], 1, &(struct render_opts){.stream = out}, d), 0);
        unlink(paths[i]);
    }
    fclose(out);
    diag_destroy(d);
    rmdir(dir);
}

/* Pass 2 reads again only the workflow whose reference named a later matrix job: the
 * others' text is pass 1's (their references passed over: the earlier workflow's `b` has
 * three jobs, the later's two), and the whole is what each renders to alone. */
START_TEST(render_pass_two_reads_only_the_wrong_files)
{
    static const char plain[] = "on: push\njobs:\n  a: {runs-on: x, steps: [{run: a}]}\n",
                      later[] = "on: push\njobs:\n  t:\n    needs: b\n    runs-on: x\n    steps: [{run: t}]\n"
                                "  b:\n    strategy: {matrix: {os: [p, q]}}\n    runs-on: ${{ matrix.os }}\n"
                                "    steps: [{run: b}]\n",
                      earlier[] = "on: push\njobs:\n  b:\n    strategy: {matrix: {os: [p, q, r]}}\n    runs-on: x\n"
                                  "    steps: [{run: b}]\n  t: {needs: b, runs-on: x, steps: [{run: t}]}\n";
    const char *texts[] = {plain, earlier, later, plain};
    struct render_stats stats = {0};
    char *together, *apart;

    render_workflows(texts, 4, &together, &apart, &stats);
    ck_assert_uint_eq(stats.passes, 2);
    ck_assert_uint_eq(stats.reread, 1);
    ck_assert_str_eq(together, apart);
    ck_assert_ptr_nonnull(strstr(together, "- b-1"));
    free(together);
    free(apart);
}
END_TEST

/* Out of memory in pass 1 gives up its one pass (its text is dropped, the sink reset),
 * and a temporary file that cannot be made then leaves no spool: pass 1 must go on
 * without writing down where each file's text starts in it (a crash before). Each
 * allocation of the map of sharded keys' first size (a generation's first key buffer)
 * fails in turn, with no temporary file after the first. */
START_TEST(render_gives_up_one_pass_without_a_spool)
{
    static const char later[] = "on: push\njobs:\n  t: {needs: b, runs-on: x, steps: [{run: t}]}\n"
                                "  b: {strategy: {matrix: {os: [p, q]}}, runs-on: x, steps: [{run: b}]}\n";
    char dir[] = "/tmp/fanout-giveup-XXXXXX", paths[3][64];
    const char *argv[3];
    FILE *f, *sink = fopen("/dev/null", "w");
    struct diag *d = diag_create(sink, DIAG_TEXT);
    bool failed_one = true;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int i = 0; i < 3; i++) {
        snprintf(paths[i], sizeof(paths[i]), "%s/w%d.yml", dir, i);
        argv[i] = paths[i];
        ck_assert_ptr_nonnull(f = fopen(paths[i], "w"));
        fputs(later, f);
        fclose(f);
    }
    unit_alloc_size = 4096;
    for (long k = 0; failed_one && k < 100000; k++) {
        unit_alloc_countdown = k;
        unit_tmpfiles_left = 1;
        render_run(argv, 3, &(struct render_opts){.stream = sink}, d);
        failed_one = unit_alloc_countdown < 0; /* else the run had no k-th allocation */
    }
    unit_alloc_countdown = -1;
    unit_alloc_size = 0;
    unit_tmpfiles_left = -1;
    ck_assert(!failed_one);
    for (int i = 0; i < 3; i++)
        unlink(paths[i]);
    rmdir(dir);
    diag_destroy(d);
    fclose(sink);
}
END_TEST

Suite *render_suite(void)
{
    Suite *s = suite_create("render");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, a_called_workflow_rewritten_between_reads);
    tcase_add_test(tc, job_rules_before_key_problems);
    tcase_add_test(tc, render_builds_by_first_input);
    tcase_add_test(tc, render_pass_two_reads_only_the_wrong_files);
    tcase_add_test(tc, render_gives_up_one_pass_without_a_spool);
    suite_add_tcase(s, tc);
    return s;
}
