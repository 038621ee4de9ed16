/* fanout diff: what changed between two renderings, job by job. */
#include "fanout/cmd.h"
#include "fanout/pipediff.h"

static int exec_diff(struct cli *c, char **operands, int n, struct diag *d)
{
    struct render_opts base = c->render;

    int rc;

    (void)n;
    base.mirror_parallelism = c->base_mirror;
    c->diff.format = (enum pd_format)c->format;
    rc = pipediff_run(operands[0], operands[1], &base, &c->render, &c->diff, stdout, d);
    return rc == DIAG_FINDING && c->diff.exit_zero ? 0 : rc;
}

static const enum cmd_option options[] = {OPT_CONFIG, CMD_RENDER_OPTIONS, OPT_IGNORE_FIELD, OPT_EXIT_ZERO,
                                          OPT_END};
/* In enum pd_format's order. */
static const char *const formats[] = {"text", "json", "github", "markdown", NULL};

const struct cmd_entry cmd_diff_entry = {
    .name = "diff",
    .synopsis = "diff [options] [--format text|json|github|markdown] BASE HEAD",
    .help = "Renders BASE and HEAD (sources or renderings: files, directories or -) and\n"
            "reports the jobs added, removed, changed, moved and re-sharded.\n"
            "\n",
    .options = options,
    .formats = formats,
    .min_operands = 2,
    .max_operands = 2,
    .operands = "two operands: BASE HEAD",
    .exec = exec_diff,
};
