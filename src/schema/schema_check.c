/* schema_check: an instance node validated against a compiled node. Most instances are
 * valid, so a first quiet pass only asks whether (no paths, no messages, stopping at the
 * first failure); only an invalid instance is walked again collecting every violation
 * with its instance path, anyOf/oneOf keeping the errors of the branch that got
 * furthest. A pattern PCRE2 gives up on (a limit) is neither a match nor a failed one:
 * the check says it was not made. */
#include "schema_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/yscalar.h"

#define MAX_DEPTH 256       /* nested validation (a $ref loop that makes no progress) */
#define MATCH_LIMIT 1000000 /* pcre2 backtracking: a hostile pattern stops, not hangs */
/* The JIT's stack for one match. A repeated group such as SchemaStore's `(.|[\r\n])*`
 * takes about 20 bytes a character, and PCRE2's default of 32 KiB stopped at ~1,000
 * characters (a 1.4 KB `matrix: ${{ fromJSON('...') }}` was a false finding): 32 MiB
 * holds the longest scalar fanout reads (SOURCE_MAX_TOKEN, 1 MiB). It is reserved, and
 * only what a match uses is touched. */
#define JIT_STACK_MAX (32u << 20)
#define HEAP_LIMIT_KIB (64u << 10) /* the interpreter's, for a pattern the JIT cannot take */

/* ---------- instance values ---------- */

/* A YAML integer of at most 15 digits (most are: parallelism, timeouts), as strtod reads
 * it, without strtod's cost: such a value is exact in a double. */
static bool small_decimal(const char *t, size_t len, double *v)
{
    size_t i = t[0] == '-' || t[0] == '+';
    unsigned long long x = 0;

    if (len == i || len - i > 15)
        return false;
    for (; i < len; i++) {
        if (t[i] < '0' || t[i] > '9')
            return false;
        x = x * 10 + (unsigned)(t[i] - '0');
    }
    *v = t[0] == '-' ? -(double)x : (double)x; /* "-0" is -0.0, as strtod's */
    return true;
}

unsigned schema_type_of(struct ynode *n, double *num)
{
    size_t len;
    const char *t;

    if (!n)
        return T_NULL;
    if (ynode_is_map(n))
        return T_OBJECT;
    if (ynode_is_seq(n))
        return T_ARRAY;
    if (ynode_is_string(n))
        return T_STRING;
    t = ynode_scalar(n, &len);
    if (!t)
        return T_NULL;
    switch (yscalar_type(t, len)) {
    case YS_NULL:
        return T_NULL;
    case YS_BOOL:
        return T_BOOLEAN;
    case YS_INT:
    case YS_FLOAT: {
        char buf[64];
        double v;

        if (small_decimal(t, len, &v)) {
            if (num)
                *num = v;
            return T_NUMBER | T_INTEGER;
        }
        if (len >= sizeof(buf))
            len = sizeof(buf) - 1;
        memcpy(buf, t, len);
        buf[len] = '\0';
        if (len > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'o'))
            v = (double)strtoll(buf + 2, NULL, buf[1] == 'x' ? 16 : 8);
        else if (!strcmp(buf, ".inf") || !strcmp(buf, ".Inf") || !strcmp(buf, ".INF") ||
                 !strcmp(buf, "+.inf") || !strcmp(buf, "+.Inf") || !strcmp(buf, "+.INF"))
            v = INFINITY;
        else if (buf[0] == '-' && buf[1] == '.' && (buf[2] == 'i' || buf[2] == 'I'))
            v = -INFINITY;
        else if (buf[0] == '.' && (buf[1] == 'n' || buf[1] == 'N'))
            v = NAN;
        else
            v = strtod(buf, NULL);
        if (num)
            *num = v;
        return T_NUMBER | (isfinite(v) && v == floor(v) ? T_INTEGER : 0);
    }
    case YS_STRING:
        break;
    }
    return T_STRING;
}

static bool values_equal(struct ynode *a, struct ynode *b);

static bool mapping_has_equal(struct ynode *map, struct ynode *key, struct ynode *value)
{
    long i = ynode_find(map, key->u.scalar.text, key->u.scalar.len);

    return i >= 0 && values_equal(ynode_value(map, (size_t)i), value);
}

/* JSON equality: numbers by value (1 == 1.0), objects regardless of key order. */
static bool values_equal(struct ynode *a, struct ynode *b)
{
    double x = 0, y = 0;
    unsigned ta, tb;

    /* a mapping, a list and a scalar never equal each other: no texts needed */
    if (a && b && a->kind != b->kind)
        return false;
    ta = schema_type_of(a, &x);
    tb = schema_type_of(b, &y);

    if ((ta & ~T_INTEGER) != (tb & ~T_INTEGER))
        return false;
    if (ta & T_NUMBER)
        return x == y;
    if (ta == T_STRING || ta == T_BOOLEAN) {
        size_t la, lb;
        const char *sa = ynode_scalar(a, &la), *sb = ynode_scalar(b, &lb);

        if (ta == T_BOOLEAN)
            return (sa[0] == 't' || sa[0] == 'T') == (sb[0] == 't' || sb[0] == 'T');
        return la == lb && memcmp(sa, sb, la) == 0;
    }
    if (ta == T_ARRAY) {
        if (ynode_len(a) != ynode_len(b))
            return false;
        for (size_t i = 0; i < ynode_len(a); i++) {
            if (!values_equal(ynode_item(a, i), ynode_item(b, i)))
                return false;
        }
        return true;
    }
    if (ta == T_OBJECT) {
        if (ynode_len(a) != ynode_len(b))
            return false;
        for (size_t i = 0; i < ynode_len(a); i++) {
            if (!mapping_has_equal(b, ynode_key(a, i), ynode_value(a, i)))
                return false;
        }
        return true;
    }
    return true; /* both null */
}

static size_t utf8_length(const char *s, size_t len)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

const struct prop *schema_find_prop(const struct schema_node *sn, const char *key, size_t len)
{
    size_t lo = 0, hi = sn->n_props;

    if (sn->by_length && len < PROP_LENGTHS) {
        for (lo = sn->by_length[len], hi = sn->by_length[len + 1]; lo < hi; lo++) {
            if (memcmp(sn->props[lo].name, key, len) == 0)
                return &sn->props[lo];
        }
        return NULL;
    }
    if (sn->by_length)
        lo = sn->by_length[PROP_LENGTHS];

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = prop_order(sn->props[mid].name, sn->props[mid].len, key, len);

        if (c == 0)
            return &sn->props[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ---------- validation ---------- */

struct error {
    char *path, *message;
    enum rule_id rule; /* its keyword's */
    struct ynode *at;
    unsigned depth;
};

struct errors {
    struct error *v;
    size_t n, cap;
    bool oom;
};

/* A pattern PCRE2 gave up on (a limit): neither a match nor a failed one. */
struct undecided {
    struct ynode *at;    /* the value (a key, for patternProperties); NULL: none yet */
    const char *pattern;
    int rc;              /* PCRE2's error */
    char *path;          /* the instance path, when it was being built */
};

/* A pattern's last answer for a value: the alternatives of an anyOf often share a
 * subschema ($ref), and Buildkite's step types each match a step's key against the same
 * two patterns before all but one fail (6 matches a step, 2 different). */
struct match_memo {
    const pcre2_code *re;
    const struct ynode *n;
    int m;
};

#define MATCH_MEMO 4 /* slots, by the pattern */

struct vctx {
    struct errors *errs;  /* NULL: only validity is wanted */
    char *path;           /* the instance path being built */
    size_t path_len, path_cap;
    unsigned depth, nesting;
    struct undecided undecided; /* the first, also from quiet checks */
    struct match_memo memo[MATCH_MEMO];
    struct schema_recorder *rec; /* told each scalar's check (schema_memo.c), or NULL */
    struct ynode *scalar;        /* the scalar whose check rec is told of, while it runs */
    /* the first value that reached a node of a lazily compiled schema whose compile failed
     * (out of memory): the schema is not checked any further, and that is the one error */
    struct ynode *broken;
};

static void errors_truncate(struct errors *e, size_t n)
{
    while (e->n > n) {
        e->n--;
        free(e->v[e->n].path);
        free(e->v[e->n].message);
    }
}

static void fail(struct vctx *c, enum rule_id keyword, struct ynode *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void fail(struct vctx *c, enum rule_id keyword, struct ynode *at, const char *fmt, ...)
{
    struct errors *e = c->errs;
    char msg[512];
    va_list ap;

    if (!e)
        return;
    if (e->n == e->cap) {
        struct error *v = array_grow(e->v, &e->cap, e->n + 1, 16, sizeof(*v));

        if (!v) {
            e->oom = true;
            return;
        }
        e->v = v;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    e->v[e->n].path = strndup(c->path, c->path_len);
    e->v[e->n].message = strdup(msg);
    e->v[e->n].rule = keyword;
    e->v[e->n].at = at;
    e->v[e->n].depth = c->depth;
    if (!e->v[e->n].path || !e->v[e->n].message) {
        free(e->v[e->n].path);
        free(e->v[e->n].message);
        e->oom = true;
        return;
    }
    e->n++;
}

/* Appends a JSON-pointer segment to the path; returns the old length to pop back to.
 * Control characters are written \u00XX, so that a NUL in a key does not end the
 * message that shows the path. */
static size_t push_path(struct vctx *c, const char *seg, size_t len)
{
    size_t old = c->path_len;

    if (c->path_len + 6 * len + 2 > c->path_cap) {
        size_t cap = (c->path_len + 6 * len + 2) * 2;
        char *p = realloc(c->path, cap);

        if (!p)
            return old;
        c->path = p;
        c->path_cap = cap;
    }
    c->path[c->path_len++] = '/';
    for (size_t i = 0; i < len; i++) {
        if (seg[i] == '~' || seg[i] == '/') {
            c->path[c->path_len++] = '~';
            c->path[c->path_len++] = seg[i] == '~' ? '0' : '1';
        } else if ((unsigned char)seg[i] < 0x20) {
            c->path_len += (size_t)sprintf(c->path + c->path_len, "\\u%04x", (unsigned char)seg[i]);
        } else {
            c->path[c->path_len++] = seg[i];
        }
    }
    c->depth++;
    return old;
}

/* A quiet check builds no path: it only asks whether (inline, for it is most checks). */
static inline size_t push(struct vctx *c, const char *seg, size_t len)
{
    return c->errs ? push_path(c, seg, len) : c->path_len;
}

static inline void pop(struct vctx *c, size_t old)
{
    if (!c->errs)
        return;
    if (c->path_len != old)
        c->depth--;
    c->path_len = old;
}

static size_t push_index(struct vctx *c, size_t i)
{
    char num[24];
    int n;

    if (!c->errs)
        return c->path_len;
    n = snprintf(num, sizeof(num), "%zu", i);
    return push(c, num, (size_t)n);
}

static const char *type_word(unsigned t)
{
    if (t & T_INTEGER)
        return "integer";
    if (t & T_NUMBER)
        return "number";
    switch (t) {
    case T_NULL:
        return "null";
    case T_BOOLEAN:
        return "boolean";
    case T_OBJECT:
        return "object";
    case T_ARRAY:
        return "array";
    default:
        return "string";
    }
}

static void describe_types(unsigned types, char *out, size_t cap)
{
    static const unsigned order[] = {T_OBJECT, T_ARRAY, T_STRING, T_INTEGER, T_NUMBER, T_BOOLEAN, T_NULL};
    size_t o = 0;

    out[0] = '\0';
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        if (!(types & order[i]))
            continue;
        o += (size_t)snprintf(out + o, cap - o, "%s%s", o ? " or " : "", type_word(order[i]));
        if (o >= cap)
            break;
    }
}

/* A short rendering of a scalar for messages. */
static void describe_value(struct ynode *n, char *out, size_t cap)
{
    size_t len;
    const char *t = ynode_scalar(n, &len);
    unsigned type = schema_type_of(n, NULL);

    if (!t || type == T_OBJECT || type == T_ARRAY)
        snprintf(out, cap, "%s", type == T_OBJECT ? "an object" : type == T_ARRAY ? "an array" : "null");
    else if (type == T_STRING)
        snprintf(out, cap, "string '%.*s%s'", (int)(len > 60 ? 60 : len), t, len > 60 ? "..." : "");
    else
        snprintf(out, cap, "%s %.*s", type_word(type), (int)(len > 60 ? 60 : len), t);
}

static bool validate(struct vctx *c, const struct schema_node *sn, struct ynode *n);
static bool validate_node(struct vctx *c, const struct schema_node *sn, struct ynode *n);

/* One match context for every pattern: a backtracking limit, so that a hostile pattern
 * stops instead of hanging, and a JIT stack for long values. Made on first use, kept
 * for the process; one a thread (a JIT stack serves one match at a time). */
static pcre2_match_context *match_context(void)
{
    static _Thread_local pcre2_match_context *mctx;
    static _Thread_local pcre2_jit_stack *stack;

    if (!mctx && (mctx = pcre2_match_context_create(NULL)) != NULL) {
        pcre2_set_match_limit(mctx, MATCH_LIMIT);
        pcre2_set_heap_limit(mctx, HEAP_LIMIT_KIB);
        if ((stack = pcre2_jit_stack_create(32u << 10, JIT_STACK_MAX, NULL)) != NULL)
            pcre2_jit_stack_assign(mctx, NULL, stack);
    }
    return mctx;
}

/* Keeps the first pattern PCRE2 gave up on; the value counts as matching it (a limit
 * hit is no evidence against the value) and the check says it was not made. */
static void undecided(struct vctx *c, struct ynode *at, const char *pattern, int rc)
{
    if (c->undecided.at)
        return;
    c->undecided.at = at;
    c->undecided.pattern = pattern;
    c->undecided.rc = rc;
    c->undecided.path = c->errs ? strndup(c->path, c->path_len) : NULL;
}

/* Whether validation can stop: it failed and nobody collects the errors (a quiet
 * check only asks whether the instance is valid). */
static bool settled(const struct vctx *c, bool ok)
{
    return !ok && !c->errs;
}

/* Validity of `n` against `sn` without keeping errors. */
static bool check_quietly(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    struct errors *saved = c->errs;
    bool ok;

    c->errs = NULL;
    ok = validate(c, sn, n);
    c->errs = saved;
    return ok;
}

/* A pattern is JIT-compiled by its first match (a schema's patterns are one thread's): a
 * schema has many that a run never matches (Buildkite's: compiling each, and mapping
 * executable memory for it, was 7 of a one-step render's 180 page faults). Every match
 * still runs JIT-compiled, as before, under the same limits; a pattern the JIT fails on
 * (out of executable memory, a JIT-less PCRE2) is tried once, then interpreted: PCRE2
 * remembers a success only, and compiled it again at every match. */
int schema_match(pcre2_code *re, pcre2_match_data *md, bool *jit_tried, const char *s, size_t len)
{
    int rc;

    if (md && !*jit_tried) {
        *jit_tried = true;
        pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    }
    rc = md ? pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, md, match_context()) : PCRE2_ERROR_NOMEMORY;

    return rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : rc;
}

/* schema_match of value `n` (text t, len) against node `sn`'s pattern, remembered: a
 * pattern answers the same for the same text (and limits), so the answer is reused; a
 * short text's by the text (the node's memo outlives this check), a longer one's by
 * the value. A failure to match at all (PCRE2 out of memory) is not remembered. */
static int match_value(struct vctx *c, const struct schema_node *sn, const struct ynode *n, const char *t,
                       size_t len)
{
    /* the JIT state of a node's pattern changes as a lazy node's keywords do (schema_node_ready) */
    bool *jit = &((struct schema_node *)sn)->pattern_jit_tried;
    struct match_memo *slot = &c->memo[((uintptr_t)sn->pattern >> 4) % MATCH_MEMO];
    struct pattern_memo *pm;
    int m;

    if (sn->pattern_class && len) {
        /* an ASCII text (PCRE2 checks the UTF-8 of any other) by the class */
        bool all = true;
        size_t i = 0;

        for (; i < len && (unsigned char)t[i] < 0x80; i++)
            all = all && sn->pattern_class[(unsigned char)t[i]];
        if (i == len)
            return all;
    }
    if (len == 0 || len > PATTERN_MEMO_TEXT || !sn->pattern_memo) {
        if (slot->re != sn->pattern || slot->n != n)
            *slot = (struct match_memo){sn->pattern, n, schema_match(sn->pattern, sn->pattern_md, jit, t, len)};
        return slot->m;
    }
    pm = &sn->pattern_memo[(len + (unsigned char)t[0] + (unsigned char)t[len - 1]) % PATTERN_MEMO];
    if (pm->len == len && memcmp(pm->text, t, len) == 0)
        return pm->m;
    m = schema_match(sn->pattern, sn->pattern_md, jit, t, len);
    if (m != PCRE2_ERROR_NOMEMORY) {
        pm->len = (unsigned char)len;
        memcpy(pm->text, t, len);
        pm->m = m;
    }
    return m;
}

/* required, minProperties, maxProperties: the checks of the object as a whole. */
static bool check_property_counts(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    bool ok = true;
    int count = (int)ynode_len(n);

    if (sn->required_names) {
        for (size_t i = 0; sn->required_names[i]; i++) {
            if (!ynode_has(n, sn->required_names[i])) {
                ok = false;
                fail(c, RULE_KW_REQUIRED, n, "missing required property '%s'", sn->required_names[i]);
            }
        }
    }
    if (sn->min_props >= 0 && count < sn->min_props) {
        ok = false;
        fail(c, RULE_KW_MIN_PROPERTIES, n, "must have at least %lld properties, has %d", sn->min_props, count);
    }
    if (sn->max_props >= 0 && count > sn->max_props) {
        ok = false;
        fail(c, RULE_KW_MAX_PROPERTIES, n, "must have at most %lld properties, has %d", sn->max_props, count);
    }
    return ok;
}

/* Member `key` (key node `k`, value `v`) against its entry of `properties`; *covered
 * when there is one. */
static bool validate_named(struct vctx *c, const struct schema_node *sn, struct ynode *k, struct ynode *v,
                           const char *key, size_t len, bool *covered)
{
    const struct prop *p = schema_find_prop(sn, key, len);
    const struct schema_node *ps;

    if (!p)
        return true;
    *covered = true;
    ps = deref(p->schema);
    if (ps && ps->is_bool && !ps->bool_value) {
        fail(c, RULE_KW_FALSE, k, "property '%.*s' is not allowed here", (int)len, key);
        return false;
    }
    return validate(c, p->schema, v);
}

/* Member `key` against every `patternProperties` entry it matches, then, when neither
 * a property nor a pattern covers it, `additionalProperties`. */
static bool validate_unnamed(struct vctx *c, const struct schema_node *sn, struct ynode *k, struct ynode *v,
                             const char *key, size_t len, bool covered)
{
    bool ok = true;

    for (size_t i = 0; i < sn->n_pprops; i++) {
        struct pattern_prop *pp = &sn->pprops[i];
        int m = pp->re ? schema_match(pp->re, pp->md, &pp->jit_tried, key, len) : 0;

        if (m < 0)
            undecided(c, k, sn->pprops[i].src, m);
        if (m) {
            covered = true;
            ok = validate(c, sn->pprops[i].schema, v) && ok;
        }
    }
    if (!covered && sn->additional_props) {
        const struct schema_node *a = deref(sn->additional_props);

        if (a && a->is_bool && !a->bool_value) {
            ok = false;
            fail(c, RULE_KW_ADDITIONAL_PROPERTIES, k, "property '%.*s' is not allowed", (int)len, key);
        } else {
            ok = validate(c, sn->additional_props, v) && ok;
        }
    }
    return ok;
}

/* `propertyNames`: the name is checked as a string instance, quietly (one message): a
 * JSON object's names are strings, and so is every key the platforms send (`1:` in a
 * Buildkite matrix's setup is the dimension "1", not the integer 1). */
static bool check_property_name(struct vctx *c, const struct schema_node *sn, struct ynode *k,
                                const char *key, size_t len)
{
    struct ynode name;

    if (!sn->property_names)
        return true;
    name = *k;
    if (name.kind == YNODE_SCALAR && name.style == YNODE_PLAIN)
        name.style = YNODE_DOUBLE_QUOTED;
    if (check_quietly(c, sn->property_names, &name))
        return true;
    fail(c, RULE_KW_PROPERTY_NAMES, k, "property name '%.*s' is not allowed", (int)len, key);
    return false;
}

/* The `dependencies` of member `key`, checked on the object `n` itself: the path is
 * the object's while they are (`old`, the object's length), the member's again after. */
static bool validate_dependencies(struct vctx *c, const struct schema_node *sn, struct ynode *n,
                                  const char *key, size_t len, size_t old)
{
    bool ok = true;

    for (size_t i = 0; i < sn->n_deps; i++) {
        const struct dependency *d = &sn->deps[i];

        if (d->len != len || memcmp(d->name, key, len) != 0)
            continue;
        pop(c, old);
        if (d->names) {
            for (size_t ni = 0; ni < ynode_len(d->names); ni++) {
                size_t nl;
                const char *nn = ynode_scalar(ynode_item(d->names, ni), &nl);

                if (nn && ynode_find(n, nn, nl) < 0) {
                    ok = false;
                    fail(c, RULE_KW_DEPENDENCIES, n, "property '%.*s' requires property '%.*s'",
                         (int)len, key, (int)nl, nn);
                }
            }
        } else {
            ok = validate(c, d->schema, n) && ok;
        }
        push(c, key, len);
    }
    return ok;
}

static bool validate_object(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    bool ok = check_property_counts(c, sn, n);

    for (size_t pi = 0; pi < ynode_len(n); pi++) {
        struct ynode *k = ynode_key(n, pi), *v = ynode_value(n, pi);
        size_t len, old;
        const char *key = ynode_scalar(k, &len);
        bool covered = false;

        if (!key)
            key = "", len = 0;
        old = push(c, key, len);
        ok = validate_named(c, sn, k, v, key, len, &covered) && ok;
        if (settled(c, ok)) {
            pop(c, old);
            return false;
        }
        ok = validate_unnamed(c, sn, k, v, key, len, covered) && ok;
        ok = check_property_name(c, sn, k, key, len) && ok;
        ok = validate_dependencies(c, sn, n, key, len, old) && ok;
        pop(c, old);
    }
    return ok;
}

static bool validate_array(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    size_t count = ynode_len(n);
    struct ynode **items = n->u.seq.items;
    bool ok = true;

    if (sn->min_items >= 0 && (long long)count < sn->min_items) {
        ok = false;
        fail(c, RULE_KW_MIN_ITEMS, n, "must have at least %lld items, has %zu", sn->min_items, count);
    }
    if (sn->max_items >= 0 && (long long)count > sn->max_items) {
        ok = false;
        fail(c, RULE_KW_MAX_ITEMS, n, "must have at most %lld items, has %zu", sn->max_items, count);
    }
    for (size_t i = 0; i < count; i++) {
        const struct schema_node *item_schema = NULL;
        size_t old;

        if (sn->items_is_list)
            item_schema = i < sn->n_item_list ? sn->item_list[i] : sn->additional_items;
        else
            item_schema = sn->items;
        if (!item_schema)
            continue;
        old = push_index(c, i);
        ok = validate(c, item_schema, items[i]) && ok;
        pop(c, old);
        if (settled(c, ok))
            return false;
    }
    if (sn->contains) {
        bool found = false;

        for (size_t i = 0; i < count && !found; i++)
            found = check_quietly(c, sn->contains, items[i]);
        if (!found) {
            ok = false;
            fail(c, RULE_KW_CONTAINS, n, "%s", "must contain an item that matches the 'contains' schema");
        }
    }
    if (sn->unique_items) {
        for (size_t i = 0; i < count; i++) {
            for (size_t j = i + 1; j < count; j++) {
                if (values_equal(items[i], items[j])) {
                    ok = false;
                    fail(c, RULE_KW_UNIQUE_ITEMS, items[j], "items %zu and %zu are equal", i, j);
                    i = j = count;
                }
            }
        }
    }
    return ok;
}

static bool validate_scalar(struct vctx *c, const struct schema_node *sn, struct ynode *n,
                            unsigned type, double num)
{
    bool ok = true;

    if (type & T_NUMBER) {
        if (sn->has_min && num < sn->minimum) {
            ok = false;
            fail(c, RULE_KW_MINIMUM, n, "must be >= %g, got %g", sn->minimum, num);
        }
        if (sn->has_max && num > sn->maximum) {
            ok = false;
            fail(c, RULE_KW_MAXIMUM, n, "must be <= %g, got %g", sn->maximum, num);
        }
        if (sn->has_xmin && num <= sn->xminimum) {
            ok = false;
            fail(c, RULE_KW_EXCLUSIVE_MINIMUM, n, "must be > %g, got %g", sn->xminimum, num);
        }
        if (sn->has_xmax && num >= sn->xmaximum) {
            ok = false;
            fail(c, RULE_KW_EXCLUSIVE_MAXIMUM, n, "must be < %g, got %g", sn->xmaximum, num);
        }
        if (sn->has_multiple) {
            double q = num / sn->multiple_of;

            if (!isfinite(q) || fabs(q - nearbyint(q)) > 1e-9 * fmax(1.0, fabs(q))) {
                ok = false;
                fail(c, RULE_KW_MULTIPLE_OF, n, "must be a multiple of %g", sn->multiple_of);
            }
        }
    }
    if (type == T_STRING && (sn->min_length >= 0 || sn->max_length >= 0 || sn->pattern)) {
        size_t len;
        const char *t = ynode_scalar(n, &len);
        /* counted when the bytes cannot tell: no more bytes than maxLength is no more
         * characters (Buildkite's key: a pattern and maxLength 100) */
        size_t chars = sn->min_length >= 0 || (sn->max_length >= 0 && (long long)len > sn->max_length)
                           ? utf8_length(t, len) : len;

        if (sn->min_length >= 0 && (long long)chars < sn->min_length) {
            ok = false;
            fail(c, RULE_KW_MIN_LENGTH, n, "must be at least %lld characters long, is %zu", sn->min_length, chars);
        }
        if (sn->max_length >= 0 && (long long)chars > sn->max_length) {
            ok = false;
            fail(c, RULE_KW_MAX_LENGTH, n, "must be at most %lld characters long, is %zu", sn->max_length, chars);
        }
        int m = sn->pattern ? match_value(c, sn, n, t, len) : 1;

        if (m == 0) {
            ok = false;
            fail(c, RULE_KW_PATTERN, n, "must match the pattern '%s'", sn->pattern_src);
        } else if (m < 0) {
            undecided(c, n, sn->pattern_src, m);
        }
    }
    return ok;
}

/* The branch that got furthest into the instance: its deepest error is the deepest,
 * then it has the fewest errors. (A step with one bad field deep inside matches its own
 * step type better than every other type rejecting its fields one level down.) */
static size_t closest_branch(const struct errors *all, const size_t *starts, size_t branches)
{
    size_t best = 0, best_n = (size_t)-1;
    unsigned best_depth = 0;

    for (size_t b = 0; b < branches; b++) {
        size_t n = starts[b + 1] - starts[b];
        unsigned depth = 0;

        for (size_t i = starts[b]; i < starts[b + 1]; i++)
            depth = all->v[i].depth > depth ? all->v[i].depth : depth;
        if (b == 0 || depth > best_depth || (depth == best_depth && n < best_n)) {
            best = b;
            best_n = n;
            best_depth = depth;
        }
    }
    return best;
}

/* anyOf / oneOf: keeps only the closest branch's errors, or one summary when even the
 * closest branch fails at the instance itself on its type. */
static void keep_closest(struct vctx *c, size_t base, size_t *starts, size_t branches,
                         enum rule_id keyword, struct ynode *n)
{
    struct errors *e = c->errs;
    size_t best = closest_branch(e, starts, branches), kept = 0;
    bool shallow = true;

    for (size_t i = starts[best]; i < starts[best + 1]; i++)
        shallow = shallow && e->v[i].depth == c->depth && e->v[i].rule == RULE_TYPE;
    if (shallow) {
        errors_truncate(e, base);
        fail(c, keyword, n, "does not match any of the %zu allowed forms", branches);
        return;
    }
    /* move the chosen branch's errors down to `base` */
    for (size_t i = base; i < e->n; i++) {
        if (i >= starts[best] && i < starts[best + 1]) {
            struct error tmp = e->v[base + kept];

            e->v[base + kept] = e->v[i];
            e->v[i] = tmp;
            kept++;
        }
    }
    errors_truncate(e, base + kept);
}

/* anyOf: valid when one branch is (the first valid one ends the search, its errors
 * and the other branches' dropped); else the closest branch's errors. */
static bool validate_any_of(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    size_t base = c->errs ? c->errs->n : 0;
    size_t *starts = c->errs ? calloc(sn->n_any_of + 1, sizeof(*starts)) : NULL;
    bool any = false;

    for (size_t i = 0; i < sn->n_any_of && !any; i++) {
        if (starts)
            starts[i] = c->errs->n;
        any = validate(c, sn->any_of[i], n);
        if (starts)
            starts[i + 1] = c->errs->n;
    }
    if (any) {
        if (c->errs)
            errors_truncate(c->errs, base);
    } else if (starts) {
        keep_closest(c, base, starts, sn->n_any_of, RULE_KW_ANY_OF, n);
    }
    free(starts);
    return any;
}

/* oneOf: valid when exactly one branch is; when none is, the closest branch's errors,
 * when more than one, only that. */
static bool validate_one_of(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    size_t base = c->errs ? c->errs->n : 0, first = (size_t)-1, matched = 0;
    size_t *starts = c->errs ? calloc(sn->n_one_of + 1, sizeof(*starts)) : NULL;

    for (size_t i = 0; i < sn->n_one_of; i++) {
        bool v;

        if (starts)
            starts[i] = c->errs->n;
        v = validate(c, sn->one_of[i], n);
        if (starts)
            starts[i + 1] = c->errs->n;
        if (v) {
            if (!matched++)
                first = i;
            else if (matched == 2)
                fail(c, RULE_KW_ONE_OF, n, "matches more than one allowed form (%zu and %zu)", first, i);
        }
    }
    if (matched != 1) {
        if (starts && matched == 0)
            keep_closest(c, base, starts, sn->n_one_of, RULE_KW_ONE_OF, n);
        else if (c->errs) {
            /* keep only the "more than one" message */
            struct error last = c->errs->v[c->errs->n - 1];

            c->errs->n--;
            errors_truncate(c->errs, base);
            c->errs->v[c->errs->n++] = last;
        }
    } else if (c->errs) {
        errors_truncate(c->errs, base);
    }
    free(starts);
    return matched == 1;
}

static bool validate_combinators(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    bool ok = true;

    for (size_t i = 0; i < sn->n_all_of && !settled(c, ok); i++)
        ok = validate(c, sn->all_of[i], n) && ok;
    if (settled(c, ok))
        return false;
    if (sn->n_any_of && !validate_any_of(c, sn, n))
        ok = false;
    if (sn->n_one_of && !validate_one_of(c, sn, n))
        ok = false;
    if (sn->not_ && check_quietly(c, sn->not_, n)) {
        ok = false;
        fail(c, RULE_KW_NOT, n, "%s", "must not match the 'not' schema");
    }
    if (sn->if_) {
        if (check_quietly(c, sn->if_, n)) {
            if (sn->then_)
                ok = validate(c, sn->then_, n) && ok;
        } else if (sn->else_) {
            ok = validate(c, sn->else_, n) && ok;
        }
    }
    return ok;
}

/* `type` against the instance's type (`type`: 0 when it was not worked out, for no
 * keyword needed it). */
static bool check_type(struct vctx *c, const struct schema_node *sn, struct ynode *n, unsigned type)
{
    char want[96], got[96];

    if (!sn->types || (sn->types & type) || ((sn->types & T_NUMBER) && (type & T_NUMBER)) ||
        ((sn->types & T_INTEGER) && (type & T_INTEGER)))
        return true;
    if (c->errs) {
        describe_types(sn->types, want, sizeof(want));
        describe_value(n, got, sizeof(got));
        fail(c, RULE_TYPE, n, "must be %s, got %s", want, got);
    }
    return false;
}

static bool check_enum(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    const struct ynode *values = sn->enum_values;
    bool found = false;
    char got[96], list[200];
    size_t o = 0;

    for (size_t i = 0; i < ynode_len(values) && !found; i++)
        found = values_equal(ynode_item(values, i), n);
    if (found || !c->errs)
        return found;
    list[0] = '\0';
    for (size_t i = 0; i < ynode_len(values) && o < sizeof(list) - 20; i++) {
        size_t len;
        const char *t = ynode_scalar(ynode_item(values, i), &len);

        o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%.*s", o ? ", " : "",
                              (int)(t ? (len > 30 ? 30 : len) : 3), t ? t : "...");
    }
    describe_value(n, got, sizeof(got));
    fail(c, RULE_KW_ENUM, n, "must be one of [%s], got %s", list, got);
    return false;
}

static bool check_const(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    struct ynode *want = sn->const_value == sn->src ? NULL : sn->const_value;

    if (values_equal(want, n))
        return true;
    fail(c, RULE_KW_CONST, n, "%s", "must be the constant value the schema gives");
    return false;
}

/* Whether a keyword compares container `n`'s scalars without checking them one by one:
 * uniqueItems, or an enum or const value of n's kind (values_equal tells containers of
 * two kinds apart by the kinds alone). */
static bool compares_contents(const struct schema_node *sn, const struct ynode *n)
{
    const struct ynode *want = sn->const_value == sn->src ? NULL : sn->const_value;

    if ((sn->unique_items && ynode_is_seq(n)) || (want && want->kind == n->kind))
        return true;
    for (size_t i = 0; i < ynode_len(sn->enum_values); i++) {
        if (ynode_item(sn->enum_values, i)->kind == n->kind)
            return true;
    }
    return false;
}

/* The keywords of a node that is neither a $ref nor a boolean schema. */
static bool validate_keywords(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    double num = 0;
    unsigned type;
    bool ok;

    /* A scalar's type needs its text: work it out only when a keyword looks at it. */
    if (n && ynode_is_map(n))
        type = T_OBJECT;
    else if (n && ynode_is_seq(n))
        type = T_ARRAY;
    else if (sn->needs_scalar_type)
        type = schema_type_of(n, &num);
    else
        type = 0; /* no scalar keyword here */
    if (c->rec && (type == T_OBJECT || type == T_ARRAY) && compares_contents(sn, n))
        c->rec->tainted = true;
    ok = check_type(c, sn, n, type);
    if (sn->enum_values && !check_enum(c, sn, n))
        ok = false;
    if (sn->const_value && !check_const(c, sn, n))
        ok = false;
    if (!settled(c, ok)) {
        if (type == T_OBJECT)
            ok = validate_object(c, sn, n) && ok;
        else if (type == T_ARRAY)
            ok = validate_array(c, sn, n) && ok;
        else
            ok = validate_scalar(c, sn, n, type, num) && ok;
    }
    if (!settled(c, ok))
        ok = validate_combinators(c, sn, n) && ok;
    return ok;
}

static bool validate(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    /* a scalar's check as its container's keyword asks for it, not the $refs and
     * branches it takes on the way (the same scalar) */
    bool ok, told = c->rec && n && n->kind == YNODE_SCALAR && c->scalar != n;
    unsigned nesting = c->nesting;

    if (told)
        c->scalar = n;
    ok = validate_node(c, sn, n);
    if (told) {
        c->scalar = NULL;
        c->rec->checked(c->rec, sn, n, nesting, ok);
    }
    return ok;
}

static bool validate_node(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    bool ok;

    if (c->broken)
        return false;
    if (!(sn = schema_node_ready(sn)))
        return true;
    if (sn->owner->failed) { /* the node may be half compiled: nothing it says holds */
        c->broken = c->broken ? c->broken : n;
        return false;
    }
    if (++c->nesting > MAX_DEPTH) {
        c->nesting--;
        fail(c, RULE_KW_REF, n, "%s", "schema recursion is too deep");
        return false;
    }
    if (sn->ref) {
        ok = validate(c, sn->ref, n);
    } else if (sn->is_bool) {
        ok = sn->bool_value;
        if (!ok)
            fail(c, RULE_KW_FALSE, n, "%s", "no value is allowed here");
    } else {
        ok = validate_keywords(c, sn, n);
    }
    c->nesting--;
    return ok;
}

static int by_specificity(const void *pa, const void *pb)
{
    const struct error *a = pa, *b = pb;
    struct ypos x = ynode_pos(a->at), y = ynode_pos(b->at);

    if (a->depth != b->depth)
        return a->depth > b->depth ? -1 : 1;
    if (x.line != y.line)
        return x.line < y.line ? -1 : 1;
    return x.col < y.col ? -1 : x.col > y.col;
}

/* The pattern PCRE2 gave up on, as an error of its own: neither "does not match" nor a
 * silent pass. */
static void report_undecided(struct vctx *c)
{
    struct undecided *u = &c->undecided;
    PCRE2_UCHAR why[120];
    size_t len = 0;
    const char *t = ynode_scalar(u->at, &len);

    if (u->path) {
        free(c->path);
        c->path = u->path;
        u->path = NULL;
        c->path_len = c->path_cap = strlen(c->path);
        c->depth = 0;
        for (const char *p = c->path; *p; p++)
            c->depth += *p == '/';
    }
    pcre2_get_error_message(u->rc, why, sizeof(why));
    fail(c, RULE_KW_PATTERN, u->at, "not checked against the pattern '%s': PCRE2 gave up on the "
         "%zu-character value (%s)", u->pattern, t ? utf8_length(t, len) : 0, (const char *)why);
}

size_t schema_validate(const struct schema_node *sn, struct ynode *instance, const char *path,
                       schema_error_fn fn, void *user)
{
    struct errors errs = {0};
    struct vctx c = {.errs = &errs};
    size_t n;

    /* Most instances are valid: say so without building paths and messages. */
    if (schema_is_valid(sn, instance))
        return 0;

    c.path = strdup(path ? path : "");
    if (!c.path)
        return 1;
    c.path_len = c.path_cap = strlen(c.path);
    for (const char *p = c.path; *p; p++)
        c.depth += *p == '/';
    validate(&c, sn, instance);
    if (c.broken) {
        /* the eager compile's message (schema.c): the rest came from a schema half read */
        errors_truncate(&errs, 0);
        fail(&c, RULE_SCHEMA, c.broken, "out of memory compiling the schema %s", sn->owner->name);
    } else if (c.undecided.at) {
        report_undecided(&c);
    }
    if (errs.n)
        qsort(errs.v, errs.n, sizeof(*errs.v), by_specificity);
    for (size_t i = 0; i < errs.n; i++) {
        struct schema_error e = {errs.v[i].path, errs.v[i].rule, errs.v[i].message,
                                 errs.v[i].at, errs.v[i].depth};

        fn(user, &e);
    }
    n = errs.n;
    errors_truncate(&errs, 0);
    free(errs.v);
    free(c.path);
    free(c.undecided.path);
    return n;
}

bool schema_check_quietly(const struct schema_node *sn, struct ynode *instance, unsigned nesting,
                          struct schema_recorder *rec)
{
    struct vctx c = {.errs = NULL, .nesting = nesting, .rec = rec};
    bool ok = validate(&c, sn, instance);

    free(c.undecided.path);
    return ok && !c.undecided.at; /* a check not made is not a pass */
}

bool schema_is_valid(const struct schema_node *sn, struct ynode *instance)
{
    return schema_check_quietly(sn, instance, 0, NULL);
}
