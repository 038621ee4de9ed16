/* fanout validate: the inputs against a schema (JSON Schema, or GitHub's workflow schema). */
#include <string.h>

#include "fanout/cmd.h"
#include "fanout/validate.h"

/* The schema's findings, then (with the dialect's own schema, on valid input) every
 * finding render makes: both are "is this input right?", and a problem has one exit
 * code whichever command finds it. */
static int validate_inputs(struct cli *c, const char *const *paths, size_t n, struct diag *d)
{
    int rc = validate_run(paths, n, c->schema, c->render.dialect, d), lint;

    /* stdin was read by the schema check; it cannot be read again */
    for (size_t i = 0; i < n; i++)
        if (!strcmp(paths[i], "-"))
            return rc;
    if (c->schema || rc == DIAG_INPUT)
        return rc;
    lint = cmd_lint(c, paths, n, d, RULE_NONE);
    return lint > rc ? lint : rc;
}

static int exec_validate(struct cli *c, char **operands, int n, struct diag *d)
{
    return cmd_on_inputs(c, operands, n, d, validate_inputs);
}

static const enum cmd_option options[] = {OPT_SCHEMA, OPT_DIALECT, OPT_CONFIG, CMD_MESSAGE_OPTIONS, OPT_END};

const struct cmd_entry cmd_validate_entry = {
    .name = "validate",
    .synopsis = "validate [--schema FILE|NAME] [options] [FILE...|DIR...|-]",
    .help = "Checks every document against a schema and prints one line per violation.\n"
            "Default schema: the input dialect's (testarea, github-workflow-v1: GitHub's own\n"
            "workflow schema, buildkite-rendered); with it, the shard-coverage findings too\n"
            "(as `shards check`).\n"
            "\n"
            "      --schema FILE|NAME     a JSON Schema file (JSON or YAML) or a bundled schema:\n"
            "                             buildkite-rendered, testarea, github-workflow-v1,\n"
            "                             github-workflow (SchemaStore's), json-schema-draft-07\n",
    .options = options,
    .formats = NULL,
    .min_operands = 0,
    .max_operands = -1,
    .exec = exec_validate,
};
