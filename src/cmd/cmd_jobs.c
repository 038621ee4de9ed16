/* fanout jobs: one line per job the inputs render into (src/jobs/joblist.c lists them). */
#include "fanout/cmd.h"
#include "fanout/joblist.h"
#include "options.h"

/* The files of one dialect, rendered as render would, their jobs kept. */
static int render_group(struct cli *c, const char *const *paths, size_t n, struct diag *d, void *list)
{
    struct render_opts o = c->render;

    o.shards = c->shards;
    return joblist_render(list, paths, n, &o, d);
}

static int list_inputs(struct cli *c, const char *const *paths, size_t n, struct diag *d)
{
    static const enum joblist_format formats[] = {JOBLIST_TEXT, JOBLIST_JSON, JOBLIST_MARKDOWN, JOBLIST_TSV};
    struct joblist *list = joblist_create(d);
    int rc;

    if (!list)
        return DIAG_INPUT;
    /* --dialect: the files in it, as render reads them; else each file in its own */
    if (c->render.dialect)
        rc = render_group(c, paths, n, d, list);
    else
        rc = cmd_by_dialect(c, paths, n, d, render_group, list);
    /* as render writes no rendering, no list when the inputs fail the run */
    if (rc == 0 && joblist_write(list, formats[c->format], stdout) != 0)
        rc = DIAG_INPUT;
    joblist_destroy(list);
    return rc;
}

static int exec_jobs(struct cli *c, char **operands, int n, struct diag *d)
{
    return cmd_on_inputs(c, operands, n, d, list_inputs);
}

static const struct opt *const options[] = {&opt_format, CMD_RENDER_OPTIONS, &opt_config, CMD_RENDER_MESSAGE_OPTIONS,
                                            NULL};
static const char *const formats[] = {"text", "json", "markdown", "tsv", NULL};

const struct cmd_entry cmd_jobs_entry = {
    .name = "jobs",
    .synopsis = "jobs [options] [FILE...|DIR...|-]",
    .help = "Lists the jobs the inputs render into, one line each: its id (#N: its place in\n"
            "its fan-out), its name, where it runs, its fan-out (shard N/M, matrix N/M and\n"
            "the configuration's values) and where it is written; then the jobs per runner\n"
            "and their total. Each file is read in its own dialect (a repository's root:\n"
            "its pipelines and its workflows). Render's findings are reported as render\n"
            "reports them; when they fail the run (exit 1 or 2), nothing is listed.\n"
            "\n",
    .options = options,
    .formats = formats,
    .min_operands = 0,
    .max_operands = -1,
    .exec = exec_jobs,
};
