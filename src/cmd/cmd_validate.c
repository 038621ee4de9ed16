/* fanout validate: the inputs against a schema (JSON Schema, or GitHub's workflow schema). */
#include <string.h>

#include "fanout/cmd.h"
#include "fanout/validate.h"
#include "options.h"

/* The findings of render, then the schema's, for files of one dialect (an unknown key
 * both see is said once, as render says it: cli.c's diag_shadow). The schema is checked
 * in render's read of the inputs, its findings held until render's are said. */
static int validate_in_dialect(struct cli *c, const char *const *paths, size_t n, struct diag *d, void *user)
{
    struct validate_along *along = validate_along_open(c->render.dialect, paths, d);
    int lint, rc;

    (void)user;
    c->render.observe = along ? validate_along_item : NULL;
    c->render.observe_user = along;
    lint = cmd_lint(c, paths, n, d, RULE_NONE);
    c->render.observe = NULL;
    c->render.observe_user = NULL;
    if (!along) /* out of memory: a read of its own */
        rc = lint == DIAG_INPUT ? lint : validate_run(paths, n, NULL, c->render.dialect, d);
    else
        rc = validate_along_finish(along, paths, n, lint != DIAG_INPUT, d);
    return lint > rc ? lint : rc;
}

/* With the dialect's own schema: every finding render makes, then the schema's; both
 * are "is this input right?", and a problem has one exit code whichever command finds
 * it. With --schema, or stdin (which can be read once), the schema's findings only. */
static int validate_inputs(struct cli *c, const char *const *paths, size_t n, struct diag *d)
{
    bool schema_only = c->schema != NULL;

    for (size_t i = 0; i < n; i++)
        schema_only = schema_only || !strcmp(paths[i], "-");
    if (schema_only)
        return validate_run(paths, n, c->schema, c->render.dialect, d);
    if (c->render.dialect)
        return validate_in_dialect(c, paths, n, d, NULL);
    /* references across files are seen as render sees them */
    return cmd_by_dialect(c, paths, n, d, validate_in_dialect, NULL);
}

static int exec_validate(struct cli *c, char **operands, int n, struct diag *d)
{
    return cmd_on_inputs(c, operands, n, d, validate_inputs);
}

/* described in the command's help */
static const struct opt schema = {
    .kind = OPT_STRING, .name = "schema", .has_arg = true, .path = OPTION_PATH_OR_NAME, .offset = CLI_AT(schema),
};

/* render's message options: validate reports render's findings, dangling-depends-on too */
static const struct opt *const options[] = {&schema, &opt_strict, &opt_dialect, &opt_dialects_validate, &opt_config,
                                            CMD_RENDER_MESSAGE_OPTIONS, NULL};

const struct cmd_entry cmd_validate_entry = {
    .name = "validate",
    .synopsis = "validate [--schema FILE|NAME] [options] [FILE...|DIR...|-]",
    .help = "Checks every document against a schema and prints one line per violation.\n"
            "Default schema: the input dialect's (buildkite: Buildkite's own pipeline schema,\n"
            "testarea, rayci, github-workflow-v1: GitHub's own workflow schema); with it, first\n"
            "every finding render makes (shard coverage too, as `shards check`).\n"
            "\n"
            "      --schema FILE|NAME     a JSON Schema file (JSON or YAML) or a bundled schema:\n"
            "                             buildkite, buildkite-rendered (a rendering),\n"
            "                             testarea, rayci, github-workflow-v1,\n"
            "                             github-workflow (SchemaStore's), json-schema-draft-07\n",
    .options = options,
    .formats = NULL,
    .min_operands = 0,
    .max_operands = -1,
    .exec = exec_validate,
};
