#include "depends.h"

#include <stdlib.h>
#include <string.h>

#include "placeholder.h"
#include "steps.h"

/* The key node of one depends_on entry: a scalar, or the `step` of a mapping. */
static const struct ynode *entry_key(const struct ynode *entry)
{
    if (ynode_is_map(entry))
        return ynode_get(entry, "step");
    return entry;
}

/* The entries of a depends_on value: a list's items, or the value itself. */
static size_t entry_count(const struct ynode *dep)
{
    return ynode_is_seq(dep) ? ynode_len(dep) : 1;
}

static const struct ynode *entry_at(const struct ynode *dep, size_t i)
{
    return ynode_is_seq(dep) ? ynode_item(dep, i) : dep;
}

static int bad_entry(struct diag *d, const char *const *files, const struct ynode *at, const char *msg)
{
    struct ypos p = ynode_pos(at);

    diag_at(d, DIAG_ERROR, DIAG_INPUT, files, p, RULE_DEPENDS_ON, "%s", msg);
    return -1;
}

static int visit_entry(const struct ynode *entry, struct diag *d, const char *const *files,
                       dialect_visit_fn visit, void *user)
{
    const struct ynode *k = entry_key(entry);
    size_t len;
    const char *t = ynode_scalar(k, &len);

    if (!t || ynode_is_null(k))
        return bad_entry(d, files, k ? k : entry,
                         "a depends_on entry must be a step key or {step: key}");
    return visit(user, t, len, ynode_pos(k));
}

int depends_each(const struct ynode *steps, struct diag *d, const char *const *files,
                 dialect_visit_fn visit, void *user)
{
    for (size_t i = 0; i < ynode_len(steps); i++) {
        const struct ynode *step = ynode_item(steps, i);
        const struct ynode *dep = ynode_get(step, "depends_on");
        const struct ynode *children = ynode_get(step, "steps");

        if (!ynode_is_map(step))
            continue;
        if (dep && !ynode_is_null(dep)) {
            for (size_t e = 0; e < entry_count(dep); e++) {
                if (visit_entry(entry_at(dep, e), d, files, visit, user) != 0)
                    return -1;
            }
        }
        if (ynode_is_seq(children) && depends_each(children, d, files, visit, user) != 0)
            return -1;
    }
    return 0;
}

/* The shard entries for `entry` (a key or a {step: key} mapping), appended to `out`. */
static int append_shards(struct ynode_doc *doc, struct ynode *out, const struct ynode *entry,
                         unsigned n)
{
    const struct ynode *k = entry_key(entry);
    size_t len;
    const char *t = ynode_scalar(k, &len);

    for (unsigned i = 0; i < n; i++) {
        struct ph_out text;
        char *key = ph_shard_key(t, len, i, &text);
        struct ynode *item = key ? ynode_new_string(doc, key, text.len, k->pos) : NULL;

        ph_out_free(&text);
        if (item && ynode_is_map(entry)) {
            struct ynode *map = ynode_copy_shallow(doc, entry);

            item = map && ynode_set(doc, map, "step", item) == 0 ? map : NULL;
        }
        if (!item || ynode_append(doc, out, item) != 0)
            return -1;
    }
    return 0;
}

/* The new depends_on for `dep`, or NULL with *rc = 0 when nothing changes.
 * shards_of is asked exactly once per entry, in order (callers may answer from a
 * stream that follows depends_each's order). */
static struct ynode *rewritten(struct ynode_doc *doc, const struct ynode *dep,
                               dialect_shards_fn shards_of, void *user, int *rc)
{
    size_t n = entry_count(dep);
    unsigned *shards = calloc(n ? n : 1, sizeof(*shards));
    struct ynode *out = NULL;
    bool changed = false;

    *rc = 0;
    if (!shards)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *t = ynode_scalar(entry_key(entry_at(dep, i)), &len);

        shards[i] = t ? shards_of(user, t, len) : 0;
        changed = changed || shards[i] > 0;
    }
    if (!changed)
        goto done;
    if (!(out = ynode_new_seq(doc, dep->pos)))
        goto oom;
    for (size_t i = 0; i < n; i++) {
        const struct ynode *entry = entry_at(dep, i);

        if (shards[i] > 0 ? append_shards(doc, out, entry, shards[i]) != 0
                          : ynode_append(doc, out, (struct ynode *)entry) != 0)
            goto oom;
    }
    goto done;
oom:
    out = NULL;
    *rc = -1;
done:
    free(shards);
    return out;
}

int depends_rewrite(struct ynode_doc *doc, struct ynode *steps, dialect_shards_fn shards_of,
                    void *user)
{
    for (size_t i = 0; i < ynode_len(steps); i++) {
        struct ynode *step = ynode_item(steps, i);
        struct ynode *dep = ynode_get(step, "depends_on");
        struct ynode *children = ynode_get(step, "steps");
        int rc;

        if (!ynode_is_map(step))
            continue;
        if (dep && !ynode_is_null(dep)) {
            struct ynode *fresh = rewritten(doc, dep, shards_of, user, &rc);

            if (rc != 0 || (fresh && ynode_set(doc, step, "depends_on", fresh) != 0))
                return -1;
        }
        if (ynode_is_seq(children) && depends_rewrite(doc, children, shards_of, user) != 0)
            return -1;
    }
    return 0;
}

int depends_normalize(struct ynode_doc *doc, struct ynode *steps)
{
    for (size_t i = 0; i < ynode_len(steps); i++) {
        struct ynode *step = ynode_item(steps, i);
        struct ynode *dep = ynode_get(step, "depends_on");
        struct ynode *children = ynode_get(step, "steps");

        if (!ynode_is_map(step))
            continue;
        /* A single {step: key} becomes a one-item list. */
        if (ynode_is_map(dep)) {
            struct ynode *list = ynode_new_seq(doc, dep->pos);

            if (!list || ynode_append(doc, list, dep) != 0 || ynode_set(doc, step, "depends_on", list) != 0)
                return -1;
        }
        if (ynode_is_seq(children) && depends_normalize(doc, children) != 0)
            return -1;
    }
    return 0;
}

/* What the edges read of a step, found in one pass over its keys (the first of each;
 * five lookups a step, three of them of keys most steps lack, were most of the edges'
 * cost): its scalar key (key, id or identifier, in bk_key_keys' order), or NULL; its
 * depends_on and steps, or NULL. */
struct step_deps {
    const char *key;
    size_t key_len;
    const struct ynode *depends_on, *steps;
};

static void step_deps_find(const struct ynode *step, struct step_deps *s)
{
    const struct ynode *keys[3] = {NULL, NULL, NULL};

    *s = (struct step_deps){NULL, 0, NULL, NULL};
    for (size_t i = 0; ynode_is_map(step) && i < ynode_len(step); i++) {
        const struct ynode *key = ynode_key(step, i), **to = NULL;
        const char *t = key->u.scalar.text; /* a key is a scalar (ynode_find reads it so) */

        switch (key->u.scalar.len) {
        case 2:
            to = memcmp(t, "id", 2) ? NULL : &keys[1];
            break;
        case 3:
            to = memcmp(t, "key", 3) ? NULL : &keys[0];
            break;
        case 5:
            to = memcmp(t, "steps", 5) ? NULL : &s->steps;
            break;
        case 10:
            to = !memcmp(t, "identifier", 10) ? &keys[2] : !memcmp(t, "depends_on", 10) ? &s->depends_on : NULL;
            break;
        default:
            break;
        }
        if (to && !*to)
            *to = ynode_value(step, i);
    }
    for (size_t k = 0; k < 3; k++)
        if (keys[k]) {
            s->key = ynode_scalar(keys[k], &s->key_len);
            break;
        }
}

/* An edge from `owner` to every key depends_on `dep` (NULL: none) names. */
static int edges_to_deps(const struct ynode *dep, const char *owner, size_t olen, dialect_edge_fn fn, void *user)
{
    if (!owner || !dep || ynode_is_null(dep))
        return 0;
    for (size_t i = 0; i < entry_count(dep); i++) {
        const struct ynode *k = entry_key(entry_at(dep, i));
        size_t len;
        const char *t = ynode_scalar(k, &len);

        if (t && fn(user, owner, olen, t, len, ynode_pos(k)) != 0)
            return -1;
    }
    return 0;
}

/* Whether depends_on `dep` (NULL: none) names `key`. */
static bool names_key(const struct ynode *dep, const char *key, size_t len)
{
    for (size_t i = 0; dep && i < entry_count(dep); i++) {
        size_t tlen;
        const char *t = ynode_scalar(entry_key(entry_at(dep, i)), &tlen);

        if (t && tlen == len && memcmp(t, key, len) == 0)
            return true;
    }
    return false;
}

int depends_edges(const struct ynode *steps, dialect_edge_fn fn, void *user, bool *local_cycle)
{
    for (size_t i = 0; i < ynode_len(steps); i++) {
        const struct ynode *step = ynode_item(steps, i);
        struct step_deps g;

        step_deps_find(step, &g);
        if (edges_to_deps(g.depends_on, g.key, g.key_len, fn, user) != 0)
            return -1;
        if (g.key && names_key(g.depends_on, g.key, g.key_len))
            *local_cycle = true;
        /* the kind (a few lookups) asked only of a step with a list of steps */
        if (!ynode_is_seq(g.steps) || bk_step_kind(step) != BK_GROUP)
            continue;
        for (size_t c = 0; c < ynode_len(g.steps); c++) {
            const struct ynode *child = ynode_item(g.steps, c);
            struct step_deps ch;
            /* A keyless child is reached only through its group: its edges are the group's. */
            const char *owner;
            size_t olen;

            step_deps_find(child, &ch);
            owner = ch.key ? ch.key : g.key;
            olen = ch.key ? ch.key_len : g.key_len;
            if (edges_to_deps(ch.depends_on, owner, olen, fn, user) != 0)
                return -1;
            if ((g.key && names_key(ch.depends_on, g.key, g.key_len)) ||
                (ch.key && names_key(ch.depends_on, ch.key, ch.key_len)))
                *local_cycle = true;
            if (!ch.key)
                continue;
            /* The child starts after the group's dependencies; the group ends after it. */
            if (edges_to_deps(g.depends_on, ch.key, ch.key_len, fn, user) != 0 ||
                (g.key && fn(user, g.key, g.key_len, ch.key, ch.key_len,
                             ynode_pos(ch.depends_on ? ch.depends_on : child)) != 0))
                return -1;
        }
    }
    return 0;
}
