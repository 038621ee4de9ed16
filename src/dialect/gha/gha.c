/* gha: GitHub Actions workflows as a dialect (docs/gha.md). Each workflow file is one
 * document whose `jobs` mapping is streamed one job at a time; a job with a matrix
 * becomes one explicit job per configuration (`<job>-<index>`), with `matrix` and
 * `strategy` substituted in the fields where GitHub makes them available and step `if:`
 * conditions folded; `needs` naming an expanded job names all of its jobs. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/dialect.h"
#include "fanout/expr.h"
#include "fanout/text.h"
#include "fanout/ynode.h"
#include "fanout/yscalar.h"

#include "gha_internal.h"
#include "matrix.h"

/* GitHub reads workflows with npm yaml 2.x (@actions/workflow-parser), whose lexer
 * (lexer.js: parseQuotedScalar, continueScalar) ends a quoted scalar at a line less
 * indented than its key's column + 1, leaving the quote unclosed: the workflow is refused. */
const struct stream_shape gha_jobs_shape[] = {{"jobs", true, true, true, true, NULL},
                                              {NULL, false, false, false, false, NULL}};

void gha_vreport(struct job *j, enum diag_severity sev, struct ypos p, enum rule_id rule, const char *fmt,
                 va_list ap)
{
    diag_vat(j->ctx->diag, sev, sev == DIAG_ERROR ? DIAG_INPUT : DIAG_FINDING, j->ctx->files, p, rule, fmt, ap);
    if (sev == DIAG_ERROR)
        j->failed = 1;
}

void gha_error_at(struct job *j, const struct ynode *at, enum rule_id rule, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    gha_vreport(j, DIAG_ERROR, ynode_pos(at), rule, fmt, ap);
    va_end(ap);
}

void gha_warn_at(struct job *j, const struct ynode *at, enum rule_id rule, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    gha_vreport(j, DIAG_WARNING, ynode_pos(at), rule, fmt, ap);
    va_end(ap);
}

void gha_out_of_memory(struct job *j, const struct ynode *at)
{
    gha_error_at(j, at, RULE_INTERNAL, "out of memory");
}

/* The stream bounds what aliases copy into one job; a matrix copies the job once per
 * configuration, so that 4 jobs of a 16x16 matrix, each with an alias of 10,000 nodes,
 * made 10 million nodes (225 MB) of a 1.2 KB workflow: counted here before copying. */
int gha_copies_charge(struct job *j, const struct ynode *at, const struct ynode *node, size_t copies)
{
    struct gha_state *st = j->ctx->state;
    size_t nodes = ynode_tree_size(node) * copies;

    *j->copied += nodes;
    if (*j->copied > DIALECT_CONFIG_NODES && *j->copied > dialect_copies_bound(j->ctx, DIALECT_CONFIG_NODES)) {
        gha_error_at(j, at, RULE_ALIAS_BUDGET, "the job's configurations copy more than %llu nodes (%zu nodes, "
                     "%zu times; an alias bomb?)", (unsigned long long)dialect_copies_bound(j->ctx, DIALECT_CONFIG_NODES),
                     ynode_tree_size(node), copies);
        return -1;
    }
    if (st && !dialect_run_copies_charge(j->ctx, &st->copies, nodes)) {
        gha_error_at(j, at, RULE_ALIAS_BUDGET, "the jobs' configurations copy more than %llu nodes in the run "
                     "(an alias bomb?)", (unsigned long long)st->copies.budget);
        return -1;
    }
    return 0;
}

static bool is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
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

/* The node of the display name `text` of a job whose matrix is the one row `values`.
 * GitHub lists a matrix's values after a literal name (JobNameBuilder), also after one
 * that shows them already (`t (a)` with the row {x: a} shows as `t (a) (a)`), but shows a
 * name that is an expression as it evaluates (WorkflowTemplateEvaluator.EvaluateJobName).
 * So a name GitHub would extend is written ${{ format('text') }}, quotes and braces
 * doubled: the form GitHub's own TemplateReader.ParseScalar gives text around ${{ }}.
 * (A lone string, ${{ 'text' }}, would not do: ParseScalar reads it as the literal.) */
static struct ynode *name_node(struct job *j, const char *text, size_t len,
                               const struct expr_value *values, struct ypos pos)
{
    struct ynode *n;
    char *e, *o;

    if (!matrix_names_values(values))
        return gha_string_node(j, text, len, pos);
    if (!(e = malloc(2 * len + 32)))
        return NULL;
    o = e + sprintf(e, "${{ format('");
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\'' || text[i] == '{' || text[i] == '}')
            *o++ = text[i];
        *o++ = text[i];
    }
    o += sprintf(o, "') }}");
    n = ynode_new_string(j->doc, e, (size_t)(o - e), pos);
    free(e);
    return n;
}

/* The job's display name for a configuration (JobNameBuilder; a name with an expression
 * is evaluated instead, falling back to the generated one when empty), written as
 * name_node writes it. */
/* snprintf(text + o, cap - o, "%s", s) without its cost (a fifth of naming a job):
 * s written at `o` as far as it fits, NUL-terminated; o plus s's length. */
static size_t append(char *text, size_t cap, size_t o, const char *s)
{
    size_t len = strlen(s);

    if (o < cap) {
        size_t n = len < cap - 1 - o ? len : cap - 1 - o;

        memcpy(text + o, s, n);
        text[o + n] = '\0';
    }
    return o + len;
}

int gha_set_name(struct job *j, struct ynode *job, const struct ynode *written,
                 const struct ynode *id, const struct matrix_row *row, bool prefix_only)
{
    struct ynode *name = ynode_get(job, "name");
    size_t len;
    const char *base = ynode_scalar(name, &len);
    char text[GHA_NAME_MAX * 4];
    size_t o = 0;
    struct ynode *n;

    /* `written`: the name as the input has it (`name` is already substituted: a text
     * that reads as ${{ }} is written as an expression of it, which folds to the text) */
    if (gha_has_expression(written) && base && len > 0) {
        struct expr_value *v = NULL;
        char *folded = NULL;
        /* what substitution left unknown folds to unknown again (a parse and an
         * evaluation a configuration, a hundredth of SGLang's render) */
        int rc = !gha_has_expression(name) ? 1 : j->name_unknown ? 0 : gha_fold(j, name, &v, NULL);

        if (rc <= 0) /* what stays unknown is evaluated by GitHub */
            return rc;
        if (v) {
            folded = expr_to_string(v);
            expr_unref(v);
            if (!folded) {
                gha_out_of_memory(j, job);
                return -1;
            }
            base = folded;
            len = strlen(folded);
        }
        o = len < sizeof(text) ? len : sizeof(text) - 1;
        memcpy(text, base, o);
        free(folded);
    } else {
        if (!base || !*base)
            base = ynode_scalar(id, NULL);
        o = append(text, sizeof(text), 0, base);
        for (size_t i = 0; i < row->n_shown && o < sizeof(text); i++)
            o = append(text, sizeof(text), append(text, sizeof(text), o, i ? ", " : " ("), row->shown[i]);
        if (row->n_shown && o < sizeof(text))
            o = append(text, sizeof(text), o, ")");
        if (o >= sizeof(text))
            o = sizeof(text) - 1;
        o = matrix_name_cut(text, o);
    }
    if (!(n = prefix_only ? gha_string_node(j, text, o, ynode_pos(name ? name : id))
                          : name_node(j, text, o, row->values, ynode_pos(name ? name : id))) ||
        ynode_set(j->doc, job, "name", n) != 0) {
        gha_out_of_memory(j, job);
        return -1;
    }
    return 0;
}

/* `number-text`: a plain number of the matrix (`n`, read as `v`) whose text GitHub's
 * runtime writes otherwise than it is written (G15: `3.10` is 3.1), so that `${{ matrix.X
 * }}` gives other text than the author wrote. A warning: GitHub runs it. Said for the
 * workflow's own jobs (a called one's are its file's). */
static void matrix_number_text(struct job *j, const struct ynode *n, const struct expr_value *v)
{
    char buf[EXPR_NUMBUF];
    size_t len;

    if (j->depth || expr_kind_of(v) != EXPR_NUMBER || n->style != YNODE_PLAIN ||
        yscalar_canonical_decimal(n->u.scalar.text, n->u.scalar.len))
        return;
    len = expr_g15_number(expr_number_value(v), buf);
    if (len == n->u.scalar.len && !memcmp(buf, n->u.scalar.text, len))
        return;
    diag_at(j->ctx->diag, DIAG_WARNING, DIAG_FINDING, j->ctx->files, ynode_pos(n), RULE_NUMBER_TEXT,
            "%.*s is the number %s to GitHub, whose expressions make the string \"%s\" of it "
            "(${{ matrix.* }} in a name, a run, an input): quote it to keep %.*s",
            (int)text_utf8_cut(n->u.scalar.text, n->u.scalar.len, 40), n->u.scalar.text, buf, buf,
            (int)text_utf8_cut(n->u.scalar.text, n->u.scalar.len, 40), n->u.scalar.text);
}

/* `n` as a value with every `${{ }}` in it folded, at any depth (GitHub evaluates the
 * whole strategy: a vector, an item, an include entry's value): 1 with *value set, 0
 * with *unknown set (what it depends on) when one stays unknown, -1 after an error. */
static int fold_tree(struct job *j, const struct ynode *n, struct expr_value **value, char **unknown)
{
    struct expr_value *out;

    *value = NULL;
    if (ynode_is_scalar(n) && gha_has_expression(n))
        return gha_fold(j, n, value, unknown);
    if (!ynode_is_seq(n) && !ynode_is_map(n)) {
        if (!(*value = expr_from_ynode(n)))
            gha_out_of_memory(j, n);
        else
            matrix_number_text(j, n, *value);
        return *value ? 1 : -1;
    }
    if (!(out = ynode_is_seq(n) ? expr_array() : expr_object())) {
        gha_out_of_memory(j, n);
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
            gha_out_of_memory(j, n);
            return -1;
        }
    }
    *value = out;
    return 1;
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

/* A matrix of one include row and nothing else: one configuration, written out (what
 * render makes of a matrix, so that rendering a rendering gives it back). */
static bool is_explicit(const struct expr_value *m)
{
    const struct expr_value *include = expr_get(m, "include", 7);

    return expr_kind_of(m) == EXPR_OBJECT && expr_len(m) == 1 && include &&
           expr_kind_of(include) == EXPR_ARRAY && expr_len(include) == 1 &&
           expr_kind_of(expr_item(include, 0)) == EXPR_OBJECT && expr_len(expr_item(include, 0)) > 0;
}

/* The job's matrix (mx->written) folded by the known contexts and expanded into
 * mx->rows; left unknown (with *unknown set: what it depends on) when an expression in
 * it stays unknown. 0, or -1 after an error. */
static int job_matrix(struct job *j, struct gha_matrix *mx, char **unknown)
{
    struct expr_value *m = NULL;
    struct matrix_error merr;

    *unknown = NULL;
    if (!mx->written || fold_tree(j, mx->written, &m, unknown) <= 0)
        return j->failed ? -1 : 0;
    if (matrix_expand(m, &mx->rows, &merr) != 0) {
        gha_error_at(j, matrix_error_node(mx->written, &merr), RULE_MATRIX, "%s", merr.message);
        expr_unref(m);
        return -1;
    }
    mx->known = true;
    mx->explicit = is_explicit(m);
    expr_unref(m);
    return 0;
}

/* `job`'s field `key` as `copy`'s own: a shallow copy, or (`deep`) a whole one. NULL
 * when out of memory (reported). */
static struct ynode *own_field(struct job *j, struct ynode *copy, const char *key, bool deep)
{
    long at = ynode_find(copy, key, strlen(key));
    struct ynode *old = at >= 0 ? ynode_value(copy, (size_t)at) : NULL, *mine;

    if (ynode_is_scalar(old) || !old)
        return old;
    if (!(mine = deep ? ynode_copy_in(j->doc, old) : gha_own_copy(j, old))) {
        if (deep)
            gha_out_of_memory(j, old);
        return NULL;
    }
    ynode_replace_equal(copy, (size_t)at, mine); /* what it holds, in a copy of its own */
    return mine;
}

/* The `strategy` context of configuration `index` of `total` (gha_strategy_value), or
 * null for a job none of whose expressions reads it (`read`: gha_check_references
 * tells), for which making it would be for nothing. */
static struct expr_value *strategy_of(const struct ynode *strategy, size_t index, size_t total, bool read)
{
    return read ? gha_strategy_value(strategy, index, total) : expr_null();
}

/* The explicit job for configuration `index`: `job` with its contexts applied, keyed
 * `<id>-<index>`, appended to `out`. It shares with `job` (and the other
 * configurations) what substitution leaves as it is, and owns what changes: its
 * mapping, its strategy, and its needs (needs.c rewrites them in place). */
static int add_configuration(struct job *j, struct ynode *out, const struct ynode *id,
                             const struct ynode *job, const struct matrix *m, size_t index, bool read)
{
    const struct matrix_row *row = &m->rows[index];
    struct ynode *copy = gha_own_copy(j, job);
    struct ynode *strategy = copy ? own_field(j, copy, "strategy", false) : NULL;
    struct ynode *include, *list, *key, *values;
    char name[GHA_NAME_MAX + 16];
    size_t len;
    const char *text = ynode_scalar(id, &len);
    size_t n = dialect_key_name(name, sizeof(name), text, len, index);

    if (!copy || !strategy || (ynode_get(copy, "needs") && !own_field(j, copy, "needs", true)))
        return -1;
    if (gha_substitute_job(j, copy, expr_ref(row->values), strategy_of(strategy, index, m->n, read)) != 0 ||
        gha_set_name(j, copy, ynode_get(job, "name"), id, row, false) != 0)
        return -1;
    /* The configuration stays visible (and `${{ matrix.x }}` that stayed unknown still
     * resolves): one row of include. */
    values = gha_node_from_value(j, row->values, false, ynode_pos(ynode_get(strategy, "matrix")));
    list = ynode_new_seq(j->doc, ynode_pos(strategy));
    include = ynode_new_map(j->doc, ynode_pos(strategy));
    key = ynode_new_string(j->doc, name, n, ynode_pos(id));
    if (!values || !list || !include || !key || ynode_append(j->doc, list, values) != 0 ||
        ynode_set(j->doc, include, "include", list) != 0 ||
        ynode_set(j->doc, strategy, "matrix", include) != 0 ||
        ynode_append_pair(j->doc, out, key, copy) != 0)
        goto oom;
    if (j->ctx->on_key && j->ctx->on_key(j->ctx->user, name, (size_t)n, 0, ynode_pos(id)) != 0)
        return -1;
    return 0;
oom:
    gha_out_of_memory(j, job);
    return -1;
}

/* A job whose matrix is one configuration written out (an explicit matrix) keeps its id
 * and strategy, and is named as GitHub names it (a plain name
 * with its values, `lint (linux)`; an expression evaluated, its default when empty); its
 * contexts are substituted like any configuration's. */
static int expand_explicit(struct job *j, const struct ynode *id, struct ynode *job, const struct matrix *rows,
                           bool read)
{
    size_t len;
    const char *text = ynode_scalar(id, &len);
    const struct ynode *written = ynode_get(job, "name");

    /* written as gha_set_name writes it, so that a rendering rendered again stays as it is */
    if (gha_substitute_job(j, job, expr_ref(rows->rows[0].values),
                           strategy_of(ynode_get(job, "strategy"), 0, 1, read)) == 0)
        gha_set_name(j, job, written, id, &rows->rows[0], false);
    if (j->failed)
        return -1;
    return j->ctx->on_key ? j->ctx->on_key(j->ctx->user, text, len, 0, ynode_pos(id)) : 0;
}

/* A job without a matrix, or whose matrix leaves no combination: one job, index 0 of 1,
 * matrix null (docs; WorkflowTemplateEvaluator.EvaluateStrategy makes that one
 * configuration when the strategy has none). */
static int expand_single(struct job *j, const struct ynode *id, struct ynode *job, const struct ynode *strategy,
                         bool read)
{
    size_t len;
    const char *text = ynode_scalar(id, &len);
    const struct ynode *written = ynode_get(job, "name");

    if (gha_substitute_job(j, job, expr_null(), strategy_of(strategy, 0, 0, read)) != 0)
        return -1;
    /* EvaluateJobName: an expression that gives an empty name leaves the default, the job
     * id (a configuration with no values) */
    if (gha_has_expression(written) && gha_set_name(j, job, written, id, &(struct matrix_row){0}, false) != 0)
        return -1;
    return j->ctx->on_key ? j->ctx->on_key(j->ctx->user, text, len, 0, ynode_pos(id)) : 0;
}

/* A job whose matrix depends on what is not known here: kept as written, with a note. */
static int keep_unknown(struct job *j, const struct ynode *id, const struct ynode *matrix, const char *unknown)
{
    size_t len;
    const char *text = ynode_scalar(id, &len);

    diag_at(j->ctx->diag, DIAG_NOTE, DIAG_FINDING, j->ctx->files, ynode_pos(matrix), RULE_MATRIX_UNKNOWN,
            "job '%s' kept as written: its matrix depends on %s, unknown here (give them "
            "with --input/--var/--github)", text, unknown && *unknown ? unknown : "run-time values");
    return j->ctx->on_key ? j->ctx->on_key(j->ctx->user, text, len, 0, ynode_pos(id)) : 0;
}

/* How a job's if: is parsed: failure() and success() take job ids there (workflow-v1.0.json's
 * `job-if`: failure(0,MAX), success(0,MAX)). Every context and function GitHub defines
 * parses, as with expr_parse: which of them a job's if: may not use is the template
 * schema's check to say (workflow-context), and matrix and strategy get their own error. */
static const char *const job_if_contexts[] = {"github", "env",      "vars",   "job",   "jobs",  "steps",
                                              "runner", "secrets",  "strategy", "matrix", "needs", "inputs"};
static const struct expr_function job_if_functions[] = {
    {"hashFiles", 1, 255},      {"always", 0, 0}, {"failure", 0, UINT32_MAX},
    {"cancelled", 0, 0},        {"success", 0, UINT32_MAX},
};
const struct expr_names gha_job_if_names = {
    job_if_contexts, sizeof(job_if_contexts) / sizeof(*job_if_contexts),
    job_if_functions, sizeof(job_if_functions) / sizeof(*job_if_functions),
};

/* A warning when `cond`, the if: of a job or step (`what`), is text with ${{ }} in it
 * (`formatted`): GitHub's converter makes one format() string of it, truthy unless empty. */
static void warn_formatted_if(struct job *j, const struct ynode *cond, bool formatted, const char *what)
{
    if (formatted)
        gha_warn_at(j, cond, RULE_EXPRESSION, "this if: is text with ${{ }} in it, which GitHub makes one "
                    "string of (format()): the %s runs whenever that string is not empty; write the "
                    "whole condition in one ${{ }}, or none", what);
}

/* The warning of warn_formatted_if for each step's if: of `job`, said once for the job as
 * written, not for each of its configurations (whose folding reads the if: as GitHub
 * does); an if: that does not parse is the folding's to report. */
static void check_step_ifs(struct job *j, const struct ynode *job)
{
    const struct ynode *steps = ynode_get(job, "steps");

    for (size_t i = 0; ynode_is_seq(steps) && i < ynode_len(steps); i++) {
        const struct ynode *cond = ynode_get(ynode_item(steps, i), "if");
        struct expr_error err;
        size_t clen, base;
        bool formatted = false;
        char *ctext = ynode_scalar(cond, NULL) ? gha_condition(cond, &clen, &base, &formatted, &err) : NULL;

        if (ctext)
            warn_formatted_if(j, cond, formatted, "step");
        free(ctext);
    }
}

/* Whether a scalar of `n` (keys aside) holds ${{ }}. */
static bool any_expression(const struct ynode *n)
{
    if (ynode_is_scalar(n))
        return gha_has_expression(n);
    for (size_t i = 0; i < ynode_len(n); i++) {
        if (any_expression(ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i)))
            return true;
    }
    return false;
}

/* A container of job `id` (`what`: "container", or "services/" and the service's `name`)
 * written as a mapping without an image: GitHub's runner fails the job ("Container image
 * cannot be empty": PipelineTemplateConverter.ConvertToJobContainer, which a service's
 * goes through too). The schema allows it (workflow-v1.0.json's container-mapping
 * requires no key), and says an empty image itself; one with an expression in it is the
 * run's to know, as GitHub's converter leaves it (container.ts). A finding, as the
 * schema's are. */
static void check_container(struct job *j, const char *id, const char *what, const char *name, size_t len,
                            const struct ynode *c)
{
    if (!ynode_is_map(c) || ynode_get(c, "image") || any_expression(c))
        return;
    diag_at(j->ctx->diag, DIAG_ERROR, DIAG_FINDING, j->ctx->files, ynode_pos(c), RULE_WORKFLOW_REQUIRED,
            "/jobs/%s/%s%.*s: missing required key 'image' (GitHub's runner fails the job: \"Container image "
            "cannot be empty\")", id, what, (int)(len > 100 ? 100 : len), name);
}

static void check_containers(struct job *j, const char *id, const struct ynode *job)
{
    const struct ynode *services = ynode_get(job, "services");

    check_container(j, id, "container", "", 0, ynode_get(job, "container"));
    for (size_t i = 0; ynode_is_map(services) && i < ynode_len(services); i++) {
        size_t len = 0;
        const char *name = ynode_scalar(ynode_key(services, i), &len);

        check_container(j, id, "services/", name ? name : "", len, ynode_value(services, i));
    }
}

/* A job id as GitHub takes it, a job that is a mapping, and a job `if:` that parses as
 * GitHub's parser reads a job's if: and names neither matrix nor strategy. 0, or -1 after an error (reported). */
static int check_job(struct job *j, const struct ynode *id, const struct ynode *job)
{
    const struct ynode *cond = ynode_get(job, "if");
    size_t len;
    const char *text = ynode_scalar(id, &len);

    if (!text || !valid_job_id(text, len)) {
        gha_error_at(j, id, RULE_JOB_ID, "job id '%.*s' must start with a letter or '_' and contain only "
                     "letters, digits, '-' and '_' (at most %d characters)",
                     (int)(len > 100 ? 100 : len), text ? text : "", GHA_NAME_MAX - 1);
        return -1;
    }
    if (!ynode_is_map(job)) {
        gha_error_at(j, job, RULE_JOB_SHAPE, "job '%s' must be a mapping", text);
        return -1;
    }
    if (ynode_scalar(cond, NULL)) {
        struct expr_error err;
        size_t clen, base;
        bool formatted;
        char *ctext = gha_condition(cond, &clen, &base, &formatted, &err);
        struct expr *e = ctext ? expr_parse_in(ctext, clen, &gha_job_if_names, &err) : NULL;

        if (!e) {
            err.offset = !ctext ? err.offset : base == SIZE_MAX ? 0 : err.offset + base;
            gha_expr_error_at(j, cond, &err);
            free(ctext);
            return -1;
        }
        if (expr_uses_context(e, "matrix") || expr_uses_context(e, "strategy"))
            gha_error_at(j, cond, RULE_MATRIX_CONTEXT, "a job's if: cannot use matrix or strategy (GitHub "
                         "evaluates it before the matrix is expanded); move the condition to its steps");
        else
            warn_formatted_if(j, cond, formatted, "job");
        expr_free(e);
        free(ctext);
        if (j->failed)
            return -1;
    }
    check_step_ifs(j, job);
    check_containers(j, text, job);
    return 0;
}

/* The job of `items` with a matrix of several configurations: one job per configuration
 * in its place. */
static int expand_configurations(struct job *j, struct ynode *items, const struct matrix *rows, bool read)
{
    struct ynode *id = ynode_key(items, 0), *job = ynode_value(items, 0);
    struct ynode *out = ynode_new_map(j->doc, ynode_pos(items));
    struct gha_shared shared = {0};
    size_t len;
    const char *text = ynode_scalar(id, &len);

    if (!out) {
        gha_out_of_memory(j, job);
        return -1;
    }
    if (gha_copies_charge(j, ynode_get(ynode_get(job, "strategy"), "matrix"), job, rows->n) != 0)
        return -1;
    /* two configurations share too little to pay for the table (SGLang's: +60K) */
    j->shared = rows->n > 2 ? &shared : NULL;
    for (size_t i = 0; i < rows->n && !j->failed; i++)
        add_configuration(j, out, id, job, rows, i, read);
    j->shared = NULL;
    gha_shared_clear(&shared);
    if (j->failed)
        return -1;
    /* The job id still names all of them (needs: [id]). */
    if (j->ctx->on_key && j->ctx->on_key(j->ctx->user, text, len, (unsigned)ynode_len(out), ynode_pos(id)) != 0)
        return -1;
    ynode_take_children(items, out);
    return 0;
}

int gha_expand_job(struct job *j, struct ynode *items)
{
    struct ynode *id = ynode_key(items, 0), *job = ynode_value(items, 0);
    struct ynode *strategy = ynode_get(job, "strategy");
    struct gha_matrix mx = {.written = ynode_get(strategy, "matrix")};
    char *unknown = NULL;
    bool strategy_read = true; /* a called workflow's job is not walked here */
    int rc = -1;

    /* The matrix is folded by the run's contexts before the fields are substituted, so
     * that the references are checked in the job as written. */
    if (check_job(j, id, job) != 0 || gha_job_contexts(j, job) != 0 || job_matrix(j, &mx, &unknown) != 0)
        goto done;
    if (j->depth == 0) /* a called workflow's jobs are checked as its own file's */
        strategy_read = gha_check_references(j, id, job, &mx);
    if (ynode_has(job, "uses") && (rc = gha_inline_call(j, items, &mx)) != 0) {
        rc = rc < 0 ? -1 : 0;
        goto done;
    }
    if ((rc = gha_substitute_strategy(j, strategy)) != 0)
        goto done;
    if (!mx.written || (mx.known && mx.rows.n == 0)) /* no matrix, or every combination excluded */
        rc = expand_single(j, id, job, strategy, strategy_read);
    else if (!mx.known)
        rc = keep_unknown(j, id, mx.written, unknown);
    else if (mx.explicit)
        rc = expand_explicit(j, id, job, &mx.rows, strategy_read);
    else
        rc = expand_configurations(j, items, &mx.rows, strategy_read);
done:
    if (mx.known)
        matrix_free(&mx.rows);
    free(unknown);
    return rc;
}

static int gha_expand(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *items)
{
    size_t copied = 0;
    struct job j = {.ctx = ctx, .doc = doc, .copied = &copied};
    int rc;

    if (!ynode_is_map(items) || ynode_len(items) != 1)
        return 0;
    j.known = ctx->state ? gha_file_contexts(ctx->state, ynode_pos(ynode_key(items, 0)).file)
                         : gha_contexts(dialect_options_own(ctx->options, &dialect_gha));
    if ((rc = gha_gate_job(&j, items)) == 0 && (rc = gha_expand_job(&j, items)) == 0)
        gha_gate_prune(&j, items);
    expr_contexts_destroy(j.contexts);
    return rc >= 0 && !j.failed ? 0 : -1;
}

/* A job this dialect made from a matrix: its matrix is one row of include. */
static bool is_configuration(const struct ynode *job)
{
    const struct ynode *m = ynode_get(ynode_get(job, "strategy"), "matrix");

    return ynode_len(m) == 1 && ynode_len(ynode_get(m, "include")) == 1;
}

/* A job of a matrix call, as calls.c writes it: `<caller>-<job>-<index>`, no matrix of
 * its own, named `<caller> (<values>) / <job>`. */
static bool is_called_configuration(const struct ynode *job)
{
    const char *name = ynode_scalar(ynode_get(job, "name"), NULL);

    return !is_configuration(job) && name && strstr(name, " / ");
}

/* The id of a job `<id>-<index>` without its index (its length), or 0 for a job of no
 * fan-out: a configuration of a matrix, or (`called`) of a matrix call, whose jobs only
 * their ids number (the caller's matrix is not the called job's: GitHub passes it only
 * through inputs). */
static size_t fanout_base(const struct ynode *items, size_t i, bool called, unsigned *index)
{
    size_t len, base;
    const char *id = ynode_scalar(ynode_key(items, i), &len);
    const struct ynode *job = ynode_value(items, i);
    long at;

    if (!id || !(called ? is_called_configuration(job) : is_configuration(job)) ||
        (at = dialect_key_index(id, len, &base)) < 0)
        return 0;
    *index = (unsigned)at;
    return base;
}

/* A configuration `<id>-<index>` of a matrix is matched by `<id>`, and so is one of a
 * matrix call's jobs; the configurations of one job are consecutive (an inlined
 * workflow's items hold several jobs; a rendering read again, one job an item). Only a
 * matrix's configurations show their values. */
static long gha_each_job(const struct ynode *items, dialect_job_fn fn, void *user)
{
    /* the run of a job's configurations, items [run, run + parts), found at its first */
    size_t n = ynode_len(items), run = 0, run_base = 0;
    unsigned parts = 1;
    bool called = false;

    for (size_t i = 0; fn && ynode_is_map(items) && i < n; i++) {
        const struct ynode *job = ynode_value(items, i);
        struct dialect_job dj = {.node = job, .shards = 1, .parts = 1, .pos = ynode_pos(ynode_key(items, i))};
        unsigned index, next;
        size_t base;

        dj.id = ynode_scalar(ynode_key(items, i), &dj.id_len);
        if (run_base && i > run && i < run + parts) {
            base = run_base;
            index = (unsigned)(i - run);
        } else {
            base = fanout_base(items, i, false, &index);
            called = !base && (base = fanout_base(items, i, true, &index)) != 0;
            run_base = 0;
            if (base && index == 0) {
                for (parts = 1; i + parts < n && fanout_base(items, i + parts, called, &next) == base &&
                                next == parts && !memcmp(ynode_scalar(ynode_key(items, i + parts), NULL),
                                                         dj.id, base);
                     parts++)
                    ;
                run = i;
                run_base = base;
            }
        }
        if (base) {
            dj.part = dj.shard = index;
            dj.parts = dj.shards = parts > index ? parts : index + 1;
            dj.id_len = base;
        }
        if (base && !called)
            dj.row = ynode_item(ynode_get(ynode_get(ynode_get(job, "strategy"), "matrix"), "include"), 0);
        if (fn(user, &dj) != 0)
            return -1;
    }
    return (long)n;
}

/* Whether mapping key `k` is the text s[0..len). */
static bool key_is(const struct ynode *k, const char *s, size_t len)
{
    return k->u.scalar.len == len && memcmp(k->u.scalar.text, s, len) == 0;
}

/* The job's env, then each step's env, run and with (an action's arguments). A step's
 * three are found in one walk over its keys: three ynode_gets were half of the
 * render's key lookups. */
static int gha_each_text(const struct ynode *job, dialect_text_fn fn, void *user)
{
    const struct ynode *steps = ynode_get(job, "steps");
    int rc = dialect_each_text(ynode_get(job, "env"), fn, user);

    for (size_t i = 0; rc == 0 && ynode_is_seq(steps) && i < ynode_len(steps); i++) {
        const struct ynode *step = ynode_item(steps, i), *env = NULL, *run = NULL, *with = NULL;

        for (size_t j = 0; ynode_is_map(step) && j < ynode_len(step); j++) {
            const struct ynode *k = ynode_key(step, j);

            if (!env && key_is(k, "env", 3))
                env = ynode_value(step, j);
            else if (!run && key_is(k, "run", 3))
                run = ynode_value(step, j);
            else if (!with && key_is(k, "with", 4))
                with = ynode_value(step, j);
        }
        if ((rc = dialect_each_text(env, fn, user)) == 0 && (rc = dialect_each_text(run, fn, user)) == 0)
            rc = dialect_each_text(with, fn, user);
    }
    return rc;
}

static const char *const job_key_order[] = {
    "name", "runs-on", "needs", "if", "strategy", "environment", "timeout-minutes",
    "continue-on-error", "permissions", "concurrency", "outputs", "env", "defaults",
    "container", "services", "uses", "with", "secrets", NULL};

/* Steps keep their keys as written. */
static const struct emit_layout gha_layout = {"jobs", true, job_key_order, NULL};

/* The reader's transform: a workflow's `on`, read as it comes (before its jobs, as
 * workflows write it), completes its `inputs` (options.c) and says which names it
 * declares, and the workflow's own keys after it are checked against them
 * (references.c). */
static int read_on(void *state, struct stream_item *item)
{
    struct gha_state *st = state;
    int rc = gha_workflow_inputs(state, item);
    const struct ynode *root = item->kind == STREAM_PAIR && item->doc ? ynode_doc_root(item->doc) : NULL;

    if (rc == 0 && ynode_has(root, "on")) {
        gha_check_schedule(st, ynode_get(root, "on"));
        rc = gha_gate_on(st, root, item->pos.file, st->top.change);
    }
    return rc != 0 ? rc : gha_declared_item(state, item);
}

static struct dialect_reader *gha_open(const struct dialect_input *in, dialect_observe_fn observe, void *user)
{
    struct dialect_input own = *in;

    if (in->state) {
        struct gha_state *st = in->state;

        st->top = (struct dialect_ctx){.diag = in->diag, .files = in->names, .n_files = in->n,
                                       .sources = in->sources, .change = in->change};
        own.transform = read_on;
        own.transform_user = in->state;
    }
    return dialect_files_open(&own, observe, user);
}

/* ---- the run's state ---- */

static void *gha_state_create(const struct dialect_options *options)
{
    struct gha_state *st = calloc(1, sizeof(*st));
    const struct expr_value *run = gha_contexts(dialect_options_own(options, &dialect_gha));

    if (st && run && !(st->run = expr_copy(run))) {
        free(st);
        return NULL;
    }
    if (st)
        st->declared.file = -1;
    return st;
}

static void gha_state_destroy(void *state)
{
    struct gha_state *st = state;

    gha_calls_clear(st);
    for (size_t i = 0; i < st->n_files; i++)
        expr_unref(st->files[i]);
    free(st->files);
    gha_declared_clear(&st->declared);
    gha_gates_clear(st);
    expr_unref(st->run);
    free(st);
}


/* A top-level `jobs` mapping. */
static bool gha_detect(const struct stream_item *item, const struct dialect_probe *probe)
{
    (void)probe;
    return item->kind == STREAM_STEPS_START && !item->bare && strcmp(item->items_key, "jobs") == 0;
}

/* A file whose YAML breaks before `jobs:` is a workflow when it gave `on` before the break
 * (GitHub's required key, which no other dialect has), or lies where GitHub reads
 * workflows from: read as Buildkite (the first dialect), a `${{ }}` before the break was
 * its only message (Buildkite's interpolation refuses it), not the break. */
static bool gha_leans(const struct dialect_probe *probe)
{
    const char *path = dialect_probe_path(probe);
    const char *dir = path ? strstr(path, ".github/workflows/") : NULL;

    return dialect_probe_has_key(probe, "on") || (dir && (dir == path || dir[-1] == '/'));
}

/* Whether `on` (a name, a list of names or a mapping keyed by them) names `event`. */
static bool on_names(const struct ynode *on, const char *event)
{
    if (ynode_is_scalar(on))
        return ynode_scalar_is(on, event);
    for (size_t i = 0; i < ynode_len(on); i++) {
        if (ynode_scalar_is(ynode_is_seq(on) ? ynode_item(on, i) : ynode_key(on, i), event))
            return true;
    }
    return false;
}

/* The event a workflow's `on` makes clear for its jobs' names: `pull_request` when it
 * has it (diff is read in a pull request's review), else its one event; NULL for none. */
static char *gha_label_note(const struct ynode *top)
{
    const struct ynode *on = ynode_get(top, "on");
    const struct ynode *one = ynode_is_seq(on) ? ynode_item(on, 0) : ynode_is_map(on) ? ynode_key(on, 0) : on;

    if (!on)
        return NULL;
    if (on_names(on, "pull_request"))
        return strdup("pull_request");
    return (ynode_is_scalar(on) || ynode_len(on) == 1) && ynode_scalar(one, NULL) ? strdup(ynode_scalar(one, NULL))
                                                                                   : NULL;
}

/* A name's value, as GitHub shows it (EvaluateJobName), with what the rendering left
 * unknown taken from the event `note` (NULL: none): github.event_name, and an empty
 * `inputs` for an event other than a dispatch or a call (the inputs context holds only
 * theirs: docs "inputs context"; `inputs.x` reads empty on a push or pull request).
 * NULL when it does not fold to a text. */
static char *gha_label_value(const char *note, const char *text, size_t len)
{
    struct expr_contexts *known = expr_contexts_create();
    struct expr_value *github = note ? expr_object() : NULL;
    struct expr_result res = {0};
    struct expr_error err;
    char *out = NULL;
    bool ok = known != NULL && (!note || github);

    if (ok && note) {
        if (expr_object_set(github, "event_name", 10, expr_string(note, strlen(note))) != 0) {
            expr_unref(github);
            ok = false;
        }
        ok = ok && expr_contexts_set(known, "github", github) == 0; /* github is the contexts' */
        if (ok && strcmp(note, "workflow_dispatch") != 0 && strcmp(note, "workflow_call") != 0)
            ok = expr_contexts_set(known, "inputs", expr_object()) == 0;
    } else {
        expr_unref(github);
    }
    if (ok && expr_template_string(text, len, known, &res, &err) == 0 && res.value &&
        expr_kind_of(res.value) == EXPR_STRING)
        out = expr_to_string(res.value);
    expr_result_clear(&res);
    expr_contexts_destroy(known);
    return out;
}

static const char *const diff_labels[] = {"name", NULL};
static const char *const diff_machine[] = {"runs-on", NULL};
static const char *const diff_step_names[] = {"name", "id", "uses", "run", NULL};
static const char *const diff_step_commands[] = {"run", "uses", NULL};
static const struct dialect_default diff_defaults[] = {{"continue-on-error", "false"}, {NULL, NULL}};
static const char *const diff_configuration[] = {"strategy", NULL};

static const struct dialect_diff gha_diff = {
    .labels = diff_labels,
    .label_value = gha_label_value,
    .label_note = gha_label_note,
    .env = "env",
    .machine = diff_machine,
    .items = "steps",
    .item_names = diff_step_names,
    .item_commands = diff_step_commands,
    .defaults = diff_defaults,
    .configuration = diff_configuration,
    .identity_per_file = true,
};

const struct dialect dialect_gha = {
    .name = "gha",
    .description = "GitHub Actions workflow",
    .shape = gha_jobs_shape,
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
    .files_apart = true,
    .bad_reference = {RULE_UNKNOWN_NEEDS, true},
    .empty_refused = "GitHub refuses a workflow without a job (\"The workflow must contain at least one job "
                     "with no dependencies.\": WorkflowTemplateConverter.ConvertToJobs)",
    .empty_rule = RULE_WORKFLOW_REQUIRED, /* as a missing `jobs` is, the schema's */
    .max_jobs_per_document = 0,
    .max_jobs_total = 0,
    .open = gha_open,
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
    .leans = gha_leans,
    .diff = &gha_diff,
};
