#include "fanout/keyindex.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "fanout/scratch.h"
#include "fanout/strhash.h"
#include "fanout/text.h"
#include "fanout/xsort.h"

enum { REC_DEFINE = 0, REC_REFERENCE = 1 };

/* The keys' texts are written out this many bytes at a time (at most a quarter of the
 * budget): a problem's message reads one back, which is seldom, and a larger buffer is
 * only more pages touched (at 10 MB of pipeline, 128 of them a render). */
#define TEXT_CHUNK (64u << 10)

/* 48 bytes: a key's text, which only a problem's message reads, is kept apart (it made
 * the record 96 bytes, and a rendering's records are most of the pages it touches) */
struct rec {
    uint64_t h1, h2;
    uint64_t text; /* where its text is in the index's texts << 8 | its length */
    uint32_t kind; /* definitions sort before references */
    uint32_t seq;  /* order of recording, within its kind */
    unsigned shards;
    struct ypos pos;
};

/* An answer for pass 2: reference `seq` names a key with `shards` shards. */
struct answer {
    uint32_t seq;
    uint32_t shards;
};

struct keyindex {
    size_t budget;
    struct xsort *recs;
    /* the keys' texts, each as messages show it (cut at KEYINDEX_TEXT), one after
     * another: all but the last few (`text_len` of at most `text_cap` bytes) in a
     * temporary file (`spilled` bytes) */
    char *text;
    size_t text_len, text_cap;
    FILE *text_file;
    uint64_t spilled;
    struct xsort *answers;
    uint32_t n_defs, n_refs;
    uint32_t next_ref;            /* pass 2: references asked for so far */
    size_t n_answers;             /* references to sharded keys */
    size_t n_forward;             /* references to a key defined further down */
    const struct answer *pending; /* pass 2: the next answer not yet used */
    bool failed;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int rec_cmp(const void *pa, const void *pb)
{
    const struct rec *a = pa, *b = pb;
    int c;

    if ((c = cmp_u64(a->h1, b->h1)) || (c = cmp_u64(a->h2, b->h2)))
        return c;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return cmp_u64(a->seq, b->seq);
}

static int answer_cmp(const void *pa, const void *pb)
{
    const struct answer *a = pa, *b = pb;

    return cmp_u64(a->seq, b->seq);
}

struct keyindex *keyindex_create(size_t mem_budget)
{
    struct keyindex *ki = calloc(1, sizeof(*ki));

    if (!ki)
        return NULL;
    ki->budget = mem_budget;
    /* half the budget holds as many records as the whole did at 96 bytes */
    ki->recs = xsort_create(sizeof(struct rec), rec_cmp, mem_budget / 2);
    ki->text_cap = mem_budget / 4 < TEXT_CHUNK ? mem_budget / 4 : TEXT_CHUNK;
    if (ki->text_cap < KEYINDEX_TEXT + 3)
        ki->text_cap = KEYINDEX_TEXT + 3;
    ki->text = malloc(ki->text_cap);
    if (!ki->recs || !ki->text) {
        keyindex_destroy(ki);
        return NULL;
    }
    return ki;
}

void keyindex_destroy(struct keyindex *ki)
{
    if (!ki)
        return;
    xsort_destroy(ki->recs);
    xsort_destroy(ki->answers);
    free(ki->text);
    if (ki->text_file)
        fclose(ki->text_file);
    free(ki);
}

/* Keeps text t (len bytes, at most KEYINDEX_TEXT + 3): where it is, or UINT64_MAX when
 * it cannot be written. */
static uint64_t keep_text(struct keyindex *ki, const char *t, size_t len)
{
    if (ki->text_len + len > ki->text_cap) {
        if ((!ki->text_file && !(ki->text_file = scratch_file())) ||
            fwrite(ki->text, 1, ki->text_len, ki->text_file) != ki->text_len || fflush(ki->text_file) != 0)
            return UINT64_MAX;
        ki->spilled += ki->text_len;
        ki->text_len = 0;
    }
    memcpy(ki->text + ki->text_len, t, len);
    ki->text_len += len;
    return ki->spilled + ki->text_len - len;
}

/* Record r as the entry a problem reports; false when its text cannot be read. */
static bool entry_of(const struct keyindex *ki, const struct rec *r, struct keyindex_entry *e)
{
    uint64_t at = r->text >> 8;
    size_t len = (size_t)(r->text & 0xff);

    memset(e, 0, sizeof(*e));
    if (at >= ki->spilled)
        memcpy(e->key, ki->text + (at - ki->spilled), len);
    else if (pread(fileno(ki->text_file), e->key, len, (off_t)at) != (ssize_t)len)
        return false;
    e->shards = r->shards;
    e->pos = r->pos;
    return true;
}

static int record(struct keyindex *ki, uint32_t kind, uint32_t seq, const char *key, size_t len,
                  unsigned shards, struct ypos pos)
{
    struct rec r;
    char text[KEYINDEX_TEXT + 3];
    size_t shown = text_shown(text, key, len, KEYINDEX_TEXT);
    uint64_t at = keep_text(ki, text, shown);

    memset(&r, 0, sizeof(r));
    strhash_pair(key, len, &r.h1, &r.h2);
    r.text = at << 8 | shown;
    r.kind = kind;
    r.seq = seq;
    r.shards = shards;
    r.pos = pos;
    if (at == UINT64_MAX || xsort_add(ki->recs, &r) != 0) {
        ki->failed = true;
        return -1;
    }
    return 0;
}

int keyindex_define(struct keyindex *ki, const char *key, size_t len, unsigned shards,
                    struct ypos pos)
{
    return record(ki, REC_DEFINE, ki->n_defs++, key, len, shards, pos);
}

int keyindex_reference(struct keyindex *ki, const char *key, size_t len, struct ypos pos)
{
    return record(ki, REC_REFERENCE, ki->n_refs++, key, len, 0, pos);
}


static bool ypos_before(const struct ypos *a, const struct ypos *b)
{
    if (a->file != b->file)
        return a->file < b->file;
    if (a->line != b->line)
        return a->line < b->line;
    return a->col < b->col;
}

int keyindex_resolve(struct keyindex *ki, const struct keyindex_problems *problems, void *user)
{
    struct rec first; /* the first definition of the current key, if have_def */
    uint64_t cur_h1 = 0, cur_h2 = 0;
    bool have_key = false, have_def = false;
    const struct rec *r;

    ki->answers = xsort_create(sizeof(struct answer), answer_cmp, ki->budget / 4);
    if (ki->failed || !ki->answers || xsort_finish(ki->recs) != 0)
        return -1;
    while ((r = xsort_next(ki->recs)) != NULL) {
        if (!have_key || r->h1 != cur_h1 || r->h2 != cur_h2) {
            cur_h1 = r->h1;
            cur_h2 = r->h2;
            have_key = true;
            have_def = false;
        }
        if (r->kind == REC_DEFINE) {
            if (!have_def) {
                first = *r;
                have_def = true;
            } else if (problems && problems->collision) {
                struct keyindex_entry a, b;

                if (!entry_of(ki, &first, &a) || !entry_of(ki, r, &b))
                    return -1;
                problems->collision(user, &a, &b);
            }
            continue;
        }
        if (have_def && ypos_before(&r->pos, &first.pos))
            ki->n_forward++;
        if (!have_def) {
            struct keyindex_entry e;

            if (problems && problems->dangling) {
                if (!entry_of(ki, r, &e))
                    return -1;
                problems->dangling(user, &e);
            }
        } else if (first.shards > 0) {
            struct answer a = {r->seq, first.shards};

            if (xsort_add(ki->answers, &a) != 0)
                return -1;
            ki->n_answers++;
            if (problems && problems->sharded)
                problems->sharded(user, r->seq);
        }
    }
    if (xsort_failed(ki->recs) || xsort_finish(ki->answers) != 0)
        return -1;
    /* The records and their texts are not needed any more; free their memory before
     * pass 2. */
    xsort_destroy(ki->recs);
    ki->recs = NULL;
    free(ki->text);
    ki->text = NULL;
    ki->pending = xsort_next(ki->answers);
    return 0;
}

unsigned keyindex_next_reference(struct keyindex *ki)
{
    uint32_t seq = ki->next_ref++;
    unsigned shards;

    if (!ki->pending || ki->pending->seq != seq)
        return 0;
    shards = ki->pending->shards;
    ki->pending = xsort_next(ki->answers);
    return shards;
}

size_t keyindex_sharded_references(const struct keyindex *ki)
{
    return ki->n_answers;
}

size_t keyindex_forward_references(const struct keyindex *ki)
{
    return ki->n_forward;
}

size_t keyindex_count(const struct keyindex *ki)
{
    return ki->n_defs;
}
