#include "fanout/rules.h"

#include <string.h>

#include "fanout/suggest.h"

/* Kept in step with docs/reference.md's message table (test/e2e/cli.sh compares them). */
static const struct {
    const char *name, *meaning;
} rules[] = {
    {"yaml", "input that is not YAML (or JSON)"},
    {"utf8", "bytes that are not UTF-8, a NUL, a BOM past the start"},
    {"size", "more than 1 MiB between two YAML tokens, too many jobs in a workflow"},
    {"duplicate-key", "a key twice in one mapping"},
    {"pipeline-shape", "a document that is no pipeline, workflow or test-area file"},
    {"step-shape", "a step that is not a mapping nor a known scalar step"},
    {"parallelism", "a bad parallelism (type, range, step type, with matrix)"},
    {"type", "a field of the wrong type (and JSON Schema's type keyword)"},
    {"group", "a nested group, a group without steps"},
    {"depends-on", "a malformed depends_on"},
    {"alias", "an undefined or recursive alias"},
    {"alias-budget", "an alias bomb"},
    {"merge", "a << merge of something other than mappings"},
    {"tag", "a YAML tag other than a core-schema one, or a value it does not fit"},
    {"depth", "nesting deeper than 64, more than 20,000 keys in a mapping"},
    {"io", "a file that cannot be read or written"},
    {"symlink-loop", "a directory link back up the tree"},
    {"stale", "check: the committed rendering is stale"},
    {"config", "a .fanout.yml that is not valid"},
    {"contexts", "a --contexts file that is not a mapping"},
    {"env-file", "an --env-file line that is not NAME=VALUE"},
    {"interpolation", "Buildkite: upload-time interpolation that fails, or a variable not given"},
    {"shard-coverage", "test-runner shard flags that do not cover every shard once"},
    {"shard-variables", "BUILDKITE_PARALLEL_JOB read by a step without parallelism"},
    {"shards-budget", "shards assign/plan: the time budget cannot be met"},
    {"shards-input", "shards assign/plan: a bad tests or durations file"},
    {"testarea", "test-area input: an unknown field, a wrong type, a bad mirror"},
    {"testarea-ignored", "test-area input: a field vLLM's generator does not read"},
    {"mirror-parallelism", "test-area input: a mirror parallelism that depends on ci-infra#473"},
    {"schema", "a schema that does not compile"},
    {"internal", "out of memory or temporary space"},
    {"matrix", "a Buildkite or workflow matrix that cannot be expanded"},
    {"matrix-context", "workflows: a job-level if: on matrix or strategy"},
    {"matrix-unknown", "workflows: a matrix that needs contexts not given"},
    {"job-id", "workflows: a bad job id"},
    {"job-shape", "workflows: a job that is not a mapping"},
    {"needs", "workflows: a needs entry that is not a job id"},
    {"unknown-needs", "workflows: needs names no job"},
    {"expression", "a GitHub expression that does not parse or fails"},
    {"workflow-key", "workflows: a key GitHub's workflow schema does not allow there"},
    {"workflow-required", "workflows: a required key missing, or too few to tell a step's or job's kind"},
    {"workflow-value", "workflows: a value of a type or content GitHub's workflow schema does not allow"},
    {"workflow-context", "workflows: an expression naming a context or function not available in its key"},
    {"reusable-workflow", "workflows: a call to a reusable workflow that cannot be inlined"},
    {"key-collision", "two rendered steps with one key"},
    {"depends-cycle", "depends_on or needs forms a cycle"},
    {"placeholder", "%N-style placeholders where Buildkite does not fill them"},
    {"unknown-key", "a key Buildkite does not document for the step type"},
    {"unknown-step", "a mapping that is no known step type"},
    {"dangling-depends-on", "depends_on names a key no rendered step defines"},
    {"job-limit", "more jobs than Buildkite accepts per upload or build"},
};

/* The JSON Schema keywords a schema violation is named by ($ref: nesting too deep). */
static const char *const keywords[] = {
    "$ref", "required", "additionalProperties", "properties", "patternProperties",
    "propertyNames", "pattern", "enum", "const", "anyOf", "oneOf", "allOf", "not", "if",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
    "maxLength", "minItems", "maxItems", "uniqueItems", "contains", "items", "additionalItems",
    "minProperties", "maxProperties", "dependencies", "format", "false", NULL};

static const char *const *names(void)
{
    static const char *all[sizeof(rules) / sizeof(rules[0]) + sizeof(keywords) / sizeof(keywords[0])];

    if (!all[0]) {
        size_t n = 0;

        for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
            all[n++] = rules[i].name;
        for (size_t i = 0; keywords[i]; i++)
            all[n++] = keywords[i];
        all[n] = NULL;
    }
    return all;
}

bool rules_known(const char *rule)
{
    for (const char *const *n = names(); *n; n++) {
        if (!strcmp(*n, rule))
            return true;
    }
    return false;
}

const char *rules_suggest(const char *rule)
{
    size_t len = strlen(rule);

    return suggest_closest(rule, len, names(), suggest_limit(len));
}

void rules_print(FILE *out)
{
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
        fprintf(out, "%-20s %s\n", rules[i].name, rules[i].meaning);
    fputs("\nA schema violation is named by its JSON Schema keyword (type, required, pattern...).\n"
          "Levels (the config's `rules:`): error, warning, off; --ignore RULE is off.\n", out);
}
