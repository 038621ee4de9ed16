/* cli: the command table, dispatch and help. A command's options are its own table
 * (cmd_<name>.c), parsed by options.c; the config's defaults go under them (config.c). */
#include "fanout/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/check.h"
#include "fanout/cmd.h"
#include "fanout/config.h"
#include "fanout/dialect.h"
#include "fanout/output.h"
#include "fanout/rules.h"
#include "fanout/source.h"
#include "fanout/suggest.h"
#include "options.h"

static const struct cmd_entry *const commands[] = {
    &cmd_render_entry,        &cmd_validate_entry,      &cmd_check_entry,
    &cmd_diff_entry,          &cmd_expr_entry,          &cmd_jobs_entry,
    &cmd_shards_check_entry,  &cmd_shards_assign_entry, &cmd_shards_plan_entry,
    NULL};

static const char overview[] =
    "Renders Buildkite pipelines, vLLM test-area files and GitHub Actions workflows into\n"
    "explicit jobs. A DIR stands for the .yaml/.yml files under it, in path order.\n"
    "'fanout COMMAND --help' shows a command's options, 'fanout help rules' every rule.\n"
    "\n"
    "Exit status: 0 ok (same, fresh, valid), 1 findings (diff, stale, violations),\n"
    "2 usage, input or I/O error. See fanout(1) and docs/reference.md.\n";

/* The options of a command. 0, or -1 when they do not fit. */
static int command_options(const struct cmd_entry *cmd, struct opt_list *own)
{
    opt_list_clear(own);
    return opt_list_add(own, cmd->options);
}

/* The options of every command (an option of another command is "unknown for this
 * command", not unknown). 0, or -1 when they do not fit. */
static int known_options(struct opt_list *known)
{
    opt_list_clear(known);
    for (size_t i = 0; commands[i]; i++) {
        if (opt_list_add(known, commands[i]->options) != 0)
            return -1;
    }
    return 0;
}

/* Whether argv[1..argc) has a word getopt reads as an option (or `--`); `-` is stdin. */
static bool has_option_words(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1])
            return true;
    }
    return false;
}

static void print_usage(FILE *out)
{
    fputs("usage:", out);
    for (size_t i = 0; commands[i]; i++)
        fprintf(out, "%s fanout %s\n", i ? "      " : "", commands[i]->synopsis);
    fputs("       fanout --help | --version | -V\n\n", out);
    fputs(overview, out);
}

static void print_help(const struct cmd_entry *cmd, const struct opt_list *own)
{
    printf("usage: fanout %s\n\n%s", cmd->synopsis, cmd->help);
    if (cmd->formats) {
        printf("  -f, --format ");
        for (size_t i = 0; cmd->formats[i]; i++)
            printf("%s%s", i ? "|" : "", cmd->formats[i]);
        printf("  (default %s)\n", cmd->formats[0]);
    }
    opt_help(own, stdout);
    printf("\nExit status: 0 ok, 1 findings, 2 usage, input or I/O error (fanout(1)).\n");
}

/* The second word of two-word command `cmd` when its first is `group` ("check" of
 * "shards check" for "shards"), else NULL. */
static const char *subcommand_of(const struct cmd_entry *cmd, const char *group)
{
    size_t len = strlen(group);

    return !strncmp(cmd->name, group, len) && cmd->name[len] == ' ' ? cmd->name + len + 1 : NULL;
}

/* A command by its word, or its two words ("shards check"); *words says how many. */
static const struct cmd_entry *find_command(int argc, char **argv, int *words)
{
    for (size_t i = 0; commands[i]; i++) {
        const char *sub = subcommand_of(commands[i], argv[1]);

        *words = strchr(commands[i]->name, ' ') ? 2 : 1;
        if (*words == 1 && strcmp(commands[i]->name, argv[1]) == 0)
            return commands[i];
        if (sub && argc > 2 && !strcmp(sub, argv[2]))
            return commands[i];
    }
    return NULL;
}

/* Whether `word` is the first word of two-word commands ("shards"). */
static bool is_group(const char *word)
{
    for (size_t i = 0; commands[i]; i++) {
        if (subcommand_of(commands[i], word))
            return true;
    }
    return false;
}

/* The synopses of group `word`'s commands ("fanout shards check ..."), one a line. */
static void print_group(FILE *out, const char *word)
{
    bool first = true;

    for (size_t i = 0; commands[i]; i++) {
        if (!subcommand_of(commands[i], word))
            continue;
        fprintf(out, "%s fanout %s\n", first ? "usage:" : "      ", commands[i]->synopsis);
        first = false;
    }
    fprintf(out, "\n'fanout %s SUBCOMMAND --help' shows a subcommand's options.\n", word);
}

/* A group's word without a subcommand of it: its subcommands listed, a usage error. */
static int missing_subcommand(const char *group, const char *word)
{
    const char *names[sizeof(commands) / sizeof(commands[0])], *near = NULL;
    size_t k = 0;
    char what[128];

    for (size_t i = 0; commands[i]; i++) {
        if ((names[k] = subcommand_of(commands[i], group)) != NULL)
            k++;
    }
    names[k] = NULL;
    if (word)
        near = suggest_closest(word, strlen(word), names, suggest_limit(strlen(word)));
    print_group(stderr, group);
    if (!word) {
        snprintf(what, sizeof(what), "%s needs a subcommand", group);
        return cmd_usage_error(what, NULL);
    }
    snprintf(what, sizeof(what), "unknown %s subcommand%s%s%s:", group, near ? " (did you mean " : "",
             near ? near : "", near ? "?)" : "");
    return cmd_usage_error(what, word);
}

/* "unknown command (did you mean render?): rendr" */
static int unknown_command(const char *word)
{
    const char *names[sizeof(commands) / sizeof(commands[0])], *near;
    size_t k = 0;
    char what[96];

    for (; commands[k]; k++)
        names[k] = commands[k]->name;
    names[k] = NULL;
    near = suggest_closest(word, strlen(word), names, suggest_limit(strlen(word)));
    snprintf(what, sizeof(what), "unknown command%s%s%s:", near ? " (did you mean " : "", near ? near : "",
             near ? "?)" : "");
    return cmd_usage_error(what, word);
}

/* `fanout help [COMMAND|rules]`, `--help`, `--version`: 0 after printing, the usage exit
 * code, or -1 when argv names a command to run. */
static int run_help(int argc, char **argv)
{
    const struct cmd_entry *cmd;
    struct opt_list own;
    int words;

    if (!strcmp(argv[1], "help") && argc > 2) {
        if (!strcmp(argv[2], "rules")) {
            rules_print(stdout);
            return 0;
        }
        if (argc == 3 && is_group(argv[2])) {
            print_group(stdout, argv[2]);
            return 0;
        }
        if (!(cmd = find_command(argc - 1, argv + 1, &words)))
            return cmd_usage_error("help: no such command or topic (rules):", argv[2]);
        if (command_options(cmd, &own) != 0)
            return cmd_usage_error("the dialects declare more options than fanout holds", NULL);
        print_help(cmd, &own);
        return 0;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        print_usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("fanout %s\n", FANOUT_VERSION);
        return 0;
    }
    return -1;
}

/* What the parsed options mean together: the lists they collected in place, and the
 * message policy. */
static void finish_options(struct cli *c)
{
    c->render.known_keys = c->known_keys;
    c->render.n_known_keys = c->n_known_keys;
    c->render.dialect_options = c->dialect_options;
    c->render.not_inputs = (const char *const *)c->not_inputs;
    c->render.n_not_inputs = c->n_not_inputs;
    c->diff.ignore_fields = c->ignore_fields;
    c->diff.n_ignore_fields = c->n_ignore_fields;
    c->policy.levels = c->levels;
    c->policy.n_levels = c->n_levels;
    /* colour only on a terminal (never into files or pipes), and not under NO_COLOR */
    c->policy.color = c->color == 1 || (c->color == 0 && cmd_color_at(STDERR_FILENO));
    c->policy.snippets = !c->no_snippet && c->errors == DIAG_TEXT;
    c->policy.excerpt = source_excerpt;
}

/* Forgets what the options said. */
static void cli_clear(struct cli *c)
{
    free(c->levels);
    free(c->known_keys);
    free(c->ignore_fields);
    for (size_t i = 0; i < c->n_not_inputs; i++)
        free(c->not_inputs[i]);
    free(c->not_inputs);
    for (size_t i = 0; i < c->n_config_paths; i++)
        free(c->config_paths[i]);
    free(c->config_paths);
    dialect_options_destroy(c->dialect_options);
    change_destroy(c->change);
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

/* A run of one command: what it was given, and what it made of it. */
struct run {
    const struct cmd_entry *cmd;
    struct opt_list own;
    /* the options of every command, listed when an option is given: on the stack, zeroed
     * with the rest, they were 11 KB touched by every `fanout render FILE` */
    struct opt_list *known;
    struct cli c;
    struct diag *d;
    struct config *cfg;
    int argc, operands; /* argv after the command words; where the operands begin */
    char **argv;
};

/* The command line (again) into run->c: 0, OPT_HELP, or the usage exit code. */
static int parse_arguments(struct run *r)
{
    /* a line of operands only (`fanout render FILE`, as a hook or an editor runs it): the
     * options of every command, listed for getopt, were a tenth of a small render */
    if (!has_option_words(r->argc, r->argv)) {
        r->operands = 1;
        return 0;
    }
    if (!r->known) {
        if (!(r->known = malloc(sizeof(*r->known))))
            return cmd_usage_error("out of memory", NULL);
        if (known_options(r->known) != 0)
            return cmd_usage_error("the dialects declare more options than fanout holds", NULL);
    }
    return opt_parse(&r->own, r->known, r->cmd->name, &r->c, r->cmd, r->argc, r->argv, &r->operands);
}

/* The command line into run->c, the messages' format and policy set. 0, OPT_HELP after
 * the help, or the exit code. */
static int parse_command_line(struct run *r)
{
    int rc;

    if ((rc = cli_reset(&r->c)) != 0)
        return rc;
    if ((rc = parse_arguments(r)) == OPT_HELP)
        print_help(r->cmd, &r->own);
    if (rc != 0)
        return rc;
    if (!(r->d = diag_create(stderr, r->c.errors)))
        return CMD_EXIT_USAGE;
    /* an unknown key a dialect reports and a schema also refuses is said once, as the
     * dialect says it, by every command */
    diag_shadow(r->d, RULE_UNKNOWN_KEY, RULE_KW_ADDITIONAL_PROPERTIES);
    finish_options(&r->c);
    diag_set_policy(r->d, &r->c.policy);
    return 0;
}

/* The config's defaults first, then the command line again over them. 0, or the exit
 * code. */
static int apply_config(struct run *r)
{
    const char *given = config_given(r->argc, r->argv);
    int rc;

    if ((rc = config_load(given, r->d, &r->cfg)) != 0 || !r->cfg)
        return rc;
    if ((rc = cli_reset(&r->c)) != 0 || (rc = config_apply(&r->c, r->cmd, &r->own, r->cfg, r->d)) != 0 ||
        (rc = parse_arguments(r)) != 0)
        return rc;
    r->c.config = config_path(r->cfg);
    r->c.cfg = r->cfg;
    r->c.config_given = given != NULL;
    /* the config's `error-format`, now that the command line has had its say again */
    diag_set_format(r->d, r->c.errors);
    /* a rendering the config checks is not a source where a directory is read */
    if (!(r->c.not_inputs = check_config_rendered(config_root(r->cfg), r->c.config, &r->c.n_not_inputs)))
        return cmd_usage_error("out of memory", NULL);
    return 0;
}

/* After help or the version was printed: 0, or 2 when it did not reach stdout (a full
 * disk), said as execute says it; a reader gone away ends fanout by SIGPIPE. */
static int help_written(void)
{
    struct diag *d;

    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    output_stdout_gone();
    if ((d = diag_create(stderr, DIAG_TEXT)) != NULL) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "<stdout>", 0, 0, RULE_IO, "write error: %s", strerror(errno));
        diag_destroy(d);
    }
    return DIAG_INPUT;
}

/* The command run on its operands, its output flushed. */
static int execute(struct run *r)
{
    int n = r->argc - r->operands, rc;

    if (n < r->cmd->min_operands || (r->cmd->max_operands >= 0 && n > r->cmd->max_operands)) {
        char what[128];

        snprintf(what, sizeof(what), "%s needs %s", r->cmd->name, r->cmd->operands);
        return cmd_usage_error(what, NULL);
    }
    finish_options(&r->c);
    if (opt_find(&r->own, "config") && (rc = config_shard_rules(&r->c, r->cfg, r->d)) != 0)
        return rc;
    rc = r->cmd->exec(&r->c, r->argv + r->operands, n, r->d);
    /* Reports and diffs go straight to stdout: a lost write must not pass for success. */
    if ((fflush(stdout) != 0 || ferror(stdout)) && rc < DIAG_INPUT) {
        output_stdout_gone();
        diag_report(r->d, DIAG_ERROR, DIAG_INPUT, "<stdout>", 0, 0, RULE_IO, "write error: %s",
                    strerror(errno));
        rc = DIAG_INPUT;
    }
    return rc;
}

static int run_command(struct run *r)
{
    int rc = parse_command_line(r);

    if (rc != 0)
        return rc == OPT_HELP ? help_written() : rc;
    if (opt_find(&r->own, "config") && (rc = apply_config(r)) != 0)
        return rc;
    return execute(r);
}

/* The command argv names, run. */
static int run_argv(int argc, char **argv)
{
    struct run r = {0};
    int rc, words;

    cmd_usage_of(NULL);
    if (argc < 2)
        return cmd_usage_error("missing command (try 'fanout render FILE')", NULL);
    if ((rc = run_help(argc, argv)) >= 0)
        return rc == 0 ? help_written() : rc;
    if (!(r.cmd = find_command(argc, argv, &words)))
        return is_group(argv[1]) ? missing_subcommand(argv[1], argc > 2 ? argv[2] : NULL) : unknown_command(argv[1]);
    cmd_usage_of(r.cmd->name);
    if (command_options(r.cmd, &r.own) != 0)
        return cmd_usage_error("the dialects declare more options than fanout holds", NULL);
    r.argc = argc - words;
    r.argv = argv + words;
    rc = run_command(&r);
    free(r.known);
    diag_destroy(r.d);
    shardflags_destroy(r.c.shards);
    cli_clear(&r.c);
    config_destroy(r.cfg);
    return rc;
}

int cli_main(int argc, char **argv)
{
    int rc;

    diag_sarif_driver(FANOUT_VERSION, NULL); /* no address is published yet */
    rc = run_argv(argc, argv);
    diag_sarif_end(rc); /* on every way out: the log is always one whole document */
    return rc;
}
