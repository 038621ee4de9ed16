/* schema_uri: RFC 3986 reference resolution (section 5.2), enough for $id and $ref:
 * a schema's $ids and $refs are resolved against the base URI of the subschema they
 * are written in, and two spellings of one target must become the same string. */
#include "schema_internal.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

/* A relative path merged with the base's (RFC 3986 5.2.3: the base path up to its last
 * '/', then the reference), dots removed. -1 when out of memory. */
static int put_merged_path(char *out, size_t *o, const struct uri *b, const struct uri *r)
{
    char *merged = malloc(b->path_len + r->path_len + 2);
    size_t m = 0, keep = b->path_len;

    if (!merged)
        return -1;
    while (keep > 0 && b->path[keep - 1] != '/')
        keep--;
    if (b->has_auth && b->path_len == 0)
        merged[m++] = '/';
    memcpy(merged + m, b->path, keep);
    m += keep;
    memcpy(merged + m, r->path, r->path_len);
    m += r->path_len;
    remove_dots(out, o, merged, m);
    free(merged);
    return 0;
}

/* The target's scheme, authority and path (RFC 3986 5.2.2); the URI whose query the
 * target takes in *pq. -1 when out of memory. */
static int put_target_path(char *out, size_t *o, const struct uri *b, const struct uri *r,
                           const struct uri **pq)
{
    *pq = r;
    if (r->has_scheme || r->has_auth) {
        /* the reference brings its own scheme or authority */
        if (r->has_scheme || b->has_scheme)
            put_scheme(out, o, r->has_scheme ? r : b);
        if (r->has_auth)
            put_authority(out, o, r);
        remove_dots(out, o, r->path, r->path_len);
        return 0;
    }
    if (b->has_scheme)
        put_scheme(out, o, b);
    if (b->has_auth)
        put_authority(out, o, b);
    if (r->path_len == 0) {
        put(out, o, b->path, b->path_len);
        *pq = r->has_query ? r : b;
        return 0;
    }
    if (r->path[0] == '/') {
        remove_dots(out, o, r->path, r->path_len);
        return 0;
    }
    return put_merged_path(out, o, b, r);
}

char *schema_uri_resolve(const char *base, const char *ref)
{
    struct uri b, r;
    size_t cap = strlen(base) + strlen(ref) + 8, o = 0;
    char *out = malloc(cap);
    const struct uri *pq;

    if (!out)
        return NULL;
    uri_split(base, &b);
    uri_split(ref, &r);
    if (put_target_path(out, &o, &b, &r, &pq) != 0) {
        free(out);
        return NULL;
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

char *schema_uri_strip_fragment(const char *uri)
{
    const char *h = strchr(uri, '#');

    return h ? strndup(uri, (size_t)(h - uri)) : strdup(uri);
}
