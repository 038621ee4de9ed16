#include "fanout/keyindex.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/strhash.h"
#include "fanout/xsort.h"

enum { REC_DEFINE = 0, REC_REFERENCE = 1 };

struct rec {
    uint64_t h1, h2;
    uint32_t kind; /* definitions sort before references */
    uint32_t seq;  /* order of recording, within its kind */
    struct keyindex_entry e;
};

/* An answer for pass 2: reference `seq` names a key with `shards` shards. */
struct answer {
    uint32_t seq;
    uint32_t shards;
};

struct keyindex {
    size_t budget;
    struct xsort *recs;
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
    ki->recs = xsort_create(sizeof(struct rec), rec_cmp, mem_budget);
    if (!ki->recs) {
        free(ki);
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
    free(ki);
}

static int record(struct keyindex *ki, uint32_t kind, uint32_t seq, const char *key, size_t len,
                  unsigned shards, struct ypos pos)
{
    struct rec r;
    size_t keep = len > KEYINDEX_TEXT ? KEYINDEX_TEXT : len;

    memset(&r, 0, sizeof(r));
    strhash_pair(key, len, &r.h1, &r.h2);
    r.kind = kind;
    r.seq = seq;
    memcpy(r.e.key, key, keep);
    if (keep < len)
        memcpy(r.e.key + keep, "...", 3);
    r.e.shards = shards;
    r.e.pos = pos;
    if (xsort_add(ki->recs, &r) != 0) {
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
                problems->collision(user, &first.e, &r->e);
            }
            continue;
        }
        if (have_def && ypos_before(&r->e.pos, &first.e.pos))
            ki->n_forward++;
        if (!have_def) {
            if (problems && problems->dangling)
                problems->dangling(user, &r->e);
        } else if (first.e.shards > 0) {
            struct answer a = {r->seq, first.e.shards};

            if (xsort_add(ki->answers, &a) != 0)
                return -1;
            ki->n_answers++;
            if (problems && problems->sharded)
                problems->sharded(user, r->seq);
        }
    }
    if (xsort_failed(ki->recs) || xsort_finish(ki->answers) != 0)
        return -1;
    /* The records are not needed any more; free their memory before pass 2. */
    xsort_destroy(ki->recs);
    ki->recs = NULL;
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
