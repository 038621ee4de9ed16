/* fanout shards assign: which tests each shard runs, proved, timed and budgeted; and the
 * options it shares with shards plan. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "fanout/assign.h"
#include "fanout/cmd.h"
#include "options.h"

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
    c->assign.color = cmd_color_at(STDOUT_FILENO);
    return shardplan_assign(&c->assign, (enum shardplan_format)c->format, stdout, d);
}

static int set_algo(const struct opt_hit *hit, const char *arg)
{
    struct cli *c = hit->dest;

    if ((c->assign.algo = assign_algo_find(arg)) < 0) {
        const char *names[ASSIGN_N_ALGOS + 1] = {NULL};

        for (int k = 0; k < ASSIGN_N_ALGOS; k++)
            names[k] = assign_algo_info((enum assign_algo)k)->name;
        return cmd_unknown_choice("--algo", names, arg);
    }
    return 0;
}

static int set_count(const struct opt_hit *hit, const char *arg)
{
    struct cli *c = hit->dest;
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(arg, &end, 10);
    if (errno || *end || end == arg || !isdigit((unsigned char)arg[0]) || v < 1 || v > SHARDPLAN_MAX_SHARDS)
        return cmd_usage_error("--shards/-n takes a number of shards from 1 to 100000:", arg);
    c->assign.count = (unsigned)v;
    return 0;
}

/* "90", "90s", "5m", "1h30m", "2.5m": seconds. 0, or -1 when it is none of these. */
static int parse_seconds(const char *arg, double *out)
{
    double total = 0;
    const char *p = arg;

    if (!*p)
        return -1;
    while (*p) {
        char *end;
        double v;

        if (!isdigit((unsigned char)*p) && *p != '.')
            return -1;
        errno = 0;
        v = strtod(p, &end);
        if (errno || end == p || v < 0)
            return -1;
        switch (*end) {
        case 'h': v *= 3600; end++; break;
        case 'm': v *= 60; end++; break;
        case 's': end++; break;
        case '\0': if (p != arg) return -1; break;
        default: return -1;
        }
        total += v;
        p = end;
    }
    *out = total;
    return 0;
}

static int set_overhead(const struct opt_hit *hit, const char *arg)
{
    struct cli *c = hit->dest;

    if (parse_seconds(arg, &c->assign.overhead) != 0)
        return cmd_usage_error("--overhead takes a time (90s, 5m, or seconds):", arg);
    return 0;
}

static int set_budget(const struct opt_hit *hit, const char *arg)
{
    struct cli *c = hit->dest;

    if (parse_seconds(arg, &c->assign.budget) != 0 || c->assign.budget <= 0)
        return cmd_usage_error("--budget takes a positive time (90s, 30m, 1h30m, or seconds):", arg);
    return 0;
}

const struct opt opt_tests = {
    .kind = OPT_STRING, .name = "tests", .has_arg = true, .path = OPTION_PATH, .offset = CLI_AT(assign.tests),
    .help = "      --tests FILE           the collected tests: `pytest --collect-only -q` output or\n"
            "                             one node id a line\n",
};
const struct opt opt_durations = {
    .kind = OPT_STRING, .name = "durations", .has_arg = true, .path = OPTION_PATH, .offset = CLI_AT(assign.durations),
    .help = "      --durations FILE       pytest-split's .test_durations (JSON) or a TSV of test and\n"
            "                             seconds\n",
};
const struct opt opt_suite = {
    .kind = OPT_STRING, .name = "suite", .has_arg = true, .offset = CLI_AT(assign.suite),
    .help = "      --suite NAME           the TSV's rows of this suite column value\n",
};
const struct opt opt_shards = {
    .kind = OPT_CALL, .name = "shards", .short_name = 'n', .has_arg = true, .call = set_count,
    .help = "  -n, --shards N             the number of shards\n",
};
const struct opt opt_nodeid_prefix = {
    .kind = OPT_STRING, .name = "nodeid-prefix", .has_arg = true, .offset = CLI_AT(assign.prefix), .value = 1,
    .help = "      --nodeid-prefix P      prepended to every collected node id (pytest's rootdir)\n",
};
const struct opt opt_overhead = {
    .kind = OPT_CALL, .name = "overhead", .has_arg = true, .call = set_overhead,
    .help = "      --overhead TIME        a shard's fixed cost (90s, 5m, or seconds)\n",
};
const struct opt opt_budget = {
    .kind = OPT_CALL, .name = "budget", .has_arg = true, .call = set_budget,
    .help = "      --budget TIME          a shard's time budget: the fewest shards that fit\n",
};

static const struct opt algo = {
    .kind = OPT_CALL, .name = "algo", .has_arg = true, .call = set_algo,
    .help = "      --algo pytest-shard@0.1.2|pytest-shard@0.1.1|pytest-split@least_duration|"
            "pytest-split@duration_based_chunks|sglang-lpt@legacy|sglang-lpt@registry|"
            "ci-infra-contiguous|round-robin\n"
            "                             the runner's algorithm (default pytest-shard@0.1.2;\n"
            "                             docs/shards.md)\n",
};

static const struct opt *const options[] = {&opt_format, &opt_tests, &opt_durations, &opt_suite, &algo,
                                            &opt_shards, &opt_nodeid_prefix, &opt_overhead, &opt_budget,
                                            CMD_MESSAGE_OPTIONS, NULL};
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
