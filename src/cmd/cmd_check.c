/* fanout check: is a committed rendering up to date? */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/check.h"
#include "fanout/cmd.h"
#include "fanout/config.h"
#include "fanout/shellword.h"
#include "options.h"

/* Appends `word` to the command being built, quoted for the shell when it needs it.
 * 0, or -1 when out of memory. */
static int add_word(FILE *f, const char *word)
{
    size_t len = strlen(word);
    char *quoted = malloc(SHELL_WORD_MAX(len));

    if (!quoted)
        return -1;
    fputc(' ', f);
    fwrite(quoted, 1, shell_word(word, len, quoted), f);
    free(quoted);
    return 0;
}

/* The command that rewrites what this check found stale, as it can be pasted: the
 * same sources, target and rendering options, with --write. malloc'd (NULL: none). */
static char *fix_command(const struct cli *c, char **operands, int n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int rc = 0;

    if (!f)
        return NULL;
    fputs("fanout check --write", f);
    if (c->config_given) {
        fputs(" --config", f);
        rc |= add_word(f, c->config);
    }
    if (c->render.upload)
        fputs(" --upload", f);
    if (c->format == 1)
        fputs(" --format json", f);
    dialect_options_write(c->render.dialect_options, f);
    if (c->render.dialect)
        fprintf(f, " --dialect %s", c->render.dialect->name);
    if (n > 0) {
        fputs(" --rendered", f);
        rc |= add_word(f, c->rendered);
        for (int i = 0; i < n; i++)
            rc |= add_word(f, operands[i]);
    }
    if (fclose(f) != 0 || rc != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static int exec_check(struct cli *c, char **operands, int n, struct diag *d)
{
    char *fix;
    int rc;

    c->render.format = c->format == 1 ? EMIT_JSON : EMIT_YAML;
    c->render.shards = c->shards; /* every rule render applies, shard coverage too */
    if (n > 0 && !c->rendered)
        return cmd_usage_error("check SOURCE... needs --rendered FILE", NULL);
    if (n == 0 && c->rendered)
        return cmd_usage_error("--rendered needs the SOURCEs it renders", NULL);
    if (n == 0 && !c->config)
        return cmd_usage_error("nothing to check: give SOURCE... --rendered FILE, or --config FILE "
                               "(or write .fanout.yml)", NULL);
    if (!(fix = fix_command(c, operands, n)))
        return cmd_usage_error("out of memory", NULL);
    if (n > 0)
        rc = check_one((const char *const *)operands, (size_t)n, c->rendered, &c->render, c->write, fix,
                       stdout, d);
    else
        rc = check_config(config_root(c->cfg), c->config, &c->render, c->write, fix, stdout, d);
    free(fix);
    return rc;
}

/* described in the command's help */
static const struct opt rendered = {
    .kind = OPT_STRING, .name = "rendered", .has_arg = true, .path = OPTION_PATH,
    .offset = CLI_AT(rendered),
};
static const struct opt write = {
    .kind = OPT_SET, .name = "write", .offset = CLI_AT(write), .value = true,
};

static const struct opt *const options[] = {&opt_format, CMD_RENDER_OPTIONS, &rendered, &opt_config, &write,
                                            CMD_RENDER_MESSAGE_OPTIONS, NULL};
static const char *const formats[] = {"yaml", "json", NULL};

const struct cmd_entry cmd_check_entry = {
    .name = "check",
    .synopsis = "check [options] [--write] (SOURCE... --rendered FILE | --config FILE)",
    .help = "Renders the sources and compares the result with the committed rendering; a\n"
            "stale one is shown as a unified diff (exit 1) or, with --write, replaced.\n"
            "\n"
            "      --rendered FILE        the committed rendering of the SOURCEs\n"
            "      --write                rewrite stale renderings (atomically) instead of failing\n",
    .options = options,
    .formats = formats,
    .min_operands = 0,
    .max_operands = -1,
    .exec = exec_check,
};
