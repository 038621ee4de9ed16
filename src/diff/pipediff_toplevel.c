#define _GNU_SOURCE /* asprintf */
/* pipediff_toplevel: what a rendering holds besides its jobs, compared field by field:
 * each file's top-level settings (a pipeline's env, agents, notify; a workflow's name,
 * on, env, concurrency, permissions, defaults) and each group's own fields (a Buildkite
 * group step's label, key, depends_on, if...; a test-area file renders to one). Each
 * value is recorded under its scope (the file's top level, or the group) and its field
 * path ("env.HF_HOME", "on.pull_request.paths": mappings are followed, a list or a
 * scalar is one value), to an external sort and a spool like the jobs, and the sides are
 * merge-joined by scope and path: memory holds a record, whatever the rendering's size,
 * and a group's steps are never read here (they are jobs). A changed value reads as a
 * job's field does (pd_value_change). */
#include "pipediff_internal.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/scratch.h"
#include "fanout/strhash.h"
#include "fanout/strset.h"

/* A scope's marker (it exists on this side: its values are compared), or one value. */
enum { OUT_MARK = 0, OUT_VALUE = 1 };

struct out_rec {
    struct hkey scope, path; /* path: {0, 0} for a marker */
    uint32_t kind, seq;      /* seq: the order recorded, which is the rendering's */
    uint64_t digest;
    uint64_t off;            /* in the spool: a value's path, shown text and JSON; a marker's
                                display id and label (each NUL-terminated) */
    uint32_t len, file, line;
    uint32_t jobs;           /* a group's marker: its jobs; a file's: UINT32_MAX (counted apart) */
    uint32_t cut;            /* the shown text is cut */
};

struct pd_outside {
    struct xsort *recs;
    FILE *spool;
    uint64_t spool_len;
    uint32_t seq;
    size_t n_files;
    uint32_t *file_jobs; /* the jobs of each file (its top level reaches them) */
    bool *file_seen;     /* its marker is recorded */
};

static int out_cmp(const void *pa, const void *pb)
{
    const struct out_rec *a = pa, *b = pb;
    int c = pd_hkey_cmp(&a->scope, &b->scope);

    if (c)
        return c;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if ((c = pd_hkey_cmp(&a->path, &b->path)) != 0)
        return c;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

struct pd_outside *pd_outside_create(size_t n_files)
{
    struct pd_outside *o = calloc(1, sizeof(*o));

    if (!o)
        return NULL;
    o->n_files = n_files;
    o->recs = xsort_create(sizeof(struct out_rec), out_cmp, SORT_BUDGET);
    o->spool = scratch_file();
    o->file_jobs = calloc(n_files ? n_files : 1, sizeof(*o->file_jobs));
    o->file_seen = calloc(n_files ? n_files : 1, sizeof(*o->file_seen));
    if (!o->recs || !o->spool || !o->file_jobs || !o->file_seen) {
        pd_outside_destroy(o);
        return NULL;
    }
    return o;
}

void pd_outside_destroy(struct pd_outside *o)
{
    if (!o)
        return;
    xsort_destroy(o->recs);
    if (o->spool)
        fclose(o->spool);
    free(o->file_jobs);
    free(o->file_seen);
    free(o);
}

/* Adds record `r` with the texts `a`, `b`, `c` (NULL: none) in the spool. */
static int add_rec(struct pd_outside *o, struct out_rec *r, const char *a, const char *b, const char *c)
{
    const char *t[3] = {a, b, c};

    r->seq = o->seq++;
    r->off = o->spool_len;
    r->len = 0;
    for (int i = 0; i < 3 && t[i]; i++) {
        size_t n = strlen(t[i]) + 1;

        if (fwrite(t[i], 1, n, o->spool) != n)
            return -1;
        r->len += (uint32_t)n;
    }
    o->spool_len += r->len;
    return xsort_add(o->recs, r);
}

/* The scope of file `file`'s top level. */
static struct hkey file_scope(const struct side *s, unsigned file)
{
    struct hkey k;

    strhash_pair("\x01top", 4, &k.h1, &k.h2);
    return pd_scope_to_file(s, file, k);
}

/* The marker of file `file`'s top level, once: at its first item (`pos`). */
static int mark_file(struct side *s, struct ypos pos)
{
    struct pd_outside *o = s->outside;
    struct out_rec r;

    if (pos.file >= o->n_files || o->file_seen[pos.file])
        return 0;
    o->file_seen[pos.file] = true;
    memset(&r, 0, sizeof(r));
    r.scope = file_scope(s, pos.file);
    r.kind = OUT_MARK;
    r.file = pos.file;
    r.line = pos.line;
    r.jobs = UINT32_MAX;
    return add_rec(o, &r, "(pipeline)", "", NULL);
}

/* Whether field path `path` (len bytes) is left out by --ignore-field: a name that is
 * the path or one of its heads (`env` leaves out `env.HF_HOME`, `on.push` `on.push.branches`).
 * Each path is noted for the warning about a name nothing has (pipediff.c's). */
static bool path_ignored(const struct side *s, const char *path, size_t len)
{
    if (s->fields)
        strset_add(s->fields, path, len);
    for (size_t i = 0; i < s->pd->n_ignore_fields; i++) {
        const char *name = s->pd->ignore_fields[i];
        size_t n = strlen(name);

        if (n <= len && !memcmp(path, name, n) && (n == len || path[n] == '.'))
            return true;
    }
    return false;
}

/* The values of `v` under field path `path` (len bytes, in a buffer of PATH_MAX_LEN):
 * a mapping's by their keys' paths, anything else as one value; none under a path
 * --ignore-field names. */
#define PATH_MAX_LEN 512

static int record_values(struct side *s, struct hkey scope, char *path, size_t len, const struct ynode *v)
{
    struct out_rec r;
    struct text t;
    const char *json;

    if (len && path_ignored(s, path, len))
        return 0;
    if (ynode_is_map(v) && ynode_len(v)) {
        for (size_t i = 0; i < ynode_len(v); i++) {
            size_t klen;
            const char *k = ynode_scalar(ynode_key(v, i), &klen);

            /* a path past PATH_MAX_LEN is cut: deeper values share it */
            snprintf(path + len, PATH_MAX_LEN - len, "%s%.*s", len ? "." : "", (int)klen, k ? k : "?");
            if (record_values(s, scope, path, strlen(path), ynode_value(v, i)) != 0)
                return -1;
            path[len] = '\0';
        }
        return 0;
    }
    memset(&r, 0, sizeof(r));
    r.scope = scope;
    r.kind = OUT_VALUE;
    strhash_pair(path, len, &r.path.h1, &r.path.h2);
    r.digest = pd_node_hash(v, 0);
    r.file = ynode_pos(v).file;
    r.line = ynode_pos(v).line;
    pd_show(&t, v);
    r.cut = t.cut;
    if (!(json = pd_json_of(s, v)))
        return -1;
    return add_rec(s->outside, &r, path, t.buf, json);
}

/* Whether `v` is a job, or a list that holds one (a group's steps). */
static bool holds_jobs(const struct side *s, const struct ynode *v)
{
    if (pd_is_job(s, v))
        return true;
    for (size_t i = 0; ynode_is_seq(v) && i < ynode_len(v); i++) {
        if (pd_is_job(s, ynode_item(v, i)))
            return true;
    }
    return false;
}

static int first_job(void *user, const struct dialect_job *job)
{
    char **id = user;

    *id = strndup(job->id, job->id_len);
    return 1; /* the first is enough */
}

/* A group's scope and how it reads: its identity (its key), else its first job's (a
 * label may change: the jobs it holds tell it), else its label; shown by its identity,
 * else its label. */
static int record_group(struct side *s, const struct ynode *group, size_t jobs)
{
    const struct dialect_diff *dd = s->dialect->diff;
    struct ynode *idv = NULL, *labelv = NULL;
    const char *id, *label;
    struct ynode *items[1] = {(struct ynode *)group};
    const struct ynode seq = {.kind = YNODE_SEQ, .u.seq = {items, 1, 1}};
    char *job_id = NULL, path[PATH_MAX_LEN];
    struct out_rec r;
    int rc = -1;

    if (dd->identity)
        ynode_get_any(group, dd->identity, &idv);
    if (dd->group_labels)
        ynode_get_any(group, dd->group_labels, &labelv);
    id = ynode_scalar(idv, NULL);
    label = ynode_scalar(labelv, NULL);
    if (!id)
        s->dialect->each_job(&seq, first_job, &job_id);
    memset(&r, 0, sizeof(r));
    r.kind = OUT_MARK;
    if (id)
        strhash_pair(id, strlen(id), &r.scope.h1, &r.scope.h2);
    else if (job_id)
        strhash_pair(job_id, strlen(job_id), &r.scope.h1, &r.scope.h2);
    else
        strhash_pair(label ? label : "", label ? strlen(label) : 0, &r.scope.h1, &r.scope.h2);
    r.scope.h1 ^= 0x2; /* a group's scope is not a file's (nor any identity of a job) */
    r.scope = pd_scope_id(s, ynode_pos(group).file, r.scope);
    r.file = ynode_pos(group).file;
    r.line = ynode_pos(group).line;
    r.jobs = (uint32_t)jobs;
    if (add_rec(s->outside, &r, id ? id : label ? label : job_id ? job_id : "(group)", label ? label : "", NULL) != 0)
        goto done;
    for (size_t i = 0; i < ynode_len(group); i++) {
        size_t klen;
        const char *k = ynode_scalar(ynode_key(group, i), &klen);

        if (holds_jobs(s, ynode_value(group, i)))
            continue;
        snprintf(path, sizeof(path), "%.*s", (int)klen, k ? k : "?");
        if (record_values(s, r.scope, path, strlen(path), ynode_value(group, i)) != 0)
            goto done;
    }
    rc = 0;
done:
    free(job_id);
    return rc;
}

int pd_outside_item(struct side *s, const struct stream_item *item, const struct ynode *root)
{
    char path[PATH_MAX_LEN];

    if (!root)
        return 0;
    if (mark_file(s, item->pos) != 0)
        return -1;
    if (item->kind == STREAM_PAIR) {
        path[0] = '\0';
        return record_values(s, file_scope(s, item->pos.file), path, 0, root);
    }
    if (item->pos.file < s->outside->n_files)
        s->outside->file_jobs[item->pos.file] += (uint32_t)s->n_jobs;
    /* an item's own entries that are no jobs: groups (its list's steps, its mapping's
     * values) */
    for (size_t i = 0; i < ynode_len(root); i++) {
        const struct ynode *v = ynode_is_map(root) ? ynode_value(root, i) : ynode_item(root, i);

        if (!pd_is_job(s, v) && ynode_is_map(v) && record_group(s, v, s->n_jobs) != 0)
            return -1;
    }
    return 0;
}

/* ---------- comparing ---------- */

/* One side's place in its records. */
struct cursor {
    struct side *s;
    struct out_rec rec;
    bool have;
};

static void advance(struct cursor *c)
{
    const struct out_rec *r = xsort_next(c->s->outside->recs);

    c->have = r != NULL;
    if (r)
        c->rec = *r;
}

/* Record r's texts, NUL-separated (malloc'd); NULL when they cannot be read. */
static char *texts_of(struct side *s, const struct out_rec *r)
{
    char *t = malloc((size_t)r->len + 1);

    if (t && (fseeko(s->outside->spool, (off_t)r->off, SEEK_SET) != 0 ||
              fread(t, 1, r->len, s->outside->spool) != r->len)) {
        free(t);
        return NULL;
    }
    if (t)
        t[r->len] = '\0';
    return t;
}

/* The scope both sides have, being compared: HEAD's marker and texts. */
struct scope {
    struct out_rec mark;
    char *texts;         /* its display id, then its label */
    uint32_t sub;
    bool changed;
};

/* A value's side as a change reads it (its record's texts `t`: path, shown, JSON). */
static struct pd_value value_from(const struct out_rec *r, const char *t)
{
    struct pd_value v = {"(none)", NULL, false, false};

    if (!r)
        return v;
    t += strlen(t) + 1;
    v.shown = t;
    v.json = t + strlen(t) + 1;
    v.cut = r->cut;
    return v;
}

/* How many jobs a change of field `path` reaches, when it is the dialect's env (each job
 * gets it): all of the scope's in HEAD; 0 for any other field. */
static uint32_t reach_of(const struct side *head, const struct scope *sc, const char *path)
{
    const char *env = head->dialect->diff->env;
    size_t n = env ? strlen(env) : 0;

    if (!env || strncmp(path, env, n) != 0 || (path[n] != '.' && path[n] != '\0'))
        return 0;
    if (sc->mark.jobs != UINT32_MAX)
        return sc->mark.jobs;
    return sc->mark.file < head->outside->n_files ? head->outside->file_jobs[sc->mark.file] : 0;
}

/* Reports how value b (BASE's; NULL: none) became h (HEAD's; NULL: none) in scope sc. */
static void report_value(struct report *r, struct side *base, struct side *head, struct scope *sc,
                         const struct out_rec *b, const struct out_rec *h)
{
    char *tb = b ? texts_of(base, b) : NULL, *th = h ? texts_of(head, h) : NULL, *detail = NULL, *full = NULL;
    char reach_text[16];
    const char *label = sc->texts + strlen(sc->texts) + 1;
    struct pd_value vb, vh;
    struct change ch;
    struct finding f;
    uint32_t reach;

    memset(&ch, 0, sizeof(ch));
    if ((b && !tb) || (h && !th))
        goto fail;
    vb = value_from(b, tb);
    vh = value_from(h, th);
    if (pd_value_change(&ch, tb ? tb : th, false, &vb, &vh) != 0)
        goto fail;
    reach = reach_of(head, sc, ch.field);
    if (reach && asprintf(&detail, reach > 1 ? "%s (all %u jobs)" : "%s (%u job)", ch.detail, reach) < 0) {
        detail = NULL;
        goto fail;
    }
    pd_finding_init(&f, "changed", sc->texts, NULL, detail ? detail : ch.detail);
    f.part[P_FILE] = pd_side_file(head, h ? h->file : sc->mark.file);
    f.line = h ? h->line : sc->mark.line;
    f.part[P_LABEL] = *label && strcmp(label, sc->texts) ? label : NULL;
    snprintf(reach_text, sizeof(reach_text), "%u", reach);
    f.part[P_REACH] = reach ? reach_text : NULL;
    if (pd_change_parts(&f, &ch, &full) != 0)
        goto fail;
    /* in HEAD's order: a value HEAD has at its place, one it lost at its scope's */
    pd_add_finding(r, PH_OUTSIDE, h ? h->seq : sc->mark.seq, sc->sub++, G_CHANGED, &f);
    sc->changed = true;
    goto done;
fail:
    r->failed = true;
done:
    pd_change_free(&ch);
    free(detail);
    free(full);
    free(tb);
    free(th);
}

/* Whether c is at a record of scope k. */
static bool in_scope(const struct cursor *c, const struct hkey *k)
{
    return c->have && !pd_hkey_cmp(&c->rec.scope, k);
}

/* The values of the scope both cursors are at (its markers), merge-joined by path. */
static void compare_scope(struct report *r, struct cursor *b, struct cursor *h)
{
    struct hkey k = h->rec.scope;
    struct scope sc = {h->rec, NULL, 0, false};

    if (!(sc.texts = texts_of(h->s, &h->rec))) {
        r->failed = true;
        return;
    }
    /* the first marker of each (an identity repeated is one scope) */
    while (in_scope(b, &k) && b->rec.kind == OUT_MARK)
        advance(b);
    while (in_scope(h, &k) && h->rec.kind == OUT_MARK)
        advance(h);
    while ((in_scope(b, &k) || in_scope(h, &k)) && !r->failed) {
        int c = !in_scope(b, &k) ? 1 : !in_scope(h, &k) ? -1 : pd_hkey_cmp(&b->rec.path, &h->rec.path);

        if (c == 0) {
            if (b->rec.digest != h->rec.digest)
                report_value(r, b->s, h->s, &sc, &b->rec, &h->rec);
            advance(b);
            advance(h);
        } else if (c < 0) {
            report_value(r, b->s, h->s, &sc, &b->rec, NULL);
            advance(b);
        } else {
            report_value(r, b->s, h->s, &sc, NULL, &h->rec);
            advance(h);
        }
    }
    r->changed += sc.changed;
    free(sc.texts);
}

void pd_outside_compare(struct report *r, struct side *base, struct side *head)
{
    struct cursor b = {.s = base}, h = {.s = head};

    if (xsort_finish(base->outside->recs) != 0 || xsort_finish(head->outside->recs) != 0 ||
        fflush(base->outside->spool) != 0 || fflush(head->outside->spool) != 0) {
        r->failed = true;
        return;
    }
    advance(&b);
    advance(&h);
    while ((b.have || h.have) && !r->failed) {
        int c = !b.have ? 1 : !h.have ? -1 : pd_hkey_cmp(&b.rec.scope, &h.rec.scope);
        struct cursor *alone = c < 0 ? &b : &h;
        struct hkey k = alone->rec.scope;

        if (c == 0) {
            compare_scope(r, &b, &h);
            continue;
        }
        /* a file or group only one side has: its jobs say what changed */
        while (in_scope(alone, &k))
            advance(alone);
    }
    if (xsort_failed(base->outside->recs) || xsort_failed(head->outside->recs))
        r->failed = true;
}
