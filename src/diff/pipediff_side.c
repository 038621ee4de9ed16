#define _GNU_SOURCE /* open_memstream, asprintf, strndup */
/* pipediff_side: one side of a diff: its operand rendered into a sink that spools each
 * job's entries and sorts one record per job, the jobs a matrix adjustment skips, and
 * the records grouped into logical steps (shards together) ranked in rendering order. */
#include "pipediff_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/arrays.h"
#include "fanout/scratch.h"
#include "fanout/strhash.h"
#include "fanout/strset.h"

int pd_hkey_cmp(const struct hkey *a, const struct hkey *b)
{
    if (a->h1 != b->h1)
        return a->h1 < b->h1 ? -1 : 1;
    return a->h2 < b->h2 ? -1 : a->h2 > b->h2;
}

static int step_rec_cmp(const void *pa, const void *pb)
{
    const struct step_rec *a = pa, *b = pb;
    int c = pd_hkey_cmp(&a->id, &b->id);

    if (c)
        return c;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int mark_cmp(const void *a, const void *b)
{
    return pd_hkey_cmp(a, b);
}

static int by_lid(const void *pa, const void *pb)
{
    const struct logical *a = pa, *b = pb;
    int c = pd_hkey_cmp(&a->lid, &b->lid);

    return c ? c : a->first < b->first ? -1 : a->first > b->first;
}

/* Writes out what s->out holds. */
static int spool_flush(struct side *s)
{
    if (s->out.len && fwrite(s->out.buf, 1, s->out.len, s->spool) != s->out.len)
        return -1;
    s->spool_len += s->out.len;
    s->out.len = 0;
    return 0;
}

const char *pd_parent_of(const struct dialect_derived *derived, const char *id)
{
    size_t n = derived ? strlen(derived->prefix) : 0;

    return derived && !strncmp(id, derived->prefix, n) ? id + n : NULL;
}

/* The marker a job derived from job `id` (len bytes) is looked up by: the derived job's
 * identity, which tells the grouping that its parent exists. Once for a fan-out's jobs:
 * they follow one another with one identity. Markers sort apart from the steps, 16 bytes
 * each (they were step records, half of the steps' sort). */
static int record_marker(struct side *s, const struct dialect_derived *derived, unsigned file, const char *id,
                         size_t len)
{
    size_t plen = strlen(derived->prefix);
    char small[256], *prefixed = plen + len <= sizeof(small) ? small : malloc(plen + len);
    struct hkey m;

    if (!prefixed)
        return -1;
    memcpy(prefixed, derived->prefix, plen);
    memcpy(prefixed + plen, id, len);
    m = pd_identity(s, file, prefixed, plen + len);
    if (prefixed != small)
        free(prefixed);
    if (s->seq > 1 && !pd_hkey_cmp(&m, &s->marked))
        return 0;
    s->marked = m;
    return xsort_add(s->marks, &m);
}

const char *pd_path_in_operand(const struct side *s, unsigned file)
{
    return pd_operand_path(s->name, file < s->n_paths ? s->paths[file] : "");
}

/* `k` with `a` and `b` mixed in: an identity made more specific (a repeat, a file). */
struct hkey pd_hkey_mix(struct hkey k, uint64_t a, uint64_t b)
{
    k.h1 = (k.h1 ^ a) * 0x100000001b3ull;
    k.h2 = (k.h2 + b) * 0x9E3779B97F4A7C15ull;
    return k;
}

struct hkey pd_scope_to_file(const struct side *s, unsigned file, struct hkey id)
{
    const char *path = pd_path_in_operand(s, file);
    struct hkey f;

    strhash_pair(path, strlen(path), &f.h1, &f.h2);
    return pd_hkey_mix(id, f.h1, f.h2);
}

struct hkey pd_scope_id(const struct side *s, unsigned file, struct hkey id)
{
    if (s->dialect->diff->identity_per_file)
        return pd_scope_to_file(s, file, id);
    if (s->build_scope && file < s->n_paths)
        return pd_hkey_mix(id, s->build_scope[file].h1, s->build_scope[file].h2);
    return id;
}

struct hkey pd_build_of(const struct side *s, unsigned file)
{
    return s->build_scope && file < s->n_paths ? s->build_scope[file] : (struct hkey){0, 0};
}

struct hkey pd_identity(const struct side *s, unsigned file, const char *id, size_t len)
{
    struct hkey k;

    strhash_pair(id, len, &k.h1, &k.h2);
    return pd_scope_id(s, file, k);
}

static int record_step(void *user, const struct dialect_job *job)
{
    struct side *s = user;
    const struct ynode *step = job->node;
    const char *id = job->id, *title;
    size_t len = job->id_len, title_len = 0, at = s->out.len;
    struct step_rec r;
    struct hkey bare;
    char made[128];
    const char *label = dialect_job_label(job, made, sizeof(made));

    if (s->n_jobs == s->cap_jobs) {
        const struct ynode **grown = array_grow(s->jobs, &s->cap_jobs, s->n_jobs + 1, 64, sizeof(*grown));

        if (!grown)
            return -1;
        s->jobs = grown;
    }
    s->jobs[s->n_jobs++] = step;
    memset(&r, 0, sizeof(r));
    r.seq = s->seq++;
    r.shard = job->shard;
    r.shards = job->shards;
    r.file = job->pos.file;
    r.line = job->pos.line;
    strhash_pair(id, len, &bare.h1, &bare.h2);
    r.id = pd_scope_id(s, job->pos.file, bare);
    /* a finding by its job's key, not its build's: render reports a key dangling in
     * several builds once, at the first, which another build's edit moves (the findings
     * of a key are matched by count) */
    pd_found_job(&s->found, r.file, r.line, s->dialect->diff->identity_per_file ? r.id : bare);
    /* the job's texts in the order step_rec says, written with the jobs before it */
    r.off = s->spool_len + at;
    if (pd_serialize(s, step, &r.digest, &s->out) != 0)
        return -1;
    r.data_len = (uint32_t)(s->out.len - at);
    if (label) {
        r.label_len = (uint32_t)strlen(label);
        if (pd_blob_add(&s->out, label, r.label_len) != 0)
            return -1;
    }
    if (job->row) { /* labelled by its values (dialect_job_label) */
        size_t from = s->out.len;

        if (pd_row_text(&s->out, job->row) != 0)
            return -1;
        r.row_len = (uint32_t)(s->out.len - from);
    }
    if ((title = pd_job_title(s->dialect->diff, step, &title_len)) != NULL) {
        const char *note = job->pos.file < s->n_notes ? s->notes[job->pos.file] : NULL;
        char *shown = s->dialect->diff->label_value ? s->dialect->diff->label_value(note, title, title_len) : NULL;
        int rc;

        /* a label that does not read as text (an expression left to run time) is none:
         * the reader sees the identity, not the expression cut */
        title = s->dialect->diff->label_value ? shown : title;
        title_len = shown ? strlen(shown) : s->dialect->diff->label_value ? 0 : title_len;
        r.title_len = title ? (uint32_t)text_utf8_cut(title, title_len, 4 * LABEL_MAX) : 0;
        rc = title ? pd_blob_add(&s->out, title, r.title_len) : 0;
        free(shown);
        if (rc != 0)
            return -1;
    }
    r.id_len = (uint32_t)len;
    if (pd_blob_add(&s->out, id, len) != 0 || (s->out.len >= SPOOL_CHUNK && spool_flush(s) != 0) ||
        xsort_add(s->steps, &r) != 0 || pd_tally_job(&s->tally, s->durations, s->dialect->diff,
                                                         job->pos.file < s->n_notes ? s->notes[job->pos.file] : NULL, job) != 0)
        return -1;
    return s->dialect->diff->derived ? record_marker(s, s->dialect->diff->derived, job->pos.file, id, len) : 0;
}

static int by_address(const void *pa, const void *pb)
{
    uintptr_t a = (uintptr_t) * (const struct ynode *const *)pa, b = (uintptr_t) * (const struct ynode *const *)pb;

    return a < b ? -1 : a > b;
}

bool pd_is_job(const struct side *s, const struct ynode *n)
{
    return s->n_jobs && bsearch(&n, s->jobs, s->n_jobs, sizeof(*s->jobs), by_address);
}

static int record_failed(struct side *s)
{
    s->failed = true;
    diag_report(s->diag, DIAG_ERROR, DIAG_INPUT, s->name, 0, 0, RULE_IO,
                "cannot record the rendering (out of memory or temporary space)");
    return -1;
}

/* Keeps what top-level pair `top` of file `file` says of its jobs' labels. 0, or -1 when
 * out of memory. */
static int note_labels(struct side *s, unsigned file, const struct ynode *top)
{
    char *note = s->dialect->diff->label_note ? s->dialect->diff->label_note(top) : NULL;

    if (!note)
        return 0;
    if (file >= s->n_notes) {
        char **grown = realloc(s->notes, (file + 1) * sizeof(*grown));

        if (!grown) {
            free(note);
            return -1;
        }
        memset(grown + s->n_notes, 0, (file + 1 - s->n_notes) * sizeof(*grown));
        s->notes = grown;
        s->n_notes = file + 1;
    }
    free(s->notes[file]);
    s->notes[file] = note;
    return 0;
}

static int side_item(void *user, const struct stream_item *item)
{
    struct side *s = user;
    const struct ynode *root = item->doc ? ynode_doc_root(item->doc) : NULL;

    if (item->kind != STREAM_STEP && item->kind != STREAM_PAIR)
        return 0;
    if (item->kind == STREAM_PAIR && note_labels(s, item->pos.file, root) != 0)
        goto fail;
    s->n_jobs = 0;
    if (item->kind == STREAM_STEP && s->dialect->each_job(root, record_step, s) < 0)
        goto fail;
    if (s->n_jobs)
        qsort(s->jobs, s->n_jobs, sizeof(*s->jobs), by_address);
    if (pd_outside_item(s, item, root) == 0)
        return 0;
fail:
    return record_failed(s);
}

static void forget_skipped(struct side *s)
{
    for (size_t i = 0; i < s->n_skipped; i++) {
        free(s->skipped[i].id);
        free(s->skipped[i].row);
        free(s->skipped[i].reason);
    }
    s->n_skipped = s->skipped_bytes = 0;
    s->skipped_sorted = false;
}

/* Keeps what each_job says of a skipped job (its identity and values). */
static int record_skipped(void *user, const struct dialect_job *job)
{
    struct side *s = user;
    struct skipped_job *k = &s->skipped[s->n_skipped];

    if (!job->row) /* only a matrix configuration is told by its values */
        return 0;
    s->blob.len = 0;
    if (pd_row_text(&s->blob, job->row) != 0 || pd_blob_add(&s->blob, "", 1) != 0 ||
        !(k->id = strndup(job->id, job->id_len)) || !(k->row = strdup(s->blob.buf)))
        return -1;
    return 0;
}

static int side_skipped(void *user, const struct ynode *job, const struct ynode *skip)
{
    struct side *s = user;
    struct ynode *items[1] = {(struct ynode *)job};
    const struct ynode seq = {.kind = YNODE_SEQ, .u.seq = {items, 1, 1}};
    bool plain_true = ynode_scalar_is(skip, "true") && skip->style == YNODE_PLAIN;
    const char *reason = plain_true ? "" : ynode_scalar(skip, NULL);
    struct skipped_job *k;

    if (s->n_skipped == SKIPPED_MAX || s->skipped_bytes > SKIPPED_BYTES)
        return 0;
    if (!s->skipped && !(s->skipped = malloc(SKIPPED_MAX * sizeof(*s->skipped))))
        goto fail;
    k = &s->skipped[s->n_skipped];
    *k = (struct skipped_job){NULL, NULL, NULL};
    if (s->dialect->each_job(&seq, record_skipped, s) < 0 || !(k->reason = strdup(reason ? reason : ""))) {
        free(k->id);
        free(k->row);
        goto fail;
    }
    if (k->id && k->row) {
        s->n_skipped++;
        s->skipped_bytes += strlen(k->id) + strlen(k->row) + strlen(k->reason);
    } else
        free(k->reason);
    return 0;
fail:
    return record_failed(s);
}

static void side_reset(void *user)
{
    struct side *s = user;
    bool room;

    xsort_destroy(s->steps);
    s->steps = xsort_create(sizeof(struct step_rec), step_rec_cmp, SORT_BUDGET);
    xsort_destroy(s->marks);
    /* an eighth of a budget; sorted in place: a radix sort was as many instructions, and
     * its second buffer as many pages again to touch */
    s->marks = xsort_create(sizeof(struct hkey), mark_cmp, SORT_BUDGET / 8);
    if (s->spool)
        fclose(s->spool);
    s->spool = scratch_file();
    s->spool_len = 0;
    s->out.len = 0;
    /* all the room it takes at once: grown by doubling from 1 KiB, each larger copy
     * touched pages of its own (the smaller ones freed, 20 pages a side) */
    room = pd_blob_reserve(&s->out, 2 * SPOOL_CHUNK) != NULL;
    s->window_len = 0;
    s->seq = 0;
    pd_outside_destroy(s->outside);
    s->outside = pd_outside_create(s->n_paths);
    s->failed = !room || !s->steps || !s->marks || !s->spool || !s->json_em || !s->outside;
    forget_skipped(s);
    pd_not_run_forget(s);
    pd_tally_clear(&s->tally);
    pd_found_forget_jobs(&s->found);
}

static void side_begin(void *user, const struct dialect *dialect)
{
    struct side *s = user;

    s->dialect = dialect;
    side_reset(s);
}

void pd_side_free(struct side *s)
{
    emit_destroy(s->json_em); /* writes into json_file, which writes into s->json */
    if (s->json_file)
        fclose(s->json_file);
    xsort_destroy(s->steps);
    xsort_destroy(s->marks);
    pd_outside_destroy(s->outside);
    xsort_destroy(s->logicals);
    if (s->spool)
        fclose(s->spool);
    if (s->shards)
        fclose(s->shards);
    if (s->unmatched)
        fclose(s->unmatched);
    for (size_t i = 0; s->names && i < s->n_paths; i++)
        free(s->names[i]);
    free(s->names);
    strset_destroy(s->fields);
    forget_skipped(s);
    free(s->skipped);
    pd_not_run_forget(s);
    free(s->not_run);
    free(s->fanouts);
    for (size_t i = 0; i < s->n_notes; i++)
        free(s->notes[i]);
    free(s->notes);
    pd_tally_clear(&s->tally);
    pd_found_free(&s->found);
    free(s->jobs);
    free(s->blob.buf);
    free(s->out.buf);
    free(s->window);
    free(s->firsts);
    free(s->firsts_before);
    free(s->json.buf);
}

/* The identity of a logical step: its steps' identity and, for the second and later
 * unsharded steps of one identity, the repeat number ("id#2"). */
static struct hkey logical_id(struct hkey id, uint32_t repeat)
{
    return repeat > 1 ? pd_hkey_mix(id, repeat, repeat) : id;
}

static struct shard_tuple tuple_of(const struct step_rec *r)
{
    struct shard_tuple t = {r->digest,  r->off,     r->data_len, r->label_len,
                            r->row_len, r->title_len, r->file,   r->line};

    return t;
}

/* Keeps fan-out l's identity and job count. */
static int note_fanout(struct side *s, const struct logical *l)
{
    if (s->n_fanouts == s->cap_fanouts) {
        struct fanout_count *grown =
            array_grow(s->fanouts, &s->cap_fanouts, s->n_fanouts + 1, 16, sizeof(*grown));

        if (!grown)
            return -1;
        s->fanouts = grown;
    }
    s->fanouts[s->n_fanouts++] = (struct fanout_count){l->lid, l->shards};
    return 0;
}

static int fanout_cmp(const void *pa, const void *pb)
{
    return pd_hkey_cmp(&((const struct fanout_count *)pa)->id, &((const struct fanout_count *)pb)->id);
}

unsigned pd_fanout_jobs(const struct side *s, struct hkey id)
{
    const struct fanout_count key = {id, 0},
                              *found = s->n_fanouts ? bsearch(&key, s->fanouts, s->n_fanouts, sizeof(key), fanout_cmp)
                                                    : NULL;

    return found ? found->jobs : 1;
}

/* Writes the shard tuples of `l` (shards of them, by shard index) and adds it. */
static int close_logical(struct side *s, struct logical *l, const struct shard_tuple *tuples)
{
    size_t size = (size_t)l->shards * sizeof(*tuples);

    if (l->shards > 1 && note_fanout(s, l) != 0)
        return -1;
    l->jobs = 0xcbf29ce484222325ull;
    for (uint32_t k = 0; k < l->shards; k++) {
        l->jobs = (l->jobs ^ tuples[k].digest) * 0x9E3779B97F4A7C15ull;
        l->jobs = (l->jobs ^ l->jobs >> 32 ^ tuples[k].data_len) * 0x9E3779B97F4A7C15ull;
    }
    l->file = tuples[0].file;
    l->line = tuples[0].line;
    l->tuples_off = s->shards_len;
    if (fwrite(tuples, 1, size, s->shards) != size)
        return -1;
    s->shards_len += size;
    s->firsts[l->first / 64] |= 1ull << (l->first % 64);
    return xsort_add(s->logicals, l);
}

static bool grow_tuples(struct shard_tuple **t, size_t *cap, size_t n)
{
    struct shard_tuple *grown;

    if (n <= *cap)
        return true;
    if (!(grown = realloc(*t, (n > *cap * 2 ? n : *cap * 2) * sizeof(*grown))))
        return false;
    *t = grown;
    *cap = n > *cap * 2 ? n : *cap * 2;
    return true;
}

/* The logical steps being gathered from the step records, in identity order. */
struct grouping {
    struct side *s;
    struct logical open;        /* the sharded logical step being gathered */
    bool have_open;
    struct shard_tuple *tuples; /* its jobs, by shard index (a matrix's in order) */
    size_t cap_tuples;
    bool parent;                /* a marker said the identity's parent exists */
    uint32_t repeat;            /* unsharded steps of the identity so far */
};

/* The open logical step, if any, written out. */
static int close_open(struct grouping *g)
{
    if (!g->have_open)
        return 0;
    g->have_open = false;
    return close_logical(g->s, &g->open, g->tuples);
}

/* Adds step record `r` to the open logical step when it is one of its jobs (1), else 0;
 * -1 when out of memory. A matrix's configurations are one logical step however many
 * items hold them (a rendering read again has one per job): they come in rendering
 * order. */
static int join_open(struct grouping *g, const struct step_rec *r)
{
    if (!g->have_open)
        return 0;
    if (r->row_len && g->open.matrix) {
        if (!grow_tuples(&g->tuples, &g->cap_tuples, g->open.shards + 1))
            return -1;
        g->tuples[g->open.shards++] = tuple_of(r);
        return 1;
    }
    if (r->shards > 1 && g->open.shards == r->shards && !g->open.matrix) {
        if (r->shard < g->open.shards)
            g->tuples[r->shard] = tuple_of(r);
        return 1;
    }
    return 0;
}

/* Step record `r`, the first job of a logical step: opens it when it fans out, else
 * writes it out (the identity's repeat number told). */
static int start_logical(struct grouping *g, const struct step_rec *r)
{
    struct logical n;
    struct shard_tuple one;

    memset(&n, 0, sizeof(n));
    n.first = r->seq;
    n.shards = r->row_len ? 1 : r->shards ? r->shards : 1;
    n.matrix = r->row_len != 0;
    n.parent = g->parent;
    n.id_off = r->off + r->data_len + r->label_len + r->row_len + r->title_len;
    n.id_len = r->id_len;
    if (n.shards == 1 && !n.matrix) {
        n.repeat = ++g->repeat;
        n.lid = logical_id(r->id, n.repeat);
        one = tuple_of(r);
        return close_logical(g->s, &n, &one);
    }
    if (close_open(g) != 0 || !grow_tuples(&g->tuples, &g->cap_tuples, n.shards))
        return -1;
    memset(g->tuples, 0, n.shards * sizeof(*g->tuples));
    if (n.matrix)
        g->tuples[0] = tuple_of(r);
    else if (r->shard < n.shards)
        g->tuples[r->shard] = tuple_of(r);
    n.repeat = 1;
    n.lid = logical_id(r->id, 1);
    g->open = n;
    g->have_open = true;
    return 0;
}

/* The step records, in identity order, into logical steps (s->logicals). */
static int group_records(struct grouping *g)
{
    const struct step_rec *r;
    const struct hkey *mark;
    struct hkey group = {0, 0};
    bool have_group = false;
    int joined;

    if (xsort_finish(g->s->steps) != 0 || xsort_finish(g->s->marks) != 0)
        return -1;
    mark = xsort_next(g->s->marks);
    while ((r = xsort_next(g->s->steps)) != NULL) {
        if (!have_group || pd_hkey_cmp(&r->id, &group) != 0) {
            if (close_open(g) != 0)
                return -1;
            /* the markers, in the same order, met as far as this identity */
            while (mark && pd_hkey_cmp(mark, &r->id) < 0)
                mark = xsort_next(g->s->marks);
            g->parent = mark && !pd_hkey_cmp(mark, &r->id);
            g->repeat = 0;
            group = r->id;
            have_group = true;
        }
        if ((joined = join_open(g, r)) < 0 || (!joined && start_logical(g, r) != 0))
            return -1;
    }
    return close_open(g) != 0 || xsort_failed(g->s->steps) || xsort_failed(g->s->marks) ? -1 : 0;
}

static unsigned bits_set(uint64_t w)
{
    w -= (w >> 1) & 0x5555555555555555ull;
    w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
    w = (w + (w >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (unsigned)((w * 0x0101010101010101ull) >> 56);
}

/* Counts the first jobs before each word of s->firsts, for pd_logical_rank. */
static int count_firsts(struct side *s, size_t words)
{
    uint32_t n = 0;

    if (!(s->firsts_before = malloc(words * sizeof(*s->firsts_before))))
        return -1;
    for (size_t w = 0; w < words; w++) {
        s->firsts_before[w] = n;
        n += bits_set(s->firsts[w]);
    }
    return 0;
}

uint32_t pd_logical_rank(const struct side *s, uint32_t first)
{
    uint64_t below = s->firsts[first / 64] & ((1ull << (first % 64)) - 1);

    return s->firsts_before[first / 64] + bits_set(below);
}

/* Groups the step records into logical steps, sorted by identity into s->logicals, and
 * notes the job each begins with (their ranks in rendering order: pd_logical_rank);
 * every job's digest and entries go to the shard spool, so that matched steps compare
 * shard by shard. */
static int group_side(struct side *s)
{
    struct grouping g = {.s = s};
    size_t words = s->seq / 64 + 1;
    int rc;

    s->logicals = xsort_create(sizeof(struct logical), by_lid, SORT_BUDGET);
    s->shards = scratch_file();
    s->shards_len = 0;
    s->shards_at = UINT64_MAX; /* written first: the first read seeks */
    s->n_fanouts = 0;
    s->firsts = calloc(words, sizeof(*s->firsts));
    rc = s->firsts && s->logicals && s->shards && group_records(&g) == 0 && fflush(s->shards) == 0 &&
                 count_firsts(s, words) == 0 && xsort_finish(s->logicals) == 0
             ? 0
             : -1;
    if (s->n_fanouts)
        qsort(s->fanouts, s->n_fanouts, sizeof(*s->fanouts), fanout_cmp);
    free(g.tuples);
    /* the records are grouped: freed now, in the side's own thread (unmapping their
     * buffers, closing their runs' files), not after both sides, when only one thread
     * is left to do it */
    xsort_destroy(s->steps);
    xsort_destroy(s->marks);
    s->steps = s->marks = NULL;
    return rc;
}

int pd_spool_read(struct side *s, uint64_t off, void *buf, size_t len)
{
    int fd = fileno(s->spool);

    if (len == 0)
        return 0; /* before any read there is no window to copy from */
    if (len > SPOOL_CHUNK) {
        for (size_t done = 0; done < len;) {
            ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

            if (n <= 0)
                return -1;
            done += (size_t)n;
        }
        return 0;
    }
    if (off < s->window_off || off + len > s->window_off + s->window_len) {
        /* the pages that hold the text, not SPOOL_CHUNK bytes from it: a changed step
         * reads a few short texts that lie together, some just before the last one read
         * (its label, its identity), each of which read 64 KiB again */
        uint64_t from = off & ~(uint64_t)(SPOOL_PAGE - 1);
        size_t want = (size_t)((off + len - from + SPOOL_PAGE - 1) & ~(uint64_t)(SPOOL_PAGE - 1));
        ssize_t n;

        if (want > SPOOL_CHUNK)
            want = SPOOL_CHUNK, from = off;
        if (!s->window && !(s->window = malloc(SPOOL_CHUNK)))
            return -1;
        s->window_len = 0;
        if ((n = pread(fd, s->window, want, (off_t)from)) < (ssize_t)(off - from + len))
            return -1;
        s->window_off = from;
        s->window_len = (size_t)n;
    }
    memcpy(buf, s->window + (off - s->window_off), len);
    return 0;
}

/* The display id of a logical step: its identity, "#n" for a repeat. */
char *pd_display_id(struct side *s, uint64_t off, uint32_t len, uint32_t repeat)
{
    char *id = malloc(len + 16);

    if (!id || pd_spool_read(s, off, id, len) != 0) {
        free(id);
        return NULL;
    }
    if (repeat > 1)
        snprintf(id + len, 16, "#%u", repeat);
    else
        id[len] = '\0';
    return id;
}

int pd_shards_read(struct side *s, uint64_t off, struct shard_tuple *t, uint32_t n)
{
    /* the steps are compared in the order their tuples were written: a seek (a system
     * call each) only where a read does not go on from the last */
    if (off != s->shards_at && fseeko(s->shards, (off_t)off, SEEK_SET) != 0)
        return -1;
    s->shards_at = UINT64_MAX;
    if (fread(t, sizeof(*t), n, s->shards) != n)
        return -1;
    s->shards_at = off + (uint64_t)n * sizeof(*t);
    return 0;
}

struct shard_tuple *pd_read_tuples_into(struct side *s, const struct logical *l, struct shard_tuple *buf,
                                        size_t cap)
{
    struct shard_tuple *t = l->shards <= cap ? buf : malloc(l->shards * sizeof(*t));

    if (t && pd_shards_read(s, l->tuples_off, t, l->shards) != 0) {
        if (t != buf)
            free(t);
        return NULL;
    }
    return t;
}

struct shard_tuple *pd_read_tuples(struct side *s, const struct logical *l)
{
    return pd_read_tuples_into(s, l, NULL, 0);
}

/* A spooled text (a label or a row) into a malloc'd string; NULL when out of memory. */
char *pd_spooled(struct side *s, uint64_t off, uint32_t len)
{
    char *t = malloc((size_t)len + 1);

    if (t && len && pd_spool_read(s, off, t, len) != 0) {
        free(t);
        return NULL;
    }
    if (t)
        t[len] = '\0';
    return t;
}

/* The label of a job ("part 2"), else "shard <i>"; into buf. */
const char *pd_job_label(struct side *s, const struct shard_tuple *t, unsigned i, char *buf, size_t cap)
{
    if (t->label_len && t->label_len < cap && pd_spool_read(s, pd_label_at(t), buf, t->label_len) == 0) {
        buf[t->label_len] = '\0';
        return buf;
    }
    snprintf(buf, cap, "shard %u", i);
    return buf;
}

/* The name of file `file` of a side's rendering, as its messages give it. */
const char *pd_side_file(const struct side *s, uint32_t file)
{
    if (file >= s->n_paths)
        return NULL;
    if (s->names && s->names[file])
        return s->names[file];
    return strcmp(s->paths[file], "-") ? s->paths[file] : "<stdin>";
}

static int skipped_cmp(const void *pa, const void *pb)
{
    const struct skipped_job *a = pa, *b = pb;
    int c = strcmp(a->id, b->id);

    return c ? c : strcmp(a->row, b->row);
}

/* What HEAD's matrix adjustment said of configuration `row` of step `id` when it
 * skipped it ("" for `skip: true`), or NULL when it did not skip it. */
const char *pd_skip_reason(struct side *s, const char *id, const char *row)
{
    const struct skipped_job key = {(char *)id, (char *)row, NULL}, *found;

    if (!s->n_skipped)
        return NULL;
    if (!s->skipped_sorted) { /* recorded in rendering order; looked up once all are in */
        qsort(s->skipped, s->n_skipped, sizeof(*s->skipped), skipped_cmp);
        s->skipped_sorted = true;
    }
    found = bsearch(&key, s->skipped, s->n_skipped, sizeof(*s->skipped), skipped_cmp);
    return found ? found->reason : NULL;
}

/* Renders side `s` (`paths`, the files of operand `spec` compared now: none when the
 * other side alone has files of opts->dialect) and groups its records into logical
 * steps. */
int pd_render_side(const char *spec, const char *const *paths, size_t n, const struct render_opts *opts,
                   const struct pd_opts *pd, struct pd_runners *rs, unsigned which, const struct hkey *scope,
                   struct side *s, struct diag *d)
{
    static const cookie_io_functions_t to_json = {NULL, pd_json_write, NULL, NULL};
    /* HEAD's rendering for a change: every job kept, those it leaves out told */
    struct render_sink sink = {side_begin, side_item,   side_reset, s, side_skipped,
                               opts->change ? pd_not_run_record : NULL};
    struct render_opts o = *opts;
    int rc;

    memset(s, 0, sizeof(*s));
    s->name = spec;
    s->diag = d;
    s->pd = pd;
    s->build_scope = scope;
    s->durations = rs->durations[which];
    if (pd->n_ignore_fields && !(s->fields = strset_create())) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, spec, 0, 0, RULE_INTERNAL, "out of memory");
        return DIAG_INPUT;
    }
    /* the files by their numbers, for the findings' file:line */
    s->paths = paths;
    s->n_paths = n;
    if (opts->names_root && n && (s->names = calloc(n, sizeof(*s->names))) != NULL) {
        for (size_t i = 0; i < n; i++)
            s->names[i] = render_input_name(opts, paths[i]);
    }
    if ((s->json_file = fopencookie(s, "w", to_json)) != NULL)
        s->json_em = emit_create(s->json_file, EMIT_JSON, NULL);
    o.sink = &sink;
    if (!pd_found_begin(&s->found, s, d)) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, spec, 0, 0, RULE_INTERNAL, "out of memory");
        return DIAG_INPUT;
    }
    if (!n) {
        side_begin(s, opts->dialect); /* no job of that dialect */
    } else {
        /* findings (shard coverage...) are held and the side is still compared */
        rc = render_run(paths, n, &o, s->found.capture);
        if (rc == DIAG_INPUT)
            return rc;
    }
    if (s->failed || spool_flush(s) != 0 || fflush(s->spool) != 0 || ferror(s->spool) || pd_found_end(&s->found) != 0 || group_side(s) != 0 ||
        !(s->unmatched = scratch_file()) || pd_tally_merge(&rs->side[which], &s->tally) != 0) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, spec, 0, 0, RULE_IO,
                    "cannot record the rendering (out of memory or temporary space)");
        return DIAG_INPUT;
    }
    return 0;
}
