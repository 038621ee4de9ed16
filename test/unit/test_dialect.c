/* dialect: the options the dialects declare (per side, copies, what check's fix command
 * repeats) and detection by the dialects' `detect` entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fanout/dialect.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "unit.h"

static int usage_seen;

static int count_usage(const char *what, const char *arg)
{
    (void)what;
    (void)arg;
    usage_seen++;
    return DIAG_INPUT;
}

static const struct dialect_option_io io = {count_usage, DIAG_TEXT};

START_TEST(options_per_side)
{
    const struct dialect_option *mirror = dialect_option_find("mirror-parallelism");
    const struct dialect_option *platform = dialect_option_find("platform");
    struct dialect_options *o = dialect_options_create();

    ck_assert_ptr_nonnull(mirror);
    ck_assert(mirror->per_side && !platform->per_side);
    ck_assert_int_eq(dialect_options_value(o, mirror, 0), 0);
    ck_assert_int_eq(dialect_options_value(NULL, mirror, 1), 0);
    /* once: both sides; twice: the second is HEAD's */
    ck_assert_int_eq(dialect_options_parse(o, mirror, "inherit", 0, &io), 0);
    ck_assert_int_eq(dialect_options_value(o, mirror, 0), 1);
    ck_assert_int_eq(dialect_options_value(o, mirror, 1), 1);
    ck_assert_int_eq(dialect_options_parse(o, mirror, "own", 1, &io), 0);
    ck_assert_int_eq(dialect_options_value(o, mirror, 0), 1);
    ck_assert_int_eq(dialect_options_value(o, mirror, 1), 0);
    /* a later value of an option that is not per side wins on both */
    ck_assert_int_eq(dialect_options_parse(o, platform, "amd", 0, &io), 0);
    ck_assert_int_eq(dialect_options_parse(o, platform, "nvidia", 1, &io), 0);
    ck_assert_int_eq(dialect_options_value(o, platform, 0), 1);
    ck_assert_int_eq(dialect_options_value(o, platform, 1), 1);
    dialect_options_destroy(o);
}
END_TEST

/* A copy takes worded options on top of the original's and leaves the original as it
 * was; it refuses options that add to what the original collected. */
START_TEST(options_copy)
{
    const struct dialect_option *platform = dialect_option_find("platform");
    const struct dialect_option *input = dialect_option_find("input");
    struct dialect_options *o = dialect_options_create(), *c;
    char *text = NULL;
    size_t len = 0;
    FILE *f;

    ck_assert_int_eq(dialect_options_parse(o, input, "a=1", 0, &io), 0);
    ck_assert_ptr_nonnull(dialect_options_contexts(o));
    c = dialect_options_copy(o);
    ck_assert_int_eq(dialect_options_parse(c, platform, "amd", 0, NULL), 0);
    ck_assert_int_eq(dialect_options_value(c, platform, 0), 2);
    ck_assert_int_eq(dialect_options_value(o, platform, 0), 0);
    ck_assert_ptr_eq(dialect_options_contexts(c), dialect_options_contexts(o));
    usage_seen = 0;
    ck_assert_int_eq(dialect_options_parse(c, input, "b=2", 0, &io), DIAG_INPUT);
    ck_assert_int_eq(usage_seen, 1);
    f = open_memstream(&text, &len);
    dialect_options_write(c, f);
    dialect_options_write(o, f);
    fclose(f);
    ck_assert_str_eq(text, " --platform amd");
    free(text);
    dialect_options_destroy(c);
    dialect_options_destroy(o);
}
END_TEST

/* Every option is some dialect's, once, and takes what its choices say. */
START_TEST(options_declared)
{
    const struct dialect_option *o;
    const struct dialect *owner;
    size_t i = 0;

    for (; (o = dialect_option_at(i, &owner)); i++) {
        ck_assert_ptr_eq(dialect_option_find(o->name), o);
        ck_assert_ptr_nonnull(owner);
        ck_assert(o->help && o->scope);
        ck_assert(!o->choices || o->has_arg);
        ck_assert(!o->choices || dialect_option_choice(o, o->choices[0]) == 0);
    }
    ck_assert_uint_le(i, DIALECT_MAX_OPTIONS);
    ck_assert_int_eq(dialect_option_choice(dialect_option_find("platform"), "amdx"), -1);
}
END_TEST

/* The dialect of `text` in a file whose name ends with `suffix` (NULL: none found). */
static const struct dialect *detect_named(const char *text, const char *suffix, enum dialect_verdict want)
{
    char dir[] = "/tmp/fanout-dialect-XXXXXX", path[96];
    FILE *f;
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    struct source *src;
    const struct dialect *found;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/input%s", dir, suffix);
    f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    src = source_open(path, d);
    ck_assert_int_eq(dialect_detect(src, &found, d), want);
    source_close(src);
    diag_destroy(d);
    unlink(path);
    rmdir(dir);
    return found;
}

static const struct dialect *detect(const char *text)
{
    return detect_named(text, "", DIALECT_FOUND);
}

START_TEST(detection)
{
    ck_assert_ptr_eq(detect("on: push\njobs:\n  a: {runs-on: x, steps: [{run: y}]}\n"), &dialect_gha);
    ck_assert_ptr_eq(detect("group: G\nsteps: []\n"), &dialect_testarea);
    ck_assert_ptr_eq(detect("env: {A: 1}\nsteps: [{command: x}]\n"), &dialect_buildkite);
    ck_assert_ptr_eq(detect("- command: x\n"), &dialect_buildkite);
    /* the first key that tells: steps before group is a pipeline */
    ck_assert_ptr_eq(detect("steps: []\ngroup: G\n"), &dialect_buildkite);
    ck_assert_ptr_eq(detect("a: 1\n"), &dialect_buildkite);
    /* nothing tells: another input decides (dialect_detect_all) */
    ck_assert_ptr_null(detect_named("", "", DIALECT_SILENT));
    ck_assert_ptr_null(detect_named("# only a comment\n---\n", "", DIALECT_SILENT));
    /* YAML that breaks before anything told: a workflow's when `on` came first (its
     * reader says the break), else nothing tells */
    ck_assert_ptr_eq(detect_named("on: push\nenv: {A: *nope}\njobs: {}\n", "", DIALECT_FOUND), &dialect_gha);
    ck_assert_ptr_null(detect_named("env: {A: *nope}\non: push\njobs: {}\n", "", DIALECT_SILENT));
    ck_assert_ptr_null(detect_named("agents: {A: *nope}\nsteps: []\n", "", DIALECT_SILENT));
    /* the first document that holds anything tells */
    ck_assert_ptr_eq(detect("{}\n---\non: push\njobs: {a: {runs-on: x, steps: [{run: y}]}}\n"), &dialect_gha);
}
END_TEST

/* A top-level group is a test-area file's in a test_areas folder, or when its first step
 * has only test-area fields; ray's rayci files have one too: a *.rayci.yml name, a
 * sort_key or default_job_env, or a first step with a key only rayci reads tell them
 * (asked before the test-area dialect); Buildkite never takes a file with a group. */
START_TEST(detection_group)
{
    static const char rayci[] = "group: core\nsteps:\n  - name: build\n    wanda: w.yaml\n";
    char dir[] = "/tmp/fanout-dialect-XXXXXX";
    char path[96];
    FILE *f;
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    const struct dialect *found;

    ck_assert_ptr_eq(detect("group: G\nsteps:\n  - label: a\n    commands: [x]\n"), &dialect_testarea);
    ck_assert_ptr_eq(detect("group: G\ndepends_on: [x]\n"), &dialect_testarea);
    ck_assert_ptr_eq(detect_named(rayci, ".rayci.yml", DIALECT_FOUND), &dialect_rayci);
    ck_assert_ptr_eq(detect_named(rayci, ".rayci.yaml", DIALECT_FOUND), &dialect_rayci);
    ck_assert_ptr_eq(detect(rayci), &dialect_rayci);
    ck_assert_ptr_eq(detect("group: G\nsteps:\n  - key: x\n    instance_type: y\n"), &dialect_rayci);
    ck_assert_ptr_eq(detect("group: G\nsort_key: _a\n"), &dialect_rayci);
    /* by its name, whatever its steps hold (their errors are rayci's) */
    ck_assert_ptr_eq(detect_named("group: G\nsteps:\n  - label: a\n    commands: [x]\n", ".rayci.yml",
                                  DIALECT_FOUND), &dialect_rayci);
    ck_assert_ptr_null(detect_named("# nothing\n", ".rayci.yml", DIALECT_SILENT));
    /* a typo of a test-area field is the test-area dialect's to report */
    ck_assert_ptr_eq(detect("group: G\nsteps:\n  - label: a\n    timeout_in_minute: 5\n"), &dialect_testarea);
    /* in a test_areas folder, whatever its steps hold (their errors are testarea's) */
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/test_areas", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/test_areas/a.yaml", dir);
    f = fopen(path, "w");
    fputs(rayci, f);
    fclose(f);
    ck_assert_int_eq(dialect_detect_path(path, &found, d), DIALECT_FOUND);
    ck_assert_ptr_eq(found, &dialect_testarea);
    unlink(path);
    snprintf(path, sizeof(path), "%s/test_areas", dir);
    rmdir(path);
    rmdir(dir);
    diag_destroy(d);
}
END_TEST

/* The items `text` gives read as `dl` reads its files, each as "kind line:col key;", after
 * detection with its head kept (`held`: the head must be kept, or must not) or without; the
 * errors reported in *errors. */
static void read_items(const char *text, const struct dialect *dl, bool with_head, bool held, char *out,
                       size_t cap, unsigned *errors)
{
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct source *src = source_open_text("in.yml", text, strlen(text), d);
    struct dialect_head *head = NULL;
    const struct dialect *found;
    struct dialect_input in = {.diag = d, .shape = dl->shape, .sources = &src, .n = 1};
    struct dialect_reader *r;
    struct stream_item item;
    size_t o = 0;

    if (with_head) {
        dialect_detect_source(src, 0, &found, &head, d);
        ck_assert_int_eq(head != NULL, held);
        in.heads = &head;
    }
    r = dialect_files_open(&in, NULL, NULL);
    while (dialect_files_next(r, &item) > 0) {
        const struct ynode *root = item.doc ? ynode_doc_root(item.doc) : NULL;
        const struct ynode *first = !root ? NULL : ynode_is_map(root) ? ynode_key(root, 0) : ynode_item(root, 0);
        size_t len = 0;
        const char *key = ynode_is_scalar(first) ? ynode_scalar(first, &len) : "";

        o += (size_t)snprintf(out + o, cap - o, "%d %u:%u %.*s;", (int)item.kind, item.pos.line, item.pos.col,
                              (int)len, key);
        ynode_doc_destroy(item.doc);
    }
    dialect_files_close(r);
    ck_assert_ptr_null(head); /* taken by the reader */
    *errors = diag_errors(d);
    source_close(src);
    diag_destroy(d);
}

/* What detection read is read on from, not again: the dialect's reader gives the items and
 * the errors a read from the start gives (dialect_head). */
static void head_same(const char *text, const struct dialect *dl, bool held)
{
    char with[2048], without[2048];
    unsigned errors_with, errors_without;

    read_items(text, dl, true, held, with, sizeof(with), &errors_with);
    read_items(text, dl, false, false, without, sizeof(without), &errors_without);
    ck_assert_str_eq(with, without);
    ck_assert_uint_eq(errors_with, errors_without);
}

START_TEST(detection_head)
{
    char many[4096];
    size_t o = 0;

    head_same("name: w\non: push\njobs:\n  a: {runs-on: x, steps: [{run: y}]}\n  b: {runs-on: x}\n",
              &dialect_gha, true);
    /* a flow collection first is read through a prefix (source.c decide_prefix), never
     * whole in one read: read again */
    head_same("{}\n---\non: push\njobs: {a: {runs-on: x}}\n---\nsteps: [{run: y}]\n", &dialect_gha, false);
    head_same("# c\n---\non: push\njobs: {a: {runs-on: x}}\n---\nsteps: [{run: y}]\n", &dialect_gha, true);
    head_same("env: {A: 1}\nsteps: [{command: x}, {command: y}]\n---\njobs: {a: 1}\n", &dialect_buildkite, true);
    head_same("- command: x\n- wait\n", &dialect_buildkite, true);
    /* a head that reported anything is read again, its error said by the run's read */
    head_same("on: push\non: pull_request\njobs: {a: {runs-on: x}}\n", &dialect_gha, false);
    /* a file no dialect_files reader reads */
    head_same("group: G\nsteps:\n  - label: a\n    commands: [x]\n", &dialect_testarea, false);
    /* aliases that expand a head past what is held (each item within the stream's budget) */
    head_same("a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
              "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
              "e: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\njobs: {a: {runs-on: x}}\n",
              &dialect_gha, false);
    /* too long a head to keep */
    for (int i = 0; i < 80; i++)
        o += (size_t)snprintf(many + o, sizeof(many) - o, "k%d: %d\n", i, i);
    snprintf(many + o, sizeof(many) - o, "jobs: {a: {runs-on: x}}\n");
    head_same(many, &dialect_gha, false);
    /* a head past the first read (64 KiB): its bytes are not held */
    {
        static char big[70000];
        size_t b = (size_t)snprintf(big, sizeof(big), "on: push\nenv:\n  A: \"");

        memset(big + b, 'x', sizeof(big) - b - 64);
        snprintf(big + sizeof(big) - 64, 64, "\"\njobs: {a: {runs-on: x}}\n");
        head_same(big, &dialect_gha, false);
    }
}
END_TEST

/* A fanned-out key `<id>-<index>` written and read back, cut as snprintf cuts. */
START_TEST(key_names)
{
    char out[12];
    size_t base;

    ck_assert_uint_eq(dialect_key_name(out, sizeof(out), "test-5", 6, 0), 8);
    ck_assert_str_eq(out, "test-5-0");
    ck_assert_int_eq(dialect_key_index(out, 8, &base), 0);
    ck_assert_uint_eq(base, 6);
    ck_assert_uint_eq(dialect_key_name(out, sizeof(out), "a", 1, 4294967295ul), 11);
    ck_assert_str_eq(out, "a-429496729");
    ck_assert_uint_eq(dialect_key_name(out, sizeof(out), "abcdefghijk", 11, 12), 11);
    ck_assert_str_eq(out, "abcdefghijk");
    ck_assert_uint_eq(dialect_key_name(out, sizeof(out), "abcdefghij", 10, 12), 11);
    ck_assert_str_eq(out, "abcdefghij-");
    ck_assert_uint_eq(dialect_key_name(out, sizeof(out), "", 0, 7), 2);
    ck_assert_str_eq(out, "-7");
}
END_TEST

/* One GitHub configuration's label, from its row, made only when asked. */
static int label_of(void *user, const struct dialect_job *job)
{
    char buf[24];
    const char *label = dialect_job_label(job, buf, sizeof(buf));

    ck_assert_ptr_null(job->label);
    strcpy(user, label ? label : "(none)");
    return 0;
}

/* A job's own label is its label; a matrix configuration's is made from its values
 * ("part 2" for one, "k=v k=v" for more, "..." for a value that is no scalar, cut to
 * fit); a job of neither has none. */
START_TEST(job_labels)
{
    static const char *const jobs[][2] = {
        {"t-0:\n  strategy: {matrix: {include: [{part: 2}]}}\n", "part 2"},
        {"t-0:\n  strategy: {matrix: {include: [{os: linux, arch: arm64}]}}\n", "os=linux arch=arm64"},
        {"t-0:\n  strategy: {matrix: {include: [{os: [a], py: null}]}}\n", "os=... py=null"},
        {"t-0:\n  strategy: {matrix: {include: [{os: linuxlinuxlinux, arch: arm64}]}}\n", "os=linuxlinuxlinux arch"},
        {"t:\n  runs-on: x\n", "(none)"},
    };
    struct dialect_job own = {.label = "shown", .row = NULL};
    char buf[8], got[64];

    ck_assert_str_eq(dialect_job_label(&own, buf, sizeof(buf)), "shown");
    for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
        struct ynode_doc *doc = doc_from(jobs[i][0]);

        ck_assert_int_eq(dialect_gha.each_job(ynode_doc_root(doc), label_of, got), 1);
        ck_assert_str_eq(got, jobs[i][1]);
        ynode_doc_destroy(doc);
    }
}
END_TEST

/* A run's bound on what configurations copy grows with the input read: a pipeline of any
 * size stays under it, an alias multiplied past it does not. */
START_TEST(run_copies_grow_with_input)
{
    static char text[2048];
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    struct source *src;
    struct stream *s;
    struct stream_item item;
    struct dialect_run_copies run = {0};
    struct dialect_ctx ctx = {.diag = d, .n_files = 1};

    memset(text, 'x', sizeof(text));
    memcpy(text, "steps: [", 8);
    text[sizeof(text) - 2] = ']';
    text[sizeof(text) - 1] = '\n';
    src = source_open_text("in.yml", text, sizeof(text), d);
    ctx.sources = &src;
    ck_assert(dialect_run_copies_charge(&ctx, &run, DIALECT_RUN_CONFIG_NODES));
    /* nothing read yet: the fixed part only */
    ck_assert(!dialect_run_copies_charge(&ctx, &run, 1));
    s = stream_open(src, 0, d);
    while (stream_next(s, &item) > 0)
        if (item.doc)
            ynode_doc_destroy(item.doc);
    stream_close(s);
    ck_assert(dialect_run_copies_charge(&ctx, &run, sizeof(text) * DIALECT_CONFIG_NODES_PER_BYTE - 1));
    ck_assert(!dialect_run_copies_charge(&ctx, &run, 1));
    source_close(src);
    diag_destroy(d);
}
END_TEST

Suite *dialect_suite(void)
{
    Suite *s = suite_create("dialect");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, options_per_side);
    tcase_add_test(tc, options_copy);
    tcase_add_test(tc, options_declared);
    tcase_add_test(tc, detection);
    tcase_add_test(tc, detection_group);
    tcase_add_test(tc, detection_head);
    tcase_add_test(tc, key_names);
    tcase_add_test(tc, job_labels);
    tcase_add_test(tc, run_copies_grow_with_input);
    suite_add_tcase(s, tc);
    return s;
}
