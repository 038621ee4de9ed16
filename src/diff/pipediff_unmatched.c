#define _GNU_SOURCE /* open_memstream, asprintf, strndup */
/* pipediff_unmatched: the steps only one side has: paired as renames when alike enough,
 * else reported added (with what they run) or removed (or skipped by HEAD's matrix). */
#include "pipediff_internal.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/strhash.h"

/* What a reader knows job i of step `id` by: its key (its dialect's first identity
 * field), else its configuration's label,
 * else its own label, else its place ("shard 2"; the step's identity for a step of one
 * job); into buf. */
static const char *job_key(struct side *s, const struct shard_tuple *t, const struct entries *es, unsigned i,
                           unsigned n, const char *id, char *buf, size_t cap)
{
    const char *const *identity = s->dialect->diff->identity;
    const struct entry *key = identity ? pd_field_entry(es, identity[0]) : NULL;
    char *title = NULL;

    if (key)
        snprintf(buf, cap, "%s", key->value);
    else if (t->label_len)
        pd_job_label(s, t, i, buf, cap);
    else if (t->title_len && (title = pd_spooled(s, pd_title_at(t), t->title_len)) != NULL)
        snprintf(buf, cap, "%s", title);
    else if (n == 1)
        snprintf(buf, cap, "%s", id);
    else
        pd_job_label(s, t, i, buf, cap);
    free(title);
    return buf;
}

/* The keys of a step's n jobs (job_key): as JSON members into me (their count too),
 * and listed for a reviewer into mm when there are several. */
static int describe_keys(struct side *s, const struct shard_tuple *t, unsigned n, const char *id,
                         const struct entries *first, FILE *me, FILE *mm)
{
    char key[256];

    fprintf(me, "\"count\": %u, \"keys\": [", n);
    fputs(n > 1 ? "jobs: " : "", mm);
    for (unsigned i = 0; i < n; i++) {
        struct entries es = {0};

        if (i && pd_entries_read(s, t[i].off, t[i].data_len, &es) != 0) {
            pd_entries_free(&es);
            return -1;
        }
        job_key(s, &t[i], i ? &es : first, i, n, id, key, sizeof(key));
        pd_entries_free(&es);
        fputs(i ? ", " : "", me);
        diag_write_json_string(me, key);
        if (n > 1 && (i < LIST_MAX - 1 || i + 1 == n))
            fprintf(mm, "%s%s", i ? ", " : "", key);
        else if (n > 1 && i == LIST_MAX - 1)
            fputs(", ...", mm);
    }
    fputc(']', me);
    return 0;
}

/* A job's fields (compared or not) as one JSON object into mo. */
static void describe_object(const struct entries *first, FILE *mo)
{
    size_t listed = 0;

    for (size_t e = 0; e < first->n; e++) {
        const struct entry *one = &first->v[e];

        if (one->type == E_STEP)
            fputs(one->json, mo);
        else if (one->type == E_FIELD || one->type == E_QUIET) {
            fputs(listed++ ? ", " : "{", mo);
            diag_write_json_string(mo, one->name);
            fprintf(mo, ": %s", one->json);
        }
    }
    if (!pd_entry_find(first, E_STEP, ""))
        fputs(listed ? "}" : "{}", mo);
}

/* Where a job runs (the first of its dialect's machine fields it has) and its commands,
 * into mm after what it holds (`lines`: something). */
static void describe_runs(const struct side *s, const struct entries *first, bool lines, FILE *mm)
{
    const char *const *machine = s->dialect->diff->machine;
    const struct entry *where = NULL;
    size_t commands = 0;

    for (size_t k = 0; machine && machine[k] && !where; k++)
        where = pd_field_entry(first, machine[k]);
    if (where)
        fprintf(mm, "%s%s: %.*s", lines ? "\n" : "", where->name, (int)strcspn(where->value, "\x1f"), where->value);
    for (size_t e = 0; e < first->n; e++) {
        if (first->v[e].type == E_COMMAND && commands++ < LIST_MAX)
            fprintf(mm, "%s%s: %s", lines || where || commands > 1 ? "\n" : "", first->v[e].name,
                    first->v[e].value);
    }
    if (commands > LIST_MAX)
        fprintf(mm, "\n... (%zu more)", commands - LIST_MAX);
}

/* A step one side has alone, described: its first job as a JSON object, *extra its
 * jobs' count and keys (JSON members), and *more the lines that tell a reviewer what an
 * added step runs (its jobs, where, its commands). Malloc'd; 0, or -1 when out of
 * memory or temporary space. */
static int describe_step(struct side *s, const struct shard_tuple *t, unsigned n, const char *id, char **object,
                         char **extra, char **more)
{
    size_t ol, el, ml;
    FILE *mo = open_memstream(object, &ol), *me = open_memstream(extra, &el), *mm = open_memstream(more, &ml);
    struct entries first = {0};
    int rc = -1;

    if (mo && me && mm && pd_entries_read(s, t[0].off, t[0].data_len, &first) == 0 &&
        describe_keys(s, t, n, id, &first, me, mm) == 0) {
        describe_object(&first, mo);
        describe_runs(s, &first, n > 1, mm);
        rc = 0;
    }
    pd_entries_free(&first);
    /* each stream closed whatever the others give: a buffer is final only then */
    if (mo && fclose(mo) != 0)
        rc = -1;
    if (me && fclose(me) != 0)
        rc = -1;
    if (mm && fclose(mm) != 0)
        rc = -1;
    if (rc == 0)
        return 0;
    if (mo)
        free(*object);
    if (me)
        free(*extra);
    if (mm)
        free(*more);
    *object = *extra = *more = NULL;
    return -1;
}

/* ---------- the parents of removed derived jobs ---------- */

#define PARENTS_MAX 65536 /* matched steps kept (24 bytes each); past that, a file's first line */

struct parent_line {
    struct hkey id;
    uint32_t file, line;
};

struct pd_parents {
    struct parent_line *v;
    size_t n, cap;
    bool sorted;
};

void pd_parents_note(struct report *r, const struct side *head, const struct logical *h)
{
    struct pd_parents *p = r->parents;

    if (!head->dialect->diff->derived || h->repeat > 1)
        return;
    if (!p && !(p = r->parents = calloc(1, sizeof(*p)))) {
        r->failed = true;
        return;
    }
    if (p->n == PARENTS_MAX)
        return;
    if (p->n == p->cap) {
        struct parent_line *grown = array_grow(p->v, &p->cap, p->n + 1, 64, sizeof(*grown));

        if (!grown) {
            r->failed = true;
            return;
        }
        p->v = grown;
    }
    p->v[p->n++] = (struct parent_line){h->lid, h->file, h->line};
}

void pd_parents_free(struct report *r)
{
    if (r->parents)
        free(r->parents->v);
    free(r->parents);
    r->parents = NULL;
}

static int parent_cmp(const void *pa, const void *pb)
{
    return pd_hkey_cmp(&((const struct parent_line *)pa)->id, &((const struct parent_line *)pb)->id);
}

/* HEAD's line of the step that job `id` of BASE is derived from (*parent: its identity,
 * a pointer into id), when HEAD has it; NULL when not. */
static const struct parent_line *parent_in_head(struct report *r, const struct side *head, const char *path,
                                                const char *id, size_t len, const char **parent)
{
    struct pd_parents *p = r->parents;
    struct parent_line key;
    uint32_t file = 0;

    if (!p || !(*parent = pd_parent_of(head->dialect->diff->derived, id)))
        return NULL;
    if (!p->sorted) {
        qsort(p->v, p->n, sizeof(*p->v), parent_cmp);
        p->sorted = true;
    }
    /* the parent's identity as HEAD's file of the same path scopes it (its build's) */
    while (file < head->n_paths && strcmp(pd_path_in_operand(head, file), path))
        file++;
    key.id = pd_identity(head, file < head->n_paths ? file : 0, *parent, len - (size_t)(*parent - id));
    return bsearch(&key, p->v, p->n, sizeof(*p->v), parent_cmp);
}

/* Where a step BASE (`s`) has alone, its identity `id` (len bytes) written in its file
 * `file`, is annotated: HEAD has no line of it, and BASE's line in HEAD's file is some
 * other step's. At its parent's line in HEAD, for a job derived from a step HEAD keeps
 * (a test-area AMD mirror dropped: the step whose `mirror` went); else at the reference
 * list (needs, depends_on) of the job that named it in BASE and no longer does in HEAD,
 * its caller, which the pull request's diff shows (the first in HEAD's files, by line);
 * else at HEAD's file of the same path within the operand, at its first line; else on no
 * file (nor for an empty file: the GitHub Action compares a file HEAD deleted with an
 * empty stand-in). The note says which (*note, malloc'd when it names the parent or
 * caller). 0, or -1 when out of memory. */
static int removed_mark(struct report *r, struct finding *f, const struct side *s, const struct side *head,
                        uint32_t file, const char *id, size_t len, char **note)
{
    const char *path = pd_path_in_operand(s, file), *at, *caller;
    const struct parent_line *parent = parent_in_head(r, head, path, id, len, &caller);
    uint32_t line;

    *note = NULL;
    if (parent && pd_side_file(head, parent->file)) {
        if (asprintf(note, "(annotated at %s, which it was derived from: HEAD has no line of it)", caller) < 0) {
            *note = NULL;
            return -1;
        }
        f->part[P_MARK_FILE] = pd_side_file(head, parent->file);
        f->mark = parent->line;
        f->part[P_MARK_NOTE] = *note;
        return 0;
    }
    if (pd_callers_find(r, s, file, id, len, &at, &line, &caller)) {
        if (asprintf(note, "(annotated at %s, whose %s named it: HEAD has no line of it)", caller,
                     r->dialect->reference_field) < 0) {
            *note = NULL;
            return -1;
        }
        f->part[P_MARK_FILE] = at;
        f->mark = line;
        f->part[P_MARK_NOTE] = *note;
        return 0;
    }
    f->part[P_MARK_FILE] = "";
    f->part[P_MARK_NOTE] = "(annotated on no file: HEAD has not its file either)";
    for (uint32_t i = 0; i < head->n_paths; i++) {
        struct stat st;

        if (!strcmp(pd_path_in_operand(head, i), path) && pd_side_file(head, i) &&
            stat(head->paths[i], &st) == 0 && st.st_size > 0) {
            f->part[P_MARK_FILE] = pd_side_file(head, i);
            f->mark = 1;
            f->part[P_MARK_NOTE] = "(annotated at the first line of its file: HEAD has no line of it)";
            return 0;
        }
    }
    return 0;
}

/* Reports a step side `s` has alone; `other` is the other side (whose matrix adjustments
 * may skip every job of a step BASE has). */
static void report_one_side(struct report *r, struct side *s, struct side *other, const struct logical *l,
                            bool added)
{
    char *id = pd_display_id(s, l->id_off, l->id_len, l->repeat), *object = NULL, *extra = NULL,
         *more = NULL, *bare = NULL, *note = NULL, detail[96 + 2 * LABEL_MAX];
    struct shard_tuple *t = pd_read_tuples(s, l);
    const char *kind = added ? "added" : "removed", *reason = NULL;
    struct where w = {NULL, 0, NULL};
    struct finding f;

    if (!id || !t || pd_where_of(s, t, NULL, l->shards, id, &w) != 0 ||
        describe_step(s, t, l->shards, id, &object, &extra, &more) != 0)
        goto fail;
    if (!added && l->matrix && other->n_skipped) { /* read back only when there are skips to match */
        char *row = pd_spooled(s, pd_row_at(&t[0]), t[0].row_len);

        if (!row || !(bare = pd_spooled(s, l->id_off, l->id_len))) {
            free(row);
            goto fail;
        }
        reason = pd_skip_reason(other, bare, row);
        free(row);
    }
    if (reason && l->shards > 1) /* HEAD's adjustments skip every combination */
        snprintf(detail, sizeof(detail), "skipped (%u matrix jobs)%s%.*s", l->shards, *reason ? ": " : "",
                 2 * LABEL_MAX, reason);
    else if (reason)
        snprintf(detail, sizeof(detail), "skipped%s%.*s", *reason ? ": " : "", 2 * LABEL_MAX, reason);
    else if (l->shards > 1)
        snprintf(detail, sizeof(detail), "%s (%u %s)", kind, l->shards,
                 l->matrix ? "matrix jobs" : r->dialect->fanout_jobs);
    else
        snprintf(detail, sizeof(detail), "%s", kind);
    pd_finding_init(&f, kind, id, &w, detail);
    f.part[added ? P_NEW_JSON : P_OLD_JSON] = object;
    f.part[P_EXTRA_JSON] = extra;
    f.part[P_MORE] = added && *more ? more : NULL;
    if (!added && ((!bare && !(bare = pd_spooled(s, l->id_off, l->id_len))) ||
                   removed_mark(r, &f, s, other, t[0].file, bare, l->id_len, &note) != 0))
        goto fail;
    pd_add_finding(r, added ? PH_HEAD : PH_BASE, l->rank, 0, added ? G_ADDED : G_REMOVED, &f);
    if (added) {
        pd_not_run_report(r, s, l, t, &w, id, true, PH_HEAD, l->rank, 1);
        r->added++;
    } else {
        r->removed++;
    }
    goto done;
fail:
    r->failed = true;
done:
    free(id);
    free(bare);
    free(note);
    free(t);
    free(w.label);
    free(object);
    free(extra);
    free(more);
}

static int by_rank(const void *pa, const void *pb)
{
    const struct candidate *a = pa, *b = pb;

    return a->l.rank < b->l.rank ? -1 : a->l.rank > b->l.rank;
}

static int by_name(const void *pa, const void *pb)
{
    const struct field_digest *a = pa, *b = pb;

    return a->name < b->name ? -1 : a->name > b->name;
}

/* The digests of c's first job's compared fields, but those that name it (its identity
 * and label): what a renamed step keeps. An env counts by its entries, a workflow job's
 * steps one by one. */
static int candidate_fields(struct side *s, struct candidate *c)
{
    const struct dialect_diff *dd = s->dialect->diff;
    struct shard_tuple t;
    struct entries es = {0};
    int rc = -1;

    if (pd_shards_read(s, c->l.tuples_off, &t, 1) != 0 ||
        pd_entries_read(s, t.off, t.data_len, &es) != 0 ||
        !(c->fields = malloc((es.n ? es.n : 1) * sizeof(*c->fields))))
        goto done;
    for (size_t i = 0; i < es.n; i++) {
        const struct entry *e = &es.v[i];
        size_t len = strlen(e->name);
        /* an env and own items count by their entries */
        bool named = pd_in_list(dd->identity, e->name, len) || pd_in_list(dd->labels, e->name, len),
             whole = !pd_is_field(dd->env, e->name, len) && !pd_is_field(dd->items, e->name, len);

        if (e->type == E_ENV || e->type == E_SUB || e->type == E_STEP || (e->type == E_FIELD && !named && whole)) {
            c->fields[c->n].name = strhash_fnv1a(e->name, strlen(e->name)) * FNV_PRIME + e->type;
            c->fields[c->n++].value = strhash_fnv1a(e->json, strlen(e->json));
        }
    }
    qsort(c->fields, c->n, sizeof(*c->fields), by_name);
    rc = 0;
done:
    pd_entries_free(&es);
    return rc;
}

/* The percentage of the fields a or b has that both have with the same value. */
unsigned pd_similarity(const struct candidate *a, const struct candidate *b)
{
    size_t i = 0, j = 0, same = 0, all = 0;

    while (i < a->n || j < b->n) {
        all++;
        if (i < a->n && j < b->n && a->fields[i].name == b->fields[j].name)
            same += a->fields[i++].value == b->fields[j++].value;
        else if (j == b->n || (i < a->n && a->fields[i].name < b->fields[j].name))
            i++;
        else
            j++;
    }
    return all ? (unsigned)(same * 100 / all) : 0;
}

/* The steps side s has alone (k: 0 BASE, 1 HEAD): as rename candidates into *c, in
 * rendering order, when `look`; else each reported added or removed at once. */
static int read_unmatched(struct report *r, struct side *s, struct side *other, int k, bool look,
                          struct candidate **c)
{
    if (fflush(s->unmatched) != 0 || fseeko(s->unmatched, 0, SEEK_SET) != 0 ||
        (look && !(*c = calloc(s->n_unmatched, sizeof(**c)))))
        return -1;
    for (uint32_t i = 0; i < s->n_unmatched; i++) {
        struct logical l;

        if (fread(&l, sizeof(l), 1, s->unmatched) != 1)
            return -1;
        if (!look) {
            report_one_side(r, s, other, &l, k == 1);
            continue;
        }
        (*c)[i].l = l;
        if (candidate_fields(s, &(*c)[i]) != 0)
            return -1;
    }
    if (look)
        qsort(*c, s->n_unmatched, sizeof(**c), by_rank);
    return 0;
}

/* The added step not yet paired most alike `removed` (the first of those alike), when
 * RENAME_PERCENT of their fields are (*best: how many); else UINT32_MAX. */
static uint32_t best_rename(const struct candidate *removed, const struct candidate *added, uint32_t n,
                            unsigned *best)
{
    uint32_t at = UINT32_MAX;

    *best = 0;
    for (uint32_t j = 0; j < n; j++) {
        unsigned sim = added[j].paired ? 0 : pd_similarity(removed, &added[j]);

        if (sim >= RENAME_PERCENT && sim > *best) {
            *best = sim;
            at = j;
        }
    }
    return at;
}

/* Each removed step (in BASE's order) a rename of the added step most alike, else
 * removed; the added steps left, added. */
static int pair_renames(struct report *r, struct side *base, struct side *head, struct candidate *const c[2])
{
    for (uint32_t i = 0; i < base->n_unmatched && !r->failed; i++) {
        unsigned best;
        uint32_t at = best_rename(&c[0][i], c[1], head->n_unmatched, &best);
        char *from;

        if (at == UINT32_MAX) {
            report_one_side(r, base, head, &c[0][i].l, false);
            continue;
        }
        c[1][at].paired = true;
        if (!(from = pd_display_id(base, c[0][i].l.id_off, c[0][i].l.id_len, c[0][i].l.repeat)))
            return -1;
        pd_compare_matched(r, base, head, &c[0][i].l, &c[1][at].l, from, best);
        free(from);
    }
    for (uint32_t j = 0; j < head->n_unmatched; j++) {
        if (!c[1][j].paired)
            report_one_side(r, head, base, &c[1][j].l, true);
    }
    return 0;
}

/* The steps one side has alone: each removed step (in BASE's order) is a rename of the
 * added step most alike, when RENAME_PERCENT of their fields are (looked for when each
 * side has at most RENAME_MAX of them); the others are removed or added. */
void pd_report_unmatched(struct report *r, struct side *base, struct side *head)
{
    struct side *sides[2] = {base, head};
    struct candidate *c[2] = {NULL, NULL};
    bool look = base->n_unmatched && head->n_unmatched && base->n_unmatched <= RENAME_MAX &&
                head->n_unmatched <= RENAME_MAX;

    if (read_unmatched(r, base, head, 0, look, &c[0]) != 0 || read_unmatched(r, head, base, 1, look, &c[1]) != 0 ||
        (look && pair_renames(r, base, head, c) != 0))
        r->failed = true;
    for (int k = 0; k < 2; k++) {
        for (uint32_t i = 0; c[k] && i < sides[k]->n_unmatched; i++)
            free(c[k][i].fields);
        free(c[k]);
    }
}

void pd_unmatched_add(struct report *r, struct side *s, const struct logical *l)
{
    if (fwrite(l, sizeof(*l), 1, s->unmatched) != 1)
        r->failed = true;
    s->n_unmatched++;
}
