#define _GNU_SOURCE /* asprintf */
/* gha, what runs for a change: the trigger decision of on.<event> filters (a table of
 * GitHub's documented cases), a dorny/paths-filter step's filters read into outputs,
 * and jobs decided in order (needs outputs, if:, needs of a job left out). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/change.h"
#include "fanout/dialect.h"
#include "fanout/source.h"
#include "dialect/gha/gha_internal.h"
#include "unit.h"

/* on (YAML), event, github.ref, github.base_ref, changed files; the reason expected
 * (a part of it), or NULL when the workflow runs; github.event.action, if given. */
struct trigger_row {
    const char *on, *event, *ref, *base, *files, *why, *action;
};

static const struct trigger_row trigger_rows[] = {
    /* on: names the event, or not */
    {"push", "push", NULL, NULL, "a", NULL, NULL},
    {"[push, pull_request]", "pull_request", NULL, NULL, "a", NULL, NULL},
    {"[push]", "pull_request", NULL, NULL, "a", "does not name pull_request", NULL},
    {"{workflow_dispatch: {}}", "schedule", NULL, NULL, "a", "does not name schedule", NULL},
    {"{push: null}", "push", "refs/heads/x", NULL, "a", NULL, NULL},
    /* on.push.branches / branches-ignore, the order rule */
    {"{push: {branches: [main]}}", "push", "refs/heads/main", NULL, "a", NULL, NULL},
    {"{push: {branches: [main]}}", "push", "refs/heads/dev", NULL, "a", "includes no branch 'dev'", NULL},
    {"{push: {branches: ['releases/**', '!releases/**-alpha']}}", "push", "refs/heads/releases/10", NULL, "a", NULL, NULL},
    {"{push: {branches: ['releases/**', '!releases/**-alpha']}}", "push", "refs/heads/releases/10-alpha", NULL, "a",
     "includes no branch", NULL},
    {"{push: {branches-ignore: ['mona/octocat', 'releases/**-alpha']}}", "push", "refs/heads/mona/octocat", NULL,
     "a", "ignores branch 'mona/octocat'", NULL},
    {"{push: {branches-ignore: ['mona/octocat']}}", "push", "refs/heads/main", NULL, "a", NULL, NULL},
    {"{push: {branches: [main]}}", "push", NULL, NULL, "a", NULL, NULL}, /* no ref: not told */
    /* tags, and a push of the other kind of ref */
    {"{push: {tags: ['v2', 'v1.*']}}", "push", "refs/tags/v1.9", NULL, "a", NULL, NULL},
    {"{push: {tags: ['v2', 'v1.*']}}", "push", "refs/tags/v3", NULL, "a", "includes no tag 'v3'", NULL},
    {"{push: {tags-ignore: ['v1.*']}}", "push", "refs/tags/v1.0", NULL, "a", "ignores tag 'v1.0'", NULL},
    {"{push: {branches: [main]}}", "push", "refs/tags/v1", NULL, "a", "filters only branches", NULL},
    {"{push: {tags: [v1]}}", "push", "refs/heads/main", NULL, "a", "filters only tags", NULL},
    {"{push: {branches: [main], tags: [v1]}}", "push", "refs/tags/v1", NULL, "a", NULL, NULL},
    {"{push: {paths: ['docs/**']}}", "push", "refs/tags/v1", NULL, "src/a", NULL, NULL}, /* tags skip paths */
    /* paths / paths-ignore */
    {"{push: {paths: ['**.js']}}", "push", "refs/heads/main", NULL, "app/a.js", NULL, NULL},
    {"{push: {paths: ['**.js']}}", "push", "refs/heads/main", NULL, "app/a.ts", "no changed file matches on.push.paths", NULL},
    {"{push: {paths: ['sub-project/**', '!sub-project/docs/**']}}", "push", NULL, NULL, "sub-project/docs/a.md",
     "no changed file matches", NULL},
    {"{push: {paths: ['sub-project/**', '!sub-project/docs/**']}}", "push", NULL, NULL,
     "sub-project/docs/a.md\nsub-project/a.c\n", NULL, NULL},
    {"{push: {paths-ignore: ['docs/**']}}", "push", NULL, NULL, "docs/a.md\ndocs/b/c.md\n", "every changed file", NULL},
    {"{push: {paths-ignore: ['docs/**']}}", "push", NULL, NULL, "docs/a.md\nsrc/a.c\n", NULL, NULL},
    {"{push: {branches: [main], paths: ['src/**']}}", "push", "refs/heads/main", NULL, "docs/a", "on.push.paths", NULL},
    {"{push: {branches: [main], paths: ['src/**']}}", "push", "refs/heads/dev", NULL, "src/a", "branch 'dev'", NULL},
    /* pull_request: the base branch */
    {"{pull_request: {branches: [main]}}", "pull_request", "refs/pull/1/merge", "main", "a", NULL, NULL},
    {"{pull_request: {branches: [main]}}", "pull_request", "refs/pull/1/merge", "dev", "a", "branch 'dev'", NULL},
    {"{pull_request: {branches: [main]}}", "pull_request", "refs/heads/dev", NULL, "a", "branch 'dev'", NULL},
    {"{pull_request: {branches: [main]}}", "pull_request", "refs/pull/1/merge", NULL, "a", NULL, NULL},
    {"{pull_request_target: {paths: ['src/**']}}", "pull_request_target", NULL, NULL, "docs/a",
     "on.pull_request_target.paths", NULL},
    {"{pull_request: {tags: [v1]}}", "pull_request", "refs/heads/main", NULL, "a", NULL, NULL},
    /* a pattern GitHub refuses decides nothing */
    {"{push: {branches: ['[']}}", "push", "refs/heads/main", NULL, "a", NULL, NULL},
    /* other events have no such filters */
    {"{workflow_run: {branches: [main]}}", "workflow_run", "refs/heads/dev", NULL, "a", NULL, NULL},
    /* on.<event>.types against the activity type; pull_request's default three */
    {"{pull_request: {types: [labeled, opened]}}", "pull_request", NULL, NULL, "a", NULL, "labeled"},
    {"{pull_request: {types: [labeled, opened]}}", "pull_request", NULL, NULL, "a", "does not name activity type 'synchronize'",
     "synchronize"},
    {"{pull_request: {types: labeled}}", "pull_request", NULL, NULL, "a", NULL, "labeled"},
    {"pull_request", "pull_request", NULL, NULL, "a", NULL, "synchronize"},
    {"pull_request", "pull_request", NULL, NULL, "a", NULL, "reopened"},
    {"pull_request", "pull_request", NULL, NULL, "a", "only for opened, synchronize and reopened", "labeled"},
    {"{pull_request_target: {branches: [main]}}", "pull_request_target", NULL, "main", "a", "not 'closed'", "closed"},
    {"{issues: {types: [opened]}}", "issues", NULL, NULL, "a", "does not name activity type 'edited'", "edited"},
    {"issues", "issues", NULL, NULL, "a", NULL, "edited"}, /* other events: every type by default */
    {"{release: {types: [published]}}", "release", NULL, NULL, "a", NULL, "published"},
    {"{pull_request: {types: [opened]}}", "pull_request", NULL, NULL, "a", NULL, NULL}, /* no action: not told */
};

START_TEST(trigger_decision)
{
    const struct trigger_row *row = &trigger_rows[_i];
    char yaml[512], buf[512], files[256];
    struct ynode_doc *doc;
    struct change *c;
    struct gha_event ev = {row->event, row->ref, row->base, row->action};
    const char *why;

    snprintf(yaml, sizeof(yaml), "on: %s\n", row->on);
    snprintf(files, sizeof(files), "%s%s", row->files, strchr(row->files, '\n') ? "" : "\n");
    doc = doc_from(yaml);
    c = change_of(files);
    why = gha_trigger_not_run(ynode_get(ynode_doc_root(doc), "on"), &ev, c, buf, sizeof(buf));
    if (!row->why)
        ck_assert_msg(!why, "row %d: %s", _i, why);
    else
        ck_assert_msg(why && strstr(why, row->why), "row %d: %s", _i, why ? why : "(runs)");
    change_destroy(c);
    ynode_doc_destroy(doc);
}
END_TEST

/* The outputs of a paths-filter step (YAML of the step) for `files`, as JSON, or
 * "unknown: WHY". */
static char *filter_outputs(const char *step, const char *files)
{
    struct ynode_doc *doc = doc_from(step);
    struct change *c = change_of(files);
    struct expr_value *out;
    const char *why;
    int rc = gha_paths_filter(ynode_doc_root(doc), c, &out, &why);
    char *s = NULL;

    ck_assert_int_ge(rc, 0);
    if (rc == 1) {
        s = expr_to_json(out);
        expr_unref(out);
    } else {
        ck_assert_int_ge(asprintf(&s, "unknown: %s", why), 0);
    }
    change_destroy(c);
    ynode_doc_destroy(doc);
    return s;
}

/* What the JSON of the outputs holds, on one line. */
static void squeeze(char *s)
{
    char *o = s;

    for (char *p = s; *p; p++) {
        if (*p != '\n' && !(*p == ' ' && (p[1] == ' ' || p[-1] == '\n' || p[-1] == ' ')))
            *o++ = *p;
    }
    *o = '\0';
}

START_TEST(paths_filter_outputs)
{
    static const struct {
        const char *step, *files, *want;
    } rows[] = {
        {"uses: dorny/paths-filter@v3\nwith:\n  filters: |\n    a: 'src/**'\n    b:\n      - 'docs/**'\n      - '*.md'\n",
         "src/x.c\nREADME.md\n",
         "{\"a\": \"true\",\"a_count\": \"1\",\"b\": \"true\",\"b_count\": \"1\",\"changes\": \"[\\\"a\\\",\\\"b\\\"]\"}"},
        /* anchors and aliases (a list in a list, flattened); dot files match */
        {"with:\n  filters: |\n    s: &s\n      - '**/*.c'\n    t:\n      - *s\n      - 'x/**'\n",
         ".hidden/a.c\n",
         "{\"s\": \"true\",\"s_count\": \"1\",\"t\": \"true\",\"t_count\": \"1\",\"changes\": \"[\\\"s\\\",\\\"t\\\"]\"}"},
        /* change types: a listed file is added or modified, never deleted */
        {"with:\n  filters: |\n    d:\n      - deleted: '**'\n    m:\n      - 'Added | MODIFIED': ['a/**', 'b/**']\n",
         "b/x\n", "{\"d\": \"false\",\"d_count\": \"0\",\"m\": \"true\",\"m_count\": \"1\",\"changes\": \"[\\\"m\\\"]\"}"},
        /* predicate-quantifier: every */
        {"with:\n  predicate-quantifier: every\n  filters: |\n    code:\n      - '**'\n      - '!**/*.md'\n",
         "a.md\n", "{\"code\": \"false\",\"code_count\": \"0\",\"changes\": \"[]\"}"},
        /* a filter named `changes` takes the name */
        {"with:\n  filters: |\n    changes: 'x'\n", "x\n", "{\"changes\": \"true\",\"changes_count\": \"1\"}"},
        /* list-files: the file lists are not written out here */
        {"with:\n  list-files: csv\n  filters: |\n    a: 'x'\n", "y\n",
         "{\"a\": \"false\",\"a_count\": \"0\",\"a_files\": null,\"changes\": \"[]\"}"},
        {"with:\n  filters: .github/filters.yml\n", "x\n", "unknown: its filters are read from a file in the repository"},
        {"with:\n  filters: ${{ inputs.f }}\n", "x\n", "unknown: its filters are not known here"},
        {"with:\n  predicate-quantifier: all\n  filters: 'a: x'\n", "x\n",
         "unknown: its predicate-quantifier is neither some nor every"},
        {"with:\n  filters: 'a: [x'\n", "x\n", "unknown: its filters do not read as the action reads them"},
        {"with:\n  filters: |\n    a:\n      - {added: {x: y}}\n", "x\n",
         "unknown: its filters do not read as the action reads them"},
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        char *got = filter_outputs(rows[i].step, rows[i].files);

        squeeze(got);
        ck_assert_msg(!strcmp(got, rows[i].want), "row %zu: %s", i, got);
        free(got);
    }
}
END_TEST

/* Jobs of one workflow decided in order by the dialect's expand, as render runs it. */
struct gate_run {
    struct change *change;
    struct dialect_ctx ctx;
    struct source *src;
    const char *files[1];
    FILE *err;
    char *messages;
    size_t len;
};

static const char workflow[] =
    "check:\n"
    "  runs-on: x\n"
    "  outputs:\n"
    "    code: ${{ steps.f.outputs.code || steps.other.outputs.x }}\n"
    "    docs: ${{ steps.f.outputs.docs }}\n"
    "  steps:\n"
    "    - id: other\n"
    "      run: echo x=1 >> $GITHUB_OUTPUT\n"
    "    - id: f\n"
    "      uses: dorny/paths-filter@v3\n"
    "      with:\n"
    "        filters: |\n"
    "          code: 'src/**'\n"
    "          docs: 'docs/**'\n"
    "---\n"
    "docs:\n"
    "  needs: check\n"
    "  if: needs.check.outputs.docs == 'true'\n"
    "  runs-on: x\n"
    "---\n"
    "code:\n"
    "  needs: check\n"
    "  if: needs.check.outputs.code == 'true' && github.event_name == 'push'\n"
    "  runs-on: x\n"
    "---\n"
    "after-docs:\n"
    "  needs: docs\n"
    "  runs-on: x\n"
    "---\n"
    "report:\n"
    "  needs: [docs, code]\n"
    "  if: always()\n"
    "  runs-on: x\n"
    "---\n"
    "failed:\n"
    "  needs: [docs]\n"
    "  if: failure() && needs.docs.result == 'failure'\n"
    "  runs-on: x\n";

/* The hook render gives a dialect: here, the --explain note's text. */
static int note_not_run(void *user, const char *id, size_t len, const char *why, struct ypos pos)
{
    (void)pos;
    fprintf(user, "'%.*s' does not run for this change: %s\n", (int)len, id, why);
    return 0;
}

/* _i = 1: as diff renders HEAD (keep_not_run): every job kept as without a change, the
 * jobs left out only told to the hook. */
START_TEST(jobs_decided_in_order)
{
    struct gate_run r = {.change = change_of("src/a.c\n"), .files = {"w.yml"}};
    static const char *const kept[] = {"check", NULL, "code", NULL, "report", NULL};
    const char *job = workflow;

    change_set_explain(r.change, true);
    r.err = open_memstream(&r.messages, &r.len);
    r.ctx = (struct dialect_ctx){.diag = diag_create(r.err, DIAG_TEXT), .files = r.files, .n_files = 1,
                                 .change = r.change, .state = dialect_gha.state_create(NULL),
                                 .on_not_run = note_not_run, .user = r.err, .keep_not_run = _i == 1};
    r.src = source_open_text("w.yml", workflow, strlen(workflow), r.ctx.diag);
    r.ctx.sources = &r.src;
    for (size_t i = 0; job; i++) {
        const char *end = strstr(job, "---\n");
        char *text = strndup(job, end ? (size_t)(end - job) : strlen(job));
        struct ynode_doc *doc = doc_from(text);
        struct ynode *items = ynode_doc_root(doc);

        ck_assert_int_eq(dialect_gha.expand(&r.ctx, doc, items), 0);
        if (i < 5)
            ck_assert_msg(kept[i] || _i == 1 ? ynode_len(items) == 1 : ynode_len(items) == 0, "job %zu", i);
        if (i == 4) /* always(): kept, its need of a job left out dropped */
            ck_assert_uint_eq(gha_needs_len(ynode_get(ynode_value(items, 0), "needs")), _i == 1 ? 2 : 1);
        if (i == 5) /* failure() with needs.docs.result 'skipped': false */
            ck_assert_uint_eq(ynode_len(items), _i == 1 ? 1 : 0);
        ynode_doc_destroy(doc);
        free(text);
        job = end ? end + 4 : NULL;
    }
    fflush(r.err);
    ck_assert_ptr_nonnull(strstr(r.messages, "'docs' does not run for this change: if: needs.check.outputs.docs == "
                                             "'true' is false (no changed file matches filter docs)"));
    ck_assert_ptr_nonnull(strstr(r.messages, "'after-docs' does not run for this change: it needs 'docs', which "
                                             "does not run for this change"));
    ck_assert_ptr_nonnull(strstr(r.messages, "'failed' does not run for this change: if: failure() && "
                                             "needs.docs.result == 'failure' is false"));
    ck_assert_ptr_null(strstr(r.messages, "'code' does not run"));
    dialect_gha.state_destroy(r.ctx.state);
    source_close(r.src);
    diag_destroy(r.ctx.diag);
    fclose(r.err);
    free(r.messages);
    change_destroy(r.change);
}
END_TEST

Suite *ghachanged_suite(void)
{
    Suite *s = suite_create("ghachanged");
    TCase *t = tcase_create("core");

    tcase_add_loop_test(t, trigger_decision, 0, (int)(sizeof(trigger_rows) / sizeof(trigger_rows[0])));
    tcase_add_test(t, paths_filter_outputs);
    tcase_add_loop_test(t, jobs_decided_in_order, 0, 2);
    suite_add_tcase(s, t);
    return s;
}
