/* fanout shards check: do the fanned-out jobs run every shard exactly once? */
#include "fanout/cmd.h"
#include "options.h"

static void ignore_begin(void *user, const struct dialect *dialect)
{
    (void)user;
    (void)dialect;
}

int cmd_lint(struct cli *c, const char *const *paths, size_t n, struct diag *d, enum rule_id rule)
{
    static const struct render_sink nowhere = {ignore_begin, NULL, NULL, NULL, NULL, NULL}; /* checks_only */
    struct render_opts o = c->render;
    int rc;

    o.sink = &nowhere;
    o.checks_only = true; /* a reference forward is no reason to read the inputs again */
    o.validate = false; /* the schema is validate's business, not this rule's */
    o.shards = c->shards;
    diag_keep_only(d, rule);
    rc = render_run(paths, n, &o, d);
    diag_keep_only(d, RULE_NONE);
    return rc;
}

static int shard_lint_in_dialect(struct cli *c, const char *const *paths, size_t n, struct diag *d, void *user)
{
    (void)user;
    return cmd_lint(c, paths, n, d, RULE_SHARD_COVERAGE);
}

/* Each file in its own dialect, those of a dialect together, as render, validate and
 * jobs read them (a repository's root holds pipelines, test areas and workflows). */
static int shard_lint(struct cli *c, const char *const *paths, size_t n, struct diag *d)
{
    if (c->render.dialect)
        return shard_lint_in_dialect(c, paths, n, d, NULL);
    return cmd_by_dialect(c, paths, n, d, shard_lint_in_dialect, NULL);
}

static int exec_shards_check(struct cli *c, char **operands, int n, struct diag *d)
{
    return cmd_on_inputs(c, operands, n, d, shard_lint);
}

static const struct opt *const options[] = {CMD_RENDER_OPTIONS, &opt_config, CMD_RENDER_MESSAGE_OPTIONS,
                                            NULL};

const struct cmd_entry cmd_shards_check_entry = {
    .name = "shards check",
    .synopsis = "shards check [options] [FILE...|DIR...|-]",
    .help = "Proves from the rendered commands that every fanned-out step or job runs each\n"
            "shard of its test runner exactly once: pytest-shard --num-shards/--shard-id,\n"
            "SGLang's run_suite.py --auto-partition-size/--auto-partition-id and\n"
            "--total-partitions/--partition-id, pytest-split --splits/--group, and the\n"
            "config's own runners. Only shard-coverage findings are shown (render and\n"
            "validate show them too). Exit 1 when a shard never runs or runs twice.\n"
            "\n",
    .options = options,
    .formats = NULL,
    .min_operands = 0,
    .max_operands = -1,
    .exec = exec_shards_check,
};
