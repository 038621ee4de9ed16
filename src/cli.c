#include "fanout/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "fanout/diag.h"
#include "fanout/inputs.h"
#include "fanout/render.h"
#include "fanout/validate.h"

#define EXIT_USAGE 2

static const char usage_text[] =
    "usage: fanout render [options] [FILE...|DIR...|-]\n"
    "       fanout validate [--schema FILE|NAME] [options] [FILE...|DIR...|-]\n"
    "       fanout --help | --version\n"
    "\n"
    "Renders Buildkite pipeline YAML (or vLLM test-area files) into explicit per-shard\n"
    "steps. A DIR stands for the .yaml/.yml files under it, in path order.\n"
    "\n"
    "render options:\n"
    "  -f, --format yaml|json     output format (default yaml)\n"
    "  -o, --output FILE          write FILE atomically instead of stdout\n"
    "      --upload               keep $$BUILDKITE_PARALLEL_JOB references in commands,\n"
    "                             for `buildkite-agent pipeline upload`\n"
    "      --strict               warnings fail the run (exit 1)\n"
    "      --allow-placeholders   accept %N-style placeholders in steps without parallelism\n"
    "      --dialect auto|buildkite|testarea\n"
    "                             input dialect (default auto: a top-level `group` means\n"
    "                             vLLM's test-area files)\n"
    "      --platform all|nvidia|amd\n"
    "                             test-area input: which steps to render (default all)\n"
    "      --no-validate          skip the schema checks (input: the dialect's schema;\n"
    "                             output: buildkite-rendered)\n"
    "      --error-format text|github|json\n"
    "                             how messages on stderr look (default text)\n"
    "\n"
    "validate options:\n"
    "      --schema FILE|NAME     a JSON Schema (draft-07, JSON or YAML) or a bundled one:\n"
    "                             buildkite-rendered (default), testarea (default for\n"
    "                             test-area files), json-schema-draft-07\n"
    "      --dialect, --error-format as for render\n"
    "\n"
    "Exit status: 0 ok, 1 findings, 2 usage, input or I/O error.\n"
    "See fanout(1) and docs/reference.md.\n";

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "fanout: error: %s%s%s\nTry 'fanout --help'.\n", what, arg ? " " : "",
            arg ? arg : "");
    return EXIT_USAGE;
}

static int parse_error_format(const char *s, enum diag_format *out)
{
    if (strcmp(s, "text") == 0)
        *out = DIAG_TEXT;
    else if (strcmp(s, "github") == 0)
        *out = DIAG_GITHUB;
    else if (strcmp(s, "json") == 0)
        *out = DIAG_JSON;
    else
        return -1;
    return 0;
}

enum {
    OPT_UPLOAD = 256, OPT_STRICT, OPT_ALLOW_PLACEHOLDERS, OPT_ERROR_FORMAT, OPT_DIALECT,
    OPT_PLATFORM, OPT_NO_VALIDATE, OPT_VALIDATE, OPT_SCHEMA,
};

static int cmd_render(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"upload", no_argument, NULL, OPT_UPLOAD},
        {"strict", no_argument, NULL, OPT_STRICT},
        {"allow-placeholders", no_argument, NULL, OPT_ALLOW_PLACEHOLDERS},
        {"error-format", required_argument, NULL, OPT_ERROR_FORMAT},
        {"dialect", required_argument, NULL, OPT_DIALECT},
        {"platform", required_argument, NULL, OPT_PLATFORM},
        {"validate", no_argument, NULL, OPT_VALIDATE},
        {"no-validate", no_argument, NULL, OPT_NO_VALIDATE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct render_opts opts = {.format = EMIT_YAML, .validate = true};
    enum diag_format dfmt = DIAG_TEXT;
    static const char *const stdin_only[] = {"-"};
    struct inputs in;
    struct diag *d;
    int c, rc;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (strcmp(optarg, "yaml") == 0)
                opts.format = EMIT_YAML;
            else if (strcmp(optarg, "json") == 0)
                opts.format = EMIT_JSON;
            else
                return usage_error("unknown --format (yaml or json):", optarg);
            break;
        case 'o':
            opts.output = optarg;
            break;
        case OPT_UPLOAD:
            opts.upload = true;
            break;
        case OPT_STRICT:
            opts.strict = true;
            break;
        case OPT_ALLOW_PLACEHOLDERS:
            opts.allow_placeholders = true;
            break;
        case OPT_DIALECT:
            if (strcmp(optarg, "auto") == 0)
                opts.dialect = RENDER_AUTO;
            else if (strcmp(optarg, "buildkite") == 0)
                opts.dialect = RENDER_BUILDKITE;
            else if (strcmp(optarg, "testarea") == 0)
                opts.dialect = RENDER_TESTAREA;
            else
                return usage_error("unknown --dialect (auto, buildkite or testarea):", optarg);
            break;
        case OPT_VALIDATE:
            opts.validate = true;
            break;
        case OPT_NO_VALIDATE:
            opts.validate = false;
            break;
        case OPT_PLATFORM:
            if (strcmp(optarg, "all") == 0)
                opts.platform = TA_ALL;
            else if (strcmp(optarg, "nvidia") == 0)
                opts.platform = TA_NVIDIA;
            else if (strcmp(optarg, "amd") == 0)
                opts.platform = TA_AMD;
            else
                return usage_error("unknown --platform (all, nvidia or amd):", optarg);
            break;
        case OPT_ERROR_FORMAT:
            if (parse_error_format(optarg, &dfmt) != 0)
                return usage_error("unknown --error-format (text, github or json):", optarg);
            break;
        case 'h':
            fputs(usage_text, stdout);
            return 0;
        case ':':
            return usage_error("this option needs a value:", argv[optind - 1]);
        default:
            return usage_error("unknown option:", argv[optind - 1]);
        }
    }
    d = diag_create(stderr, dfmt);
    if (!d)
        return EXIT_USAGE;
    opts.error_format = dfmt;
    if (optind == argc) {
        rc = render_run(stdin_only, 1, &opts, d);
    } else if (inputs_expand((const char *const *)argv + optind, (size_t)(argc - optind), d, &in) != 0) {
        rc = diag_exit_code(d, false);
    } else {
        rc = render_run((const char *const *)in.paths, in.n, &opts, d);
        inputs_free(&in);
    }
    diag_destroy(d);
    return rc;
}

static int cmd_validate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"schema", required_argument, NULL, OPT_SCHEMA},
        {"dialect", required_argument, NULL, OPT_DIALECT},
        {"error-format", required_argument, NULL, OPT_ERROR_FORMAT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const char *const stdin_only[] = {"-"};
    enum validate_dialect dialect = VALIDATE_AUTO;
    enum diag_format dfmt = DIAG_TEXT;
    const char *schema = NULL;
    struct inputs in;
    struct diag *d;
    int c, rc;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_SCHEMA:
            schema = optarg;
            break;
        case OPT_DIALECT:
            if (strcmp(optarg, "auto") == 0)
                dialect = VALIDATE_AUTO;
            else if (strcmp(optarg, "buildkite") == 0)
                dialect = VALIDATE_BUILDKITE;
            else if (strcmp(optarg, "testarea") == 0)
                dialect = VALIDATE_TESTAREA;
            else
                return usage_error("unknown --dialect (auto, buildkite or testarea):", optarg);
            break;
        case OPT_ERROR_FORMAT:
            if (parse_error_format(optarg, &dfmt) != 0)
                return usage_error("unknown --error-format (text, github or json):", optarg);
            break;
        case 'h':
            fputs(usage_text, stdout);
            return 0;
        case ':':
            return usage_error("this option needs a value:", argv[optind - 1]);
        default:
            return usage_error("unknown option:", argv[optind - 1]);
        }
    }
    d = diag_create(stderr, dfmt);
    if (!d)
        return EXIT_USAGE;
    if (optind == argc) {
        rc = validate_run(stdin_only, 1, schema, dialect, d);
    } else if (inputs_expand((const char *const *)argv + optind, (size_t)(argc - optind), d, &in) != 0) {
        rc = diag_exit_code(d, false);
    } else {
        rc = validate_run((const char *const *)in.paths, in.n, schema, dialect, d);
        inputs_free(&in);
    }
    diag_destroy(d);
    return rc;
}

int cli_main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("missing command (try 'fanout render FILE')", NULL);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("fanout %s\n", FANOUT_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "render") == 0)
        return cmd_render(argc - 1, argv + 1);
    if (strcmp(argv[1], "validate") == 0)
        return cmd_validate(argc - 1, argv + 1);
    return usage_error("unknown command:", argv[1]);
}
