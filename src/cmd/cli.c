#include "fanout/cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/assign.h"
#include "fanout/cmd.h"
#include "fanout/config.h"
#include "fanout/dialect.h"
#include "fanout/inputs.h"
#include "fanout/output.h"
#include "fanout/rules.h"
#include "fanout/source.h"
#include "fanout/suggest.h"
#include "fanout/ynode.h"

static const struct cmd_entry *const commands[] = {
    &cmd_render_entry,        &cmd_validate_entry,      &cmd_check_entry,
    &cmd_diff_entry,          &cmd_expr_entry,          &cmd_shards_check_entry,
    &cmd_shards_assign_entry, &cmd_shards_plan_entry,   NULL};

static const char overview[] =
    "Renders Buildkite pipelines, vLLM test-area files and GitHub Actions workflows into\n"
    "explicit jobs. A DIR stands for the .yaml/.yml files under it, in path order.\n"
    "'fanout COMMAND --help' shows a command's options, 'fanout help rules' every rule.\n"
    "\n"
    "Exit status: 0 ok (same, fresh, valid), 1 findings (diff, stale, violations),\n"
    "2 usage, input or I/O error. See fanout(1) and docs/reference.md.\n";

/* Options of more than one command, described once. */
static const struct {
    enum cmd_option id;
    const char *text;
} option_help[] = {
    {OPT_OUTPUT, "  -o, --output FILE          write FILE atomically instead of stdout\n"},
    {OPT_UPLOAD, "      --upload               for `buildkite-agent pipeline upload`: keep\n"
                 "                             $$BUILDKITE_PARALLEL_JOB references (env carries the\n"
                 "                             values); test-area input: the working directory as a\n"
                 "                             leading cd, fields only the generator reads dropped\n"},
    {OPT_STRICT, "      --strict               warnings fail the run (exit 1)\n"},
    {OPT_DIALECT, "      --dialect auto|buildkite|testarea|gha\n"
                  "                             input dialect (default auto: a top-level `jobs` means a\n"
                  "                             GitHub Actions workflow, a top-level `group` vLLM's\n"
                  "                             test-area files)\n"},
    {OPT_NO_VALIDATE, "      --no-validate          skip the schema checks of input and rendering\n"},
    {OPT_CONFIG, "      --config FILE          the config file (default .fanout.yml when present): its\n"
                 "                             `shards` list adds runners' shard flags (docs/shards.md),\n"
                 "                             its `checks` list is what `check` checks\n"},
    {OPT_TESTS, "      --tests FILE           the collected tests: `pytest --collect-only -q` output or\n"
                "                             one node id a line\n"},
    {OPT_DURATIONS, "      --durations FILE       pytest-split's .test_durations (JSON) or a TSV of test and\n"
                    "                             seconds\n"},
    {OPT_SUITE, "      --suite NAME           the TSV's rows of this suite column value\n"},
    {OPT_ALGO, "      --algo pytest-shard@0.1.2|pytest-shard@0.1.1|pytest-split@least_duration|"
               "pytest-split@duration_based_chunks|sglang-lpt@legacy|sglang-lpt@registry|"
               "ci-infra-contiguous|round-robin\n"
               "                             the runner's algorithm (default pytest-shard@0.1.2;\n"
               "                             docs/shards.md)\n"},
    {OPT_COUNT, "  -n, --shards N             the number of shards\n"},
    {OPT_NODEID_PREFIX, "      --nodeid-prefix P      prepended to every collected node id (pytest's rootdir)\n"},
    {OPT_OVERHEAD, "      --overhead TIME        a shard's fixed cost (90s, 5m, or seconds)\n"},
    {OPT_BUDGET, "      --budget TIME          a shard's time budget: the fewest shards that fit\n"},
    {OPT_ERROR_FORMAT, "      --error-format text|github|json\n"
                       "                             how messages on stderr look (default text)\n"},
    {OPT_QUIET, "  -q, --quiet                errors only (no warnings or notes)\n"},
    {OPT_IGNORE, "      --ignore RULE          drop RULE's findings (repeatable; `fanout help rules`)\n"},
    {OPT_KNOWN_KEY, "      --known-key KEY        KEY is defined in another upload: no dangling-depends-on\n"
                    "                             (a shell glob; repeatable)\n"},
    {OPT_COLOR, "      --color auto|always|never\n"
                "                             colour in text messages (default auto: on a terminal,\n"
                "                             unless NO_COLOR is set)\n"},
    {OPT_NO_SNIPPET, "      --no-snippet           no source line and caret under text messages\n"},
    {OPT_IGNORE_FIELD, "      --ignore-field NAME    leave field NAME out of the comparison (repeatable)\n"},
    {OPT_EXIT_ZERO, "      --exit-zero            exit 0 when the renderings differ (errors still exit 2)\n"},
    {OPT_END, NULL},
};

/* The options of the command line but the dialects' (their place in --help is
 * option_help's order); long_options adds the dialects' (all_options). */
static const struct option generic_options[] = {
    {"format", required_argument, NULL, OPT_FORMAT},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"upload", no_argument, NULL, OPT_UPLOAD},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"error-format", required_argument, NULL, OPT_ERROR_FORMAT},
    {"dialect", required_argument, NULL, OPT_DIALECT},
    {"validate", no_argument, NULL, OPT_VALIDATE},
    {"no-validate", no_argument, NULL, OPT_NO_VALIDATE},
    {"schema", required_argument, NULL, OPT_SCHEMA},
    {"rendered", required_argument, NULL, OPT_RENDERED},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"write", no_argument, NULL, OPT_WRITE},
    {"tests", required_argument, NULL, OPT_TESTS},
    {"durations", required_argument, NULL, OPT_DURATIONS},
    {"suite", required_argument, NULL, OPT_SUITE},
    {"algo", required_argument, NULL, OPT_ALGO},
    {"shards", required_argument, NULL, OPT_COUNT},
    {"nodeid-prefix", required_argument, NULL, OPT_NODEID_PREFIX},
    {"overhead", required_argument, NULL, OPT_OVERHEAD},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"ignore", required_argument, NULL, OPT_IGNORE},
    {"known-key", required_argument, NULL, OPT_KNOWN_KEY},
    {"color", required_argument, NULL, OPT_COLOR},
    {"no-snippet", no_argument, NULL, OPT_NO_SNIPPET},
    {"ignore-field", required_argument, NULL, OPT_IGNORE_FIELD},
    {"exit-zero", no_argument, NULL, OPT_EXIT_ZERO},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* generic_options and the dialects' options (ids OPT_DIALECT_FIRST + their position in
 * dialect_option_at's order), each dialect option after the option its help follows
 * (at the end, before --help, when it follows none); filled by all_options. */
static struct option long_options[sizeof(generic_options) / sizeof(generic_options[0]) + DIALECT_MAX_OPTIONS];

/* The long name of a generic option, or NULL. */
static const char *generic_name(int id)
{
    for (size_t i = 0; generic_options[i].name; i++) {
        if (generic_options[i].val == id)
            return generic_options[i].name;
    }
    return NULL;
}

/* Appends to long_options (at *n) the dialect options whose help follows `after`. */
static void add_dialect_options(size_t *n, const char *after)
{
    const struct dialect_option *o;

    for (size_t i = 0; (o = dialect_option_at(i, NULL)); i++) {
        if (after ? o->help_after && !strcmp(o->help_after, after) : !o->help_after)
            long_options[(*n)++] = (struct option){o->name, o->has_arg ? required_argument : no_argument, NULL,
                                                   OPT_DIALECT_FIRST + (int)i};
    }
}

/* Fills long_options. 0, or -1 when the dialects declare more options than it holds. */
static int all_options(void)
{
    size_t n = 0;

    if (dialect_option_at(DIALECT_MAX_OPTIONS, NULL))
        return -1;
    for (size_t i = 0; generic_options[i].name; i++) {
        if (generic_options[i].val == 'h')
            add_dialect_options(&n, NULL);
        long_options[n++] = generic_options[i];
        add_dialect_options(&n, generic_options[i].name);
    }
    long_options[n] = (struct option){NULL, 0, NULL, 0};
    return 0;
}

/* While the config's defaults are parsed, a usage error is kept here instead of printed,
 * to be reported once at the config's line, where it must be fixed ("Try 'fanout
 * --help'" would point at the wrong place). */
static char *held_usage_error;
static size_t held_usage_error_size;
/* The command being run, once known: its own help is the one to try. */
static const char *usage_command;

int cmd_usage_error(const char *what, const char *arg)
{
    if (held_usage_error)
        snprintf(held_usage_error, held_usage_error_size, "%s%s%s", what, arg ? " " : "", arg ? arg : "");
    else {
        /* the argument as given, on its line (it may come from anywhere) */
        fputs("fanout: error: ", stderr);
        diag_write_text(stderr, what, false);
        if (arg) {
            fputc(' ', stderr);
            diag_write_text(stderr, arg, false);
        }
        fprintf(stderr, "\nTry 'fanout %s%s--help'.\n", usage_command ? usage_command : "",
                usage_command ? " " : "");
    }
    return CMD_EXIT_USAGE;
}

int cmd_on_inputs(struct cli *c, char **operands, int n, struct diag *d,
                  int (*fn)(struct cli *c, const char *const *paths, size_t n, struct diag *d))
{
    static const char *const stdin_only[] = {"-"};
    struct inputs in;
    int rc;

    if (n == 0)
        return fn(c, stdin_only, 1, d);
    for (int i = 0, seen = 0; i < n; i++) {
        /* stdin can be read once: a second '-' would read nothing */
        if (!strcmp(operands[i], "-") && seen++)
            return cmd_usage_error("stdin ('-') is named more than once", NULL);
    }
    if (inputs_expand((const char *const *)operands, (size_t)n, d, &in) != 0)
        return diag_exit_code(d, false);
    rc = fn(c, (const char *const *)in.paths, in.n, d);
    inputs_free(&in);
    return rc;
}

static void print_usage(FILE *out)
{
    fputs("usage:", out);
    for (size_t i = 0; commands[i]; i++)
        fprintf(out, "%s fanout %s\n", i ? "      " : "", commands[i]->synopsis);
    fputs("       fanout --help | --version\n\n", out);
    fputs(overview, out);
}

static bool takes(const struct cmd_entry *cmd, int opt)
{
    const struct dialect_option *dialect = opt >= OPT_DIALECT_FIRST ? dialect_option_at((size_t)(opt - OPT_DIALECT_FIRST), NULL)
                                                                    : NULL;

    if (opt == 'h' || (opt == OPT_FORMAT && cmd->formats))
        return true;
    for (const enum cmd_option *o = cmd->options; *o != OPT_END; o++) {
        if ((int)*o == opt || (dialect && ((*o == OPT_DIALECT_RENDER && (dialect->scope & DIALECT_OPTION_RENDER)) ||
                                           (*o == OPT_DIALECT_EXPRESSIONS &&
                                            (dialect->scope & DIALECT_OPTION_EXPRESSIONS)))))
            return true;
    }
    return false;
}

/* The help of the dialect options `cmd` takes whose help follows `after` (NULL: the
 * last). */
static void print_dialect_help(const struct cmd_entry *cmd, const char *after)
{
    const struct dialect_option *o;

    for (size_t i = 0; (o = dialect_option_at(i, NULL)); i++) {
        if ((after ? o->help_after && !strcmp(o->help_after, after) : !o->help_after) &&
            takes(cmd, OPT_DIALECT_FIRST + (int)i))
            fputs(o->help, stdout);
    }
}

static void print_help(const struct cmd_entry *cmd)
{
    printf("usage: fanout %s\n\n%s", cmd->synopsis, cmd->help);
    if (cmd->formats) {
        printf("  -f, --format ");
        for (size_t i = 0; cmd->formats[i]; i++)
            printf("%s%s", i ? "|" : "", cmd->formats[i]);
        printf("  (default %s)\n", cmd->formats[0]);
    }
    for (size_t i = 0; option_help[i].text; i++) {
        if (takes(cmd, option_help[i].id))
            fputs(option_help[i].text, stdout);
        print_dialect_help(cmd, generic_name(option_help[i].id));
    }
    print_dialect_help(cmd, NULL);
    printf("\nExit status: 0 ok, 1 findings, 2 usage, input or I/O error (fanout(1)).\n");
}

/* The position of `word` in `words` (NULL-terminated), or -1. */
static int choice(const char *word, const char *const *words)
{
    for (int i = 0; words[i]; i++) {
        if (strcmp(word, words[i]) == 0)
            return i;
    }
    return -1;
}

/* Room for item `n` of an array that grows only through here: it doubles when its length
 * is a power of two (or 0), so a config's 80,000 known keys cost 17 reallocs, not 80,000.
 * 0, or the usage exit code when out of memory. */
static int room_for_one(void **items, size_t n, size_t size)
{
    void *grown;

    if (n & (n - 1))
        return 0;
    if (!(grown = realloc(*items, (n ? 2 * n : 1) * size)))
        return cmd_usage_error("out of memory", NULL);
    *items = grown;
    return 0;
}

/* Appends `word` to a growing list. 0, or the usage exit code when out of memory. */
static int append_word(const char ***list, size_t *n, const char *word)
{
    void *items = *list;
    int rc = room_for_one(&items, *n, sizeof(**list));

    if (rc)
        return rc;
    *list = items;
    (*list)[(*n)++] = word;
    return 0;
}

/* RULE's level (--ignore, the config's `rules`): a later word wins. */
static int rule_level_set(struct cli *c, const char *name, enum diag_level level, const char *what)
{
    enum rule_id rule = rules_find(name);
    void *items = c->levels;
    int rc;

    if (rule == RULE_NONE) {
        char msg[160], phrase[SUGGEST_PHRASE_MAX];

        snprintf(msg, sizeof(msg), "%s: unknown rule%s (fanout help rules):", what,
                 suggest_phrase(rules_suggest(name), phrase));
        return cmd_usage_error(msg, name);
    }
    for (size_t i = 0; i < c->n_levels; i++) {
        if (c->levels[i].rule == rule) {
            c->levels[i].level = level;
            return 0;
        }
    }
    if ((rc = room_for_one(&items, c->n_levels, sizeof(*c->levels))) != 0)
        return rc;
    c->levels = items;
    c->levels[c->n_levels++] = (struct diag_rule_level){rule, level};
    return 0;
}

/* `fanout: error: unknown --format (text, json or markdown): xml` */
static int unknown_choice(const char *option, const char *const *names, const char *arg)
{
    char what[512];
    size_t o = (size_t)snprintf(what, sizeof(what), "unknown %s (", option);

    for (size_t k = 0; names[k] && o < sizeof(what); k++)
        o += (size_t)snprintf(what + o, sizeof(what) - o, "%s%s",
                              k == 0 ? "" : names[k + 1] ? ", " : " or ", names[k]);
    if (o < sizeof(what))
        snprintf(what + o, sizeof(what) - o, "):");
    return cmd_usage_error(what, arg);
}

/* An option a dialect declares: its choice checked, a per-side one given at most once a
 * side, then the dialect's to parse. */
static int dialect_option(struct cli *c, const struct cmd_entry *cmd, int opt, const char *arg)
{
    size_t i = (size_t)(opt - OPT_DIALECT_FIRST);
    const struct dialect_option *o = dialect_option_at(i, NULL);
    const struct dialect_option_io io = {cmd_usage_error, c->errors};
    char what[96];

    if (o->choices && dialect_option_choice(o, arg) < 0) {
        snprintf(what, sizeof(what), "--%s", o->name);
        return unknown_choice(what, o->choices, arg);
    }
    if (o->per_side && c->dialect_given[i] >= (cmd->sides ? cmd->sides : 1)) {
        snprintf(what, sizeof(what), "--%s given too often (diff takes BASE's and HEAD's):", o->name);
        return cmd_usage_error(what, arg);
    }
    return dialect_options_parse(c->dialect_options, o, arg, c->dialect_given[i]++, &io);
}

/* "90", "90s", "5m", "1h30m", "2.5m": seconds. 0, or -1 when it is none of these. */
static int parse_seconds(const char *arg, double *out)
{
    double total = 0;
    const char *p = arg;

    if (!*p)
        return -1;
    while (*p) {
        char *end;
        double v;

        if (!isdigit((unsigned char)*p) && *p != '.')
            return -1;
        errno = 0;
        v = strtod(p, &end);
        if (errno || end == p || v < 0)
            return -1;
        switch (*end) {
        case 'h': v *= 3600; end++; break;
        case 'm': v *= 60; end++; break;
        case 's': end++; break;
        case '\0': if (p != arg) return -1; break;
        default: return -1;
        }
        total += v;
        p = end;
    }
    *out = total;
    return 0;
}

static int parse_option(struct cli *c, const struct cmd_entry *cmd, int opt, const char *arg)
{
    static const char *const error_formats[] = {"text", "github", "json", NULL};
    static const char *const colors[] = {"auto", "always", "never", NULL};
    int i;

    switch ((enum cmd_option)opt) {
    case OPT_FORMAT:
        if ((c->format = choice(arg, cmd->formats)) < 0)
            return unknown_choice("--format", cmd->formats, arg);
        return 0;
    case OPT_OUTPUT:
        c->render.output = arg;
        return 0;
    case OPT_UPLOAD:
        c->render.upload = true;
        return 0;
    case OPT_STRICT:
        c->render.strict = true;
        return 0;
    case OPT_VALIDATE:
    case OPT_NO_VALIDATE:
        c->render.validate = opt == OPT_VALIDATE;
        return 0;
    case OPT_ERROR_FORMAT:
        if ((i = choice(arg, error_formats)) < 0)
            return cmd_usage_error("unknown --error-format (text, github or json):", arg);
        c->errors = i == 0 ? DIAG_TEXT : i == 1 ? DIAG_GITHUB : DIAG_JSON;
        return 0;
    case OPT_DIALECT:
        c->render.dialect = strcmp(arg, "auto") == 0 ? NULL : dialect_find(arg);
        if (!c->render.dialect && strcmp(arg, "auto") != 0)
            return cmd_usage_error("unknown --dialect (auto, buildkite, testarea or gha):", arg);
        return 0;
    case OPT_SCHEMA:
        c->schema = arg;
        return 0;
    case OPT_RENDERED:
        c->rendered = arg;
        return 0;
    case OPT_CONFIG:
        c->config = arg;
        return 0;
    case OPT_WRITE:
        c->write = true;
        return 0;
    case OPT_TESTS:
        c->assign.tests = arg;
        return 0;
    case OPT_DURATIONS:
        c->assign.durations = arg;
        return 0;
    case OPT_SUITE:
        c->assign.suite = arg;
        return 0;
    case OPT_NODEID_PREFIX:
        c->assign.prefix = arg;
        return 0;
    case OPT_ALGO:
        if ((c->assign.algo = assign_algo_find(arg)) < 0) {
            const char *names[ASSIGN_N_ALGOS + 1] = {NULL};

            for (int k = 0; k < ASSIGN_N_ALGOS; k++)
                names[k] = assign_algo_info((enum assign_algo)k)->name;
            return unknown_choice("--algo", names, arg);
        }
        return 0;
    case OPT_COUNT: {
        char *end;
        unsigned long v;

        errno = 0;
        v = strtoul(arg, &end, 10);
        if (errno || *end || end == arg || !isdigit((unsigned char)arg[0]) || v < 1 ||
            v > SHARDPLAN_MAX_SHARDS)
            return cmd_usage_error("--shards/-n takes a number of shards from 1 to 100000:", arg);
        c->assign.count = (unsigned)v;
        return 0;
    }
    case OPT_OVERHEAD:
    case OPT_BUDGET: {
        double *to = opt == OPT_BUDGET ? &c->assign.budget : &c->assign.overhead;

        if (parse_seconds(arg, to) != 0 || (opt == OPT_BUDGET && *to <= 0))
            return cmd_usage_error(opt == OPT_BUDGET ? "--budget takes a positive time (90s, 30m, 1h30m, "
                                                       "or seconds):"
                                                     : "--overhead takes a time (90s, 5m, or seconds):",
                                   arg);
        return 0;
    }
    case OPT_QUIET:
        c->policy.quiet = true;
        return 0;
    case OPT_IGNORE:
        return rule_level_set(c, arg, DIAG_LEVEL_OFF, "--ignore");
    case OPT_KNOWN_KEY:
        return append_word(&c->known_keys, &c->n_known_keys, arg);
    case OPT_COLOR:
        if ((i = choice(arg, colors)) < 0)
            return unknown_choice("--color", colors, arg);
        c->color = i;
        return 0;
    case OPT_NO_SNIPPET:
        c->no_snippet = true;
        return 0;
    case OPT_IGNORE_FIELD:
        return append_word(&c->ignore_fields, &c->n_ignore_fields, arg);
    case OPT_EXIT_ZERO:
        c->diff.exit_zero = true;
        return 0;
    case OPT_END:
    case OPT_DIALECT_RENDER:
    case OPT_DIALECT_EXPRESSIONS:
    case OPT_DIALECT_FIRST:
        break;
    }
    if (opt >= OPT_DIALECT_FIRST)
        return dialect_option(c, cmd, opt, arg);
    return cmd_usage_error("unknown option", NULL);
}

/* The long options `cmd` takes, but `except`, into names (NULL-terminated): the words a
 * mistyped option is compared with. */
static void taken_names(const struct cmd_entry *cmd, int except,
                        const char *names[sizeof(long_options) / sizeof(long_options[0])])
{
    size_t n = 0;

    for (size_t i = 0; long_options[i].name; i++) {
        if (takes(cmd, long_options[i].val) && long_options[i].val != except)
            names[n++] = long_options[i].name;
    }
    names[n] = NULL;
}

/* The argument getopt refused with '?'. An unknown long option is behind optind; so is
 * an unknown short option that was the last character of its argument, but one inside
 * an argument leaves optind on that argument (`-shard-id=x` fails at its `s`). */
static const char *refused_argument(char **argv)
{
    const char *last = argv[optind - 1];
    size_t len = strlen(last);

    if (!optopt || (last[0] == '-' && last[1] != '-' && len > 1 && (unsigned char)last[len - 1] == optopt))
        return last;
    return argv[optind];
}

/* "unknown option for render (did you mean --platform?): --platfrom"; without a near
 * option, how to pass an operand that starts with '-' (`fanout expr -- '-1 == -1'`). */
static int unknown_option(const struct cmd_entry *cmd, const char *arg)
{
    const char *names[sizeof(long_options) / sizeof(long_options[0])], *near, *word;
    size_t len;
    char what[160];

    taken_names(cmd, OPT_END, names);
    word = arg + strspn(arg, "-");
    len = strcspn(word, "=");
    near = suggest_closest(word, len, names, suggest_limit(len));
    if (near)
        snprintf(what, sizeof(what), "unknown option for %s (did you mean --%s?):", cmd->name, near);
    else
        snprintf(what, sizeof(what), "unknown option for %s (an operand that starts with '-' goes after '--'):",
                 cmd->name);
    return cmd_usage_error(what, arg);
}

/* Parses argv (after the command word); the operands are left at argv[optind..].
 * -1: help was printed. */
static int parse(struct cli *c, const struct cmd_entry *cmd, int argc, char **argv)
{
    int opt, index = -1;

    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":f:o:n:qh", long_options, &index)) != -1) {
        char name[64];

        if (opt == 'h') {
            print_help(cmd);
            return -1;
        }
        if (opt == ':')
            return cmd_usage_error("this option needs a value:", argv[optind - 1]);
        if (opt == '?')
            return unknown_option(cmd, refused_argument(argv));
        if (!takes(cmd, opt)) {
            /* named as recognized: argv[optind - 1] may be its value (`--format json`) */
            if (index >= 0)
                snprintf(name, sizeof(name), "--%s", long_options[index].name);
            else
                snprintf(name, sizeof(name), "-%c", opt);
            return cmd_usage_error("unknown option for this command:", name);
        }
        index = -1;
        if (parse_option(c, cmd, opt, optarg) != 0)
            return CMD_EXIT_USAGE;
    }
    return 0;
}

/* A command by its word, or its two words ("shards check"); *words says how many. */
static const struct cmd_entry *find_command(int argc, char **argv, int *words)
{
    for (size_t i = 0; commands[i]; i++) {
        const char *name = commands[i]->name, *space = strchr(name, ' ');

        *words = space ? 2 : 1;
        if (!space && strcmp(name, argv[1]) == 0)
            return commands[i];
        if (space && argc > 2 && strlen(argv[1]) == (size_t)(space - name) &&
            !strncmp(name, argv[1], (size_t)(space - name)) && !strcmp(space + 1, argv[2]))
            return commands[i];
    }
    return NULL;
}

/* The runners' shard flags: built in, plus the config's `shards` list. 0, or the exit
 * code of a bad config. */
static int load_shard_rules(struct cli *c, const struct config *cfg, struct diag *d)
{
    const struct ynode *list = config_section(cfg, "shards");

    if (!(c->shards = shardflags_create())) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_INTERNAL, "out of memory");
        return CMD_EXIT_USAGE;
    }
    if (!list || shardflags_configure(c->shards, list, config_path(cfg), d) == 0)
        return 0;
    return CMD_EXIT_USAGE;
}

/* --config's value, looked for before the options are parsed (the config's defaults
 * come first, so that the command line overrides them). */
static const char *config_option(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "--config") && i + 1 < argc)
            return argv[i + 1];
        if (!strncmp(argv[i], "--config=", 9))
            return argv[i] + 9;
    }
    return NULL;
}

/* One option from the config's defaults (`name: arg`); what is wrong with it is reported
 * at `at`. */
static int config_option_parse(struct cli *c, const struct cmd_entry *cmd, const struct config *cfg,
                               struct diag *d, const struct ynode *at, const char *name, int opt,
                               const char *arg)
{
    char message[1024] = "";
    int rc;

    held_usage_error = message;
    held_usage_error_size = sizeof(message);
    rc = parse_option(c, cmd, opt, arg);
    held_usage_error = NULL;
    if (rc != 0 && message[0])
        config_error(cfg, d, at, "%s", message);
    else if (rc != 0) /* the option reported its own error (a file it reads) */
        config_error(cfg, d, at, "the value of %s (above)", name);
    return rc;
}

/* The config's defaults for this command, as if given as options (a list value is the
 * option repeated; `false` leaves a switch off), then its rule levels and known keys. */
static int apply_config(struct cli *c, const struct cmd_entry *cmd, const struct config *cfg, struct diag *d)
{
    const struct ynode *defaults = config_defaults(cfg, cmd->name), *rules = config_section(cfg, "rules");
    const struct ynode *keys = config_section(cfg, "known_keys");
    const char *names[sizeof(long_options) / sizeof(long_options[0])];

    taken_names(cmd, OPT_CONFIG, names); /* a config cannot name another config */
    for (size_t i = 0; i < ynode_len(defaults); i++) {
        const struct ynode *k = ynode_key(defaults, i), *v = ynode_value(defaults, i);
        char name[64], *p;
        const struct option *o = NULL;

        snprintf(name, sizeof(name), "%s", ynode_scalar(k, NULL) ? ynode_scalar(k, NULL) : "");
        for (p = name; *p; p++)
            *p = *p == '_' ? '-' : *p;
        for (size_t j = 0; !o && long_options[j].name; j++) {
            if (!strcmp(long_options[j].name, name) && takes(cmd, long_options[j].val) &&
                long_options[j].val != OPT_CONFIG)
                o = &long_options[j];
        }
        if (!o) {
            char phrase[SUGGEST_PHRASE_MAX];

            return config_error(cfg, d, k, "%s has no option '%s'%s", cmd->name, ynode_scalar(k, NULL),
                                suggest_phrase(suggest_closest(name, strlen(name), names,
                                                               suggest_limit(strlen(name))), phrase));
        }
        if (o->has_arg == no_argument) {
            bool on = ynode_scalar_is(v, "true");

            if (!on && !ynode_scalar_is(v, "false"))
                return config_error(cfg, d, v, "%s is true or false", ynode_scalar(k, NULL));
            if ((on || o->val == OPT_VALIDATE) &&
                config_option_parse(c, cmd, cfg, d, v, ynode_scalar(k, NULL), on ? o->val : OPT_NO_VALIDATE,
                                    NULL) != 0)
                return CMD_EXIT_USAGE;
            continue;
        }
        for (size_t j = 0; j < (ynode_is_seq(v) ? ynode_len(v) : 1); j++) {
            const struct ynode *item = ynode_is_seq(v) ? ynode_item(v, j) : v;

            if (!ynode_scalar(item, NULL))
                return config_error(cfg, d, v, "%s takes a value or a list of values", ynode_scalar(k, NULL));
            if (config_option_parse(c, cmd, cfg, d, item, ynode_scalar(k, NULL), o->val,
                                    ynode_scalar(item, NULL)) != 0)
                return CMD_EXIT_USAGE;
        }
    }
    /* the command line may still give BASE's and HEAD's */
    memset(c->dialect_given, 0, sizeof(c->dialect_given));
    for (size_t i = 0; i < ynode_len(rules); i++) {
        const char *level = ynode_scalar(ynode_value(rules, i), NULL);

        if (rule_level_set(c, ynode_scalar(ynode_key(rules, i), NULL),
                           !strcmp(level, "off") ? DIAG_LEVEL_OFF
                           : !strcmp(level, "error") ? DIAG_LEVEL_ERROR : DIAG_LEVEL_WARNING,
                           "the config's rules") != 0)
            return CMD_EXIT_USAGE;
    }
    for (size_t i = 0; i < ynode_len(keys); i++) {
        if (append_word(&c->known_keys, &c->n_known_keys, ynode_scalar(ynode_item(keys, i), NULL)) != 0)
            return CMD_EXIT_USAGE;
    }
    return 0;
}

/* What the parsed options mean together: the lists they collected in place, and the
 * message policy. */
static void finish_options(struct cli *c)
{
    c->render.known_keys = c->known_keys;
    c->render.n_known_keys = c->n_known_keys;
    c->render.dialect_options = c->dialect_options;
    c->diff.ignore_fields = c->ignore_fields;
    c->diff.n_ignore_fields = c->n_ignore_fields;
    c->policy.levels = c->levels;
    c->policy.n_levels = c->n_levels;
    /* colour only on a terminal (never into files or pipes), and not under NO_COLOR */
    c->policy.color = c->color == 1 || (c->color == 0 && isatty(STDERR_FILENO) && !getenv("NO_COLOR"));
    c->policy.snippets = !c->no_snippet && c->errors == DIAG_TEXT;
    c->policy.excerpt = source_excerpt;
}

/* Forgets what the options said. */
static void cli_clear(struct cli *c)
{
    free(c->levels);
    free(c->known_keys);
    free(c->ignore_fields);
    dialect_options_destroy(c->dialect_options);
    memset(c, 0, sizeof(*c));
}

/* A cli with nothing given yet. 0, or the usage exit code when out of memory. */
static int cli_reset(struct cli *c)
{
    cli_clear(c);
    c->render.validate = true;
    c->assign.algo = -1;
    if (!(c->dialect_options = dialect_options_create()))
        return cmd_usage_error("out of memory", NULL);
    return 0;
}

int cli_main(int argc, char **argv)
{
    const struct cmd_entry *cmd;
    struct cli c;
    struct diag *d = NULL;
    struct config *cfg = NULL;
    int rc, n, words;

    usage_command = NULL;
    if (all_options() != 0)
        return cmd_usage_error("the dialects declare more options than fanout holds", NULL);
    if (argc < 2)
        return cmd_usage_error("missing command (try 'fanout render FILE')", NULL);
    if (!strcmp(argv[1], "help") && argc > 2) {
        int w;

        if (!strcmp(argv[2], "rules")) {
            rules_print(stdout);
            return 0;
        }
        if (!(cmd = find_command(argc - 1, argv + 1, &w)))
            return cmd_usage_error("help: no such command or topic (rules):", argv[2]);
        print_help(cmd);
        return 0;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        print_usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("fanout %s\n", FANOUT_VERSION);
        return 0;
    }
    if (!(cmd = find_command(argc, argv, &words))) {
        const char *names[sizeof(commands) / sizeof(commands[0])], *near;
        size_t k = 0;
        char what[96];

        for (; commands[k]; k++)
            names[k] = commands[k]->name;
        names[k] = NULL;
        near = suggest_closest(argv[1], strlen(argv[1]), names, suggest_limit(strlen(argv[1])));
        snprintf(what, sizeof(what), "unknown command%s%s%s:", near ? " (did you mean " : "", near ? near : "",
                 near ? "?)" : "");
        return cmd_usage_error(what, argv[1]);
    }
    usage_command = cmd->name;
    memset(&c, 0, sizeof(c));
    if ((rc = cli_reset(&c)) != 0)
        goto done;
    argc -= words;
    argv += words;
    rc = parse(&c, cmd, argc, argv);
    if (rc != 0) {
        rc = rc < 0 ? 0 : rc;
        goto done;
    }
    if (!(d = diag_create(stderr, c.errors))) {
        rc = CMD_EXIT_USAGE;
        goto done;
    }
    finish_options(&c);
    diag_set_policy(d, &c.policy);
    /* the config's defaults first, then the command line again over them */
    if (takes(cmd, OPT_CONFIG)) {
        const char *given = config_option(argc, argv);

        if ((rc = config_load(given, d, &cfg)) != 0)
            goto done;
        if (cfg) {
            if ((rc = cli_reset(&c)) != 0 || (rc = apply_config(&c, cmd, cfg, d)) != 0 ||
                (rc = parse(&c, cmd, argc, argv)) != 0)
                goto done;
            c.config = config_path(cfg);
            c.cfg = cfg;
            c.config_given = given != NULL;
        }
    }
    n = argc - optind;
    if (n < cmd->min_operands || (cmd->max_operands >= 0 && n > cmd->max_operands)) {
        char what[128];

        snprintf(what, sizeof(what), "%s needs %s", cmd->name, cmd->operands);
        rc = cmd_usage_error(what, NULL);
        goto done;
    }
    finish_options(&c);
    if (takes(cmd, OPT_CONFIG) && (rc = load_shard_rules(&c, cfg, d)) != 0)
        goto done;
    rc = cmd->exec(&c, argv + optind, n, d);
    /* Reports and diffs go straight to stdout: a lost write must not pass for success. */
    if ((fflush(stdout) != 0 || ferror(stdout)) && rc < DIAG_INPUT) {
        output_stdout_gone();
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "<stdout>", 0, 0, RULE_IO, "write error: %s",
                    strerror(errno));
        rc = DIAG_INPUT;
    }
done:
    diag_destroy(d);
    shardflags_destroy(c.shards);
    cli_clear(&c);
    config_destroy(cfg);
    return rc;
}
