/* gha: GitHub Actions workflows as a dialect (docs/gha.md). Each workflow file is one
 * document whose `jobs` mapping is streamed one job at a time; a job with a matrix
 * becomes one explicit job per configuration (`<job>-<index>`), with `matrix` and
 * `strategy` substituted in the fields where GitHub makes them available and step `if:`
 * conditions folded; `needs` naming an expanded job names all of its jobs. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fanout/dialect.h"
#include "fanout/expr.h"
#include "fanout/source.h"
#include "fanout/ynode.h"

#include "matrix.h"

#define GHA_NAME_MAX 100 /* JobNameBuilder cuts longer names to 97 chars and "..." */
#define GHA_CALL_DEPTH 10 /* GitHub: up to ten levels of reusable workflows */
#define GHA_CALL_JOBS 1000 /* jobs one call may become, nested calls included */

static const struct stream_shape jobs_shape[] = {{"jobs", true}, {NULL, false}};

/* The dialect's own part of the options: the contexts they give (an object of context
 * name to value; NULL until one is given). */
struct gha_options {
    struct expr_value *contexts;
};

/* ---- one job ---- */

struct job {
    const struct dialect_ctx *ctx;
    const struct expr_value *known; /* the run's known contexts (the options'), or NULL */
    struct ynode_doc *doc;
    struct expr_contexts *contexts; /* the job's: the run's known contexts, matrix, strategy */
    int failed;                     /* an input error was reported */
    unsigned depth;                 /* of reusable-workflow calls */
    long calling[GHA_CALL_DEPTH];   /* the files of the calls this job is inside */
    unsigned *budget;               /* jobs the outermost call may still become */
};

/* ---- the run's state: the jobs each inlined call became, for `needs: [caller]` ---- */

struct call {
    unsigned file;
    char *caller;
    char **jobs;
    size_t n;
};

struct gha_state {
    struct call *calls;
    size_t n, cap;
};

static void *gha_state_create(const struct dialect_options *options)
{
    (void)options;
    return calloc(1, sizeof(struct gha_state));
}

static void call_clear(struct call *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->jobs[i]);
    free(c->jobs);
    free(c->caller);
}

static void gha_state_destroy(void *state)
{
    struct gha_state *st = state;

    for (size_t i = 0; i < st->n; i++)
        call_clear(&st->calls[i]);
    free(st->calls);
    free(st);
}

static struct call *call_find(struct gha_state *st, unsigned file, const char *caller, size_t len)
{
    for (size_t i = 0; st && i < st->n; i++) {
        if (st->calls[i].file == file && strlen(st->calls[i].caller) == len &&
            !memcmp(st->calls[i].caller, caller, len))
            return &st->calls[i];
    }
    return NULL;
}

/* Records the job ids of `out` as what `caller` became (pass 2 records it again: replaced). */
static int call_record(struct gha_state *st, unsigned file, const char *caller, size_t len,
                       const struct ynode *out)
{
    struct call *c = call_find(st, file, caller, len);

    if (!c) {
        if (st->n == st->cap) {
            struct call *grown = realloc(st->calls, (st->cap = st->cap ? st->cap * 2 : 8) * sizeof(*grown));

            if (!grown)
                return -1;
            st->calls = grown;
        }
        c = &st->calls[st->n++];
        memset(c, 0, sizeof(*c));
        c->file = file;
        if (!(c->caller = strndup(caller, len)))
            return -1;
    }
    for (size_t i = 0; i < c->n; i++)
        free(c->jobs[i]);
    free(c->jobs);
    c->n = 0;
    if (!(c->jobs = calloc(ynode_len(out) ? ynode_len(out) : 1, sizeof(*c->jobs))))
        return -1;
    for (size_t i = 0; i < ynode_len(out); i++) {
        if (!(c->jobs[i] = strdup(ynode_scalar(ynode_key(out, i), NULL))))
            return -1;
        c->n++;
    }
    return 0;
}

static void vreport_at(struct job *j, enum diag_severity sev, const struct ynode *at,
                       enum rule_id rule, const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static void vreport_at(struct job *j, enum diag_severity sev, const struct ynode *at,
                       enum rule_id rule, const char *fmt, va_list ap)
{
    struct ypos p = ynode_pos(at);

    diag_vat(j->ctx->diag, sev, sev == DIAG_ERROR ? DIAG_INPUT : DIAG_FINDING,
             j->ctx->files, p, rule, fmt, ap);
    if (sev == DIAG_ERROR)
        j->failed = 1;
}

static void error_at(struct job *j, const struct ynode *at, enum rule_id rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void error_at(struct job *j, const struct ynode *at, enum rule_id rule, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vreport_at(j, DIAG_ERROR, at, rule, fmt, ap);
    va_end(ap);
}

static void warn_at(struct job *j, const struct ynode *at, enum rule_id rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void warn_at(struct job *j, const struct ynode *at, enum rule_id rule, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vreport_at(j, DIAG_WARNING, at, rule, fmt, ap);
    va_end(ap);
}

static void out_of_memory(struct job *j, const struct ynode *at)
{
    error_at(j, at, RULE_INTERNAL, "out of memory");
}

/* Where an error in an expression is: the line and column of its offset in the scalar,
 * followed through the input's bytes (block scalars, folded lines, quotes and escapes);
 * at the scalar when those cannot be read again or no longer hold it. */
static void expr_error_at(struct job *j, const struct ynode *at, const struct expr_error *e)
{
    struct ypos p = ynode_text_pos(at, e->offset);
    size_t len;
    char *raw = NULL;

    if (!at->verbatim && ynode_pos(at).line && at->style != YNODE_MADE &&
        (raw = source_lines(j->ctx->sources[p.file], ynode_raw_line(at), SOURCE_MAX_TOKEN + 4096, &len)))
        p = ynode_text_pos_raw(at, e->offset, raw, len);
    free(raw);
    diag_at(j->ctx->diag, DIAG_ERROR, DIAG_INPUT, j->ctx->files, p,
            RULE_EXPRESSION, "%s", e->message);
    j->failed = 1;
}

static bool has_expression(const struct ynode *n)
{
    size_t len;
    const char *t = ynode_scalar(n, &len);

    return t && memmem(t, len, "${{", 3) != NULL;
}

/* A field's node whose value is the string `s`: a string that reads as `${{ }}` is
 * written as an expression of it (GitHub does not evaluate a value again, but would
 * evaluate the rendering's text, and so would rendering it again). */
static struct ynode *string_node(struct job *j, const char *s, size_t len, struct ypos pos)
{
    size_t n;
    char *text = expr_template_literal(s, len, &n);
    struct ynode *out = text ? ynode_new_string(j->doc, text, n, pos) : NULL;

    free(text);
    return out;
}

/* A value as a node of the rendering: strings stay strings whatever they look like
 * (string_node), numbers print as GitHub prints them, null is the empty string (what
 * GitHub makes of it in a field). */
static struct ynode *node_from_value(struct job *j, const struct expr_value *v, struct ypos pos)
{
    struct ynode *n = NULL;
    size_t len;
    const char *s;
    char *text;

    switch (expr_kind_of(v)) {
    case EXPR_NULL:
        return ynode_new_string(j->doc, "", 0, pos);
    case EXPR_BOOL:
        return ynode_new_plain(j->doc, expr_bool_value(v) ? "true" : "false", pos);
    case EXPR_NUMBER:
        /* -0 stays -0, as GitHub's YAML and JSON readers keep it (the job's name shows
         * it so; JavaScript's text of it is 0) */
        if (expr_number_value(v) == 0 && signbit(expr_number_value(v)))
            return ynode_new_plain(j->doc, "-0", pos);
        if (!(text = expr_to_string(v)))
            return NULL;
        n = ynode_new_plain(j->doc, text, pos);
        free(text);
        return n;
    case EXPR_STRING:
        s = expr_string_value(v, &len);
        return string_node(j, s, len, pos);
    case EXPR_ARRAY:
        if (!(n = ynode_new_seq(j->doc, pos)))
            return NULL;
        for (size_t i = 0; i < expr_len(v); i++) {
            struct ynode *item = node_from_value(j, expr_item(v, i), pos);

            if (!item || ynode_append(j->doc, n, item) != 0)
                return NULL;
        }
        return n;
    case EXPR_OBJECT:
        if (!(n = ynode_new_map(j->doc, pos)))
            return NULL;
        for (size_t i = 0; i < expr_len(v); i++) {
            struct ynode *val = node_from_value(j, expr_member(v, i), pos);
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

/* A `${{ }}` string evaluated: its value as a node, or the text with what stays unknown
 * left as expressions. NULL after an error (reported). */
static struct ynode *substitute_scalar(struct job *j, struct ynode *n)
{
    struct expr_result res = {0};
    struct expr_error err;
    struct ynode *out;
    size_t len;
    const char *text = ynode_scalar(n, &len);

    if (expr_template_eval(text, len, j->contexts, &res, &err) != 0) {
        expr_error_at(j, n, &err);
        return NULL;
    }
    if (res.value)
        out = node_from_value(j, res.value, ynode_pos(n));
    else
        out = ynode_new_string(j->doc, res.residual, strlen(res.residual), ynode_pos(n));
    expr_result_clear(&res);
    if (!out)
        out_of_memory(j, n);
    return out;
}

/* `needs` read as a list: `needs: x` is a list of one; a null has none. A mapping is one
 * entry that is not a name (reported where references are read). */
static size_t needs_len(const struct ynode *needs)
{
    return ynode_is_seq(needs) ? ynode_len(needs) : needs && !ynode_is_null(needs) ? 1 : 0;
}

static const struct ynode *needs_at(const struct ynode *needs, size_t i)
{
    return ynode_is_seq(needs) ? ynode_item(needs, i) : needs;
}

/* Substitutes every `${{ }}` string under `n`; returns the node to put in its place. */
static struct ynode *substitute(struct job *j, struct ynode *n)
{
    if (!n || j->failed)
        return n;
    if (ynode_is_scalar(n))
        return has_expression(n) ? substitute_scalar(j, n) : n;
    for (size_t i = 0; i < ynode_len(n); i++) {
        struct ynode *old = ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i);
        struct ynode *new = substitute(j, old);

        if (!new)
            return NULL;
        if (ynode_is_map(n))
            n->u.map.pairs[i].value = new;
        else
            ynode_set_item(n, i, new);
    }
    return n;
}

/* Substitutes the fields of `map` named in `fields` (NULL-terminated). */
static void substitute_fields(struct job *j, struct ynode *map, const char *const *fields)
{
    for (size_t i = 0; ynode_is_map(map) && i < ynode_len(map) && !j->failed; i++) {
        const char *key = ynode_scalar(ynode_key(map, i), NULL);

        for (const char *const *f = fields; key && *f; f++) {
            if (strcmp(*f, key) == 0) {
                struct ynode *new = substitute(j, ynode_value(map, i));

                if (new)
                    map->u.map.pairs[i].value = new;
                break;
            }
        }
    }
}

/* Where GitHub makes `matrix` and `strategy` available (docs: contexts#context-availability). */
static const char *const job_fields[] = {"name", "runs-on", "env", "container", "services",
                                         "timeout-minutes", "continue-on-error", "environment",
                                         "with", "secrets", "concurrency", NULL};
static const char *const step_fields[] = {"name", "run", "with", "env", "timeout-minutes",
                                          "continue-on-error", "working-directory", "shell", NULL};

static const char *const strategy_fields[] = {"fail-fast", "max-parallel", NULL};

/* Folds a step's `if:`. Returns false when the step never runs (remove it). */
static bool fold_step_if(struct job *j, struct ynode *step)
{
    long at = ynode_find(step, "if", 2);
    struct ynode *cond = at >= 0 ? ynode_value(step, (size_t)at) : NULL;
    struct expr_result res = {0};
    struct expr_error err;
    size_t len;
    const char *text = ynode_scalar(cond, &len);
    bool runs = true;

    if (!text)
        return true;
    if (expr_condition_eval(text, len, j->contexts, &res, &err) != 0) {
        expr_error_at(j, cond, &err);
        return true;
    }
    if (res.value) {
        /* Known: false never runs; true is what the implicit success() says anyway. */
        runs = expr_truthy(res.value);
        if (runs)
            ynode_remove_at(step, (size_t)at);
    } else {
        struct ynode *n = ynode_new_string(j->doc, res.residual, strlen(res.residual), ynode_pos(cond));

        if (n)
            step->u.map.pairs[at].value = n;
        else
            out_of_memory(j, cond);
    }
    expr_result_clear(&res);
    return runs;
}

static void substitute_steps(struct job *j, struct ynode *job)
{
    struct ynode *steps = ynode_get(job, "steps");

    for (size_t i = 0; ynode_is_seq(steps) && i < ynode_len(steps) && !j->failed;) {
        struct ynode *step = ynode_item(steps, i);

        if (!ynode_is_map(step)) {
            i++;
            continue;
        }
        if (!fold_step_if(j, step)) {
            ynode_remove_at(steps, i);
            continue;
        }
        substitute_fields(j, step, step_fields);
        i++;
    }
}

/* The `strategy` context of job `index` of `total` (docs: contexts#strategy-context). */
static struct expr_value *strategy_value(const struct ynode *strategy, size_t index, size_t total)
{
    struct expr_value *s = expr_object();
    struct expr_value *fail_fast = expr_from_ynode(ynode_get(strategy, "fail-fast"));
    struct expr_value *max_parallel = expr_from_ynode(ynode_get(strategy, "max-parallel"));

    if (s && fail_fast && expr_kind_of(fail_fast) == EXPR_NULL) {
        expr_unref(fail_fast);
        fail_fast = expr_bool(true);
    }
    if (s && max_parallel && expr_kind_of(max_parallel) == EXPR_NULL) {
        expr_unref(max_parallel);
        max_parallel = expr_number((double)total);
    }
    if (!s || !fail_fast || !max_parallel ||
        expr_object_set(s, "fail-fast", 9, fail_fast) != 0 ||
        expr_object_set(s, "job-index", 9, expr_number((double)index)) != 0 ||
        expr_object_set(s, "job-total", 9, expr_number((double)total)) != 0 ||
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

static bool is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The job's fields and steps with `matrix` and `strategy` (both taken) known. */
static int substitute_job(struct job *j, struct ynode *job, struct expr_value *matrix,
                          struct expr_value *strategy)
{
    if (set_contexts(j, matrix, strategy) != 0) {
        out_of_memory(j, job);
        return -1;
    }
    substitute_fields(j, job, job_fields);
    substitute_steps(j, job);
    return j->failed ? -1 : 0;
}

/* GitHub's rule for user-written job ids: ^[_a-zA-Z][a-zA-Z0-9_-]*$, under 100 chars. */
static bool valid_job_id(const char *id, size_t len)
{
    if (len == 0 || len >= GHA_NAME_MAX || !(id[0] == '_' || is_letter(id[0])))
        return false;
    for (size_t i = 1; i < len; i++) {
        char c = id[i];

        if (!(c == '_' || c == '-' || (c >= '0' && c <= '9') || is_letter(c)))
            return false;
    }
    return true;
}

/* The job's display name for a configuration (JobNameBuilder; a name with an expression
 * is evaluated instead, falling back to the generated one when empty). */
static int set_name(struct job *j, struct ynode *job, const struct ynode *written,
                    const struct ynode *id, const struct matrix_row *row)
{
    struct ynode *name = ynode_get(job, "name");
    const char *base = ynode_scalar(name, NULL);
    char text[GHA_NAME_MAX * 4];
    size_t o = 0, len;
    struct ynode *n;

    /* `written`: the name as the input has it (`name` is already substituted). */
    if (has_expression(written) && ynode_scalar(name, &len) && len > 0)
        return 0;
    if (!base || !*base)
        base = ynode_scalar(id, NULL);
    o = (size_t)snprintf(text, sizeof(text), "%s", base);
    for (size_t i = 0; i < row->n_shown && o < sizeof(text); i++)
        o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%s", i ? ", " : " (", row->shown[i]);
    if (row->n_shown && o < sizeof(text))
        o += (size_t)snprintf(text + o, sizeof(text) - o, ")");
    if (o >= sizeof(text))
        o = sizeof(text) - 1;
    if (o > GHA_NAME_MAX) {
        memcpy(text + GHA_NAME_MAX - 3, "...", 4);
        o = GHA_NAME_MAX;
    }
    if (!(n = string_node(j, text, o, ynode_pos(name ? name : id))) ||
        ynode_set(j->doc, job, "name", n) != 0) {
        out_of_memory(j, job);
        return -1;
    }
    return 0;
}

/* A `${{ }}` text folded with the job's contexts: 1 with *value set, 0 with *unknown
 * set (what it depends on, malloc'd) when it stays unknown, -1 after an error. */
static int fold(struct job *j, const struct ynode *n, struct expr_value **value, char **unknown)
{
    struct expr_result res = {0};
    struct expr_error err;
    size_t len;
    const char *text = ynode_scalar(n, &len);

    *value = NULL;
    if (expr_template_eval(text, len, j->contexts, &res, &err) != 0) {
        expr_error_at(j, n, &err);
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

/* `n` as a value with every `${{ }}` in it folded, at any depth (GitHub evaluates the
 * whole strategy: a vector, an item, an include entry's value): 1 with *value set, 0
 * with *unknown set (what it depends on) when one stays unknown, -1 after an error. */
static int fold_tree(struct job *j, const struct ynode *n, struct expr_value **value, char **unknown)
{
    struct expr_value *out;

    *value = NULL;
    if (ynode_is_scalar(n) && has_expression(n))
        return fold(j, n, value, unknown);
    if (!ynode_is_seq(n) && !ynode_is_map(n)) {
        if (!(*value = expr_from_ynode(n)))
            out_of_memory(j, n);
        return *value ? 1 : -1;
    }
    if (!(out = ynode_is_seq(n) ? expr_array() : expr_object())) {
        out_of_memory(j, n);
        return -1;
    }
    for (size_t i = 0; i < ynode_len(n); i++) {
        struct expr_value *v;
        size_t klen = 0;
        const char *k = ynode_is_map(n) ? ynode_scalar(ynode_key(n, i), &klen) : NULL;
        int rc = fold_tree(j, ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i), &v, unknown);

        if (rc <= 0) {
            expr_unref(out);
            return rc;
        }
        if (ynode_is_map(n) && !k) { /* a key that is no name: the schema's to report */
            expr_unref(v);
            continue;
        }
        if ((ynode_is_seq(n) ? expr_array_append(out, v) : expr_object_set(out, k, klen, v)) != 0) {
            expr_unref(out);
            out_of_memory(j, n);
            return -1;
        }
    }
    *value = out;
    return 1;
}

/* The matrix as a value, its expressions folded by the known contexts. NULL with
 * *unknown set (what it depends on) when one stays unknown; NULL after an error. */
static struct expr_value *matrix_value(struct job *j, const struct ynode *node, char **unknown)
{
    struct expr_value *m;

    *unknown = NULL;
    return fold_tree(j, node, &m, unknown) > 0 ? m : NULL;
}

/* The node a matrix error points at. */
static const struct ynode *matrix_error_node(const struct ynode *matrix, const struct matrix_error *e)
{
    const struct ynode *at = matrix;

    if (e->key && ynode_is_map(matrix)) {
        long k = ynode_find(matrix, e->key, strlen(e->key));

        if (k >= 0) {
            at = ynode_value(matrix, (size_t)k);
            if (!ynode_pos(at).line)
                at = ynode_key(matrix, (size_t)k);
            if (e->index >= 0 && ynode_is_seq(at) && (size_t)e->index < ynode_len(at))
                at = ynode_item(at, (size_t)e->index);
        }
    }
    return at;
}

/* The explicit job for configuration `index`: a copy of `job` with its contexts applied,
 * keyed `<id>-<index>`, appended to `out`. */
static int add_configuration(struct job *j, struct ynode *out, const struct ynode *id,
                             const struct ynode *job, const struct matrix *m, size_t index)
{
    const struct matrix_row *row = &m->rows[index];
    struct ynode *copy = ynode_copy(j->doc, job);
    struct ynode *strategy = copy ? ynode_get(copy, "strategy") : NULL;
    struct ynode *include, *list, *key, *values;
    char name[GHA_NAME_MAX + 16];
    size_t len;
    const char *text = ynode_scalar(id, &len);
    int n = snprintf(name, sizeof(name), "%.*s-%zu", (int)len, text, index);

    if (!copy)
        goto oom;
    if (substitute_job(j, copy, expr_ref(row->values), strategy_value(strategy, index, m->n)) != 0 ||
        set_name(j, copy, ynode_get(job, "name"), id, row) != 0)
        return -1;
    /* The configuration stays visible (and `${{ matrix.x }}` that stayed unknown still
     * resolves): one row of include. */
    values = node_from_value(j, row->values, ynode_pos(ynode_get(strategy, "matrix")));
    list = ynode_new_seq(j->doc, ynode_pos(strategy));
    include = ynode_new_map(j->doc, ynode_pos(strategy));
    key = ynode_new_string(j->doc, name, (size_t)n, ynode_pos(id));
    if (!values || !list || !include || !key || ynode_append(j->doc, list, values) != 0 ||
        ynode_set(j->doc, include, "include", list) != 0 ||
        ynode_set(j->doc, strategy, "matrix", include) != 0 ||
        ynode_append_pair(j->doc, out, key, copy) != 0)
        goto oom;
    if (j->ctx->on_key && j->ctx->on_key(j->ctx->user, name, (size_t)n, 0, ynode_pos(id)) != 0)
        return -1;
    return 0;
oom:
    out_of_memory(j, job);
    return -1;
}

/* A matrix of one include row and nothing else: one configuration, written out (what
 * render makes of a matrix, so that rendering a rendering gives it back). */
static bool is_explicit(const struct expr_value *m)
{
    const struct expr_value *include = expr_get(m, "include", 7);

    return expr_kind_of(m) == EXPR_OBJECT && expr_len(m) == 1 && include &&
           expr_kind_of(include) == EXPR_ARRAY && expr_len(include) == 1 &&
           expr_kind_of(expr_item(include, 0)) == EXPR_OBJECT && expr_len(expr_item(include, 0)) > 0;
}

/* Such a job keeps its id, strategy and name (a name is only made when there is none);
 * its contexts are substituted like any configuration's. Takes `m`. */
static int expand_explicit(struct job *j, const struct ynode *id, struct ynode *job,
                           struct expr_value *m)
{
    struct matrix rows;
    struct matrix_error merr;
    size_t len;
    const char *text = ynode_scalar(id, &len);
    int rc = matrix_expand(m, &rows, &merr);

    expr_unref(m);
    if (rc != 0) {
        out_of_memory(j, job);
        return -1;
    }
    if (substitute_job(j, job, expr_ref(rows.rows[0].values),
                       strategy_value(ynode_get(job, "strategy"), 0, 1)) == 0 &&
        !ynode_get(job, "name"))
        set_name(j, job, NULL, id, &rows.rows[0]);
    matrix_free(&rows);
    if (j->failed)
        return -1;
    return j->ctx->on_key ? j->ctx->on_key(j->ctx->user, text, len, 0, ynode_pos(id)) : 0;
}

/* The expression of an `if:` written as `${{ expr }}` or bare. */
static const char *condition_text(const struct ynode *cond, size_t *len)
{
    const char *t = ynode_scalar(cond, len), *end = t + *len;

    while (t < end && (*t == ' ' || *t == '\t'))
        t++;
    while (end > t && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
        end--;
    if (end - t >= 5 && memcmp(t, "${{", 3) == 0 && memcmp(end - 2, "}}", 2) == 0 &&
        !memmem(t + 3, (size_t)(end - t - 5), "${{", 3)) {
        t += 3;
        end -= 2;
    }
    *len = (size_t)(end - t);
    return t;
}

static int expand_job(struct job *j, struct ynode *items);

/* The input that a local `uses: ./.github/workflows/X.yml` names: X.yml next to the
 * caller (the inputs are workflow files, and the path is from the repository's root).
 * Its file number, or -1 when it is not among the inputs. */
static long callee_file(const struct job *j, const struct ynode *id, const char *uses)
{
    const char *caller = j->ctx->files[ynode_pos(id).file];
    const char *slash = strrchr(caller, '/'), *base = strrchr(uses, '/');
    size_t dir = slash ? (size_t)(slash - caller + 1) : 0;

    base = base ? base + 1 : uses;
    for (size_t i = 0; i < j->ctx->n_files; i++) {
        const char *f = j->ctx->files[i];

        if (strlen(f) == dir + strlen(base) && !strncmp(f, caller, dir) && !strcmp(f + dir, base))
            return (long)i;
    }
    return -1;
}

/* A called file that is not among the inputs is kept as written, unless the caller sits
 * in its repository's `.github/workflows`: the path is then where GitHub looks, and no
 * file there fails the run. -1 after reporting that, else 0. */
static int callee_missing(struct job *j, const struct ynode *id, const struct ynode *uses, const char *path)
{
    static const char workflows[] = "/.github/workflows";
    const size_t wlen = sizeof(workflows) - 1;
    const char *caller = j->ctx->files[ynode_pos(id).file], *slash = strrchr(caller, '/');
    char *dir = slash ? strndup(caller, (size_t)(slash - caller + 1)) : strdup(".");
    char *real = dir ? realpath(dir, NULL) : NULL, *where = NULL;
    size_t len = real ? strlen(real) : 0;
    struct stat st;
    int rc = 0;

    if (real && len >= wlen && !strcmp(real + len - wlen, workflows) &&
        (where = malloc(len + strlen(path) + 1)) != NULL) {
        bool found;

        sprintf(where, "%.*s/%s", (int)(len - wlen), real, path + 2);
        found = stat(where, &st) == 0;
        if (!found && (errno == ENOENT || errno == ENOTDIR)) {
            error_at(j, uses, RULE_REUSABLE_WORKFLOW, "%s does not exist: GitHub fails the run", path);
            rc = -1;
        } else if (found && S_ISDIR(st.st_mode)) {
            error_at(j, uses, RULE_REUSABLE_WORKFLOW, "%s is a directory, not a workflow file", path);
            rc = -1;
        }
    }
    free(where);
    free(real);
    free(dir);
    return rc;
}

/* The called workflow's document (its own positions), or NULL after an error. It is read
 * through the run's source of that input, which checks every read against the others. */
static struct ynode_doc *read_callee(struct job *j, const struct ynode *uses, const char *path, long file)
{
    struct stream *st = stream_open(j->ctx->sources[file], (unsigned)file, j->ctx->diag);
    struct ynode_doc *doc = NULL;

    if (!st || stream_document(st, &doc) < 0)
        j->failed = 1;
    else if (!doc) /* an empty file, or only comments */
        error_at(j, uses, RULE_REUSABLE_WORKFLOW, "%s is empty: no on.workflow_call and no jobs", path);
    stream_close(st);
    if (j->failed) {
        ynode_doc_destroy(doc);
        return NULL;
    }
    return doc;
}

/* Whether `on` (a name, a list of names or a mapping) names workflow_call. */
static bool is_callable(const struct ynode *on)
{
    for (size_t i = 0; ynode_is_seq(on) && i < ynode_len(on); i++) {
        if (ynode_scalar_is(ynode_item(on, i), "workflow_call"))
            return true;
    }
    return ynode_scalar_is(on, "workflow_call") || ynode_has(on, "workflow_call");
}

/* `inputs` of the call: `with` checked against the callee's declared inputs (names,
 * required, types), defaults filled in. NULL after an error, or with *unknown set when a
 * value stays an expression of unknown contexts. */
static struct expr_value *bind_inputs(struct job *j, const struct ynode *id, const struct ynode *with,
                                      const struct ynode *decl, const char *callee, bool *unknown)
{
    struct expr_value *inputs = expr_object();

    *unknown = false;
    for (size_t i = 0; inputs && i < ynode_len(with); i++) {
        const char *k = ynode_scalar(ynode_key(with, i), NULL);

        if (k && !ynode_has(decl, k))
            error_at(j, ynode_key(with, i), RULE_REUSABLE_WORKFLOW, "input '%s' is not defined in %s", k,
                     callee);
    }
    for (size_t i = 0; inputs && !*unknown && i < ynode_len(decl); i++) {
        const char *name = ynode_scalar(ynode_key(decl, i), NULL);
        const struct ynode *spec = ynode_value(decl, i), *v = name ? ynode_get(with, name) : NULL;
        const char *type = ynode_scalar(ynode_get(spec, "type"), NULL);
        struct expr_value *value = NULL;
        enum expr_kind kind;

        if (!name)
            continue;
        if (!v && !(v = ynode_get(spec, "default"))) {
            if (ynode_scalar_is(ynode_get(spec, "required"), "true"))
                error_at(j, with ? with : id, RULE_REUSABLE_WORKFLOW,
                         "missing required input '%s' of %s", name, callee);
            continue;
        }
        if (has_expression(v)) {
            int rc = fold(j, v, &value, NULL);

            if (rc < 0)
                continue;
            if ((*unknown = rc == 0))
                break;
        } else if (!(value = expr_from_ynode(v))) {
            out_of_memory(j, v);
            break;
        }
        kind = expr_kind_of(value);
        if (type && ((!strcmp(type, "boolean") && kind != EXPR_BOOL) ||
                     (!strcmp(type, "number") && kind != EXPR_NUMBER) ||
                     (!strcmp(type, "string") && (kind == EXPR_ARRAY || kind == EXPR_OBJECT)))) {
            error_at(j, v, RULE_REUSABLE_WORKFLOW, "input '%s' of %s must be a %s", name, callee, type);
            expr_unref(value);
            continue;
        }
        if (type && !strcmp(type, "string") && kind != EXPR_STRING) {
            char *text = expr_to_string(value);

            expr_unref(value);
            value = text ? expr_string(text, strlen(text)) : NULL;
            free(text);
        }
        if (!value || expr_object_set(inputs, name, strlen(name), value) != 0)
            out_of_memory(j, v);
    }
    if (!inputs)
        out_of_memory(j, id);
    if (j->failed || *unknown) {
        expr_unref(inputs);
        return NULL;
    }
    return inputs;
}

/* The run's known contexts with `inputs` in place of the caller's. */
static struct expr_value *with_inputs(const struct expr_value *known, struct expr_value *inputs)
{
    struct expr_value *c = expr_object();

    for (size_t i = 0; c && known && i < expr_len(known); i++) {
        size_t len;
        const char *k = expr_key(known, i, &len);

        if (!(len == 6 && !memcmp(k, "inputs", 6)) &&
            expr_object_set(c, k, len, expr_ref(expr_member(known, i))) != 0) {
            expr_unref(c);
            c = NULL;
        }
    }
    if (!c || expr_object_set(c, "inputs", 6, inputs) != 0) {
        expr_unref(c);
        return NULL;
    }
    return c;
}

/* `<caller>-<name>`, at the caller's id: the called jobs' ids and their references to
 * each other belong to the caller's workflow (its job ids are checked together). */
static struct ynode *prefixed(struct job *j, const struct ynode *caller, const struct ynode *n)
{
    char name[2 * GHA_NAME_MAX + 2];
    int len = snprintf(name, sizeof(name), "%s-%s", ynode_scalar(caller, NULL), ynode_scalar(n, NULL));

    return ynode_new_string(j->doc, name, (size_t)(len < (int)sizeof(name) ? len : (int)sizeof(name) - 1),
                            ynode_pos(caller));
}

/* A called workflow's job as one of the caller's: id `<caller>-<job>`, its needs renamed
 * and after the caller's, the caller's `if:` too, named `<caller> / <job>` as GitHub
 * shows it. */
static struct ynode *inlined_job(struct job *j, const struct ynode *id, const struct ynode *caller,
                                 const struct ynode *cid, const struct ynode *cjob)
{
    const char *ctext = ynode_scalar(id, NULL);
    struct ynode *job = ynode_copy(j->doc, cjob), *needs = ynode_new_seq(j->doc, ynode_pos(cjob));
    const struct ynode *own = ynode_get(cjob, "needs"), *theirs = ynode_get(caller, "needs");
    const struct ynode *cond = ynode_get(caller, "if"), *name = ynode_get(cjob, "name");
    const char *caller_name = ynode_scalar(ynode_get(caller, "name"), NULL);
    char text[4 * GHA_NAME_MAX];
    int n;

    if (!job || !needs || !ynode_is_map(job))
        return job;
    for (size_t i = 0; i < needs_len(theirs); i++) {
        if (ynode_append(j->doc, needs, ynode_copy(j->doc, needs_at(theirs, i))) != 0)
            return NULL;
    }
    for (size_t i = 0; i < needs_len(own); i++) {
        const struct ynode *t = needs_at(own, i);

        if (ynode_scalar(t, NULL) && ynode_append(j->doc, needs, prefixed(j, id, t)) != 0)
            return NULL;
    }
    if (ynode_len(needs) ? ynode_set(j->doc, job, "needs", needs) != 0 : (ynode_remove(job, "needs"), 0))
        return NULL;
    if (ynode_scalar(cond, NULL)) {
        const char *mine = ynode_scalar(ynode_get(cjob, "if"), NULL);
        size_t ml, cl;
        const char *ct = condition_text(cond, &cl), *mt = mine ? condition_text(ynode_get(cjob, "if"), &ml) : NULL;

        n = mt ? snprintf(text, sizeof(text), "(%.*s) && (%.*s)", (int)cl, ct, (int)ml, mt)
               : snprintf(text, sizeof(text), "%.*s", (int)cl, ct);
        if (n >= (int)sizeof(text) || ynode_set(j->doc, job, "if", ynode_new_string(j->doc, text, (size_t)n, ynode_pos(cond))) != 0)
            return NULL;
    }
    n = snprintf(text, sizeof(text), "%s / %s", caller_name ? caller_name : ctext,
                 ynode_scalar(name, NULL) ? ynode_scalar(name, NULL) : ynode_scalar(cid, NULL));
    if (n >= (int)sizeof(text) ||
        ynode_set(j->doc, job, "name", ynode_new_string(j->doc, text, (size_t)n, ynode_pos(id))) != 0)
        return NULL;
    return job;
}

/* A job that calls a local reusable workflow among the inputs becomes the called
 * workflow's jobs (docs/gha.md). 1: inlined into `items`; 0: kept as written (a note or
 * warning says why); -1: error. */
static int inline_call(struct job *j, struct ynode *items)
{
    struct ynode *id = ynode_key(items, 0), *job = ynode_value(items, 0);
    struct ynode *uses = ynode_get(job, "uses"), *out;
    const char *path = ynode_scalar(uses, NULL), *caller = ynode_scalar(id, NULL);
    struct ynode_doc *callee;
    const struct ynode *on, *jobs, *with, *decl;
    struct expr_value *inputs, *contexts;
    struct job sub;
    bool unknown;
    long file;
    unsigned budget = GHA_CALL_JOBS;

    if (!path || strncmp(path, "./", 2) != 0) {
        warn_at(j, uses, RULE_REUSABLE_WORKFLOW, "not inlined: %s is not a local workflow", path ? path : "uses");
        return 0;
    }
    if (ynode_get(ynode_get(job, "strategy"), "matrix")) {
        warn_at(j, uses, RULE_REUSABLE_WORKFLOW, "not inlined: a call with a matrix is rendered as its calls");
        return 0;
    }
    if ((file = callee_file(j, id, path)) < 0) {
        if (callee_missing(j, id, uses, path) != 0)
            return -1;
        warn_at(j, uses, RULE_REUSABLE_WORKFLOW, "not inlined: %s is not among the inputs' files", path);
        return 0;
    }
    if (j->depth >= GHA_CALL_DEPTH) {
        error_at(j, uses, RULE_REUSABLE_WORKFLOW, "reusable workflows nest more than %d levels", GHA_CALL_DEPTH);
        return -1;
    }
    /* The workflow being read is the first of the chain (its job ids carry its file). */
    for (unsigned d = 0; d <= j->depth; d++) {
        if ((d < j->depth ? j->calling[d] : (long)ynode_pos(id).file) == file) {
            error_at(j, uses, RULE_REUSABLE_WORKFLOW, "%s calls itself (through the workflows it calls)", path);
            return -1;
        }
    }
    if (!(callee = read_callee(j, uses, path, file)))
        return -1;
    on = ynode_get(ynode_doc_root(callee), "on");
    jobs = ynode_get(ynode_doc_root(callee), "jobs");
    if (!is_callable(on))
        error_at(j, uses, RULE_REUSABLE_WORKFLOW, "%s is not a reusable workflow (it has no on.workflow_call)", path);
    else if (!ynode_is_map(jobs) || ynode_len(jobs) == 0)
        error_at(j, uses, RULE_REUSABLE_WORKFLOW, "called workflow %s defines no jobs", path);
    with = ynode_get(job, "with");
    decl = ynode_get(ynode_get(on, "workflow_call"), "inputs");
    /* bind_inputs reads both by name: a list's items would pass for names */
    if (with && !ynode_is_map(with) && !ynode_is_null(with))
        error_at(j, with, RULE_REUSABLE_WORKFLOW, "with must be a mapping of input names to values");
    else if (decl && !ynode_is_map(decl) && !ynode_is_null(decl))
        error_at(j, decl, RULE_REUSABLE_WORKFLOW, "on.workflow_call.inputs must be a mapping of input names");
    if (j->failed) {
        ynode_doc_destroy(callee);
        return -1;
    }
    substitute_job(j, job, expr_null(), strategy_value(NULL, 0, 1));
    inputs = j->failed ? NULL : bind_inputs(j, id, with, decl, path, &unknown);
    if (!inputs) {
        ynode_doc_destroy(callee);
        if (j->failed)
            return -1;
        diag_at(j->ctx->diag, DIAG_NOTE, DIAG_FINDING, j->ctx->files, ynode_pos(uses), RULE_REUSABLE_WORKFLOW,
                "not inlined: an input of %s depends on run-time values", path);
        return 0;
    }
    contexts = with_inputs(j->known, inputs);
    memset(&sub, 0, sizeof(sub));
    sub.ctx = j->ctx;
    sub.known = contexts;
    sub.doc = j->doc;
    sub.depth = j->depth + 1;
    memcpy(sub.calling, j->calling, sizeof(sub.calling));
    sub.calling[j->depth] = file;
    sub.budget = j->budget ? j->budget : &budget;
    out = contexts ? ynode_new_map(j->doc, ynode_pos(items)) : NULL;
    for (size_t i = 0; out && i < ynode_len(jobs) && !sub.failed; i++) {
        struct ynode *one = ynode_new_map(j->doc, ynode_pos(id));
        struct ynode *cj = inlined_job(j, id, job, ynode_key(jobs, i), ynode_value(jobs, i));

        if (!one || !cj || ynode_append_pair(j->doc, one, prefixed(j, id, ynode_key(jobs, i)), cj) != 0 ||
            expand_job(&sub, one) != 0) {
            if (!sub.failed)
                out_of_memory(j, job);
            break;
        }
        if (ynode_len(one) > *sub.budget) {
            error_at(j, uses, RULE_REUSABLE_WORKFLOW, "the call becomes more than %d jobs", GHA_CALL_JOBS);
            break;
        }
        *sub.budget -= (unsigned)ynode_len(one);
        for (size_t k = 0; k < ynode_len(one); k++) {
            if (ynode_append_pair(j->doc, out, ynode_key(one, k), ynode_value(one, k)) != 0)
                out_of_memory(j, job);
        }
    }
    if (!out)
        out_of_memory(j, job);
    /* An error in a nested call was reported there: this call fails with it, quietly. */
    j->failed |= sub.failed;
    expr_contexts_destroy(sub.contexts);
    expr_unref(contexts);
    ynode_doc_destroy(callee);
    if (j->failed)
        return -1;
    if (call_record(j->ctx->state, ynode_pos(id).file, caller, strlen(caller), out) != 0) {
        out_of_memory(j, job);
        return -1;
    }
    /* `needs: [caller]` names all of them: the state holds their names */
    if (j->ctx->on_key &&
        j->ctx->on_key(j->ctx->user, caller, strlen(caller), (unsigned)ynode_len(out), ynode_pos(id)) != 0)
        return -1;
    items->u.map = out->u.map;
    return 1;
}

/* A job without a matrix, or whose matrix leaves no combination: one job, index 0 of 1,
 * matrix null (docs; WorkflowTemplateEvaluator.EvaluateStrategy makes that one
 * configuration when the strategy has none). */
static int expand_single(struct job *j, const struct ynode *id, struct ynode *job, const struct ynode *strategy)
{
    size_t len;
    const char *text = ynode_scalar(id, &len);

    if (substitute_job(j, job, expr_null(), strategy_value(strategy, 0, 1)) != 0)
        return -1;
    return j->ctx->on_key ? j->ctx->on_key(j->ctx->user, text, len, 0, ynode_pos(id)) : 0;
}

static int expand_job(struct job *j, struct ynode *items)
{
    struct ynode *id = ynode_key(items, 0), *job = ynode_value(items, 0);
    struct ynode *strategy = ynode_get(job, "strategy"), *matrix = ynode_get(strategy, "matrix");
    struct ynode *cond = ynode_get(job, "if");
    struct ynode *out;
    struct expr_value *m;
    struct matrix rows;
    struct matrix_error merr;
    char *unknown = NULL;
    size_t len;
    const char *text = ynode_scalar(id, &len);

    if (!text || !valid_job_id(text, len)) {
        error_at(j, id, RULE_JOB_ID, "job id '%.*s' must start with a letter or '_' and contain only "
                 "letters, digits, '-' and '_' (at most %d characters)",
                 (int)(len > 100 ? 100 : len), text ? text : "", GHA_NAME_MAX - 1);
        return -1;
    }
    if (!ynode_is_map(job)) {
        error_at(j, job, RULE_JOB_SHAPE, "job '%s' must be a mapping", text);
        return -1;
    }
    if (ynode_scalar(cond, NULL)) {
        struct expr_error err;
        size_t clen;
        const char *ctext = condition_text(cond, &clen);
        struct expr *e = expr_parse(ctext, clen, &err);

        if (!e) {
            err.offset += (size_t)(ctext - ynode_scalar(cond, NULL));
            expr_error_at(j, cond, &err);
            return -1;
        }
        if (expr_uses_context(e, "matrix") || expr_uses_context(e, "strategy"))
            error_at(j, cond, RULE_MATRIX_CONTEXT, "a job's if: cannot use matrix or strategy (GitHub "
                     "evaluates it before the matrix is expanded); move the condition to its steps");
        expr_free(e);
        if (j->failed)
            return -1;
    }
    if (ynode_has(job, "uses")) {
        int rc = inline_call(j, items);

        if (rc != 0)
            return rc < 0 ? -1 : 0;
    }
    /* fail-fast and max-parallel may be expressions of the run's contexts (not matrix). */
    if (set_contexts(j, expr_null(), expr_null()) != 0) {
        out_of_memory(j, job);
        return -1;
    }
    substitute_fields(j, strategy, strategy_fields);
    if (j->failed)
        return -1;
    if (!matrix)
        return expand_single(j, id, job, strategy);
    m = matrix_value(j, matrix, &unknown);
    if (!m) {
        if (j->failed)
            return -1;
        diag_at(j->ctx->diag, DIAG_NOTE, DIAG_FINDING, j->ctx->files, ynode_pos(matrix), RULE_MATRIX_UNKNOWN,
                "job '%s' kept as written: its matrix depends on %s, unknown here (give them "
                "with --input/--var/--github)", text, unknown && *unknown ? unknown : "run-time values");
        free(unknown);
        return j->ctx->on_key ? j->ctx->on_key(j->ctx->user, text, len, 0, ynode_pos(id)) : 0;
    }
    if (is_explicit(m))
        return expand_explicit(j, id, job, m);
    if (matrix_expand(m, &rows, &merr) != 0) {
        error_at(j, matrix_error_node(matrix, &merr), RULE_MATRIX, "%s", merr.message);
        expr_unref(m);
        return -1;
    }
    expr_unref(m);
    if (rows.n == 0) /* every combination excluded */
        return expand_single(j, id, job, strategy);
    if (!(out = ynode_new_map(j->doc, ynode_pos(items)))) {
        matrix_free(&rows);
        out_of_memory(j, job);
        return -1;
    }
    for (size_t i = 0; i < rows.n && !j->failed; i++)
        add_configuration(j, out, id, job, &rows, i);
    matrix_free(&rows);
    if (j->failed)
        return -1;
    /* The job id still names all of them (needs: [id]). */
    if (j->ctx->on_key && j->ctx->on_key(j->ctx->user, text, len, (unsigned)ynode_len(out), ynode_pos(id)) != 0)
        return -1;
    items->u.map = out->u.map;
    return 0;
}

/* The expression contexts the options give (NULL when none). */
static const struct expr_value *gha_contexts(const void *own)
{
    const struct expr_value *known = own ? ((const struct gha_options *)own)->contexts : NULL;

    return expr_len(known) ? known : NULL;
}

static int gha_expand(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *items)
{
    struct job j = {.ctx = ctx, .known = gha_contexts(dialect_options_own(ctx->options, &dialect_gha)),
                    .doc = doc};
    int rc;

    if (!ynode_is_map(items) || ynode_len(items) != 1)
        return 0;
    rc = expand_job(&j, items);
    expr_contexts_destroy(j.contexts);
    return rc == 0 && !j.failed ? 0 : -1;
}

/* ---- needs ---- */

/* `needs: x` as `needs: [x]`, the one form the rest reads. */
static int gha_normalize(struct ynode_doc *doc, struct ynode *items)
{
    for (size_t i = 0; ynode_is_map(items) && i < ynode_len(items); i++) {
        struct ynode *job = ynode_value(items, i);
        struct ynode *needs = ynode_get(job, "needs"), *list;

        if (!ynode_is_scalar(needs) || ynode_is_null(needs))
            continue;
        if (!(list = ynode_new_seq(doc, ynode_pos(needs))) || ynode_append(doc, list, needs) != 0 ||
            ynode_set(doc, job, "needs", list) != 0)
            return -1;
    }
    return 0;
}

static int gha_references(const struct ynode *items, struct diag *d, const char *const *files,
                          dialect_visit_fn visit, void *user)
{
    for (size_t i = 0; ynode_is_map(items) && i < ynode_len(items); i++) {
        const struct ynode *needs = ynode_get(ynode_value(items, i), "needs");

        for (size_t k = 0; k < needs_len(needs); k++) {
            const struct ynode *n = needs_at(needs, k);
            size_t len;
            const char *t = ynode_scalar(n, &len);
            int rc;

            if (!t) {
                struct ypos p = ynode_pos(n);

                diag_at(d, DIAG_ERROR, DIAG_INPUT, files, p, RULE_NEEDS,
                        "needs entries must be job ids");
                return -1;
            }
            if ((rc = visit(user, t, len, ynode_pos(n))) != 0)
                return rc;
        }
    }
    return 0;
}

static int gha_edges(const struct ynode *items, dialect_edge_fn fn, void *user, bool *local_cycle)
{
    for (size_t i = 0; ynode_is_map(items) && i < ynode_len(items); i++) {
        size_t flen;
        const char *from = ynode_scalar(ynode_key(items, i), &flen);
        const struct ynode *needs = ynode_get(ynode_value(items, i), "needs");

        for (size_t k = 0; k < needs_len(needs); k++) {
            size_t tlen;
            const char *to = ynode_scalar(needs_at(needs, k), &tlen);
            int rc;

            if (!to)
                continue;
            if ((rc = fn(user, from, flen, to, tlen, ynode_pos(needs_at(needs, k)))) != 0)
                return rc;
            *local_cycle |= tlen == flen && memcmp(to, from, flen) == 0;
        }
    }
    return 0;
}

static int gha_rewrite(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *items,
                       dialect_shards_fn shards_of, void *user)
{
    for (size_t i = 0; ynode_is_map(items) && i < ynode_len(items); i++) {
        struct ynode *needs = ynode_get(ynode_value(items, i), "needs");

        for (size_t k = 0; ynode_is_seq(needs) && k < ynode_len(needs); k++) {
            struct ynode *n = ynode_item(needs, k);
            size_t len;
            const char *t = ynode_scalar(n, &len);
            unsigned jobs = t ? shards_of(user, t, len) : 0;
            char name[2 * GHA_NAME_MAX + 16];

            const struct call *call;

            if (!jobs)
                continue;
            call = call_find(ctx->state, ynode_pos(n).file, t, len);
            ynode_remove_at(needs, k);
            for (unsigned s = 0; s < jobs; s++) {
                int nl = call && s < call->n ? snprintf(name, sizeof(name), "%s", call->jobs[s])
                                             : snprintf(name, sizeof(name), "%.*s-%u", (int)len, t, s);
                struct ynode *one = ynode_new_string(doc, name, (size_t)(nl < (int)sizeof(name) ? nl : (int)sizeof(name) - 1),
                                                     ynode_pos(n));

                if (!one || ynode_insert(doc, needs, k + s, one) != 0)
                    return -1;
            }
            k += jobs - 1;
        }
    }
    return 0;
}

/* ---- the jobs of a rendering ---- */

/* A job this dialect made from a matrix: its matrix is one row of include. */
static bool is_configuration(const struct ynode *job)
{
    const struct ynode *m = ynode_get(ynode_get(job, "strategy"), "matrix");

    return ynode_len(m) == 1 && ynode_len(ynode_get(m, "include")) == 1;
}

/* What tells a configuration from its siblings: "part 2" for one value, else
 * "os=linux arch=arm64". */
static void configuration_label(const struct ynode *job, char *buf, size_t cap)
{
    const struct ynode *row = ynode_item(ynode_get(ynode_get(ynode_get(job, "strategy"), "matrix"),
                                                   "include"), 0);
    size_t o = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < ynode_len(row) && o < cap; i++) {
        const char *k = ynode_scalar(ynode_key(row, i), NULL);
        const char *v = ynode_scalar(ynode_value(row, i), NULL);

        o += (size_t)snprintf(buf + o, cap - o, ynode_len(row) == 1 ? "%s%s %s" : "%s%s=%s",
                              i ? " " : "", k, v ? v : "...");
    }
}

/* The id of a configuration `<id>-<index>` without its index (its length), or 0 for a
 * job that is no configuration. */
static size_t configuration_base(const struct ynode *items, size_t i, unsigned *index)
{
    size_t len, base;
    const char *id = ynode_scalar(ynode_key(items, i), &len);
    long at;

    if (!id || !is_configuration(ynode_value(items, i)) || (at = dialect_key_index(id, len, &base)) < 0)
        return 0;
    *index = (unsigned)at;
    return base;
}

/* A configuration `<id>-<index>` of a matrix is matched by `<id>`; the configurations
 * of one job are consecutive (an inlined workflow's items hold several jobs). */
static long gha_each_job(const struct ynode *items, dialect_job_fn fn, void *user)
{
    size_t n = ynode_len(items);
    unsigned parts = 1;

    for (size_t i = 0; fn && ynode_is_map(items) && i < n; i++) {
        const struct ynode *job = ynode_value(items, i);
        struct dialect_job dj = {.node = job, .shards = 1, .parts = 1, .pos = ynode_pos(ynode_key(items, i))};
        char label[128];
        unsigned index;
        size_t base = configuration_base(items, i, &index);

        dj.id = ynode_scalar(ynode_key(items, i), &dj.id_len);
        if (base) {
            unsigned next;

            if (index == 0) /* the run of this job's configurations */
                for (parts = 1; i + parts < n && configuration_base(items, i + parts, &next) == base &&
                                next == parts && !memcmp(ynode_scalar(ynode_key(items, i + parts), NULL),
                                                         dj.id, base);
                     parts++)
                    ;
            dj.part = dj.shard = index;
            dj.parts = dj.shards = parts > index ? parts : index + 1;
            dj.id_len = base;
            dj.row = ynode_item(ynode_get(ynode_get(ynode_get(job, "strategy"), "matrix"), "include"), 0);
            configuration_label(job, label, sizeof(label));
            dj.label = label;
        }
        if (fn(user, &dj) != 0)
            return -1;
    }
    return (long)n;
}

/* The job's env, then each step's env, run and with (an action's arguments). */
static int gha_each_text(const struct ynode *job, dialect_text_fn fn, void *user)
{
    const struct ynode *steps = ynode_get(job, "steps");
    int rc = dialect_each_text(ynode_get(job, "env"), fn, user);

    for (size_t i = 0; rc == 0 && ynode_is_seq(steps) && i < ynode_len(steps); i++) {
        const struct ynode *step = ynode_item(steps, i);

        if ((rc = dialect_each_text(ynode_get(step, "env"), fn, user)) == 0 &&
            (rc = dialect_each_text(ynode_get(step, "run"), fn, user)) == 0)
            rc = dialect_each_text(ynode_get(step, "with"), fn, user);
    }
    return rc;
}

static const char *const job_key_order[] = {
    "name", "runs-on", "needs", "if", "strategy", "environment", "timeout-minutes",
    "continue-on-error", "permissions", "concurrency", "outputs", "env", "defaults",
    "container", "services", "uses", "with", "secrets", NULL};

/* Steps keep their keys as written. */
static const struct emit_layout gha_layout = {"jobs", true, job_key_order, NULL};

/* ---- options: the contexts known for the whole run ---- */

enum gha_option { GHA_OPT_INPUT, GHA_OPT_VAR, GHA_OPT_GITHUB, GHA_OPT_EVENT, GHA_OPT_MATRIX, GHA_OPT_CONTEXTS };

static const struct dialect_option gha_options[] = {
    [GHA_OPT_INPUT] = {"input", true, NULL, false, DIALECT_OPTION_RENDER | DIALECT_OPTION_EXPRESSIONS,
                       "      --input NAME=VALUE     workflows: a known `inputs` value (VALUE read as a YAML\n"
                       "                             scalar; repeatable)\n",
                       "no-validate"},
    [GHA_OPT_VAR] = {"var", true, NULL, false, DIALECT_OPTION_RENDER | DIALECT_OPTION_EXPRESSIONS,
                     "      --var NAME=VALUE       workflows: a known `vars` value\n", "no-validate"},
    [GHA_OPT_GITHUB] = {"github", true, NULL, false, DIALECT_OPTION_RENDER | DIALECT_OPTION_EXPRESSIONS,
                        "      --github KEY=VALUE     workflows: a known `github` value (github.ref=...)\n",
                        "no-validate"},
    [GHA_OPT_EVENT] = {"event", true, NULL, false, DIALECT_OPTION_RENDER | DIALECT_OPTION_EXPRESSIONS,
                       "      --event NAME           workflows: github.event_name\n", "no-validate"},
    [GHA_OPT_MATRIX] = {"matrix", true, NULL, false, DIALECT_OPTION_EXPRESSIONS,
                        "      --matrix KEY=VALUE     a known `matrix` value\n", "no-validate"},
    [GHA_OPT_CONTEXTS] = {"contexts", true, NULL, false, DIALECT_OPTION_RENDER | DIALECT_OPTION_EXPRESSIONS,
                          "      --contexts FILE        known contexts: a JSON or YAML mapping of context name\n"
                          "                             to value ({matrix: {part: 1}, inputs: {...}})\n",
                          "no-validate"},
    {NULL, false, NULL, false, 0, NULL, NULL},
};

/* `--input NAME=VALUE` into contexts[context][NAME], VALUE typed as a plain YAML scalar. */
static int set_context_value(struct gha_options *o, const char *context, const char *arg, const char *opt,
                             const struct dialect_option_io *io)
{
    const char *eq = strchr(arg, '=');
    struct ynode_doc *doc = ynode_doc_create();
    struct ypos none = {0, 0, 0};
    struct ynode *n = doc && eq ? ynode_new_plain(doc, eq + 1, none) : NULL;
    struct expr_value *v = n ? expr_from_ynode(n) : NULL;
    struct expr_value *ctx = expr_get(o->contexts, context, strlen(context));

    ynode_doc_destroy(doc);
    if (!eq || eq == arg) {
        expr_unref(v);
        return io->usage(opt, "needs NAME=VALUE");
    }
    if (!v)
        return io->usage("out of memory", NULL);
    if (!ctx) {
        if (!(ctx = expr_object()) || expr_object_set(o->contexts, context, strlen(context), ctx) != 0) {
            expr_unref(v);
            return io->usage("out of memory", NULL);
        }
    }
    return expr_object_set(ctx, arg, (size_t)(eq - arg), v) == 0 ? 0 : io->usage("out of memory", NULL);
}

/* --contexts FILE: each top-level pair of the mapping is a context. */
static int read_contexts(struct gha_options *o, const char *path, const struct dialect_option_io *io)
{
    struct diag *d = diag_create(stderr, io->format);
    struct source *src = d ? source_open(path, d) : NULL;
    struct stream *s = src ? stream_open(src, 0, d) : NULL;
    struct ynode_doc *doc = NULL;
    const struct ynode *root;
    int rc = DIAG_INPUT;

    if (!s || stream_document(s, &doc) < 0)
        goto done;
    root = doc ? ynode_doc_root(doc) : NULL;
    if (!ynode_is_map(root)) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, ynode_pos(root).line, ynode_pos(root).col,
                    RULE_CONTEXTS, "must be a mapping of context name to value");
        goto done;
    }
    rc = 0;
    for (size_t i = 0; i < ynode_len(root) && rc == 0; i++) {
        size_t len;
        const char *name = ynode_scalar(ynode_key(root, i), &len);

        rc = expr_object_set(o->contexts, name, len, expr_from_ynode(ynode_value(root, i)));
    }
    if (rc != 0) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, RULE_INTERNAL, "out of memory");
        rc = DIAG_INPUT;
    }
done:
    ynode_doc_destroy(doc);
    stream_close(s);
    source_close(src);
    diag_destroy(d);
    return rc;
}

static int gha_option(void *own, const struct dialect_option *opt, const char *arg,
                      const struct dialect_option_io *io)
{
    static const char *const contexts[] = {
        [GHA_OPT_INPUT] = "inputs", [GHA_OPT_VAR] = "vars", [GHA_OPT_GITHUB] = "github", [GHA_OPT_MATRIX] = "matrix"};
    struct gha_options *o = own;
    enum gha_option id = (enum gha_option)(opt - gha_options);
    char name[64], event[256];

    if (!o->contexts && !(o->contexts = expr_object()))
        return io->usage("out of memory", NULL);
    snprintf(name, sizeof(name), "--%s", opt->name);
    switch (id) {
    case GHA_OPT_CONTEXTS:
        return read_contexts(o, arg, io);
    case GHA_OPT_EVENT:
        snprintf(event, sizeof(event), "event_name=%s", arg);
        return set_context_value(o, "github", event, name, io);
    case GHA_OPT_INPUT:
    case GHA_OPT_VAR:
    case GHA_OPT_GITHUB:
    case GHA_OPT_MATRIX:
        break;
    }
    return set_context_value(o, contexts[id], arg, name, io);
}

static void gha_options_free(void *own)
{
    expr_unref(((struct gha_options *)own)->contexts);
}

/* A top-level `jobs` mapping. */
static bool gha_detect(const struct stream_item *item, const struct dialect_probe *probe)
{
    (void)probe;
    return item->kind == STREAM_STEPS_START && !item->bare && strcmp(item->items_key, "jobs") == 0;
}

const struct dialect dialect_gha = {
    .name = "gha",
    .description = "GitHub Actions workflow",
    .shape = jobs_shape,
    .layout = &gha_layout,
    .input_schema = "github-workflow-v1",
    .rendered_schema = "github-workflow-v1",
    .render_checks_input = true,
    .platform = "GitHub",
    .job_noun = "job",
    .key_noun = "job id",
    .fanout_field = "matrix",
    .fanout_jobs = "jobs",
    .reference_field = "needs",
    .keys_per_file = true,
    .bad_references_fail = true,
    .max_jobs_per_document = 0,
    .max_jobs_total = 0,
    .open = dialect_files_open,
    .next = dialect_files_next,
    .close = dialect_files_close,
    .expand = gha_expand,
    .edges = gha_edges,
    .normalize = gha_normalize,
    .references = gha_references,
    .rewrite = gha_rewrite,
    .each_job = gha_each_job,
    .each_text = gha_each_text,
    .state_create = gha_state_create,
    .state_destroy = gha_state_destroy,
    .options = gha_options,
    .options_size = sizeof(struct gha_options),
    .option = gha_option,
    .options_free = gha_options_free,
    .contexts = gha_contexts,
    .detect = gha_detect,
};
