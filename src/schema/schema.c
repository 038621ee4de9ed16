#define PCRE2_CODE_UNIT_WIDTH 8
#include "fanout/schema.h"

#include <math.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/bundled.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/ynode.h"
#include "fanout/yscalar.h"

#define METASCHEMA_URI "http://json-schema.org/draft-07/schema"
#define MAX_DEPTH 256       /* nested validation (a $ref loop that makes no progress) */
#define MAX_COMPILE_DEPTH 2000 /* nested compile() calls */
#define MATCH_LIMIT 1000000 /* pcre2 backtracking: a hostile pattern stops, not hangs */
/* The JIT's stack for one match. A repeated group such as SchemaStore's `(.|[\r\n])*`
 * takes about 20 bytes a character, and PCRE2's default of 32 KiB stopped at ~1,000
 * characters (a 1.4 KB `matrix: ${{ fromJSON('...') }}` was a false finding): 32 MiB
 * holds the longest scalar fanout reads (SOURCE_MAX_TOKEN, 1 MiB). It is reserved, and
 * only what a match uses is touched. */
#define JIT_STACK_MAX (32u << 20)
#define HEAP_LIMIT_KIB (64u << 10) /* the interpreter's, for a pattern the JIT cannot take */

enum {
    T_NULL = 1, T_BOOLEAN = 2, T_OBJECT = 4, T_ARRAY = 8, T_NUMBER = 16, T_STRING = 32,
    T_INTEGER = 64,
};

struct prop {
    char *name;
    size_t len;
    struct schema_node *schema;
};

struct pattern_prop {
    pcre2_code *re;
    pcre2_match_data *md;
    const char *src; /* the key that holds the pattern, for messages */
    struct schema_node *schema;
};

struct dependency {
    char *name;
    size_t len;
    struct ynode *names;      /* a list of property names, or NULL */
    struct schema_node *schema; /* or a schema */
};

struct schema_node {
    struct ynode *src;
    size_t index; /* in schema.all */
    bool is_bool, bool_value;
    struct schema_node *ref;
    unsigned types;
    struct ynode *enum_values, *const_value;
    struct prop *props;
    size_t n_props;
    struct pattern_prop *pprops;
    size_t n_pprops;
    struct schema_node *additional_props, *property_names;
    struct ynode *required; /* a list of names */
    const char **required_names;
    struct schema_node *items, *additional_items, *contains;
    struct schema_node **item_list;
    size_t n_item_list;
    bool items_is_list;
    long long min_items, max_items, min_length, max_length, min_props, max_props;
    bool has_min, has_max, has_xmin, has_xmax, has_multiple;
    double minimum, maximum, xminimum, xmaximum, multiple_of;
    bool unique_items;
    struct schema_node **all_of, **any_of, **one_of;
    size_t n_all_of, n_any_of, n_one_of;
    struct schema_node *not_, *if_, *then_, *else_;
    struct dependency *deps;
    size_t n_deps;
    pcre2_code *pattern;
    pcre2_match_data *pattern_md; /* made once, reused by every match */
    char *pattern_src;
    bool needs_scalar_type; /* `type` or a number/string keyword is here */
};

/* A map from a node to a value (a compiled node, a base URI). */
struct ptrmap {
    const void **keys;
    void **vals;
    size_t cap, n;
};

struct doc {
    struct ynode_doc *fyd;
    char *uri; /* without fragment; "" when the schema has no $id */
};

struct anchor {
    char *uri; /* absolute, with or without a fragment */
    struct ynode *node;
};

struct schema {
    char *name;
    struct diag *diag;
    struct doc *docs;
    size_t n_docs;
    struct anchor *anchors;
    size_t n_anchors, cap_anchors;
    struct ptrmap compiled; /* ynode -> schema_node */
    struct ptrmap bases;    /* ynode -> base URI (char *) */
    struct schema_node **all;
    size_t n_all, cap_all;
    unsigned depth; /* of compile() calls */
    bool failed;
};

/* ---------- small helpers ---------- */

static uint64_t ptr_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;

    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static void **ptrmap_slot(struct ptrmap *m, const void *key, bool *found)
{
    size_t i = ptr_hash(key) & (m->cap - 1);

    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    *found = m->keys[i] != NULL;
    m->keys[i] = key;
    return &m->vals[i];
}

static int ptrmap_put(struct ptrmap *m, const void *key, void *val)
{
    bool found;

    if ((m->n + 1) * 2 > m->cap) {
        struct ptrmap g = {0};

        g.cap = m->cap ? m->cap * 2 : 64;
        g.keys = calloc(g.cap, sizeof(*g.keys));
        g.vals = calloc(g.cap, sizeof(*g.vals));
        if (!g.keys || !g.vals) {
            free(g.keys);
            free(g.vals);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (m->keys[i])
                *ptrmap_slot(&g, m->keys[i], &found) = m->vals[i];
        }
        g.n = m->n;
        free(m->keys);
        free(m->vals);
        *m = g;
    }
    *ptrmap_slot(m, key, &found) = val;
    if (!found)
        m->n++;
    return 0;
}

static void *ptrmap_get(const struct ptrmap *m, const void *key)
{
    size_t i;

    if (!m->cap)
        return NULL;
    for (i = ptr_hash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key)
            return m->vals[i];
    }
    return NULL;
}

static void compile_error(struct schema *s, struct ynode *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void compile_error(struct schema *s, struct ynode *at, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    struct ypos pos = ynode_pos(at);

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (!s->failed)
        diag_report(s->diag, DIAG_ERROR, DIAG_INPUT, s->name, pos.line, pos.col, RULE_SCHEMA, "%s", msg);
    s->failed = true;
}

static char *text_of(struct ynode *n)
{
    size_t len;
    const char *t = ynode_scalar(n, &len);

    return t ? strndup(t, len) : NULL;
}

static bool is_true_false(struct ynode *n, bool *value)
{
    if (!n || !ynode_is_scalar(n) || ynode_is_string(n))
        return false;
    if (ynode_scalar_is(n, "true")) {
        *value = true;
        return true;
    }
    if (ynode_scalar_is(n, "false")) {
        *value = false;
        return true;
    }
    return false;
}

/* ---------- instance values ---------- */

/* The JSON type of an instance node (numbers: T_NUMBER, plus T_INTEGER when whole). */
static unsigned type_of(struct ynode *n, double *num)
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
    ta = type_of(a, &x);
    tb = type_of(b, &y);

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

/* ---------- URIs (RFC 3986 reference resolution, enough for $id and $ref) ---------- */

struct uri {
    const char *scheme, *auth, *path, *query, *frag;
    size_t scheme_len, auth_len, path_len, query_len, frag_len;
    bool has_scheme, has_auth, has_query, has_frag;
};

static void uri_split(const char *s, struct uri *u)
{
    const char *p = s, *e;

    memset(u, 0, sizeof(*u));
    for (e = p; *e && *e != ':' && *e != '/' && *e != '?' && *e != '#'; e++)
        ;
    if (*e == ':' && e > p) {
        u->has_scheme = true;
        u->scheme = p;
        u->scheme_len = (size_t)(e - p);
        p = e + 1;
    }
    if (p[0] == '/' && p[1] == '/') {
        p += 2;
        for (e = p; *e && *e != '/' && *e != '?' && *e != '#'; e++)
            ;
        u->has_auth = true;
        u->auth = p;
        u->auth_len = (size_t)(e - p);
        p = e;
    }
    for (e = p; *e && *e != '?' && *e != '#'; e++)
        ;
    u->path = p;
    u->path_len = (size_t)(e - p);
    p = e;
    if (*p == '?') {
        for (e = ++p; *e && *e != '#'; e++)
            ;
        u->has_query = true;
        u->query = p;
        u->query_len = (size_t)(e - p);
        p = e;
    }
    if (*p == '#') {
        u->has_frag = true;
        u->frag = p + 1;
        u->frag_len = strlen(p + 1);
    }
}

/* Appends path `in` with "." and ".." segments removed (RFC 3986 5.2.4). */
static void remove_dots(char *out, size_t *o, const char *in, size_t len)
{
    size_t start = *o, i = 0;

    while (i < len) {
        if (len - i >= 3 && !memcmp(in + i, "../", 3)) {
            i += 3;
        } else if (len - i >= 2 && !memcmp(in + i, "./", 2)) {
            i += 2;
        } else if ((len - i >= 3 && !memcmp(in + i, "/./", 3)) || (len - i == 2 && !memcmp(in + i, "/.", 2))) {
            i += 2;
            if (i >= len)
                out[(*o)++] = '/';
        } else if ((len - i >= 4 && !memcmp(in + i, "/../", 4)) || (len - i == 3 && !memcmp(in + i, "/..", 3))) {
            i += 3;
            while (*o > start && out[*o - 1] != '/')
                (*o)--;
            if (*o > start)
                (*o)--;
            if (i >= len)
                out[(*o)++] = '/';
        } else if ((len - i == 1 && in[i] == '.') || (len - i == 2 && !memcmp(in + i, "..", 2))) {
            i = len;
        } else {
            do
                out[(*o)++] = in[i++];
            while (i < len && in[i] != '/');
        }
    }
}

static void put(char *out, size_t *o, const char *s, size_t n)
{
    memcpy(out + *o, s, n);
    *o += n;
}

static void put_scheme(char *out, size_t *o, const struct uri *u)
{
    put(out, o, u->scheme, u->scheme_len);
    out[(*o)++] = ':';
}

static void put_authority(char *out, size_t *o, const struct uri *u)
{
    put(out, o, "//", 2);
    put(out, o, u->auth, u->auth_len);
}

/* The absolute form of `ref` against `base`. malloc'd. */
static char *uri_resolve(const char *base, const char *ref)
{
    struct uri b, r;
    size_t cap = strlen(base) + strlen(ref) + 8, o = 0;
    char *out = malloc(cap);
    const struct uri *pq;

    if (!out)
        return NULL;
    uri_split(base, &b);
    uri_split(ref, &r);
    if (r.has_scheme || r.has_auth) {
        /* the reference brings its own scheme or authority */
        if (r.has_scheme || b.has_scheme)
            put_scheme(out, &o, r.has_scheme ? &r : &b);
        if (r.has_auth)
            put_authority(out, &o, &r);
        remove_dots(out, &o, r.path, r.path_len);
        pq = &r;
    } else {
        if (b.has_scheme)
            put_scheme(out, &o, &b);
        if (b.has_auth)
            put_authority(out, &o, &b);
        if (r.path_len == 0) {
            put(out, &o, b.path, b.path_len);
            pq = r.has_query ? &r : &b;
        } else if (r.path[0] == '/') {
            remove_dots(out, &o, r.path, r.path_len);
            pq = &r;
        } else {
            /* merge: the base path up to its last '/', then the reference */
            char *merged = malloc(b.path_len + r.path_len + 2);
            size_t m = 0, keep = b.path_len;

            if (!merged) {
                free(out);
                return NULL;
            }
            while (keep > 0 && b.path[keep - 1] != '/')
                keep--;
            if (b.has_auth && b.path_len == 0)
                merged[m++] = '/';
            memcpy(merged + m, b.path, keep);
            m += keep;
            memcpy(merged + m, r.path, r.path_len);
            m += r.path_len;
            remove_dots(out, &o, merged, m);
            free(merged);
            pq = &r;
        }
    }
    if (pq->has_query) {
        out[o++] = '?';
        put(out, &o, pq->query, pq->query_len);
    }
    if (r.has_frag) {
        out[o++] = '#';
        put(out, &o, r.frag, r.frag_len);
    }
    out[o] = '\0';
    return out;
}

/* ---------- the registry of documents, $ids and bases ---------- */

static int add_anchor(struct schema *s, char *uri, struct ynode *node)
{
    if (s->n_anchors == s->cap_anchors) {
        size_t cap = s->cap_anchors ? s->cap_anchors * 2 : 16;
        struct anchor *a = realloc(s->anchors, cap * sizeof(*a));

        if (!a) {
            free(uri);
            return -1;
        }
        s->anchors = a;
        s->cap_anchors = cap;
    }
    s->anchors[s->n_anchors].uri = uri;
    s->anchors[s->n_anchors].node = node;
    s->n_anchors++;
    return 0;
}

static struct ynode *find_anchor(const struct schema *s, const char *uri)
{
    for (size_t i = s->n_anchors; i-- > 0;) {
        if (strcmp(s->anchors[i].uri, uri) == 0)
            return s->anchors[i].node;
    }
    return NULL;
}

static char *strip_fragment(const char *uri)
{
    const char *h = strchr(uri, '#');

    return h ? strndup(uri, (size_t)(h - uri)) : strdup(uri);
}

/* Keywords whose values are schemas, maps of schemas or lists of schemas. */
static const char *const schema_keys[] = {
    "additionalItems", "additionalProperties", "contains", "propertyNames", "not",
    "if", "then", "else", NULL};
static const char *const schema_map_keys[] = {
    "properties", "patternProperties", "definitions", "dependencies", NULL};
static const char *const schema_list_keys[] = {"allOf", "anyOf", "oneOf", NULL};

static int prewalk(struct schema *s, struct ynode *n, const char *base);

static int prewalk_key(struct schema *s, struct ynode *n, const char *key, const char *base)
{
    return prewalk(s, ynode_get(n, key), base);
}

/* Records the base URI of every subschema and registers $ids (a $ref's siblings,
 * $id included, are ignored in draft-07). */
static int prewalk(struct schema *s, struct ynode *n, const char *base)
{
    struct ynode *id;
    char *own = NULL;
    int rc = 0;

    if (!n || !ynode_is_map(n) || ptrmap_get(&s->bases, n))
        return 0;
    id = ynode_get(n, "$id");
    if (id && !ynode_get(n, "$ref") && ynode_scalar(id, NULL)) {
        char *idtext = text_of(id);

        own = idtext ? uri_resolve(base, idtext) : NULL;
        free(idtext);
        if (!own)
            return -1;
        {
            char *frag = strchr(own, '#');

            if (frag && frag[1] && frag[1] != '/') {
                /* "#name": a plain-name anchor; the base stays the parent's */
                char *anchor = strdup(own);

                if (!anchor || add_anchor(s, anchor, n) != 0) {
                    free(own);
                    return -1;
                }
                free(own);
                own = strip_fragment(base);
            } else {
                char *plain = strip_fragment(own);

                free(own);
                own = plain;
                if (!own || add_anchor(s, strdup(own), n) != 0) {
                    free(own);
                    return -1;
                }
            }
        }
        base = own;
    }
    if (!own && !(own = strdup(base)))
        return -1;
    if (ptrmap_put(&s->bases, n, own) != 0) {
        free(own);
        return -1;
    }
    base = own;
    if (ynode_get(n, "$ref"))
        return 0;
    for (const char *const *k = schema_keys; *k && rc == 0; k++)
        rc = prewalk_key(s, n, *k, base);
    for (const char *const *k = schema_map_keys; *k && rc == 0; k++) {
        struct ynode *m = ynode_get(n, *k);

        for (size_t i = 0; ynode_is_map(m) && i < ynode_len(m) && rc == 0; i++)
            rc = prewalk(s, ynode_value(m, i), base);
    }
    for (const char *const *k = schema_list_keys; *k && rc == 0; k++) {
        struct ynode *l = ynode_get(n, *k);

        for (size_t i = 0; ynode_is_seq(l) && i < ynode_len(l) && rc == 0; i++)
            rc = prewalk(s, ynode_item(l, i), base);
    }
    if (rc == 0) {
        struct ynode *items = ynode_get(n, "items");

        if (ynode_is_seq(items)) {
            for (size_t i = 0; i < ynode_len(items) && rc == 0; i++)
                rc = prewalk(s, ynode_item(items, i), base);
        } else {
            rc = prewalk(s, items, base);
        }
    }
    return rc;
}

/* Adds a schema document; its root's base is `uri` (or its own $id). */
static int add_doc(struct schema *s, struct ynode_doc *fyd, const char *uri)
{
    /* the list doubles when its length is a power of two */
    struct doc *d = s->n_docs & (s->n_docs - 1) ? s->docs
                    : realloc(s->docs, (s->n_docs ? 2 * s->n_docs : 1) * sizeof(*d));
    struct ynode *root = ynode_doc_root(fyd);
    struct ynode *id = ynode_get(root, "$id");
    char *base, *idtext = id ? text_of(id) : NULL;

    if (!d) {
        free(idtext);
        return -1;
    }
    s->docs = d;
    base = idtext ? uri_resolve(uri, idtext) : strdup(uri);
    free(idtext);
    if (!base)
        return -1;
    d = &s->docs[s->n_docs++];
    d->fyd = fyd;
    d->uri = strip_fragment(base);
    free(base);
    if (!d->uri || add_anchor(s, strdup(d->uri), root) != 0)
        return -1;
    if (uri[0] && strcmp(uri, d->uri) != 0 && add_anchor(s, strip_fragment(uri), root) != 0)
        return -1;
    return prewalk(s, root, d->uri);
}

/* Reads a schema document (JSON or YAML) from `src` through the same reader and checks
 * as pipelines: its nodes carry their positions. Problems are reported to `d`. */
static struct ynode_doc *load_document(struct source *src, struct diag *d)
{
    struct stream *st = src ? stream_open(src, 0, d) : NULL;
    struct ynode_doc *fyd = NULL;
    int rc = st ? stream_document(st, &fyd) : -1;

    if (rc == 0)
        diag_report(d, DIAG_ERROR, DIAG_INPUT, source_name(src), 0, 0, RULE_SCHEMA,
                    "an empty document");
    stream_close(st);
    source_close(src);
    return fyd;
}

/* The bundled metaschema, loaded on first reference. */
static struct ynode *load_metaschema(struct schema *s)
{
    struct ynode *root = bundled_schema("json-schema-draft-07");
    struct ynode_doc *fyd = root ? ynode_doc_wrap(root) : NULL;

    if (!fyd || add_doc(s, fyd, METASCHEMA_URI) != 0) {
        if (fyd && (s->n_docs == 0 || s->docs[s->n_docs - 1].fyd != fyd))
            ynode_doc_destroy(fyd);
        return NULL;
    }
    return root;
}

/* Follows a JSON pointer (URI fragment form: ~0 ~1 and %XX escapes) from `n`. */
static struct ynode *follow_pointer(struct ynode *n, const char *ptr)
{
    char seg[1024];

    while (n && *ptr == '/') {
        size_t o = 0;

        ptr++;
        while (*ptr && *ptr != '/' && o + 1 < sizeof(seg)) {
            char c = *ptr++;

            if (c == '~' && (*ptr == '0' || *ptr == '1'))
                c = *ptr++ == '0' ? '~' : '/';
            else if (c == '%' && ptr[0] && ptr[1]) {
                char hex[3] = {ptr[0], ptr[1], 0};

                c = (char)strtol(hex, NULL, 16);
                ptr += 2;
            }
            seg[o++] = c;
        }
        seg[o] = '\0';
        if (ynode_is_map(n)) {
            long i = ynode_find(n, seg, o);

            n = i < 0 ? NULL : ynode_value(n, (size_t)i);
        } else if (ynode_is_seq(n)) {
            char *end;
            long idx = strtol(seg, &end, 10);

            n = (*end || idx < 0 || (size_t)idx >= ynode_len(n)) ? NULL : ynode_item(n, (size_t)idx);
        } else {
            n = NULL;
        }
    }
    return *ptr ? NULL : n;
}

static struct ynode *resolve_ref(struct schema *s, struct ynode *at, const char *ref)
{
    const char *base = ptrmap_get(&s->bases, at);
    char *abs = uri_resolve(base ? base : "", ref), *doc_uri, *frag;
    struct ynode *target = NULL;

    if (!abs)
        return NULL;
    frag = strchr(abs, '#');
    doc_uri = strip_fragment(abs);
    if (!doc_uri) {
        free(abs);
        return NULL;
    }
    if (frag && frag[1] && frag[1] != '/') {
        target = find_anchor(s, abs); /* a plain-name anchor */
    } else {
        struct ynode *doc = find_anchor(s, doc_uri);

        if (!doc && strcmp(doc_uri, METASCHEMA_URI) == 0)
            doc = load_metaschema(s);
        target = doc ? follow_pointer(doc, frag ? frag + 1 : "") : NULL;
        /* a pointer into a subschema: the subschema's base is known by prewalk,
         * other nodes get the document's */
        if (target && !ptrmap_get(&s->bases, target) && ynode_is_map(target)) {
            if (prewalk(s, target, doc_uri) != 0)
                target = NULL;
        }
    }
    free(doc_uri);
    free(abs);
    return target;
}

/* ---------- compilation ---------- */

enum kw_type { KW_STRING, KW_MAP, KW_LIST, KW_STRINGS };

/* The keywords whose value type the compiler would not otherwise see (draft-07's
 * metaschema); numbers, counts, booleans and subschemas are checked where they are
 * read. A keyword of the wrong type is an error, never ignored. */
static const struct {
    const char *kw;
    enum kw_type type;
} keyword_types[] = {
    {"$ref", KW_STRING},     {"$id", KW_STRING},          {"$schema", KW_STRING},
    {"$comment", KW_STRING}, {"title", KW_STRING},        {"description", KW_STRING},
    {"format", KW_STRING},   {"pattern", KW_STRING},      {"properties", KW_MAP},
    {"patternProperties", KW_MAP}, {"definitions", KW_MAP}, {"dependencies", KW_MAP},
    {"enum", KW_LIST},       {"examples", KW_LIST},       {"required", KW_STRINGS},
};

static bool is_string(struct ynode *n)
{
    return n && ynode_is_scalar(n) && type_of(n, NULL) == T_STRING;
}

/* A list of strings; reports the first item that is not one. */
static bool check_strings(struct schema *s, struct ynode *list, const char *kw)
{
    for (size_t i = 0; i < ynode_len(list); i++) {
        if (!is_string(ynode_item(list, i))) {
            compile_error(s, ynode_item(list, i), "%s must be a list of strings", kw);
            return false;
        }
    }
    return true;
}

static bool check_keyword_types(struct schema *s, struct ynode *n)
{
    for (size_t i = 0; i < sizeof(keyword_types) / sizeof(keyword_types[0]); i++) {
        const char *kw = keyword_types[i].kw;
        long at = ynode_find(n, kw, strlen(kw));
        struct ynode *v = at >= 0 ? ynode_value(n, (size_t)at) : NULL;

        if (at < 0)
            continue;
        switch (keyword_types[i].type) {
        case KW_STRING:
            if (!is_string(v)) {
                compile_error(s, v ? v : ynode_key(n, (size_t)at), "%s must be a string", kw);
                return false;
            }
            break;
        case KW_MAP:
            if (!v || !ynode_is_map(v)) {
                compile_error(s, v ? v : ynode_key(n, (size_t)at), "%s must be a mapping", kw);
                return false;
            }
            break;
        case KW_LIST:
        case KW_STRINGS:
            if (!v || !ynode_is_seq(v)) {
                compile_error(s, v ? v : ynode_key(n, (size_t)at), "%s must be a list", kw);
                return false;
            }
            if (keyword_types[i].type == KW_STRINGS && !check_strings(s, v, kw))
                return false;
            break;
        }
    }
    return true;
}


static struct schema_node *compile(struct schema *s, struct ynode *n);

static bool number_of(struct ynode *n, double *out)
{
    unsigned t = type_of(n, out);

    return (t & T_NUMBER) != 0;
}

static bool count_of(struct schema *s, struct ynode *n, const char *kw, long long *out)
{
    double v;

    if (!number_of(n, &v) || v < 0 || v != floor(v)) {
        compile_error(s, n, "%s must be a non-negative integer", kw);
        return false;
    }
    *out = (long long)v;
    return true;
}

static struct schema_node **compile_list(struct schema *s, struct ynode *l, const char *kw, size_t *n)
{
    size_t count = ynode_len(l);
    struct schema_node **out;

    *n = 0;
    if (!ynode_is_seq(l) || !count) {
        compile_error(s, l, "%s must be a non-empty list of schemas", kw);
        return NULL;
    }
    if (!(out = calloc(count, sizeof(*out)))) {
        s->failed = true;
        return NULL;
    }
    for (size_t i = 0; i < count; i++)
        out[i] = compile(s, ynode_item(l, i));
    *n = count;
    return out;
}

static unsigned type_bit(struct schema *s, struct ynode *n)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"null", T_NULL},     {"boolean", T_BOOLEAN}, {"object", T_OBJECT},
                 {"array", T_ARRAY},   {"number", T_NUMBER},   {"string", T_STRING},
                 {"integer", T_INTEGER}};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (ynode_scalar_is(n, names[i].name))
            return names[i].bit;
    }
    compile_error(s, n, "%s", "unknown type");
    return 0;
}

/* ECMA-262 patterns on PCRE2 (notes/libraries.md): UTF, `$` only at the very end,
 * \uXXXX, [^] and [], `.` excluding all line terminators, ASCII \d and \w; and \s / \S
 * widened to ECMA's whitespace set. */
/* (Under PCRE2_ALT_BSUX, code points are written \\uXXXX.) */
static const char ECMA_SPACE[] =
    "\\t\\n\\u000B\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F"
    "\\u205F\\u3000\\uFEFF";

static char *ecma_to_pcre(const char *src)
{
    size_t cap = strlen(src) * (sizeof(ECMA_SPACE) + 4) + 1, o = 0;
    char *out = malloc(cap);
    bool in_class = false;

    if (!out)
        return NULL;
    for (const char *p = src; *p; p++) {
        if (*p == '\\' && p[1]) {
            if ((p[1] == 's' || p[1] == 'S') && !(in_class && p[1] == 'S')) {
                o += (size_t)sprintf(out + o, "%s%s%s", in_class ? "" : (p[1] == 's' ? "[" : "[^"),
                                     ECMA_SPACE, in_class ? "" : "]");
            } else {
                out[o++] = *p;
                out[o++] = p[1];
            }
            p++;
            continue;
        }
        if (*p == '[' && !in_class)
            in_class = true;
        else if (*p == ']' && in_class)
            in_class = false;
        out[o++] = *p;
    }
    out[o] = '\0';
    return out;
}

static pcre2_code *compile_pattern(struct schema *s, struct ynode *n)
{
    char *src = text_of(n), *translated;
    pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
    pcre2_code *re = NULL;
    int err;
    PCRE2_SIZE off;

    if (!src || !cc) {
        compile_error(s, n, "%s", "pattern must be a string");
        goto done;
    }
    translated = ecma_to_pcre(src);
    pcre2_set_compile_extra_options(cc, PCRE2_EXTRA_ALT_BSUX);
    pcre2_set_newline(cc, PCRE2_NEWLINE_ANY);
    re = translated ? pcre2_compile((PCRE2_SPTR)translated, PCRE2_ZERO_TERMINATED,
                                    PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_ALT_BSUX |
                                        PCRE2_ALLOW_EMPTY_CLASS,
                                    &err, &off, cc)
                    : NULL;
    free(translated);
    if (!re) {
        PCRE2_UCHAR msg[160];

        pcre2_get_error_message(err, msg, sizeof(msg));
        compile_error(s, n, "unsupported pattern '%s': %s", src, (const char *)msg);
    } else {
        pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    }
done:
    free(src);
    pcre2_compile_context_free(cc);
    return re;
}

/* Properties are kept sorted by length, then bytes, and found by binary search (a
 * Buildkite step's schema has 40). */
static int prop_order(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen != blen)
        return alen < blen ? -1 : 1;
    return memcmp(a, b, alen);
}

static int prop_cmp(const void *pa, const void *pb)
{
    const struct prop *a = pa, *b = pb;

    return prop_order(a->name, a->len, b->name, b->len);
}

static const struct prop *find_prop(const struct schema_node *sn, const char *key, size_t len)
{
    size_t lo = 0, hi = sn->n_props;

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

static int compile_object_keywords(struct schema *s, struct schema_node *sn, struct ynode *n)
{
    struct ynode *v;

    if ((v = ynode_get(n, "properties")) != NULL) {
        size_t count = ynode_len(v), i = 0;

        if (count && !(sn->props = calloc(count, sizeof(*sn->props))))
            return -1;
        for (; i < count; i++) {
            size_t len;
            const char *name = ynode_scalar(ynode_key(v, i), &len);

            /* the name may hold a NUL ("\u0000"): copied by length */
            if (!(sn->props[i].name = malloc(len + 1)))
                return -1;
            memcpy(sn->props[i].name, name, len);
            sn->props[i].name[len] = '\0';
            sn->props[i].len = len;
            sn->props[i].schema = compile(s, ynode_value(v, i));
        }
        sn->n_props = i;
        if (sn->n_props)        /* props is NULL for "properties": {} */
            qsort(sn->props, sn->n_props, sizeof(*sn->props), prop_cmp);
    }
    if ((v = ynode_get(n, "patternProperties")) != NULL) {
        size_t count = ynode_len(v), i = 0;

        if (count && !(sn->pprops = calloc(count, sizeof(*sn->pprops))))
            return -1;
        for (; i < count; i++) {
            sn->pprops[i].re = compile_pattern(s, ynode_key(v, i));
            sn->pprops[i].src = ynode_scalar(ynode_key(v, i), NULL);
            if (sn->pprops[i].re)
                sn->pprops[i].md = pcre2_match_data_create_from_pattern(sn->pprops[i].re, NULL);
            sn->pprops[i].schema = compile(s, ynode_value(v, i));
        }
        sn->n_pprops = i;
    }
    if ((v = ynode_get(n, "additionalProperties")) != NULL)
        sn->additional_props = compile(s, v);
    if ((v = ynode_get(n, "propertyNames")) != NULL)
        sn->property_names = compile(s, v);
    if ((v = ynode_get(n, "required")) != NULL) {
        size_t count = ynode_len(v);

        sn->required = v;
        sn->required_names = calloc(count + 1, sizeof(*sn->required_names));
        if (!sn->required_names)
            return -1;
        for (size_t i = 0; i < count; i++) {
            if (!(sn->required_names[i] = text_of(ynode_item(v, i))))
                return -1;
        }
    }
    if ((v = ynode_get(n, "minProperties")) != NULL)
        count_of(s, v, "minProperties", &sn->min_props);
    if ((v = ynode_get(n, "maxProperties")) != NULL)
        count_of(s, v, "maxProperties", &sn->max_props);
    if ((v = ynode_get(n, "dependencies")) != NULL) {
        size_t count = ynode_len(v), i = 0;

        if (count && !(sn->deps = calloc(count, sizeof(*sn->deps))))
            return -1;
        for (; i < count; i++) {
            size_t len;
            const char *name = ynode_scalar(ynode_key(v, i), &len);
            struct ynode *dv = ynode_value(v, i);

            if (ynode_is_seq(dv) && !check_strings(s, dv, "a dependency"))
                break;
            sn->deps[i].name = strndup(name, len);
            sn->deps[i].len = len;
            if (ynode_is_seq(dv))
                sn->deps[i].names = dv;
            else
                sn->deps[i].schema = compile(s, dv);
        }
        sn->n_deps = i;
    }
    return 0;
}

static void compile_array_keywords(struct schema *s, struct schema_node *sn, struct ynode *n)
{
    struct ynode *v;

    if ((v = ynode_get(n, "items")) != NULL) {
        if (ynode_is_seq(v)) {
            size_t count = ynode_len(v);

            sn->items_is_list = true;
            sn->item_list = calloc(count ? count : 1, sizeof(*sn->item_list));
            if (!sn->item_list)
                s->failed = true;
            for (size_t i = 0; sn->item_list && i < count; i++)
                sn->item_list[i] = compile(s, ynode_item(v, i));
            sn->n_item_list = sn->item_list ? count : 0;
        } else {
            sn->items = compile(s, v);
        }
    }
    if ((v = ynode_get(n, "additionalItems")) != NULL)
        sn->additional_items = compile(s, v);
    if ((v = ynode_get(n, "contains")) != NULL)
        sn->contains = compile(s, v);
    if ((v = ynode_get(n, "minItems")) != NULL)
        count_of(s, v, "minItems", &sn->min_items);
    if ((v = ynode_get(n, "maxItems")) != NULL)
        count_of(s, v, "maxItems", &sn->max_items);
    if ((v = ynode_get(n, "uniqueItems")) != NULL && !is_true_false(v, &sn->unique_items))
        compile_error(s, v, "%s", "uniqueItems must be true or false");
}

static void compile_scalar_keywords(struct schema *s, struct schema_node *sn, struct ynode *n)
{
    struct ynode *v;
    static const struct {
        const char *kw;
        size_t has, val;
    } nums[] = {
        {"minimum", offsetof(struct schema_node, has_min), offsetof(struct schema_node, minimum)},
        {"maximum", offsetof(struct schema_node, has_max), offsetof(struct schema_node, maximum)},
        {"exclusiveMinimum", offsetof(struct schema_node, has_xmin), offsetof(struct schema_node, xminimum)},
        {"exclusiveMaximum", offsetof(struct schema_node, has_xmax), offsetof(struct schema_node, xmaximum)},
        {"multipleOf", offsetof(struct schema_node, has_multiple), offsetof(struct schema_node, multiple_of)},
    };

    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
        if ((v = ynode_get(n, nums[i].kw)) == NULL)
            continue;
        if (!number_of(v, (double *)((char *)sn + nums[i].val)))
            compile_error(s, v, "%s must be a number", nums[i].kw);
        else
            *(bool *)((char *)sn + nums[i].has) = true;
    }
    if (sn->has_multiple && sn->multiple_of <= 0)
        compile_error(s, ynode_get(n, "multipleOf"), "%s", "multipleOf must be greater than 0");
    if ((v = ynode_get(n, "minLength")) != NULL)
        count_of(s, v, "minLength", &sn->min_length);
    if ((v = ynode_get(n, "maxLength")) != NULL)
        count_of(s, v, "maxLength", &sn->max_length);
    if ((v = ynode_get(n, "pattern")) != NULL) {
        sn->pattern = compile_pattern(s, v);
        sn->pattern_src = text_of(v);
        if (sn->pattern)
            sn->pattern_md = pcre2_match_data_create_from_pattern(sn->pattern, NULL);
    }
}

static struct schema_node *compile_node(struct schema *s, struct ynode *n)
{
    struct schema_node *sn = ptrmap_get(&s->compiled, n);
    struct ynode *v;

    if (sn)
        return sn;
    sn = calloc(1, sizeof(*sn));
    if (!sn || ptrmap_put(&s->compiled, n, sn) != 0) {
        free(sn);
        s->failed = true;
        return NULL;
    }
    if (s->n_all == s->cap_all) {
        size_t cap = s->cap_all ? s->cap_all * 2 : 64;
        struct schema_node **all = realloc(s->all, cap * sizeof(*all));

        if (!all) {
            s->failed = true;
            return sn;
        }
        s->all = all;
        s->cap_all = cap;
    }
    sn->index = s->n_all;
    s->all[s->n_all++] = sn;
    sn->src = n;
    sn->min_items = sn->min_length = sn->min_props = -1;
    sn->max_items = sn->max_length = sn->max_props = -1;
    if (is_true_false(n, &sn->bool_value)) {
        sn->is_bool = true;
        return sn;
    }
    if (!n || !ynode_is_map(n)) {
        compile_error(s, n, "%s", "a schema must be an object or a boolean");
        return sn;
    }
    if (!check_keyword_types(s, n))
        return sn;
    if ((v = ynode_get(n, "$ref")) != NULL) {
        char *ref = text_of(v);
        struct ynode *target = ref ? resolve_ref(s, n, ref) : NULL;

        if (!target)
            compile_error(s, v, "cannot resolve $ref '%s' (remote references are not fetched)",
                          ref ? ref : "");
        else
            sn->ref = compile(s, target);
        free(ref);
        return sn; /* draft-07: $ref's siblings are ignored */
    }
    if ((v = ynode_get(n, "type")) != NULL) {
        if (ynode_is_seq(v)) {
            for (size_t i = 0; i < ynode_len(v); i++)
                sn->types |= type_bit(s, ynode_item(v, i));
        } else {
            sn->types = type_bit(s, v);
        }
    }
    if ((v = ynode_get(n, "enum")) != NULL)
        sn->enum_values = v;
    if (ynode_has(n, "const")) {
        sn->const_value = ynode_get(n, "const");
        if (!sn->const_value) /* `const:` with nothing is null; keep a marker */
            sn->const_value = n;
    }
    if (compile_object_keywords(s, sn, n) != 0)
        s->failed = true;
    compile_array_keywords(s, sn, n);
    compile_scalar_keywords(s, sn, n);
    sn->needs_scalar_type = sn->types || sn->has_min || sn->has_max || sn->has_xmin ||
                            sn->has_xmax || sn->has_multiple || sn->min_length >= 0 ||
                            sn->max_length >= 0 || sn->pattern;
    if ((v = ynode_get(n, "allOf")) != NULL)
        sn->all_of = compile_list(s, v, "allOf", &sn->n_all_of);
    if ((v = ynode_get(n, "anyOf")) != NULL)
        sn->any_of = compile_list(s, v, "anyOf", &sn->n_any_of);
    if ((v = ynode_get(n, "oneOf")) != NULL)
        sn->one_of = compile_list(s, v, "oneOf", &sn->n_one_of);
    if ((v = ynode_get(n, "not")) != NULL)
        sn->not_ = compile(s, v);
    if ((v = ynode_get(n, "if")) != NULL) {
        sn->if_ = compile(s, v);
        if ((v = ynode_get(n, "then")) != NULL)
            sn->then_ = compile(s, v);
        if ((v = ynode_get(n, "else")) != NULL)
            sn->else_ = compile(s, v);
    }
    return sn;
}

/* compile_node with a bound on its recursion: the document nests at most
 * STREAM_MAX_DEPTH deep, but a chain of $refs to one definition after another can be
 * as long as the schema, and must not run the stack out. */
static struct schema_node *compile(struct schema *s, struct ynode *n)
{
    struct schema_node *sn;

    if (s->depth == MAX_COMPILE_DEPTH) {
        compile_error(s, n, "a chain of more than %d nested subschemas and $refs", MAX_COMPILE_DEPTH);
        return NULL;
    }
    s->depth++;
    sn = compile_node(s, n);
    s->depth--;
    return sn;
}

/* The subschemas that `sn` applies to the instance itself rather than to a part of it,
 * as one index space: in_place(sn, k) for k < in_place_count(sn) (NULL: none there).
 * A cycle through them never reaches the instance: validation could not end. */
static size_t in_place_count(const struct schema_node *sn)
{
    return 5 + sn->n_all_of + sn->n_any_of + sn->n_one_of + sn->n_deps;
}

static const struct schema_node *in_place(const struct schema_node *sn, size_t k)
{
    const struct schema_node *fixed[5] = {sn->ref, sn->not_, sn->if_, sn->then_, sn->else_};

    if (k < 5)
        return fixed[k];
    k -= 5;
    if (k < sn->n_all_of)
        return sn->all_of[k];
    k -= sn->n_all_of;
    if (k < sn->n_any_of)
        return sn->any_of[k];
    k -= sn->n_any_of;
    if (k < sn->n_one_of)
        return sn->one_of[k];
    return sn->deps[k - sn->n_one_of].schema;
}

/* Writes the JSON pointer of `target` under `n` (o bytes of buf used so far); false
 * when `target` is not there. Only for messages: a depth-first search. */
static bool pointer_to(const struct ynode *n, const struct ynode *target, char *buf, size_t cap,
                       size_t o)
{
    if (n == target) {
        buf[o < cap ? o : cap - 1] = '\0';
        return true;
    }
    for (size_t i = 0; i < ynode_len(n); i++) {
        int w = ynode_is_map(n) ? snprintf(buf + o, cap - o, "/%s", ynode_scalar(ynode_key(n, i), NULL))
                                : snprintf(buf + o, cap - o, "/%zu", i);
        size_t next = o + (size_t)w < cap ? o + (size_t)w : cap - 1;

        if (pointer_to(ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i), target, buf, cap, next))
            return true;
    }
    return false;
}

static void report_cycle(struct schema *s, const struct schema_node *const *chain, size_t n,
                         struct ynode *at)
{
    char text[400];
    size_t o = 0;

    for (size_t i = 0; i < n && o < sizeof(text) - 8; i++) {
        char path[200] = "";

        for (size_t d = 0; d < s->n_docs && !pointer_to(ynode_doc_root(s->docs[d].fyd), chain[i]->src,
                                                          path, sizeof(path), 0); d++)
            ;
        o += (size_t)snprintf(text + o, sizeof(text) - o, "%s#%s", i ? " -> " : "", path);
    }
    if (o >= sizeof(text) - 8)
        strcpy(text + sizeof(text) - 8, "...");
    compile_error(s, at, "$ref cycle that never looks into the instance (%s)", text);
}

/* Depth-first over the in-place edges; the first cycle found is reported. */
static void check_ref_cycles(struct schema *s)
{
    struct frame {
        const struct schema_node *sn;
        size_t k;
    } *stack = malloc((s->n_all + 1) * sizeof(*stack));
    const struct schema_node **chain = malloc((s->n_all + 1) * sizeof(*chain));
    unsigned char *color = calloc(s->n_all + 1, 1); /* 0 new, 1 on the stack, 2 done */

    if (!stack || !chain || !color) {
        s->failed = true;
        goto done;
    }
    for (size_t r = 0; r < s->n_all && !s->failed; r++) {
        size_t depth = 0;

        if (color[r])
            continue;
        stack[depth++] = (struct frame){s->all[r], 0};
        color[r] = 1;
        while (depth > 0 && !s->failed) {
            struct frame *top = &stack[depth - 1];
            const struct schema_node *child;
            size_t edge = top->k;

            if (top->k == in_place_count(top->sn)) {
                color[top->sn->index] = 2;
                depth--;
                continue;
            }
            child = in_place(top->sn, top->k++);
            if (!child || color[child->index] == 2)
                continue;
            if (color[child->index] == 0) {
                color[child->index] = 1;
                stack[depth++] = (struct frame){child, 0};
                continue;
            }
            {
                size_t from = depth, n = 0;

                while (from > 0 && stack[from - 1].sn != child)
                    from--;
                for (size_t i = from - 1; i < depth; i++)
                    chain[n++] = stack[i].sn;
                chain[n++] = child;
                report_cycle(s, chain, n,
                             edge == 0 ? ynode_get(top->sn->src, "$ref") : child->src);
            }
        }
    }
done:
    free(stack);
    free(chain);
    free(color);
}

static void node_free(struct schema_node *sn)
{
    for (size_t i = 0; i < sn->n_props; i++)
        free(sn->props[i].name);
    free(sn->props);
    for (size_t i = 0; i < sn->n_pprops; i++) {
        pcre2_match_data_free(sn->pprops[i].md);
        pcre2_code_free(sn->pprops[i].re);
    }
    free(sn->pprops);
    if (sn->required_names) {
        for (size_t i = 0; sn->required_names[i]; i++)
            free((char *)sn->required_names[i]);
        free(sn->required_names);
    }
    free(sn->item_list);
    free(sn->all_of);
    free(sn->any_of);
    free(sn->one_of);
    for (size_t i = 0; i < sn->n_deps; i++)
        free(sn->deps[i].name);
    free(sn->deps);
    pcre2_match_data_free(sn->pattern_md);
    pcre2_code_free(sn->pattern);
    free(sn->pattern_src);
    free(sn);
}

void schema_free(struct schema *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_all; i++)
        node_free(s->all[i]);
    free(s->all);
    for (size_t i = 0; i < s->bases.cap; i++) {
        if (s->bases.keys[i])
            free(s->bases.vals[i]);
    }
    free(s->bases.keys);
    free(s->bases.vals);
    free(s->compiled.keys);
    free(s->compiled.vals);
    for (size_t i = 0; i < s->n_anchors; i++)
        free(s->anchors[i].uri);
    free(s->anchors);
    for (size_t i = 0; i < s->n_docs; i++) {
        ynode_doc_destroy(s->docs[i].fyd);
        free(s->docs[i].uri);
    }
    free(s->docs);
    free(s->name);
    free(s);
}

struct schema *schema_compile(struct ynode_doc *doc, const char *name, struct diag *d)
{
    struct schema *s = calloc(1, sizeof(*s));

    if (!s) {
        ynode_doc_destroy(doc);
        return NULL;
    }
    s->diag = d;
    s->name = strdup(name);
    if (!s->name || add_doc(s, doc, "") != 0) {
        if (s->n_docs == 0)
            ynode_doc_destroy(doc);
        diag_report(d, DIAG_ERROR, DIAG_INPUT, name, 0, 0, RULE_SCHEMA, "out of memory");
        schema_free(s);
        return NULL;
    }
    compile(s, ynode_doc_root(doc));
    if (!s->failed)
        check_ref_cycles(s);
    if (s->failed) {
        schema_free(s);
        return NULL;
    }
    return s;
}

struct schema *schema_load_text(const char *name, const char *text, size_t len, struct diag *d)
{
    struct ynode_doc *fyd = load_document(source_open_text(name, text, len, d), d);

    return fyd ? schema_compile(fyd, name, d) : NULL;
}

struct schema *schema_load_file(const char *path, struct diag *d)
{
    struct ynode_doc *fyd = load_document(source_open(path, d), d);

    return fyd ? schema_compile(fyd, path, d) : NULL;
}

const struct schema_node *schema_root(const struct schema *s)
{
    return ptrmap_get(&s->compiled, ynode_doc_root(s->docs[0].fyd));
}

static const struct schema_node *deref(const struct schema_node *sn)
{
    for (int i = 0; sn && sn->ref && i < 64; i++)
        sn = sn->ref;
    return sn;
}

/* Only the keywords a top-level streaming walk handles by itself. */
static bool simple_object(const struct schema_node *sn)
{
    return sn && !sn->is_bool && !sn->enum_values && !sn->const_value && !sn->n_all_of &&
           !sn->n_any_of && !sn->n_one_of && !sn->not_ && !sn->if_ && !sn->property_names &&
           !sn->n_deps && sn->min_props < 0 && sn->max_props < 0 && (sn->types & ~T_OBJECT) == 0;
}

const struct schema_node *schema_property(const struct schema_node *sn, const char *key,
                                          size_t len, bool *allowed, bool *simple)
{
    const struct prop *p;

    sn = deref(sn);
    *allowed = true;
    *simple = simple_object(sn);
    if (!*simple)
        return NULL;
    if ((p = find_prop(sn, key, len)) != NULL)
        return p->schema;
    if (sn->n_pprops) {
        *simple = false; /* the caller validates the whole value by itself then */
        return NULL;
    }
    if (sn->additional_props) {
        const struct schema_node *a = deref(sn->additional_props);

        if (a->is_bool && !a->bool_value)
            *allowed = false;
        return sn->additional_props;
    }
    return NULL;
}

static int match(pcre2_code *re, pcre2_match_data *md, const char *s, size_t len);

const struct schema_node *schema_member(const struct schema_node *sn, const char *key, size_t len,
                                        bool *allowed, bool *streamable)
{
    const struct schema_node *found = NULL;
    const struct prop *p;

    sn = deref(sn);
    *allowed = true;
    *streamable = sn && !sn->is_bool && !sn->enum_values && !sn->const_value && !sn->n_all_of &&
                  !sn->n_any_of && !sn->n_one_of && !sn->not_ && !sn->if_ &&
                  !sn->property_names && !sn->n_deps && (sn->types & ~T_OBJECT) == 0;
    if (!*streamable)
        return NULL;
    if ((p = find_prop(sn, key, len)) != NULL)
        found = p->schema;
    for (size_t i = 0; i < sn->n_pprops; i++) {
        int m = sn->pprops[i].re ? match(sn->pprops[i].re, sn->pprops[i].md, key, len) : 0;

        if (m < 0) {
            *streamable = false; /* undecided: the whole object's check says so */
            return NULL;
        }
        if (m) {
            if (found) {
                *streamable = false; /* two schemas apply: validate the whole object */
                return NULL;
            }
            found = sn->pprops[i].schema;
        }
    }
    if (found || !sn->additional_props)
        return found;
    if (deref(sn->additional_props)->is_bool && !deref(sn->additional_props)->bool_value)
        *allowed = false;
    return sn->additional_props;
}

void schema_property_counts(const struct schema_node *sn, long long *min, long long *max)
{
    sn = deref(sn);
    *min = sn ? sn->min_props : -1;
    *max = sn ? sn->max_props : -1;
}

const struct schema_node *schema_items(const struct schema_node *sn)
{
    sn = deref(sn);
    if (!sn || sn->is_bool || sn->items_is_list || !sn->items || sn->contains || sn->unique_items ||
        sn->min_items >= 0 || sn->max_items >= 0 || sn->n_all_of || sn->n_any_of || sn->n_one_of ||
        sn->not_ || sn->if_ || sn->enum_values || sn->const_value || (sn->types & ~T_ARRAY))
        return NULL;
    return sn->items;
}

const char *const *schema_required(const struct schema_node *sn)
{
    sn = deref(sn);
    return sn ? (const char *const *)sn->required_names : NULL;
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

struct vctx {
    struct errors *errs;  /* NULL: only validity is wanted */
    char *path;           /* the instance path being built */
    size_t path_len, path_cap;
    unsigned depth, nesting;
    struct undecided undecided; /* the first, also from quiet checks */
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
        size_t cap = e->cap ? e->cap * 2 : 16;
        struct error *v = realloc(e->v, cap * sizeof(*v));

        if (!v) {
            e->oom = true;
            return;
        }
        e->v = v;
        e->cap = cap;
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
static size_t push(struct vctx *c, const char *seg, size_t len)
{
    size_t old = c->path_len;

    if (!c->errs)
        return old;
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

static void pop(struct vctx *c, size_t old)
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
    unsigned type = type_of(n, NULL);

    if (!t || type == T_OBJECT || type == T_ARRAY)
        snprintf(out, cap, "%s", type == T_OBJECT ? "an object" : type == T_ARRAY ? "an array" : "null");
    else if (type == T_STRING)
        snprintf(out, cap, "string '%.*s%s'", (int)(len > 60 ? 60 : len), t, len > 60 ? "..." : "");
    else
        snprintf(out, cap, "%s %.*s", type_word(type), (int)(len > 60 ? 60 : len), t);
}

static bool validate(struct vctx *c, const struct schema_node *sn, struct ynode *n);

/* One match context for every pattern: a backtracking limit, so that a hostile pattern
 * stops instead of hanging, and a JIT stack for long values. Made on first use, kept
 * for the process. */
static pcre2_match_context *match_context(void)
{
    static pcre2_match_context *mctx;
    static pcre2_jit_stack *stack;

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

/* 1: `s` matches, 0: it does not, else PCRE2's error (a limit, out of memory): not a
 * failed match. */
static int match(pcre2_code *re, pcre2_match_data *md, const char *s, size_t len)
{
    int rc = md ? pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, md, match_context()) : PCRE2_ERROR_NOMEMORY;

    return rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : rc;
}

static bool validate_object(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    const struct prop *p;
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
    for (size_t pi = 0; pi < ynode_len(n); pi++) {
        struct ynode *k = ynode_key(n, pi), *v = ynode_value(n, pi);
        size_t len, old;
        const char *key = ynode_scalar(k, &len);
        bool covered = false;

        if (!key)
            key = "", len = 0;
        old = push(c, key, len);
        if ((p = find_prop(sn, key, len)) != NULL) {
            const struct schema_node *ps = deref(p->schema);

            covered = true;
            if (ps && ps->is_bool && !ps->bool_value) {
                ok = false;
                fail(c, RULE_KW_FALSE, k, "property '%.*s' is not allowed here", (int)len, key);
            } else {
                ok = validate(c, p->schema, v) && ok;
            }
        }
        if (settled(c, ok)) {
            pop(c, old);
            return false;
        }
        for (size_t i = 0; i < sn->n_pprops; i++) {
            int m = sn->pprops[i].re ? match(sn->pprops[i].re, sn->pprops[i].md, key, len) : 0;

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
        if (sn->property_names) {
            struct errors *saved = c->errs;
            bool name_ok;

            /* the name is checked as a string instance */
            c->errs = NULL;
            name_ok = validate(c, sn->property_names, k);
            c->errs = saved;
            if (!name_ok) {
                ok = false;
                fail(c, RULE_KW_PROPERTY_NAMES, k, "property name '%.*s' is not allowed", (int)len, key);
            }
        }
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
            old = push(c, key, len);
        }
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
        size_t chars = utf8_length(t, len);

        if (sn->min_length >= 0 && (long long)chars < sn->min_length) {
            ok = false;
            fail(c, RULE_KW_MIN_LENGTH, n, "must be at least %lld characters long, is %zu", sn->min_length, chars);
        }
        if (sn->max_length >= 0 && (long long)chars > sn->max_length) {
            ok = false;
            fail(c, RULE_KW_MAX_LENGTH, n, "must be at most %lld characters long, is %zu", sn->max_length, chars);
        }
        int m = sn->pattern ? match(sn->pattern, sn->pattern_md, t, len) : 1;

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

static bool validate_combinators(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    bool ok = true;

    for (size_t i = 0; i < sn->n_all_of && !settled(c, ok); i++)
        ok = validate(c, sn->all_of[i], n) && ok;
    if (settled(c, ok))
        return false;
    if (sn->n_any_of) {
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
        } else {
            ok = false;
            if (starts)
                keep_closest(c, base, starts, sn->n_any_of, RULE_KW_ANY_OF, n);
        }
        free(starts);
    }
    if (sn->n_one_of) {
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
            ok = false;
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
    }
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

static bool validate(struct vctx *c, const struct schema_node *sn, struct ynode *n)
{
    double num = 0;
    unsigned type;
    bool ok = true;

    if (!sn)
        return true;
    if (++c->nesting > MAX_DEPTH) {
        c->nesting--;
        fail(c, RULE_KW_REF, n, "%s", "schema recursion is too deep");
        return false;
    }
    if (sn->ref) {
        ok = validate(c, sn->ref, n);
        c->nesting--;
        return ok;
    }
    if (sn->is_bool) {
        c->nesting--;
        if (!sn->bool_value)
            fail(c, RULE_KW_FALSE, n, "%s", "no value is allowed here");
        return sn->bool_value;
    }
    /* A scalar's type needs its text: work it out only when a keyword looks at it. */
    if (n && ynode_is_map(n))
        type = T_OBJECT;
    else if (n && ynode_is_seq(n))
        type = T_ARRAY;
    else if (sn->needs_scalar_type)
        type = type_of(n, &num);
    else
        type = 0; /* no scalar keyword here */
    if (sn->types && !(sn->types & type) &&
        !((sn->types & T_NUMBER) && (type & T_NUMBER)) &&
        !((sn->types & T_INTEGER) && (type & T_INTEGER))) {
        char want[96], got[96];

        if (c->errs) {
            describe_types(sn->types, want, sizeof(want));
            describe_value(n, got, sizeof(got));
            fail(c, RULE_TYPE, n, "must be %s, got %s", want, got);
        }
        ok = false;
    }
    if (sn->enum_values) {
        const struct ynode *values = sn->enum_values;
        bool found = false;

        for (size_t i = 0; i < ynode_len(values) && !found; i++)
            found = values_equal(ynode_item(values, i), n);
        if (!found && c->errs) {
            char got[96], list[200];
            size_t o = 0;

            list[0] = '\0';
            for (size_t i = 0; i < ynode_len(values) && o < sizeof(list) - 20; i++) {
                size_t len;
                const char *t = ynode_scalar(ynode_item(values, i), &len);

                o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%.*s", o ? ", " : "",
                                      (int)(t ? (len > 30 ? 30 : len) : 3), t ? t : "...");
            }
            describe_value(n, got, sizeof(got));
            fail(c, RULE_KW_ENUM, n, "must be one of [%s], got %s", list, got);
        }
        if (!found)
            ok = false;
    }
    if (sn->const_value) {
        struct ynode *want = sn->const_value == sn->src ? NULL : sn->const_value;

        if (!values_equal(want, n)) {
            fail(c, RULE_KW_CONST, n, "%s", "must be the constant value the schema gives");
            ok = false;
        }
    }
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
    if (c.undecided.at)
        report_undecided(&c);
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

bool schema_is_valid(const struct schema_node *sn, struct ynode *instance)
{
    struct vctx c = {.errs = NULL};
    bool ok = validate(&c, sn, instance);

    free(c.undecided.path);
    return ok && !c.undecided.at; /* a check not made is not a pass */
}
