/* fanout diff: what changed between two renderings, job by job. */
#include <string.h>

#include "fanout/cmd.h"
#include "fanout/pipediff.h"
#include "options.h"

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

static int add_ignored_field(const struct opt_hit *hit, const char *arg)
{
    struct cli *c = hit->dest;

    return cmd_append_word(&c->ignore_fields, &c->n_ignore_fields, arg);
}

static const struct opt ignore_field = {
    .kind = OPT_CALL, .name = "ignore-field", .has_arg = true, .call = add_ignored_field,
    .help = "      --ignore-field NAME    leave field NAME out of the comparison (repeatable)\n",
};
static const struct opt exit_zero = {
    .kind = OPT_SET, .name = "exit-zero", .offset = CLI_AT(diff.exit_zero),
    .value = true,
    .help = "      --exit-zero            exit 0 when the renderings differ (errors still exit 2)\n",
};

static const struct opt *const options[] = {&opt_format, CMD_RENDER_OPTIONS, &opt_config,
                                            CMD_RENDER_MESSAGE_OPTIONS, &ignore_field, &exit_zero, NULL};
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
