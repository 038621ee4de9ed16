/* fanout render: the inputs as explicit jobs. */
#include "fanout/cmd.h"
#include "options.h"

static int render_inputs(struct cli *c, const char *const *paths, size_t n, struct diag *d)
{
    c->render.format = c->format == 1 ? EMIT_JSON : EMIT_YAML;
    c->render.shards = c->shards;
    return render_files(paths, n, &c->render, d);
}

static int exec_render(struct cli *c, char **operands, int n, struct diag *d)
{
    int rc = cmd_read_change(c, d);

    return rc != 0 ? rc : cmd_on_inputs(c, operands, n, d, render_inputs);
}

static const struct opt *const options[] = {&opt_format, &opt_output, CMD_RENDER_OPTIONS, CMD_CHANGE_OPTIONS, &opt_config,
                                            CMD_RENDER_MESSAGE_OPTIONS, NULL};
static const char *const formats[] = {"yaml", "json", NULL};

const struct cmd_entry cmd_render_entry = {
    .name = "render",
    .synopsis = "render [options] [FILE...|DIR...|-]",
    .help = "Renders the inputs (Buildkite pipelines, vLLM test-area files or GitHub Actions\n"
            "workflows; each file in its own dialect, those of a dialect together) into\n"
            "explicit jobs, checked and in canonical form.\n"
            "\n",
    .options = options,
    .formats = formats,
    .min_operands = 0,
    .max_operands = -1,
    .exec = exec_render,
};
