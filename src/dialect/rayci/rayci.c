/* rayci: the dialect of ray's `.buildkite/<name>.rayci.yml` files, turned into the Buildkite
 * group step each becomes when ray-project/rayci's raycicmd (commit 52b3334) makes
 * ray's pipeline with its builtin ray-pr config, or the config --rayci-config names
 * (rayci_config.c), and no tag filter (docs/rayci.md): the file's `array` steps expanded
 * and its depends_on selectors resolved (array.c), its steps tagged with one of the
 * config's skip tags left out with the steps that wait for them, each other step
 * converted (convert.c). The rendering is Buildkite steps, expanded and checked by the
 * Buildkite dialect's entries. */
#define _GNU_SOURCE /* strndup */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/dialect.h"
#include "fanout/stream.h"
#include "fanout/suggest.h"
#include "fanout/yscalar.h"

#include "rayci_internal.h"

int rc_error(struct rayci *r, const struct ynode *at, enum rule_id rule, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    diag_vat(r->diag, DIAG_ERROR, DIAG_FINDING, r->files, ynode_pos(at), rule, fmt, ap);
    va_end(ap);
    r->failed = true;
    return -1;
}

const char *rc_string(const struct ynode *v, size_t *len)
{
    size_t n;
    const char *t = ynode_scalar(v, &n);

    /* yaml.v3 types a plain scalar by YAML 1.2's core schema, as yscalar does */
    if (!t || (!ynode_is_string(v) && yscalar_type(t, n) != YS_STRING))
        return NULL;
    if (len)
        *len = n;
    return t;
}

const char *rc_step_key(const struct ynode *step, size_t *len)
{
    const char *k = rc_string(ynode_get(step, "name"), len);

    return k ? k : rc_string(ynode_get(step, "key"), len);
}

bool rc_word_in(const char *const *list, const char *s, size_t len)
{
    for (; *list; list++) {
        if (strlen(*list) == len && !memcmp(*list, s, len))
            return true;
    }
    return false;
}

bool rc_list_has(const struct ynode *list, const char *s)
{
    if (ynode_is_scalar(list))
        return rc_string(list, NULL) && ynode_scalar_is(list, s);
    for (size_t i = 0; ynode_is_seq(list) && i < ynode_len(list); i++) {
        if (rc_string(ynode_item(list, i), NULL) && ynode_scalar_is(ynode_item(list, i), s))
            return true;
    }
    return false;
}

/* ---- one file: the pipelineGroup rayci decodes (rayci_pipeline.go) ---- */

struct rc_file {
    struct ynode_doc *doc;
    struct ynode *steps;                           /* the file's steps, copied */
    const struct ynode *group, *key, *tags, *deps, *job_env; /* top-level values, in doc */
    struct ypos start;
};

/* A top-level pair: parsePipelineFile decodes with KnownFields, so an unknown field is
 * an error; a field that is a Go string takes any scalar, a []string a list of them. */
static int file_pair(struct rayci *r, struct rc_file *f, const struct ynode *pair)
{
    static const char *const fields[] = {"group", "key", "tags", "sort_key", "depends_on", "default_job_env",
                                         "steps", NULL};
    const struct ynode *k = ynode_key(pair, 0), *v = ynode_copy(f->doc, ynode_value(pair, 0));
    size_t len;
    const char *name = ynode_scalar(k, &len);
    bool list = ynode_scalar_is(k, "tags") || ynode_scalar_is(k, "depends_on");
    char phrase[SUGGEST_PHRASE_MAX];

    if (!v)
        return -1;
    if (!name || !rc_word_in(fields, name, len))
        return rc_error(r, k, RULE_UNKNOWN_KEY, "unknown top-level field '%.*s' in a rayci file%s", RC_SHORT(len),
                        name ? name : "",
                        suggest_phrase(name ? suggest_closest(name, len, fields, suggest_limit(len)) : NULL, phrase));
    if (list) {
        bool ok = ynode_is_seq(v) || ynode_is_null(v);

        for (size_t i = 0; ok && ynode_is_seq(v) && i < ynode_len(v); i++)
            ok = ynode_is_scalar(ynode_item(v, i));
        if (!ok)
            return rc_error(r, v, RULE_RAYCI, "'%.*s' must be a list of strings", RC_SHORT(len), name);
    } else if (!ynode_is_scalar(v)) {
        return rc_error(r, v, RULE_RAYCI, "'%.*s' must be a string", RC_SHORT(len), name);
    }
    if (ynode_is_null(v))
        return 0;
    if (ynode_scalar_is(k, "group"))
        f->group = v;
    else if (ynode_scalar_is(k, "key"))
        f->key = v;
    else if (ynode_scalar_is(k, "tags"))
        f->tags = v;
    else if (ynode_scalar_is(k, "depends_on"))
        f->deps = v;
    else if (ynode_scalar_is(k, "default_job_env"))
        f->job_env = v;
    return 0;
}

/* Reads the first document of `s` (yaml.v3's Decode reads no further) into *f. 0, or
 * -1 after an error. */
static int file_read(struct rayci *r, struct stream *s, struct rc_file *f, dialect_observe_fn observe, void *user)
{
    struct stream_item item;
    int more, rc = 0, docs = 0;

    while (rc == 0 && (more = stream_next(s, &item)) != 0) {
        struct ynode *root = item.doc ? ynode_doc_root(item.doc) : NULL;

        if (more < 0)
            return -1;
        if (observe)
            observe(user, &item);
        if (item.kind == STREAM_DOC_START && ++docs == 1)
            f->start = item.pos;
        else if (docs > 1)
            ; /* a later document: rayci never reads it */
        else if (item.kind == STREAM_STEPS_START && item.bare)
            rc = rc_error(r, f->steps, RULE_RAYCI, "a rayci file is a mapping with group and steps, not a list");
        else if (item.kind == STREAM_PAIR)
            rc = file_pair(r, f, root);
        else if (item.kind == STREAM_STEP && !ynode_is_map(ynode_item(root, 0)))
            rc = rc_error(r, ynode_item(root, 0), RULE_RAYCI, "a rayci step is a mapping");
        else if (item.kind == STREAM_STEP && ynode_append(f->doc, f->steps, ynode_copy(f->doc, ynode_item(root, 0))) != 0)
            rc = -1;
        ynode_doc_destroy(item.doc);
    }
    return rc;
}

/* A step of the file by its key, for the walk of who waits for whom. */
struct keyed {
    const char *key;
    size_t len, step;
};

static int keyed_cmp(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    int c = memcmp(x->key, y->key, x->len < y->len ? x->len : y->len);

    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The file's step keyed `name` (index into `keys` sorted), or -1. */
static long step_named(const struct keyed *keys, size_t n, const struct ynode *name)
{
    struct keyed want = {NULL, 0, 0};
    const struct keyed *hit;

    if (!(want.key = ynode_scalar(name, &want.len)))
        return -1;
    hit = bsearch(&want, keys, n, sizeof(*keys), keyed_cmp);
    return hit ? (long)hit->step : -1;
}

/* Whether a depends_on list (as resolved) names a step left out in an earlier file. */
static bool names_rejected(const struct rayci *r, const struct ynode *deps)
{
    for (size_t i = 0; ynode_is_seq(deps) && i < ynode_len(deps); i++) {
        size_t len;
        const char *k = ynode_scalar(ynode_item(deps, i), &len);

        if (k && strset_has(r->rejected, k, len))
            return true;
    }
    return false;
}

struct edge {
    size_t from, to; /* `to` waits for `from` */
};

static int edge_cmp(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;

    return (x->from > y->from) - (x->from < y->from);
}

/* The edges "waits for" between the file's steps: each step's depends_on (found by a
 * binary search of `keys`), else the block or wait step before it. Sorted by `from`;
 * NULL when out of memory. */
static struct edge *file_edges(const struct rc_file *f, const struct keyed *keys, size_t n_keys, size_t *n_edges)
{
    size_t n = ynode_len(f->steps), cap = n + 1, e = 0;
    struct edge *edges;

    for (size_t j = 0; j < n; j++) {
        const struct ynode *deps = ynode_get(ynode_item(f->steps, j), "depends_on");

        cap += ynode_is_seq(deps) ? ynode_len(deps) : 0;
    }
    if (!(edges = malloc(cap * sizeof(*edges))))
        return NULL;
    for (size_t j = 0, last = SIZE_MAX; j < n; j++) {
        const struct ynode *step = ynode_item(f->steps, j), *deps = ynode_get(step, "depends_on");
        long k;

        if (ynode_is_seq(deps) && ynode_len(deps)) {
            for (size_t d = 0; d < ynode_len(deps); d++) {
                if ((k = step_named(keys, n_keys, ynode_item(deps, d))) >= 0)
                    edges[e++] = (struct edge){(size_t)k, j};
            }
        } else if (last != SIZE_MAX) {
            edges[e++] = (struct edge){last, j};
        }
        if (ynode_has(step, "wait") || ynode_has(step, "block"))
            last = j;
    }
    qsort(edges, e, sizeof(*edges), edge_cmp);
    *n_edges = e;
    return edges;
}

/* Marks step j left out, to be walked from (once). */
static void reject_step(bool *rejected, size_t *queue, size_t *tail, size_t j)
{
    if (!rejected[j]) {
        rejected[j] = true;
        queue[(*tail)++] = j;
    }
}

/* Which steps the builtin config leaves out with no tag filter (converter.go's
 * convertGroups, step_filter.go): those with a skip tag (or in a group with one), or
 * that name a step left out in an earlier file, then every step that waits for one, as
 * rejectDeps walks the graph (along file_edges; every step waits for the steps the
 * group's depends_on names). */
static int mark_rejected(struct rayci *r, const struct rc_file *f, const struct ynode *group_deps, bool *rejected)
{
    size_t n = ynode_len(f->steps), n_keys = 0, n_edges = 0, head = 0, tail = 0;
    struct keyed *keys = calloc(n ? n : 1, sizeof(*keys));
    size_t *queue = calloc(n ? n : 1, sizeof(*queue));
    bool *named = calloc(n ? n : 1, sizeof(*named)); /* by the group's depends_on */
    struct edge *edges = NULL;
    bool all = rc_skip_tagged(r, f->tags) || names_rejected(r, group_deps);
    int rc = keys && queue && named ? 0 : -1;

    for (size_t j = 0; rc == 0 && j < n; j++) {
        const struct ynode *step = ynode_item(f->steps, j);
        struct keyed *k = &keys[n_keys];

        if ((k->key = rc_step_key(step, &k->len)) != NULL)
            k->step = j, n_keys++;
        if (rc_skip_tagged(r, ynode_get(step, "tags")) || names_rejected(r, ynode_get(step, "depends_on")))
            reject_step(rejected, queue, &tail, j);
    }
    if (rc == 0) {
        qsort(keys, n_keys, sizeof(*keys), keyed_cmp);
        if (!(edges = file_edges(f, keys, n_keys, &n_edges)))
            rc = -1;
    }
    for (size_t g = 0; rc == 0 && ynode_is_seq(group_deps) && g < ynode_len(group_deps); g++) {
        long k = step_named(keys, n_keys, ynode_item(group_deps, g));

        if (k >= 0)
            named[k] = true;
    }
    for (size_t j = 0; j < n; j++)
        all = all || (named && named[j] && rejected[j]);
    for (size_t j = 0; rc == 0 && all && j < n; j++)
        reject_step(rejected, queue, &tail, j);
    while (rc == 0 && head < tail) {
        struct edge want = {queue[head++], 0};
        const struct edge *e = bsearch(&want, edges, n_edges, sizeof(*edges), edge_cmp);
        size_t len;
        const char *key = rc_step_key(ynode_item(f->steps, want.from), &len);

        if (key && strset_add(r->rejected, key, len) < 0)
            rc = -1;
        while (e && e > edges && e[-1].from == want.from)
            e--;
        for (; e && e < edges + n_edges && e->from == want.from; e++)
            reject_step(rejected, queue, &tail, e->to);
        if (named[want.from] && !all) {
            all = true;
            for (size_t j = 0; j < n; j++)
                reject_step(rejected, queue, &tail, j);
        }
    }
    free(keys);
    free(queue);
    free(named);
    free(edges);
    return rc;
}

/* buildIndex (step_node_set.go): a step's or group's key twice, in any file of the
 * build, is an error. */
static int index_key(struct rayci *r, const struct ynode *at, const char *key, size_t len)
{
    int added = key && len ? strset_add(r->keys, key, len) : 0;

    if (added > 0)
        return rc_error(r, at, RULE_RAYCI, "duplicate node key '%.*s' (rayci's build index takes a key once)",
                        RC_SHORT(len), key);
    return added;
}

/* The group step of file `f` (convertGroup), in f->doc; NULL when it has no step left
 * (rayci skips an empty group) or after an error (*rc set). */
static struct ynode *file_group(struct rayci *r, struct rc_file *f, unsigned file, int *rc)
{
    struct ynode *group_deps = NULL, *group, *steps;
    size_t len, n;
    const char *t;
    bool *rejected = NULL, oom = false, twice;
    char *job_env = NULL;

    if (!f->group)
        return *rc = rc_error(r, ynode_doc_root(f->doc), RULE_RAYCI,
                              "a rayci file needs 'group': rayci would write a group step with no name"),
               NULL;
    if (rc_arrays_expand(r, r->arrays, f->doc, f->steps) != 0 ||
        rc_arrays_resolve(r, r->arrays, f->doc, f->steps, f->deps, &group_deps) != 0)
        return *rc = -1, NULL;
    /* a key twice fails the file, once its steps have been checked too */
    t = ynode_scalar(f->key, &len);
    twice = index_key(r, f->key, t, len) != 0;
    n = ynode_len(f->steps);
    for (size_t j = 0; j < n; j++) {
        const struct ynode *step = ynode_item(f->steps, j);

        t = rc_step_key(step, &len);
        twice = index_key(r, step, t, len) != 0 || twice;
    }
    if (!(rejected = calloc(n ? n : 1, sizeof(*rejected))) || mark_rejected(r, f, group_deps, rejected) != 0) {
        free(rejected);
        return *rc = -1, NULL;
    }
    group = ynode_new_map(f->doc, f->start);
    steps = ynode_new_seq(f->doc, f->start);
    if (f->job_env && (t = ynode_scalar(f->job_env, &len)) && len)
        job_env = strndup(t, len);
    for (size_t j = 0; group && steps && j < n; j++) {
        char id[48];
        struct ynode *out;

        if (rejected[j])
            continue;
        snprintf(id, sizeof(id), "g%u_s%zu", file, j);
        out = rc_convert_step(r, f->doc, ynode_item(f->steps, j), id, job_env, &oom);
        if (out && ynode_append(f->doc, steps, out) != 0)
            oom = true;
    }
    free(rejected);
    free(job_env);
    if (twice)
        return *rc = -1, NULL;
    t = ynode_scalar(f->group, &len);
    if (!group || !steps || oom || ynode_set(f->doc, group, "group", ynode_new_string(f->doc, t, len, f->group->pos)))
        return *rc = -1, NULL;
    t = ynode_scalar(f->key, &len);
    if ((t && len && ynode_set(f->doc, group, "key", ynode_new_string(f->doc, t, len, f->key->pos))) ||
        (group_deps && ynode_len(group_deps) && ynode_set(f->doc, group, "depends_on", group_deps)) ||
        ynode_set(f->doc, group, "steps", steps))
        return *rc = -1, NULL;
    return ynode_len(steps) ? group : NULL;
}

/* ---- the dialect: one document whose steps are a group per file ---- */

struct dialect_reader {
    struct dialect_input in;
    struct rayci rayci;
    /* each build's keys and rejected keys, by its number (in.n + 1 of them: builds
     * are 0..n), made at its first file; rayci.keys and rayci.rejected are one's */
    struct build_sets {
        struct strset *keys, *rejected;
    } *sets;
    struct rc_config *own_config; /* the default's, when --rayci-config was not given */
    dialect_observe_fn observe;
    void *user;
    size_t file;
    unsigned phase; /* 0: document start, 1: steps start, 2: files, 3: steps end, 4: end */
};

static void rc_close(struct dialect_reader *r);

static struct dialect_reader *rc_open(const struct dialect_input *in, dialect_observe_fn observe, void *user)
{
    const struct rc_options *given = dialect_options_own(in->options, &dialect_rayci);
    struct dialect_reader *r = calloc(1, sizeof(*r));

    if (!r)
        return NULL;
    /* ciDefaultConfig's choice for every pipeline but ray's branch and microcheck ones */
    r->rayci.config_given = given && given->config;
    r->rayci.config = r->rayci.config_given ? given->config : (r->own_config = rc_config_builtin("ray-pr", in->diag));
    r->in = *in;
    r->observe = observe;
    r->user = user;
    r->rayci.diag = in->diag;
    r->rayci.files = in->names;
    r->sets = calloc(in->n + 1, sizeof(*r->sets));
    r->rayci.arrays = rc_arrays_create();
    if (!r->rayci.config || !r->sets || !r->rayci.arrays) {
        rc_close(r);
        return NULL;
    }
    return r;
}

/* Makes the next file's build the one r->rayci reads into: each directory is another
 * rayci run (make.go makePipeline: one converter per run), whose keys, steps left out
 * and arrays are its own. 0, or -1 when out of memory. */
static int build_enter(struct dialect_reader *r)
{
    unsigned b = r->in.builds ? r->in.builds[r->file] : 0;
    struct build_sets *sets = &r->sets[b];

    if (!sets->keys && !(sets->keys = strset_create()))
        return -1;
    if (!sets->rejected && !(sets->rejected = strset_create()))
        return -1;
    r->rayci.build = b;
    r->rayci.keys = sets->keys;
    r->rayci.rejected = sets->rejected;
    return 0;
}

/* The next file's group step into item->doc (NULL when the file leaves none). */
static int next_file(struct dialect_reader *r, struct stream_item *item)
{
    struct rc_file f = {.start = {(unsigned)r->file, 1, 1}};
    struct stream *s;
    struct ynode *root, *group = NULL;
    int rc = -1;

    if (build_enter(r) != 0)
        return -1;
    s = stream_open(r->in.sources[r->file], (unsigned)r->file, r->in.diag);
    r->rayci.failed = false;
    f.doc = ynode_doc_create();
    root = f.doc ? ynode_new_seq(f.doc, f.start) : NULL;
    f.steps = root ? ynode_new_seq(f.doc, f.start) : NULL;
    if (s && f.steps) {
        ynode_doc_set_root(f.doc, root);
        rc = file_read(&r->rayci, s, &f, r->observe, r->user);
    }
    stream_close(s);
    if (rc == 0)
        group = file_group(&r->rayci, &f, (unsigned)r->file, &rc);
    r->file++;
    if (group && ynode_append(f.doc, root, group) != 0)
        rc = -1;
    /* a finding leaves the file (or the step) out, and the run goes on to the next */
    if (rc != 0 && !r->rayci.failed) {
        ynode_doc_destroy(f.doc);
        return -1;
    }
    if (rc != 0 || !group) {
        ynode_doc_destroy(f.doc);
        return 0;
    }
    item->doc = f.doc;
    return 0;
}

static int rc_next(struct dialect_reader *r, struct stream_item *item)
{
    static const enum stream_kind kinds[] = {STREAM_DOC_START, STREAM_STEPS_START, STREAM_STEP, STREAM_STEPS_END,
                                             STREAM_DOC_END};

    memset(item, 0, sizeof(*item));
    while (r->phase == 2 && r->file < r->in.n) {
        if (next_file(r, item) != 0)
            return -1;
        if (item->doc) {
            item->kind = STREAM_STEP;
            return 1;
        }
    }
    if (r->phase == 2)
        r->phase = 3;
    if (r->phase > 4)
        return 0;
    item->kind = kinds[r->phase];
    item->items_key = item->kind == STREAM_STEPS_START ? "steps" : NULL;
    r->phase++;
    return 1;
}

static void rc_close(struct dialect_reader *r)
{
    if (!r)
        return;
    for (size_t b = 0; r->sets && b <= r->in.n; b++) {
        strset_destroy(r->sets[b].keys);
        strset_destroy(r->sets[b].rejected);
    }
    free(r->sets);
    rc_arrays_destroy(r->rayci.arrays);
    rc_config_destroy(r->own_config);
    free(r);
}

static bool rayci_path(const char *path)
{
    size_t len = strlen(path);

    /* make.go's ciYamlSuffixes, less .ci.yml and .ci.yaml: names too common to tell */
    return (len >= 10 && !strcmp(path + len - 10, ".rayci.yml")) ||
           (len >= 11 && !strcmp(path + len - 11, ".rayci.yaml"));
}

/* A `*.rayci.yml` file with something in it; or a file with a top-level `group` and a
 * field only rayci reads (sort_key, default_job_env), or whose first step has a key
 * only rayci's steps have. Asked before the test-area dialect, which takes a file with
 * a top-level `group` too. */
static bool rc_detect(const struct stream_item *item, const struct dialect_probe *probe)
{
    static const char *const own_step_keys[] = {"wanda", "instance_type", "job_env", "name", "tags", "env_file",
                                                "array", "queue", NULL};
    const struct ynode *root = item->doc ? ynode_doc_root(item->doc) : NULL;

    if (rayci_path(dialect_probe_path(probe)))
        return item->kind == STREAM_PAIR || item->kind == STREAM_STEPS_START ||
               (item->kind == STREAM_DOC_END && dialect_probe_read(probe));
    if (item->kind == STREAM_PAIR)
        return ynode_scalar_is(ynode_key(root, 0), "sort_key") || ynode_scalar_is(ynode_key(root, 0), "default_job_env");
    if (item->kind != STREAM_STEP || !dialect_probe_has_key(probe, "group") || dialect_probe_items(probe) > 0)
        return false;
    for (size_t i = 0; ynode_is_map(ynode_item(root, 0)) && i < ynode_len(ynode_item(root, 0)); i++) {
        size_t len;
        const char *k = ynode_scalar(ynode_key(ynode_item(root, 0), i), &len);

        if (k && rc_word_in(own_step_keys, k, len))
            return true;
    }
    return false;
}

const struct dialect dialect_rayci = {
    .name = "rayci",
    .description = "rayci file",
    .shape = stream_steps_shape,
    DIALECT_BUILDKITE_STEPS, /* its rendering is Buildkite steps */
    .input_schema = "rayci",
    /* the dialect's own checks say what the input schema does, with rayci's words */
    .render_checks_input = false,
    .open = rc_open,
    .next = rc_next,
    .close = rc_close,
    .expand = dialect_buildkite_expand_checked,
    .options = rc_option_table,
    .options_size = sizeof(struct rc_options),
    .option = rc_option,
    .options_free = rc_options_free,
    .detect = rc_detect,
    .builds = dialect_builds_by_directory,
};
