/* fanout shards assign: which tests each shard runs, proved, timed and budgeted. */
#include <stdlib.h>
#include <unistd.h>

#include "fanout/cmd.h"

static int exec_shards_assign(struct cli *c, char **operands, int n, struct diag *d)
{
    (void)operands;
    (void)n;
    /* colour only for a person at a terminal who did not ask for none (no-color.org) */
    c->assign.color = isatty(STDOUT_FILENO) && !(getenv("NO_COLOR") && *getenv("NO_COLOR"));
    return shardplan_assign(&c->assign, (enum shardplan_format)c->format, stdout, d);
}

static const enum cmd_option options[] = {OPT_TESTS, OPT_DURATIONS, OPT_SUITE, OPT_ALGO, OPT_COUNT,
                                          OPT_NODEID_PREFIX, OPT_OVERHEAD, OPT_BUDGET,
                                          OPT_ERROR_FORMAT, OPT_END};
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
