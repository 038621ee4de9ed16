#define _GNU_SOURCE /* asprintf, strndup */
/* pipediff_fanref: the items of a reference list (depends_on, needs) that only say that
 * a target's fan-out changed. A reference to a fanned-out job is rendered as one to each
 * of its jobs (`build` -> `build-0`, `build-1`), so a target that goes from 2 jobs to 3
 * adds `build-2` to every list that names it: the change is the target's, and is reported
 * once, there (issue 23: a 3-line edit read as 7 changed steps). And the items a list
 * lost, kept as where a removed job is annotated: at the list of its caller in HEAD
 * (issue 23 item 9), which the pull request's diff shows. */
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

/* The target reference `item` names: a text, or the text of the key `key` (its dialect's
 * reference_target, NULL: none) in a mapping (`{step: build-1, allow_failure: true}`);
 * NULL for anything else. */
static const char *reference_of(const char *key, const struct ynode *item, size_t *len)
{
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
        const char *t = reference_of(f->base->dialect->diff->reference_target, ynode_item(list, i), &len);

        if (t && names_target(t, len, id, n) && same_but_target(f, item, ynode_item(list, i)))
            return true;
    }
    return false;
}

bool pd_fanout_item(void *user, const struct ynode *a, const struct ynode *b, const struct ynode *item, unsigned side)
{
    const struct pd_fanref *f = user;
    size_t len, base;
    const char *t = reference_of(f->base->dialect->diff->reference_target, item, &len);

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

/* ---------- the callers of a removed job ---------- */

#define CALLERS_MAX 4096 /* items kept, at most (past that a removed job reads at its file) */

struct caller {
    char *target;            /* an item a list lost */
    char *path, *file, *id;  /* the list's job: its file's path within the operand, as shown; its identity */
    uint32_t line;           /* where the list is written (HEAD's) */
    struct hkey build;       /* the list's job's (pd_build_of): a key names a job of its own build */
};

struct pd_callers {
    struct caller v[CALLERS_MAX];
    size_t n;
};

void pd_callers_note(struct report *r, struct side *head, uint32_t job_file, const char *id, const struct where *at,
                     const struct change *ch)
{
    const char *key = head->dialect->diff->reference_target;
    char *text = NULL;
    struct ynode_doc *doc = NULL;
    const struct ynode *removed;

    /* the items it lost, or the whole list when HEAD has none */
    if (!at->file || !(ch->items_json ? ch->removed != NULL : ch->old_json && !ch->new_json))
        return;
    if ((!r->callers && !(r->callers = calloc(1, sizeof(*r->callers)))) ||
        (ch->items_json ? asprintf(&text, "{%s}", ch->items_json) : asprintf(&text, "%s", ch->old_json)) < 0 ||
        !(doc = pd_json_read(text))) {
        r->failed = true;
        goto done;
    }
    removed = ynode_doc_root(doc);
    if (ch->items_json)
        removed = ynode_get(ynode_get(removed, "items"), "removed");
    for (size_t i = 0; removed && i < (ynode_is_seq(removed) ? ynode_len(removed) : 1) && r->callers->n < CALLERS_MAX;
         i++) {
        struct caller *c = &r->callers->v[r->callers->n];
        size_t len;
        const char *t = reference_of(key, ynode_is_seq(removed) ? ynode_item(removed, i) : removed, &len);
        /* the list's line, else (HEAD has no such list) its job's */
        uint32_t file = ch->line ? ch->file : UINT32_MAX;

        if (!t)
            continue;
        c->line = ch->line ? ch->line : at->line;
        c->build = pd_build_of(head, job_file);
        if (!(c->target = strndup(t, len)) || !(c->id = strdup(id)) ||
            !(c->file = strdup(file != UINT32_MAX && pd_side_file(head, file) ? pd_side_file(head, file) : at->file)) ||
            !(c->path = strdup(file != UINT32_MAX ? pd_path_in_operand(head, file) : ""))) {
            free(c->target);
            free(c->id);
            free(c->file);
            r->failed = true;
            break;
        }
        r->callers->n++;
    }
done:
    ynode_doc_destroy(doc);
    free(text);
}

bool pd_callers_find(const struct report *r, const struct side *base, uint32_t file, const char *id, size_t len,
                     const char **file_name, uint32_t *line, const char **caller)
{
    const struct caller *best = NULL;
    const char *path = pd_path_in_operand(base, file);
    struct hkey build = pd_build_of(base, file);

    for (size_t i = 0; r->callers && i < r->callers->n; i++) {
        const struct caller *c = &r->callers->v[i];

        /* a job's id names it only in its own file where ids are the file's, and only in
         * its own build where keys are the build's (docs/diff.md "Builds") */
        if (!names_target(c->target, strlen(c->target), id, len) ||
            (base->dialect->diff->identity_per_file && *c->path && strcmp(c->path, path)) ||
            pd_hkey_cmp(&c->build, &build))
            continue;
        if (!best || strcmp(c->file, best->file) < 0 || (!strcmp(c->file, best->file) && c->line < best->line))
            best = c;
    }
    if (!best)
        return false;
    *file_name = best->file;
    *line = best->line;
    *caller = best->id;
    return true;
}

void pd_callers_free(struct report *r)
{
    for (size_t i = 0; r->callers && i < r->callers->n; i++) {
        free(r->callers->v[i].target);
        free(r->callers->v[i].path);
        free(r->callers->v[i].file);
        free(r->callers->v[i].id);
    }
    free(r->callers);
    r->callers = NULL;
}
