/* fanout diff: what changed between two renderings, job by job. */
#include <string.h>

#include "fanout/cmd.h"
#include "fanout/pipediff.h"

static int exec_diff(struct cli *c, char **operands, int n, struct diag *d)
{
    struct render_opts head = c->render;
    int rc;

    (void)n;
    /* the second read of stdin would find it empty: HEAD would read as no steps at all */
    if (!strcmp(operands[0], "-") && !strcmp(operands[1], "-"))
        return cmd_usage_error("BASE and HEAD cannot both be '-': diff reads standard input once", NULL);
    head.side = 1; /* a dialect option given twice: BASE's, then HEAD's */
    head.shards = c->shards; /* HEAD's findings, as render gives them; BASE's are not new */
    c->diff.format = (enum pd_format)c->format;
    rc = pipediff_run(operands[0], operands[1], &c->render, &head, &c->diff, stdout, d);
    return rc == DIAG_FINDING && c->diff.exit_zero ? 0 : rc;
}

static const enum cmd_option options[] = {OPT_CONFIG, CMD_RENDER_OPTIONS, OPT_IGNORE_FIELD, OPT_EXIT_ZERO,
                                          OPT_END};
/* In enum pd_format's order. */
static const char *const formats[] = {"text", "json", "github", "markdown", NULL};

const struct cmd_entry cmd_diff_entry = {
    .name = "diff",
    .synopsis = "diff [options] [--format text|json|github|markdown] BASE HEAD",
    .help = "Renders BASE and HEAD (sources or renderings: files, directories or -, not\n"
            "both) and reports the steps added, removed, renamed, changed, moved and\n"
            "re-sharded, job by job, each at its file:line with its label.\n"
            "\n",
    .options = options,
    .formats = formats,
    .min_operands = 2,
    .max_operands = 2,
    .sides = 2,
    .operands = "two operands: BASE HEAD",
    .exec = exec_diff,
};
