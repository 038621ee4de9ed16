/* gate: `if_changed` as buildkite/agent 5c21980 applies it (clicommand/pipeline_upload.go:
 * ifChangedApplicator.apply and ifChangedPatterns; the step types of go-pipeline's
 * steps.go), `if:` decided by conditional.c and `branches:` by branches.c. */
#include "gate.h"

#include <stdio.h>
#include <string.h>

#include "fanout/change.h"
#include "fanout/glob.h"
#include "fanout/yscalar.h"

#include "branches.h"
#include "conditional.h"

/* What the agent sets `skip` to (pipeline_upload.go ifChangedSkippedMsg). */
static const char skipped_message[] = "if_changed matched no unexcluded changed files in this build";

/* What a reader calls a step: its key, else its label, else what it runs or triggers
 * (the first command), else its type. */
static const char *step_name(const struct ynode *step, enum bk_kind kind, size_t *len)
{
    static const char *const runs[] = {"command", "commands", "trigger", NULL};
    struct ynode *name = NULL;
    const char *field, *t;

    if (!ynode_get_any(step, bk_key_keys, &name) && (field = bk_label_field(step, kind)) != NULL)
        name = ynode_get(step, field);
    if (!name && ynode_get_any(step, runs, &name) && ynode_is_seq(name))
        name = ynode_len(name) ? ynode_item(name, 0) : NULL;
    if ((t = ynode_scalar(name, len)) != NULL)
        return t;
    t = bk_kind_name(kind);
    *len = strlen(t);
    return t;
}

int bk_gate_not_run(const struct dialect_ctx *ctx, const struct ynode *step, enum bk_kind kind, const char *why)
{
    size_t len;
    const char *t = step_name(step, kind, &len);

    return ctx->on_not_run && ctx->on_not_run(ctx->user, t, len, why, ynode_pos(step)) != 0 ? -1 : 0;
}

/* ---- if_changed ---- */

#define MAX_PATTERNS 256

struct patterns {
    struct glob *globs[MAX_PATTERNS];
    size_t n;
};

static void patterns_free(struct patterns *p)
{
    for (size_t i = 0; i < p->n; i++)
        glob_free(p->globs[i]);
    p->n = 0;
}

/* The agent's warning: it leaves the step as it is. */
static void cannot_apply(const struct dialect_ctx *ctx, struct ypos at, const char *what)
{
    diag_at(ctx->diag, DIAG_WARNING, DIAG_FINDING, ctx->files, at, RULE_IF_CHANGED,
            "%s: buildkite-agent does not skip the step (it runs)", what);
}

static int add_pattern(const struct dialect_ctx *ctx, struct patterns *p, const struct ynode *item, const char *where)
{
    struct glob_error err;
    size_t len;
    const char *text = ynode_scalar(item, &len);
    char what[256];

    if (p->n == MAX_PATTERNS) {
        snprintf(what, sizeof(what), "%s has more than %d patterns, which fanout does not match", where,
                 MAX_PATTERNS);
        cannot_apply(ctx, ynode_pos(item), what);
        return -1;
    }
    if (!(p->globs[p->n] = glob_compile(GLOB_BUILDKITE, text, len, &err))) {
        snprintf(what, sizeof(what), "%s: the pattern does not parse: %s", where, err.message);
        cannot_apply(ctx, ynode_text_pos(item, err.offset), what);
        return -1;
    }
    p->n++;
    return 0;
}

/* A scalar the agent's YAML reads as a string. */
static bool is_string(const struct ynode *v)
{
    size_t len;
    const char *t = ynode_scalar(v, &len);

    return t && ynode_is_scalar(v) && (ynode_is_string(v) || yscalar_type(t, len) == YS_STRING);
}

/* ifChangedPatterns: a string, a list of strings, or null (none). 0, or -1 after the
 * agent's warning. */
static int read_patterns(const struct dialect_ctx *ctx, const struct ynode *v, const char *where, struct patterns *p)
{
    char what[160];

    if (!v || ynode_is_null(v))
        return 0;
    if (is_string(v))
        return add_pattern(ctx, p, v, where);
    if (!ynode_is_seq(v)) {
        snprintf(what, sizeof(what), "%s is not a pattern or a list of them", where);
        cannot_apply(ctx, ynode_pos(v), what);
        return -1;
    }
    for (size_t i = 0; i < ynode_len(v); i++) {
        const struct ynode *item = ynode_item(v, i);

        if (!is_string(item)) {
            snprintf(what, sizeof(what), "%s: item %zu is not a string", where, i);
            cannot_apply(ctx, ynode_pos(item), what);
            return -1;
        }
        if (add_pattern(ctx, p, item, where) != 0)
            return -1;
    }
    return 0;
}

static bool any_matches(const struct patterns *p, const char *path)
{
    size_t len = strlen(path);

    for (size_t i = 0; i < p->n; i++) {
        if (glob_match(p->globs[i], path, len))
            return true;
    }
    return false;
}

/* apply's pathsLoop: some changed path is excluded by no `exclude` pattern and matched
 * by an `include` one. */
static bool some_path_included(const struct change *c, const struct patterns *include, const struct patterns *exclude)
{
    for (size_t i = 0; i < change_count(c); i++) {
        const char *path = change_file(c, i);

        if (!any_matches(exclude, path) && any_matches(include, path))
            return true;
    }
    return false;
}

/* Whether the agent skips the step for `v` (its if_changed), after its warnings. */
static bool if_changed_skips(const struct dialect_ctx *ctx, const struct ynode *v)
{
    struct patterns include = {.n = 0}, exclude = {.n = 0};
    bool skips = false;

    if (ynode_is_map(v)) {
        if (!ynode_has(v, "include"))
            cannot_apply(ctx, ynode_pos(v), "if_changed is a mapping without `include`");
        else if (read_patterns(ctx, ynode_get(v, "include"), "if_changed.include", &include) == 0 &&
                 read_patterns(ctx, ynode_get(v, "exclude"), "if_changed.exclude", &exclude) == 0)
            skips = !some_path_included(ctx->change, &include, &exclude);
    } else if (read_patterns(ctx, v, "if_changed", &include) == 0) {
        skips = !some_path_included(ctx->change, &include, &exclude);
    }
    patterns_free(&include);
    patterns_free(&exclude);
    return skips;
}

/* ---- if: ---- */

static const char *build_value(void *user, const char *key)
{
    return change_build(user, key);
}

/* The `if:` text for a message: on one line, shortened. */
static void condition_text(const char *t, size_t len, char *out, size_t size)
{
    size_t o = 0;
    bool space = false;

    for (size_t i = 0; i < len && o + 4 < size; i++) {
        if (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r') {
            space = o > 0;
            continue;
        }
        if (space)
            out[o++] = ' ';
        space = false;
        out[o++] = t[i];
    }
    if (o + 4 >= size)
        memcpy(out + o - 3, "...", 3);
    out[o] = '\0';
}

/* ---- branches: ---- */

/* The step's `branches` as one string of patterns into buf (a list's items joined with
 * spaces, as the server reads it as one): its length, or -1 when not decided (a value
 * that is not strings, the schema's error; or longer than buf). */
static long branches_text(const struct ynode *v, char *buf, size_t size)
{
    bool one = ynode_is_scalar(v); /* read as a one-item list */
    size_t o = 0, len;
    const char *t;

    if (!one && !ynode_is_seq(v))
        return -1;
    for (size_t i = 0; i < (one ? 1 : ynode_len(v)); i++) {
        if (!(t = ynode_scalar(one ? v : ynode_item(v, i), &len)) || o + len + 1 > size)
            return -1;
        memcpy(buf + o, t, len);
        o += len;
        buf[o++] = ' ';
    }
    buf[o ? o - 1 : 0] = '\0';
    return o ? (long)o - 1 : 0;
}

/* Whether the step's `branches:` leaves it out of a build of the branch --build gave,
 * saying so; for the step types that have the attribute in Buildkite's pipeline schema. */
static int branches_leave_out(const struct dialect_ctx *ctx, const struct ynode *step, enum bk_kind kind,
                              bool *left_out)
{
    const struct ynode *v = ynode_get(step, "branches");
    const char *branch = change_build(ctx->change, "branch");
    char patterns[4096], text[120], why[256];
    long len;

    *left_out = false;
    if (!v || !branch || kind == BK_GROUP || kind == BK_UNKNOWN || kind == BK_INVALID)
        return 0;
    if ((len = branches_text(v, patterns, sizeof(patterns))) < 0 || bk_branches_match(patterns, (size_t)len, branch))
        return 0;
    *left_out = true;
    condition_text(patterns, (size_t)len, text, sizeof(text));
    snprintf(why, sizeof(why), "branches: %s does not match branch %.60s", text, branch);
    return bk_gate_not_run(ctx, step, kind, why);
}

int bk_gate_step(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *step, enum bk_kind kind,
                 enum bk_gate *gate)
{
    const struct ynode *cond = ynode_get(step, "if"), *ic;
    size_t len;
    const char *t = ynode_scalar(cond, &len);
    bool left_out;

    *gate = BK_GATE_RUNS;
    if (!ctx->change)
        return 0;
    /* the server evaluates `if` at upload, after the agent: a false one makes no job */
    if (t && bkc_decide(t, len, build_value, (void *)ctx->change, NULL, 0) == BKC_FALSE) {
        char text[120], why[160];

        condition_text(t, len, text, sizeof(text));
        snprintf(why, sizeof(why), "if: %s is false", text);
        if (bk_gate_not_run(ctx, step, kind, why) != 0)
            return -1;
        /* diff compares the whole rendering and only marks the step (keep_not_run) */
        *gate = ctx->keep_not_run ? BK_GATE_RUNS : BK_GATE_LEFT_OUT;
        return 0;
    }
    /* Buildkite adds a step whose branches do not match to no build */
    if (branches_leave_out(ctx, step, kind, &left_out) != 0)
        return -1;
    if (left_out) {
        *gate = ctx->keep_not_run ? BK_GATE_RUNS : BK_GATE_LEFT_OUT;
        return 0;
    }
    /* the agent reads if_changed of the steps whose fields it keeps in a map (command,
     * trigger, group) and deletes it, applied or not */
    if (!change_known(ctx->change) || (kind != BK_COMMAND && kind != BK_TRIGGER && kind != BK_GROUP) ||
        !(ic = ynode_get(step, "if_changed")))
        return 0;
    if (ynode_is_null(ic) || !if_changed_skips(ctx, ic)) {
        if (!ctx->keep_not_run)
            ynode_remove(step, "if_changed");
        return 0;
    }
    if (bk_gate_not_run(ctx, step, kind,
                        kind == BK_GROUP ? "skipped: no changed file matches its if_changed (a skipped group)"
                                         : "skipped: no changed file matches its if_changed") != 0)
        return -1;
    if (ctx->keep_not_run)
        return 0;
    ynode_remove(step, "if_changed");
    if (ynode_set(doc, step, "skip", ynode_new_string(doc, skipped_message, sizeof(skipped_message) - 1, ynode_pos(ic))) != 0)
        return -1;
    *gate = BK_GATE_SKIPPED;
    return 0;
}
