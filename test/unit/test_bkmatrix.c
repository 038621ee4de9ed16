#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect/buildkite/bkmatrix.h"
#include "unit.h"

/* The matrices most tests use: three dimensions (the order test), two, and one. */
#define THREE "{setup: {arch: [amd64, arm64], os: [windows, linux], test: [A, B]}}"
#define MULTI "{setup: {os: [mac, linux], arch: [amd64]}}"
#define SINGLE "[a, b]"

/* The matrix at the root of `yaml`, read without error. Its nodes live in *doc, which
 * the caller destroys after the matrix. */
static struct bkm_matrix *read_ok(const char *yaml, struct ynode_doc **doc)
{
    struct bkm_error err;
    struct bkm_matrix *m;

    *doc = doc_from(yaml);
    m = bkm_read(ynode_doc_root(*doc), &err);
    ck_assert_msg(m != NULL, "%s: refused: %s", yaml, err.msg);
    return m;
}

/* Refused, at the node written at line:col, with a message containing `msg`. */
static void expect_read_error(const char *yaml, unsigned line, unsigned col, const char *msg)
{
    struct ynode_doc *doc = doc_from(yaml);
    struct bkm_error err;
    struct ypos at;

    ck_assert_msg(bkm_read(ynode_doc_root(doc), &err) == NULL, "%s: accepted", yaml);
    ck_assert_msg(err.at != NULL, "%s: no node for [%s]", yaml, err.msg);
    at = ynode_pos(err.at);
    ck_assert_msg(at.line == line && at.col == col, "%s: error at %u:%u, want %u:%u [%s]", yaml, at.line,
                  at.col, line, col, err.msg);
    ck_assert_msg(strstr(err.msg, msg) != NULL, "%s: got [%s], want [%s]", yaml, err.msg, msg);
    ynode_doc_destroy(doc);
}

/* Combination i's values joined by '/'. */
static void combination_text(const struct bkm_matrix *m, size_t i, char *buf, size_t cap)
{
    const struct bkm_combination *c = bkm_combination(m, i);
    size_t o = 0;

    buf[0] = '\0';
    for (size_t d = 0; d < bkm_dimensions(m); d++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%s", d ? "/" : "", ynode_scalar(c->values[d], NULL));
}

/* The combinations of `yaml` are exactly `want`, in order, and so many of them are jobs. */
static void expect_combinations(const char *yaml, const char *const *want, size_t n, size_t jobs)
{
    struct ynode_doc *doc;
    struct bkm_matrix *m = read_ok(yaml, &doc);
    char got[256];

    ck_assert_uint_eq(bkm_combinations(m), n);
    for (size_t i = 0; i < n; i++) {
        combination_text(m, i, got, sizeof(got));
        ck_assert_msg(strcmp(got, want[i]) == 0, "%s: combination %zu is %s, want %s", yaml, i, got, want[i]);
    }
    ck_assert_uint_eq(bkm_jobs(m), jobs);
    bkm_destroy(m);
    ynode_doc_destroy(doc);
}

static void appendf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void appendf(char *buf, size_t cap, const char *fmt, ...)
{
    size_t o = strlen(buf);
    va_list ap;

    va_start(ap, fmt);
    ck_assert_int_lt(vsnprintf(buf + o, cap - o, fmt, ap), (int)(cap - o));
    va_end(ap);
}

static void expect_read_ok(const char *yaml)
{
    struct ynode_doc *doc;

    bkm_destroy(read_ok(yaml, &doc));
    ynode_doc_destroy(doc);
}

/* ---- combinations ---- */

/* The first dimension varies slowest, as Buildkite lists the docs example's jobs. */
START_TEST(order_first_dimension_slowest)
{
    static const char *const want[] = {
        "amd64/windows/A", "amd64/windows/B", "amd64/linux/A", "amd64/linux/B",
        "arm64/windows/A", "arm64/windows/B", "arm64/linux/A", "arm64/linux/B",
    };

    expect_combinations(THREE, want, 8, 8);
}
END_TEST

/* `matrix: [...]` and `setup: [...]` are the same single dimension, named "matrix". */
START_TEST(single_dimension)
{
    static const char *const forms[] = {"[a, b, c]", "{setup: [a, b, c]}"};
    static const char *const want[] = {"a", "b", "c"};

    for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
        struct ynode_doc *doc;
        struct bkm_matrix *m = read_ok(forms[f], &doc);

        ck_assert(bkm_single(m));
        ck_assert_uint_eq(bkm_dimensions(m), 1);
        bkm_destroy(m);
        ynode_doc_destroy(doc);
        expect_combinations(forms[f], want, 3, 3);
    }
}
END_TEST

/* go-pipeline takes `with: c` for a single dimension, pipeline-schema's fixture `with: [c]`. */
START_TEST(single_dimension_with)
{
    static const char *const forms[] = {
        "{setup: [a, b], adjustments: [{with: c}]}",
        "{setup: [a, b], adjustments: [{with: [c]}]}",
    };
    static const char *const want[] = {"a", "b", "c"};

    for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
        struct ynode_doc *doc;
        struct bkm_matrix *m = read_ok(forms[f], &doc);

        ck_assert(bkm_combination(m, 2)->added);
        bkm_destroy(m);
        ynode_doc_destroy(doc);
        expect_combinations(forms[f], want, 3, 3);
    }
}
END_TEST

/* Elements are strings, numbers or booleans: quoted "null" and "1.5" are strings; 2.5 is
 * the agent's "2.5" (go-pipeline prints a float), 010 its "8" and "010" a string. */
START_TEST(element_types)
{
    expect_read_ok("[1, true, x, \"null\", '1.5', -3, 2.5, 010, \"010\"]");
}
END_TEST

/* ---- adjustments ---- */

static const char adjusted[] = "setup:\n"
                               "  os: [linux, mac]\n"
                               "  arch: [amd64, arm64]\n"
                               "adjustments:\n"
                               "  - with: {os: linux, arch: arm64}\n"
                               "    skip: true\n"
                               "  - with: {os: mac, arch: amd64}\n"
                               "    skip: not yet\n"
                               "  - with: {os: mac, arch: arm64}\n"
                               "    skip: false\n"
                               "  - with: {os: linux, arch: amd64}\n"
                               "    skip: \"\"\n"
                               "    soft_fail: true\n"
                               "  - with: {os: win, arch: amd64}\n"
                               "  - with: {os: bsd, arch: riscv}\n"
                               "    skip: true\n"
                               "  - with: {os: win, arch: arm64}\n"
                               "    soft_fail: [{exit_status: 1}]\n";

/* What each combination of `adjusted` became. */
static const struct {
    const char *values;
    bool added, skipped, has_skip, soft_fail;
} adjusted_want[] = {
    {"linux/amd64", false, false, true, true}, /* skip: "" skips nothing */
    {"linux/arm64", false, true, true, false},
    {"mac/amd64", false, true, true, false}, /* a reason skips */
    {"mac/arm64", false, false, true, false},
    /* added at the end, in the adjustments' order */
    {"win/amd64", true, false, false, false},
    {"bsd/riscv", true, true, true, false}, /* added and skipped: no job */
    {"win/arm64", true, false, false, true},
};

START_TEST(adjustments)
{
    struct ynode_doc *doc;
    struct bkm_matrix *m = read_ok(adjusted, &doc);
    char got[64];

    ck_assert_uint_eq(bkm_combinations(m), 7);
    ck_assert_uint_eq(bkm_jobs(m), 4);
    for (size_t i = 0; i < 7; i++) {
        const struct bkm_combination *c = bkm_combination(m, i);

        combination_text(m, i, got, sizeof(got));
        ck_assert_str_eq(got, adjusted_want[i].values);
        ck_assert_msg(c->added == adjusted_want[i].added && c->skipped == adjusted_want[i].skipped,
                      "%s: added %d skipped %d", got, c->added, c->skipped);
        ck_assert_msg((c->skip != NULL) == adjusted_want[i].has_skip, "%s: skip", got);
        ck_assert_msg((c->soft_fail != NULL) == adjusted_want[i].soft_fail, "%s: soft_fail", got);
    }
    /* soft_fail is kept as written, for the job to carry */
    ck_assert(ynode_is_seq(bkm_combination(m, 6)->soft_fail));
    bkm_destroy(m);
    ynode_doc_destroy(doc);
}
END_TEST

/* A `with` that leaves dimensions out adjusts every combination it matches (buildkite/
 * agent's release pipelines skip a placeholder value so); it adds nothing. */
START_TEST(adjustments_partial)
{
    static const char yaml[] = "setup:\n"
                               "  go_arch: [amd64, arm64]\n"
                               "  pkg_arch: [FAKE, any]\n"
                               "adjustments:\n"
                               "  - with: {go_arch: amd64, pkg_arch: x86_64}\n"
                               "  - with: {pkg_arch: FAKE}\n"
                               "    skip: true\n"
                               "  - with: {go_arch: arm64}\n"
                               "    soft_fail: true\n";
    static const char *const want[] = {"amd64/FAKE", "amd64/any", "arm64/FAKE", "arm64/any",
                                       "amd64/x86_64"};
    struct ynode_doc *doc;
    struct bkm_matrix *m = read_ok(yaml, &doc);

    ck_assert_uint_eq(bkm_combinations(m), 5);
    ck_assert(bkm_combination(m, 0)->skipped && bkm_combination(m, 2)->skipped);
    ck_assert(!bkm_combination(m, 1)->skipped && !bkm_combination(m, 3)->skipped);
    /* both arm64 combinations, the skipped one too */
    ck_assert(bkm_combination(m, 2)->soft_fail && bkm_combination(m, 3)->soft_fail);
    ck_assert(!bkm_combination(m, 1)->soft_fail);
    bkm_destroy(m);
    ynode_doc_destroy(doc);
    expect_combinations(yaml, want, 5, 3);
}
END_TEST

/* Buildkite's docs: 2x2x2, one soft_fail, one skip and one added "Plan 9": 9 and 8 jobs. */
START_TEST(docs_example)
{
    static const char yaml[] = "setup:\n"
                               "  arch: [\"amd64\", \"arm64\"]\n"
                               "  os: [\"windows\", \"linux\"]\n"
                               "  test: [\"A\", \"B\"]\n"
                               "adjustments:\n"
                               "  - with: {os: \"windows\", arch: \"arm64\", test: \"B\"}\n"
                               "    soft_fail: true\n"
                               "  - with: {os: \"linux\", arch: \"arm64\", test: \"B\"}\n"
                               "    skip: true\n"
                               "  - with: {os: \"Plan 9\", arch: \"arm64\", test: \"B\"}\n";
    static const char *const want[] = {
        "amd64/windows/A", "amd64/windows/B", "amd64/linux/A", "amd64/linux/B", "arm64/windows/A",
        "arm64/windows/B", "arm64/linux/A",   "arm64/linux/B", "arm64/Plan 9/B",
    };
    struct ynode_doc *doc;
    struct bkm_matrix *m = read_ok(yaml, &doc);

    ck_assert(bkm_combination(m, 5)->soft_fail != NULL);
    ck_assert(bkm_combination(m, 7)->skipped);
    ck_assert(bkm_combination(m, 8)->added);
    bkm_destroy(m);
    ynode_doc_destroy(doc);
    expect_combinations(yaml, want, 9, 8);
}
END_TEST

/* ---- errors ---- */

static const struct {
    const char *yaml;
    unsigned line, col; /* of the node the error points at */
    const char *msg;
} bad[] = {
    {"[a, {b: c}]", 1, 5, "not a mapping"},
    {"setup:\n  os: []\n", 2, 7, "at least one value"},
    {"[a, ~]", 1, 5, "null"},
    {"[1, 2024-01-31]", 1, 5, "a timestamp to the agent's YAML reader"},
    {"[1, 9223372036854775808]", 1, 5, "past the agent's integers"},
    {"[8, 010]", 1, 5, "the agent reads both as '8'"},
    {"setup: [1.5]\nadjustments:\n  - with: 1.5\n", 3, 11, "not the float '1.5'"},
    {"[a, b, a]", 1, 8, "'a' is already a value"},
    {"[a, 'x{{matrix}}']", 1, 6, "holds the matrix token '{{matrix}}'"},
    {"setup:\n  my-os: [a]\n", 2, 3, "letters, digits and '_'"},
    {"setup: [a]\nsetups: [b]\n", 2, 1, "unknown key 'setups'"},
    {"adjustments: []\n", 1, 1, "needs 'setup'"},
    {"setup: [a]\nadjustments:\n  - with: a\n    agents: {queue: q}\n", 4, 5, "unknown key 'agents'"},
    /* a partial `with` that matches nothing would add a combination without a value */
    {"setup:\n  os: [linux]\n  arch: [amd64]\nadjustments:\n  - with: {os: windows}\n", 5, 11,
     "matches no combination and gives no value for dimension 'arch'"},
    {"setup:\n  os: [linux]\n  arch: [amd64]\nadjustments:\n  - with: {os: linux, arch: amd64, cpu: x}\n", 5,
     36, "'cpu' is not a dimension"},
    {"setup: [a]\nadjustments:\n  - skip: true\n", 3, 5, "needs 'with'"},
    {"setup: [a]\nadjustments:\n  - with: a\n    skip: 3\n", 4, 11, "'skip' must be true, false or a reason"},
    {"setup: [a, b]\nadjustments:\n  - with: [a, b]\n", 3, 11, "one value, not 2"},
};

START_TEST(read_errors)
{
    expect_read_error(bad[_i].yaml, bad[_i].line, bad[_i].col, bad[_i].msg);
}
END_TEST

/* Each limit is reached without error and passed with one at the first node past it:
 * the YAML grows one item (of `lines` lines, the first at line `first`) at a time. */
static const struct {
    const char *head, *pre, *post; /* item i is pre, i, post */
    int limit, first, lines, col;
    const char *msg;
} limits[] = {
    {"setup:\n", "  d", ": [x]\n", BKM_MAX_DIMENSIONS, 2, 1, 3, "more than 6 matrix dimensions"},
    {"setup:\n", "  - v", "\n", BKM_MAX_ELEMENTS, 2, 1, 5, "more than 25 values"},
    {"setup: [a]\nadjustments:\n", "  - with: a\n    soft_fail: [{exit_status: ", "}]\n",
     BKM_MAX_ADJUSTMENTS, 3, 2, 5, "more than 12 matrix adjustments"},
};

START_TEST(limit_counts)
{
    char yaml[1024];

    snprintf(yaml, sizeof(yaml), "%s", limits[_i].head);
    for (int i = 1; i <= limits[_i].limit; i++)
        appendf(yaml, sizeof(yaml), "%s%d%s", limits[_i].pre, i, limits[_i].post);
    expect_read_ok(yaml);
    appendf(yaml, sizeof(yaml), "%s%d%s", limits[_i].pre, limits[_i].limit + 1, limits[_i].post);
    expect_read_error(yaml, limits[_i].first + limits[_i].limit * limits[_i].lines, limits[_i].col,
                      limits[_i].msg);
}
END_TEST

START_TEST(limit_element_bytes)
{
    char yaml[512], x[BKM_MAX_ELEMENT_BYTES + 2];

    /* a value (zeros would be the agent's integer 0: bkscalar.h) */
    memset(x, 'x', sizeof(x) - 1);
    x[sizeof(x) - 1] = '\0';
    snprintf(yaml, sizeof(yaml), "[a, %.*s]", BKM_MAX_ELEMENT_BYTES, x);
    expect_read_ok(yaml);
    snprintf(yaml, sizeof(yaml), "[a, %s]", x);
    expect_read_error(yaml, 1, 5, "129 bytes");
    /* a dimension name */
    snprintf(yaml, sizeof(yaml), "setup:\n  %0*d: [a]\n", BKM_MAX_ELEMENT_BYTES, 0);
    expect_read_ok(yaml);
    snprintf(yaml, sizeof(yaml), "setup:\n  %0*d: [a]\n", BKM_MAX_ELEMENT_BYTES + 1, 0);
    expect_read_error(yaml, 2, 3, "129 bytes");
}
END_TEST

/* `{setup: {x: [x0..], y: [y0..]}}` of nx by ny, with `extra` after the setup. */
static void grid(char *yaml, size_t cap, int nx, int ny, const char *extra)
{
    snprintf(yaml, cap, "{setup: {x: [");
    for (int i = 0; i < nx; i++)
        appendf(yaml, cap, "%sx%d", i ? ", " : "", i);
    appendf(yaml, cap, "], y: [");
    for (int i = 0; i < ny; i++)
        appendf(yaml, cap, "%sy%d", i ? ", " : "", i);
    appendf(yaml, cap, "]}%s}", extra);
}

/* The limit counts jobs: skipped combinations do not count. */
START_TEST(limit_jobs)
{
    char yaml[1024];

    grid(yaml, sizeof(yaml), 5, 10, "");
    expect_read_ok(yaml);
    /* past Buildkite's default quota: a warning where the step is expanded, not here */
    grid(yaml, sizeof(yaml), 8, 7, "");
    expect_read_ok(yaml);
    grid(yaml, sizeof(yaml), 25, 25, "");
    expect_read_ok(yaml);
    /* fanout's bound on the work: 25^3 combinations are not made */
    grid(yaml, sizeof(yaml), 25, 25, "");
    yaml[strlen(yaml) - 2] = '\0'; /* reopen the setup: "...]}}" -> "...]" */
    appendf(yaml, sizeof(yaml), ", z: [");
    for (int i = 0; i < 25; i++)
        appendf(yaml, sizeof(yaml), "%sz%d", i ? ", " : "", i);
    appendf(yaml, sizeof(yaml), "]}}");
    expect_read_error(yaml, 1, 1, "makes 15625 combinations; fanout renders at most 10000");
}
END_TEST

/* ---- tokens ---- */

/* Tokens the check accepts: every field Buildkite fills, with and without spaces. */
static const char *const good_steps[] = {
    "{matrix: " MULTI ", label: '{{matrix.os}} on {{ matrix.arch }}', command: 'make {{matrix.os}}',"
    " commands: ['a {{ matrix.os }}', b], env: {OS: '{{matrix.os}}'}, agents: {queue: '{{matrix.arch}}'},"
    " plugins: [{docker#v5: {image: 'img:{{matrix.os}}'}}], x_custom: '{{matrix.os}}', key: k}",
    "{matrix: " SINGLE ", label: '{{matrix}}', command: 'echo {{ matrix }}', env: {V: '{{matrix}}'}}",
};

START_TEST(tokens_valid)
{
    struct ynode_doc *doc = doc_from(good_steps[_i]);
    const struct ynode *step = ynode_doc_root(doc);
    struct bkm_error err;
    struct bkm_matrix *m = bkm_read(ynode_get(step, "matrix"), &err);

    ck_assert_ptr_nonnull(m);
    ck_assert_msg(bkm_check_tokens(m, step, &err) == 0, "%s: %s", good_steps[_i], err.msg);
    bkm_destroy(m);
    ynode_doc_destroy(doc);
}
END_TEST

static const struct {
    const char *step;
    const char *at; /* the text of the scalar the error points at */
    size_t offset;  /* of the token in it */
    const char *msg;
} bad_tokens[] = {
    {"{matrix: " MULTI ", label: 'ab {{matrix.nope}}'}", "ab {{matrix.nope}}", 3, "no dimension 'nope'"},
    /* the second token is the wrong one */
    {"{matrix: " MULTI ", command: '{{matrix.os}} {{ matrix.cpu }}'}", "{{matrix.os}} {{ matrix.cpu }}", 14,
     "no dimension 'cpu'"},
    {"{matrix: " MULTI ", commands: [a, 'x {{matrix}}']}", "x {{matrix}}", 2, "{{matrix.<dimension>}}"},
    {"{matrix: " SINGLE ", label: 'x {{matrix.os}}'}", "x {{matrix.os}}", 2, "single-dimension"},
    {"{matrix: " MULTI ", key: 'k-{{matrix.os}}'}", "k-{{matrix.os}}", 2, "in key"},
    {"{matrix: " MULTI ", concurrency_group: 'g/{{ matrix.os }}'}", "g/{{ matrix.os }}", 2,
     "in concurrency_group"},
    {"{matrix: " MULTI ", timeout_in_minutes: '{{matrix.os}}'}", "{{matrix.os}}", 0, "in timeout_in_minutes"},
    {"{matrix: " MULTI ", env: {'K{{matrix.os}}': v}}", "K{{matrix.os}}", 1, "a mapping key of env"},
    /* an unknown field is filled, so its tokens are checked too */
    {"{matrix: " MULTI ", x_custom: {a: ['{{matrix.nope}}']}}", "{{matrix.nope}}", 0, "no dimension 'nope'"},
};

START_TEST(tokens_invalid)
{
    struct ynode_doc *doc = doc_from(bad_tokens[_i].step);
    const struct ynode *step = ynode_doc_root(doc);
    struct bkm_error err;
    struct bkm_matrix *m = bkm_read(ynode_get(step, "matrix"), &err);

    ck_assert_ptr_nonnull(m);
    ck_assert_msg(bkm_check_tokens(m, step, &err) == -1, "%s: accepted", bad_tokens[_i].step);
    ck_assert_msg(ynode_scalar_is(err.at, bad_tokens[_i].at), "%s: error at [%s]", bad_tokens[_i].step,
                  ynode_scalar(err.at, NULL) ? ynode_scalar(err.at, NULL) : "(not a scalar)");
    ck_assert_uint_eq(err.offset, bad_tokens[_i].offset);
    ck_assert_msg(strstr(err.msg, bad_tokens[_i].msg) != NULL, "got [%s], want [%s]", err.msg,
                  bad_tokens[_i].msg);
    bkm_destroy(m);
    ynode_doc_destroy(doc);
}
END_TEST

START_TEST(fills_field)
{
    ck_assert(bkm_fills_field("label", 5));
    ck_assert(bkm_fills_field("env", 3));
    ck_assert(bkm_fills_field("x_custom", 8));
    ck_assert(!bkm_fills_field("key", 3));
    ck_assert(!bkm_fills_field("concurrency_group", 17));
    /* the length counts, not a NUL */
    ck_assert(bkm_fills_field("labels", 5));
}
END_TEST

/* ---- filling ---- */

/* Combination 1 of MULTI is linux/amd64. */
static const char fill_step[] = "{matrix: " MULTI ", command: 'echo {{matrix.os}}-{{ matrix.arch }}',"
                                " label: build, env: {A: '{{matrix.os}}', B: kept},"
                                " commands: [first, 'b {{matrix.arch}}']}";

START_TEST(fill_scalars)
{
    struct ynode_doc *doc = doc_from(fill_step);
    struct ynode *step = ynode_doc_root(doc);
    struct ynode *cmd = ynode_get(step, "command"), *label = ynode_get(step, "label");
    struct bkm_error err;
    struct bkm_matrix *m = bkm_read(ynode_get(step, "matrix"), &err);
    struct ynode *filled;

    ck_assert_ptr_nonnull(m);
    filled = bkm_fill(m, 1, doc, cmd);
    ck_assert_ptr_nonnull(filled);
    ck_assert_ptr_ne(filled, cmd);
    ck_assert_str_eq(ynode_scalar(filled, NULL), "echo linux-amd64");
    ck_assert_str_eq(ynode_scalar(cmd, NULL), "echo {{matrix.os}}-{{ matrix.arch }}");
    /* a filled value is a string, whatever it looks like */
    ck_assert(ynode_is_string(filled));
    /* nothing to fill: the node itself, not a copy */
    ck_assert_ptr_eq(bkm_fill(m, 1, doc, label), label);
    bkm_destroy(m);
    ynode_doc_destroy(doc);
}
END_TEST

/* A container is copied only when something under it changes, and shares the rest. */
START_TEST(fill_containers)
{
    struct ynode_doc *doc = doc_from(fill_step);
    struct ynode *step = ynode_doc_root(doc);
    struct ynode *env = ynode_get(step, "env"), *cmds = ynode_get(step, "commands");
    struct bkm_error err;
    struct bkm_matrix *m = bkm_read(ynode_get(step, "matrix"), &err);
    struct ynode *f_env, *f_cmds, *f_step;

    ck_assert_ptr_nonnull(m);
    f_env = bkm_fill(m, 1, doc, env);
    ck_assert_ptr_nonnull(f_env);
    ck_assert_ptr_ne(f_env, env);
    ck_assert_uint_eq(ynode_len(f_env), 2);
    ck_assert_ptr_eq(ynode_key(f_env, 0), ynode_key(env, 0));
    ck_assert_str_eq(ynode_scalar(ynode_value(f_env, 0), NULL), "linux");
    ck_assert_ptr_eq(ynode_key(f_env, 1), ynode_key(env, 1));
    ck_assert_ptr_eq(ynode_value(f_env, 1), ynode_value(env, 1));
    ck_assert_str_eq(ynode_scalar(ynode_value(env, 0), NULL), "{{matrix.os}}");

    f_cmds = bkm_fill(m, 1, doc, cmds);
    ck_assert_ptr_nonnull(f_cmds);
    ck_assert_ptr_ne(f_cmds, cmds);
    ck_assert_uint_eq(ynode_len(f_cmds), 2);
    ck_assert_ptr_eq(ynode_item(f_cmds, 0), ynode_item(cmds, 0));
    ck_assert_str_eq(ynode_scalar(ynode_item(f_cmds, 1), NULL), "b amd64");
    ck_assert_str_eq(ynode_scalar(ynode_item(cmds, 1), NULL), "b {{matrix.arch}}");

    /* the whole step: only the fields with tokens are new */
    f_step = bkm_fill(m, 1, doc, step);
    ck_assert_ptr_nonnull(f_step);
    ck_assert_ptr_ne(f_step, step);
    ck_assert_ptr_eq(ynode_get(f_step, "label"), ynode_get(step, "label"));
    ck_assert_ptr_eq(ynode_get(f_step, "matrix"), ynode_get(step, "matrix"));
    ck_assert_str_eq(ynode_scalar(ynode_get(f_step, "command"), NULL), "echo linux-amd64");
    bkm_destroy(m);
    ynode_doc_destroy(doc);
}
END_TEST

START_TEST(fill_single)
{
    struct ynode_doc *doc = doc_from("{matrix: " SINGLE ", label: '{{matrix}}/{{ matrix }}'}");
    struct ynode *step = ynode_doc_root(doc);
    struct bkm_error err;
    struct bkm_matrix *m = bkm_read(ynode_get(step, "matrix"), &err);
    struct ynode *filled;

    ck_assert_ptr_nonnull(m);
    filled = bkm_fill(m, 1, doc, ynode_get(step, "label"));
    ck_assert_ptr_nonnull(filled);
    ck_assert_str_eq(ynode_scalar(filled, NULL), "b/b");
    bkm_destroy(m);
    ynode_doc_destroy(doc);
}
END_TEST

/* ---- a rendered job's matrix ---- */

/* Every combination's job matrix reads back, by bkm_row and by bkm_read, as that
 * combination alone. */
static const char *const row_matrices[] = {THREE, SINGLE, "{setup: [x, y]}", adjusted};

START_TEST(row_round_trip)
{
    struct ynode_doc *doc;
    struct bkm_matrix *m = read_ok(row_matrices[_i], &doc);
    struct ypos pos = {0, 1, 1};

    for (size_t i = 0; i < bkm_combinations(m); i++) {
        struct ynode_pair got[BKM_MAX_DIMENSIONS], want[BKM_MAX_DIMENSIONS];
        struct ynode *job = bkm_job_matrix(m, i, doc, pos);
        size_t n = bkm_combination_row(m, i, want);
        struct bkm_error err;
        struct bkm_matrix *back;

        ck_assert_ptr_nonnull(job);
        ck_assert_uint_eq(n, bkm_dimensions(m));
        ck_assert_uint_eq(bkm_row(job, got), n);
        for (size_t d = 0; d < n; d++) {
            ck_assert_str_eq(ynode_scalar(got[d].key, NULL), ynode_scalar(want[d].key, NULL));
            ck_assert_str_eq(ynode_scalar(got[d].value, NULL), ynode_scalar(want[d].value, NULL));
        }
        if (bkm_single(m))
            ck_assert_str_eq(ynode_scalar(got[0].key, NULL), "matrix");
        back = bkm_read(job, &err);
        ck_assert_msg(back != NULL, "%s: job matrix %zu refused: %s", row_matrices[_i], i, err.msg);
        ck_assert_uint_eq(bkm_combinations(back), 1);
        ck_assert_uint_eq(bkm_single(back), bkm_single(m));
        bkm_destroy(back);
    }
    bkm_destroy(m);
    ynode_doc_destroy(doc);
}
END_TEST

/* Only a matrix of exactly one combination without adjustments is a row. */
static const struct {
    const char *yaml;
    size_t n;
} rows[] = {
    {"[a]", 1},
    {"{setup: [a]}", 1},
    {"{setup: {os: [linux], arch: [amd64]}}", 2},
    {"[a, b]", 0},
    {"{setup: {os: [linux, mac], arch: [amd64]}}", 0},
    {"{setup: {os: [linux]}, adjustments: [{with: {os: mac}}]}", 0},
    {"{setup: {os: [linux]}, adjustments: []}", 0},
    {"{os: [linux]}", 0},
    {"{setup: {os: [{a: b}]}}", 0},
    {"linux", 0},
};

START_TEST(row_shapes)
{
    struct ynode_doc *doc = doc_from(rows[_i].yaml);
    struct ynode_pair pairs[BKM_MAX_DIMENSIONS];

    ck_assert_msg(bkm_row(ynode_doc_root(doc), pairs) == rows[_i].n, "%s", rows[_i].yaml);
    ynode_doc_destroy(doc);
}
END_TEST

START_TEST(row_text)
{
    struct ynode_doc *doc = doc_from("{setup: {os: [linux], arch: [amd64]}}");
    struct ynode_pair pairs[BKM_MAX_DIMENSIONS];
    size_t n = bkm_row(ynode_doc_root(doc), pairs);
    char buf[64], small[8];
    size_t len;

    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(ynode_scalar(pairs[0].key, NULL), "os");
    ck_assert_uint_eq(bkm_row_text(pairs, n, buf, sizeof(buf)), 12);
    ck_assert_str_eq(buf, "linux, amd64");
    /* too small: a prefix, its length returned */
    len = bkm_row_text(pairs, n, small, sizeof(small));
    ck_assert_uint_eq(len, strlen(small));
    ck_assert_uint_lt(len, sizeof(small));
    ck_assert(strncmp(buf, small, len) == 0);
    ynode_doc_destroy(doc);
}
END_TEST

/* ---- ynode_text_pos: where a token's error is reported ---- */

static const struct {
    const char *yaml; /* `label` is the scalar */
    size_t offset;
    unsigned line, col; /* 0: the scalar's own position */
} text_pos[] = {
    {"label: ab {{matrix.os}}\n", 3, 1, 11}, /* plain: 8 + 3 */
    /* '' is one byte of text for two written: the scalar's own */
    {"label: 'it''s {{matrix.os}}'\n", 5, 0, 0},
    {"label: |\n  ab\n  {{matrix.os}}\n", 3, 0, 0}, /* several lines: the scalar's own */
    /* the scalar's position is inside its quotes */
    {"label: \"ab {{matrix.os}}\"\n", 3, 1, 12},
    {"label: 'ab {{matrix.os}}'\n", 3, 1, 12},
    /* a plain scalar folded over two lines has no newline left in its text */
    {"label: ab\n  {{matrix.os}}\n", 3, 0, 0},
    /* an escape is one byte of text for two written */
    {"label: \"\\t\\tab {{matrix.os}}\"\n", 5, 0, 0},
};

START_TEST(text_positions)
{
    struct ynode_doc *doc = doc_from(text_pos[_i].yaml);
    const struct ynode *label = ynode_get(ynode_doc_root(doc), "label");
    struct ypos at = ynode_text_pos(label, text_pos[_i].offset), want = ynode_pos(label);

    if (text_pos[_i].line) {
        want.line = text_pos[_i].line;
        want.col = text_pos[_i].col;
    }
    ck_assert_msg(at.line == want.line && at.col == want.col, "%s: %u:%u, want %u:%u", text_pos[_i].yaml,
                  at.line, at.col, want.line, want.col);
    ynode_doc_destroy(doc);
}
END_TEST

#define LOOP(tc, test, table) tcase_add_loop_test(tc, test, 0, sizeof(table) / sizeof((table)[0]))

Suite *bkmatrix_suite(void)
{
    Suite *s = suite_create("bkmatrix");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, order_first_dimension_slowest);
    tcase_add_test(tc, single_dimension);
    tcase_add_test(tc, single_dimension_with);
    tcase_add_test(tc, element_types);
    tcase_add_test(tc, adjustments);
    tcase_add_test(tc, adjustments_partial);
    tcase_add_test(tc, docs_example);
    LOOP(tc, read_errors, bad);
    LOOP(tc, limit_counts, limits);
    tcase_add_test(tc, limit_element_bytes);
    tcase_add_test(tc, limit_jobs);
    LOOP(tc, tokens_valid, good_steps);
    LOOP(tc, tokens_invalid, bad_tokens);
    tcase_add_test(tc, fills_field);
    tcase_add_test(tc, fill_scalars);
    tcase_add_test(tc, fill_containers);
    tcase_add_test(tc, fill_single);
    LOOP(tc, row_round_trip, row_matrices);
    LOOP(tc, row_shapes, rows);
    tcase_add_test(tc, row_text);
    LOOP(tc, text_positions, text_pos);
    suite_add_tcase(s, tc);
    return s;
}
