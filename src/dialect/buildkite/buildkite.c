/* buildkite: the Buildkite dialect's entry: a pipeline's files read (and interpolated
 * as `pipeline upload` does), its steps expanded, its jobs and their identity for diff. */
#include <stdlib.h>
#include <string.h>

#include "fanout/dialect.h"
#include "fanout/strset.h"
#include "fanout/ynode.h"

#include "bkinterp.h"
#include "bkread.h"
#include "bkmatrix.h"
#include "buildkite.h"
#include "depends.h"
#include "expand.h"
#include "placeholder.h"
#include "steps.h"
#include "uploads.h"

static unsigned env_number(const struct ynode *value, bool *present)
{
    size_t len;
    const char *t = ynode_scalar(value, &len);
    char buf[16];
    unsigned n = 0;
    size_t i = 0;

    *present = t && len > 0 && len < sizeof(buf);
    if (!*present)
        return 0;
    /* the digits a rendering writes, read without strtoul's copy and locale */
    for (; i < len && i < 9 && t[i] >= '0' && t[i] <= '9'; i++)
        n = n * 10 + (unsigned)(t[i] - '0');
    if (i == len)
        return n;
    memcpy(buf, t, len);
    buf[len] = '\0';
    return (unsigned)strtoul(buf, NULL, 10);
}

/* A step's place in its fan-out, from the shard env a rendering gives each shard (the
 * first of each variable, found in one pass: two lookups were most of each_job's own
 * cost): `part` of `parts`, or 0 of 1 for a step that is no shard. */
static bool shard_of(const struct ynode *env, unsigned *part, unsigned *parts)
{
    static const char job_name[] = "BUILDKITE_PARALLEL_JOB", count_name[] = "BUILDKITE_PARALLEL_JOB_COUNT";
    const struct ynode *values[2] = {NULL, NULL};
    bool has_job, has_count, shard;
    unsigned job, count;

    for (size_t i = 0; ynode_is_map(env) && i < ynode_len(env); i++) {
        const struct ynode *key = ynode_key(env, i);
        size_t len = key->u.scalar.len; /* a key is a scalar (ynode_find reads it so) */
        int k = len == sizeof(job_name) - 1 && !memcmp(key->u.scalar.text, job_name, len)       ? 0
                : len == sizeof(count_name) - 1 && !memcmp(key->u.scalar.text, count_name, len) ? 1
                                                                                               : -1;

        if (k >= 0 && !values[k])
            values[k] = ynode_value(env, i);
    }
    job = env_number(values[0], &has_job);
    count = env_number(values[1], &has_count);
    shard = has_job && has_count && count > 1 && job < count;
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
        char suffix[1 + PH_NUMBER_MAX];
        size_t sl, base;
        long index;

        if (shown && (index = dialect_key_index(t, *len, &base)) >= 0) {
            *len = base;
            *part = *shard = (unsigned)index;
            *shards = (unsigned)index + 1;
            return t;
        }
        if (parts <= 1)
            return t;
        suffix[0] = '-';
        sl = 1 + ph_number(*part, suffix + 1);
        if (*len > sl && !memcmp(t + *len - sl, suffix, sl)) {
            *len -= sl;
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

int dialect_buildkite_rewrite(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *steps,
                              dialect_shards_fn shards_of, void *user)
{
    (void)ctx;
    return depends_rewrite(doc, steps, shards_of, user);
}

int dialect_buildkite_expand_checked(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *steps)
{
    struct dialect_ctx own = *ctx;

    own.keys_checked = true;
    return expand_steps(&own, doc, steps);
}

int dialect_buildkite_edges(const struct ynode *steps, dialect_edge_fn fn, void *user, bool *local_cycle)
{
    return depends_edges(steps, fn, user, local_cycle);
}

int dialect_buildkite_normalize(struct ynode_doc *doc, struct ynode *steps)
{
    return depends_normalize(doc, steps);
}

int dialect_buildkite_references(const struct ynode *steps, struct diag *d, const char *const *files,
                                 dialect_visit_fn visit, void *user)
{
    return depends_each(steps, d, files, visit, user);
}

long dialect_buildkite_each_job(const struct ynode *steps, dialect_job_fn fn, void *user)
{
    long jobs = 0;

    for (size_t i = 0; i < ynode_len(steps); i++) {
        const struct ynode *step = ynode_item(steps, i);
        /* steps, env and matrix, the first of each, found in one pass over the step */
        const struct ynode *children = NULL, *env = NULL, *matrix = NULL;
        struct dialect_job job = {.node = step, .parts = 1, .pos = ynode_pos(step)};
        long n = 1;

        for (size_t k = 0; ynode_is_map(step) && k < ynode_len(step); k++) {
            const struct ynode *key = ynode_key(step, k), **to = NULL;

            switch (key->u.scalar.len) {
            case 5:
                to = memcmp(key->u.scalar.text, "steps", 5) ? NULL : &children;
                break;
            case 3:
                to = memcmp(key->u.scalar.text, "env", 3) ? NULL : &env;
                break;
            case 6:
                to = memcmp(key->u.scalar.text, "matrix", 6) ? NULL : &matrix;
                break;
            default:
                break;
            }
            if (to && !*to)
                *to = ynode_value(step, k);
        }

        /* the kind (a few lookups) asked only of a step with a list of steps */
        if (ynode_is_seq(children) && bk_step_kind(step) == BK_GROUP) {
            n = dialect_buildkite_each_job(children, fn, user);
        } else if (fn) {
            struct ynode_pair pairs[BKM_MAX_DIMENSIONS];
            struct ynode row = {.kind = YNODE_MAP, .u.map = {pairs, 0, BKM_MAX_DIMENSIONS}};
            char shown[BKM_MAX_DIMENSIONS * (BKM_MAX_ELEMENT_BYTES + 2) + 4];

            job.parallel = shard_of(env, &job.part, &job.parts);
            /* a matrix job keeps its one combination */
            if ((row.u.map.n = bkm_row(matrix, pairs)) > 0) {
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

/* The text keys' place in each_text's order, -1 for another key. */
static int text_key(const struct ynode *key)
{
    const char *t = key->u.scalar.text; /* a key is a scalar (ynode_find reads it so) */

    switch (key->u.scalar.len) {
    case 7:
        return memcmp(t, "command", 7) ? -1 : 0;
    case 8:
        return memcmp(t, "commands", 8) ? -1 : 1;
    case 6:
        return memcmp(t, "script", 6) ? -1 : 2;
    case 3:
        return memcmp(t, "env", 3) ? -1 : 3;
    default:
        return -1;
    }
}

int dialect_buildkite_each_text(const struct ynode *step, dialect_text_fn fn, void *user)
{
    /* command, commands, script, env: found in one pass over the step's keys (four
     * lookups were 1.5M instructions of validating a 1 MB pipeline), the first of each */
    const struct ynode *texts[4] = {NULL, NULL, NULL, NULL};
    int rc = 0;

    for (size_t i = 0; ynode_is_map(step) && i < ynode_len(step); i++) {
        int k = text_key(ynode_key(step, i));

        if (k >= 0 && !texts[k])
            texts[k] = ynode_value(step, i);
    }
    for (size_t k = 0; rc == 0 && k < 4; k++)
        rc = dialect_each_text(texts[k], fn, user);
    return rc;
}

/* The pipeline's files, each item read as buildkite-agent pipeline upload reads it (its
 * keys and plain scalars: bkread.h), then interpolated (bkinterp.h), before anything but
 * the schema check of the input sees it (which sees it before interpolation). */
static struct dialect_reader *bk_open(const struct dialect_input *in, dialect_observe_fn observe, void *user)
{
    struct dialect_input own = *in;
    struct bk_state *st = in->state;

    if (st) {
        bkread_begin(st->read, in->diag, in->names);
        bkinterp_begin(st->interp, in->diag, in->names);
        own.read = bkread_item;
        own.read_user = st->read;
        own.transform = bkinterp_item;
        own.transform_user = st->interp;
    }
    return dialect_files_open(&own, observe, user);
}

static const char *const step_key_order[] = {
    "group", "wait", "waiter", "block", "input", "manual", "trigger", "label", "name",
    "key", "id", "identifier", "depends_on", "command", "commands", "env", "agents", NULL};

const struct emit_layout dialect_buildkite_layout = {"steps", false, step_key_order, "steps"};

/* ---- the run's state ---- */

static void bk_state_destroy(void *state)
{
    struct bk_state *st = state;

    bkread_destroy(st->read);
    bkinterp_destroy(st->interp);
    strset_destroy(st->warned);
    free(st);
}

static void *bk_state_create(const struct dialect_options *options)
{
    const struct bk_own_options *own = dialect_options_own(options, &dialect_buildkite);
    struct bk_state *st = calloc(1, sizeof(*st));

    if (st && (!(st->warned = strset_create()) || !(st->read = bkread_create()) ||
               !(st->interp = bkinterp_create(own ? own->vars : NULL)))) {
        bk_state_destroy(st);
        return NULL;
    }
    return st;
}

static bool bk_key_may_exist(void *state, const char *key, size_t len)
{
    return bkinterp_key_may_name(((struct bk_state *)state)->interp, key, len);
}

/* A list of steps (bare, or under `steps:`), or a document that has something but no
 * steps: a pipeline; not after a top-level `group`, which no pipeline has (test-area
 * files and ray's rayci files do). */
static bool bk_detect(const struct stream_item *item, const struct dialect_probe *probe)
{
    if (dialect_probe_has_key(probe, "group"))
        return false;
    return (item->kind == STREAM_STEPS_START && (item->bare || strcmp(item->items_key, "jobs") != 0)) ||
           (item->kind == STREAM_DOC_END && dialect_probe_read(probe));
}

static const char *const diff_identity[] = {"key", "id", "identifier", NULL};
static const char *const diff_labels[] = {"label", "name", NULL};
static const char *const diff_prompts[] = {"block", "input", NULL};
/* a group step's name (docs: pipelines/configure/step-types/group-step) */
static const char *const diff_group_labels[] = {"group", "label", NULL};
static const struct dialect_command diff_commands[] = {{"command", "command"}, {"commands", "command"}, {NULL, NULL}};
/* a test-area step says its GPU by `device` */
static const char *const diff_machine[] = {"agents", "device", NULL};
/* docs/reference.md's table */
static const struct dialect_default diff_defaults[] = {
    {"soft_fail", "false"}, {"allow_dependency_failure", "false"}, {"cancel_on_build_failing", "false"},
    {"skip", "false"},      {"skip", ""},                          {"priority", "0"},
    {"async", "false"},     {NULL, NULL}};

const struct dialect_diff dialect_buildkite_diff = {
    .identity = diff_identity,
    .labels = diff_labels,
    .prompts = diff_prompts,
    .env = "env",
    .commands = diff_commands,
    .machine = diff_machine,
    .defaults = diff_defaults,
    .group_labels = diff_group_labels,
    .derived = &dialect_testarea_mirror,
    /* a depends_on entry `{step: KEY, allow_failure: BOOL}` (buildkite.com/docs/pipelines/
     * configure/depends-on; the SDK's DependsOnList type; depends.c's entry_key) */
    .reference_target = "step",
};

const struct stream_shape buildkite_steps_shape[] = {{"steps", false, false, false, false, "buildkite-agent"},
                                                     {NULL, false, false, false, false, NULL}};

const struct dialect dialect_buildkite = {
    .name = "buildkite",
    .description = "Buildkite pipeline",
    .upload_help = "for `buildkite-agent pipeline upload`: keep $$BUILDKITE_PARALLEL_JOB references (env carries the values)",
    .shape = buildkite_steps_shape,
    DIALECT_BUILDKITE_STEPS,
    .input_schema = "buildkite",
    .render_checks_input = false,
    .open = bk_open,
    .next = dialect_files_next,
    .close = dialect_files_close,
    .expand = expand_steps,
    .state_create = bk_state_create,
    .state_destroy = bk_state_destroy,
    .key_may_exist = bk_key_may_exist,
    .options = bk_options,
    .options_size = sizeof(struct bk_own_options),
    .option = bk_option,
    .options_free = bk_options_free,
    .detect = bk_detect,
    .builds = bk_uploads_builds,
};
