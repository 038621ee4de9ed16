#include "fanout/expand.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/buildkite.h"
#include "fanout/placeholder.h"

#define SHORT(len) ((int)((len) > 80 ? 80 : (len)))

static void input_error(const struct expand_ctx *ctx, struct fy_node *at, const char *rule,
                        const char *msg)
{
    struct ypos p = ynode_pos(at);

    diag_report(ctx->diag, DIAG_ERROR, DIAG_INPUT, ctx->files[p.file], p.line, p.col, rule, "%s", msg);
}

static int out_of_memory(const struct expand_ctx *ctx, struct fy_node *at)
{
    input_error(ctx, at, "internal", "out of memory");
    return -1;
}

/* Reads `parallelism`: 0 when absent, -1 after an error, else N in 1..1000. */
static long read_parallelism(const struct expand_ctx *ctx, struct fy_node *step, enum bk_kind kind)
{
    struct fy_node *v = ynode_get(step, "parallelism");
    long long n;
    char msg[320];

    if (!ynode_pair(step, "parallelism"))
        return 0;
    if (kind != BK_COMMAND && kind != BK_TRIGGER) {
        snprintf(msg, sizeof(msg), "parallelism is not allowed on a %s step", bk_kind_name(kind));
        input_error(ctx, v ? v : step, "parallelism", msg);
        return -1;
    }
    if (!ynode_int(v, &n) || n < 1 || n > EXPAND_MAX_PARALLELISM) {
        size_t len = 0;
        const char *t = ynode_scalar(v, &len);

        if (t)
            snprintf(msg, sizeof(msg), "parallelism must be an integer from 1 to %d, got %s'%.*s'%s",
                     EXPAND_MAX_PARALLELISM, ynode_is_string(v) ? "the string " : "", SHORT(len), t,
                     ynode_int_hint(v));
        else
            snprintf(msg, sizeof(msg), "parallelism must be an integer from 1 to %d, got a %s",
                     EXPAND_MAX_PARALLELISM, fy_node_is_mapping(v) ? "mapping" : "list");
        input_error(ctx, v, "parallelism", msg);
        return -1;
    }
    if (ynode_get(step, "matrix")) {
        input_error(ctx, v, "parallelism", "matrix and parallelism cannot be combined on one step");
        return -1;
    }
    return (long)n;
}

static void warn_unknown_keys(const struct expand_ctx *ctx, struct fy_node *step, enum bk_kind kind)
{
    struct fy_node_pair *p;
    void *it = NULL;

    while ((p = fy_node_mapping_iterate(step, &it)) != NULL) {
        size_t len;
        const char *k = ynode_scalar(fy_node_pair_key(p), &len);
        struct ypos pos = ynode_pos(fy_node_pair_key(p));

        /* A misplaced parallelism gets its own error from read_parallelism. */
        if (!k || bk_known_key(kind, k, len) || (len == 11 && !memcmp(k, "parallelism", 11)))
            continue;
        if (ctx->warned && strset_add(ctx->warned, k, len) != 0)
            continue;
        diag_report(ctx->diag, DIAG_WARNING, DIAG_FINDING, ctx->files[pos.file], pos.line, pos.col,
                    "unknown-key", "unknown key '%.*s' in a %s step%s", SHORT(len), k,
                    bk_kind_name(kind), ctx->warned ? " (reported once per file)" : "");
    }
}

/* The label node of a step, whichever alias it uses. */
static struct fy_node *label_of(struct fy_node *step, enum bk_kind kind)
{
    struct fy_node *v = NULL;

    if (kind == BK_BLOCK || kind == BK_INPUT) {
        v = ynode_get(step, kind == BK_BLOCK ? "block" : "input");
        if (v && fy_node_is_scalar(v))
            return v;
    }
    if (kind == BK_GROUP && (v = ynode_get(step, "group")) && fy_node_is_scalar(v))
        return v;
    ynode_get_any(step, bk_label_keys, &v);
    return v && fy_node_is_scalar(v) ? v : NULL;
}

static int check_placeholders(const struct expand_ctx *ctx, struct fy_node *step, enum bk_kind kind)
{
    struct fy_node *label = label_of(step, kind);
    size_t len;
    const char *t = ynode_scalar(label, &len);
    long at;
    struct ypos pos;

    if (!t || ctx->allow_placeholders || (at = ph_label_find(t, len)) < 0)
        return 0;
    pos = ynode_pos(label);
    /* Point at the placeholder itself when the label is on one line as written. */
    if (fy_node_get_style(label) == FYNS_PLAIN)
        pos.col += (unsigned)at;
    else if (fy_node_get_style(label) == FYNS_SINGLE_QUOTED || fy_node_get_style(label) == FYNS_DOUBLE_QUOTED)
        pos.col += (unsigned)at + 1;
    diag_report(ctx->diag, DIAG_ERROR, DIAG_FINDING, ctx->files[pos.file], pos.line, pos.col, "placeholder",
                "label placeholder '%%%c' in a step without parallelism (Buildkite shows it as "
                "written; use --allow-placeholders to accept)", t[at + 1]);
    return 0;
}

/* Replaces scalar `n`, a value in `parent` (a mapping) or an item of it (a sequence),
 * by a generated string. The parent is passed in: libfyaml does not set it on a value
 * that fy_node_pair_set_value put in. */
static int replace_scalar(struct fy_node *parent, struct fy_node *n, const char *text, size_t len)
{
    struct fy_document *fyd = fy_node_document(n);
    struct fy_node *fresh = ynode_string(fyd, text, len, ynode_pos(n));

    if (!fresh)
        return -1;
    if (fy_node_is_sequence(parent)) {
        if (fy_node_sequence_insert_after(parent, n, fresh) != 0) {
            fy_node_free(fresh);
            return -1;
        }
        fy_node_sequence_remove(parent, n);
        fy_node_free(n);
        return 0;
    }
    {
        void *it = NULL;
        struct fy_node_pair *p;

        while ((p = fy_node_mapping_iterate(parent, &it)) != NULL) {
            if (fy_node_pair_value(p) == n) {
                /* set_value frees the old value `n`. */
                if (fy_node_pair_set_value(p, fresh) != 0) {
                    fy_node_free(fresh);
                    return -1;
                }
                return 0;
            }
        }
    }
    fy_node_free(fresh);
    return -1;
}

/* Fills the shard variables in a command string, or in each string of a command list. */
static int fill_command(struct fy_node *parent, struct fy_node *cmd, unsigned index, unsigned count)
{
    size_t len, out_len;
    const char *t;
    char *filled;
    int rc = 0;

    if (cmd && fy_node_is_sequence(cmd)) {
        size_t n;
        struct fy_node **items = ynode_items(cmd, &n);

        for (size_t i = 0; i < n && rc == 0; i++)
            rc = fill_command(cmd, items[i], index, count);
        free(items);
        return rc;
    }
    t = ynode_scalar(cmd, &len);
    if (!t || !(filled = ph_vars_fill(t, len, index, count, &out_len)))
        return 0;
    rc = replace_scalar(parent, cmd, filled, out_len);
    free(filled);
    return rc;
}

/* Nodes every shard of a step shares, made once: creating a scalar costs libfyaml an
 * input and a scan of the text, copying one only a reference. */
struct shard_nodes {
    struct fy_node *job_key, *count_key, *count;
};

static void shard_nodes_free(struct shard_nodes *t)
{
    fy_node_free(t->job_key);
    fy_node_free(t->count_key);
    fy_node_free(t->count);
}

static int shard_nodes_make(struct shard_nodes *t, struct fy_document *fyd, unsigned count,
                            struct ypos pos)
{
    char num[16];
    int n = snprintf(num, sizeof(num), "%u", count);

    t->job_key = ynode_string(fyd, "BUILDKITE_PARALLEL_JOB", 22, pos);
    t->count_key = ynode_string(fyd, "BUILDKITE_PARALLEL_JOB_COUNT", 28, pos);
    t->count = ynode_string(fyd, num, (size_t)n, pos);
    return t->job_key && t->count_key && t->count ? 0 : -1;
}

/* Sets the shard variables of shard `index` in mapping `env`. */
static int set_shard_env(struct fy_node *env, const struct shard_nodes *t, unsigned index,
                         struct ypos pos)
{
    struct fy_document *fyd = fy_node_document(env);
    char num[16];
    int n = snprintf(num, sizeof(num), "%u", index);

    if (ynode_set_node(env, ynode_copy(fyd, t->job_key), ynode_string(fyd, num, (size_t)n, pos)) != 0)
        return -1;
    return ynode_set_node(env, ynode_copy(fyd, t->count_key), ynode_copy(fyd, t->count));
}

/* The mapping that holds a shard's env: the step, or `build` for a trigger. Reports
 * and returns false when the input gives `env` (or `build`) a type that cannot hold it. */
static bool env_holder_ok(const struct expand_ctx *ctx, struct fy_node *step, enum bk_kind kind)
{
    struct fy_node *holder = kind == BK_TRIGGER ? ynode_get(step, "build") : step, *env;

    if (holder && !fy_node_is_mapping(holder)) {
        input_error(ctx, holder, "type", "build must be a mapping");
        return false;
    }
    env = ynode_get(holder, "env");
    if (env && !fy_node_is_mapping(env)) {
        input_error(ctx, env, "type", "env must be a mapping");
        return false;
    }
    return true;
}

/* The value of `key` in `map`, created as an empty mapping when absent. */
static struct fy_node *child_mapping(struct fy_node *map, const char *key, struct ypos pos)
{
    struct fy_node *m = ynode_get(map, key);

    if (m)
        return m;
    m = fy_node_create_mapping(fy_node_document(map));
    if (!m)
        return NULL;
    ynode_set_pos(m, pos);
    return ynode_set(map, key, m) == 0 ? m : NULL;
}

/* Turns the copy `shard` into shard `index` of `count`. */
static int make_shard(const struct expand_ctx *ctx, struct fy_node *shard, enum bk_kind kind,
                      unsigned index, unsigned count, const struct shard_nodes *nodes,
                      struct ypos ppos)
{
    struct fy_node *label = label_of(shard, kind), *keynode = NULL, *env;
    const char *keyname = ynode_get_any(shard, bk_key_keys, &keynode);
    size_t len, out_len;
    const char *t;
    char *text;

    /* Without a '%' the label is the same for every shard: keep the node. */
    if ((t = ynode_scalar(label, &len)) != NULL && memchr(t, '%', len)) {
        if (!(text = ph_label_fill(t, len, index, count, &out_len)))
            return -1;
        if (replace_scalar(shard, label, text, out_len) != 0) {
            free(text);
            return -1;
        }
        free(text);
    }
    if (keyname && count > 1 && (t = ynode_scalar(keynode, &len)) != NULL) {
        if (!(text = ph_shard_key(t, len, index, &out_len)))
            return -1;
        if (ctx->on_key && ctx->on_key(ctx->user, text, out_len, 0, ynode_pos(keynode)) != 0) {
            free(text);
            return -1;
        }
        if (replace_scalar(shard, keynode, text, out_len) != 0) {
            free(text);
            return -1;
        }
        free(text);
    }
    if (!ctx->upload && (fill_command(shard, ynode_get(shard, "command"), index, count) != 0 ||
                         fill_command(shard, ynode_get(shard, "commands"), index, count) != 0))
        return -1;
    env = kind == BK_TRIGGER ? child_mapping(shard, "build", ppos) : shard;
    env = env ? child_mapping(env, "env", ppos) : NULL;
    if (!env)
        return -1;
    return set_shard_env(env, nodes, index, ppos);
}

/* Tells on_key about the step's own key (N for a step about to be sharded). */
static int define_key(const struct expand_ctx *ctx, struct fy_node *step, unsigned shards)
{
    struct fy_node *keynode;
    size_t len;
    const char *t;

    if (!ctx->on_key || !ynode_get_any(step, bk_key_keys, &keynode))
        return 0;
    t = ynode_scalar(keynode, &len);
    if (!t) {
        input_error(ctx, keynode, "type", "key must be a string");
        return -1;
    }
    return ctx->on_key(ctx->user, t, len, shards, ynode_pos(keynode));
}

static int expand_in(const struct expand_ctx *ctx, struct fy_node *steps, bool in_group);

/* Expands one step of `steps`; shards are inserted before it and it is removed. */
static int expand_one(const struct expand_ctx *ctx, struct fy_node *steps, struct fy_node *step,
                      bool in_group)
{
    enum bk_kind kind = bk_step_kind(step);
    long n;

    if (kind == BK_INVALID) {
        input_error(ctx, step, "step-shape",
                    fy_node_is_scalar(step)
                        ? "a step written as a string must be wait, block or input"
                        : "a step must be a mapping");
        return -1;
    }
    if (!fy_node_is_mapping(step))
        return 0; /* "wait" and friends */
    if (kind == BK_UNKNOWN) {
        struct ypos p = ynode_pos(step);

        diag_report(ctx->diag, DIAG_WARNING, DIAG_FINDING, ctx->files[p.file], p.line, p.col,
                    "unknown-step", "cannot tell the step type (no command, wait, block, "
                    "input, trigger or group key); it is kept as written");
    } else if (ctx->check_keys) {
        warn_unknown_keys(ctx, step, kind);
    }
    if (kind == BK_GROUP) {
        struct fy_node *children = ynode_get(step, "steps");

        if (in_group) {
            input_error(ctx, step, "group", "a group cannot contain another group");
            return -1;
        }
        if (!children || !fy_node_is_sequence(children) || fy_node_sequence_is_empty(children)) {
            input_error(ctx, children ? children : step, "group",
                        "a group needs 'steps': a list of at least one step");
            return -1;
        }
        if (define_key(ctx, step, 0) != 0)
            return -1;
        return expand_in(ctx, children, true);
    }
    n = read_parallelism(ctx, step, kind);
    if (n < 0)
        return -1;
    if (n == 0) {
        check_placeholders(ctx, step, kind);
        return define_key(ctx, step, 0);
    }
    if (!env_holder_ok(ctx, step, kind) || define_key(ctx, step, n > 1 ? (unsigned)n : 0) != 0)
        return -1;
    {
        struct ypos ppos = ynode_pos(ynode_get(step, "parallelism"));
        struct shard_nodes nodes = {NULL, NULL, NULL};
        int rc = shard_nodes_make(&nodes, fy_node_document(step), (unsigned)n, ppos);

        /* Gone from the step before it is copied, so from every shard at once. */
        ynode_remove(step, "parallelism");

        /* One shard is the step itself, changed in place; more are copies of it. */
        for (long i = 0; rc == 0 && n > 1 && i < n; i++) {
            struct fy_node *shard = ynode_copy(fy_node_document(step), step);

            if (!shard || fy_node_sequence_insert_before(steps, step, shard) != 0) {
                fy_node_free(shard);
                rc = -1;
            } else {
                rc = make_shard(ctx, shard, kind, (unsigned)i, (unsigned)n, &nodes, ppos);
            }
        }
        if (rc == 0 && n == 1)
            rc = make_shard(ctx, step, kind, 0, 1, &nodes, ppos);
        shard_nodes_free(&nodes);
        if (rc != 0)
            return out_of_memory(ctx, step);
    }
    if (n > 1) {
        fy_node_sequence_remove(steps, step);
        fy_node_free(step);
    }
    return 0;
}

static int expand_in(const struct expand_ctx *ctx, struct fy_node *steps, bool in_group)
{
    size_t n;
    struct fy_node **items = ynode_items(steps, &n);
    int rc = 0;

    if (!items && fy_node_sequence_item_count(steps) > 0)
        return out_of_memory(ctx, steps);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = expand_one(ctx, steps, items[i], in_group);
    free(items);
    return rc;
}

int expand_steps(const struct expand_ctx *ctx, struct fy_node *steps)
{
    return expand_in(ctx, steps, false);
}
