/* Values: reference counted, so that an array or object keeps its identity (GitHub
 * compares them by instance) however many expressions hold it; and the coercions of
 * @actions/expressions' result.ts (truthiness, loose ==, <, >, coerceString). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"

#include "expr_internal.h"

/* malloc and memset, not calloc: glibc's calloc takes no block from its thread cache
 * (150-200 instructions where malloc's take is 30) */
static struct expr_value *new_value(enum expr_kind kind)
{
    struct expr_value *v = malloc(sizeof(*v));

    if (v) {
        memset(v, 0, sizeof(*v));
        v->refs = 1;
        v->kind = (uint8_t)kind;
    }
    return v;
}

/* null, false and true: constants every thread shares, never counted nor freed (refs
 * 0), in read-only memory (a write would fault); a calloc and a free each were a tenth
 * of a workflow's expansion. */
static const struct expr_value constants[] = {
    {.kind = EXPR_NULL}, {.kind = EXPR_BOOL, .u.b = false}, {.kind = EXPR_BOOL, .u.b = true}};

struct expr_value *expr_null(void)
{
    return (struct expr_value *)&constants[0];
}

struct expr_value *expr_unknown(void)
{
    struct expr_value *v = new_value(EXPR_NULL);

    if (v)
        v->unknown = true;
    return v;
}

bool expr_holds_unknown(const struct expr_value *v)
{
    return v && v->kind == EXPR_OBJECT && v->u.obj.unknown;
}

struct expr_value *expr_bool(bool b)
{
    return (struct expr_value *)&constants[b ? 2 : 1];
}

struct expr_value *expr_number(double d)
{
    struct expr_value *v = new_value(EXPR_NUMBER);

    if (v)
        v->u.d = d;
    return v;
}

struct expr_value *expr_string(const char *s, size_t len)
{
    /* One block: the text follows the value. */
    struct expr_value *v = len < SIZE_MAX - sizeof(*v) - 1 ? malloc(sizeof(*v) + len + 1) : NULL;

    if (!v)
        return NULL;
    memset(v, 0, sizeof(*v)); /* as new_value: the text is written next */
    v->refs = 1;
    v->kind = EXPR_STRING;
    v->u.str.s = (char *)(v + 1);
    if (len)
        memcpy(v->u.str.s, s, len);
    v->u.str.s[len] = '\0';
    v->u.str.len = len;
    return v;
}

struct expr_value *expr_array(void)
{
    return new_value(EXPR_ARRAY);
}

struct expr_value *expr_filtered_array(void)
{
    struct expr_value *v = new_value(EXPR_ARRAY);

    if (v)
        v->filtered = true;
    return v;
}

struct expr_value *expr_object(void)
{
    return new_value(EXPR_OBJECT);
}

struct expr_value *expr_copy(const struct expr_value *v)
{
    struct expr_value *c;

    if (!v)
        return NULL;
    if (v->kind == EXPR_STRING)
        return expr_string(v->u.str.s, v->u.str.len);
    if (!v->refs)
        return (struct expr_value *)v; /* a constant */
    if (!(c = new_value((enum expr_kind)v->kind)))
        return NULL;
    c->filtered = v->filtered;
    c->unknown = v->unknown;
    if (v->kind == EXPR_ARRAY) {
        for (size_t i = 0; i < v->u.arr.n; i++) {
            if (expr_array_append(c, expr_copy(v->u.arr.items[i])) != 0)
                goto fail;
        }
    } else if (v->kind == EXPR_OBJECT) {
        for (size_t i = 0; i < v->u.obj.n; i++) {
            const struct expr_pair *p = &v->u.obj.pairs[i];

            if (expr_object_set(c, p->key, p->len, expr_copy(p->v)) != 0)
                goto fail;
        }
    } else {
        c->u = v->u;
    }
    return c;
fail:
    expr_unref(c);
    return NULL;
}

struct expr_value *expr_ref(struct expr_value *v)
{
    if (v && v->refs)
        v->refs++;
    return v;
}

void expr_unref(struct expr_value *v)
{
    if (!v || !v->refs || --v->refs > 0)
        return;
    if (v->kind == EXPR_ARRAY) {
        for (size_t i = 0; i < v->u.arr.n; i++)
            expr_unref(v->u.arr.items[i]);
        free(v->u.arr.items);
    } else if (v->kind == EXPR_OBJECT) {
        for (size_t i = 0; i < v->u.obj.n; i++) {
            if (v->u.obj.pairs[i].key != v->u.obj.pairs[i].small)
                free(v->u.obj.pairs[i].key);
            expr_unref(v->u.obj.pairs[i].v);
        }
        free(v->u.obj.pairs);
        free(v->u.obj.slots);
    }
    free(v);
}

int expr_array_append(struct expr_value *array, struct expr_value *item)
{
    if (!item || !array || array->kind != EXPR_ARRAY)
        goto fail;
    if (array->u.arr.n == array->u.arr.cap) {
        struct expr_value **items =
            array_grow(array->u.arr.items, &array->u.arr.cap, array->u.arr.n + 1, 4, sizeof(*items));

        if (!items)
            goto fail;
        array->u.arr.items = items;
    }
    array->u.arr.items[array->u.arr.n++] = item;
    return 0;
fail:
    expr_unref(item);
    return -1;
}

/* ---- object keys: case-insensitive as GitHub's dictionaries (OrdinalIgnoreCase) ---- */

static uint32_t key_hash(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    size_t i = 0;

    while (i < len) {
        unsigned char c = (unsigned char)s[i];

        /* ASCII folds without decoding (expr_fold's first case) */
        h ^= c < 0x80 ? (i++, c >= 'a' && c <= 'z' ? c - 32u : c) : expr_fold(expr_utf8_next(s, len, &i));
        h *= 16777619u;
    }
    return h;
}

static bool key_equal(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t i = 0, j = 0;

    if (alen == blen && !memcmp(a, b, alen)) /* most lookups name a key as it is written */
        return true;
    /* ASCII compared in place, folded only where the bytes differ; from the first
     * other character on, by code points */
    for (; i < alen && i < blen && ((unsigned char)a[i] | (unsigned char)b[i]) < 0x80; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];

        if (x != y && (x >= 'a' && x <= 'z' ? x - 32 : x) != (y >= 'a' && y <= 'z' ? y - 32 : y))
            return false;
    }
    j = i;
    while (i < alen && j < blen) {
        if (expr_fold(expr_utf8_next(a, alen, &i)) != expr_fold(expr_utf8_next(b, blen, &j)))
            return false;
    }
    return i == alen && j == blen;
}

/* Whether keys that start so cannot be equal, told by their first bytes (ASCII folded;
 * anything else is for key_equal): most keys a lookup passes differ there, and
 * key_equal's call was most of a small object's lookup. */
static bool first_differs(const char *a, size_t alen, const char *b, size_t blen)
{
    unsigned char x, y;

    if (!alen || !blen)
        return alen != blen;
    x = (unsigned char)a[0];
    y = (unsigned char)b[0];
    return x != y && (x | y) < 0x80 && (x >= 'a' && x <= 'z' ? x - 32 : x) != (y >= 'a' && y <= 'z' ? y - 32 : y);
}

/* Objects past this many keys get a hash index (a mapping may have 20,000). */
#define INDEX_FROM 8

static int index_build(struct expr_value *o, size_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof(*slots));

    if (!slots)
        return -1;
    for (size_t i = 0; i < o->u.obj.n; i++) {
        const struct expr_pair *p = &o->u.obj.pairs[i];
        size_t s = key_hash(p->key, p->len) & (nslots - 1);

        while (slots[s])
            s = (s + 1) & (nslots - 1);
        slots[s] = (uint32_t)(i + 1);
    }
    free(o->u.obj.slots);
    o->u.obj.slots = slots;
    o->u.obj.nslots = nslots;
    return 0;
}

long expr_object_find(const struct expr_value *o, const char *key, size_t len)
{
    if (o->u.obj.slots) {
        size_t mask = o->u.obj.nslots - 1, s = key_hash(key, len) & mask;

        for (; o->u.obj.slots[s]; s = (s + 1) & mask) {
            const struct expr_pair *p = &o->u.obj.pairs[o->u.obj.slots[s] - 1];

            if (key_equal(p->key, p->len, key, len))
                return (long)o->u.obj.slots[s] - 1;
        }
        return -1;
    }
    /* Most lookups name a key as it is written: its exact bytes first, told apart by
     * their length (keys are unique case-insensitively, so an exact match is the only
     * match), then case-insensitively. */
    for (size_t i = 0; i < o->u.obj.n; i++) {
        const struct expr_pair *p = &o->u.obj.pairs[i];

        if (p->len == len && (!len || (p->key[0] == key[0] && !memcmp(p->key, key, len))))
            return (long)i;
    }
    for (size_t i = 0; i < o->u.obj.n; i++) {
        const struct expr_pair *p = &o->u.obj.pairs[i];

        if (!first_differs(p->key, p->len, key, len) && key_equal(p->key, p->len, key, len))
            return (long)i;
    }
    return -1;
}

/* expr_object_add's work, in expr_object_set too (a call more there was measurable). */
static inline __attribute__((always_inline)) int object_add(struct expr_value *object, const char *key,
                                                            size_t len, struct expr_value *v)
{
    struct expr_pair *p;
    char *copy = NULL;

    if (!v || !object || object->kind != EXPR_OBJECT || object->u.obj.n >= UINT32_MAX - 1)
        goto fail;
    if (object->u.obj.n == object->u.obj.cap) {
        /* 8 at first: a matrix row (often 5 keys) grew twice from 4 */
        p = array_grow(object->u.obj.pairs, &object->u.obj.cap, object->u.obj.n + 1, 8, sizeof(*p));
        if (!p)
            goto fail;
        for (size_t i = 0; i < object->u.obj.n; i++) { /* keys held in their pairs moved with them */
            if (p[i].len < EXPR_KEY_SMALL)
                p[i].key = p[i].small;
        }
        object->u.obj.pairs = p;
    }
    p = &object->u.obj.pairs[object->u.obj.n];
    if (len >= EXPR_KEY_SMALL && !(copy = len < SIZE_MAX ? malloc(len + 1) : NULL))
        goto fail;
    p->key = copy ? copy : p->small;
    if (len)
        memcpy(p->key, key, len);
    p->key[len] = '\0';
    /* The index stays at most half full: rebuilt at twice the size before that. */
    if (object->u.obj.n + 1 > INDEX_FROM && (object->u.obj.n + 1) * 2 > object->u.obj.nslots &&
        index_build(object, object->u.obj.nslots ? object->u.obj.nslots * 2 : 32) != 0)
        goto fail;
    p->len = len;
    p->v = v;
    if (object->u.obj.slots) {
        size_t mask = object->u.obj.nslots - 1, s = key_hash(p->key, len) & mask;

        while (object->u.obj.slots[s])
            s = (s + 1) & mask;
        object->u.obj.slots[s] = (uint32_t)(object->u.obj.n + 1);
    }
    object->u.obj.n++;
    object->u.obj.unknown += v->unknown;
    return 0;
fail:
    free(copy);
    expr_unref(v);
    return -1;
}

int expr_object_set(struct expr_value *object, const char *key, size_t len, struct expr_value *v)
{
    long at = v && object && object->kind == EXPR_OBJECT ? expr_object_find(object, key, len) : -1;

    if (at >= 0) {
        object->u.obj.unknown += (size_t)v->unknown - object->u.obj.pairs[at].v->unknown;
        expr_unref(object->u.obj.pairs[at].v);
        object->u.obj.pairs[at].v = v;
        return 0;
    }
    return object_add(object, key, len, v);
}

int expr_object_add(struct expr_value *object, const char *key, size_t len, struct expr_value *v)
{
    return object_add(object, key, len, v);
}

/* ---- reading ---- */

enum expr_kind expr_kind_of(const struct expr_value *v)
{
    return v ? (enum expr_kind)v->kind : EXPR_NULL;
}

bool expr_bool_value(const struct expr_value *v)
{
    return v && v->kind == EXPR_BOOL && v->u.b;
}

double expr_number_value(const struct expr_value *v)
{
    return v && v->kind == EXPR_NUMBER ? v->u.d : NAN;
}

const char *expr_string_value(const struct expr_value *v, size_t *len)
{
    if (!v || v->kind != EXPR_STRING) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = v->u.str.len;
    return v->u.str.s;
}

size_t expr_len(const struct expr_value *v)
{
    if (!v)
        return 0;
    if (v->kind == EXPR_ARRAY)
        return v->u.arr.n;
    return v->kind == EXPR_OBJECT ? v->u.obj.n : 0;
}

struct expr_value *expr_item(const struct expr_value *array, size_t i)
{
    if (!array || array->kind != EXPR_ARRAY || i >= array->u.arr.n)
        return NULL;
    return array->u.arr.items[i];
}

const char *expr_key(const struct expr_value *object, size_t i, size_t *len)
{
    if (!object || object->kind != EXPR_OBJECT || i >= object->u.obj.n)
        return NULL;
    if (len)
        *len = object->u.obj.pairs[i].len;
    return object->u.obj.pairs[i].key;
}

struct expr_value *expr_member(const struct expr_value *object, size_t i)
{
    if (!object || object->kind != EXPR_OBJECT || i >= object->u.obj.n)
        return NULL;
    return object->u.obj.pairs[i].v;
}

struct expr_value *expr_get(const struct expr_value *object, const char *key, size_t len)
{
    long at;

    if (!object || object->kind != EXPR_OBJECT)
        return NULL;
    at = expr_object_find(object, key, len);
    return at < 0 ? NULL : object->u.obj.pairs[at].v;
}

/* ---- coercions (result.ts) ---- */

bool expr_is_primitive(const struct expr_value *v)
{
    return v->kind != EXPR_ARRAY && v->kind != EXPR_OBJECT;
}

bool expr_truthy(const struct expr_value *v)
{
    switch (v ? v->kind : EXPR_NULL) {
    case EXPR_NULL:
        return false;
    case EXPR_BOOL:
        return v->u.b;
    case EXPR_NUMBER:
        return v->u.d != 0 && !isnan(v->u.d);
    case EXPR_STRING:
        return v->u.str.len > 0;
    default:
        return true;
    }
}

double expr_to_number(const struct expr_value *v)
{
    switch (v->kind) {
    case EXPR_NULL:
        return 0;
    case EXPR_BOOL:
        return v->u.b ? 1 : 0;
    case EXPR_NUMBER:
        return v->u.d;
    case EXPR_STRING:
        return expr_js_to_number(v->u.str.s, v->u.str.len);
    default:
        return NAN;
    }
}

/* One side of a comparison after coerceTypes: a kind, and a number when it became one. */
struct side {
    uint8_t kind;
    double d;
    const struct expr_value *v;
};

static void to_number_side(struct side *s)
{
    s->d = expr_to_number(s->v);
    s->kind = EXPR_NUMBER;
}

/* coerceTypes: number and string meet as numbers; null and booleans become numbers
 * whatever they meet; arrays and objects stay as they are. */
static void coerce(struct side *l, struct side *r)
{
    for (;;) {
        if (l->kind == r->kind)
            return;
        if (l->kind == EXPR_NUMBER && r->kind == EXPR_STRING) {
            to_number_side(r);
            return;
        }
        if (l->kind == EXPR_STRING && r->kind == EXPR_NUMBER) {
            to_number_side(l);
            return;
        }
        if (l->kind == EXPR_NULL || l->kind == EXPR_BOOL) {
            to_number_side(l);
            continue;
        }
        if (r->kind == EXPR_NULL || r->kind == EXPR_BOOL) {
            to_number_side(r);
            continue;
        }
        return;
    }
}

static void sides(const struct expr_value *a, const struct expr_value *b, struct side *l,
                  struct side *r)
{
    l->kind = a->kind;
    l->v = a;
    l->d = a->kind == EXPR_NUMBER ? a->u.d : 0;
    r->kind = b->kind;
    r->v = b;
    r->d = b->kind == EXPR_NUMBER ? b->u.d : 0;
    coerce(l, r);
}

bool expr_equal(const struct expr_value *a, const struct expr_value *b)
{
    struct side l, r;

    sides(a, b, &l, &r);
    if (l.kind != r.kind)
        return false;
    switch (l.kind) {
    case EXPR_NULL:
        return true;
    case EXPR_NUMBER:
        return l.d == r.d; /* false for NaN */
    case EXPR_STRING:
        return expr_fold_compare(a->u.str.s, a->u.str.len, b->u.str.s, b->u.str.len) == 0;
    case EXPR_BOOL:
        return a->u.b == b->u.b;
    default:
        return a == b; /* arrays and objects: the same instance */
    }
}

/* 1 for a > b, -1 for a < b, 0 for neither (different kinds, NaN, arrays...). */
static int order(const struct expr_value *a, const struct expr_value *b)
{
    struct side l, r;

    sides(a, b, &l, &r);
    if (l.kind != r.kind)
        return 0;
    switch (l.kind) {
    case EXPR_NUMBER:
        return l.d > r.d ? 1 : l.d < r.d ? -1 : 0;
    case EXPR_STRING:
        return expr_fold_compare(a->u.str.s, a->u.str.len, b->u.str.s, b->u.str.len);
    case EXPR_BOOL:
        return a->u.b > b->u.b ? 1 : a->u.b < b->u.b ? -1 : 0;
    default:
        return 0;
    }
}

bool expr_greater(const struct expr_value *a, const struct expr_value *b)
{
    return order(a, b) > 0;
}

bool expr_less(const struct expr_value *a, const struct expr_value *b)
{
    return order(a, b) < 0;
}

void expr_buf_coerce(struct strbuf *b, const struct expr_value *v)
{
    char num[EXPR_NUMBUF];

    switch (v->kind) {
    case EXPR_NULL:
        break;
    case EXPR_BOOL:
        strbuf_puts(b, v->u.b ? "true" : "false");
        break;
    case EXPR_NUMBER:
        strbuf_put(b, num, expr_coerce_number(v->u.d, num));
        break;
    case EXPR_STRING:
        strbuf_put(b, v->u.str.s, v->u.str.len);
        break;
    case EXPR_ARRAY:
        strbuf_puts(b, "Array");
        break;
    default:
        strbuf_puts(b, "Object");
        break;
    }
}

char *expr_to_string(const struct expr_value *v)
{
    struct strbuf b = {.max = EXPR_MAX_STRING};
    struct expr_value none = {.kind = EXPR_NULL};

    expr_buf_coerce(&b, v ? v : &none);
    return strbuf_take(&b, NULL);
}

/* ---- contexts ---- */

struct expr_contexts {
    struct {
        char *name;
        struct expr_value *v;
    } *items;
    size_t n, cap;
};

struct expr_contexts *expr_contexts_create(void)
{
    return calloc(1, sizeof(struct expr_contexts));
}

static bool name_equal(const char *a, const char *b)
{
    if (!strcmp(a, b)) /* most names are written as the context's */
        return true;
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;

        if (x != y)
            return false;
    }
    return *a == *b;
}

int expr_contexts_set(struct expr_contexts *c, const char *name, struct expr_value *v)
{
    size_t len = strlen(name);
    char *copy;

    if (!v)
        return -1;
    for (size_t i = 0; i < c->n; i++) {
        if (name_equal(c->items[i].name, name)) {
            expr_unref(c->items[i].v);
            c->items[i].v = v;
            return 0;
        }
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        void *items = realloc(c->items, cap * sizeof(*c->items));

        if (!items)
            goto fail;
        c->items = items;
        c->cap = cap;
    }
    copy = malloc(len + 1);
    if (!copy)
        goto fail;
    memcpy(copy, name, len + 1);
    c->items[c->n].name = copy;
    c->items[c->n++].v = v;
    return 0;
fail:
    expr_unref(v);
    return -1;
}

struct expr_value *expr_contexts_get(const struct expr_contexts *c, const char *name)
{
    for (size_t i = 0; c && i < c->n; i++) {
        if (!first_differs(c->items[i].name, 1, name, 1) && name_equal(c->items[i].name, name))
            return c->items[i].v;
    }
    return NULL;
}

void expr_contexts_destroy(struct expr_contexts *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->items[i].name);
        expr_unref(c->items[i].v);
    }
    free(c->items);
    free(c);
}
