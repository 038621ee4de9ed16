/* The rayci dialect through its entries (open, next), on tables transcribed from
 * ray-project/rayci's raycicmd tests at 52b3334 (array_depends_test.go,
 * array_config_test.go, array_expand_test.go, config_test.go, builtin_configs_test.go,
 * main_test.go) and its builtin configs; the config reader (rayci_config.c) itself. */
#define _GNU_SOURCE /* open_memstream */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dialect/rayci/rayci_internal.h"
#include "fanout/dialect.h"
#include "fanout/source.h"
#include "unit.h"

struct rendered {
    int rc;
    char *json;     /* each group step as JSON, one a line */
    char *messages; /* what the dialect reported */
};

/* JSON `j` without the whitespace between its tokens, in place. */
static void compact(char *j)
{
    char *o = j;
    bool in_string = false;

    for (; *j; j++) {
        if (in_string && *j == '\\' && j[1]) {
            *o++ = *j++;
        } else if (*j == '"') {
            in_string = !in_string;
        } else if (!in_string && (*j == ' ' || *j == '\n')) {
            continue;
        }
        *o++ = *j;
    }
    *o = '\0';
}

static int usage_fails(const char *what, const char *arg)
{
    ck_abort_msg("usage error: %s %s", what, arg ? arg : "");
    return 2;
}

#define MAX_FILES 4

/* The `n` rayci files `yamls` named `names`, in builds `builds` (NULL: one), through
 * the dialect's reader, with --rayci-config `config` (NULL: not given). */
static struct rendered render_files(size_t n, const char *const *names, const char *const *yamls,
                                    const unsigned *builds, const char *config)
{
    struct rendered out = {0};
    size_t json_len = 0, msg_len = 0;
    FILE *json = open_memstream(&out.json, &json_len), *err = open_memstream(&out.messages, &msg_len);
    struct diag *d = diag_create(err, DIAG_TEXT);
    struct source *src[MAX_FILES];
    struct dialect_options *options = dialect_options_create();
    const struct dialect_option_io io = {usage_fails, DIAG_TEXT};
    struct dialect_input in = {.diag = d, .shape = dialect_rayci.shape, .sources = src, .names = names, .n = n,
                               .builds = builds, .options = options};
    struct dialect_reader *r;
    struct stream_item item;
    int more;

    ck_assert_uint_le(n, MAX_FILES);
    for (size_t i = 0; i < n; i++)
        src[i] = source_open_text(names[i], yamls[i], strlen(yamls[i]), d);
    ck_assert_ptr_nonnull(options);
    if (config)
        ck_assert_int_eq(dialect_options_parse(options, dialect_option_find("rayci-config"), config, 0, &io), 0);
    r = dialect_rayci.open(&in, NULL, NULL);

    ck_assert_ptr_nonnull(r);
    while ((more = dialect_rayci.next(r, &item)) > 0) {
        if (item.kind == STREAM_STEP) {
            char *j = emit_to_string(ynode_item(ynode_doc_root(item.doc), 0), 1);

            compact(j);
            fprintf(json, "%s\n", j);
            free(j);
        }
        ynode_doc_destroy(item.doc);
    }
    dialect_rayci.close(r);
    dialect_options_destroy(options);
    out.rc = more < 0 ? -1 : diag_exit_code(d, false);
    for (size_t i = 0; i < n; i++)
        source_close(src[i]);
    diag_destroy(d);
    fclose(json);
    fclose(err);
    return out;
}

/* `yaml` as a rayci file named `name`, with --rayci-config `config` (NULL: not given). */
static struct rendered render_with(const char *name, const char *yaml, const char *config)
{
    return render_files(1, &name, &yaml, NULL, config);
}

static struct rendered render(const char *name, const char *yaml)
{
    return render_with(name, yaml, NULL);
}

static void rendered_free(struct rendered *r)
{
    free(r->json);
    free(r->messages);
}

/* TestParseSelectorErrors: what each bad selector's message holds. */
static const struct {
    const char *selector, *want;
} selector_errors[] = {
    {"($)", "empty"},
    {"ray-build(python=3.11", "missing closing"},
    {"ray-build()", "empty parentheses"},
    {"ray-build(python)", "expected key=value"},
    {"ray-build(=3.11)", "empty dimension"},
    {"ray-build(python=)", "empty value"},
    {"ray-build(python=3.11,)", "empty filter entry"},
    {"ray-build(python=3.11, python=3.11)", "duplicate filter entry"},
};

#define ARRAY_STEP                                                                                                     \
    "group: g\nsteps:\n"                                                                                               \
    "  - key: ray-build\n    label: \"build {{array.python}} {{array.cuda}}\"\n    commands: [\"true\"]\n"             \
    "    array:\n      python: [\"3.10\", \"3.11\"]\n      cuda: [\"12.1.1\", \"12.8.1\"]\n"

START_TEST(selector_error)
{
    char yaml[512];
    struct rendered r;

    snprintf(yaml, sizeof(yaml), ARRAY_STEP "  - key: t\n    commands: [\"true\"]\n    depends_on: \"%s\"\n",
             selector_errors[_i].selector);
    r = render("g.rayci.yml", yaml);
    ck_assert_msg(strstr(r.messages, selector_errors[_i].want) && strstr(r.messages, "[rayci-array]"),
                  "%s: %s", selector_errors[_i].selector, r.messages);
    ck_assert_int_eq(r.rc, 1);
    rendered_free(&r);
}
END_TEST

/* TestParseSelector's selectors, resolved against the array of TestGenerateArrayElementKey
 * (python 3.10/3.11, cuda 12.1.1/12.8.1): the keys each names, in element order. */
static const struct {
    const char *selector, *keys;
} selectors[] = {
    {"ray-build(*)", "\"ray-build--cuda1211-python310\",\"ray-build--cuda1211-python311\","
                     "\"ray-build--cuda1281-python310\",\"ray-build--cuda1281-python311\""},
    {"ray-build(python=3.11)", "\"ray-build--cuda1211-python311\",\"ray-build--cuda1281-python311\""},
    {"ray-build(python=3.11, cuda=12.8.1)", "\"ray-build--cuda1281-python311\""},
    {"ray-build(python=3.10, python=3.11)", "\"ray-build--cuda1211-python310\",\"ray-build--cuda1211-python311\","
                                            "\"ray-build--cuda1281-python310\",\"ray-build--cuda1281-python311\""},
    {"forge", "\"forge\""},
};

START_TEST(selector_keys)
{
    char yaml[512], want[512];
    struct rendered r;

    snprintf(yaml, sizeof(yaml), ARRAY_STEP "  - key: t\n    commands: [\"true\"]\n    depends_on: \"%s\"\n",
             selectors[_i].selector);
    snprintf(want, sizeof(want), "\"depends_on\":[%s]", selectors[_i].keys);
    r = render("g.rayci.yml", yaml);
    ck_assert_msg(r.rc == 0 && strstr(r.json, want), "%s: %s", selectors[_i].selector, r.messages);
    rendered_free(&r);
}
END_TEST

/* TestParseArrayAdjustmentsErrors: what each bad `adjustments` message holds. */
static const struct {
    const char *adjustments, *want;
} adjustment_errors[] = {
    {"bad", "must be an array"},
    {"[bad]", "must be a map"},
    {"[{skip: true}]", "missing required \"with\""},
    {"[{with: bad}]", "\"with\" must be a map"},
    {"[{with: {}}]", "\"with\" cannot be empty"},
    {"[{with: {python: 3}}]", "must be a string"},
    {"[{with: {python: \"3.10\"}, skip: true}, {with: {python: \"3.10\"}, skip: true}]", "duplicate \"with\""},
    {"[{with: {python: \"3.10\"}, extra: 1}]", "unknown key"},
};

START_TEST(adjustment_error)
{
    char yaml[512];
    struct rendered r;

    snprintf(yaml, sizeof(yaml),
             "group: g\nsteps:\n  - key: b\n    label: \"b {{array.python}}\"\n    commands: [\"true\"]\n"
             "    array:\n      python: [\"3.10\", \"3.11\"]\n      adjustments: %s\n",
             adjustment_errors[_i].adjustments);
    r = render("g.rayci.yml", yaml);
    ck_assert_msg(strstr(r.messages, adjustment_errors[_i].want), "%s: %s", adjustment_errors[_i].adjustments,
                  r.messages);
    ck_assert_int_eq(r.rc, 1);
    rendered_free(&r);
}
END_TEST

/* TestSubstituteValues, TestExpandArraySteps: each element's step, its placeholders in
 * strings (lists and maps too) filled, keyed after its values. */
START_TEST(array_expansion)
{
    struct rendered r =
        render("g.rayci.yml", "group: g\nsteps:\n  - key: build-step\n    label: \"Build {{array.python}}\"\n"
                              "    commands: [\"echo {{array.python}}\", \"{{array.other}}\"]\n"
                              "    array:\n      python: [\"3.10\", \"3.11\"]\n");

    ck_assert_int_eq(r.rc, 0);
    ck_assert_ptr_nonnull(strstr(r.json, "\"key\":\"build-step--python310\",\"label\":\"Build 3.10 [g0_s0]\""));
    ck_assert_ptr_nonnull(strstr(r.json, "\"key\":\"build-step--python311\",\"label\":\"Build 3.11 [g0_s1]\""));
    /* a placeholder of no dimension stays */
    ck_assert_ptr_nonnull(strstr(r.json, "\"commands\":[\"echo 3.11\",\"{{array.other}}\"]"));
    ck_assert_ptr_null(strstr(r.json, "\"array\""));
    rendered_free(&r);
    /* TestExpandArraySteps_LabelPlaceholderRequired, _MatrixAndArrayMutuallyExclusive */
    r = render("g.rayci.yml", "group: g\nsteps:\n  - key: b\n    label: Build step\n    commands: [x]\n"
                              "    array:\n      python: [\"3.10\"]\n");
    ck_assert_ptr_nonnull(strstr(r.messages, "placeholder"));
    rendered_free(&r);
    r = render("g.rayci.yml", "group: g\nsteps:\n  - key: b\n    label: \"B {{array.python}}\"\n    commands: [x]\n"
                              "    matrix: [a]\n    array:\n      python: [\"3.10\"]\n");
    ck_assert_ptr_nonnull(strstr(r.messages, "both"));
    rendered_free(&r);
}
END_TEST

/* The builtin configs' runner queues by instance type (builtin_configs.go): ray-pr's
 * (the default), and ray-branch's by --rayci-config, those ray-pr lacks among them. */
static const struct {
    const char *config, *type, *queue;
} queues[] = {
    {NULL, "default", "runner_queue_small_pr"}, {NULL, "small", "runner_queue_small_pr"},
    {NULL, "medium", "runner_queue_medium_pr"}, {NULL, "large", "runner_queue_pr"},
    {NULL, "gpu", "gpu_runner_queue_pr"},       {NULL, "gpu-large", "gpu_large_runner_queue_pr"},
    {NULL, "g6-large", "g6_large_runner_queue_pr"}, {NULL, "windows", "windows_queue_pr"},
    {NULL, "macos", "macos"},                   {NULL, "macos-arm64", "macos-pr-arm64"},
    {NULL, "medium-arm64", "runner_queue_arm64_medium_pr"},
    {"ray-branch", "default", "runner_queue_small_branch"}, {"ray-branch", "large", "runner_queue_branch"},
    {"ray-branch", "macos", "macos-branch"},                {"ray-branch", "macos-arm64", "macos-branch-arm64"},
    {"ray-branch", "release", "release_queue_small"},       {"ray-branch", "release-medium", "release_queue_medium"},
};

START_TEST(runner_queue)
{
    char yaml[256], want[128];
    struct rendered r;

    snprintf(yaml, sizeof(yaml), "group: g\nsteps:\n  - commands: [x]\n    instance_type: %s\n", queues[_i].type);
    snprintf(want, sizeof(want), "\"agents\":{\"queue\":\"%s\"}", queues[_i].queue);
    r = render_with("g.rayci.yml", yaml, queues[_i].config);
    ck_assert_msg(r.rc == 0 && strstr(r.json, want), "%s: %s", queues[_i].type, r.messages);
    rendered_free(&r);
}
END_TEST

/* command_step.go's label, and the keys rayci drops. */
START_TEST(command_label)
{
    struct rendered r = render("g.rayci.yml", "group: g\nsteps:\n  - name: n\n    label: l\n    commands: [x]\n"
                                              "  - label: l\n    commands: [x]\n  - commands: [x]\n"
                                              "    tags: [a]\n    instance_type: small\n");

    ck_assert_int_eq(r.rc, 0);
    ck_assert_ptr_nonnull(strstr(r.json, "\"label\":\"n [g0_s0]\""));
    ck_assert_ptr_nonnull(strstr(r.json, "\"label\":\"l [g0_s1]\""));
    ck_assert_ptr_nonnull(strstr(r.json, "\"label\":\"[g0_s2]\""));
    ck_assert_ptr_null(strstr(r.json, "\"name\""));
    ck_assert_ptr_null(strstr(r.json, "\"tags\""));
    ck_assert_ptr_null(strstr(r.json, "\"instance_type\""));
    rendered_free(&r);
}
END_TEST

/* A skip tag leaves out the step, the steps that wait for it, and a group with one. */
START_TEST(skip_tags)
{
    struct rendered r = render("g.rayci.yml", "group: g\nsteps:\n  - key: a\n    tags: skip-on-premerge\n"
                                              "    commands: [x]\n  - key: b\n    depends_on: a\n    commands: [x]\n"
                                              "  - key: c\n    commands: [x]\n");

    ck_assert_int_eq(r.rc, 0);
    ck_assert_ptr_null(strstr(r.json, "\"key\":\"a\""));
    ck_assert_ptr_null(strstr(r.json, "\"key\":\"b\""));
    ck_assert_ptr_nonnull(strstr(r.json, "\"key\":\"c\""));
    rendered_free(&r);
    /* through a block step, a chain written backwards, and the group's depends_on */
    r = render("g.rayci.yml", "group: g\nsteps:\n  - key: a\n    depends_on: b\n    commands: [x]\n"
                              "  - key: b\n    depends_on: c\n    commands: [x]\n  - block: go\n    key: c\n"
                              "    tags: [disabled]\n  - key: d\n    commands: [x]\n  - key: e\n    commands: [x]\n");
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(r.json, "");
    rendered_free(&r);
    r = render("g.rayci.yml", "group: g\ndepends_on: [a]\nsteps:\n  - key: a\n    tags: [disabled]\n"
                              "    commands: [x]\n  - key: z\n    commands: [x]\n");
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(r.json, "");
    rendered_free(&r);
    r = render("g.rayci.yml", "group: g\ntags: [disabled]\nsteps:\n  - key: c\n    commands: [x]\n");
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(r.json, "");
    rendered_free(&r);
}
END_TEST

/* Each build is another rayci run (listCIYamlFiles reads one directory): a step left
 * out, or an array step, in one is unknown to another, whichever order their files
 * come in; one build's files share them. */
START_TEST(builds_scope)
{
    static const char *const names[] = {"x.rayci.yml", "o.rayci.yml", "y.rayci.yml", "z.rayci.yml"};
    static const char *const yamls[] = {
        ("group: x\nsteps:\n  - key: a\n    tags: [disabled]\n    commands: [x]\n"
         "  - key: w\n    array: {p: [\"1\"]}\n    commands: [x]\n"),
        "group: o\nsteps:\n  - key: o\n    commands: [x]\n",
        "group: y\nsteps:\n  - key: b\n    depends_on: a\n    commands: [x]\n",
        "group: z\nsteps:\n  - key: c\n    depends_on: w\n    commands: [x]\n"};
    static const unsigned apart[] = {1, 2, 2, 2}, together[] = {1, 2, 1, 1};
    struct rendered r = render_files(4, names, yamls, apart, NULL);

    ck_assert_int_eq(r.rc, 0);
    ck_assert_ptr_nonnull(strstr(r.json, "\"key\":\"b\",\"depends_on\":[\"a\"]"));
    ck_assert_ptr_nonnull(strstr(r.json, "\"key\":\"c\",\"depends_on\":[\"w\"]"));
    rendered_free(&r);
    for (int one = 0; one < 2; one++) {
        r = render_files(4, names, yamls, one ? NULL : together, NULL);
        ck_assert_int_eq(r.rc, 1);
        ck_assert_ptr_nonnull(strstr(r.messages, "z.rayci.yml:4:17: error: plain depends_on 'w' targets an array step"));
        ck_assert_ptr_null(strstr(r.json, "\"key\":\"b\""));
        ck_assert_ptr_nonnull(strstr(r.json, "\"key\":\"o\""));
        rendered_free(&r);
    }
}
END_TEST

/* An instance type the default config lacks: a warning naming the option (and the
 * builtin that maps it), the type written as the queue; with the config given, rayci's
 * error. */
START_TEST(unknown_queue)
{
    static const char yaml[] = "group: g\nsteps:\n  - commands: [x]\n    instance_type: release-medium\n";
    struct rendered r = render("g.rayci.yml", yaml);

    ck_assert_int_eq(r.rc, 0);
    ck_assert_ptr_nonnull(strstr(r.messages, "g.rayci.yml:4:20: warning: unknown instance type 'release-medium'"));
    ck_assert_ptr_nonnull(strstr(r.messages, "--rayci-config"));
    ck_assert_ptr_nonnull(strstr(r.messages, "rayci's ray-branch config maps it to 'release_queue_medium'"));
    ck_assert_ptr_nonnull(strstr(r.json, "\"agents\":{\"queue\":\"release-medium\"}"));
    rendered_free(&r);
    r = render_with("g.rayci.yml", yaml, "ray-pr");
    ck_assert_int_eq(r.rc, 1);
    ck_assert_ptr_nonnull(strstr(r.messages, "g.rayci.yml:4:20: error: unknown instance type 'release-medium' "
                                             "(rayci's ray-pr config has no runner queue for it) [rayci]"));
    ck_assert_str_eq(r.json, "");
    rendered_free(&r);
}
END_TEST

/* builtin_configs_test.go TestDefaultConfig: what each builtin holds. */
START_TEST(builtin_configs)
{
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    struct rc_config *branch = rc_config_builtin("ray-branch", d), *micro = rc_config_builtin("ray-pr-microcheck", d);
    struct rc_config *pr = rc_config_builtin("ray-pr", d);
    bool bisect = false, microcheck_skip = false;

    ck_assert(branch && micro && pr);
    ck_assert_str_eq(branch->name, "ray-branch");
    for (size_t i = 0; branch->build_env_keys[i]; i++)
        bisect = bisect || !strcmp(branch->build_env_keys[i], "RAYCI_BISECT_TEST_TARGET");
    ck_assert(bisect);
    ck_assert_str_eq(micro->name, "ray-pr-microcheck");
    ck_assert_str_eq(rc_pairs_find(micro->env, "BUILDKITE_BAZEL_CACHE_URL", 25),
                     "https://bazel-cache-dev.s3.us-west-2.amazonaws.com");
    ck_assert_str_eq(pr->name, "ray-pr");
    ck_assert_ptr_null(rc_pairs_find(pr->env, "RAYCI_MICROCHECK_RUN", 20));
    /* ciDefaultConfig's microcheck additions, and makePRPipelineConfig's priorities */
    ck_assert_int_eq(micro->max_parallelism, 1);
    for (size_t i = 0; micro->skip_tags[i]; i++)
        microcheck_skip = microcheck_skip || !strcmp(micro->skip_tags[i], "skip-on-microcheck");
    ck_assert(microcheck_skip);
    ck_assert_int_eq(pr->runner_priority, 1);
    ck_assert_int_eq(branch->runner_priority, 0);
    /* ray-pr allows no concurrency group (an empty list), ray-branch any (nil) */
    ck_assert(pr->concurrency_prefixes && !pr->concurrency_prefixes[0]);
    ck_assert_ptr_null(branch->concurrency_prefixes);
    ck_assert_ptr_null(rc_config_builtin("ray-nightly", d));
    rc_config_destroy(branch);
    rc_config_destroy(micro);
    rc_config_destroy(pr);
    diag_destroy(d);
}
END_TEST

/* `text` written to a temporary file, read as --rayci-config reads it; the messages in
 * *messages (malloc'd). */
static struct rc_config *config_from(const char *text, char **messages)
{
    char path[] = "/tmp/fanout-rayci-config-XXXXXX";
    size_t len = 0;
    FILE *err = open_memstream(messages, &len);
    struct diag *d = diag_create(err, DIAG_TEXT);
    struct rc_config *c;

    temp_file_write(path, text);
    c = rc_config_load(path, d);
    diag_destroy(d);
    fclose(err);
    unlink(path);
    return c;
}

/* config_test.go TestLoadConfigFromFile and TestBuilderAgent; main_test.go
 * TestLoadConfig_fromFile: a field not given is Go's zero value. */
START_TEST(config_file)
{
    char *messages = NULL;
    struct rc_config *c = config_from("ci_temp: \"s3://fake/ci-temp\"", &messages);

    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(c->ci_temp, "s3://fake/ci-temp");
    rc_config_destroy(c);
    free(messages);
    c = config_from("ci_temp: /tmp/rayci\nci_work_repo: ray-project/rayci\n", &messages);
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(c->ci_work_repo, "ray-project/rayci");
    ck_assert_str_eq(c->ci_temp, "/tmp/rayci");
    ck_assert_str_eq(c->artifacts_bucket, "");
    ck_assert_ptr_null(c->runner_queues[0].name);
    ck_assert_ptr_null(c->skip_tags[0]);
    ck_assert_ptr_null(c->concurrency_prefixes);
    ck_assert(!c->allow_trigger_step && !c->runner_priority && !c->builder_priority && !c->max_parallelism);
    rc_config_destroy(c);
    free(messages);
    c = config_from("builder_queues:\n  builder: mybuilder\n  other: otherbuilder\n", &messages);
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(rc_pairs_find(c->builder_queues, "builder", 7), "mybuilder");
    ck_assert_str_eq(rc_pairs_find(c->builder_queues, "other", 5), "otherbuilder");
    ck_assert_ptr_null(rc_pairs_find(c->builder_queues, "build", 5));
    rc_config_destroy(c);
    free(messages);
}
END_TEST

/* Each field as yaml.v3's decode.go (scalar, sequence, mapping) decodes its Go type:
 * what it takes, and where what it refuses is said. */
static const struct {
    const char *text;
    const char *error; /* NULL: read; else the message's start */
    long long priority;
    bool trigger;
    const char *tags; /* the skip tags joined by ',' */
} typings[] = {
    {"runner_priority: 2\n", NULL, 2, false, ""},
    {"runner_priority: 2.9\n", NULL, 2, false, ""},            /* a float's integer part */
    {"runner_priority: ~\n", NULL, 0, false, ""},
    {"runner_priority: '2'\n", ":1:19: error: rayci config field 'runner_priority' must be an integer", 0, false, ""},
    {"runner_priority: [2]\n", ":1:18: error: rayci config field 'runner_priority' must be an integer", 0, false, ""},
    {"allow_trigger_step: true\n", NULL, 0, true, ""},
    {"allow_trigger_step: yes\n", NULL, 0, true, ""},         /* YAML 1.1's words */
    {"allow_trigger_step: 'on'\n", NULL, 0, true, ""},        /* even quoted */
    {"allow_trigger_step: 'true'\n", ":1:22: error: rayci config field 'allow_trigger_step' must be true or false",
     0, false, ""},
    {"skip_tags: [a, ~, b]\n", NULL, 0, false, "a,b"},        /* a null item is left out */
    {"skip_tags: a\n", ":1:12: error: rayci config field 'skip_tags' must be a list of strings", 0, false, ""},
    {"skip_tags: [a, [b]]\n", ":1:16: error: rayci config field 'skip_tags' must be a list of strings", 0, false,
     ""},
    {"env: {A: 1, B: true, C: ~}\n", NULL, 0, false, ""},     /* any scalar's text */
    {"env: {A: {b: 1}}\n", ":1:10: error: rayci config field 'env' must be a mapping of names to strings", 0, false,
     ""},
    {"runner_queues: [default]\n", ":1:16: error: rayci config field 'runner_queues' must be a mapping", 0, false,
     ""},
    {"ci_temp: {a: 1}\n", ":1:10: error: rayci config field 'ci_temp' must be a string", 0, false, ""},
    {"docker_plugin: [x]\n", ":1:16: error: rayci config field 'docker_plugin' must be a mapping", 0, false, ""},
    {"unknown_field: [1, {2: 3}]\n", NULL, 0, false, ""},     /* Unmarshal ignores it */
    {"", NULL, 0, false, ""},                                   /* an empty file: every field's zero */
    {"- a\n", ":1:1: error: a rayci config is a mapping of config.go's fields", 0, false, ""},
    {"a: [\n", "error:", 0, false, ""},                        /* not YAML */
};

START_TEST(config_typing)
{
    char *messages = NULL, tags[64] = "";
    struct rc_config *c = config_from(typings[_i].text, &messages);

    if (typings[_i].error) {
        ck_assert_msg(!c && strstr(messages, typings[_i].error), "%s: %s", typings[_i].text, messages);
    } else {
        ck_assert_msg(c != NULL, "%s: %s", typings[_i].text, messages);
        ck_assert_int_eq(c->runner_priority, typings[_i].priority);
        ck_assert_int_eq(c->allow_trigger_step, typings[_i].trigger);
        for (size_t i = 0; c->skip_tags[i]; i++)
            snprintf(tags + strlen(tags), sizeof(tags) - strlen(tags), "%s%s", i ? "," : "", c->skip_tags[i]);
        ck_assert_str_eq(tags, typings[_i].tags);
    }
    rc_config_destroy(c);
    free(messages);
}
END_TEST

Suite *rayci_suite(void)
{
    Suite *s = suite_create("rayci");
    TCase *tc = tcase_create("core");

    tcase_add_loop_test(tc, selector_error, 0, sizeof(selector_errors) / sizeof(selector_errors[0]));
    tcase_add_loop_test(tc, selector_keys, 0, sizeof(selectors) / sizeof(selectors[0]));
    tcase_add_loop_test(tc, adjustment_error, 0, sizeof(adjustment_errors) / sizeof(adjustment_errors[0]));
    tcase_add_test(tc, array_expansion);
    tcase_add_loop_test(tc, runner_queue, 0, sizeof(queues) / sizeof(queues[0]));
    tcase_add_test(tc, command_label);
    tcase_add_test(tc, skip_tags);
    tcase_add_test(tc, builds_scope);
    tcase_add_test(tc, unknown_queue);
    tcase_add_test(tc, builtin_configs);
    tcase_add_test(tc, config_file);
    tcase_add_loop_test(tc, config_typing, 0, sizeof(typings) / sizeof(typings[0]));
    suite_add_tcase(s, tc);
    return s;
}
