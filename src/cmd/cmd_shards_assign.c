/* fanout shards assign: which tests each shard runs, proved, timed and budgeted. */
#include <stdlib.h>
#include <unistd.h>

#include "fanout/assign.h"
#include "fanout/cmd.h"

int cmd_shards_usage(const struct cli *c, bool count_needed, bool times_shown)
{
    if (!c->assign.tests && !c->assign.durations)
        return cmd_usage_error("give the collected tests (--tests FILE) or their durations "
                               "(--durations FILE)", NULL);
    if (c->assign.suite && !c->assign.durations)
        return cmd_usage_error("--suite picks rows of the --durations table", NULL);
    if (c->assign.prefix && !c->assign.tests)
        return cmd_usage_error("--nodeid-prefix is prepended to the ids of --tests", NULL);
    if (c->assign.overhead > 0 && !times_shown && c->assign.budget <= 0)
        return cmd_usage_error("--overhead counts against --budget (and in shards assign's times "
                               "with --durations)", NULL);
    if (count_needed && !c->assign.count && c->assign.budget <= 0)
        return cmd_usage_error("give the number of shards (-n N) or a time budget (--budget TIME)", NULL);
    return 0;
}

static int exec_shards_assign(struct cli *c, char **operands, int n, struct diag *d)
{
    int rc = cmd_shards_usage(c, c->assign.algo != ASSIGN_CONTIGUOUS, c->assign.durations != NULL);

    (void)operands;
    (void)n;
    if (rc)
        return rc;
    /* colour only for a person at a terminal who did not ask for none (no-color.org) */
    c->assign.color = isatty(STDOUT_FILENO) && !(getenv("NO_COLOR") && *getenv("NO_COLOR"));
    return shardplan_assign(&c->assign, (enum shardplan_format)c->format, stdout, d);
}

static const enum cmd_option options[] = {OPT_TESTS, OPT_DURATIONS, OPT_SUITE, OPT_ALGO, OPT_COUNT,
                                          OPT_NODEID_PREFIX, OPT_OVERHEAD, OPT_BUDGET,
                                          CMD_MESSAGE_OPTIONS, OPT_END};
static const char *const formats[] = {"text", "json", "markdown", NULL};

const struct cmd_entry cmd_shards_assign_entry = {
    .name = "shards assign",
    .synopsis = "shards assign (--tests FILE | --durations FILE) [-n N | --budget TIME] [options]",
    .help = "Reproduces which tests each shard runs, exactly as the runner decides, proves\n"
            "the shards disjoint and complete (120/120), and with durations predicts each\n"
            "shard's time; with --budget, the fewest shards that fit.\n"
            "\n",
    .options = options,
    .formats = formats,
    .min_operands = 0,
    .max_operands = 0,
    .operands = "no operands",
    .exec = exec_shards_assign,
};
