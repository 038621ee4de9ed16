/* dialect: the options the dialects declare (per side, copies, what check's fix command
 * repeats) and detection by the dialects' `detect` entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/dialect.h"
#include "fanout/source.h"
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

static const struct dialect *detect(const char *text)
{
    char path[] = "/tmp/fanout-dialect-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    struct source *src;
    const struct dialect *found;

    fputs(text, f);
    fclose(f);
    src = source_open(path, d);
    found = dialect_detect(src, d);
    source_close(src);
    diag_destroy(d);
    unlink(path);
    return found;
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
    ck_assert_ptr_eq(detect(""), &dialect_buildkite);
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
    suite_add_tcase(s, tc);
    return s;
}
