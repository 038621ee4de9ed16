/* The table-driven option parser (src/cmd/options.c) and the usage errors it reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/options.h"
#include "unit.h"

struct dest {
    bool flag;
    const char *name;
    int items;
    const char *last_item;
};

static int add_item(const struct opt_hit *hit, const char *arg)
{
    struct dest *d = hit->dest;

    d->items++;
    d->last_item = arg;
    return 0;
}

static const struct opt flag = {
    .kind = OPT_SET, .name = "flag", .short_name = 'x', .offset = offsetof(struct dest, flag), .value = true,
};
static const struct opt name = {
    .kind = OPT_STRING, .name = "name", .short_name = 'N', .has_arg = true,
    .offset = offsetof(struct dest, name), .help = "  -N, --name NAME\n",
};
static const struct opt item = {
    .kind = OPT_CALL, .name = "item", .has_arg = true, .call = add_item, .help = "      --item ITEM\n",
};
/* another command's */
static const struct opt other = {
    .kind = OPT_SET, .name = "other", .short_name = 'O', .offset = offsetof(struct dest, flag), .value = true,
};

static const struct opt *const own_table[] = {&flag, &name, &item, NULL};
static const struct opt *const other_table[] = {&name, &other, NULL};

/* What the parse of argv (NULL-terminated, after the program's name) did: its return,
 * where the operands begin and what it wrote on stderr (malloc'd). */
struct parsed {
    int rc, operands;
    struct dest d;
    char *err;
};

/* Runs `fn` with stderr captured into a malloc'd string. */
static char *capture_stderr(void (*fn)(void *), void *arg)
{
    FILE *tmp = tmpfile();
    int saved = dup(STDERR_FILENO);
    long len;
    char *text;

    ck_assert_ptr_nonnull(tmp);
    fflush(stderr);
    dup2(fileno(tmp), STDERR_FILENO);
    fn(arg);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    len = ftell(tmp);
    text = calloc(1, (size_t)len + 1);
    rewind(tmp);
    ck_assert_uint_eq(fread(text, 1, (size_t)len, tmp), (size_t)len);
    fclose(tmp);
    return text;
}

struct parse_call {
    char **argv;
    struct parsed *out;
};

static void run_parse(void *arg)
{
    struct parse_call *call = arg;
    struct opt_list own = {.n = 0}, known = {.n = 0};
    int argc = 0;

    while (call->argv[argc])
        argc++;
    ck_assert_int_eq(opt_list_add(&own, own_table), 0);
    ck_assert_int_eq(opt_list_add(&known, own_table), 0);
    ck_assert_int_eq(opt_list_add(&known, other_table), 0);
    cmd_usage_of("test");
    call->out->rc = opt_parse(&own, &known, "test", &call->out->d, NULL, argc, call->argv, &call->out->operands);
}

static struct parsed parse(char **argv)
{
    struct parsed p = {0};
    struct parse_call call = {argv, &p};

    p.err = capture_stderr(run_parse, &call);
    return p;
}

START_TEST(long_and_short_options)
{
    char *argv[] = {"test", "--flag", "--name=a", "op", NULL};
    char *shorts[] = {"test", "-x", "-N", "b", NULL};
    char *bundled[] = {"test", "-xNc", NULL};
    struct parsed p = parse(argv);

    ck_assert_int_eq(p.rc, 0);
    ck_assert(p.d.flag);
    ck_assert_str_eq(p.d.name, "a");
    ck_assert_int_eq(p.operands, 3);
    ck_assert_str_eq(argv[p.operands], "op");
    ck_assert_str_eq(p.err, "");
    free(p.err);
    p = parse(shorts);
    ck_assert_int_eq(p.rc, 0);
    ck_assert(p.d.flag);
    ck_assert_str_eq(p.d.name, "b");
    free(p.err);
    p = parse(bundled);
    ck_assert_int_eq(p.rc, 0);
    ck_assert(p.d.flag);
    ck_assert_str_eq(p.d.name, "c");
    free(p.err);
}
END_TEST

START_TEST(separate_value_abbreviation_and_operands_first)
{
    char *argv[] = {"test", "op1", "--na", "v", "op2", "--item", "i", NULL};
    struct parsed p = parse(argv);

    ck_assert_int_eq(p.rc, 0);
    ck_assert_str_eq(p.d.name, "v");
    ck_assert_int_eq(p.d.items, 1);
    /* the operands, in their order, after the options */
    ck_assert_int_eq(p.operands, 5);
    ck_assert_str_eq(argv[5], "op1");
    ck_assert_str_eq(argv[6], "op2");
    free(p.err);
}
END_TEST

START_TEST(double_dash_ends_options)
{
    char *argv[] = {"test", "--flag", "--", "--name", "-x", NULL};
    struct parsed p = parse(argv);

    ck_assert_int_eq(p.rc, 0);
    ck_assert_ptr_null(p.d.name);
    ck_assert_int_eq(p.operands, 3);
    ck_assert_str_eq(argv[3], "--name");
    ck_assert_str_eq(argv[4], "-x");
    free(p.err);
}
END_TEST

START_TEST(repeated_options)
{
    char *argv[] = {"test", "--item", "a", "--item=b", "--name", "x", "--name", "y", NULL};
    struct parsed p = parse(argv);

    ck_assert_int_eq(p.rc, 0);
    ck_assert_int_eq(p.d.items, 2);
    ck_assert_str_eq(p.d.last_item, "b");
    ck_assert_str_eq(p.d.name, "y"); /* the last wins */
    free(p.err);
}
END_TEST

START_TEST(unknown_options)
{
    char *near[] = {"test", "--flga", NULL};
    char *far[] = {"test", "--zzzzzz=1", NULL};
    char *short_inside[] = {"test", "-xz", NULL};
    char *others[] = {"test", "--other", NULL};
    char *others_short[] = {"test", "-O", NULL};
    struct parsed p = parse(near);

    ck_assert_int_eq(p.rc, CMD_EXIT_USAGE);
    ck_assert_str_eq(p.err, "fanout: error: unknown option for test (did you mean --flag?): --flga\n"
                            "Try 'fanout test --help'.\n");
    free(p.err);
    p = parse(far);
    ck_assert_int_eq(p.rc, CMD_EXIT_USAGE);
    ck_assert_str_eq(p.err, "fanout: error: unknown option for test (an operand that starts with '-' goes "
                            "after '--'): --zzzzzz=1\nTry 'fanout test --help'.\n");
    free(p.err);
    p = parse(short_inside);
    ck_assert_int_eq(p.rc, CMD_EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(p.err, "): -xz\n"));
    free(p.err);
    /* another command's option is known, but not this command's */
    p = parse(others);
    ck_assert_int_eq(p.rc, CMD_EXIT_USAGE);
    ck_assert_str_eq(p.err, "fanout: error: unknown option for this command: --other\n"
                            "Try 'fanout test --help'.\n");
    ck_assert(!p.d.flag);
    free(p.err);
    p = parse(others_short);
    ck_assert_ptr_nonnull(strstr(p.err, "this command: -O\n"));
    free(p.err);
}
END_TEST

START_TEST(missing_argument)
{
    char *argv[] = {"test", "--flag", "--name", NULL};
    char *shorts[] = {"test", "-N", NULL};
    struct parsed p = parse(argv);

    ck_assert_int_eq(p.rc, CMD_EXIT_USAGE);
    ck_assert_str_eq(p.err, "fanout: error: this option needs a value: --name\nTry 'fanout test --help'.\n");
    free(p.err);
    p = parse(shorts);
    ck_assert_int_eq(p.rc, CMD_EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(p.err, "needs a value: -N\n"));
    free(p.err);
}
END_TEST

START_TEST(help_wins)
{
    char *argv[] = {"test", "--flag", "--help", "--nope", NULL};
    struct parsed p = parse(argv);

    ck_assert_int_eq(p.rc, OPT_HELP);
    free(p.err);
}
END_TEST

static void print_help(void *arg)
{
    struct opt_list *l = arg;

    opt_help(l, stderr);
}

START_TEST(list_and_help)
{
    struct opt_list l = {.n = 0};
    const char *names[OPT_MAX + 1];
    char *help;

    ck_assert_int_eq(opt_list_add(&l, own_table), 0);
    ck_assert_int_eq(opt_list_add(&l, other_table), 0); /* --name once */
    ck_assert_uint_eq(l.n, 4);
    ck_assert_ptr_eq(opt_find(&l, "other")->call, NULL);
    ck_assert_ptr_null(opt_find(&l, "nope"));
    opt_names(&l, opt_find(&l, "name"), names);
    ck_assert_str_eq(names[0], "flag");
    ck_assert_str_eq(names[1], "item");
    ck_assert_str_eq(names[2], "other");
    ck_assert_ptr_null(names[3]);
    /* the helps in table order; an option without help prints none */
    help = capture_stderr(print_help, &l);
    ck_assert_str_eq(help, "  -N, --name NAME\n      --item ITEM\n");
    free(help);
}
END_TEST

/* The dialects' options stand in a table as one entry: each lands right after the option
 * its help follows (among the others following it), one following none at the end. */
START_TEST(dialect_options_placed)
{
    static const struct opt *const table[] = {&opt_upload, &opt_strict, &opt_dialect, &opt_validate,
                                              &opt_no_validate, &opt_dialects_render, &opt_config, NULL};
    struct opt_list l = {.n = 0};
    size_t dialect_options = 0;

    ck_assert_int_eq(opt_list_add(&l, table), 0);
    for (size_t i = 0; i < l.n; i++) {
        const struct dialect_option *d = l.items[i].dialect;
        size_t j = i;

        if (!d)
            continue;
        dialect_options++;
        ck_assert(d->scope & DIALECT_OPTION_RENDER);
        ck_assert_int_eq(l.items[i].value >= 0, 1);
        ck_assert_ptr_eq(dialect_option_at((size_t)l.items[i].value, NULL), d);
        while (j > 0 && l.items[j - 1].dialect)
            j--;
        if (d->help_after) {
            ck_assert_uint_gt(j, 0);
            ck_assert_str_eq(l.items[j - 1].name, d->help_after);
        } else
            ck_assert_str_eq(l.items[j - 1].name, "config");
    }
    ck_assert_uint_gt(dialect_options, 0);
}
END_TEST

/* --upload's help is what the dialects say it does to their input, one clause each, in
 * lines of the help's width under the options' column. */
START_TEST(upload_help_from_the_dialects)
{
    static const struct opt *const table[] = {&opt_upload, NULL};
    struct opt_list l = {.n = 0};
    const struct dialect *dl;
    char *help, *line;
    size_t clauses = 0;

    ck_assert_int_eq(opt_list_add(&l, table), 0);
    help = capture_stderr(print_help, &l);
    ck_assert_int_eq(strncmp(help, "      --upload        ", 22), 0);
    for (line = help; *line; line = strchr(line, '\n') + 1) {
        size_t len = strcspn(line, "\n");

        ck_assert_uint_le(len, 86);
        if (line != help)
            ck_assert_uint_eq(strspn(line, " "), 29);
    }
    for (size_t i = 0; (dl = dialect_at(i)); i++) {
        const char *last = dl->upload_help ? strrchr(dl->upload_help, ' ') + 1 : NULL;

        if (last) {
            ck_assert_ptr_nonnull(strstr(help, last)); /* its last word, wrapped or not */
            clauses++;
        }
    }
    ck_assert_uint_gt(clauses, 0);
    free(help);
}
END_TEST

struct usage_call {
    const char *what, *arg;
};

static void run_usage(void *arg)
{
    struct usage_call *call = arg;

    ck_assert_int_eq(cmd_usage_error(call->what, call->arg), CMD_EXIT_USAGE);
}

/* A usage error shows the argument as given, on its line: control characters escaped
 * (a terminal would run them), wherever the argument came from. */
START_TEST(usage_error_escapes_control_characters)
{
    struct usage_call call = {"unknown --format (yaml or json):", "a\x1b[31mb\n\tc\x7f"};
    char *err;
    char held[128] = "";

    cmd_usage_of("render");
    err = capture_stderr(run_usage, &call);
    ck_assert_str_eq(err, "fanout: error: unknown --format (yaml or json): a\\x1B[31mb\\n\\tc\\x7F\n"
                          "Try 'fanout render --help'.\n");
    free(err);
    /* before the command is known, the overall help */
    cmd_usage_of(NULL);
    call.arg = NULL;
    err = capture_stderr(run_usage, &call);
    ck_assert_str_eq(err, "fanout: error: unknown --format (yaml or json):\nTry 'fanout --help'.\n");
    free(err);
    /* held (the config's defaults): kept, not printed */
    cmd_usage_hold(held, sizeof(held));
    call.arg = "x";
    err = capture_stderr(run_usage, &call);
    cmd_usage_hold(NULL, 0);
    ck_assert_str_eq(err, "");
    ck_assert_str_eq(held, "unknown --format (yaml or json): x");
    free(err);
}
END_TEST

Suite *options_suite(void)
{
    Suite *s = suite_create("options");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, long_and_short_options);
    tcase_add_test(tc, separate_value_abbreviation_and_operands_first);
    tcase_add_test(tc, double_dash_ends_options);
    tcase_add_test(tc, repeated_options);
    tcase_add_test(tc, unknown_options);
    tcase_add_test(tc, missing_argument);
    tcase_add_test(tc, help_wins);
    tcase_add_test(tc, list_and_help);
    tcase_add_test(tc, dialect_options_placed);
    tcase_add_test(tc, upload_help_from_the_dialects);
    tcase_add_test(tc, usage_error_escapes_control_characters);
    suite_add_tcase(s, tc);
    return s;
}
