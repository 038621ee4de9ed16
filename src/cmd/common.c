/* common: what the commands share: their usage errors, the options more than one command
 * takes (each declared once, for the commands' tables), the repeatable options' lists
 * and running a command on its input files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/inputs.h"
#include "fanout/rules.h"
#include "fanout/suggest.h"
#include "options.h"

/* The state of the usage errors: set once a run, read by every message (the dialects'
 * options report through cmd_usage_error, which takes no context). */
static struct {
    char *held; /* the config's defaults are being parsed: the message goes here */
    size_t held_size;
    const char *command; /* the command being run, once known: its own help is the one to try */
    enum diag_format format; /* the --error-format chosen so far: SARIF takes usage errors too */
} usage;

void cmd_usage_of(const char *command)
{
    usage.command = command;
}

void cmd_usage_hold(char *buf, size_t size)
{
    usage.held = buf;
    usage.held_size = size;
}

bool cmd_color_at(int fd)
{
    const char *no = getenv("NO_COLOR");

    return isatty(fd) && !(no && *no);
}

int cmd_usage_error(const char *what, const char *arg)
{
    if (usage.held)
        snprintf(usage.held, usage.held_size, "%s%s%s", what, arg ? " " : "", arg ? arg : "");
    else if (usage.format == DIAG_SARIF || usage.format == DIAG_JSON) {
        /* SARIF: into the log, which must stay one JSON document, a notification of no
         * file; json: a line its reader can parse, of no file ("") */
        struct diag *d = diag_create(stderr, usage.format);

        if (d)
            diag_report(d, DIAG_ERROR, DIAG_INPUT, usage.format == DIAG_JSON ? "" : NULL, 0, 0, RULE_NONE,
                        "%s%s%s (try 'fanout %s%s--help')",
                        what, arg ? " " : "", arg ? arg : "", usage.command ? usage.command : "",
                        usage.command ? " " : "");
        diag_destroy(d);
    } else {
        /* the argument as given, on its line (it may come from anywhere) */
        fputs("fanout: error: ", stderr);
        diag_write_text(stderr, what, false);
        if (arg) {
            fputc(' ', stderr);
            diag_write_text(stderr, arg, false);
        }
        fprintf(stderr, "\nTry 'fanout %s%s--help'.\n", usage.command ? usage.command : "",
                usage.command ? " " : "");
    }
    return CMD_EXIT_USAGE;
}

int cmd_unknown_choice(const char *option, const char *const *names, const char *arg)
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

int cmd_append_word(const char ***list, size_t *n, const char *word)
{
    void *items = *list;
    int rc = room_for_one(&items, *n, sizeof(**list));

    if (rc)
        return rc;
    *list = items;
    (*list)[(*n)++] = word;
    return 0;
}

int cmd_rule_level(struct cli *c, const char *name, enum diag_level level, const char *what)
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

int cmd_on_inputs(struct cli *c, char **operands, int n, struct diag *d,
                  int (*fn)(struct cli *c, const char *const *paths, size_t n, struct diag *d))
{
    static const char *const stdin_only[] = {"-"};
    struct inputs in;
    /* one file's detection, for its rendering: not detected again (a second detection was
     * 6% of the instructions of rendering a one-step file, 12% of a small workflow's) */
    struct dialect_kept kept = {NULL, NULL, NULL};
    int rc;

    if (n == 0)
        return fn(c, stdin_only, 1, d);
    for (int i = 0, seen = 0; i < n; i++) {
        /* stdin can be read once: a second '-' would read nothing */
        if (!strcmp(operands[i], "-") && seen++)
            return cmd_usage_error("stdin ('-') is named more than once", NULL);
    }
    if (inputs_expand_skipping((const char *const *)operands, (size_t)n, c->render.not_inputs,
                               c->render.n_not_inputs, d, &in) != 0)
        return diag_exit_code(d, false);
    /* what detection leaves out (a generator config) stays out when --dialect skips it, or
     * when there is nothing to group (one file): every command agrees (testarea.md) */
    for (size_t i = 0, at = 0, all = in.n; (c->render.dialect || all == 1) && i < all; i++) {
        if (dialect_left_out(in.paths[i], d, c->render.dialect ? NULL : &kept))
            free(in.paths[i]), in.n--;
        else
            in.paths[at++] = in.paths[i];
    }
    c->render.walked = in.walked;
    c->render.kept = &kept;
    rc = fn(c, (const char *const *)in.paths, in.n, d);
    c->render.kept = NULL;
    c->render.walked = NULL;
    dialect_kept_drop(&kept);
    inputs_free(&in);
    return rc;
}

int cmd_by_dialect(struct cli *c, const char *const *paths, size_t n, struct diag *d,
                   int (*fn)(struct cli *c, const char *const *paths, size_t n, struct diag *d, void *user),
                   void *user)
{
    const struct dialect_kept *k = c->render.kept;
    struct render_groups g;
    int rc;

    /* one file whose dialect its detection found (cmd_on_inputs): its group, not found
     * again */
    if (n == 1 && k && k->source && !strcmp(source_name(k->source), paths[0])) {
        c->render.dialect = k->dialect;
        rc = fn(c, paths, n, d, user);
        c->render.dialect = NULL;
        return rc;
    }
    if ((rc = render_group_by_dialect(paths, n, d, &g)) != 0)
        return rc;
    rc = g.none ? DIAG_INPUT : 0;
    for (size_t i = 0; i < g.n; i++) {
        int one;

        c->render.dialect = g.groups[i].dialect;
        one = fn(c, g.groups[i].paths, g.groups[i].n, d, user);
        rc = one > rc ? one : rc;
    }
    c->render.dialect = NULL;
    render_groups_free(&g);
    return rc;
}

/* ---- the options' values ---- */

static int set_format(const struct opt_hit *hit, const char *arg)
{
    struct cli *c = hit->dest;
    const struct cmd_entry *cmd = hit->user;

    if ((c->format = choice(arg, cmd->formats)) < 0)
        return cmd_unknown_choice("--format", cmd->formats, arg);
    return 0;
}

static int set_error_format(const struct opt_hit *hit, const char *arg)
{
    static const char *const names[] = {"text", "github", "json", "sarif", NULL};
    static const enum diag_format formats[] = {DIAG_TEXT, DIAG_GITHUB, DIAG_JSON, DIAG_SARIF};
    struct cli *c = hit->dest;
    int i = choice(arg, names);

    if (i < 0)
        return cmd_unknown_choice("--error-format", names, arg);
    c->errors = usage.format = formats[i];
    return 0;
}

static int set_dialect(const struct opt_hit *hit, const char *arg)
{
    struct cli *c = hit->dest;

    c->render.dialect = strcmp(arg, "auto") == 0 ? NULL : dialect_find(arg);
    if (!c->render.dialect && strcmp(arg, "auto") != 0)
        return cmd_usage_error("unknown --dialect (auto, buildkite, testarea, rayci or gha):", arg);
    return 0;
}

static int set_ignore(const struct opt_hit *hit, const char *arg)
{
    return cmd_rule_level(hit->dest, arg, DIAG_LEVEL_OFF, "--ignore");
}

static int add_known_key(const struct opt_hit *hit, const char *arg)
{
    struct cli *c = hit->dest;

    return cmd_append_word(&c->known_keys, &c->n_known_keys, arg);
}

/* The change's build values, kept in the change (made with the first). */
static int add_build_value(const struct opt_hit *hit, const char *arg)
{
    struct cli *c = hit->dest;

    if (!c->change && !(c->change = change_create()))
        return cmd_usage_error("out of memory", NULL);
    if (change_set_build(c->change, arg) != 0)
        return cmd_usage_error("--build takes KEY=VALUE (branch=main, env.RUN_ALL=1):", arg);
    return 0;
}

int cmd_read_change(struct cli *c, struct diag *d)
{
    if (!c->changed && !c->changed_from) {
        /* --build alone decides a Buildkite step's if: */
        if (c->explain && !c->change)
            return cmd_usage_error("--explain says why the change does not run a job: it needs --changed, "
                                   "--changed-from or --build", NULL);
        if (c->change)
            change_set_explain(c->change, c->explain);
        c->render.change = c->change;
        return 0;
    }
    if (c->changed && c->changed_from)
        return cmd_usage_error("--changed and --changed-from both give the changed files: give one", NULL);
    if (!c->change && !(c->change = change_create()))
        return cmd_usage_error("out of memory", NULL);
    if ((c->changed ? change_read_file(c->change, c->changed, d) : change_read_git(c->change, c->changed_from, d)) != 0)
        return DIAG_INPUT;
    change_set_explain(c->change, c->explain);
    c->render.change = c->change;
    return 0;
}

static int set_color(const struct opt_hit *hit, const char *arg)
{
    static const char *const colors[] = {"auto", "always", "never", NULL};
    struct cli *c = hit->dest;
    int i = choice(arg, colors);

    if (i < 0)
        return cmd_unknown_choice("--color", colors, arg);
    c->color = i;
    return 0;
}

/* --upload's help: what it does to each dialect's input, as the dialects say it, in
 * lines of at most HELP_WIDTH columns after the options' column. */
#define HELP_COLUMN 29
#define HELP_WIDTH 86
static void print_upload_help(FILE *out)
{
    char text[1024] = "";
    size_t n = 0, column;
    const struct dialect *dl;

    for (size_t i = 0; (dl = dialect_at(i)); i++) {
        if (dl->upload_help && n < sizeof(text))
            n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s", n ? "; " : "", dl->upload_help);
    }
    column = (size_t)fprintf(out, "%-*s", HELP_COLUMN, "      --upload");
    for (const char *word = text; *word; word += strspn(word, " ")) {
        size_t len = strcspn(word, " ");

        if (word != text && column + 1 + len > HELP_WIDTH)
            column = (size_t)fprintf(out, "\n%*s", HELP_COLUMN, "") - 1;
        else if (word != text)
            column += (size_t)fprintf(out, " ");
        column += (size_t)fprintf(out, "%.*s", (int)len, word);
        word += len;
    }
    fputc('\n', out);
}

/* An option a dialect declares: its choice checked, a per-side one given at most once a
 * side, then the dialect's to parse. */
static int set_dialect_option(const struct opt_hit *hit, const char *arg)
{
    struct cli *c = hit->dest;
    const struct cmd_entry *cmd = hit->user;
    const struct dialect_option *o = hit->opt->dialect;
    const struct dialect_option_io io = {cmd_usage_error, c->errors};
    unsigned *given = &c->dialect_given[hit->opt->value];
    char what[96];

    if (o->choices && dialect_option_choice(o, arg) < 0) {
        snprintf(what, sizeof(what), "--%s", o->name);
        return cmd_unknown_choice(what, o->choices, arg);
    }
    if (o->per_side && *given >= (cmd->sides ? cmd->sides : 1)) {
        snprintf(what, sizeof(what), "--%s given too often (diff takes BASE's and HEAD's):", o->name);
        return cmd_usage_error(what, arg);
    }
    return dialect_options_parse(c->dialect_options, o, arg, (*given)++, &io);
}

const struct opt opt_format = {
    .kind = OPT_CALL, .name = "format", .short_name = 'f', .has_arg = true, .call = set_format,
};
const struct opt opt_output = {
    .kind = OPT_STRING, .name = "output", .short_name = 'o', .has_arg = true, .path = OPTION_PATH,
    .offset = CLI_AT(render.output),
    .help = "  -o, --output FILE          write FILE atomically instead of stdout\n",
};
const struct opt opt_upload = {
    .kind = OPT_SET, .name = "upload", .offset = CLI_AT(render.upload), .value = true,
    .print_help = print_upload_help,
};
const struct opt opt_strict = {
    .kind = OPT_SET, .name = "strict", .offset = CLI_AT(render.strict), .value = true,
    .help = "      --strict               warnings fail the run (exit 1)\n",
};
const struct opt opt_dialect = {
    .kind = OPT_CALL, .name = "dialect", .has_arg = true, .call = set_dialect,
    .help = "      --dialect auto|buildkite|testarea|rayci|gha\n"
            "                             input dialect (default auto: a top-level `jobs` means a\n"
            "                             GitHub Actions workflow, a *.rayci.yml file ray's rayci\n"
            "                             format, a top-level `group` vLLM's test-area files)\n",
};
/* --validate is the default, there for the config's `validate: false` */
const struct opt opt_validate = {
    .kind = OPT_SET, .name = "validate", .offset = CLI_AT(render.validate), .value = true,
};
const struct opt opt_no_validate = {
    .kind = OPT_SET, .name = "no-validate", .offset = CLI_AT(render.validate), .value = false,
    .help = "      --no-validate          skip the schema checks of input and rendering\n",
};
const struct opt opt_config = {
    .kind = OPT_STRING, .name = "config", .has_arg = true, .offset = CLI_AT(config),
    .help = "      --config FILE          the config file (default .fanout.yml when present): its\n"
            "                             `shards` list adds runners' shard flags (docs/shards.md),\n"
            "                             its `checks` list is what `check` checks\n",
};
const struct opt opt_error_format = {
    .kind = OPT_CALL, .name = "error-format", .has_arg = true, .call = set_error_format,
    .help = "      --error-format text|github|json|sarif\n"
            "                             how messages on stderr look (default text; sarif: one\n"
            "                             SARIF 2.1.0 log)\n",
};
const struct opt opt_quiet = {
    .kind = OPT_SET, .name = "quiet", .short_name = 'q', .offset = CLI_AT(policy.quiet),
    .value = true,
    .help = "  -q, --quiet                errors only (no warnings or notes)\n",
};
const struct opt opt_ignore = {
    .kind = OPT_CALL, .name = "ignore", .has_arg = true, .call = set_ignore,
    .help = "      --ignore RULE          drop RULE's findings (repeatable; `fanout help rules`)\n",
};
const struct opt opt_known_key = {
    .kind = OPT_CALL, .name = "known-key", .has_arg = true, .call = add_known_key,
    .help = "      --known-key KEY        KEY is defined in another upload: no dangling-depends-on\n"
            "                             (a shell glob; repeatable)\n",
};
const struct opt opt_changed = {
    .kind = OPT_STRING, .name = "changed", .has_arg = true, .path = OPTION_PATH, .offset = CLI_AT(changed),
    .help = "      --changed FILE         render for the change that touches the files FILE lists\n"
            "                             (one path a line, from the repository's root, as `git\n"
            "                             diff --name-only` prints them; - for stdin): jobs gated\n"
            "                             on changed files are gated as their platform does\n",
};
const struct opt opt_changed_from = {
    .kind = OPT_STRING, .name = "changed-from", .has_arg = true, .offset = CLI_AT(changed_from),
    .help = "      --changed-from REF     the same, for the files the work tree changes since it\n"
            "                             left REF (from their merge base; A...B: B's since)\n",
};
const struct opt opt_build = {
    .kind = OPT_CALL, .name = "build", .has_arg = true, .call = add_build_value,
    .help = "      --build KEY=VALUE      a value of the build the change runs in, for the\n"
            "                             gating: branch=NAME, env.NAME=VALUE, any build.*\n"
            "                             value a Buildkite if: reads (repeatable)\n",
};
const struct opt opt_explain = {
    .kind = OPT_SET, .name = "explain", .offset = CLI_AT(explain), .value = true,
    .help = "      --explain              with --changed or --build: a note for each job the\n"
            "                             change does not run, and why [not-run]\n",
};
const struct opt opt_color = {
    .kind = OPT_CALL, .name = "color", .has_arg = true, .call = set_color,
    .help = "      --color auto|always|never\n"
            "                             colour in text messages (default auto: on a terminal,\n"
            "                             unless NO_COLOR is set)\n",
};
const struct opt opt_no_snippet = {
    .kind = OPT_SET, .name = "no-snippet", .offset = CLI_AT(no_snippet), .value = true,
    .help = "      --no-snippet           no source line and caret under text messages\n",
};
const struct opt opt_dialects_render = {
    .kind = OPT_DIALECTS, .name = "", .value = DIALECT_OPTION_RENDER, .call = set_dialect_option,
};
const struct opt opt_dialects_validate = {
    .kind = OPT_DIALECTS, .name = "", .value = DIALECT_OPTION_VALIDATE, .call = set_dialect_option,
};
const struct opt opt_dialects_expressions = {
    .kind = OPT_DIALECTS, .name = "", .value = DIALECT_OPTION_EXPRESSIONS,
    .call = set_dialect_option,
};
