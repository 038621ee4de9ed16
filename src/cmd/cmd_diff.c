/* fanout diff: what changed between two renderings, job by job. */
#include <malloc.h>
#include <string.h>

#include "fanout/cmd.h"
#include "fanout/gitrev.h"
#include "fanout/pipediff.h"
#include "fanout/shardflags.h"
#include "options.h"

/* The change HEAD is rendered for (--changed, --changed-from; with --base by default
 * the files the work tree changes since it left REF): HEAD's options get it (its jobs
 * kept, those the change leaves out marked), BASE is rendered as it is. 0, or the exit
 * code after the message. */
static int read_change(struct cli *c, struct render_opts *head, struct render_opts *base, struct diag *d)
{
    int rc;

    if (c->base_ref && !c->changed && !c->changed_from)
        c->changed_from = c->base_ref;
    if ((rc = cmd_read_change(c, d)) != 0)
        return rc;
    head->change = c->render.change;
    base->change = NULL;
    return 0;
}

/* diff --base REF [PATH]: BASE is PATH as the revision REF has it, HEAD the work tree's
 * (default: the current directory, which stands for its CI directories). */
static int diff_revision(struct cli *c, const char *path, struct render_opts *head, struct diag *d)
{
    struct render_opts base = c->render;
    struct gitrev *g;
    int rc;

    if (!strcmp(path, "-"))
        return cmd_usage_error("with --base, HEAD is a path of the work tree, not '-'", NULL);
    if (!(g = gitrev_open(c->base_ref, path, (const char *const *)c->not_inputs, c->n_not_inputs, d)))
        return DIAG_INPUT;
    base.names_root = gitrev_root(g);
    base.names_as = gitrev_name(g);
    if ((rc = read_change(c, head, &base, d)) == 0)
        rc = pipediff_run(gitrev_operand(g), path, &base, head, &c->diff, stdout, d);
    gitrev_close(g);
    return rc;
}

static int diff_operands(struct cli *c, char **operands, int n, struct render_opts *head, struct diag *d)
{
    struct render_opts base;
    int rc;

    if (c->base_ref)
        return diff_revision(c, n ? operands[0] : ".", head, d);
    base = c->render;
    if ((rc = read_change(c, head, &base, d)) != 0)
        return rc;
    return pipediff_run(operands[0], operands[1], &base, head, &c->diff, stdout, d);
}

static int exec_diff(struct cli *c, char **operands, int n, struct diag *d)
{
    struct render_opts head = c->render;
    int rc;

    if (c->base_ref && n > 1)
        return cmd_usage_error("with --base REF, diff takes one PATH (default: .)", NULL);
    if (!c->base_ref && n != 2)
        return cmd_usage_error("diff needs two operands: BASE HEAD (or --base REF)", NULL);
    /* the second read of stdin would find it empty: HEAD would read as no steps at all */
    if (n == 2 && !strcmp(operands[0], "-") && !strcmp(operands[1], "-"))
        return cmd_usage_error("BASE and HEAD cannot both be '-': diff reads standard input once", NULL);
    if (n == 2 && c->changed && !strcmp(c->changed, "-") && (!strcmp(operands[0], "-") || !strcmp(operands[1], "-")))
        return cmd_usage_error("--changed - and an operand '-' both read standard input: give one a file", NULL);
    head.side = 1; /* a dialect option given twice: BASE's, then HEAD's */
    /* every rule on both sides, so that a finding BASE has too is known not to be new;
     * HEAD's shard flags its own, for the sides render at once (pipediff.h) */
    c->render.shards = c->shards;
    head.shards = NULL;
    if (c->shards && !(head.shards = shardflags_clone(c->shards))) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_INTERNAL, "out of memory");
        return DIAG_INPUT;
    }
    c->diff.format = (enum pd_format)c->format;
    /* A diff allocates and frees buffers of 128 KiB to 1 MiB many times (each side's
     * sorts, qsort's scratch): glibc maps each anew and unmaps it when freed, and a page's
     * first touch is dear (10-20 us on a virtual machine); from the heap, and kept, they
     * are reused */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    rc = diff_operands(c, operands, n, &head, d);
    shardflags_destroy(head.shards);
    return rc;
}

static int add_ignored_field(const struct opt_hit *hit, const char *arg)
{
    struct cli *c = hit->dest;

    return cmd_append_word(&c->ignore_fields, &c->n_ignore_fields, arg);
}

/* Given twice: BASE's, then HEAD's (as a dialect's per-side option). */
static int add_durations(const struct opt_hit *hit, const char *arg)
{
    struct cli *c = hit->dest;

    if (c->diff.n_durations == 2)
        return cmd_usage_error("--durations is given once (both sides) or twice (BASE's, then HEAD's):", arg);
    c->diff.durations[c->diff.n_durations++] = arg;
    return 0;
}

static const struct opt durations = {
    .kind = OPT_CALL, .name = "durations", .has_arg = true, .path = OPTION_PATH, .call = add_durations,
    .help = "      --durations FILE       job id -> minutes (TSV, JSON or JUnit XML), for the runners'\n"
            "                             minutes and longest job; twice: BASE's, then HEAD's\n",
};
static const struct opt ignore_field = {
    .kind = OPT_CALL, .name = "ignore-field", .has_arg = true, .call = add_ignored_field,
    .help = "      --ignore-field NAME    leave field NAME out of the comparison (repeatable)\n",
};
static const struct opt exit_zero = {
    .kind = OPT_SET, .name = "exit-zero", .offset = CLI_AT(diff.exit_zero),
    .value = true,
    .help = "      --exit-zero            exit 0 when the renderings differ (errors still exit 2)\n",
};

static int set_findings(const struct opt_hit *hit, const char *arg)
{
    static const char *const words[] = {"new", "all", "none", NULL}; /* enum pd_findings' order */
    struct cli *c = hit->dest;

    for (int i = 0; words[i]; i++) {
        if (!strcmp(arg, words[i])) {
            c->diff.findings = (enum pd_findings)i;
            return 0;
        }
    }
    return cmd_unknown_choice("--findings", words, arg);
}

static const struct opt findings = {
    .kind = OPT_CALL, .name = "findings", .has_arg = true, .call = set_findings,
    .help = "      --findings new|all|none\n"
            "                             HEAD's rule findings reported: those BASE has not\n"
            "                             (default), all, or none\n",
};

static const struct opt base_ref = {
    .kind = OPT_STRING, .name = "base", .has_arg = true, .offset = CLI_AT(base_ref),
    .help = "      --base REF             BASE is the git revision REF (A...B: their merge base),\n"
            "                             HEAD the work tree; operand: one PATH (default .)\n",
};

static const struct opt *const options[] = {&opt_format,  CMD_RENDER_OPTIONS, CMD_CHANGE_OPTIONS, &opt_config,
                                            CMD_RENDER_MESSAGE_OPTIONS, &ignore_field, &durations, &exit_zero,
                                            &findings,    &base_ref,          NULL};
/* In enum pd_format's order. */
static const char *const formats[] = {"text", "json", "github", "markdown", "sarif", NULL};

const struct cmd_entry cmd_diff_entry = {
    .name = "diff",
    .synopsis = "diff [options] [--format text|json|github|markdown|sarif] BASE HEAD | --base REF [PATH]",
    .help = "Renders BASE and HEAD (sources or renderings: files, directories or -, not\n"
            "both) and reports the steps added, removed, renamed, changed, moved and\n"
            "re-sharded, job by job, each at its file:line with its label. With --base,\n"
            "BASE is read from git (no second checkout): REF's files under PATH, named\n"
            "REF:PATH in the report. With --changed, --changed-from or --base, HEAD is\n"
            "rendered for the change, and a step the change edits that HEAD's CI will not\n"
            "run for it gets a line saying why (\"changed, but will not run for this change\").\n"
            "\n",
    .options = options,
    .formats = formats,
    .min_operands = 0, /* two, or one PATH with --base (exec_diff says) */
    .max_operands = 2,
    .sides = 2,
    .operands = "two operands: BASE HEAD",
    .exec = exec_diff,
};
