#include "fanout/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fanout/check.h"
#include "fanout/diag.h"
#include "fanout/inputs.h"
#include "fanout/pipediff.h"
#include "fanout/render.h"
#include "fanout/validate.h"

#define EXIT_USAGE 2
#define DEFAULT_CONFIG ".fanout.yml"

static const char usage_text[] =
    "usage: fanout render [options] [FILE...|DIR...|-]\n"
    "       fanout validate [--schema FILE|NAME] [options] [FILE...|DIR...|-]\n"
    "       fanout check [options] [--write] (SOURCE... --rendered FILE | --config FILE)\n"
    "       fanout diff [options] [--format text|json|github|markdown] BASE HEAD\n"
    "       fanout --help | --version\n"
    "\n"
    "Renders Buildkite pipeline YAML (or vLLM test-area files) into explicit per-shard\n"
    "steps. A DIR stands for the .yaml/.yml files under it, in path order.\n"
    "\n"
    "render options (check and diff take them too):\n"
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
    "\n"
    "check options:\n"
    "      --rendered FILE        the committed rendering of the SOURCEs\n"
    "      --config FILE          pairs of sources and renderings (default .fanout.yml)\n"
    "      --write                rewrite stale renderings (atomically) instead of failing\n"
    "\n"
    "diff: BASE and HEAD are sources or renderings (files, directories or -);\n"
    "      --format picks the report: text (default), json, github or markdown.\n"
    "\n"
    "Exit status: 0 ok (same, fresh, valid), 1 findings (diff, stale, violations),\n"
    "2 usage, input or I/O error. See fanout(1) and docs/reference.md.\n";

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "fanout: error: %s%s%s\nTry 'fanout --help'.\n", what, arg ? " " : "",
            arg ? arg : "");
    return EXIT_USAGE;
}

/* The position of `word` in `words` (NULL-terminated), or -1. */
static int choice(const char *word, const char *const *words)
{
    for (int i = 0; words[i]; i++) {
        if (strcmp(word, words[i]) == 0)
            return i;
    }
    return -1;
}

enum {
    OPT_UPLOAD = 256, OPT_STRICT, OPT_ALLOW_PLACEHOLDERS, OPT_ERROR_FORMAT, OPT_DIALECT,
    OPT_PLATFORM, OPT_NO_VALIDATE, OPT_VALIDATE, OPT_SCHEMA, OPT_RENDERED, OPT_CONFIG,
    OPT_WRITE,
};

static const struct option all_options[] = {
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
    {"schema", required_argument, NULL, OPT_SCHEMA},
    {"rendered", required_argument, NULL, OPT_RENDERED},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"write", no_argument, NULL, OPT_WRITE},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

enum command { CMD_RENDER, CMD_VALIDATE, CMD_CHECK, CMD_DIFF };

/* Which options each command takes (by `val`). */
static bool takes(enum command cmd, int opt)
{
    switch (opt) {
    case 'h':
    case OPT_ERROR_FORMAT:
    case OPT_DIALECT:
        return true;
    case 'o':
        return cmd == CMD_RENDER;
    case 'f':
        return cmd != CMD_VALIDATE;
    case OPT_SCHEMA:
        return cmd == CMD_VALIDATE;
    case OPT_RENDERED:
    case OPT_CONFIG:
    case OPT_WRITE:
        return cmd == CMD_CHECK;
    default:
        return cmd != CMD_VALIDATE;
    }
}

struct cli {
    enum command cmd;
    struct render_opts render;
    enum diag_format errors;
    enum pd_format report;
    enum validate_dialect vdialect;
    const char *schema, *rendered, *config;
    bool write;
};

static int parse_option(struct cli *c, int opt, const char *arg)
{
    static const char *const formats[] = {"yaml", "json", NULL};
    static const char *const reports[] = {"text", "json", "github", "markdown", NULL};
    static const char *const error_formats[] = {"text", "github", "json", NULL};
    static const char *const dialects[] = {"auto", "buildkite", "testarea", NULL};
    static const char *const platforms[] = {"all", "nvidia", "amd", NULL};
    int i;

    switch (opt) {
    case 'f':
        if (c->cmd == CMD_DIFF) {
            if ((i = choice(arg, reports)) < 0)
                return usage_error("unknown --format (text, json, github or markdown):", arg);
            c->report = (enum pd_format)i;
        } else {
            if ((i = choice(arg, formats)) < 0)
                return usage_error("unknown --format (yaml or json):", arg);
            c->render.format = i ? EMIT_JSON : EMIT_YAML;
        }
        return 0;
    case 'o':
        c->render.output = arg;
        return 0;
    case OPT_UPLOAD:
        c->render.upload = true;
        return 0;
    case OPT_STRICT:
        c->render.strict = true;
        return 0;
    case OPT_ALLOW_PLACEHOLDERS:
        c->render.allow_placeholders = true;
        return 0;
    case OPT_VALIDATE:
    case OPT_NO_VALIDATE:
        c->render.validate = opt == OPT_VALIDATE;
        return 0;
    case OPT_ERROR_FORMAT:
        if ((i = choice(arg, error_formats)) < 0)
            return usage_error("unknown --error-format (text, github or json):", arg);
        c->errors = i == 0 ? DIAG_TEXT : i == 1 ? DIAG_GITHUB : DIAG_JSON;
        c->render.error_format = c->errors;
        return 0;
    case OPT_DIALECT:
        if ((i = choice(arg, dialects)) < 0)
            return usage_error("unknown --dialect (auto, buildkite or testarea):", arg);
        c->render.dialect = i == 0 ? RENDER_AUTO : i == 1 ? RENDER_BUILDKITE : RENDER_TESTAREA;
        c->vdialect = i == 0 ? VALIDATE_AUTO : i == 1 ? VALIDATE_BUILDKITE : VALIDATE_TESTAREA;
        return 0;
    case OPT_PLATFORM:
        if ((i = choice(arg, platforms)) < 0)
            return usage_error("unknown --platform (all, nvidia or amd):", arg);
        c->render.platform = i == 0 ? TA_ALL : i == 1 ? TA_NVIDIA : TA_AMD;
        return 0;
    case OPT_SCHEMA:
        c->schema = arg;
        return 0;
    case OPT_RENDERED:
        c->rendered = arg;
        return 0;
    case OPT_CONFIG:
        c->config = arg;
        return 0;
    case OPT_WRITE:
        c->write = true;
        return 0;
    }
    return usage_error("unknown option", NULL);
}

/* Parses argv (after the command word); the operands are left at argv[optind..]. */
static int parse(struct cli *c, int argc, char **argv)
{
    int opt;

    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":f:o:h", all_options, NULL)) != -1) {
        if (opt == 'h') {
            fputs(usage_text, stdout);
            return -1;
        }
        if (opt == ':')
            return usage_error("this option needs a value:", argv[optind - 1]);
        if (opt == '?' || !takes(c->cmd, opt))
            return usage_error("unknown option for this command:", argv[optind - 1]);
        if (parse_option(c, opt, optarg) != 0)
            return EXIT_USAGE;
    }
    return 0;
}

/* Runs `fn` on the operands as files (directories expanded; none: stdin). */
static int on_inputs(struct cli *c, int argc, char **argv, struct diag *d,
                     int (*fn)(struct cli *, const char *const *, size_t, struct diag *))
{
    static const char *const stdin_only[] = {"-"};
    struct inputs in;
    int rc;

    if (optind == argc)
        return fn(c, stdin_only, 1, d);
    if (inputs_expand((const char *const *)argv + optind, (size_t)(argc - optind), d, &in) != 0)
        return diag_exit_code(d, false);
    rc = fn(c, (const char *const *)in.paths, in.n, d);
    inputs_free(&in);
    return rc;
}

static int run_render(struct cli *c, const char *const *paths, size_t n, struct diag *d)
{
    return render_run(paths, n, &c->render, d);
}

static int run_validate(struct cli *c, const char *const *paths, size_t n, struct diag *d)
{
    return validate_run(paths, n, c->schema, c->vdialect, d);
}

static int run_check(struct cli *c, int argc, char **argv, struct diag *d)
{
    if (optind < argc) {
        if (!c->rendered)
            return usage_error("check SOURCE... needs --rendered FILE", NULL);
        return check_one((const char *const *)argv + optind, (size_t)(argc - optind), c->rendered,
                         &c->render, c->write, stdout, d);
    }
    if (c->rendered)
        return usage_error("--rendered needs the SOURCEs it renders", NULL);
    if (!c->config) {
        if (access(DEFAULT_CONFIG, F_OK) != 0)
            return usage_error("nothing to check: give SOURCE... --rendered FILE, or --config FILE "
                               "(or write " DEFAULT_CONFIG ")", NULL);
        c->config = DEFAULT_CONFIG;
    }
    return check_config(c->config, &c->render, c->write, stdout, d);
}

int cli_main(int argc, char **argv)
{
    static const char *const commands[] = {"render", "validate", "check", "diff", NULL};
    struct cli c;
    struct diag *d;
    int rc, cmd;

    if (argc < 2)
        return usage_error("missing command (try 'fanout render FILE')", NULL);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("fanout %s\n", FANOUT_VERSION);
        return 0;
    }
    if ((cmd = choice(argv[1], commands)) < 0)
        return usage_error("unknown command:", argv[1]);
    memset(&c, 0, sizeof(c));
    c.cmd = (enum command)cmd;
    c.render.validate = true;
    argc--;
    argv++;
    rc = parse(&c, argc, argv);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    if (c.cmd == CMD_DIFF && argc - optind != 2)
        return usage_error("diff needs two operands: BASE HEAD", NULL);
    d = diag_create(stderr, c.errors);
    if (!d)
        return EXIT_USAGE;
    switch (c.cmd) {
    case CMD_RENDER:
        rc = on_inputs(&c, argc, argv, d, run_render);
        break;
    case CMD_VALIDATE:
        rc = on_inputs(&c, argc, argv, d, run_validate);
        break;
    case CMD_CHECK:
        rc = run_check(&c, argc, argv, d);
        break;
    case CMD_DIFF:
        rc = pipediff_run(argv[optind], argv[optind + 1], &c.render, c.report, stdout, d);
        break;
    }
    /* Reports and diffs go straight to stdout: a lost write must not pass for success. */
    if ((fflush(stdout) != 0 || ferror(stdout)) && rc < DIAG_INPUT) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "<stdout>", 0, 0, "io", "write error: %s",
                    strerror(errno));
        rc = DIAG_INPUT;
    }
    diag_destroy(d);
    return rc;
}
