/* schema_memo: quiet checks of instances that look alike. A rendering's jobs come in
 * runs of one shape: the shards of a step, and the steps a generator wrote, have the
 * same keys and differ in a few scalars (key, label, command, shard numbers). A check
 * that passed is kept as the instance's shape (kinds, lengths, keys, scalar texts) with
 * every check of a scalar the walk made and its answer. An instance of the same shape
 * is valid when each scalar that differs gives every check its shape's scalar had the
 * same answer: the walk decides on nothing else (keys and lengths are equal), so it
 * would take the same path to the same end. Keywords that compare a container's
 * scalars at once (enum, const, uniqueItems on an object or array) keep a check from
 * being kept. */
#include "schema_internal.h"

#include <stdint.h>
#include <stdlib.h>

#define SHAPES 4        /* kept shapes: a generator's job, with and without depends_on... */
#define SHAPE_NODES 128 /* a larger instance is checked in full */
#define SHAPE_TEXT 8192 /* bytes of its scalars and keys */
#define ALT_TEXT 16
#define MEMO_PROBE 16

enum { D_NULL, D_SCALAR, D_SEQ, D_MAP, D_KEY };
enum { BY_TEXT, BY_TYPE, BY_UNKNOWN };

struct desc {
    unsigned char kind; /* D_* */
    bool plain;         /* a scalar typed by YAML's rules, not a string */
    size_t len;         /* children, or the text's bytes */
    size_t text;        /* offset of the text in `texts` */
    size_t check, checks; /* its scalar's checks: checks[check .. check + checks) */
    unsigned type;        /* a scalar's JSON type (schema_type_of), when it has checks */
    /* its checks look at the type alone: any scalar of that type answers them alike (a
     * generator's plain commands). Found out when a scalar first differs here (BY_*). */
    signed char by_type;
    /* a short text of another instance's scalar here that answered them alike, so
     * that the shards' alternating numbers are not checked again and again */
    bool alt_plain;
    unsigned char alt_len; /* 0: none */
    char alt[ALT_TEXT];
};

struct check {
    size_t at; /* desc index of the scalar */
    const struct schema_node *sn;
    unsigned nesting;
    bool ok;
};

struct shape {
    const struct schema_node *sn; /* the schema it passed; NULL: an empty slot */
    /* SHAPE_NODES descriptions, then SHAPE_TEXT bytes of text, in one block allocated
     * when the slot is first taken, not zeroed: 16 KiB a slot, which the memo held in
     * itself and calloc zeroed, a page fault a page, for every validator (two a render)
     * whether it kept a shape or not */
    struct desc *d;
    size_t n;
    char *texts;
    size_t n_texts;
    struct check *checks;
    size_t n_checks, cap_checks;
    unsigned long used; /* when it last answered, for the slot a new shape takes */
};

/* A scalar of the instance that differs from its shape's (description `at`). */
struct differing {
    size_t at;
    struct ynode *n;
};

struct schema_memo {
    struct schema_recorder rec; /* first: the recorder's callback finds the memo */
    struct shape shapes[SHAPES];
    unsigned long clock;
    struct shape *recording;
    struct ynode *nodes[SHAPE_NODES]; /* the recorded instance's, by desc index */
    struct differing diff[SHAPE_NODES]; /* an instance's scalars that differ from a shape's */
    size_t last;                      /* the shape that answered last */
    size_t near;                      /* recording: the desc index found last */
    /* Instances that matched no kept shape, and those that did: when the memo does not
     * pay (each instance a shape of its own: vLLM's test areas), most instances are
     * checked without it, every MEMO_PROBE-th through it to find out again. */
    unsigned long misses, hits, skipped;
    bool failed;                      /* out of memory while recording */
};

struct schema_memo *schema_memo_create(void)
{
    return calloc(1, sizeof(struct schema_memo));
}

void schema_memo_destroy(struct schema_memo *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < SHAPES; i++) {
        free(m->shapes[i].checks);
        free(m->shapes[i].d);
    }
    free(m);
}

/* Appends the descriptions of `n` and its tree, in pre-order; -1 when it is too large. */
static int describe(struct schema_memo *m, struct shape *s, struct ynode *n)
{
    struct desc *d = &s->d[s->n];
    const char *t;
    size_t len;

    if (s->n == SHAPE_NODES)
        return -1;
    m->nodes[s->n++] = n;
    *d = (struct desc){.kind = !n ? D_NULL : n->kind == YNODE_SEQ ? D_SEQ : n->kind == YNODE_MAP ? D_MAP : D_SCALAR,
                       .len = ynode_len(n)};
    if (d->kind == D_SCALAR) {
        t = ynode_scalar(n, &len);
        if (len > SHAPE_TEXT - s->n_texts)
            return -1;
        d->plain = !ynode_is_string(n);
        d->len = len;
        d->text = s->n_texts;
        memcpy(s->texts + s->n_texts, t, len);
        s->n_texts += len;
    }
    for (size_t i = 0; d->kind == D_SEQ && i < d->len; i++) {
        if (describe(m, s, ynode_item(n, i)) != 0)
            return -1;
    }
    for (size_t i = 0; d->kind == D_MAP && i < d->len; i++) {
        struct desc *k = &s->d[s->n];

        /* a key is compared by its text: checks of it (propertyNames) answer the same */
        if (s->n == SHAPE_NODES || !(t = ynode_scalar(ynode_key(n, i), &len)) || len > SHAPE_TEXT - s->n_texts)
            return -1;
        m->nodes[s->n++] = NULL;
        *k = (struct desc){.kind = D_KEY, .len = len, .text = s->n_texts};
        memcpy(s->texts + s->n_texts, t, len);
        s->n_texts += len;
        if (describe(m, s, ynode_value(n, i)) != 0)
            return -1;
    }
    return 0;
}

/* A check through a $ref is its target's check one level deeper (validate_node): kept
 * as that, so that the $refs of Buildkite's step types to one definition (a step's key
 * is checked by three) are one check to make again, not three. */
static const struct schema_node *through_refs(const struct schema_node *sn, unsigned *nesting)
{
    const struct schema_node *r;

    for (int i = 0; i < 64 && (r = schema_node_ready(sn)) != NULL && !r->owner->failed && r->ref; i++) {
        sn = r->ref;
        ++*nesting;
    }
    return sn;
}

static void record(struct schema_recorder *r, const struct schema_node *sn, struct ynode *n, unsigned nesting,
                   bool ok)
{
    struct schema_memo *m = (struct schema_memo *)r;
    struct shape *s = m->recording;
    size_t at = m->near, k = 0;

    /* the walk meets the scalars mostly in order: searched from the last one found on */
    for (; k < s->n && m->nodes[at] != n; k++)
        at = at + 1 == s->n ? 0 : at + 1;
    if (k == s->n)
        return; /* not one of the instance's scalars: the schema's own (a dependency's names) */
    m->near = at;
    if (s->n_checks == s->cap_checks) {
        size_t cap = s->cap_checks ? 2 * s->cap_checks : 32;
        struct check *grown = realloc(s->checks, cap * sizeof(*grown));

        if (!grown) {
            m->failed = true;
            return;
        }
        s->checks = grown;
        s->cap_checks = cap;
    }
    sn = through_refs(sn, &nesting);
    s->checks[s->n_checks++] = (struct check){at, sn, nesting, ok};
}

/* By scalar, the same checks of one together */
static int by_place(const void *pa, const void *pb)
{
    const struct check *a = pa, *b = pb;

    if (a->at != b->at)
        return a->at < b->at ? -1 : 1;
    if (a->sn != b->sn)
        return (uintptr_t)a->sn < (uintptr_t)b->sn ? -1 : 1;
    if (a->nesting != b->nesting)
        return a->nesting < b->nesting ? -1 : 1;
    return (int)a->ok - (int)b->ok;
}

/* Whether a scalar's answer to `sn` depends on its type alone: no keyword but `type`
 * looks at a scalar's value (the bound: a deep chain is taken to look). A string (a
 * quoted scalar, or one fanout made) has one type whatever its text. `sn` is ready (its
 * keywords compiled): a check recorded it. */
static bool type_only(const struct schema_node *sn, unsigned depth)
{
    const struct schema_node *const *lists[] = {(const struct schema_node *const *)sn->all_of,
                                                (const struct schema_node *const *)sn->any_of,
                                                (const struct schema_node *const *)sn->one_of};
    const size_t counts[] = {sn->n_all_of, sn->n_any_of, sn->n_one_of};
    const struct schema_node *one[] = {sn->not_, sn->if_, sn->then_, sn->else_};

    if (depth > 16 || sn->owner->failed) /* half compiled (out of memory): checked, to fail */
        return false;
    if (sn->ref)
        return type_only(schema_node_ready(sn->ref), depth + 1);
    if (sn->is_bool)
        return true;
    if (sn->enum_values || sn->const_value || sn->pattern || sn->min_length >= 0 || sn->max_length >= 0 ||
        sn->has_min || sn->has_max || sn->has_xmin || sn->has_xmax || sn->has_multiple)
        return false;
    for (size_t l = 0; l < 3; l++) {
        for (size_t i = 0; i < counts[l]; i++) {
            if (lists[l][i] && !type_only(schema_node_ready(lists[l][i]), depth + 1))
                return false;
        }
    }
    for (size_t i = 0; i < 4; i++) {
        if (one[i] && !type_only(schema_node_ready(one[i]), depth + 1))
            return false;
    }
    return true;
}

/* Gives each scalar's description its checks, each once: the same check of the same
 * scalar answers alike; and its type, where the checks look at nothing else (`nodes`:
 * the recorded instance's, by description). */
static void index_checks(struct shape *s, struct ynode *const *nodes)
{
    size_t kept = 0;

    if (s->n_checks) /* checks is NULL before the first */
        qsort(s->checks, s->n_checks, sizeof(*s->checks), by_place);
    for (size_t i = 0; i < s->n_checks; i++) {
        if (!kept || by_place(&s->checks[kept - 1], &s->checks[i]) != 0)
            s->checks[kept++] = s->checks[i];
    }
    s->n_checks = kept;
    for (size_t i = 0; i < s->n; i++) {
        s->d[i].check = s->d[i].checks = 0;
        s->d[i].by_type = BY_UNKNOWN;
    }
    for (size_t i = 0; i < s->n_checks; i++) {
        struct desc *d = &s->d[s->checks[i].at];

        if (!d->checks++) {
            d->check = i;
            d->type = d->plain ? schema_type_of(nodes[s->checks[i].at], NULL) : T_STRING;
        }
    }
}

/* Whether description `d`'s checks look at its scalar's type alone. */
static bool checks_by_type(const struct shape *s, struct desc *d)
{
    if (d->by_type == BY_UNKNOWN) {
        d->by_type = BY_TYPE;
        for (size_t i = d->check; d->by_type == BY_TYPE && i < d->check + d->checks; i++)
            d->by_type = type_only(s->checks[i].sn, 0) ? BY_TYPE : BY_TEXT;
    }
    return d->by_type == BY_TYPE;
}

static bool same_text(const struct ynode *n, const char *text, size_t len, bool plain)
{
    return n->u.scalar.len == len && (n->style == YNODE_PLAIN) == plain && memcmp(n->u.scalar.text, text, len) == 0;
}

/* Whether `n` has shape `s` from description *at on (moved past it); the scalars that
 * differ are added to `diff` (*n_diff of them). */
static bool alike(const struct shape *s, size_t *at, struct ynode *n, struct differing *diff, size_t *n_diff)
{
    size_t here = (*at)++;
    const struct desc *d = &s->d[here];

    if (!n || n->kind != (d->kind == D_SEQ ? YNODE_SEQ : d->kind == D_MAP ? YNODE_MAP : YNODE_SCALAR))
        return !n && d->kind == D_NULL;
    /* a scalar no check looked at may be anything; one that differs is checked again
     * (answers_alike), unless it is the other text that answered alike, or a string
     * where a string's type is all that is looked at */
    if (d->kind == D_SCALAR) {
        if (d->checks && !(d->by_type == BY_TYPE && d->type == T_STRING && n->style != YNODE_PLAIN) &&
            !same_text(n, s->texts + d->text, d->len, d->plain) &&
            !(d->alt_len && same_text(n, d->alt, d->alt_len, d->alt_plain)))
            diff[(*n_diff)++] = (struct differing){here, n};
        return true;
    }
    if (ynode_len(n) != d->len)
        return false;
    for (size_t i = 0; d->kind == D_SEQ && i < d->len; i++) {
        if (!alike(s, at, ynode_item(n, i), diff, n_diff))
            return false;
    }
    for (size_t i = 0; d->kind == D_MAP && i < d->len; i++) {
        const struct desc *k = &s->d[(*at)++];
        const struct ynode *key = ynode_key(n, i);

        if (!ynode_is_scalar(key) || key->u.scalar.len != k->len ||
            memcmp(key->u.scalar.text, s->texts + k->text, k->len) != 0 ||
            !alike(s, at, ynode_value(n, i), diff, n_diff))
            return false;
    }
    return true;
}

/* Whether the differing scalars answer every check their shape's scalars had alike;
 * a short one that does is kept as its place's other text. */
static bool answers_alike(struct shape *s, const struct differing *diff, size_t n_diff)
{
    for (size_t k = 0; k < n_diff; k++) {
        struct desc *d = &s->d[diff[k].at];
        const struct ynode *n = diff[k].n;

        if (checks_by_type(s, d) && schema_type_of(diff[k].n, NULL) == d->type)
            continue;
        for (size_t i = d->check; i < d->check + d->checks; i++) {
            const struct check *c = &s->checks[i];

            if (schema_check_quietly(c->sn, diff[k].n, c->nesting, NULL) != c->ok)
                return false;
        }
        if (n->u.scalar.len && n->u.scalar.len <= ALT_TEXT) {
            d->alt_len = (unsigned char)n->u.scalar.len;
            d->alt_plain = n->style == YNODE_PLAIN;
            memcpy(d->alt, n->u.scalar.text, n->u.scalar.len);
        }
    }
    return true;
}

/* The slot a new shape takes: an empty one, else the one unused longest. */
static struct shape *least_used(struct schema_memo *m)
{
    struct shape *s = &m->shapes[0];

    for (size_t i = 1; i < SHAPES && s->sn; i++) {
        if (!m->shapes[i].sn || m->shapes[i].used < s->used)
            s = &m->shapes[i];
    }
    return s;
}

bool schema_memo_is_valid(struct schema_memo *m, const struct schema_node *sn, struct ynode *instance)
{
    struct shape *s = NULL;
    bool ok;

    if (m->misses > 2 * m->hits + MEMO_PROBE && ++m->skipped % MEMO_PROBE != 0)
        return schema_is_valid(sn, instance);
    /* the shape that answered last first: a run of jobs has one */
    for (size_t i = 0; i < SHAPES; i++) {
        struct shape *kept = &m->shapes[(m->last + i) % SHAPES];
        size_t at = 0, n_diff = 0;

        if (kept->sn != sn || !alike(kept, &at, instance, m->diff, &n_diff))
            continue;
        if (answers_alike(kept, m->diff, n_diff)) {
            kept->used = ++m->clock;
            m->last = (size_t)(kept - m->shapes);
            /* a probe that hits starts the count again: the instances look alike now */
            if (m->misses > 2 * m->hits++ + MEMO_PROBE)
                m->misses = m->hits = 0;
            return true;
        }
        s = kept; /* a check answers otherwise (most likely, fails): checked in full */
        break;
    }
    if (!s)
        s = least_used(m);
    /* checked in full, and kept when it passes */
    m->misses++;
    s->sn = NULL;
    s->n = s->n_texts = s->n_checks = 0;
    if (!s->d && (s->d = malloc(SHAPE_NODES * sizeof(*s->d) + SHAPE_TEXT)) != NULL)
        s->texts = (char *)(s->d + SHAPE_NODES);
    if (!s->d || describe(m, s, instance) != 0)
        return schema_is_valid(sn, instance);
    m->rec = (struct schema_recorder){.checked = record};
    m->recording = s;
    m->near = 0;
    m->failed = false;
    ok = schema_check_quietly(sn, instance, 0, &m->rec);
    if (ok && !m->rec.tainted && !m->failed) {
        index_checks(s, m->nodes);
        s->sn = sn;
        s->used = ++m->clock;
        m->last = (size_t)(s - m->shapes);
    }
    return ok;
}
