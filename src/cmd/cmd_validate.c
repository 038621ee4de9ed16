/* fanout validate: the inputs against a JSON Schema. */
#include "fanout/cmd.h"
#include "fanout/validate.h"

static int validate_inputs(struct cli *c, const char *const *paths, size_t n, struct diag *d)
{
    return validate_run(paths, n, c->schema, c->render.dialect, d);
}

static int exec_validate(struct cli *c, char **operands, int n, struct diag *d)
{
    return cmd_on_inputs(c, operands, n, d, validate_inputs);
}

static const enum cmd_option options[] = {OPT_SCHEMA, OPT_DIALECT, OPT_ERROR_FORMAT, OPT_END};

const struct cmd_entry cmd_validate_entry = {
    .name = "validate",
    .synopsis = "validate [--schema FILE|NAME] [options] [FILE...|DIR...|-]",
    .help = "Checks every document against a JSON Schema (draft-07) and prints one line per\n"
            "violation. Default schema: the input dialect's (testarea, github-workflow,\n"
            "buildkite-rendered).\n"
            "\n"
            "      --schema FILE|NAME     a schema file (JSON or YAML) or a bundled one:\n"
            "                             buildkite-rendered, testarea, github-workflow,\n"
            "                             json-schema-draft-07\n",
    .options = options,
    .formats = NULL,
    .min_operands = 0,
    .max_operands = -1,
    .exec = exec_validate,
};
