#include "expand.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bkmatrix.h"
#include "bkscalar.h"
#include "buildkite.h"
#include "gate.h"
#include "placeholder.h"
#include "steplint.h"
#include "steps.h"

static int out_of_memory(const struct dialect_ctx *ctx, const struct ynode *at)
{
    diag_at(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files, ynode_pos(at), RULE_INTERNAL, "out of memory");
    return -1;
}

/* A step's jobs (a matrix's, parallelism's shards) share its nodes but are each rendered:
 * 400 bytes of one step with an alias of 81,000 nodes (the stream's bound for a step) and
 * `parallelism: 1000` rendered 1.6 GB. `copies` jobs of `step` counted against the bounds
 * of a step and of a run (DIALECT_CONFIG_NODES; a test area's steps, expanded with its
 * dialect's state, have the step's only). 0, or -1 after an error at `at`. */
static int copies_charge(const struct dialect_ctx *ctx, const struct ynode *at, const struct ynode *step,
                         size_t copies)
{
    struct bk_state *st = ctx->keys_checked ? NULL : ctx->state;
    size_t nodes = ynode_tree_size(step) * copies;

    if (nodes > DIALECT_CONFIG_NODES && nodes > dialect_copies_bound(ctx, DIALECT_CONFIG_NODES)) {
        diag_at(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files, ynode_pos(at), RULE_ALIAS_BUDGET,
                "the step's jobs render more than %llu nodes (%zu nodes, %zu times; an alias bomb?)",
                (unsigned long long)dialect_copies_bound(ctx, DIALECT_CONFIG_NODES), ynode_tree_size(step), copies);
        return -1;
    }
    if (st && !dialect_run_copies_charge(ctx, &st->copies, nodes)) {
        diag_at(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files, ynode_pos(at), RULE_ALIAS_BUDGET,
                "the steps' jobs render more than %llu nodes in the run (an alias bomb?)",
                (unsigned long long)st->copies.budget);
        return -1;
    }
    return 0;
}

/* Reads `parallelism` (at *at_out, -1 when absent): 0 when absent, -1 after an error,
 * else N in 1..1000. */
static long read_parallelism(const struct dialect_ctx *ctx, const struct ynode *step, enum bk_kind kind,
                             long *at_out)
{
    long at = *at_out = ynode_find(step, "parallelism", 11);
    struct ynode *v = at < 0 ? NULL : ynode_value(step, (size_t)at);
    long long n;
    char msg[320];

    if (at < 0)
        return 0;
    if (kind != BK_COMMAND && kind != BK_TRIGGER) {
        snprintf(msg, sizeof(msg), "parallelism is not allowed on a %s step", bk_kind_name(kind));
        diag_at(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files, ynode_pos(v ? v : step), RULE_PARALLELISM,
                "%s", msg);
        return -1;
    }
    /* as the agent sends it: yaml.v3's integer (`010` is 8, `0x2` 2) */
    if (!bk_scalar_int(v, &n) || n < 1 || n > EXPAND_MAX_PARALLELISM) {
        size_t len = 0;
        const char *t = ynode_scalar(v, &len);

        if (t)
            snprintf(msg, sizeof(msg), "parallelism must be an integer from 1 to %d, got %s'%.*s'",
                     EXPAND_MAX_PARALLELISM, ynode_is_string(v) ? "the string " : "", BK_SHORT(len), t);
        else
            snprintf(msg, sizeof(msg), "parallelism must be an integer from 1 to %d, got a %s",
                     EXPAND_MAX_PARALLELISM, ynode_is_map(v) ? "mapping" : "list");
        diag_at(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files, ynode_pos(v ? v : step), RULE_PARALLELISM,
                "%s", msg);
        return -1;
    }
    if (ynode_has(step, "matrix")) {
        diag_at(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files, ynode_pos(v), RULE_PARALLELISM,
                "matrix and parallelism cannot be combined on one step");
        return -1;
    }
    return (long)n;
}

/* A generated string from a fill's `text` (out->text, or NULL when out of memory), at
 * `pos`, its text freed; NULL when out of memory. */
static struct ynode *take_filled(struct ynode_doc *doc, struct ph_out *out, const char *text, struct ypos pos)
{
    struct ynode *n = text ? ynode_new_string(doc, text, out->len, pos) : NULL;

    ph_out_free(out);
    return n;
}

struct shard_place {
    unsigned index, count;
};

/* A scalar with the shard variables filled (ynode_rewrite_scalars). */
static struct ynode *fill_shard_vars(void *user, struct ynode_doc *doc, struct ynode *scalar)
{
    const struct shard_place *at = user;
    size_t len;
    const char *t = ynode_scalar(scalar, &len);
    struct ph_out out;
    char *filled = ph_vars_fill(t, len, at->index, at->count, &out);

    if (!filled && !errno) /* no variable: scanned once, not found first and then filled */
        return scalar;
    return take_filled(doc, &out, filled, scalar->pos);
}

/* Nodes every shard of a step shares, made once. */
struct shard_nodes {
    struct ynode *job_key, *count_key, *count;
};

static int shard_nodes_make(struct shard_nodes *t, struct ynode_doc *doc, unsigned count,
                            struct ypos pos)
{
    char num[PH_NUMBER_MAX];
    size_t n = ph_number(count, num);

    t->job_key = ynode_new_string(doc, "BUILDKITE_PARALLEL_JOB", 22, pos);
    t->count_key = ynode_new_string(doc, "BUILDKITE_PARALLEL_JOB_COUNT", 28, pos);
    t->count = ynode_new_string(doc, num, n, pos);
    return t->job_key && t->count_key && t->count ? 0 : -1;
}

/* Sets `key` (a shared key node) to `value` in mapping `env`. */
static int env_set(struct ynode_doc *doc, struct ynode *env, struct ynode *key, struct ynode *value)
{
    long i = ynode_find(env, key->u.scalar.text, key->u.scalar.len);

    if (!value)
        return -1;
    if (i >= 0) {
        ynode_set_value(env, (size_t)i, value);
        return 0;
    }
    return ynode_append_pair(doc, env, key, value);
}

/* The fields of a step its shards set, found once: a shard is a shallow copy, its
 * fields at the step's places (`*_at`: the index, -1 when the step has none). */
#define SHARD_TEXTS 4
static const char *const shard_texts[SHARD_TEXTS] = {"command", "commands", "env", "plugins"};
#define SHARD_ENV 2 /* shard_texts' */

struct shard_fields {
    const char *label;     /* bk_label_field's, or NULL */
    long label_at;
    const char *key;       /* the step's key field (bk_key_keys), or NULL */
    long key_at;
    long text_at[SHARD_TEXTS];
};

static void shard_fields_find(struct shard_fields *f, const struct ynode *step, enum bk_kind kind)
{
    /* the fields' places, the first of each, found in one pass over the step's keys
     * (seven lookups were a tenth of expanding a step): bk_key_keys' three, then
     * shard_texts' four, each told by its length first */
    enum { N_KEYS = 3, N_FIELDS = N_KEYS + SHARD_TEXTS };
    long at[N_FIELDS];
    size_t label_len;

    for (size_t i = 0; i < N_FIELDS; i++)
        at[i] = -1;
    f->label = bk_label_field(step, kind);
    f->label_at = -1;
    label_len = f->label ? strlen(f->label) : 0;
    for (size_t i = 0; i < ynode_len(step); i++) {
        const struct ynode *key = ynode_key(step, i);
        const char *t = key->u.scalar.text; /* a key is a scalar (ynode_find reads it so) */
        size_t len = key->u.scalar.len;
        int k = -1;

        switch (len) {
        case 2:
            k = memcmp(t, "id", 2) ? -1 : 1;
            break;
        case 3:
            k = !memcmp(t, "key", 3) ? 0 : !memcmp(t, "env", 3) ? N_KEYS + SHARD_ENV : -1;
            break;
        case 7:
            k = !memcmp(t, "command", 7) ? N_KEYS : !memcmp(t, "plugins", 7) ? N_KEYS + 3 : -1;
            break;
        case 8:
            k = memcmp(t, "commands", 8) ? -1 : N_KEYS + 1;
            break;
        case 10:
            k = memcmp(t, "identifier", 10) ? -1 : 2;
            break;
        default:
            break;
        }
        if (k >= 0 && at[k] < 0)
            at[k] = (long)i;
        if (f->label && f->label_at < 0 && len == label_len && !memcmp(t, f->label, len))
            f->label_at = (long)i;
    }
    f->key = NULL;
    f->key_at = -1;
    for (size_t k = 0; !f->key && k < N_KEYS; k++)
        if (at[k] >= 0)
            f->key = bk_key_keys[k], f->key_at = at[k];
    for (size_t i = 0; i < SHARD_TEXTS; i++)
        f->text_at[i] = at[N_KEYS + i];
}

/* Sets field `name` of `copy` (a shard) to `value`: at `at` when the step has it. 0, or
 * -1 when `value` is NULL (out of memory) or appending fails. */
static int set_at(struct ynode_doc *doc, struct ynode *copy, long at, const char *name, struct ynode *value)
{
    if (!value)
        return -1;
    if (at < 0)
        return ynode_set(doc, copy, name, value);
    ynode_set_value(copy, (size_t)at, value);
    return 0;
}

/* Gives `holder` (a mapping of the shard's own: the shard, or its `build`) an env of its
 * own with the shard variables of shard `index`; the input's env entries are shared.
 * `env_at`: where holder has its env, -1 to look it up. */
static int set_shard_env(struct ynode_doc *doc, struct ynode *holder, long env_at, const struct shard_nodes *t,
                         unsigned index, struct ypos pos)
{
    struct ynode *env = env_at >= 0 ? ynode_value(holder, (size_t)env_at) : ynode_get(holder, "env");
    char num[PH_NUMBER_MAX];
    size_t n = ph_number(index, num);

    env = env ? ynode_copy_shallow(doc, env) : ynode_new_map(doc, pos);
    if (!env || env_set(doc, env, t->job_key, ynode_new_string(doc, num, n, pos)) != 0 ||
        env_set(doc, env, t->count_key, t->count) != 0)
        return -1;
    return set_at(doc, holder, env_at, "env", env);
}

/* The mapping that holds a shard's env: the step, or `build` for a trigger. Reports
 * and returns false when the input gives `env` (or `build`) a type that cannot hold it. */
static bool env_holder_ok(const struct dialect_ctx *ctx, const struct ynode *step, enum bk_kind kind)
{
    const struct ynode *holder = kind == BK_TRIGGER ? ynode_get(step, "build") : step, *env;

    if (holder && !ynode_is_map(holder)) {
        diag_at(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files, ynode_pos(holder), RULE_TYPE,
                "build must be a mapping");
        return false;
    }
    env = ynode_get(holder, "env");
    if (env && !ynode_is_map(env)) {
        diag_at(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files, ynode_pos(env), RULE_TYPE,
                "env must be a mapping");
        return false;
    }
    return true;
}

/* Gives `job` (a copy of `step`) the key `<key>-<index>` when the step has a key
 * (field `keyname`, at `at`), and tells on_key. 0, or -1 when out of memory or on_key
 * stops. */
static int set_key_at(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *job,
                      const struct ynode *step, const char *keyname, long at, unsigned index)
{
    struct ynode *keynode = at >= 0 ? ynode_value(step, (size_t)at) : NULL;
    size_t len;
    const char *t = ynode_scalar(keynode, &len);
    struct ph_out out;
    char *text;

    if (!t)
        return 0;
    text = ph_shard_key(t, len, index, &out);
    if (text && ctx->on_key && ctx->on_key(ctx->user, text, out.len, 0, keynode->pos) != 0) {
        ph_out_free(&out);
        return -1;
    }
    return set_at(doc, job, at, keyname, take_filled(doc, &out, text, keynode->pos));
}

/* set_key_at with the step's key field looked up (a matrix job's). */
static int set_job_key(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *job,
                       const struct ynode *step, unsigned index)
{
    const char *keyname = ynode_get_any(step, bk_key_keys, NULL);

    return set_key_at(ctx, doc, job, step, keyname, keyname ? ynode_find(step, keyname, strlen(keyname)) : -1,
                      index);
}

/* Shard `index` of `count` of `step` (which has lost its parallelism): a shallow copy
 * with its own label, key, commands and env. NULL when out of memory or on_key stops. */
static struct ynode *make_shard(const struct dialect_ctx *ctx, struct ynode_doc *doc,
                                const struct ynode *step, enum bk_kind kind, unsigned index,
                                unsigned count, const struct shard_nodes *nodes, const struct shard_fields *f,
                                struct ypos ppos)
{
    struct ynode *shard = ynode_copy_shallow(doc, step), *holder, *labelnode;
    bool keyed = f->key_at >= 0 && ynode_is_scalar(ynode_value(step, (size_t)f->key_at));
    size_t len;
    const char *t;

    if (!shard)
        return NULL;
    /* Without a '%' the label is the same for every shard: keep the node (and when
     * only the key, not the label, is read of it). */
    labelnode = f->label_at >= 0 && !(ctx->labels_unread && keyed) ? ynode_value(step, (size_t)f->label_at) : NULL;
    if ((t = ynode_scalar(labelnode, &len)) != NULL && memchr(t, '%', len)) {
        struct ph_out out;
        char *label = ph_label_fill(t, len, index, count, &out);

        if (set_at(doc, shard, f->label_at, f->label, take_filled(doc, &out, label, labelnode->pos)) != 0)
            return NULL;
    }
    if (count > 1 && set_key_at(ctx, doc, shard, step, f->key, f->key_at, index) != 0)
        return NULL;
    if (!ctx->upload) {
        /* what the job runs, and what hands it a command (vLLM's AMD steps carry theirs in
         * env.VLLM_TEST_COMMANDS; a plugin's configuration) */
        struct shard_place at = {index, count};

        for (size_t i = 0; i < SHARD_TEXTS; i++) {
            struct ynode *value = f->text_at[i] >= 0 ? ynode_value(step, (size_t)f->text_at[i]) : NULL;
            struct ynode *filled = value ? ynode_rewrite_scalars(doc, value, fill_shard_vars, &at) : NULL;

            if (filled != value && set_at(doc, shard, f->text_at[i], shard_texts[i], filled) != 0)
                return NULL;
        }
    }
    holder = shard;
    if (kind == BK_TRIGGER) {
        struct ynode *build = ynode_get(step, "build");

        holder = build ? ynode_copy_shallow(doc, build) : ynode_new_map(doc, ppos);
        if (!holder || ynode_set(doc, shard, "build", holder) != 0)
            return NULL;
    }
    return set_shard_env(doc, holder, holder == shard ? f->text_at[SHARD_ENV] : -1, nodes, index, ppos) == 0
               ? shard : NULL;
}

/* Tells on_key about the step's own key (N for a step about to be sharded). */
static int define_key(const struct dialect_ctx *ctx, const struct ynode *step, unsigned shards)
{
    struct ynode *keynode;
    size_t len;
    const char *t;

    if (!ctx->on_key || !ynode_get_any(step, bk_key_keys, &keynode))
        return 0;
    t = ynode_scalar(keynode, &len);
    if (!t) {
        diag_at(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files, ynode_pos(keynode ? keynode : step),
                RULE_TYPE, "key must be a string");
        return -1;
    }
    return ctx->on_key(ctx->user, t, len, shards, keynode->pos);
}

/* A matrix error: at the token inside a scalar when there is one. */
static int matrix_error(const struct dialect_ctx *ctx, const struct bkm_error *err, const struct ynode *step)
{
    struct ypos p = ynode_text_pos(err->at, err->offset);

    if (!err->at)
        return out_of_memory(ctx, step);
    diag_at(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files, p, RULE_MATRIX, "%s", err->msg);
    return -1;
}

/* The job a matrix step makes for combination `combo`, one of `jobs`: a shallow copy
 * with the tokens filled, a matrix of its one combination, its adjustment's soft_fail;
 * and when there are several jobs, unless the label has a token, the combination after
 * the label. Its key is the caller's (set_job_key). NULL when out of memory. */
static struct ynode *make_matrix_job(struct ynode_doc *doc, const struct ynode *step, enum bk_kind kind,
                                     const struct bkm_matrix *m, size_t combo, size_t jobs)
{
    struct ynode *job = ynode_copy_shallow(doc, step), *label;
    const struct bkm_combination *c = bkm_combination(m, combo);
    const char *field = bk_label_field(step, kind);
    struct ynode_pair row[BKM_MAX_DIMENSIONS];
    char shown[BKM_MAX_DIMENSIONS * (BKM_MAX_ELEMENT_BYTES + 2) + 4];

    if (!job)
        return NULL;
    for (size_t k = 0; k < ynode_len(step); k++) {
        size_t len;
        const char *name = ynode_scalar(ynode_key(step, k), &len);
        struct ynode *value = ynode_value(step, k), *filled;

        if (!bkm_fills_field(name, len) || ynode_scalar_is(ynode_key(step, k), "matrix"))
            continue;
        if (!(filled = bkm_fill(m, combo, doc, value)))
            return NULL;
        ynode_set_value(job, k, filled);
    }
    if (ynode_set(doc, job, "matrix", bkm_job_matrix(m, combo, doc, ynode_pos(ynode_get(step, "matrix")))) != 0 ||
        (c->soft_fail && ynode_set(doc, job, "soft_fail", (struct ynode *)c->soft_fail) != 0))
        return NULL;
    if (jobs < 2)
        return job;
    label = field ? ynode_get(job, field) : NULL;
    if (label && label == ynode_get(step, field)) {
        size_t len, n = bkm_row_text(row, bkm_combination_row(m, combo, row), shown, sizeof(shown));
        const char *t = ynode_scalar(label, &len);
        char *text = malloc(len + n + 4);

        struct ynode *s;

        if (text)
            sprintf(text, "%s%s(%s)", t, len ? " " : "", shown);
        s = text ? ynode_new_string(doc, text, strlen(text), label->pos) : NULL;
        free(text);
        if (ynode_set(doc, job, field, s) != 0)
            return NULL;
    }
    return job;
}

/* Tells on_skipped about the job a skipped combination would have been. */
static int tell_skipped(const struct dialect_ctx *ctx, struct ynode_doc *doc, const struct ynode *step,
                        enum bk_kind kind, const struct bkm_matrix *m, size_t combo, size_t jobs)
{
    struct ynode *job;

    if (!ctx->on_skipped)
        return 0;
    if (!(job = make_matrix_job(doc, step, kind, m, combo, jobs)))
        return out_of_memory(ctx, step);
    return ctx->on_skipped(ctx->user, job, bkm_combination(m, combo)->skip) == 0 ? 0 : -1;
}

/* Replaces item *i of `steps`, a step with `matrix`, by its jobs; on return *i is the
 * index of the last of them (one before the step when it made none). */
static int expand_matrix(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *steps,
                         size_t *i, struct ynode *step, enum bk_kind kind)
{
    struct ynode *mnode = ynode_get(step, "matrix");
    struct bkm_error err;
    struct bkm_matrix *m = NULL;
    size_t jobs, made = 0;
    int rc = -1;

    if (kind != BK_COMMAND) {
        diag_at(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files, ynode_pos(mnode ? mnode : step), RULE_MATRIX,
                "matrix is allowed only on a command step");
        return -1;
    }
    if (!(m = bkm_read(mnode, &err)) || bkm_check_tokens(m, step, &err) != 0) {
        rc = matrix_error(ctx, &err, step);
        goto done;
    }
    steplint_unsharded(ctx, step, kind);
    jobs = bkm_jobs(m);
    if (ctx->limits && ctx->limits->jobs_per_step) {
        if (jobs > ctx->limits->jobs_per_step)
            diag_at(ctx->diag, DIAG_WARNING, DIAG_FINDING, ctx->files, ynode_pos(mnode), RULE_JOB_LIMIT,
                    "the matrix makes %zu jobs; the config's limits.jobs_per_step is %u", jobs,
                    ctx->limits->jobs_per_step);
    } else if (jobs > BKM_DEFAULT_JOBS) {
        diag_at(ctx->diag, DIAG_WARNING, DIAG_FINDING, ctx->files, ynode_pos(mnode), RULE_JOB_LIMIT,
                "the matrix makes %zu jobs; Buildkite's default quota is %d a step (an organisation "
                "can have it raised: the config's limits.jobs_per_step)", jobs, BKM_DEFAULT_JOBS);
    }
    if (!jobs) {
        struct ypos p = ynode_pos(mnode);

        diag_at(ctx->diag, DIAG_WARNING, DIAG_FINDING, ctx->files, p, RULE_MATRIX,
                "every combination of the matrix is skipped: the step runs no job");
        for (size_t c = 0; c < bkm_combinations(m); c++) {
            if (tell_skipped(ctx, doc, step, kind, m, c, 0) != 0)
                goto done;
        }
        ynode_remove_at(steps, *i);
        --*i; /* wraps below 0 for the first item: the caller's ++ brings it back */
        rc = 0;
        goto done;
    }
    if ((jobs > 1 && copies_charge(ctx, mnode, step, jobs) != 0) ||
        define_key(ctx, step, jobs > 1 ? (unsigned)jobs : 0) != 0)
        goto done;
    for (size_t c = 0; c < bkm_combinations(m); c++) {
        struct ynode *job;

        if (bkm_combination(m, c)->skipped) {
            if (tell_skipped(ctx, doc, step, kind, m, c, jobs) != 0)
                goto done;
            continue;
        }
        if (!(job = make_matrix_job(doc, step, kind, m, c, jobs)) ||
            (jobs > 1 && set_job_key(ctx, doc, job, step, (unsigned)made) != 0)) {
            rc = out_of_memory(ctx, step);
            goto done;
        }
        if (made == 0)
            ynode_set_item(steps, *i, job);
        else if (ynode_insert(doc, steps, *i + made, job) != 0) {
            rc = out_of_memory(ctx, step);
            goto done;
        }
        made++;
    }
    *i += made - 1;
    rc = 0;
done:
    bkm_destroy(m);
    return rc;
}

static int expand_in(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *steps,
                     bool in_group);

/* A step Buildkite makes no job for (its `if:` is false) still has its keys in the build
 * (docs: a job whose conditional is false is `broken`, and a step depending on it runs),
 * so references to them are no dangling ones. */
static int define_left_out(const struct dialect_ctx *ctx, const struct ynode *step)
{
    const struct ynode *children = ynode_get(step, "steps");

    if (define_key(ctx, step, 0) != 0)
        return -1;
    for (size_t i = 0; bk_step_kind(step) == BK_GROUP && ynode_is_seq(children) && i < ynode_len(children); i++) {
        if (ynode_is_map(ynode_item(children, i)) && define_left_out(ctx, ynode_item(children, i)) != 0)
            return -1;
    }
    return 0;
}

/* Expands item *i of `steps`; on return *i is the index of the last item it became. */
static int expand_one(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *steps,
                      size_t *i, bool in_group)
{
    struct ynode *step = ynode_item(steps, *i);
    enum bk_kind kind = bk_step_kind(step);
    struct shard_nodes nodes;
    struct shard_fields fields;
    struct ypos ppos;
    long n, at;

    if (kind == BK_INVALID) {
        diag_at(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files, ynode_pos(step), RULE_STEP_SHAPE, "%s",
                ynode_is_scalar(step) ? "a step written as a string must be wait, block or input"
                : "a step must be a mapping");
        return -1;
    }
    if (!ynode_is_map(step))
        return 0; /* "wait" and friends */
    if (kind == BK_UNKNOWN) {
        struct ypos p = ynode_pos(step);

        if (!steplint_type_typo(ctx, step))
            diag_at(ctx->diag, DIAG_WARNING, DIAG_FINDING, ctx->files, p, RULE_UNKNOWN_STEP,
                    "cannot tell the step type (no command, wait, block, "
                    "input, trigger or group key); it is kept as written");
    } else if (!ctx->keys_checked) {
        steplint_keys(ctx, step, kind);
    }
    if (ctx->change) {
        enum bk_gate gate;

        if (bk_gate_step(ctx, doc, step, kind, &gate) != 0)
            return out_of_memory(ctx, step);
        if (gate == BK_GATE_LEFT_OUT) {
            if (define_left_out(ctx, step) != 0)
                return -1;
            ynode_remove_at(steps, *i);
            --*i; /* wraps below 0 for the first item: the caller's ++ brings it back */
            return 0;
        }
    }
    if (kind == BK_GROUP) {
        struct ynode *children = ynode_get(step, "steps");

        if (in_group) {
            diag_at(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files, ynode_pos(step), RULE_GROUP,
                    "a group cannot contain another group");
            return -1;
        }
        if (!ynode_is_seq(children) || !ynode_len(children)) {
            diag_at(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files, ynode_pos(children ? children : step),
                    RULE_GROUP, "a group needs 'steps': a list of at least one step");
            return -1;
        }
        if (define_key(ctx, step, 0) != 0)
            return -1;
        return expand_in(ctx, doc, children, true);
    }
    n = read_parallelism(ctx, step, kind, &at);
    if (n < 0)
        return -1;
    if (n == 0 && ynode_has(step, "matrix"))
        return expand_matrix(ctx, doc, steps, i, step, kind);
    if (n == 0) {
        steplint_unsharded(ctx, step, kind);
        return define_key(ctx, step, 0);
    }
    if (!env_holder_ok(ctx, step, kind) || define_key(ctx, step, n > 1 ? (unsigned)n : 0) != 0)
        return -1;
    ppos = ynode_pos(ynode_value(step, (size_t)at));
    if (n > 1 && copies_charge(ctx, ynode_value(step, (size_t)at), step, (size_t)n) != 0)
        return -1;
    /* Gone from the step before the shards copy it. */
    ynode_remove_at(step, (size_t)at);
    if (shard_nodes_make(&nodes, doc, (unsigned)n, ppos) != 0)
        return out_of_memory(ctx, step);
    shard_fields_find(&fields, step, kind);
    /* The shards take the step's place: the first replaces it, the others follow. */
    for (long s = 0; s < n; s++) {
        struct ynode *shard = make_shard(ctx, doc, step, kind, (unsigned)s, (unsigned)n, &nodes, &fields, ppos);

        if (!shard)
            return out_of_memory(ctx, step);
        if (s == 0)
            ynode_set_item(steps, *i, shard);
        else if (ynode_insert(doc, steps, *i + (size_t)s, shard) != 0)
            return out_of_memory(ctx, step);
    }
    *i += (size_t)n - 1;
    return 0;
}

static int expand_in(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *steps,
                     bool in_group)
{
    for (size_t i = 0; i < ynode_len(steps); i++) {
        if (expand_one(ctx, doc, steps, &i, in_group) != 0)
            return -1;
    }
    return 0;
}

int expand_steps(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *steps)
{
    return expand_in(ctx, doc, steps, false);
}
