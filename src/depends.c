#include "fanout/depends.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/buildkite.h"
#include "fanout/placeholder.h"

/* The key node of one depends_on entry: a scalar, or the `step` of a mapping. */
static struct fy_node *entry_key(struct fy_node *entry)
{
    if (entry && fy_node_is_mapping(entry))
        return ynode_get(entry, "step");
    return entry;
}

static int bad_entry(struct diag *d, const char *const *files, struct fy_node *at, const char *msg)
{
    struct ypos p = ynode_pos(at);

    diag_report(d, DIAG_ERROR, DIAG_INPUT, files[p.file], p.line, p.col, "depends-on", "%s", msg);
    return -1;
}

static int visit_entry(struct fy_node *entry, struct diag *d, const char *const *files,
                       depends_visit_fn visit, void *user)
{
    struct fy_node *k = entry_key(entry);
    size_t len;
    const char *t = ynode_scalar(k, &len);

    if (!t || ynode_is_null(k))
        return bad_entry(d, files, k ? k : entry,
                         "a depends_on entry must be a step key or {step: key}");
    return visit(user, t, len, ynode_pos(k));
}

static int each_in_step(struct fy_node *step, struct diag *d, const char *const *files,
                        depends_visit_fn visit, void *user)
{
    struct fy_node *dep = ynode_get(step, "depends_on");
    struct fy_node *children = ynode_get(step, "steps");
    int rc = 0;

    if (!fy_node_is_mapping(step))
        return 0;
    if (dep && !ynode_is_null(dep)) {
        if (fy_node_is_sequence(dep)) {
            struct fy_node *e;
            void *it = NULL;

            while (rc == 0 && (e = fy_node_sequence_iterate(dep, &it)) != NULL)
                rc = visit_entry(e, d, files, visit, user);
        } else {
            rc = visit_entry(dep, d, files, visit, user);
        }
    }
    if (rc == 0 && children && fy_node_is_sequence(children))
        rc = depends_each(children, d, files, visit, user);
    return rc;
}

int depends_each(struct fy_node *steps, struct diag *d, const char *const *files, depends_visit_fn visit,
                 void *user)
{
    struct fy_node *step;
    void *it = NULL;

    while ((step = fy_node_sequence_iterate(steps, &it)) != NULL) {
        if (each_in_step(step, d, files, visit, user) != 0)
            return -1;
    }
    return 0;
}

/* The shard entries for `entry` (a key or a {step: key} mapping), appended to `out`. */
static int append_shards(struct fy_node *out, struct fy_node *entry, unsigned n)
{
    struct fy_document *fyd = fy_node_document(out);
    struct fy_node *k = entry_key(entry);
    size_t len, klen;
    const char *t = ynode_scalar(k, &len);

    for (unsigned i = 0; i < n; i++) {
        char *key = ph_shard_key(t, len, i, &klen);
        struct fy_node *item;

        if (!key)
            return -1;
        if (fy_node_is_mapping(entry)) {
            item = ynode_copy(fyd, entry);
            if (item && ynode_set(item, "step", ynode_string(fyd, key, klen, ynode_pos(k))) != 0) {
                fy_node_free(item);
                item = NULL;
            }
        } else {
            item = ynode_string(fyd, key, klen, ynode_pos(k));
        }
        free(key);
        if (!item || fy_node_sequence_append(out, item) != 0) {
            fy_node_free(item);
            return -1;
        }
    }
    return 0;
}

/* The new depends_on for `dep`, or NULL with *rc = 0 when nothing changes.
 * shards_of is asked exactly once per entry, in order (callers may answer from a
 * stream that follows depends_each's order). */
static struct fy_node *rewritten(struct fy_node *dep, depends_shards_fn shards_of, void *user, int *rc)
{
    struct fy_document *fyd = fy_node_document(dep);
    struct fy_node *out = NULL, **entries, *single[1] = {dep};
    unsigned *shards = NULL;
    bool changed = false;
    size_t n = 1;

    *rc = 0;
    entries = fy_node_is_sequence(dep) ? ynode_items(dep, &n) : single;
    if (n && (!entries || !(shards = calloc(n, sizeof(*shards)))))
        goto oom;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *t = ynode_scalar(entry_key(entries[i]), &len);

        shards[i] = t ? shards_of(user, t, len) : 0;
        changed = changed || shards[i] > 0;
    }
    if (!changed)
        goto done;
    out = fy_node_create_sequence(fyd);
    if (!out)
        goto oom;
    ynode_set_pos(out, ynode_pos(dep));
    for (size_t i = 0; i < n; i++) {
        struct fy_node *c;

        if (shards[i] > 0) {
            if (append_shards(out, entries[i], shards[i]) != 0)
                goto oom;
            continue;
        }
        c = ynode_copy(fyd, entries[i]);
        if (!c || fy_node_sequence_append(out, c) != 0) {
            fy_node_free(c);
            goto oom;
        }
    }
    goto done;
oom:
    fy_node_free(out);
    out = NULL;
    *rc = -1;
done:
    free(shards);
    if (entries != single)
        free(entries);
    return out;
}

int depends_rewrite(struct fy_node *steps, depends_shards_fn shards_of, void *user)
{
    struct fy_node *step;
    void *it = NULL;

    while ((step = fy_node_sequence_iterate(steps, &it)) != NULL) {
        struct fy_node *dep = ynode_get(step, "depends_on");
        struct fy_node *children = ynode_get(step, "steps");
        int rc;

        if (!fy_node_is_mapping(step))
            continue;
        if (dep && !ynode_is_null(dep)) {
            struct fy_node *fresh = rewritten(dep, shards_of, user, &rc);

            if (rc != 0 || (fresh && ynode_set(step, "depends_on", fresh) != 0))
                return -1;
        }
        if (children && fy_node_is_sequence(children) && depends_rewrite(children, shards_of, user) != 0)
            return -1;
    }
    return 0;
}

/* Wraps a single {step: key} mapping into a one-item list. */
static int normalize_one(struct fy_node *step)
{
    struct fy_node *dep = ynode_get(step, "depends_on"), *list, *copy;

    if (!dep || !fy_node_is_mapping(dep))
        return 0;
    list = fy_node_create_sequence(fy_node_document(step));
    copy = ynode_copy(fy_node_document(step), dep);
    if (!list || !copy || fy_node_sequence_append(list, copy) != 0) {
        fy_node_free(copy);
        fy_node_free(list);
        return -1;
    }
    ynode_set_pos(list, ynode_pos(dep));
    return ynode_set(step, "depends_on", list);
}

int depends_normalize(struct fy_node *steps)
{
    struct fy_node *step;
    void *it = NULL;

    while ((step = fy_node_sequence_iterate(steps, &it)) != NULL) {
        struct fy_node *children = ynode_get(step, "steps");

        if (!fy_node_is_mapping(step))
            continue;
        if (normalize_one(step) != 0)
            return -1;
        if (children && fy_node_is_sequence(children) && depends_normalize(children) != 0)
            return -1;
    }
    return 0;
}

/* The scalar key of a step (key, id or identifier), or NULL. */
static const char *step_key(struct fy_node *step, size_t *len)
{
    struct fy_node *k = NULL;

    if (!fy_node_is_mapping(step) || !ynode_get_any(step, bk_key_keys, &k))
        return NULL;
    return ynode_scalar(k, len);
}

/* An edge from `owner` to every key `step`'s depends_on names. */
static int edges_to_deps(struct fy_node *step, const char *owner, size_t olen,
                         depends_edge_fn fn, void *user)
{
    struct fy_node *dep = ynode_get(step, "depends_on"), *single[1] = {dep}, **entries = single;
    size_t n = 1;
    int rc = 0;

    if (!owner || !dep || ynode_is_null(dep))
        return 0;
    if (fy_node_is_sequence(dep) && !(entries = ynode_items(dep, &n)))
        return 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct fy_node *k = entry_key(entries[i]);
        size_t len;
        const char *t = ynode_scalar(k, &len);

        if (t)
            rc = fn(user, owner, olen, t, len, ynode_pos(k));
    }
    if (entries != single)
        free(entries);
    return rc;
}

/* Whether `step`'s depends_on names `key`. */
static bool names_key(struct fy_node *step, const char *key, size_t len)
{
    struct fy_node *dep = ynode_get(step, "depends_on"), *e;
    void *it = NULL;

    if (!dep || !fy_node_is_sequence(dep)) {
        size_t tlen;
        const char *t = ynode_scalar(entry_key(dep), &tlen);

        return t && tlen == len && memcmp(t, key, len) == 0;
    }
    while ((e = fy_node_sequence_iterate(dep, &it)) != NULL) {
        size_t tlen;
        const char *t = ynode_scalar(entry_key(e), &tlen);

        if (t && tlen == len && memcmp(t, key, len) == 0)
            return true;
    }
    return false;
}

int depends_edges(struct fy_node *steps, depends_edge_fn fn, void *user, bool *local_cycle)
{
    struct fy_node *step;
    void *it = NULL;

    while ((step = fy_node_sequence_iterate(steps, &it)) != NULL) {
        size_t glen = 0;
        const char *gkey = step_key(step, &glen);
        struct fy_node *children = ynode_get(step, "steps"), *child;
        void *cit = NULL;

        if (edges_to_deps(step, gkey, glen, fn, user) != 0)
            return -1;
        if (gkey && names_key(step, gkey, glen))
            *local_cycle = true;
        if (bk_step_kind(step) != BK_GROUP || !children || !fy_node_is_sequence(children))
            continue;
        while ((child = fy_node_sequence_iterate(children, &cit)) != NULL) {
            size_t clen = 0;
            const char *ckey = step_key(child, &clen);
            /* A keyless child is reached only through its group: its edges are the group's. */
            const char *owner = ckey ? ckey : gkey;
            size_t olen = ckey ? clen : glen;
            struct fy_node *dep = ynode_get(child, "depends_on");

            if (edges_to_deps(child, owner, olen, fn, user) != 0)
                return -1;
            if (gkey && names_key(child, gkey, glen))
                *local_cycle = true;
            if (ckey && names_key(child, ckey, clen))
                *local_cycle = true;
            if (!ckey)
                continue;
            /* The child starts after the group's dependencies; the group ends after it. */
            if (edges_to_deps(step, ckey, clen, fn, user) != 0 ||
                (gkey && fn(user, gkey, glen, ckey, clen, ynode_pos(dep ? dep : child)) != 0))
                return -1;
        }
    }
    return 0;
}
