/* calls: a job that calls a local reusable workflow among the inputs becomes the called
 * workflow's jobs (docs/gha.md): the callee found and read, its inputs bound from the
 * call's `with`, its jobs expanded as the caller's own; and the run's state of what each
 * call became, for `needs: [caller]`. */
#define _GNU_SOURCE /* realpath, asprintf */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fanout/arrays.h"
#include "fanout/source.h"
#include "fanout/stream.h"

#include "gha_internal.h"
#include "matrix.h"

static void call_clear(struct call *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->jobs[i]);
    free(c->jobs);
    free(c->caller);
}

void gha_calls_clear(struct gha_state *st)
{
    for (size_t i = 0; i < st->n; i++)
        call_clear(&st->calls[i]);
    free(st->calls);
    for (size_t i = 0; i < GHA_CALLEES_KEPT; i++)
        ynode_doc_destroy(st->callees[i].doc);
}

struct call *gha_call_find(struct gha_state *st, unsigned file, const char *caller, size_t len)
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
    struct call *c = gha_call_find(st, file, caller, len);

    if (!c) {
        if (st->n == st->cap) {
            struct call *grown = array_grow(st->calls, &st->cap, st->n + 1, 8, sizeof(*grown));

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

/* The input that a local `uses: ./.github/workflows/X.yml` (or `$/...`) names: X.yml next to the
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
            gha_error_at(j, uses, RULE_REUSABLE_WORKFLOW, "%s does not exist: GitHub fails the run", path);
            rc = -1;
        } else if (found && S_ISDIR(st.st_mode)) {
            gha_error_at(j, uses, RULE_REUSABLE_WORKFLOW, "%s is a directory, not a workflow file", path);
            rc = -1;
        }
    }
    free(where);
    free(real);
    free(dir);
    return rc;
}

/* The called workflow's document (its own positions), or NULL after an error. It is read
 * through the run's source of that input, which checks every read against the others;
 * or taken from the run's state, where the last clean read of that file was kept
 * (pytorch/test-infra's workflows call the same few: reading each again for every call
 * was a third of rendering the real-world workflows). `*keep`: whether it may be kept
 * after the call (callee_done), its reading having reported nothing. */
static struct ynode_doc *read_callee(struct job *j, const struct ynode *uses, const char *path, long file,
                                     bool *keep)
{
    struct gha_state *state = j->ctx->state;
    struct stream *st;
    struct ynode_doc *doc = NULL;
    unsigned errors = diag_errors(j->ctx->diag);

    *keep = state != NULL;
    for (size_t i = 0; state && i < GHA_CALLEES_KEPT; i++) {
        if (state->callees[i].doc && state->callees[i].file == file) {
            /* taken while in use: a call in the callee's jobs cannot free it */
            doc = state->callees[i].doc;
            state->callees[i].doc = NULL;
            state->callees_bytes -= state->callees[i].bytes;
            return doc;
        }
    }
    if (j->ctx->heads) /* an input not read yet: its detection's read is left */
        dialect_head_drop(&j->ctx->heads[file]);
    /* read as a workflow is read (stream_shape: a block scalar the end cuts, `<<`) */
    st = stream_open_shaped(j->ctx->sources[file], (unsigned)file, gha_jobs_shape, j->ctx->diag);
    if (!st || stream_document(st, &doc) < 0)
        j->failed = 1;
    else if (!doc) /* an empty file, or only comments */
        gha_error_at(j, uses, RULE_REUSABLE_WORKFLOW, "%s is empty: no on.workflow_call and no jobs", path);
    stream_close(st);
    if (j->failed) {
        ynode_doc_destroy(doc);
        return NULL;
    }
    /* a read that reported anything reports it again at each call, as GitHub would */
    *keep = *keep && diag_errors(j->ctx->diag) == errors &&
            source_size_read(j->ctx->sources[file]) <= GHA_CALLEE_KEPT_BYTES;
    return doc;
}

/* A free slot if `free_ok` and there is one, else the kept callee called longest ago
 * (NULL: none is kept). */
static struct gha_callee *least_used(struct gha_state *state, bool free_ok)
{
    struct gha_callee *least = NULL;

    for (size_t i = 0; i < GHA_CALLEES_KEPT; i++) {
        struct gha_callee *c = &state->callees[i];

        if (!c->doc && free_ok)
            return c;
        if (c->doc && (!least || c->used < least->used))
            least = c;
    }
    return least;
}

static void callee_forget(struct gha_state *state, struct gha_callee *kept)
{
    if (!kept || !kept->doc)
        return;
    ynode_doc_destroy(kept->doc);
    state->callees_bytes -= kept->bytes;
    kept->doc = NULL;
}

/* The called document after its call: kept for the next call of `file` (in place of
 * the ones called longest ago), or freed. */
static void callee_done(struct job *j, long file, struct ynode_doc *doc, bool keep)
{
    struct gha_state *state = j->ctx->state;
    size_t bytes = (size_t)source_size_read(j->ctx->sources[file]);
    struct gha_callee *kept;

    if (!keep || !doc) {
        ynode_doc_destroy(doc);
        return;
    }
    while (state->callees_bytes && state->callees_bytes + bytes > GHA_CALLEES_KEPT_BYTES)
        callee_forget(state, least_used(state, false));
    kept = least_used(state, true);
    callee_forget(state, kept);
    *kept = (struct gha_callee){file, doc, ++state->calls_made, bytes};
    state->callees_bytes += bytes;
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
            gha_error_at(j, ynode_key(with, i), RULE_REUSABLE_WORKFLOW, "input '%s' is not defined in %s", k,
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
                gha_error_at(j, with ? with : id, RULE_REUSABLE_WORKFLOW,
                             "missing required input '%s' of %s", name, callee);
            continue;
        }
        if (gha_has_expression(v)) {
            int rc = gha_fold(j, v, &value, NULL);

            if (rc < 0)
                continue;
            if ((*unknown = rc == 0))
                break;
        } else if (!(value = expr_from_ynode(v))) {
            gha_out_of_memory(j, v);
            break;
        }
        kind = expr_kind_of(value);
        if (type && ((!strcmp(type, "boolean") && kind != EXPR_BOOL) ||
                     (!strcmp(type, "number") && kind != EXPR_NUMBER) ||
                     (!strcmp(type, "string") && (kind == EXPR_ARRAY || kind == EXPR_OBJECT)))) {
            gha_error_at(j, v, RULE_REUSABLE_WORKFLOW, "input '%s' of %s must be a %s", name, callee, type);
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
            gha_out_of_memory(j, v);
    }
    if (!inputs)
        gha_out_of_memory(j, id);
    if (j->failed || *unknown) {
        expr_unref(inputs);
        return NULL;
    }
    return inputs;
}

struct expr_value *gha_with_inputs(const struct expr_value *known, struct expr_value *inputs)
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

/* `<caller>-<name>`, or `<caller>-<name>-<index>` for configuration `index` of a call
 * with a matrix, at the caller's id: the called jobs' ids and their references to each
 * other belong to the caller's workflow (its job ids are checked together). */
static struct ynode *prefixed(struct job *j, const struct ynode *caller, const struct ynode *n, long index)
{
    char name[2 * GHA_NAME_MAX + 24];
    int len = index < 0 ? snprintf(name, sizeof(name), "%s-%s", ynode_scalar(caller, NULL), ynode_scalar(n, NULL))
                        : snprintf(name, sizeof(name), "%s-%s-%ld", ynode_scalar(caller, NULL),
                                   ynode_scalar(n, NULL), index);

    return ynode_new_string(j->doc, name, (size_t)(len < (int)sizeof(name) ? len : (int)sizeof(name) - 1),
                            ynode_pos(caller));
}

/* One configuration of a call: the caller's job with its matrix applied (named as GitHub
 * shows that configuration), and the contexts the called jobs expand with. */
struct configuration {
    struct ynode *caller;
    struct expr_value *contexts;
    long index; /* -1: the call has no matrix, or the one configuration it writes out */
};

/* The called job's own `if:` folded with the call's contexts (`sub`'s: its `inputs` are
 * the call's, which the caller's workflow does not have): 1 with *text what to write
 * (malloc'd; NULL when it has none or it is known true, which its implicit success()
 * says anyway), 0 after an error (reported). */
static int own_condition(struct job *sub, const struct ynode *cjob, char **text)
{
    const struct ynode *mine = ynode_get(cjob, "if");
    int rc;

    *text = NULL;
    if (!ynode_scalar(mine, NULL))
        return 1;
    if ((rc = gha_fold_if(sub, mine, text)) < 0)
        return 0;
    if (rc == 0 && !(*text = strdup("false"))) {
        gha_out_of_memory(sub, mine);
        return 0;
    }
    return 1;
}

/* A called workflow's job as one of the caller's: id `<caller>-<job>` (`-<index>` for a
 * configuration of the caller's matrix), its needs renamed and after the caller's, its
 * `if:` folded (own_condition) and the caller's with it, named `<caller> / <job>` as
 * GitHub shows it (`<caller> (<values>) / <job>` for a configuration). */
static struct ynode *inlined_job(struct job *j, const struct ynode *id, const struct configuration *c,
                                 const struct ynode *cid, const struct ynode *cjob, const char *mine)
{
    const struct ynode *caller = c->caller;
    const char *ctext = ynode_scalar(id, NULL);
    struct ynode *job = ynode_copy(j->doc, cjob), *needs = ynode_new_seq(j->doc, ynode_pos(cjob));
    const struct ynode *own = ynode_get(cjob, "needs"), *theirs = ynode_get(caller, "needs");
    const struct ynode *cond = ynode_get(caller, "if"), *name = ynode_get(cjob, "name");
    const char *caller_name = ynode_scalar(ynode_get(caller, "name"), NULL);
    char *text;
    int n, rc;

    if (!job || !needs || !ynode_is_map(job))
        return job;
    for (size_t i = 0; i < gha_needs_len(theirs); i++) {
        if (ynode_append(j->doc, needs, ynode_copy(j->doc, gha_needs_at(theirs, i))) != 0)
            return NULL;
    }
    for (size_t i = 0; i < gha_needs_len(own); i++) {
        const struct ynode *t = gha_needs_at(own, i);

        if (ynode_scalar(t, NULL) && ynode_append(j->doc, needs, prefixed(j, id, t, c->index)) != 0)
            return NULL;
    }
    if (ynode_len(needs) ? ynode_set(j->doc, job, "needs", needs) != 0 : (ynode_remove(job, "needs"), 0))
        return NULL;
    if (ynode_scalar(cond, NULL) || mine) {
        size_t cl = 0, base;
        bool formatted;
        struct expr_error err;
        char *ct = ynode_scalar(cond, NULL) ? gha_condition(cond, &cl, &base, &formatted, &err) : NULL;

        if (ynode_scalar(cond, NULL) && !ct)
            return NULL; /* the caller's if: was checked: out of memory */
        /* a condition has no length limit short of the file's */
        n = ct && mine ? asprintf(&text, "(%.*s) && (%s)", (int)cl, ct, mine)
            : ct       ? asprintf(&text, "%.*s", (int)cl, ct)
                       : asprintf(&text, "%s", mine);
        free(ct);
        if (n < 0)
            return NULL;
        rc = ynode_set(j->doc, job, "if", ynode_new_string(j->doc, text, (size_t)n, ynode_pos(ct ? cond : cjob)));
        free(text);
        if (rc != 0)
            return NULL;
    } else {
        ynode_remove(job, "if");
    }
    /* a written name has no length limit (GitHub cuts what it shows, JobNameBuilder) */
    n = asprintf(&text, "%s / %s", caller_name ? caller_name : ctext,
                 ynode_scalar(name, NULL) ? ynode_scalar(name, NULL) : ynode_scalar(cid, NULL));
    if (n < 0)
        return NULL;
    rc = ynode_set(j->doc, job, "name", ynode_new_string(j->doc, text, (size_t)n, ynode_pos(id)));
    free(text);
    return rc == 0 ? job : NULL;
}

/* A call of the caller's own repository: `./PATH`, or `$/PATH`, GitHub's self-repository
 * form, which resolves "exactly like `./`" (@actions/workflow-parser 0.3.61,
 * workflows/file-reference.ts parseFileReference; GitHub's changelog of 2026-07-30). */
static bool is_local(const char *path)
{
    return path && (!strncmp(path, "./", 2) || !strncmp(path, "$/", 2));
}

/* Which input a call names, checked: 1 with *file set; 0 when the call is kept as
 * written (a warning says why); -1 after an error. */
static int call_target(struct job *j, const struct ynode *id, const struct ynode *uses, const char *path,
                       long *file)
{
    if (!is_local(path)) {
        gha_warn_at(j, uses, RULE_REUSABLE_WORKFLOW, "not inlined: %s is not a local workflow", path ? path : "uses");
        return 0;
    }
    if ((*file = callee_file(j, id, path)) < 0) {
        if (callee_missing(j, id, uses, path) != 0)
            return -1;
        gha_warn_at(j, uses, RULE_REUSABLE_WORKFLOW, "not inlined: %s is not among the inputs' files", path);
        return 0;
    }
    if (j->depth >= GHA_CALL_DEPTH) {
        gha_error_at(j, uses, RULE_REUSABLE_WORKFLOW, "reusable workflows nest more than %d levels", GHA_CALL_DEPTH);
        return -1;
    }
    /* The workflow being read is the first of the chain (its job ids carry its file). */
    for (unsigned d = 0; d <= j->depth; d++) {
        if ((d < j->depth ? j->calling[d] : (long)ynode_pos(id).file) == *file) {
            gha_error_at(j, uses, RULE_REUSABLE_WORKFLOW, "%s calls itself (through the workflows it calls)", path);
            return -1;
        }
    }
    return 1;
}

/* The called workflow read and checked (a reusable workflow with jobs), with its `on`
 * and `jobs`; NULL after an error. `*keep` as read_callee says. */
static struct ynode_doc *open_callee(struct job *j, const struct ynode *uses, const char *path, long file,
                                     const struct ynode **on, const struct ynode **jobs, bool *keep)
{
    struct ynode_doc *callee = read_callee(j, uses, path, file, keep);

    if (!callee)
        return NULL;
    *on = ynode_get(ynode_doc_root(callee), "on");
    *jobs = ynode_get(ynode_doc_root(callee), "jobs");
    if (!gha_on_event(*on, "workflow_call"))
        gha_error_at(j, uses, RULE_REUSABLE_WORKFLOW, "%s is not a reusable workflow (it has no on.workflow_call)", path);
    else if (!ynode_is_map(*jobs) || ynode_len(*jobs) == 0)
        gha_error_at(j, uses, RULE_REUSABLE_WORKFLOW, "called workflow %s defines no jobs", path);
    if (j->failed) {
        ynode_doc_destroy(callee);
        return NULL;
    }
    return callee;
}

/* The call's `inputs` context: its fields substituted with the run's contexts and
 * `matrix` and `strategy` (taken), its `with` bound to the callee's declared inputs.
 * NULL after an error, or (with a note) when an input is only known at run time. */
static struct expr_value *call_inputs(struct job *j, const struct ynode *id, struct ynode *job,
                                      const struct ynode *uses, const struct ynode *on, const char *path,
                                      struct expr_value *matrix, struct expr_value *strategy)
{
    const struct ynode *with = ynode_get(job, "with"), *decl = ynode_get(ynode_get(on, "workflow_call"), "inputs");
    struct expr_value *inputs;
    bool unknown;

    /* bind_inputs reads both by name: a list's items would pass for names */
    if (with && !ynode_is_map(with) && !ynode_is_null(with))
        gha_error_at(j, with, RULE_REUSABLE_WORKFLOW, "with must be a mapping of input names to values");
    else if (decl && !ynode_is_map(decl) && !ynode_is_null(decl))
        gha_error_at(j, decl, RULE_REUSABLE_WORKFLOW, "on.workflow_call.inputs must be a mapping of input names");
    if (j->failed) {
        expr_unref(matrix);
        expr_unref(strategy);
        return NULL;
    }
    gha_substitute_job(j, job, matrix, strategy);
    inputs = j->failed ? NULL : bind_inputs(j, id, with, decl, path, &unknown);
    if (!inputs && !j->failed)
        diag_at(j->ctx->diag, DIAG_NOTE, DIAG_FINDING, j->ctx->files, ynode_pos(uses), RULE_REUSABLE_WORKFLOW,
                "not inlined: an input of %s depends on run-time values", path);
    return inputs;
}

/* The called workflow's `jobs` as the caller's own (inlined_job): each job once per
 * configuration (one after the other, so that a job's configurations are one fan-out),
 * expanded with that configuration's contexts, within the outermost call's budget of
 * jobs: a mapping of them, or NULL after an error (an error in a nested call was
 * reported there: this call fails with it, quietly). */
static struct ynode *called_jobs(struct job *j, const struct ynode *items, long file, const struct ynode *jobs,
                                 const struct configuration *cfg, size_t n_cfg)
{
    struct ynode *id = ynode_key(items, 0), *job = ynode_value(items, 0);
    const struct ynode *uses = ynode_get(job, "uses");
    struct ynode *out = ynode_new_map(j->doc, ynode_pos(items));
    struct job sub;
    unsigned budget = GHA_CALL_JOBS;

    memset(&sub, 0, sizeof(sub));
    sub.ctx = j->ctx;
    sub.doc = j->doc;
    sub.depth = j->depth + 1;
    memcpy(sub.calling, j->calling, sizeof(sub.calling));
    sub.calling[j->depth] = file;
    sub.budget = j->budget ? j->budget : &budget;
    sub.copied = j->copied;
    for (size_t i = 0; out && i < ynode_len(jobs) && !sub.failed; i++) {
        if (gha_copies_charge(j, uses, ynode_value(jobs, i), n_cfg) != 0)
            break;
        for (size_t c = 0; c < n_cfg && !sub.failed && !j->failed; c++) {
            struct ynode *one = ynode_new_map(j->doc, ynode_pos(id)), *cj = NULL;
            char *mine = NULL;

            sub.known = cfg[c].contexts;
            if (gha_job_contexts(&sub, ynode_value(jobs, i)) != 0 || !own_condition(&sub, ynode_value(jobs, i), &mine))
                break;
            cj = inlined_job(j, id, &cfg[c], ynode_key(jobs, i), ynode_value(jobs, i), mine);
            free(mine);
            if (!one || !cj ||
                ynode_append_pair(j->doc, one, prefixed(j, id, ynode_key(jobs, i), cfg[c].index), cj) != 0 ||
                gha_expand_job(&sub, one) != 0) {
                if (!sub.failed)
                    gha_out_of_memory(j, job);
                break;
            }
            if (ynode_len(one) > *sub.budget) {
                gha_error_at(j, uses, RULE_REUSABLE_WORKFLOW, "the call becomes more than %d jobs", GHA_CALL_JOBS);
                break;
            }
            *sub.budget -= (unsigned)ynode_len(one);
            for (size_t k = 0; k < ynode_len(one); k++) {
                if (ynode_append_pair(j->doc, out, ynode_key(one, k), ynode_value(one, k)) != 0)
                    gha_out_of_memory(j, job);
            }
        }
    }
    if (!out)
        gha_out_of_memory(j, job);
    j->failed |= sub.failed;
    expr_contexts_destroy(sub.contexts);
    return j->failed ? NULL : out;
}

/* The call's configurations (docs: "Using a matrix strategy with a reusable workflow"):
 * one without a matrix (or when it excludes every combination, as GitHub then runs the
 * job once with a null matrix), else one per configuration of the caller's matrix, each
 * the caller's job with its matrix substituted and named as JobNameBuilder names it.
 * 1 with *cfg (n of them) set, 0 when kept as written (a note says why), -1 after an
 * error. */
static int configurations(struct job *j, const struct ynode *id, struct ynode *job, const struct ynode *uses,
                          const struct ynode *on, const char *path, const struct gha_matrix *mx,
                          struct configuration **cfg, size_t *n)
{
    struct ynode *strategy = ynode_get(job, "strategy");
    const struct matrix rows = mx->known ? mx->rows : (struct matrix){NULL, 0};
    bool one = mx->known && mx->explicit;
    int rc = 1;

    if (mx->written && !mx->known) /* kept as written: gha.c's keep_unknown says why */
        return 0;
    *n = rows.n ? rows.n : 1;
    if (rows.n && gha_copies_charge(j, mx->written, job, rows.n) != 0)
        return -1;
    if (!(*cfg = calloc(*n, sizeof(**cfg)))) {
        gha_out_of_memory(j, job);
        rc = -1;
    }
    for (size_t k = 0; rc > 0 && k < *n; k++) {
        struct configuration *c = &(*cfg)[k];
        struct expr_value *inputs;

        c->index = rows.n && !one ? (long)k : -1;
        if (!(c->caller = rows.n ? ynode_copy(j->doc, job) : job)) {
            gha_out_of_memory(j, job);
            rc = -1;
            break;
        }
        inputs = call_inputs(j, id, c->caller, uses, on, path,
                             rows.n ? expr_ref(rows.rows[k].values) : expr_null(),
                             gha_strategy_value(strategy, rows.n ? k : 0, rows.n));
        if (!inputs || (rows.n && (!one || !ynode_get(job, "name")) &&
                        gha_set_name(j, c->caller, ynode_get(job, "name"), id, &rows.rows[k], true) != 0)) {
            expr_unref(inputs);
            rc = j->failed ? -1 : 0;
            break;
        }
        if (!(c->contexts = gha_with_inputs(j->known, inputs))) {
            gha_out_of_memory(j, job);
            rc = -1;
        }
    }
    return rc;
}

static void configurations_free(struct configuration *cfg, size_t n)
{
    for (size_t k = 0; cfg && k < n; k++)
        expr_unref(cfg[k].contexts);
    free(cfg);
}

/* A job that calls a local reusable workflow among the inputs becomes the called
 * workflow's jobs (docs/gha.md). 1: inlined into `items`; 0: kept as written (a note or
 * warning says why); -1: error. */
int gha_inline_call(struct job *j, struct ynode *items, const struct gha_matrix *mx)
{
    struct ynode *id = ynode_key(items, 0), *job = ynode_value(items, 0);
    struct ynode *uses = ynode_get(job, "uses"), *out;
    const char *path = ynode_scalar(uses, NULL), *caller = ynode_scalar(id, NULL);
    struct ynode_doc *callee;
    const struct ynode *on, *jobs;
    struct configuration *cfg = NULL;
    size_t n_cfg = 0;
    long file;
    bool keep;
    int rc = call_target(j, id, uses, path, &file);

    if (rc <= 0)
        return rc;
    if (!(callee = open_callee(j, uses, path, file, &on, &jobs, &keep)))
        return -1;
    if ((rc = configurations(j, id, job, uses, on, path, mx, &cfg, &n_cfg)) <= 0) {
        configurations_free(cfg, n_cfg);
        callee_done(j, file, callee, keep);
        return rc;
    }
    out = called_jobs(j, items, file, jobs, cfg, n_cfg);
    configurations_free(cfg, n_cfg);
    callee_done(j, file, callee, keep);
    if (!out)
        return -1;
    if (call_record(j->ctx->state, ynode_pos(id).file, caller, strlen(caller), out) != 0) {
        gha_out_of_memory(j, job);
        return -1;
    }
    /* `needs: [caller]` names all of them: the state holds their names */
    if (j->ctx->on_key &&
        j->ctx->on_key(j->ctx->user, caller, strlen(caller), (unsigned)ynode_len(out), ynode_pos(id)) != 0)
        return -1;
    ynode_take_children(items, out);
    return 1;
}
