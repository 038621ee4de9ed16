/* pipediff_fanref: the items of a reference list (depends_on, needs) that only say that
 * a target's fan-out changed. A reference to a fanned-out job is rendered as one to each
 * of its jobs (`build` -> `build-0`, `build-1`), so a target that goes from 2 jobs to 3
 * adds `build-2` to every list that names it: the change is the target's, and is reported
 * once, there (issue 23: a 3-line edit read as 7 changed steps). */
#include "pipediff_internal.h"

#include <stdlib.h>
#include <string.h>

/* The target `id` (len bytes) of an item: whether its job count differs between the sides
 * (each side's identity scoped to the file of the job that names it). */
static bool fanout_changed(const struct pd_fanref *f, const char *id, size_t len)
{
    return pd_fanout_jobs(f->base, pd_identity(f->base, f->file[0], id, len)) !=
           pd_fanout_jobs(f->head, pd_identity(f->head, f->file[1], id, len));
}

/* Whether reference `t` (len bytes) is target `id` (n bytes), or one of its jobs
 * `<id>-<i>`. */
static bool names_target(const char *t, size_t len, const char *id, size_t n)
{
    size_t base;

    return (len == n || (dialect_key_index(t, len, &base) >= 0 && base == n)) && !memcmp(t, id, n);
}

/* The target reference `item` names: a text, or the text of the key its dialect names a
 * target by in a mapping (`{step: build-1, allow_failure: true}`); NULL for anything
 * else. */
static const char *item_target(const struct pd_fanref *f, const struct ynode *item, size_t *len)
{
    const char *key = f->base->dialect->diff->reference_target;

    if (key && ynode_is_map(item))
        item = ynode_get(item, key);
    return item && ynode_is_string(item) ? ynode_scalar(item, len) : NULL;
}

/* Whether references a and b say the same but for their target: both texts, or
 * mappings with the same other entries (`allow_failure`). */
static bool same_but_target(const struct pd_fanref *f, const struct ynode *a, const struct ynode *b)
{
    const char *key = f->base->dialect->diff->reference_target;

    if (!ynode_is_map(a) || !ynode_is_map(b))
        return ynode_is_map(a) == ynode_is_map(b);
    if (ynode_len(a) != ynode_len(b))
        return false;
    for (size_t k = 0; k < ynode_len(a); k++) {
        const char *name = ynode_scalar(ynode_key(a, k), NULL);
        const struct ynode *other = name ? ynode_get(b, name) : NULL;
        size_t la, lb;
        const char *ta = ynode_scalar(ynode_value(a, k), &la), *tb = other ? ynode_scalar(other, &lb) : NULL;

        if (!name || (strcmp(name, key) && (!ta || !tb || la != lb || memcmp(ta, tb, la) ||
                                              ynode_is_string(ynode_value(a, k)) != ynode_is_string(other))))
            return false;
    }
    return true;
}

/* Whether `list` names target `id` (n bytes) or one of its jobs as `item` does. */
static bool list_names(const struct pd_fanref *f, const struct ynode *list, const char *id, size_t n,
                       const struct ynode *item)
{
    for (size_t i = 0; i < ynode_len(list); i++) {
        size_t len;
        const char *t = item_target(f, ynode_item(list, i), &len);

        if (t && names_target(t, len, id, n) && same_but_target(f, item, ynode_item(list, i)))
            return true;
    }
    return false;
}

bool pd_fanout_item(void *user, const struct ynode *a, const struct ynode *b, const struct ynode *item, unsigned side)
{
    const struct pd_fanref *f = user;
    size_t len, base;
    const char *t = item_target(f, item, &len);

    if (!t)
        return false;
    /* the target itself (a side where it is one job), else the target of `<id>-<i>`; the
     * other side's list names it too, alike (an `allow_failure` changed is a change): a
     * target added or dropped is a change */
    if (!fanout_changed(f, t, len) &&
        (dialect_key_index(t, len, &base) < 0 || !fanout_changed(f, t, len = base)))
        return false;
    return list_names(f, side ? a : b, t, len, item);
}
