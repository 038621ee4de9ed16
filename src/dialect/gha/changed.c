/* changed: which jobs of a workflow run for a change (render --changed), decided as
 * GitHub decides them, in the order the jobs are written (a job is decided from the jobs
 * before it, as workflows write a `check-changes` job first):
 *  - the workflow runs only if the run's event (--event, --github ref=/base_ref=) and
 *    the change pass its `on.<event>` filters (trigger.c);
 *  - a job's `needs.<job>.outputs` are known where its outputs read a dorny/paths-filter
 *    step's outputs (pathsfilter.c); a job left out has `result` 'skipped' and no
 *    outputs;
 *  - a job needing a job left out is skipped unless its if: calls a status function
 *    (GitHub docs, jobs.<job_id>.needs: "If a job fails or is skipped, all jobs that need
 *    it are skipped unless the jobs use a conditional expression that causes the job to
 *    continue"; an if: without a status function has success() ANDed in: docs
 *    "Expressions", status check functions); otherwise its if:, folded with those
 *    contexts (status functions stay unknown), leaves it out when it is false.
 * Each decision is made once per job (the record), so that a second pass renders what
 * the first did and says it once. */
#define _GNU_SOURCE /* memmem */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/change.h"

#include "gha_internal.h"

#define GHA_WHY_MAX 512
#define GHA_IF_SHOWN 100 /* an if: longer than this is not repeated in a reason */

struct gate_job {
    char *id;
    char *why;                   /* left out, and why; NULL: it runs (or may) */
    struct expr_value *outputs;  /* its `outputs` as known (unknown members) */
    struct expr_value *reasons;  /* output name -> why it is 'false' */
};

struct gha_gate {
    bool on_read;
    char *not_triggered; /* why the event does not trigger the workflow, or NULL */
    struct ypos on_pos;
    struct gate_job *jobs;
    size_t n, cap;
};

static struct gha_gate *gate_of(struct gha_state *st, unsigned file)
{
    if (file >= st->n_gates) {
        struct gha_gate *grown = realloc(st->gates, (file + 1) * sizeof(*grown));

        if (!grown)
            return NULL;
        memset(grown + st->n_gates, 0, (file + 1 - st->n_gates) * sizeof(*grown));
        st->gates = grown;
        st->n_gates = file + 1;
    }
    return &st->gates[file];
}

void gha_gates_clear(struct gha_state *st)
{
    for (size_t f = 0; f < st->n_gates; f++) {
        struct gha_gate *g = &st->gates[f];

        for (size_t i = 0; i < g->n; i++) {
            free(g->jobs[i].id);
            free(g->jobs[i].why);
            expr_unref(g->jobs[i].outputs);
            expr_unref(g->jobs[i].reasons);
        }
        free(g->jobs);
        free(g->not_triggered);
    }
    free(st->gates);
}

static const struct gate_job *gate_find(const struct gha_gate *g, const char *id, size_t len)
{
    for (size_t i = 0; g && i < g->n; i++) {
        if (strlen(g->jobs[i].id) == len && !memcmp(g->jobs[i].id, id, len))
            return &g->jobs[i];
    }
    return NULL;
}

/* A github context value given to the run, or NULL. */
static const char *github_value(const struct expr_value *known, const char *key)
{
    const struct expr_value *v = expr_get(expr_get(known, "github", 6), key, strlen(key));

    return v && expr_kind_of(v) == EXPR_STRING ? expr_string_value(v, NULL) : NULL;
}

/* Tells the change's not-run hook that job `id` is left out, and why: the one place the
 * dialect reports it. 0, or -1 when the hook said stop. */
static int gha_not_run(const struct dialect_ctx *ctx, const char *id, size_t len, const char *why, struct ypos pos)
{
    return ctx->on_not_run && ctx->on_not_run(ctx->user, id, len, why, pos) != 0 ? -1 : 0;
}

/* A note under --explain about how the change was read, at `at`. */
static void explain(struct job *j, const struct ynode *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void explain(struct job *j, const struct ynode *at, const char *fmt, ...)
{
    va_list ap;

    if (!change_explain(j->ctx->change))
        return;
    va_start(ap, fmt);
    diag_vat(j->ctx->diag, DIAG_NOTE, DIAG_FINDING, j->ctx->files, ynode_pos(at), RULE_NOT_RUN, fmt, ap);
    va_end(ap);
}

int gha_gate_on(struct gha_state *st, const struct ynode *pair, unsigned file, const struct change *c)
{
    struct gha_gate *g;
    const struct expr_value *known = gha_file_contexts(st, file);
    const struct expr_value *action = expr_get(expr_get(expr_get(known, "github", 6), "event", 5), "action", 6);
    struct gha_event ev = {github_value(known, "event_name"), github_value(known, "ref"),
                           github_value(known, "base_ref"),
                           action && expr_kind_of(action) == EXPR_STRING ? expr_string_value(action, NULL) : NULL};
    char buf[GHA_WHY_MAX];
    const char *why;

    if (!change_known(c) || !ev.name || !(g = gate_of(st, file)))
        return change_known(c) && ev.name ? -1 : 0;
    if (g->on_read)
        return 0;
    g->on_read = true;
    g->on_pos = ynode_pos(ynode_key(pair, 0));
    why = gha_trigger_not_run(ynode_value(pair, 0), &ev, c, buf, sizeof(buf));
    return why && !(g->not_triggered = strdup(why)) ? -1 : 0;
}

/* The job's contexts for deciding: the run's (with an empty `inputs` for an event
 * other than a dispatch or a call, as the inputs context holds only theirs), then
 * `needs` and `steps` (taken; NULL: unknown). NULL when out of memory. */
static struct expr_contexts *gate_contexts(const struct expr_value *known, struct expr_value *needs,
                                           struct expr_value *steps)
{
    struct expr_contexts *c = expr_contexts_create();
    const char *event = github_value(known, "event_name");
    int rc = c ? 0 : -1;

    for (size_t i = 0; known && i < expr_len(known) && rc == 0; i++) {
        char name[64];
        size_t len;
        const char *key = expr_key(known, i, &len);

        snprintf(name, sizeof(name), "%.*s", (int)len, key);
        rc = expr_contexts_set(c, name, expr_ref(expr_member(known, i)));
    }
    if (rc == 0 && event && !expr_get(known, "inputs", 6) && strcmp(event, "workflow_dispatch") &&
        strcmp(event, "workflow_call"))
        rc = expr_contexts_set(c, "inputs", expr_object());
    if (rc == 0 && needs)
        rc = expr_contexts_set(c, "needs", expr_ref(needs));
    if (rc == 0 && steps)
        rc = expr_contexts_set(c, "steps", expr_ref(steps));
    expr_unref(needs);
    expr_unref(steps);
    if (rc != 0) {
        expr_contexts_destroy(c);
        return NULL;
    }
    return c;
}

static struct expr_value *text_value(const char *s)
{
    return expr_string(s, strlen(s));
}

/* `needs` as the job sees it, from the records of the jobs it needs; *left_out names
 * the first of them left out. NULL when out of memory. */
static struct expr_value *needs_value(const struct gha_gate *g, const struct ynode *job, const char **left_out,
                                      size_t *left_len)
{
    const struct ynode *needs = ynode_get(job, "needs");
    struct expr_value *o = expr_object();
    int rc = o ? 0 : -1;

    *left_out = NULL;
    for (size_t i = 0; i < gha_needs_len(needs) && rc == 0; i++) {
        size_t len;
        const char *name = ynode_scalar(gha_needs_at(needs, i), &len);
        const struct gate_job *r = name ? gate_find(g, name, len) : NULL;
        struct expr_value *v;

        if (!name)
            continue;
        if (!r) {
            rc = expr_object_set(o, name, len, expr_unknown());
            continue;
        }
        if (!(v = expr_object()) ||
            expr_object_set(v, "result", 6, r->why ? text_value("skipped") : expr_unknown()) != 0 ||
            expr_object_set(v, "outputs", 7, r->why || !r->outputs ? expr_object() : expr_ref(r->outputs)) != 0 ||
            expr_object_set(o, name, len, v) != 0)
            rc = -1;
        if (r->why && !*left_out) {
            *left_out = name;
            *left_len = len;
        }
    }
    if (rc != 0) {
        expr_unref(o);
        return NULL;
    }
    return o;
}

/* What a job's expressions read of a context: the paths `<context>.<a>.outputs.<b>`. */
struct reads {
    const char *context;
    int (*fn)(void *user, const struct expr_path_part *a, const struct expr_path_part *b);
    void *user;
};

static int on_read(void *user, const struct expr_path *p)
{
    struct reads *r = user;

    if (strcmp(p->context, r->context) || p->n < 3 || p->props[1].len != 7 ||
        memcmp(p->props[1].name, "outputs", 7))
        return 0;
    return r->fn(r->user, &p->props[0], &p->props[2]);
}

/* A reason appended to `buf` once ("; " between them). */
static void add_reason(char *buf, size_t cap, const char *why, size_t len)
{
    size_t o = strlen(buf);

    if (!len || memmem(buf, o, why, len))
        return;
    snprintf(buf + o, cap - o, "%s%.*s", o ? "; " : "", (int)len, why);
}

struct output_reasons {
    const struct expr_value *steps; /* the job's, as known */
    char buf[GHA_WHY_MAX];
};

/* steps.<id>.outputs.<f> of a paths-filter step: why it is 'false'. */
static int step_reason(void *user, const struct expr_path_part *id, const struct expr_path_part *out)
{
    struct output_reasons *r = user;
    const struct expr_value *step = expr_get(r->steps, id->name, id->len);
    const struct expr_value *v = expr_get(expr_get(step, "outputs", 7), out->name, out->len);
    const struct expr_value *outcome = expr_get(step, "outcome", 7);
    char why[GHA_WHY_MAX];
    size_t len;
    const char *t = v && expr_kind_of(v) == EXPR_STRING ? expr_string_value(v, &len) : NULL;

    if (outcome && expr_kind_of(outcome) == EXPR_STRING && !strcmp(expr_string_value(outcome, NULL), "skipped"))
        snprintf(why, sizeof(why), "step '%.*s' does not run", (int)id->len, id->name);
    else if (t && len == 5 && !memcmp(t, "false", 5))
        snprintf(why, sizeof(why), "no changed file matches filter %.*s", (int)out->len, out->name);
    else
        return 0;
    add_reason(r->buf, sizeof(r->buf), why, strlen(why));
    return 0;
}

struct need_reasons {
    const struct gha_gate *g;
    char buf[GHA_WHY_MAX];  /* why, as a short if: is followed by */
    char full[GHA_WHY_MAX]; /* the same with the outputs named, for a long one */
};

/* needs.<job>.outputs.<o>: why that output is 'false', as its job's record says. */
static int need_reason(void *user, const struct expr_path_part *job, const struct expr_path_part *out)
{
    struct need_reasons *r = user;
    const struct gate_job *rec = gate_find(r->g, job->name, job->len);
    const struct expr_value *v = rec ? expr_get(rec->reasons, out->name, out->len) : NULL;
    size_t len;
    const char *t = v ? expr_string_value(v, &len) : NULL;
    char named[GHA_WHY_MAX];

    if (!t)
        return 0;
    add_reason(r->buf, sizeof(r->buf), t, len);
    snprintf(named, sizeof(named), "needs.%.*s.outputs.%.*s is 'false': %.*s", (int)job->len, job->name,
             (int)out->len, out->name, (int)len, t);
    add_reason(r->full, sizeof(r->full), named, strlen(named));
    return 0;
}

/* A quiet job for folding: what the decision reads is reported by the job's own
 * expansion, so errors here only make the decision unknown. */
struct quiet {
    struct dialect_ctx ctx;
    struct job j;
};

static bool quiet_open(struct quiet *q, const struct job *j, struct expr_contexts *contexts)
{
    q->ctx = *j->ctx;
    q->ctx.diag = diag_create_buffered(DIAG_TEXT);
    q->j = (struct job){.ctx = &q->ctx, .known = j->known, .doc = j->doc, .contexts = contexts};
    return q->ctx.diag && contexts;
}

static void quiet_close(struct quiet *q)
{
    diag_destroy(q->ctx.diag);
    expr_contexts_destroy(q->j.contexts);
}

/* The `steps` context as the job's outputs read it: each paths-filter step's outputs,
 * every other step with an id unknown. A paths-filter step whose if: is false does not
 * run; one whose if: is unknown is taken to run (a note says so). NULL when out of
 * memory. */
static struct expr_value *steps_value(struct job *j, const struct ynode *id, const struct ynode *job)
{
    const struct ynode *steps = ynode_get(job, "steps");
    struct expr_value *o = expr_object();
    int rc = o ? 0 : -1;

    for (size_t i = 0; ynode_is_seq(steps) && i < ynode_len(steps) && rc == 0; i++) {
        const struct ynode *step = ynode_item(steps, i), *cond = ynode_get(step, "if");
        size_t len;
        const char *sid = ynode_scalar(ynode_get(step, "id"), &len);
        struct expr_value *v = NULL, *outputs = NULL;
        const char *why = NULL;
        struct quiet q;
        char *residual = NULL;
        int run = 1;

        if (!sid)
            continue;
        if (!gha_is_paths_filter(step)) {
            rc = expr_object_set(o, sid, len, expr_unknown());
            continue;
        }
        if (ynode_scalar(cond, NULL)) {
            run = quiet_open(&q, j, gate_contexts(j->known, NULL, expr_ref(o))) ? gha_fold_if(&q.j, cond, &residual)
                                                                               : -1;
            quiet_close(&q);
            free(residual);
        }
        if (run == 0)
            outputs = expr_object();
        else if (run < 0 || (rc = gha_paths_filter(step, j->ctx->change, &outputs, &why)) <= 0)
            outputs = NULL;
        if (rc < 0)
            break;
        rc = 0;
        if (why)
            explain(j, ynode_get(ynode_get(step, "with"), "filters"),
                        "the outputs of step '%.*s' of job '%s' stay unknown: %s", (int)len, sid,
                        ynode_scalar(id, NULL), why);
        else if (run == 2)
            explain(j, cond, "step '%.*s' of job '%s' is taken to run: its if: is not known here", (int)len,
                        sid, ynode_scalar(id, NULL));
        if (!outputs) {
            rc = expr_object_set(o, sid, len, expr_unknown());
            continue;
        }
        if (!(v = expr_object()) || expr_object_set(v, "outputs", 7, outputs) != 0 ||
            expr_object_set(v, "outcome", 7, run == 0 ? text_value("skipped") : expr_unknown()) != 0 ||
            expr_object_set(v, "conclusion", 10, run == 0 ? text_value("skipped") : expr_unknown()) != 0 ||
            expr_object_set(o, sid, len, v) != 0)
            rc = -1;
    }
    if (rc != 0) {
        expr_unref(o);
        return NULL;
    }
    return o;
}

/* The job's outputs as known (each a string, or unknown), and why those that are
 * 'false' are. 0, or -1 when out of memory. */
static int job_outputs(struct job *j, const struct ynode *id, const struct ynode *job, struct expr_value *needs,
                       struct gate_job *rec)
{
    const struct ynode *outputs = ynode_get(job, "outputs");
    struct expr_value *steps = ynode_has(job, "uses") ? NULL : steps_value(j, id, job);
    struct quiet q;
    bool ok = quiet_open(&q, j, gate_contexts(j->known, expr_ref(needs), expr_ref(steps)));
    int rc = -1;

    if (!ok || !(rec->outputs = expr_object()) || !(rec->reasons = expr_object()))
        goto done;
    for (size_t i = 0; ynode_is_map(outputs) && i < ynode_len(outputs); i++) {
        size_t klen, len;
        const char *k = ynode_scalar(ynode_key(outputs, i), &klen);
        const struct ynode *n = ynode_value(outputs, i);
        const char *text = ynode_scalar(n, &len);
        struct expr_value *v = NULL;
        char *s = NULL;

        if (!k)
            continue;
        if (!text || steps == NULL || gha_fold(&q.j, n, &v, NULL) <= 0 || !(s = expr_to_string(v)))
            ok = expr_object_set(rec->outputs, k, klen, expr_unknown()) == 0;
        else
            ok = expr_object_set(rec->outputs, k, klen, text_value(s)) == 0;
        if (ok && s && !strcmp(s, "false")) {
            struct output_reasons r = {.steps = steps};
            struct reads reads = {"steps", step_reason, &r};

            expr_text_paths(text, len, false, on_read, &reads);
            ok = !r.buf[0] || expr_object_set(rec->reasons, k, klen, text_value(r.buf)) == 0;
        }
        expr_unref(v);
        free(s);
        if (!ok)
            goto done;
    }
    rc = 0;
done:
    quiet_close(&q);
    expr_unref(steps);
    return rc;
}

/* The if: on one line (whitespace runs as one space); false when longer than
 * GHA_IF_SHOWN. */
static bool shown_condition(const struct ynode *cond, char *buf, size_t cap)
{
    size_t len = 0, o = 0, base;
    bool formatted;
    struct expr_error err;
    char *t = gha_condition(cond, &len, &base, &formatted, &err);

    for (size_t i = 0; t && i < len; i++) {
        bool space = t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r';

        if (space && (o == 0 || buf[o - 1] == ' '))
            continue;
        if (o + 1 >= cap || o >= GHA_IF_SHOWN) {
            free(t);
            return false;
        }
        buf[o++] = space ? ' ' : t[i];
    }
    while (o && buf[o - 1] == ' ')
        o--;
    buf[o] = '\0';
    free(t);
    return true;
}

/* Why the job is left out (into buf), or NULL when it runs or may: its needs, its if:.
 * `needs` is its needs context. -1 in *rc when out of memory. */
static const char *decide(struct job *j, const struct gha_gate *g, const struct ynode *job, struct expr_value *needs,
                          const char *left_out, size_t left_len, char *buf, size_t cap)
{
    const struct ynode *cond = ynode_get(job, "if");
    size_t clen, base;
    bool formatted;
    struct expr_error err;
    char *ctext = ynode_scalar(cond, NULL) ? gha_condition(cond, &clen, &base, &formatted, &err) : NULL;
    /* an empty if: (or one that is only the string 'success()') is GitHub's default, as none */
    bool none = !ctext || (base == SIZE_MAX && !formatted && !strcmp(ctext, "success()"));
    struct expr *e = none ? NULL : expr_parse_in(ctext, clen, &gha_job_if_names, &err);
    bool status = expr_calls_status(e);
    struct quiet q;
    char *residual = NULL, shown[GHA_IF_SHOWN + 8];
    int rc;

    expr_free(e);
    free(ctext);
    if (left_out && !status) {
        snprintf(buf, cap, "it needs '%.*s', which does not run for this change", (int)left_len, left_out);
        return buf;
    }
    if (none)
        return NULL;
    rc = quiet_open(&q, j, gate_contexts(j->known, expr_ref(needs), NULL)) ? gha_fold_if(&q.j, cond, &residual) : -1;
    quiet_close(&q);
    free(residual);
    if (rc != 0)
        return NULL;
    struct need_reasons r = {.g = g};
    struct reads reads = {"needs", need_reason, &r};

    expr_text_paths(ynode_scalar(cond, NULL), strlen(ynode_scalar(cond, NULL)), true, on_read, &reads);
    /* a long if: is not repeated: the outputs it reads that are false say why */
    if (shown_condition(cond, shown, sizeof(shown)))
        snprintf(buf, cap, r.buf[0] ? "if: %s is false (%s)" : "if: %s is false", shown, r.buf);
    else
        snprintf(buf, cap, r.full[0] ? "its if: is false (%s)" : "its if: is false", r.full);
    return buf;
}

/* The job record of `id`, made once. NULL when out of memory. */
static struct gate_job *record(struct job *j, struct gha_gate *g, const struct ynode *id, const struct ynode *job,
                               bool *made)
{
    size_t len;
    const char *text = ynode_scalar(id, &len);
    struct gate_job *rec = (struct gate_job *)gate_find(g, text, len);
    struct expr_value *needs;
    const char *left_out, *why;
    size_t left_len = 0;
    char buf[GHA_WHY_MAX * 2];

    *made = false;
    if (rec)
        return rec;
    if (g->n == g->cap) {
        struct gate_job *grown = array_grow(g->jobs, &g->cap, g->n + 1, 16, sizeof(*grown));

        if (!grown)
            return NULL;
        g->jobs = grown;
    }
    rec = &g->jobs[g->n];
    *rec = (struct gate_job){.id = strndup(text, len)};
    if (!rec->id)
        return NULL;
    g->n++;
    *made = true;
    if (g->not_triggered) {
        snprintf(buf, sizeof(buf), "the workflow does not run for this %s: %s",
                 github_value(j->known, "event_name"), g->not_triggered);
        return (rec->why = strdup(buf)) ? rec : NULL;
    }
    if (!(needs = needs_value(g, job, &left_out, &left_len)))
        return NULL;
    why = decide(j, g, job, needs, left_out, left_len, buf, sizeof(buf));
    if (why ? !(rec->why = strdup(why)) : job_outputs(j, id, job, needs, rec) != 0)
        rec = NULL;
    expr_unref(needs);
    return rec;
}

/* `needs` of a job that runs without naming jobs left out (an if: with always() keeps a
 * job whose needs were skipped; the rendering has no such job to wait for). */
static void prune_needs(const struct gha_gate *g, struct ynode *job)
{
    struct ynode *needs = ynode_get(job, "needs");
    size_t len;
    const char *one = ynode_scalar(needs, &len);
    const struct gate_job *r = one ? gate_find(g, one, len) : NULL;

    if (r && r->why) { /* `needs: x` (normalized after this) */
        ynode_remove_at(job, (size_t)ynode_find(job, "needs", 5));
        return;
    }

    for (size_t i = 0; ynode_is_seq(needs) && i < ynode_len(needs);) {
        const char *name = ynode_scalar(ynode_item(needs, i), &len);

        r = name ? gate_find(g, name, len) : NULL;
        if (r && r->why)
            ynode_remove_at(needs, i);
        else
            i++;
    }
}

int gha_gate_job(struct job *j, struct ynode *items)
{
    struct gha_state *st = j->ctx->state;
    const struct ynode *id = ynode_key(items, 0), *job = ynode_value(items, 0);
    unsigned file = ynode_pos(id).file;
    struct gha_gate *g;
    struct gate_job *rec;
    bool made;
    size_t len;
    const char *text = ynode_scalar(id, &len);

    if (!st || !change_known(j->ctx->change) || !text || !ynode_is_map(job))
        return 0;
    if (!(g = gate_of(st, file)) || !(rec = record(j, g, id, job, &made))) {
        gha_out_of_memory(j, id);
        return -1;
    }
    if (!rec->why)
        return 0;
    if (made && gha_not_run(j->ctx, text, len, rec->why, g->not_triggered ? g->on_pos : ynode_pos(id)) != 0)
        return -1;
    if (j->ctx->keep_not_run) /* diff compares the whole rendering and only marks the job */
        return 0;
    /* a job written before it may need it: render drops that reference (in pass 2) */
    if (j->ctx->on_key && j->ctx->on_key(j->ctx->user, text, len, DIALECT_KEY_LEFT_OUT, ynode_pos(id)) != 0)
        return -1;
    ynode_remove_at(items, 0);
    return 1;
}

void gha_gate_prune(struct job *j, struct ynode *items)
{
    struct gha_state *st = j->ctx->state;

    if (!st || !change_known(j->ctx->change) || j->ctx->keep_not_run || !ynode_len(items) ||
        ynode_pos(ynode_key(items, 0)).file >= st->n_gates)
        return;
    for (size_t i = 0; ynode_is_map(items) && i < ynode_len(items); i++)
        prune_needs(&st->gates[ynode_pos(ynode_key(items, 0)).file], ynode_value(items, i));
}
