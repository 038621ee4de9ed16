/* references: what a job's expressions read from `matrix`, `inputs`, `needs` and `steps`
 * (and `github.event.inputs`), checked against every value those contexts can hold in
 * the job, as actionlint types them (rule_expression.go), but only where fanout knows
 * them all: a matrix key no configuration defines, an input the workflow does not
 * declare, a job not among the job's needs, a step id no earlier step has. GitHub runs
 * such a workflow and reads the property as null, so each is a warning (with the
 * closest name that is defined), and a matrix key only some configurations define is a
 * note. A matrix or inputs that fanout does not know (a matrix from an expression, an
 * `on` written after the jobs, a step id that is an expression) say nothing. */
#include <stdlib.h>
#include <string.h>

#include "fanout/suggest.h"

#include "gha_internal.h"

/* ---- what the workflow declares ---- */

bool gha_on_event(const struct ynode *on, const char *event)
{
    for (size_t i = 0; ynode_is_seq(on) && i < ynode_len(on); i++) {
        if (ynode_scalar_is(ynode_item(on, i), event))
            return true;
    }
    return ynode_scalar_is(on, event) || ynode_has(on, event);
}

void gha_declared_clear(struct gha_declared *d)
{
    expr_unref(d->call_inputs);
    expr_unref(d->dispatch_inputs);
    expr_unref(d->inputs);
    memset(d, 0, sizeof(*d));
    d->file = -1;
}

/* The scalar n's text added to `names` (an object of names, to null): true, or false
 * when n is no name (or out of memory). */
static bool add_name(struct expr_value *names, const struct ynode *n)
{
    size_t len;
    const char *t = ynode_scalar(n, &len);

    return t && expr_object_set(names, t, len, expr_null()) == 0;
}

/* The keys of a mapping as names, or NULL when one is no name (or n no mapping). */
static struct expr_value *names_of(const struct ynode *map)
{
    struct expr_value *names = ynode_is_map(map) ? expr_object() : NULL;

    for (size_t i = 0; names && i < ynode_len(map); i++) {
        if (!add_name(names, ynode_key(map, i))) {
            expr_unref(names);
            return NULL;
        }
    }
    return names;
}

/* The inputs `event` declares into *out (NULL: none); false when they are not a mapping
 * of names. */
static bool read_inputs(const struct ynode *on, const char *event, struct expr_value **out)
{
    const struct ynode *decl = ynode_get(ynode_get(on, event), "inputs");

    *out = NULL;
    return !decl || ynode_is_null(decl) || (*out = names_of(decl)) != NULL;
}

/* ---- what each context holds ---- */

/* Adds the names of `names` (an object) to `set`. 0, or -1 when out of memory. */
static int add_names(struct expr_value *set, const struct expr_value *names)
{
    size_t len;

    for (size_t i = 0; i < expr_len(names); i++) {
        const char *name = expr_key(names, i, &len);

        /* a name already there is not set again: each configuration has most of them */
        if (!expr_get(set, name, len) && expr_object_set(set, name, len, expr_null()) != 0)
            return -1;
    }
    return 0;
}

/* Every key a configuration of the matrix has: of its rows, or when they are not known
 * the keys it is written with (its vectors', its include entries'), unless an
 * expression stands for the matrix, its include or an entry. NULL when not known, or
 * when every combination is excluded (the job runs once with matrix null). */
static struct expr_value *matrix_keys(const struct gha_matrix *mx)
{
    const struct ynode *include = ynode_get(mx->written, "include");
    struct expr_value *keys = expr_object();
    bool known = keys != NULL;

    if (mx->known) {
        known = known && mx->rows.n > 0;
        for (size_t i = 0; known && i < mx->rows.n; i++)
            known = add_names(keys, mx->rows.rows[i].values) == 0;
    } else {
        known = known && ynode_is_map(mx->written) && (!include || ynode_is_seq(include));
        for (size_t i = 0; known && i < ynode_len(mx->written); i++) {
            const struct ynode *k = ynode_key(mx->written, i);

            if (!ynode_scalar_is(k, "include") && !ynode_scalar_is(k, "exclude"))
                known = !gha_has_expression(k) && add_name(keys, k);
        }
        for (size_t i = 0; known && i < ynode_len(include); i++) {
            struct expr_value *entry = names_of(ynode_item(include, i));

            known = entry && add_names(keys, entry) == 0;
            expr_unref(entry);
        }
    }
    if (!known) {
        expr_unref(keys);
        return NULL;
    }
    return keys;
}

/* The job's needs as names (none when it has none), or NULL when one is no name
 * (reported as `needs`). */
static struct expr_value *needs_of(const struct ynode *needs)
{
    struct expr_value *names = expr_object();

    for (size_t i = 0; names && i < gha_needs_len(needs); i++) {
        if (!add_name(names, gha_needs_at(needs, i))) {
            expr_unref(names);
            return NULL;
        }
    }
    return names;
}

/* The id of each step into `ids`; false when one is an expression or no name (GitHub's
 * schema allows none; any name might be its). */
static bool add_step_id(struct expr_value *ids, const struct ynode *step)
{
    const struct ynode *id = ynode_get(step, "id");

    return !id || ynode_is_null(id) || (!gha_has_expression(id) && add_name(ids, id));
}

/* ---- one job's references ---- */

/* What each context can hold in the job being read; a NULL set is not known. The sets
 * of the job's own (matrix keys, needs, step ids) are made at the first reference that
 * asks: most jobs read few of them, and making them all was an eighth of the check. */
enum steps_read { STEPS_NONE, STEPS_EARLIER, STEPS_ALL };

/* A matrix name the job read and how many configurations define it: a job reads a few
 * names again and again (its name, env and steps), each a lookup in every row. */
#define COUNTED_MAX 8
#define COUNTED_NAME_MAX 32
struct counted {
    char name[COUNTED_NAME_MAX];
    size_t len, defined;
};

struct refs {
    struct job *j;
    const char *job;
    const struct ynode *job_node;
    const struct gha_matrix *mx;
    struct expr_value *matrix_keys; /* every key a configuration has */
    const struct gha_declared *declared;
    const struct expr_value *inputs; /* the names `inputs` holds: both events' */
    struct expr_value *needs;       /* the job's needs */
    enum steps_read steps;          /* which step ids have run where it is read */
    size_t step;                    /* STEPS_EARLIER: the steps before this one have run */
    const struct ynode *step_list;  /* the job's steps */
    struct expr_value *earlier;     /* the ids of the first `ran` steps */
    size_t ran;
    struct expr_value *all_steps;   /* every step id of the job */
    bool made_matrix, made_needs, made_steps, ids_known;
    bool job_if;                    /* reading the job's `if:` (matrix-context's) */
    bool strategy;                  /* an expression names `strategy` */
    const struct ynode *at;         /* the scalar being read */
    struct counted *counted; /* COUNTED_MAX of them (not zeroed: a job's) */
    size_t n_counted;
};

/* Whether x is `word` (lower-case letters) as GitHub compares names: upper-cased. */
static bool named(const struct expr_path_part *x, const char *word)
{
    size_t len;
    char *up = expr_upper(x->name, x->len, &len);
    bool same = up && len == strlen(word);

    for (size_t i = 0; same && i < len; i++)
        same = up[i] == word[i] - 'a' + 'A';
    free(up);
    return same;
}

/* The name of `names` closest to x, as ", did you mean 'name'?" in buf, or "". */
static const char *did_you_mean(const struct expr_value *names, const struct expr_path_part *x, char *buf)
{
    size_t n = names ? expr_len(names) : 0, len;
    const char **list = calloc(n + 1, sizeof(*list));
    const char *phrase;

    for (size_t i = 0; list && i < n; i++)
        list[i] = expr_key(names, i, &len);
    phrase = suggest_phrase(list ? suggest_closest(x->name, x->len, list, suggest_limit(x->len)) : NULL, buf);
    free(list);
    return phrase;
}

static bool holds(const struct expr_value *names, const struct expr_path_part *x)
{
    return names && expr_get(names, x->name, x->len);
}

#define SHOWN(x) (int)((x)->len > 100 ? 100 : (x)->len), (x)->name

/* How many of the known matrix's configurations define x: counted once a name. */
static size_t rows_defining(struct refs *r, const struct expr_path_part *x)
{
    size_t defined = 0;

    for (size_t i = 0; i < r->n_counted; i++) {
        if (r->counted[i].len == x->len && !memcmp(r->counted[i].name, x->name, x->len))
            return r->counted[i].defined;
    }
    for (size_t i = 0; i < r->mx->rows.n; i++)
        defined += holds(r->mx->rows.rows[i].values, x);
    if (r->n_counted < COUNTED_MAX && x->len <= COUNTED_NAME_MAX) {
        memcpy(r->counted[r->n_counted].name, x->name, x->len);
        r->counted[r->n_counted].len = x->len;
        r->counted[r->n_counted++].defined = defined;
    }
    return defined;
}

static void check_matrix(struct refs *r, const struct expr_path *p, const struct expr_path_part *x)
{
    char buf[SUGGEST_PHRASE_MAX];
    size_t defined = 0, n;

    if (r->job_if || !r->mx) /* a job's if: or a workflow's key: GitHub's schema refuses it */
        return;
    n = r->mx->known ? r->mx->rows.n : 0;
    if (!r->mx->written) {
        gha_report_in_text(r->j, DIAG_WARNING, r->at, p->offset, RULE_UNKNOWN_REFERENCE,
                           "matrix.%.*s: job '%s' has no matrix (GitHub reads it as null)", SHOWN(x), r->job);
        return;
    }
    if (r->mx->known) { /* its rows tell: the union of their keys only names the closest */
        defined = rows_defining(r, x);
        if (n == 0 || defined == n)
            return;
        if (defined > 0) {
            gha_report_in_text(r->j, DIAG_NOTE, r->at, p->offset, RULE_UNKNOWN_REFERENCE,
                               "matrix.%.*s: %zu of the %zu configurations of job '%s' define it (null in "
                               "the others)", SHOWN(x), defined, n, r->job);
            return;
        }
    }
    if (!r->made_matrix) {
        r->matrix_keys = matrix_keys(r->mx);
        r->made_matrix = true;
    }
    if (r->matrix_keys && !holds(r->matrix_keys, x))
        gha_report_in_text(r->j, DIAG_WARNING, r->at, p->offset, RULE_UNKNOWN_REFERENCE,
                           "matrix.%.*s: no configuration of job '%s' defines '%.*s' (GitHub reads it as "
                           "null)%s", SHOWN(x), r->job, SHOWN(x), did_you_mean(r->matrix_keys, x, buf));
}

static void check_input(struct refs *r, const struct expr_path *p, const struct expr_path_part *x)
{
    char buf[SUGGEST_PHRASE_MAX];

    if (!r->declared || holds(r->inputs, x))
        return;
    if (!r->declared->call && !r->declared->dispatch)
        gha_report_in_text(r->j, DIAG_WARNING, r->at, p->offset, RULE_UNKNOWN_REFERENCE,
                           "inputs.%.*s: the workflow has no workflow_call or workflow_dispatch event, so "
                           "no inputs (GitHub reads it as null)", SHOWN(x));
    else
        gha_report_in_text(r->j, DIAG_WARNING, r->at, p->offset, RULE_UNKNOWN_REFERENCE,
                           "inputs.%.*s: the workflow declares no input '%.*s' (GitHub reads it as null)%s",
                           SHOWN(x), SHOWN(x), did_you_mean(r->inputs, x, buf));
}

/* github.event.inputs: the inputs of workflow_dispatch, its only event that has them
 * (called, github.event is the caller's: a workflow_call event says nothing). */
static void check_event_input(struct refs *r, const struct expr_path *p, const struct expr_path_part *x)
{
    char buf[SUGGEST_PHRASE_MAX];

    if (!r->declared || !r->declared->dispatch || r->declared->call || holds(r->declared->dispatch_inputs, x))
        return;
    gha_report_in_text(r->j, DIAG_WARNING, r->at, p->offset, RULE_UNKNOWN_REFERENCE,
                       "github.event.inputs.%.*s: workflow_dispatch declares no input '%.*s' (GitHub reads "
                       "it as null)%s", SHOWN(x), SHOWN(x), did_you_mean(r->declared->dispatch_inputs, x, buf));
}

static void check_needs(struct refs *r, const struct expr_path *p, const struct expr_path_part *x)
{
    char buf[SUGGEST_PHRASE_MAX];

    if (!r->made_needs && r->job_node) { /* a workflow's key: no job, no needs */
        r->needs = needs_of(ynode_get(r->job_node, "needs"));
        r->made_needs = true;
    }
    if (!r->needs || holds(r->needs, x))
        return;
    gha_report_in_text(r->j, DIAG_WARNING, r->at, p->offset, RULE_UNKNOWN_REFERENCE,
                       "needs.%.*s: job '%s' does not need '%.*s' (%s; GitHub reads it as null)%s", SHOWN(x),
                       r->job, SHOWN(x), expr_len(r->needs) ? "the needs context holds its own needs only"
                                                            : "it needs no job",
                       did_you_mean(r->needs, x, buf));
}

/* The step ids that have run where the scalar being read is, NULL when not known: ids
 * of the steps before r->step are added as the steps are passed. */
static const struct expr_value *steps_run(struct refs *r)
{
    if (r->steps == STEPS_NONE)
        return NULL;
    if (!r->made_steps) {
        r->made_steps = true;
        r->earlier = expr_object();
        r->ids_known = (r->all_steps = expr_object()) != NULL && r->earlier;
        for (size_t i = 0; r->ids_known && ynode_is_seq(r->step_list) && i < ynode_len(r->step_list); i++)
            r->ids_known = add_step_id(r->all_steps, ynode_item(r->step_list, i));
    }
    if (!r->ids_known)
        return NULL;
    if (r->steps == STEPS_ALL)
        return r->all_steps;
    for (; r->earlier && r->ran < r->step; r->ran++) {
        if (!add_step_id(r->earlier, ynode_item(r->step_list, r->ran))) {
            expr_unref(r->earlier);
            r->earlier = NULL; /* out of memory: say nothing more */
        }
    }
    return r->earlier;
}

static void check_step(struct refs *r, const struct expr_path *p, const struct expr_path_part *x)
{
    char buf[SUGGEST_PHRASE_MAX];
    const struct expr_value *steps = steps_run(r);

    if (!steps || holds(steps, x))
        return;
    if (holds(r->all_steps, x))
        gha_report_in_text(r->j, DIAG_WARNING, r->at, p->offset, RULE_UNKNOWN_REFERENCE,
                           "steps.%.*s: step '%.*s' of job '%s' has not run yet here (GitHub reads it as "
                           "null)", SHOWN(x), SHOWN(x), r->job);
    else
        gha_report_in_text(r->j, DIAG_WARNING, r->at, p->offset, RULE_UNKNOWN_REFERENCE,
                           "steps.%.*s: no step of job '%s' has id '%.*s' (GitHub reads it as null)%s",
                           SHOWN(x), r->job, SHOWN(x), did_you_mean(r->all_steps, x, buf));
}

/* Whether the context is `name`: its first letter tells most apart without a call. */
static bool context_is(const char *context, const char *name)
{
    return context[0] == name[0] && !strcmp(context, name);
}

static int on_path(void *user, const struct expr_path *p)
{
    struct refs *r = user;

    r->strategy |= context_is(p->context, "strategy");
    if (p->n == 0)
        return 0;
    if (context_is(p->context, "matrix"))
        check_matrix(r, p, &p->props[0]);
    else if (context_is(p->context, "inputs"))
        check_input(r, p, &p->props[0]);
    else if (context_is(p->context, "needs"))
        check_needs(r, p, &p->props[0]);
    else if (context_is(p->context, "steps"))
        check_step(r, p, &p->props[0]);
    else if (context_is(p->context, "github") && p->n == 3 && named(&p->props[0], "event") &&
             named(&p->props[1], "inputs"))
        check_event_input(r, p, &p->props[2]);
    return 0;
}

/* Every scalar under n with `${{ }}` (or, `condition`, the `if:` n). */
static void read_tree(struct refs *r, const struct ynode *n, bool condition)
{
    size_t len;
    const char *t = ynode_scalar(n, &len);

    if (t && (condition || gha_has_expression(n))) {
        r->at = n;
        expr_text_paths(t, len, condition, on_path, r);
    }
    for (size_t i = 0; !t && i < ynode_len(n); i++)
        read_tree(r, ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i), false);
}

/* The union of the inputs both events declare. */
static struct expr_value *inputs_of(const struct gha_declared *d)
{
    struct expr_value *all = expr_object();

    if (all && ((d->call_inputs && add_names(all, d->call_inputs) != 0) ||
                (d->dispatch_inputs && add_names(all, d->dispatch_inputs) != 0))) {
        expr_unref(all);
        return NULL;
    }
    return all;
}

/* A workflow's own keys after its `on` (run-name, env, concurrency, defaults) may read
 * `inputs` (workflow-v1.0.json gives them github, inputs, vars; env secrets too): their
 * references are checked as a job's are. */
static void check_workflow_key(struct gha_state *st, const struct ynode *pair, unsigned file)
{
    struct job j = {.ctx = &st->top};
    struct refs r = {.j = &j, .declared = &st->declared};

    if (!st->top.diag || !st->declared.known || st->declared.file != (long)file ||
        !(r.inputs = st->declared.inputs))
        return;
    for (size_t i = 0; i < ynode_len(pair); i++)
        read_tree(&r, ynode_value(pair, i), false);
}

int gha_declared_item(void *state, struct stream_item *item)
{
    struct gha_state *st = state;
    struct gha_declared *d = &st->declared;
    const struct ynode *root, *on;

    if (item->kind == STREAM_DOC_START)
        gha_declared_clear(d);
    if (item->kind != STREAM_PAIR)
        return 0;
    root = ynode_doc_root(item->doc);
    if (!(on = ynode_get(root, "on"))) {
        check_workflow_key(st, root, item->pos.file);
        return 0;
    }
    gha_declared_clear(d);
    d->file = item->pos.file;
    d->call = gha_on_event(on, "workflow_call");
    d->dispatch = gha_on_event(on, "workflow_dispatch");
    d->known = read_inputs(on, "workflow_call", &d->call_inputs) &&
               read_inputs(on, "workflow_dispatch", &d->dispatch_inputs);
    /* once a workflow, not a job: SGLang's jobs spent a twentieth of their expansion on it */
    d->inputs = d->known ? inputs_of(d) : NULL;
    return 0;
}

bool gha_check_references(struct job *j, const struct ynode *id, const struct ynode *job,
                          const struct gha_matrix *mx)
{
    const struct gha_state *st = j->ctx->state;
    struct counted counted[COUNTED_MAX];
    struct refs r = {.j = j, .job = ynode_scalar(id, NULL), .job_node = job, .mx = mx,
                     .step_list = ynode_get(job, "steps"), .counted = counted};

    if (st && st->declared.known && st->declared.file == (long)ynode_pos(id).file &&
        (r.inputs = st->declared.inputs))
        r.declared = &st->declared;
    for (size_t i = 0; ynode_is_map(job) && i < ynode_len(job); i++) {
        const struct ynode *k = ynode_key(job, i), *v = ynode_value(job, i);

        r.job_if = ynode_scalar_is(k, "if");
        if (!ynode_scalar_is(k, "steps")) {
            /* evaluated after the steps: `outputs`, `environment` (its url) */
            r.steps = ynode_scalar_is(k, "outputs") || ynode_scalar_is(k, "environment") ? STEPS_ALL : STEPS_NONE;
            read_tree(&r, v, r.job_if);
            continue;
        }
        r.steps = STEPS_EARLIER;
        for (size_t s = 0; ynode_is_seq(v) && s < ynode_len(v); s++) {
            const struct ynode *step = ynode_item(v, s);

            r.step = s;
            for (size_t f = 0; ynode_is_map(step) && f < ynode_len(step); f++)
                read_tree(&r, ynode_value(step, f), ynode_scalar_is(ynode_key(step, f), "if"));
        }
    }
    expr_unref(r.matrix_keys);
    expr_unref(r.needs);
    expr_unref(r.earlier);
    expr_unref(r.all_steps);
    return r.strategy;
}
