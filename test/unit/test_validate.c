/* validate: a stream of items checked against a schema as the items arrive (a
 * top-level value, a step or a job at a time), assembled whole when the schema needs
 * it, or read by GitHub's template schema through tmplvalidate; and what a reference
 * to no job is, which each dialect's table says and render reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/dialect.h"
#include "fanout/render.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/validate.h"
#include "unit.h"

static const char *const files[] = {"t.yml"};

/* Messages written to memory, without the source lines under them. */
struct messages {
    char *text;
    size_t len;
    FILE *fp;
    struct diag *d;
};

static void messages_open(struct messages *m)
{
    memset(m, 0, sizeof(*m));
    ck_assert_ptr_nonnull(m->fp = open_memstream(&m->text, &m->len));
    ck_assert_ptr_nonnull(m->d = diag_create(m->fp, DIAG_TEXT));
}

/* Ends the capture; the text stays in m->text (freed by the caller). */
static void messages_close(struct messages *m)
{
    diag_destroy(m->d);
    fclose(m->fp);
}

/* Counts the lines of `text` that hold `what`. */
static unsigned lines_with(const char *text, const char *what)
{
    unsigned n = 0;

    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

/* Feeds the items of `yaml` (kept as `shape` says) to `v` one at a time, as `fanout
 * validate` reads a file; returns how many items there were. */
static unsigned feed_text(struct validator *v, const char *yaml, const struct stream_shape *shape)
{
    struct diag *quiet = diag_create(stderr, DIAG_TEXT);
    struct source *src = source_open_text(files[0], yaml, strlen(yaml), quiet);
    struct stream *s = src ? stream_open_shaped(src, 0, shape, quiet) : NULL;
    struct stream_item item;
    unsigned n = 0;
    int more;

    ck_assert_ptr_nonnull(s);
    while ((more = stream_next(s, &item)) > 0) {
        validator_item(v, &item);
        if (item.doc)
            ynode_doc_destroy(item.doc);
        n++;
    }
    ck_assert_int_eq(more, 0);
    stream_close(s);
    source_close(src);
    diag_destroy(quiet);
    return n;
}

/* A step item made by hand: a document whose root is the list of `yaml`'s steps. */
static struct stream_item step_item(const char *yaml)
{
    struct stream_item item = {.kind = STREAM_STEP, .doc = doc_from(yaml)};

    item.pos = ynode_pos(ynode_doc_root(item.doc));
    return item;
}

static const char step_schema[] =
    "{\"type\": \"object\", \"required\": [\"steps\"], \"additionalProperties\": false,"
    " \"properties\": {\"env\": {\"type\": \"object\"}, \"steps\": {\"type\": \"array\", \"items\":"
    " {\"type\": \"object\", \"properties\": {\"command\": {\"type\": \"string\"}},"
    " \"additionalProperties\": false}}}}";

START_TEST(steps_fed_one_item_at_a_time)
{
    /* Each step is checked as its item arrives; its index counts across items, so the
     * path names the step of the document, not of the item. */
    struct messages m;
    struct schema *s;
    struct validator *v;
    struct stream_item steps[2];

    messages_open(&m);
    ck_assert_ptr_nonnull(s = schema_load_text("s.json", step_schema, strlen(step_schema), m.d));
    ck_assert_ptr_nonnull(v = validator_create(s, NULL, m.d, files, DIAG_FINDING));
    validator_item(v, &(struct stream_item){.kind = STREAM_DOC_START, .pos = {0, 1, 1}});
    validator_item(v, &(struct stream_item){.kind = STREAM_STEPS_START, .pos = {0, 1, 1}});
    steps[0] = step_item("[{command: a}, {command: b}]");
    steps[1] = step_item("[{command: c, bad: 1}]");
    validator_item(v, &steps[0]);
    ck_assert_uint_eq(validator_errors(v), 0);
    validator_item(v, &steps[1]);
    ck_assert_uint_eq(validator_errors(v), 1);
    validator_item(v, &(struct stream_item){.kind = STREAM_STEPS_END});
    validator_item(v, &(struct stream_item){.kind = STREAM_DOC_END});
    ynode_doc_destroy(steps[0].doc);
    ynode_doc_destroy(steps[1].doc);
    validator_destroy(v);
    schema_free(s);
    messages_close(&m);
    ck_assert_ptr_nonnull(strstr(m.text, "error: /steps/2/bad: property 'bad' is not allowed [additionalProperties]"));
    ck_assert_uint_eq(lines_with(m.text, "error:"), 1);
    free(m.text);
}
END_TEST

START_TEST(top_level_values_and_required_keys_streamed)
{
    /* A top-level value against its property's schema, a key the schema refuses at the
     * key, and a required key that never came, at the document's start. */
    struct messages m;
    struct schema *s;
    struct validator *v;

    messages_open(&m);
    ck_assert_ptr_nonnull(s = schema_load_text("s.json", step_schema, strlen(step_schema), m.d));
    ck_assert_ptr_nonnull(v = validator_create(s, NULL, m.d, files, DIAG_FINDING));
    ck_assert_uint_eq(feed_text(v, "env: [1]\nextra: 1\n", stream_steps_shape), 4);
    ck_assert_uint_eq(validator_errors(v), 3);
    validator_destroy(v);
    schema_free(s);
    messages_close(&m);
    ck_assert_ptr_nonnull(strstr(m.text, "t.yml:1:6: error: /env: must be object, got an array [type]"));
    ck_assert_ptr_nonnull(strstr(m.text, "t.yml:2:1: error: /extra: property 'extra' is not allowed [additionalProperties]"));
    ck_assert_ptr_nonnull(strstr(m.text, "t.yml:1:1: error: (root): missing required property 'steps' [required]"));
    free(m.text);
}
END_TEST

START_TEST(bare_list_of_steps)
{
    struct messages m;
    struct schema *s;
    struct validator *v;

    messages_open(&m);
    ck_assert_ptr_nonnull(s = schema_load_text("s.json", step_schema, strlen(step_schema), m.d));
    ck_assert_ptr_nonnull(v = validator_create(s, NULL, m.d, files, DIAG_FINDING));
    feed_text(v, "- command: a\n- bad: 1\n", stream_steps_shape);
    ck_assert_uint_eq(validator_errors(v), 1); /* the steps of a bare list are not checked */
    validator_destroy(v);
    schema_free(s);
    messages_close(&m);
    ck_assert_ptr_nonnull(strstr(m.text, "(root): must be object, got an array (a bare list of steps; write it "
                                         "under 'steps:') [type]"));
    free(m.text);
}
END_TEST

START_TEST(schema_that_needs_the_whole_document)
{
    /* anyOf at the root cannot be checked a value at a time: the document is assembled
     * from its items and checked whole, with the same paths. */
    static const char whole[] =
        "{\"anyOf\": [{\"required\": [\"agents\"]}, {\"required\": [\"queue\"]}],"
        " \"properties\": {\"steps\": {\"items\": {\"properties\": {\"command\": {\"type\": \"string\"}}}}}}";
    struct messages m;
    struct schema *s;
    struct validator *v;

    messages_open(&m);
    ck_assert_ptr_nonnull(s = schema_load_text("s.json", whole, strlen(whole), m.d));
    ck_assert_ptr_nonnull(v = validator_create(s, NULL, m.d, files, DIAG_FINDING));
    feed_text(v, "agents: {}\nsteps:\n  - command: a\n  - command: [b]\n", stream_steps_shape);
    ck_assert_uint_eq(validator_errors(v), 1);
    feed_text(v, "steps: []\n", stream_steps_shape);
    ck_assert_uint_eq(validator_errors(v), 2);
    validator_destroy(v);
    schema_free(s);
    messages_close(&m);
    ck_assert_ptr_nonnull(strstr(m.text, "t.yml:4:14: error: /steps/1/command: must be string, got an array [type]"));
    /* anyOf keeps the errors of its closest branch: the first, here */
    ck_assert_ptr_nonnull(strstr(m.text, "t.yml:1:1: error: (root): missing required property 'agents' [required]"));
    free(m.text);
}
END_TEST

START_TEST(mapping_of_jobs_streamed_member_by_member)
{
    /* A workflow's `jobs` a job at a time: each job against the schema its name selects,
     * and the counts of the mapping at its end. */
    static const char jobs_schema[] =
        "{\"type\": \"object\", \"properties\": {\"jobs\": {\"type\": \"object\", \"maxProperties\": 2,"
        " \"patternProperties\": {\"^b\": {\"required\": [\"runs-on\"]}}, \"additionalProperties\": false}}}";
    static const struct stream_shape jobs_shape[] = {{"jobs", true, false, false, false, NULL},
                                                     {NULL, false, false, false, false, NULL}};
    struct messages m;
    struct schema *s;
    struct validator *v;

    messages_open(&m);
    ck_assert_ptr_nonnull(s = schema_load_text("s.json", jobs_schema, strlen(jobs_schema), m.d));
    ck_assert_ptr_nonnull(v = validator_create(s, jobs_shape, m.d, files, DIAG_FINDING));
    feed_text(v, "jobs:\n  build: {runs-on: x}\n  bench: {}\n  lint: {}\n", jobs_shape);
    ck_assert_uint_eq(validator_errors(v), 3);
    validator_destroy(v);
    schema_free(s);
    messages_close(&m);
    ck_assert_ptr_nonnull(strstr(m.text, "/jobs/bench: missing required property 'runs-on' [required]"));
    ck_assert_ptr_nonnull(strstr(m.text, "t.yml:4:3: error: /jobs/lint: property 'lint' is not allowed "
                                         "[additionalProperties]"));
    ck_assert_ptr_nonnull(strstr(m.text, "/jobs: must have at most 2 properties, got 3 [maxProperties]"));
    free(m.text);
}
END_TEST

START_TEST(template_schema_through_tmplvalidate)
{
    /* GitHub's workflow schema is a template schema: validator_open hands the items to
     * tmplvalidate, which reads the top level and `jobs` a pair at a time. */
    struct messages m;
    struct schema *owned = NULL;
    struct validator *v;

    messages_open(&m);
    v = validator_open("github-workflow-v1", false, dialect_gha.shape, m.d, m.d, files, DIAG_FINDING, &owned);
    ck_assert_ptr_nonnull(v);
    ck_assert_ptr_null(owned);
    feed_text(v, "on: push\njobs:\n  a:\n    runs-on: x\n    stepz: []\n  b:\n    steps: [{run: x}]\n",
              dialect_gha.shape);
    ck_assert_uint_eq(validator_errors(v), 2);
    validator_destroy(v);
    messages_close(&m);
    ck_assert_ptr_nonnull(strstr(m.text, "t.yml:5:5: error: /jobs/a: unexpected key 'stepz', did you mean 'steps'? "
                                         "[workflow-key]"));
    ck_assert_ptr_nonnull(strstr(m.text, "t.yml:7:5: error: /jobs/b: missing required key 'runs-on' "
                                         "[workflow-required]"));
    free(m.text);
}
END_TEST

START_TEST(schema_with_a_bad_reference)
{
    /* A $ref to nothing is the schema's problem, reported once at the $ref: no
     * validator. */
    char path[] = "/tmp/fanout-schema-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    struct messages m;
    struct schema *owned = NULL;

    ck_assert_ptr_nonnull(f);
    fputs("{\"properties\": {\"steps\": {\"$ref\": \"#/definitions/nope\"}}}\n", f);
    fclose(f);
    messages_open(&m);
    ck_assert_ptr_null(validator_open(path, false, NULL, m.d, m.d, files, DIAG_FINDING, &owned));
    ck_assert_ptr_null(owned);
    messages_close(&m);
    unlink(path);
    ck_assert_ptr_nonnull(strstr(m.text, ":1:36: error: cannot resolve $ref '#/definitions/nope' (remote references "
                                         "are not fetched) [schema]"));
    ck_assert_uint_eq(lines_with(m.text, "error:"), 1);
    free(m.text);
}
END_TEST

/* Renders `yaml` in `dialect` (its own schema checks off); the messages, and the exit
 * code in *rc. */
static char *render_text(const struct dialect *dialect, const char *yaml, const char *known_key, int *rc)
{
    char path[] = "/tmp/fanout-render-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL, *out = fopen("/dev/null", "w");
    const char *paths[] = {path};
    struct render_opts opts = {.dialect = dialect, .stream = out, .known_keys = &known_key,
                               .n_known_keys = known_key ? 1 : 0};
    struct messages m;

    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(out);
    fputs(yaml, f);
    fclose(f);
    messages_open(&m);
    *rc = render_run(paths, 1, &opts, m.d);
    messages_close(&m);
    fclose(out);
    unlink(path);
    return m.text;
}

START_TEST(bad_reference_as_the_dialect_says)
{
    /* A reference to no job: GitHub rejects the file (an input error, `unknown-needs`),
     * Buildkite fails the build unless another upload defines the key (a warning,
     * `dangling-depends-on`, which --known-key silences); each dialect's table says so. */
    static const char workflow[] = "on: push\njobs:\n  a: {runs-on: x, needs: nope, steps: [{run: x}]}\n";
    static const char pipeline[] = "steps:\n  - {command: x, depends_on: nope}\n";
    struct dialect failing = dialect_buildkite;
    int rc;
    char *text;

    ck_assert_int_eq(dialect_gha.bad_reference.rule, RULE_UNKNOWN_NEEDS);
    ck_assert(dialect_gha.bad_reference.fails);
    text = render_text(&dialect_gha, workflow, NULL, &rc);
    ck_assert_int_eq(rc, DIAG_INPUT);
    ck_assert_ptr_nonnull(strstr(text, "error: needs names 'nope', which is not a job of this file (GitHub rejects "
                                       "the file) [unknown-needs]"));
    free(text);

    ck_assert_int_eq(dialect_buildkite.bad_reference.rule, RULE_DANGLING_DEPENDS_ON);
    ck_assert(!dialect_buildkite.bad_reference.fails);
    ck_assert_int_eq(dialect_testarea.bad_reference.rule, RULE_DANGLING_DEPENDS_ON);
    text = render_text(&dialect_buildkite, pipeline, NULL, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_nonnull(strstr(text, "warning: depends_on names 'nope', which no rendered step defines (Buildkite "
                                       "fails the build unless another upload defines it) [dangling-depends-on]"));
    free(text);
    text = render_text(&dialect_buildkite, pipeline, "no*", &rc);
    ck_assert_str_eq(text, "");
    free(text);

    /* render takes both from the table: a dialect whose bad references fail */
    failing.bad_reference = (struct dialect_bad_reference){RULE_UNKNOWN_NEEDS, true};
    text = render_text(&failing, pipeline, "no*", &rc);
    ck_assert_int_eq(rc, DIAG_INPUT);
    ck_assert_ptr_nonnull(strstr(text, "error: depends_on names 'nope', which is not a step of this file (Buildkite "
                                       "rejects the file) [unknown-needs]"));
    free(text);
}
END_TEST

Suite *validate_suite(void)
{
    Suite *s = suite_create("validate");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, steps_fed_one_item_at_a_time);
    tcase_add_test(tc, top_level_values_and_required_keys_streamed);
    tcase_add_test(tc, bare_list_of_steps);
    tcase_add_test(tc, schema_that_needs_the_whole_document);
    tcase_add_test(tc, mapping_of_jobs_streamed_member_by_member);
    tcase_add_test(tc, template_schema_through_tmplvalidate);
    tcase_add_test(tc, schema_with_a_bad_reference);
    tcase_add_test(tc, bad_reference_as_the_dialect_says);
    suite_add_tcase(s, tc);
    return s;
}
