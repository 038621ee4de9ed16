/* fanout check: is a committed rendering up to date? */
#include <unistd.h>

#include "fanout/check.h"
#include "fanout/cmd.h"

#define DEFAULT_CONFIG ".fanout.yml"

static int exec_check(struct cli *c, char **operands, int n, struct diag *d)
{
    c->render.format = c->format == 1 ? EMIT_JSON : EMIT_YAML;
    if (n > 0) {
        if (!c->rendered)
            return cmd_usage_error("check SOURCE... needs --rendered FILE", NULL);
        return check_one((const char *const *)operands, (size_t)n, c->rendered, &c->render,
                         c->write, stdout, d);
    }
    if (c->rendered)
        return cmd_usage_error("--rendered needs the SOURCEs it renders", NULL);
    if (!c->config) {
        if (access(DEFAULT_CONFIG, F_OK) != 0)
            return cmd_usage_error("nothing to check: give SOURCE... --rendered FILE, or --config FILE "
                                   "(or write " DEFAULT_CONFIG ")", NULL);
        c->config = DEFAULT_CONFIG;
    }
    return check_config(c->config, &c->render, c->write, stdout, d);
}

static const enum cmd_option options[] = {OPT_RENDERED, OPT_CONFIG, OPT_WRITE, CMD_RENDER_OPTIONS,
                                          OPT_END};
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
