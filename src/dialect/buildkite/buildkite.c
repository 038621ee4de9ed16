#include "fanout/buildkite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/bkinterp.h"
#include "bkmatrix.h"
#include "fanout/dialect.h"
#include "fanout/suggest.h"
#include "fanout/ynode.h"

const char *const bk_label_keys[] = {"label", "name", NULL};
const char *const bk_key_keys[] = {"key", "id", "identifier", NULL};

/* A key name with its length: the lists are searched for every key of every step. */
struct key {
    const char *name;
    size_t len;
};

#define K(s) {s, sizeof(s) - 1}

static const struct key common_keys[] = {
    K("key"), K("id"), K("identifier"), K("depends_on"), K("allow_dependency_failure"),
    K("if"), K("branches"), K("label"), K("name"), K("type"), K("if_changed"), {NULL, 0}};
static const struct key command_keys[] = {
    K("command"), K("commands"), K("agents"), K("agent_query_rules"), K("env"),
    K("plugins"), K("artifact_paths"), K("artifacts"), K("parallelism"), K("matrix"),
    K("skip"), K("soft_fail"), K("retry"), K("timeout_in_minutes"), K("timeout"),
    K("priority"), K("concurrency"), K("concurrency_group"), K("concurrency_method"),
    K("cancel_on_build_failing"), K("notify"), K("secrets"), K("cache"), K("checkout"),
    K("image"), K("signature"), {NULL, 0}};
static const struct key wait_keys[] = {
    K("wait"), K("waiter"), K("continue_on_failure"), {NULL, 0}};
static const struct key block_keys[] = {
    K("block"), K("input"), K("manual"), K("prompt"), K("fields"), K("blocked_state"),
    K("allowed_teams"), {NULL, 0}};
static const struct key trigger_keys[] = {
    K("trigger"), K("build"), K("async"), K("skip"), K("soft_fail"), K("parallelism"),
    {NULL, 0}};
static const struct key group_keys[] = {
    K("group"), K("steps"), K("notify"), K("skip"), {NULL, 0}};

static bool in_list(const struct key *list, const char *key, size_t len)
{
    for (; list->name; list++) {
        if (list->len == len && memcmp(list->name, key, len) == 0)
            return true;
    }
    return false;
}

static bool has(const struct ynode *step, const char *key)
{
    return ynode_has(step, key);
}

static enum bk_kind kind_from_type(const struct ynode *type)
{
    static const struct {
        const char *name;
        enum bk_kind kind;
    } types[] = {
        {"command", BK_COMMAND}, {"script", BK_COMMAND}, {"wait", BK_WAIT},
        {"waiter", BK_WAIT},     {"block", BK_BLOCK},    {"manual", BK_BLOCK},
        {"input", BK_INPUT},     {"trigger", BK_TRIGGER}, {"group", BK_GROUP},
    };

    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if (ynode_scalar_is(type, types[i].name))
            return types[i].kind;
    }
    return BK_UNKNOWN;
}

enum bk_kind bk_step_kind(const struct ynode *step)
{
    if (!step)
        return BK_INVALID;
    if (ynode_is_scalar(step)) {
        if (ynode_scalar_is(step, "wait") || ynode_scalar_is(step, "waiter"))
            return BK_WAIT;
        if (ynode_scalar_is(step, "block") || ynode_scalar_is(step, "manual"))
            return BK_BLOCK;
        if (ynode_scalar_is(step, "input"))
            return BK_INPUT;
        return BK_INVALID;
    }
    if (!ynode_is_map(step))
        return BK_INVALID;
    if (has(step, "type"))
        return kind_from_type(ynode_get(step, "type"));
    if (has(step, "command") || has(step, "commands") || has(step, "plugins"))
        return BK_COMMAND;
    if (has(step, "wait") || has(step, "waiter"))
        return BK_WAIT;
    if (has(step, "block") || has(step, "manual"))
        return BK_BLOCK;
    if (has(step, "input"))
        return BK_INPUT;
    if (has(step, "trigger"))
        return BK_TRIGGER;
    if (has(step, "group"))
        return BK_GROUP;
    return BK_UNKNOWN;
}

const char *bk_kind_name(enum bk_kind kind)
{
    switch (kind) {
    case BK_COMMAND:
        return "command";
    case BK_WAIT:
        return "wait";
    case BK_BLOCK:
        return "block";
    case BK_INPUT:
        return "input";
    case BK_TRIGGER:
        return "trigger";
    case BK_GROUP:
        return "group";
    case BK_UNKNOWN:
        return "unknown";
    case BK_INVALID:
        break;
    }
    return "invalid";
}

/* The keys of a step type's list, into names (NULL-terminated); their number. */
static size_t list_names(const struct key *list, const char **names, size_t n)
{
    for (; list->name; list++)
        names[n++] = list->name;
    names[n] = NULL;
    return n;
}

/* The keys a step type has besides the common ones; NULL for none (unknown, invalid). */
static const struct key *kind_keys(enum bk_kind kind)
{
    switch (kind) {
    case BK_COMMAND:
        return command_keys;
    case BK_WAIT:
        return wait_keys;
    case BK_BLOCK:
    case BK_INPUT:
        return block_keys;
    case BK_TRIGGER:
        return trigger_keys;
    case BK_GROUP:
        return group_keys;
    case BK_UNKNOWN:
    case BK_INVALID:
        break;
    }
    return NULL;
}

const char *bk_key_suggest(enum bk_kind kind, const char *key, size_t len)
{
    const char *names[96];
    size_t n = list_names(common_keys, names, 0);

    if (kind_keys(kind))
        list_names(kind_keys(kind), names, n);
    return suggest_closest(key, len, names, suggest_limit(len));
}

bool bk_known_key(enum bk_kind kind, const char *key, size_t len)
{
    return in_list(common_keys, key, len) || (kind_keys(kind) && in_list(kind_keys(kind), key, len));
}

int bk_expand(const struct expand_ctx *ctx, struct ynode_doc *doc, struct ynode *steps)
{
    struct expand_ctx own = *ctx;

    own.check_keys = true;
    return expand_steps(&own, doc, steps);
}

static unsigned env_number(const struct ynode *step, const char *name, bool *present)
{
    size_t len;
    const char *t = ynode_scalar(ynode_get(ynode_get(step, "env"), name), &len);
    char buf[16];

    *present = t && len > 0 && len < sizeof(buf);
    if (!*present)
        return 0;
    memcpy(buf, t, len);
    buf[len] = '\0';
    return (unsigned)strtoul(buf, NULL, 10);
}

/* A step's place in its fan-out, from the shard env a rendering gives each shard:
 * `part` of `parts`, or 0 of 1 for a step that is no shard. */
static bool shard_of(const struct ynode *step, unsigned *part, unsigned *parts)
{
    bool has_job, has_count;
    unsigned job = env_number(step, "BUILDKITE_PARALLEL_JOB", &has_job);
    unsigned count = env_number(step, "BUILDKITE_PARALLEL_JOB_COUNT", &has_count);
    bool shard = has_job && has_count && count > 1 && job < count;

    *part = shard ? job : 0;
    *parts = shard ? count : 1;
    return shard;
}

/* A step's identity: its key without the shard or matrix suffix, else its label (a
 * matrix job's without the combination it shows, `shown`), else its type; and which
 * shard of how many it is (0 of 1 when not a shard of a keyed step). `part` of `parts`
 * is its place in its fan-out (shard_of); a matrix job's part is its key's index. */
static const char *identify(const struct ynode *step, unsigned *part, unsigned parts, const char *shown,
                            size_t *len, unsigned *shard, unsigned *shards)
{
    struct ynode *keynode = NULL, *label = NULL;
    const char *t;

    *shard = 0;
    *shards = 1;
    ynode_get_any(step, bk_key_keys, &keynode);
    if ((t = ynode_scalar(keynode, len)) != NULL) {
        char suffix[16];
        int sl;
        size_t base;
        long index;

        if (shown && (index = dialect_key_index(t, *len, &base)) >= 0) {
            *len = base;
            *part = *shard = (unsigned)index;
            *shards = (unsigned)index + 1;
            return t;
        }
        if (parts <= 1)
            return t;
        sl = snprintf(suffix, sizeof(suffix), "-%u", *part);
        if (*len > (size_t)sl && !memcmp(t + *len - sl, suffix, (size_t)sl)) {
            *len -= (size_t)sl;
            *shard = *part;
            *shards = parts;
        }
        return t;
    }
    ynode_get_any(step, bk_label_keys, &label);
    if ((t = ynode_scalar(label, len)) != NULL) {
        size_t sl = shown ? strlen(shown) : 0;

        /* "<label> (linux, amd64)" */
        if (sl && *len > sl + 3 && t[*len - 1] == ')' && !memcmp(t + *len - sl - 1, shown, sl) &&
            !memcmp(t + *len - sl - 3, " (", 2))
            *len -= sl + 3;
        return t;
    }
    if ((t = ynode_scalar(step, len)) != NULL)
        return t;
    t = bk_kind_name(bk_step_kind(step));
    *len = strlen(t);
    return t;
}

int bk_rewrite(const struct expand_ctx *ctx, struct ynode_doc *doc, struct ynode *steps,
               depends_shards_fn shards_of, void *user)
{
    (void)ctx;
    return depends_rewrite(doc, steps, shards_of, user);
}

long bk_each_job(const struct ynode *steps, dialect_job_fn fn, void *user)
{
    long jobs = 0;

    for (size_t i = 0; i < ynode_len(steps); i++) {
        const struct ynode *step = ynode_item(steps, i);
        const struct ynode *children = ynode_get(step, "steps");
        struct dialect_job job = {.node = step, .parts = 1, .pos = ynode_pos(step)};
        long n = 1;

        if (bk_step_kind(step) == BK_GROUP && ynode_is_seq(children)) {
            n = bk_each_job(children, fn, user);
        } else if (fn) {
            struct ynode_pair pairs[BKM_MAX_DIMENSIONS];
            struct ynode row = {.kind = YNODE_MAP, .u.map = {pairs, 0, BKM_MAX_DIMENSIONS}};
            char shown[BKM_MAX_DIMENSIONS * (BKM_MAX_ELEMENT_BYTES + 2) + 4];

            job.parallel = shard_of(step, &job.part, &job.parts);
            /* a matrix job keeps its one combination */
            if ((row.u.map.n = bkm_row(ynode_get(step, "matrix"), pairs)) > 0) {
                bkm_row_text(pairs, row.u.map.n, shown, sizeof(shown));
                job.row = &row;
                job.label = shown;
            }
            job.id = identify(step, &job.part, job.parts, job.label, &job.id_len, &job.shard, &job.shards);
            if (job.row)
                job.parts = job.part + 1;
            if (fn(user, &job) != 0)
                n = -1;
        }
        if (n < 0)
            return -1;
        jobs += n;
    }
    return jobs;
}

int bk_each_text(const struct ynode *step, dialect_text_fn fn, void *user)
{
    static const char *const text_keys[] = {"command", "commands", "script", "env", NULL};
    int rc = 0;

    for (size_t k = 0; rc == 0 && text_keys[k]; k++)
        rc = dialect_each_text(ynode_get(step, text_keys[k]), fn, user);
    return rc;
}

/* The pipeline's files, each item interpolated as buildkite-agent pipeline upload would
 * (bkinterp.h) before anything else sees it. */
static struct dialect_reader *bk_open(const struct dialect_input *in, dialect_observe_fn observe, void *user)
{
    struct dialect_input own = *in;

    if (in->interp) {
        bkinterp_begin(in->interp, in->diag, in->names);
        own.transform = bkinterp_item;
        own.transform_user = in->interp;
    }
    return dialect_files_open(&own, observe, user);
}

static const char *const step_key_order[] = {
    "group", "wait", "waiter", "block", "input", "manual", "trigger", "label", "name",
    "key", "id", "identifier", "depends_on", "command", "commands", "env", "agents", NULL};

const struct emit_layout bk_layout = {"steps", false, step_key_order, "steps"};

const struct dialect dialect_buildkite = {
    .name = "buildkite",
    .description = "Buildkite pipeline",
    .shape = stream_steps_shape,
    .layout = &bk_layout,
    .input_schema = NULL,
    .rendered_schema = "buildkite-rendered",
    .platform = "Buildkite",
    .job_noun = "step",
    .key_noun = "key",
    .fanout_field = "parallelism",
    .fanout_jobs = "shards",
    .reference_field = "depends_on",
    .keys_per_file = false,
    .bad_references_fail = false,
    .max_jobs_per_document = BK_JOBS_PER_UPLOAD,
    .max_jobs_total = BK_JOBS_PER_BUILD,
    .open = bk_open,
    .next = dialect_files_next,
    .close = dialect_files_close,
    .expand = bk_expand,
    .edges = depends_edges,
    .normalize = depends_normalize,
    .references = depends_each,
    .rewrite = bk_rewrite,
    .each_job = bk_each_job,
    .each_text = bk_each_text,
    .shard_index_variable = "BUILDKITE_PARALLEL_JOB",
    .shard_count_variable = "BUILDKITE_PARALLEL_JOB_COUNT",
};
