/* gha: the GitHub dialect's entries on one job at a time: its contexts substituted
 * (matrix, strategy, the run's inputs) and its steps' `if:` folded; `needs` read,
 * visited and rewritten; a call of a reusable workflow among the inputs bound to its
 * inputs and inlined; what the job's expressions read checked against what the
 * contexts hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/dialect.h"
#include "fanout/source.h"
#include "dialect/gha/gha_internal.h"
#include "unit.h"

static int no_usage(const char *what, const char *arg)
{
    ck_abort_msg("usage error: %s %s", what, arg ? arg : "");
    return DIAG_INPUT;
}

static const struct dialect_option_io io = {no_usage, DIAG_TEXT};

/* A run of the dialect over one job of w/caller.yml, w/called.yml being the other
 * input (a called workflow) when given. */
struct run {
    struct dialect_options *options;
    struct source *sources[2];
    const char *files[2];
    struct dialect_ctx ctx;
    struct ynode_doc *doc;
    FILE *err;
    char *messages;
    size_t messages_len;
    int rc;
};

/* Expands the job of `caller` (a one-pair mapping), with `input` (NAME=VALUE, or NULL)
 * known as --input gives it; `on` (YAML of the workflow's `on` pair, or NULL) read
 * before it as the reader shows it. */
static void expand_on(struct run *r, const char *caller, const char *called, const char *input, const char *on)
{
    memset(r, 0, sizeof(*r));
    r->err = open_memstream(&r->messages, &r->messages_len);
    r->options = dialect_options_create();
    if (input)
        ck_assert_int_eq(dialect_options_parse(r->options, dialect_option_find("input"), input, 0, &io), 0);
    r->files[0] = "w/caller.yml";
    r->files[1] = "w/called.yml";
    r->ctx.diag = diag_create(r->err, DIAG_TEXT);
    r->sources[0] = source_open_text(r->files[0], caller, strlen(caller), r->ctx.diag);
    if (called)
        r->sources[1] = source_open_text(r->files[1], called, strlen(called), r->ctx.diag);
    r->ctx.files = r->files;
    r->ctx.n_files = called ? 2 : 1;
    r->ctx.options = r->options;
    r->ctx.state = dialect_gha.state_create(r->options);
    r->ctx.sources = r->sources;
    if (on) {
        struct stream_item pair = {.kind = STREAM_PAIR, .doc = doc_from(on)};

        ck_assert_int_eq(gha_declared_item(r->ctx.state, &pair), 0);
        ynode_doc_destroy(pair.doc);
    }
    r->doc = doc_from(caller);
    r->rc = dialect_gha.expand(&r->ctx, r->doc, ynode_doc_root(r->doc));
    fflush(r->err);
}

static void expand(struct run *r, const char *caller, const char *called, const char *input)
{
    expand_on(r, caller, called, input, NULL);
}

static void run_free(struct run *r)
{
    ynode_doc_destroy(r->doc);
    dialect_gha.state_destroy(r->ctx.state);
    source_close(r->sources[0]);
    source_close(r->sources[1]);
    diag_destroy(r->ctx.diag);
    fclose(r->err);
    free(r->messages);
    dialect_options_destroy(r->options);
}

/* The node at `path` ("key.0.key": keys of mappings, indexes of sequences). */
static const struct ynode *at(const struct ynode *n, const char *path)
{
    char buf[256], *save = NULL;

    snprintf(buf, sizeof(buf), "%s", path);
    for (char *p = strtok_r(buf, ".", &save); n && p; p = strtok_r(NULL, ".", &save))
        n = ynode_is_seq(n) ? ynode_item(n, (size_t)atoi(p)) : ynode_get(n, p);
    return n;
}

static const char *text_at(const struct ynode *n, const char *path)
{
    const char *t = ynode_scalar(at(n, path), NULL);

    return t ? t : "(none)";
}

static const char matrix_job[] =
    "t:\n"
    "  name: build ${{ matrix.os }}\n"
    "  runs-on: ${{ matrix.os }}\n"
    "  strategy:\n"
    "    matrix:\n"
    "      os: [linux, mac]\n"
    "  env:\n"
    "    INDEX: ${{ strategy.job-index }}/${{ strategy.job-total }}\n"
    "    FAST: ${{ strategy.fail-fast }}\n"
    "    IN: ${{ inputs.x }}\n"
    "  steps:\n"
    "    - run: echo linux\n"
    "      if: matrix.os == 'linux'\n"
    "    - run: echo ${{ github.sha }}\n"
    "      if: ${{ inputs.x == 'y' && github.event_name == 'push' }}\n";

/* Each configuration has its matrix, its strategy and the run's inputs substituted; what
 * stays unknown (github) stays an expression. */
START_TEST(substitutes_contexts)
{
    struct run r;
    const struct ynode *items;

    expand(&r, matrix_job, NULL, "x=y");
    ck_assert_msg(r.rc == 0, "%s", r.messages);
    items = ynode_doc_root(r.doc);
    ck_assert_int_eq(ynode_len(items), 2);
    ck_assert_str_eq(ynode_scalar(ynode_key(items, 0), NULL), "t-0");
    ck_assert_str_eq(ynode_scalar(ynode_key(items, 1), NULL), "t-1");
    /* (a name GitHub would extend with the row's values is written as an expression) */
    ck_assert_str_eq(text_at(items, "t-0.name"), "${{ format('build linux') }}");
    ck_assert_str_eq(text_at(items, "t-1.runs-on"), "mac");
    ck_assert_str_eq(text_at(items, "t-0.env.INDEX"), "0/2");
    ck_assert_str_eq(text_at(items, "t-1.env.INDEX"), "1/2");
    ck_assert_str_eq(text_at(items, "t-0.env.FAST"), "true");
    ck_assert_str_eq(text_at(items, "t-1.env.IN"), "y");
    ck_assert_str_eq(text_at(items, "t-1.strategy.matrix.include.0.os"), "mac");
    ck_assert_str_eq(text_at(items, "t-0.steps.1.run"), "echo ${{ github.sha }}");
    run_free(&r);
}
END_TEST

/* A rendered job's name is one GitHub displays as it is: GitHub lists the values of its
 * one-row matrix after a literal name (`t (a)` would show as `t (a) (a)`), so such a
 * name is written as ${{ format('...') }} (quotes and braces doubled); a row whose
 * values show nothing (null, '') keeps a plain name; a name that still depends on what
 * is unknown stays the expression GitHub evaluates. */
START_TEST(names_displayed_as_written)
{
    struct run r;
    const struct ynode *items;

    expand(&r, "t:\n  runs-on: x\n  strategy:\n    matrix:\n      v: [\"it's {x}\", '', null]\n"
               "  steps: [{run: x}]\n", NULL, NULL);
    ck_assert_msg(r.rc == 0, "%s", r.messages);
    items = ynode_doc_root(r.doc);
    ck_assert_str_eq(text_at(items, "t-0.name"), "${{ format('t (it''s {{x}})') }}");
    ck_assert_str_eq(text_at(items, "t-1.name"), "t");
    ck_assert_str_eq(text_at(items, "t-2.name"), "t");
    run_free(&r);

    expand(&r, "t:\n  name: ${{ github.ref }} ${{ matrix.v }}\n  runs-on: x\n  strategy:\n"
               "    matrix:\n      v: [a]\n  steps: [{run: x}]\n", NULL, NULL);
    ck_assert_msg(r.rc == 0, "%s", r.messages);
    ck_assert_str_eq(text_at(ynode_doc_root(r.doc), "t-0.name"), "${{ github.ref }} a");
    run_free(&r);

    /* unknown in one configuration (left as it is), a text that reads as ${{ }} in the next */
    expand(&r, "t:\n  name: \"${{ matrix.v == 'a' && github.ref || format('{0}{1}{1} x {2}{2}', '$', '{', '}') }}\"\n"
               "  runs-on: x\n  strategy:\n    matrix:\n      v: [a, b]\n  steps: [{run: x}]\n", NULL, NULL);
    ck_assert_msg(r.rc == 0, "%s", r.messages);
    ck_assert_str_eq(text_at(ynode_doc_root(r.doc), "t-0.name"), "${{ github.ref || '${{ x }}' }}");
    ck_assert_str_eq(text_at(ynode_doc_root(r.doc), "t-1.name"), "${{ format('${{{{ x }}}}') }}");
    run_free(&r);
}
END_TEST

/* A step `if:` that folds to true loses it (the implicit success() says as much); one
 * that folds to false removes the step; one that depends on what is unknown keeps only
 * that part. */
START_TEST(folds_step_if)
{
    struct run r;
    const struct ynode *items;

    expand(&r, matrix_job, NULL, "x=y");
    items = ynode_doc_root(r.doc);
    ck_assert_int_eq(ynode_len(at(items, "t-0.steps")), 2);
    ck_assert_ptr_null(at(items, "t-0.steps.0.if"));
    ck_assert_str_eq(text_at(items, "t-0.steps.1.if"), "github.event_name == 'push'");
    ck_assert_int_eq(ynode_len(at(items, "t-1.steps")), 1);
    ck_assert_str_eq(text_at(items, "t-1.steps.0.run"), "echo ${{ github.sha }}");
    run_free(&r);

    /* inputs.x unknown: both parts stay, the step too */
    expand(&r, matrix_job, NULL, NULL);
    items = ynode_doc_root(r.doc);
    ck_assert_int_eq(ynode_len(at(items, "t-1.steps")), 1);
    ck_assert_str_eq(text_at(items, "t-1.steps.0.if"), "inputs.x == 'y' && github.event_name == 'push'");
    ck_assert_str_eq(text_at(items, "t-1.env.IN"), "${{ inputs.x }}");
    run_free(&r);
}
END_TEST

/* A job's `if:` is evaluated before the matrix exists: naming matrix is an error. */
START_TEST(job_if_without_matrix)
{
    struct run r;

    expand(&r, "t:\n  if: matrix.os == 'linux'\n  strategy: {matrix: {os: [linux]}}\n  runs-on: x\n", NULL, NULL);
    ck_assert_int_eq(r.rc, -1);
    ck_assert_msg(strstr(r.messages, "a job's if: cannot use matrix or strategy"), "%s", r.messages);
    run_free(&r);
}
END_TEST

/* The job of `yaml` expanded: its name at `path` is `want`. */
static void expect_name(const char *yaml, const char *path, const char *want)
{
    struct run r;

    expand(&r, yaml, NULL, NULL);
    ck_assert_msg(r.rc == 0, "%s", r.messages);
    ck_assert_str_eq(text_at(ynode_doc_root(r.doc), path), want);
    run_free(&r);
}

/* A job name is evaluated as GitHub's C# runtime makes a string: numbers in G15. */
START_TEST(job_name_numbers_in_g15)
{
    expect_name("t:\n  name: v ${{ matrix.v }}\n  strategy: {matrix: {v: [1e-7]}}\n  runs-on: x\n", "t-0.name",
                "${{ format('v 1E-07') }}"); /* written so that GitHub shows it as it is */
}
END_TEST

/* EvaluateJobName: an empty name is the default one, the job id with the configuration's
 * values (a single include row's too), the id alone when no configuration is left. */
START_TEST(job_name_empty_is_the_default)
{
    expect_name("t:\n  name: ${{ matrix.x }}\n  strategy: {matrix: {v: [1], exclude: [{v: 1}]}}\n  runs-on: x\n",
                "t.name", "t");
    expect_name("t:\n  name: ${{ matrix.x }}\n  strategy: {matrix: {include: [{v: 1}]}}\n  runs-on: x\n",
                "t.name", "${{ format('t (1)') }}");
}
END_TEST

/* A name that is a mapping fails the job on GitHub: an error where it is written. */
START_TEST(job_name_not_a_string)
{
    struct run r;

    expand(&r, "t:\n  name: ${{ matrix }}\n  strategy: {matrix: {v: [1]}}\n  runs-on: x\n", NULL, NULL);
    ck_assert_int_eq(r.rc, -1);
    ck_assert_str_eq(r.messages, "w/caller.yml:2:9: error: the job's name is a mapping, where GitHub wants a "
                                 "string (it fails the job: A mapping was not expected) [expression]\n");
    run_free(&r);
}
END_TEST

struct visits {
    char text[256];
};

static int visit(void *user, const char *key, size_t len, struct ypos pos)
{
    struct visits *v = user;

    snprintf(v->text + strlen(v->text), sizeof(v->text) - strlen(v->text), "%.*s@%u ", (int)len, key, pos.line);
    return 0;
}

static int edge(void *user, const char *from, size_t flen, const char *to, size_t tlen, struct ypos pos)
{
    struct visits *v = user;

    (void)pos;
    snprintf(v->text + strlen(v->text), sizeof(v->text) - strlen(v->text), "%.*s->%.*s ", (int)flen, from,
             (int)tlen, to);
    return 0;
}

/* "b" became 2 jobs, "call" what the run's state says it became, the rest 1. */
static unsigned shards_of(void *user, const char *key, size_t len)
{
    (void)user;
    if (len == 1 && *key == 'b')
        return 2;
    return len == 4 && !memcmp(key, "call", 4) ? 2 : 0;
}

/* A matrix job's configurations share what substitution leaves as it is (copy on write)
 * and own what changes: the job's mapping, its strategy, its needs (which rewrite
 * changes in place), each step and list a substitution or an if: changes (an if:
 * nothing is known in does not). */
START_TEST(configurations_share_what_stays)
{
    static const char job[] = "t:\n  runs-on: x\n  needs: [b]\n  strategy:\n    matrix:\n      os: [linux, mac]\n"
                              "  env:\n    A: fixed\n  steps:\n    - uses: actions/checkout@v4\n"
                              "    - run: echo ${{ matrix.os }}\n    - run: only linux\n      if: matrix.os == 'linux'\n"
                              "    - run: on a label\n      if: contains(github.event.pull_request.labels.*.name, 'x')\n";
    struct ynode *items;
    struct run r;

    expand(&r, job, NULL, NULL);
    ck_assert_msg(r.rc == 0, "%s", r.messages);
    items = ynode_doc_root(r.doc);
    ck_assert_ptr_eq(at(items, "t-0.steps.0"), at(items, "t-1.steps.0"));
    /* an if: nothing is known in stays as it is, shared (and proven, for the check) */
    ck_assert_ptr_eq(at(items, "t-0.steps.3"), at(items, "t-1.steps.2"));
    ck_assert_ptr_eq(at(items, "t-0.env"), at(items, "t-1.env"));
    ck_assert_ptr_eq(at(items, "t-0.strategy.fail-fast"), at(items, "t-1.strategy.fail-fast"));
    ck_assert_ptr_ne(at(items, "t-0.steps"), at(items, "t-1.steps"));
    ck_assert_ptr_ne(at(items, "t-0.strategy"), at(items, "t-1.strategy"));
    ck_assert_ptr_ne(at(items, "t-0.needs"), at(items, "t-1.needs"));
    ck_assert_str_eq(text_at(items, "t-0.steps.1.run"), "echo linux");
    ck_assert_str_eq(text_at(items, "t-1.steps.1.run"), "echo mac");
    ck_assert_int_eq(ynode_len(at(items, "t-0.steps")), 4);
    ck_assert_ptr_null(at(items, "t-0.steps.2.if"));
    ck_assert_int_eq(ynode_len(at(items, "t-1.steps")), 3);
    ck_assert_int_eq(dialect_gha.normalize(r.doc, items), 0);
    ck_assert_int_eq(dialect_gha.rewrite(&r.ctx, r.doc, items, shards_of, NULL), 0);
    ck_assert_int_eq(ynode_len(at(items, "t-0.needs")), 2);
    ck_assert_str_eq(text_at(items, "t-1.needs.1"), "b-1");
    run_free(&r);
}
END_TEST

/* Configurations whose values of what a field or step reads are equal share what it
 * became (the first one's node); one that reads strategy, the whole matrix, or values
 * that differ has its own. */
START_TEST(configurations_share_by_what_they_read)
{
    static const char job[] =
        "t:\n  runs-on: ${{ matrix.os }}\n  strategy:\n    matrix:\n      os: [linux, mac]\n      part: [0, 1, 2]\n"
        "  env:\n    OS: ${{ matrix.os }}\n  steps:\n"
        "    - run: echo ${{ matrix.os }}\n"
        "    - run: echo ${{ MATRIX.OS }}\n"
        "    - run: echo ${{ strategy.job-index }}\n"
        "    - run: echo ${{ toJSON(matrix) }}\n"
        "    - run: echo '${{ matrix.part }}'\n"
        "      if: matrix.os != 'mac'\n";
    static const char *const by_os[] = {"runs-on", "env", "steps.0", "steps.1"};
    struct ynode *items;
    struct run r;
    char path[64];

    expand(&r, job, NULL, NULL);
    ck_assert_msg(r.rc == 0, "%s", r.messages);
    items = ynode_doc_root(r.doc);
    ck_assert_int_eq(ynode_len(items), 6);
    for (int a = 0; a < 6; a++) {
        for (int b = a + 1; b < 6; b++) {
            char pa[64], pb[64];
            bool same_os;

            snprintf(pa, sizeof(pa), "t-%d.strategy.matrix.include.0.os", a);
            snprintf(pb, sizeof(pb), "t-%d.strategy.matrix.include.0.os", b);
            same_os = !strcmp(text_at(items, pa), text_at(items, pb));
            for (size_t f = 0; f < sizeof(by_os) / sizeof(*by_os); f++) {
                snprintf(pa, sizeof(pa), "t-%d.%s", a, by_os[f]);
                snprintf(pb, sizeof(pb), "t-%d.%s", b, by_os[f]);
                ck_assert_msg((at(items, pa) == at(items, pb)) == same_os, "%s, %s", pa, pb);
            }
            for (int step = 2; step <= 3; step++) {
                snprintf(pa, sizeof(pa), "t-%d.steps.%d", a, step);
                snprintf(pb, sizeof(pb), "t-%d.steps.%d", b, step);
                ck_assert_ptr_ne(at(items, pa), at(items, pb));
            }
        }
    }
    for (int c = 0; c < 6; c++) {
        char steps[32];
        bool mac;

        snprintf(path, sizeof(path), "t-%d.strategy.matrix.include.0.os", c);
        mac = !strcmp(text_at(items, path), "mac");
        snprintf(steps, sizeof(steps), "t-%d.steps", c);
        ck_assert_int_eq(ynode_len(at(items, steps)), mac ? 4 : 5);
        snprintf(path, sizeof(path), "t-%d.steps.2.run", c);
        ck_assert_int_eq(atoi(text_at(items, path) + 5), c);
    }
    run_free(&r);
}
END_TEST

/* `needs: x` is read as `needs: [x]`; each need is visited in order, as a reference and
 * as an edge (a job that needs itself is a cycle of its own); a need of a job that
 * became several names them all. */
START_TEST(needs_read_and_rewritten)
{
    struct ynode_doc *doc = doc_from("a: {needs: b}\nc:\n  needs: [a, b]\n");
    struct ynode *items = ynode_doc_root(doc);
    struct dialect_ctx ctx = {0};
    struct visits v = {""};
    bool cycle = false;

    ck_assert_int_eq(dialect_gha.normalize(doc, items), 0);
    ck_assert(ynode_is_seq(at(items, "a.needs")));
    ck_assert_int_eq(dialect_gha.references(items, NULL, NULL, visit, &v), 0);
    ck_assert_str_eq(v.text, "b@1 a@3 b@3 ");
    v.text[0] = '\0';
    ck_assert_int_eq(dialect_gha.edges(items, edge, &v, &cycle), 0);
    ck_assert_str_eq(v.text, "a->b c->a c->b ");
    ck_assert(!cycle);
    ck_assert_int_eq(dialect_gha.rewrite(&ctx, doc, items, shards_of, NULL), 0);
    ck_assert_int_eq(ynode_len(at(items, "c.needs")), 3);
    ck_assert_str_eq(text_at(items, "c.needs.0"), "a");
    ck_assert_str_eq(text_at(items, "c.needs.1"), "b-0");
    ck_assert_str_eq(text_at(items, "c.needs.2"), "b-1");
    ynode_doc_destroy(doc);

    doc = doc_from("d: {needs: [d]}\n");
    ck_assert_int_eq(dialect_gha.edges(ynode_doc_root(doc), edge, &v, &cycle), 0);
    ck_assert(cycle);
    ynode_doc_destroy(doc);
}
END_TEST

/* A need that is no job id is an error where references are read. */
START_TEST(needs_entry_not_an_id)
{
    struct ynode_doc *doc = doc_from("a:\n  needs: [{x: 1}]\n");
    const char *files[] = {"w.yml"};
    char *text = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&text, &len);
    struct diag *d = diag_create(err, DIAG_TEXT);
    struct visits v = {""};

    ck_assert_int_eq(dialect_gha.references(ynode_doc_root(doc), d, files, visit, &v), -1);
    diag_destroy(d);
    fclose(err);
    ck_assert_msg(strstr(text, "w.yml:2:") && strstr(text, "needs entries must be job ids"), "%s", text);
    free(text);
    ynode_doc_destroy(doc);
}
END_TEST

static const char called[] =
    "on:\n"
    "  workflow_call:\n"
    "    inputs:\n"
    "      runner: {type: string, required: true}\n"
    "      n: {type: number, default: 3}\n"
    "      flag: {type: boolean, default: false}\n"
    "jobs:\n"
    "  build:\n"
    "    runs-on: ${{ inputs.runner }}\n"
    "    steps:\n"
    "      - run: echo flagged\n"
    "        if: inputs.flag\n"
    "      - run: echo ${{ inputs.n }} ${{ inputs.runner }}\n"
    "  test:\n"
    "    needs: build\n"
    "    runs-on: linux\n";

/* A call's `with` and the callee's defaults are its jobs' `inputs`; its jobs become the
 * caller's (`<caller>-<job>`, after the caller's needs), and a need of the caller names
 * them all. */
START_TEST(call_binds_inputs)
{
    struct run r;
    const struct ynode *items;
    struct ynode_doc *later;

    expand(&r, "call:\n  uses: ./.github/workflows/called.yml\n  needs: setup\n  with:\n    runner: ubuntu\n",
           called, NULL);
    ck_assert_msg(r.rc == 0, "%s", r.messages);
    items = ynode_doc_root(r.doc);
    ck_assert_int_eq(ynode_len(items), 2);
    ck_assert_str_eq(ynode_scalar(ynode_key(items, 0), NULL), "call-build");
    ck_assert_str_eq(text_at(items, "call-build.name"), "call / build");
    ck_assert_str_eq(text_at(items, "call-build.runs-on"), "ubuntu");
    ck_assert_int_eq(ynode_len(at(items, "call-build.steps")), 1);
    ck_assert_str_eq(text_at(items, "call-build.steps.0.run"), "echo 3 ubuntu");
    ck_assert_str_eq(text_at(items, "call-build.needs.0"), "setup");
    ck_assert_str_eq(text_at(items, "call-test.needs.0"), "setup");
    ck_assert_str_eq(text_at(items, "call-test.needs.1"), "call-build");

    later = doc_from("after:\n  needs: [call]\n");
    ck_assert_int_eq(dialect_gha.rewrite(&r.ctx, later, ynode_doc_root(later), shards_of, NULL), 0);
    ck_assert_str_eq(text_at(ynode_doc_root(later), "after.needs.0"), "call-build");
    ck_assert_str_eq(text_at(ynode_doc_root(later), "after.needs.1"), "call-test");
    ynode_doc_destroy(later);
    run_free(&r);
}
END_TEST

/* Inputs are checked against the callee's declarations: a required one missing, one of
 * the wrong type, one it does not declare. */
START_TEST(call_checks_inputs)
{
    struct run r;

    expand(&r, "call:\n  uses: ./.github/workflows/called.yml\n  with:\n    n: many\n    extra: 1\n", called, NULL);
    ck_assert_int_eq(r.rc, -1);
    ck_assert_msg(strstr(r.messages, "input 'extra' is not defined in ./.github/workflows/called.yml") &&
                      strstr(r.messages, "missing required input 'runner' of ./.github/workflows/called.yml") &&
                      strstr(r.messages, "input 'n' of ./.github/workflows/called.yml must be a number"),
                  "%s", r.messages);
    run_free(&r);

    /* an input only known at run time: the call is kept as written, with a note */
    expand(&r, "call:\n  uses: ./.github/workflows/called.yml\n  with:\n    runner: ${{ github.ref }}\n",
           called, NULL);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_ptr_nonnull(at(ynode_doc_root(r.doc), "call.uses"));
    ck_assert_msg(strstr(r.messages, "not inlined: an input of ./.github/workflows/called.yml depends on "
                                     "run-time values"), "%s", r.messages);
    run_free(&r);
}
END_TEST

/* ---- references ---- */

/* Whether the run said `text`. */
static bool said(const struct run *r, const char *text)
{
    return strstr(r->messages, text) != NULL;
}

static const char matrix_refs[] =
    "t:\n"
    "  runs-on: linux\n"
    "  strategy:\n"
    "    matrix:\n"
    "      python: ['3.11', '3.12']\n"
    "      include:\n"
    "        - {python: '3.12', coverage: true}\n"
    "  steps:\n"
    "    - run: ${{ matrix.pyhton }} ${{ matrix.PYTHON }} ${{ matrix['coverage'] }}\n";

/* matrix.X against the configurations: a key none has is a warning with the closest one,
 * a key some have a note; a job without a matrix has none; a matrix from an expression
 * says nothing; matrix in the job's if: is matrix-context's. */
START_TEST(references_matrix)
{
    struct run r;

    expand(&r, matrix_refs, NULL, NULL);
    ck_assert_msg(r.rc == 0, "%s", r.messages);
    ck_assert_msg(said(&r, "w/caller.yml:9:16: warning: matrix.pyhton: no configuration of job 't' defines "
                           "'pyhton' (GitHub reads it as null), did you mean 'python'? [unknown-reference]") &&
                      said(&r, "w/caller.yml:9:58: note: matrix.coverage: 1 of the 2 configurations of job 't' "
                               "define it") && !said(&r, "PYTHON"),
                  "%s", r.messages);
    run_free(&r);

    expand(&r, "t:\n  runs-on: ${{ matrix.os }}\n  steps: [{run: echo}]\n", NULL, NULL);
    ck_assert_msg(said(&r, "matrix.os: job 't' has no matrix"), "%s", r.messages);
    run_free(&r);

    expand(&r, "t:\n  strategy: {matrix: {a: [1], include: '${{ fromJSON(vars.x) }}'}}\n"
               "  steps: [{run: '${{ matrix.b }}'}]\n", NULL, NULL);
    ck_assert_msg(!said(&r, "unknown-reference"), "%s", r.messages);
    run_free(&r);

    /* every combination excluded: the job runs once with matrix null, nothing to type */
    expand(&r, "t:\n  strategy: {matrix: {a: [1], exclude: [{a: 1}]}}\n  steps: [{run: '${{ matrix.a }}'}]\n",
           NULL, NULL);
    ck_assert_msg(!said(&r, "unknown-reference"), "%s", r.messages);
    run_free(&r);
}
END_TEST

/* inputs.X against the inputs `on` declares (both events'), once `on` is read, in its
 * own file; none without workflow_call or workflow_dispatch; github.event.inputs.X
 * against workflow_dispatch's in a workflow that is not called. */
START_TEST(references_inputs)
{
    static const char job[] = "t:\n  steps:\n    - run: ${{ inputs.Ref }} ${{ inputs.refs }} "
                              "${{ github.event.inputs.mode }}\n";
    struct run r;

    expand_on(&r, job, NULL, NULL,
              "on:\n  workflow_call:\n    inputs: {ref: {type: string}}\n  workflow_dispatch:\n"
              "    inputs: {modes: {type: string}}\n");
    ck_assert_msg(said(&r, "inputs.refs: the workflow declares no input 'refs' (GitHub reads it as null), did "
                           "you mean 'ref'?") && !said(&r, "inputs.Ref") && !said(&r, "github.event"),
                  "%s", r.messages);
    run_free(&r);

    expand_on(&r, job, NULL, NULL, "on:\n  workflow_dispatch:\n    inputs: {modes: {type: string}}\n");
    ck_assert_msg(said(&r, "github.event.inputs.mode: workflow_dispatch declares no input 'mode' (GitHub reads "
                           "it as null), did you mean 'modes'?"), "%s", r.messages);
    run_free(&r);

    expand_on(&r, job, NULL, NULL, "on: [push, pull_request]\n");
    ck_assert_msg(said(&r, "inputs.Ref: the workflow has no workflow_call or workflow_dispatch event"),
                  "%s", r.messages);
    run_free(&r);

    /* `on` not read before the job, or inputs that are no mapping of names: not known */
    expand(&r, job, NULL, NULL);
    ck_assert_msg(!said(&r, "unknown-reference"), "%s", r.messages);
    run_free(&r);
    expand_on(&r, job, NULL, NULL, "on:\n  workflow_call:\n    inputs: [ref]\n");
    ck_assert_msg(!said(&r, "unknown-reference"), "%s", r.messages);
    run_free(&r);
}
END_TEST

/* needs.X against the job's own needs; steps.X against the earlier steps' ids (a later
 * step's is said so), all of them in the job's outputs; a step id that is an expression
 * might be any. */
START_TEST(references_needs_steps)
{
    struct run r;

    expand(&r,
           "t:\n  needs: build\n  if: needs.Build.result == 'success' && needs.biuld.result\n"
           "  outputs: {o: '${{ steps.late.outputs.x }}'}\n"
           "  steps:\n"
           "    - run: ${{ steps.late.outputs.x }}\n"
           "      if: steps.erly.outcome\n"
           "    - {id: late, run: echo}\n",
           NULL, NULL);
    ck_assert_msg(said(&r, "needs.biuld: job 't' does not need 'biuld' (the needs context holds its own needs "
                           "only; GitHub reads it as null), did you mean 'build'?") &&
                      said(&r, "w/caller.yml:6:16: warning: steps.late: step 'late' of job 't' has not run yet") &&
                      said(&r, "steps.erly: no step of job 't' has id 'erly'") && !said(&r, "caller.yml:4:"),
                  "%s", r.messages);
    run_free(&r);

    expand(&r, "t:\n  steps:\n    - {id: '${{ github.job }}', run: echo}\n    - run: ${{ steps.any.outputs.x }}"
               " ${{ needs.x.result }}\n", NULL, NULL);
    ck_assert_msg(!said(&r, "steps.any") && said(&r, "needs.x: job 't' does not need 'x' (it needs no job"),
                  "%s", r.messages);
    run_free(&r);
}
END_TEST

/* A called workflow's jobs are checked in its own file, not again where they are
 * inlined. */
START_TEST(references_not_in_calls)
{
    struct run r;

    expand(&r, "call:\n  uses: ./.github/workflows/called.yml\n  with:\n    runner: ubuntu\n",
           "on:\n  workflow_call:\n    inputs:\n      runner: {type: string}\njobs:\n  build:\n"
           "    runs-on: ${{ inputs.runner }}\n    steps:\n      - run: ${{ matrix.nope }}\n",
           NULL);
    ck_assert_msg(r.rc == 0 && !said(&r, "unknown-reference"), "%s", r.messages);
    run_free(&r);
}
END_TEST

Suite *gha_suite(void)
{
    Suite *s = suite_create("gha");
    TCase *t = tcase_create("core");

    tcase_add_test(t, substitutes_contexts);
    tcase_add_test(t, names_displayed_as_written);
    tcase_add_test(t, folds_step_if);
    tcase_add_test(t, configurations_share_what_stays);
    tcase_add_test(t, configurations_share_by_what_they_read);
    tcase_add_test(t, job_if_without_matrix);
    tcase_add_test(t, job_name_numbers_in_g15);
    tcase_add_test(t, job_name_empty_is_the_default);
    tcase_add_test(t, job_name_not_a_string);
    tcase_add_test(t, needs_read_and_rewritten);
    tcase_add_test(t, needs_entry_not_an_id);
    tcase_add_test(t, call_binds_inputs);
    tcase_add_test(t, call_checks_inputs);
    tcase_add_test(t, references_matrix);
    tcase_add_test(t, references_inputs);
    tcase_add_test(t, references_needs_steps);
    tcase_add_test(t, references_not_in_calls);
    suite_add_tcase(s, t);
    return s;
}
