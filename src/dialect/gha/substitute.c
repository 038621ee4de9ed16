/* substitute: a job's contexts (the run's known ones, `matrix`, `strategy`) and what
 * they fold: every `${{ }}` string of the fields where GitHub makes `matrix` and
 * `strategy` available substituted (its value, or the text with what stays unknown left
 * as expressions), and each step's `if:` folded (a step that never runs removed). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/source.h"
#include "fanout/text.h"

#include "gha_internal.h"

/* Where a message about a scalar's text goes: the line and column of its offset in the
 * scalar, followed through the input's bytes (block scalars, folded lines, quotes and
 * escapes); at the scalar when those cannot be read again or no longer hold it. */
void gha_report_in_text(struct job *j, enum diag_severity sev, const struct ynode *at, size_t offset,
                        enum rule_id rule, const char *fmt, ...)
{
    struct ypos p = ynode_text_pos(at, offset);
    size_t len;
    char *raw = NULL;
    va_list ap;

    if (!at->verbatim && ynode_pos(at).line && at->style != YNODE_MADE &&
        (raw = source_lines(j->ctx->sources[p.file], ynode_raw_line(at), SOURCE_MAX_TOKEN + 4096, &len)))
        p = ynode_text_pos_raw(at, offset, raw, len);
    free(raw);
    va_start(ap, fmt);
    gha_vreport(j, sev, p, rule, fmt, ap);
    va_end(ap);
}

void gha_expr_error_at(struct job *j, const struct ynode *at, const struct expr_error *e)
{
    gha_report_in_text(j, DIAG_ERROR, at, e->offset, RULE_EXPRESSION, "%s", e->message);
}

bool gha_has_expression(const struct ynode *n)
{
    size_t len;
    const char *t = ynode_scalar(n, &len);

    return t && !(n->proven & YNODE_NO_EXPR) && expr_template_open(t, len) != SIZE_MAX;
}

struct ynode *gha_string_node(struct job *j, const char *s, size_t len, struct ypos pos)
{
    size_t n;
    char *text;
    struct ynode *out;

    /* what expr_template_literal leaves as it is, without its copy */
    if (expr_template_open(s, len) == SIZE_MAX && !memchr(s, '\0', len))
        return ynode_new_string(j->doc, s, len, pos);
    text = expr_template_literal(s, len, &n);
    out = text ? ynode_new_string(j->doc, text, n, pos) : NULL;

    free(text);
    return out;
}

/* A number as plain YAML that GitHub's reader (YamlObjectReader.MatchFloat, .NET's
 * correctly rounded Double.TryParse) reads back as the same double: the shortest digits
 * that round-trip, NaN and the infinities in YAML's own spellings (.nan, .inf,
 * -.inf; plain NaN and Infinity are strings there). */
static struct ynode *number_node(struct job *j, double d, struct ypos pos)
{
    char buf[EXPR_NUMBUF];

    if (isnan(d))
        return ynode_new_plain(j->doc, ".nan", pos);
    if (isinf(d))
        return ynode_new_plain(j->doc, d < 0 ? "-.inf" : ".inf", pos);
    expr_js_number(d, buf);
    return ynode_new_plain(j->doc, buf, pos);
}

/* A value as a node of the rendering: strings stay strings whatever they look like
 * (gha_string_node). In a matrix row each value reads back as itself: null stays null
 * (toJSON(matrix) shows it), a number as number_node. With `in_field` null is the empty
 * string and a number prints as GitHub prints it (what it makes of them in a field). */
struct ynode *gha_node_from_value(struct job *j, const struct expr_value *v, bool in_field, struct ypos pos)
{
    struct ynode *n = NULL;
    size_t len;
    const char *s;
    char *text;

    switch (expr_kind_of(v)) {
    case EXPR_NULL:
        return in_field ? ynode_new_string(j->doc, "", 0, pos) : ynode_new_plain(j->doc, "null", pos);
    case EXPR_BOOL:
        return ynode_new_plain(j->doc, expr_bool_value(v) ? "true" : "false", pos);
    case EXPR_NUMBER:
        /* -0 stays -0, as GitHub's YAML and JSON readers keep it (the job's name shows
         * it so; JavaScript's text of it is 0) */
        if (expr_number_value(v) == 0 && signbit(expr_number_value(v)))
            return ynode_new_plain(j->doc, "-0", pos);
        if (!in_field)
            return number_node(j, expr_number_value(v), pos);
        if (!(text = expr_to_string(v)))
            return NULL;
        n = ynode_new_plain(j->doc, text, pos);
        free(text);
        return n;
    case EXPR_STRING:
        s = expr_string_value(v, &len);
        return gha_string_node(j, s, len, pos);
    case EXPR_ARRAY:
        if (!(n = ynode_new_seq(j->doc, pos)))
            return NULL;
        for (size_t i = 0; i < expr_len(v); i++) {
            struct ynode *item = gha_node_from_value(j, expr_item(v, i), in_field, pos);

            if (!item || ynode_append(j->doc, n, item) != 0)
                return NULL;
        }
        return n;
    case EXPR_OBJECT:
        if (!(n = ynode_new_map(j->doc, pos)))
            return NULL;
        for (size_t i = 0; i < expr_len(v); i++) {
            struct ynode *val = gha_node_from_value(j, expr_member(v, i), in_field, pos);
            struct ynode *key;

            s = expr_key(v, i, &len);
            key = ynode_new_string(j->doc, s, len, pos);
            if (!key || !val || ynode_append_pair(j->doc, n, key, val) != 0)
                return NULL;
        }
        return n;
    }
    return NULL;
}

struct gha_shared_slot {
    const struct ynode *from;
    struct ynode *to; /* NULL: it names matrix or strategy, evaluated in each */
};

void gha_shared_clear(struct gha_shared *s)
{
    free(s->slots);
    memset(s, 0, sizeof(*s));
}

static size_t slot_of(const struct ynode *n, size_t cap)
{
    return (size_t)(((uintptr_t)n >> 3) * 0x9E3779B97F4A7C15u >> 32) & (cap - 1);
}

/* The slot of scalar n (from NULL: not there yet), or NULL when out of memory. */
static struct gha_shared_slot *shared_slot(struct gha_shared *s, const struct ynode *n)
{
    size_t at;

    if (2 * (s->n + 1) > s->cap) { /* at most half full */
        size_t cap = s->cap ? 2 * s->cap : 64;
        struct gha_shared_slot *slots = calloc(cap, sizeof(*slots));

        if (!slots)
            return NULL;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slots[i].from)
                continue;
            for (at = slot_of(s->slots[i].from, cap); slots[at].from; at = (at + 1) & (cap - 1))
                ;
            slots[at] = s->slots[i];
        }
        free(s->slots);
        s->slots = slots;
        s->cap = cap;
    }
    for (at = slot_of(n, s->cap); s->slots[at].from && s->slots[at].from != n; at = (at + 1) & (s->cap - 1))
        ;
    return &s->slots[at];
}

/* Whether text holds `word` (lower case) at `at`, in any case. */
static bool word_at(const char *text, size_t len, size_t at, const char *word)
{
    for (; *word; word++, at++) {
        if (at >= len || (text[at] | 0x20) != *word)
            return false;
    }
    return true;
}

/* Whether an expression of the text may read `matrix` or `strategy`: a context is read
 * by its name only, so an expression without either name outside its strings cannot.
 * Expressions end as expr_template's split ends them (expr_template_close; an unclosed
 * one runs to the end). */
static bool may_vary(const char *text, size_t len)
{
    for (size_t at = 0, open; at < len && (open = expr_template_open(text + at, len - at)) != SIZE_MAX;) {
        size_t close = expr_template_close(text, len, at + open), end = close ? close : len;
        bool quoted = false;

        for (size_t i = at + open + 3; i < end; i++) {
            if (text[i] == '\'')
                quoted = !quoted;
            else if (!quoted && (word_at(text, len, i, "matrix") || word_at(text, len, i, "strategy")))
                return true;
        }
        at = end + 1;
    }
    return false;
}

/* A `${{ }}` string evaluated: its value as a node, or the text with what stays unknown
 * left as expressions. NULL after an error (reported). */
static struct ynode *substitute_each(struct job *j, struct ynode *n)
{
    struct expr_result res = {0};
    struct expr_error err;
    struct ynode *out;
    size_t len;
    const char *text = ynode_scalar(n, &len);

    if (expr_template_eval(text, len, j->contexts, &res, &err) != 0) {
        gha_expr_error_at(j, n, &err);
        return NULL;
    }
    if (res.value)
        out = gha_node_from_value(j, res.value, true, ynode_pos(n));
    else if (strlen(res.residual) == len && !memcmp(res.residual, text, len))
        out = ynode_new_string_of(j->doc, n); /* nothing known in it: the same text */
    else
        out = ynode_new_string(j->doc, res.residual, strlen(res.residual), ynode_pos(n));
    expr_result_clear(&res);
    if (!out)
        gha_out_of_memory(j, n);
    return out;
}

/* substitute_each, or (j->shared) the node the first configuration got, when the text
 * names neither of what changes between configurations. */
static struct ynode *substitute_scalar(struct job *j, struct ynode *n)
{
    struct ynode *out;
    size_t len;
    const char *text = ynode_scalar(n, &len);
    struct gha_shared_slot *kept = j->shared ? shared_slot(j->shared, n) : NULL;

    if (kept && kept->from)
        return kept->to ? kept->to : substitute_each(j, n);
    out = substitute_each(j, n);
    if (kept && out) {
        kept->from = n;
        kept->to = may_vary(text, len) ? NULL : out;
        j->shared->n++;
    }
    return out;
}

/* Child `i` of `n` (`old`) replaced by its substitution `new`: a container keeps its
 * proven mark (ynode.h) when nothing changed, or only a scalar's type and not its text,
 * or when `new` is `old`'s own copy (gha_own_copy: what changed is marked below it). */
static void put_child(struct ynode *n, size_t i, const struct ynode *old, struct ynode *new)
{
    if (new == old)
        return;
    if (!ynode_is_scalar(old) ? !ynode_is_scalar(new)
                              : ynode_is_scalar(new) && new->u.scalar.text == old->u.scalar.text)
        ynode_replace_equal(n, i, new);
    else if (ynode_is_map(n))
        ynode_set_value(n, i, new);
    else
        ynode_set_item(n, i, new);
}

/* Copy on write: a matrix job's configurations share what substitution leaves as it is
 * (most of a job: its copy for every configuration was 65M of the 1 MB matrix
 * workflow's 1,148M instructions), so a container is copied (shallow, holding what `n`
 * holds: its proven mark) before its first child changes. */
struct ynode *gha_own_copy(struct job *j, const struct ynode *n)
{
    struct ynode *c = ynode_copy_shallow(j->doc, n);

    if (!c)
        gha_out_of_memory(j, n);
    else
        c->proven = n->proven & YNODE_PROVEN;
    return c;
}

/* Substitutes every `${{ }}` string under `n`; returns the node to put in its place
 * (`n` itself when nothing changed: `n` is not changed). */
static struct ynode *substitute(struct job *j, struct ynode *n)
{
    struct ynode *out = n;

    if (!n || j->failed)
        return n;
    if (ynode_is_scalar(n))
        return gha_has_expression(n) ? substitute_scalar(j, n) : n;
    for (size_t i = 0; i < ynode_len(n); i++) {
        struct ynode *old = ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i);
        struct ynode *new = substitute(j, old);

        if (!new || (new != old && out == n && !(out = gha_own_copy(j, n))))
            return NULL;
        put_child(out, i, old, new);
    }
    return out;
}

/* Substitutes the fields of `map` named in `fields` (NULL-terminated): into `map` itself
 * when `own`, else into its own copy when a field changes. Returns the map to put in
 * its place, NULL after an error (reported). */
static struct ynode *substitute_fields(struct job *j, struct ynode *map, const char *const *fields, bool own)
{
    struct ynode *out = map;

    for (size_t i = 0; ynode_is_map(map) && i < ynode_len(map) && !j->failed; i++) {
        size_t len = 0;
        const char *key = ynode_scalar(ynode_key(map, i), &len);

        /* the first letters tell most names apart (a matrix job's every configuration's
         * every step is looked through) */
        for (const char *const *f = fields; key && *f; f++) {
            if (**f == *key && text_is(*f, key, len)) {
                struct ynode *old = ynode_value(map, i), *new = substitute(j, old);

                if (!new || (new != old && !own && out == map && !(out = gha_own_copy(j, map))))
                    return NULL;
                put_child(out, i, old, new);
                break;
            }
        }
    }
    return j->failed ? NULL : out;
}

/* The job's `name` evaluated as WorkflowTemplateEvaluator.EvaluateJobName does: a string
 * made by GitHub's C# runtime (numbers in G15: 1E-07, not @actions/expressions' 1e-7);
 * an array or object fails the job there (TemplateEvaluator: "A mapping was not
 * expected"), so it is an error here. */
static void substitute_name(struct job *j, struct ynode *job)
{
    long at = ynode_find(job, "name", 4);
    struct ynode *n = at >= 0 ? ynode_value(job, (size_t)at) : NULL, *out;
    struct expr_result res = {0};
    struct expr_error err;
    size_t len;
    const char *text = ynode_scalar(n, &len);

    j->name_unknown = false;
    if (!text || !gha_has_expression(n))
        return;
    if (expr_template_string(text, len, j->contexts, &res, &err) != 0) {
        gha_expr_error_at(j, n, &err);
        return;
    }
    if (res.value && expr_kind_of(res.value) != EXPR_STRING) {
        gha_error_at(j, n, RULE_EXPRESSION, "the job's name is %s, where GitHub wants a string "
                     "(it fails the job: A %s was not expected)",
                     expr_kind_of(res.value) == EXPR_ARRAY ? "a list" : "a mapping",
                     expr_kind_of(res.value) == EXPR_ARRAY ? "sequence" : "mapping");
        expr_result_clear(&res);
        return;
    }
    j->name_unknown = !res.value;
    text = res.value ? expr_string_value(res.value, &len) : res.residual;
    out = res.value ? gha_string_node(j, text, len, ynode_pos(n))
                    : ynode_new_string(j->doc, text, strlen(text), ynode_pos(n));
    expr_result_clear(&res);
    if (!out)
        gha_out_of_memory(j, n);
    else
        ynode_set_value(job, (size_t)at, out);
}

/* Where GitHub makes `matrix` and `strategy` available (docs: contexts#context-availability;
 * `name` too: substitute_name). */
static const char *const job_fields[] = {"runs-on", "env", "container", "services",
                                         "timeout-minutes", "continue-on-error", "environment",
                                         "with", "secrets", "concurrency", NULL};
static const char *const step_fields[] = {"name", "run", "with", "env", "timeout-minutes",
                                          "continue-on-error", "working-directory", "shell", NULL};

static const char *const strategy_fields[] = {"fail-fast", "max-parallel", NULL};

int gha_fold_if(struct job *j, const struct ynode *cond, char **residual)
{
    struct expr_result res = {0};
    struct expr_error err;
    size_t len;
    const char *text = ynode_scalar(cond, &len);
    int rc;

    *residual = NULL;
    if (expr_condition_eval(text, len, j->contexts, &res, &err) != 0) {
        gha_expr_error_at(j, cond, &err);
        return -1;
    }
    if (res.value) {
        rc = expr_truthy(res.value) ? 1 : 0;
    } else {
        *residual = res.residual;
        res.residual = NULL;
        rc = 2;
    }
    expr_result_clear(&res);
    return rc;
}

/* A step with its `if:` folded and its fields substituted: `step` itself when nothing
 * changed, else its own copy; *runs false when it never runs (remove it). NULL after
 * an error. */
static struct ynode *substitute_step(struct job *j, struct ynode *step, bool *runs)
{
    long at = ynode_find(step, "if", 2);
    struct ynode *cond = at >= 0 ? ynode_value(step, (size_t)at) : NULL, *out = step, *n;
    char *residual;
    int rc;

    *runs = true;
    if (ynode_scalar(cond, NULL) && (rc = gha_fold_if(j, cond, &residual)) >= 0) {
        /* Known: false never runs; true is what the implicit success() says anyway. */
        if (rc == 0) {
            *runs = false;
            return step;
        }
        /* Nothing known in it: the step keeps its `if:`, and its proven mark (ynode.h),
         * so that the rendering's check does not read it again for every configuration. */
        if (rc == 2 && ynode_scalar_is(cond, residual)) {
            free(residual);
            return substitute_fields(j, step, step_fields, false);
        }
        if (!(out = gha_own_copy(j, step))) {
            free(residual);
            return NULL;
        }
        if (rc == 1)
            ynode_remove_at(out, (size_t)at);
        else if ((n = ynode_new_string(j->doc, residual, strlen(residual), ynode_pos(cond))))
            ynode_set_value(out, (size_t)at, n);
        else
            gha_out_of_memory(j, cond);
        free(residual);
    }
    return substitute_fields(j, out, step_fields, out != step);
}

/* The job's steps, into its own list when one changes (the job itself is the
 * configuration's own). */
static void substitute_steps(struct job *j, struct ynode *job)
{
    long at = ynode_find(job, "steps", 5);
    struct ynode *steps = at >= 0 ? ynode_value(job, (size_t)at) : NULL, *out = steps;
    size_t k = 0; /* the step's index in `out` */

    for (size_t i = 0; ynode_is_seq(steps) && i < ynode_len(steps) && !j->failed; i++) {
        struct ynode *step = ynode_item(steps, i), *done = step;
        bool runs = true;

        if (ynode_is_map(step) && !(done = substitute_step(j, step, &runs)))
            return;
        if ((done != step || !runs) && out == steps && !(out = gha_own_copy(j, steps)))
            return;
        if (!runs) {
            ynode_remove_at(out, k);
            continue;
        }
        put_child(out, k++, step, done);
    }
    if (out != steps)
        put_child(job, (size_t)at, steps, out);
}

/* strategy.max-parallel as GitHub takes it: (Int32) of the written number (saturating, as
 * .NET converts a double; NaN is 0), the number of jobs when that is 0 or less
 * (WorkflowTemplateConverter.ConvertToStrategy), 1 for the job of a strategy with no
 * configuration (WorkflowTemplateEvaluator.EvaluateStrategy's default one, `total` 0). A
 * value that is not a number (what stays unknown) is kept. Takes `written`. */
static struct expr_value *max_parallel_value(struct expr_value *written, size_t total)
{
    double d;

    if (total && expr_kind_of(written) != EXPR_NUMBER && expr_kind_of(written) != EXPR_NULL)
        return written;
    d = expr_kind_of(written) == EXPR_NUMBER ? expr_number_value(written) : 0;
    expr_unref(written);
    d = isnan(d) ? 0 : d >= 2147483647.0 ? 2147483647.0 : d <= -2147483648.0 ? -2147483648.0 : trunc(d);
    return expr_number(!total ? 1 : d > 0 ? d : (double)total);
}

/* The `strategy` context of job `index` of `total` (docs: contexts#strategy-context);
 * `total` 0: the one job of a strategy with no configuration. */
struct expr_value *gha_strategy_value(const struct ynode *strategy, size_t index, size_t total)
{
    struct expr_value *s = expr_object();
    struct expr_value *fail_fast = expr_from_ynode(ynode_get(strategy, "fail-fast"));
    struct expr_value *max_parallel = expr_from_ynode(ynode_get(strategy, "max-parallel"));

    if (s && fail_fast && expr_kind_of(fail_fast) == EXPR_NULL) {
        expr_unref(fail_fast);
        fail_fast = expr_bool(true);
    }
    if (max_parallel)
        max_parallel = max_parallel_value(max_parallel, total);
    if (!s || !fail_fast || !max_parallel ||
        expr_object_set(s, "fail-fast", 9, fail_fast) != 0 ||
        expr_object_set(s, "job-index", 9, expr_number((double)index)) != 0 ||
        expr_object_set(s, "job-total", 9, expr_number((double)(total ? total : 1))) != 0 ||
        expr_object_set(s, "max-parallel", 12, max_parallel) != 0) {
        if (!s) {
            expr_unref(fail_fast);
            expr_unref(max_parallel);
        }
        expr_unref(s);
        return NULL;
    }
    return s;
}

/* The job's contexts: the run's known ones, then `matrix` and `strategy` (taken). */
static int set_contexts(struct job *j, struct expr_value *matrix, struct expr_value *strategy)
{
    const struct expr_value *known = j->known;
    int rc = 0;

    expr_contexts_destroy(j->contexts);
    if (!(j->contexts = expr_contexts_create()) || !matrix || !strategy) {
        expr_unref(matrix);
        expr_unref(strategy);
        return -1;
    }
    for (size_t i = 0; known && i < expr_len(known) && rc == 0; i++) {
        char name[64];
        size_t len;
        const char *key = expr_key(known, i, &len);

        snprintf(name, sizeof(name), "%.*s", (int)len, key);
        rc = expr_contexts_set(j->contexts, name, expr_ref(expr_member(known, i)));
    }
    rc |= expr_contexts_set(j->contexts, "matrix", matrix);
    rc |= expr_contexts_set(j->contexts, "strategy", strategy);
    return rc ? -1 : 0;
}

/* The job's fields and steps with `matrix` and `strategy` (both taken) known. */
int gha_substitute_job(struct job *j, struct ynode *job, struct expr_value *matrix,
                       struct expr_value *strategy)
{
    /* The job's contexts are there (gha_job_contexts, with these known ones): only matrix
     * and strategy change between its configurations (copying the run's for each was
     * 15M of the 1 MB matrix workflow's instructions). */
    int rc = j->contexts ? expr_contexts_set(j->contexts, "matrix", matrix) |
                               expr_contexts_set(j->contexts, "strategy", strategy)
                         : set_contexts(j, matrix, strategy);

    if (rc != 0) {
        gha_out_of_memory(j, job);
        return -1;
    }
    substitute_name(j, job);
    substitute_fields(j, job, job_fields, true);
    substitute_steps(j, job);
    return j->failed ? -1 : 0;
}

int gha_job_contexts(struct job *j, const struct ynode *job)
{
    if (set_contexts(j, expr_null(), expr_null()) != 0) {
        gha_out_of_memory(j, job);
        return -1;
    }
    return 0;
}

/* fail-fast and max-parallel may be expressions of the run's contexts (not matrix). */
int gha_substitute_strategy(struct job *j, struct ynode *strategy)
{
    substitute_fields(j, strategy, strategy_fields, true);
    return j->failed ? -1 : 0;
}

/* A `${{ }}` text folded with the job's contexts: 1 with *value set, 0 with *unknown
 * set (what it depends on, malloc'd) when it stays unknown, -1 after an error. */
int gha_fold(struct job *j, const struct ynode *n, struct expr_value **value, char **unknown)
{
    struct expr_result res = {0};
    struct expr_error err;
    size_t len;
    const char *text = ynode_scalar(n, &len);

    *value = NULL;
    if (expr_template_eval(text, len, j->contexts, &res, &err) != 0) {
        gha_expr_error_at(j, n, &err);
        return -1;
    }
    if (res.value)
        *value = expr_ref(res.value);
    else if (unknown) {
        *unknown = res.unknown;
        res.unknown = NULL;
    }
    expr_result_clear(&res);
    return *value ? 1 : 0;
}

/* The expression of an `if:` written as `${{ expr }}` or bare. */
const char *gha_condition_text(const struct ynode *cond, size_t *len)
{
    const char *t = ynode_scalar(cond, len), *end = t + *len;

    while (t < end && (*t == ' ' || *t == '\t'))
        t++;
    while (end > t && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
        end--;
    if (end - t >= 5 && memcmp(t, "${{", 3) == 0 && memcmp(end - 2, "}}", 2) == 0 &&
        expr_template_open(t + 3, (size_t)(end - t - 5)) == SIZE_MAX) {
        t += 3;
        end -= 2;
    }
    *len = (size_t)(end - t);
    return t;
}
