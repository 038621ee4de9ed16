/* fanout shards plan: a balanced LPT plan in the shape of SGLang's partition plans. */
#include "fanout/cmd.h"
#include "options.h"

static int exec_shards_plan(struct cli *c, char **operands, int n, struct diag *d)
{
    int rc = cmd_shards_usage(c, true, false);

    (void)operands;
    (void)n;
    return rc ? rc : shardplan_plan(&c->assign, stdout, d);
}

static const struct opt *const options[] = {&opt_tests, &opt_durations, &opt_suite, &opt_shards,
                                            &opt_nodeid_prefix, &opt_overhead, &opt_budget,
                                            CMD_MESSAGE_OPTIONS, NULL};

const struct cmd_entry cmd_shards_plan_entry = {
    .name = "shards plan",
    .synopsis = "shards plan (--tests FILE | --durations FILE) (-n N | --budget TIME) [options]",
    .help = "Writes a balanced plan (longest processing time first) as JSON in the shape of\n"
            "SGLang's partition plans: {\"partition_count\", \"partitions\": [{\"part\",\n"
            "\"items\", \"estimated_time\"}]}, usable as a matrix with fromJson.\n"
            "\n",
    .options = options,
    .formats = NULL,
    .min_operands = 0,
    .max_operands = 0,
    .operands = "no operands",
    .exec = exec_shards_plan,
};
