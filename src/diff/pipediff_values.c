/* pipediff_values: values as a report shows them: a node on one line in YAML flow style
 * (cut at VALUE_MAX, or whole), the part of a long value around its first difference,
 * digests of whole values, a value's JSON read back, the texts of several jobs
 * summarized ("--shard-id=1..3") and the words two values differ by. */
#include "pipediff_internal.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/strhash.h"
#include "fanout/yscalar.h"

void pd_text_add(struct text *t, const char *s, size_t n)
{
    if (t->whole) {
        t->cut |= pd_blob_add(t->whole, s, n) != 0; /* out of memory stops it as a cut does */
        return;
    }
    if (t->len + n > VALUE_MAX) {
        n = VALUE_MAX > t->len ? VALUE_MAX - t->len : 0;
        t->cut = true;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

/* A node on one line, in YAML flow style. */
static void flow(struct text *t, const struct ynode *n)
{
    size_t len;
    const char *s;

    if (!n) {
        pd_text_add(t, "null", 4);
    } else if (ynode_is_map(n)) {
        pd_text_add(t, "{", 1);
        for (size_t i = 0; i < ynode_len(n) && !t->cut; i++) {
            if (i)
                pd_text_add(t, ", ", 2);
            flow(t, ynode_key(n, i));
            pd_text_add(t, ": ", 2);
            flow(t, ynode_value(n, i));
        }
        pd_text_add(t, "}", 1);
    } else if (ynode_is_seq(n)) {
        pd_text_add(t, "[", 1);
        for (size_t i = 0; i < ynode_len(n) && !t->cut; i++) {
            if (i)
                pd_text_add(t, ", ", 2);
            flow(t, ynode_item(n, i));
        }
        pd_text_add(t, "]", 1);
    } else {
        s = ynode_scalar(n, &len);
        /* a string is shown alike however it was written: a rendering read again has
         * `--a,--b` plain where its source had it quoted */
        if ((ynode_is_string(n) || yscalar_type(s, len) == YS_STRING) &&
            (yscalar_style(s, len, true) != YS_PLAIN || memchr(s, ',', len))) {
            pd_text_add(t, "\"", 1);
            for (size_t i = 0; i < len && !t->cut; i++) {
                if (s[i] == '\n')
                    pd_text_add(t, "\\n", 2);
                else if (s[i] == '"' || s[i] == '\\') {
                    pd_text_add(t, "\\", 1);
                    pd_text_add(t, s + i, 1);
                } else {
                    pd_text_add(t, s + i, 1);
                }
            }
            pd_text_add(t, "\"", 1);
        } else {
            pd_text_add(t, s, len);
        }
    }
}

void pd_show(struct text *t, const struct ynode *n)
{
    memset(t, 0, sizeof(*t));
    flow(t, n);
    if (t->cut)
        strcat(t->buf, "...");
}

const char *pd_show_whole(struct blob *b, const struct ynode *n)
{
    struct text t;

    memset(&t, 0, sizeof(t));
    b->len = 0;
    t.whole = b;
    flow(&t, n);
    return !t.cut && pd_blob_add(b, "", 1) == 0 ? b->buf : NULL;
}

struct ynode_doc *pd_json_read(const char *json)
{
    struct diag *d = diag_create_buffered(DIAG_TEXT); /* fanout's own JSON: nothing to say */
    struct source *src = d ? source_open_text("(value)", json, strlen(json), d) : NULL;
    struct stream *st = src ? stream_open(src, 0, d) : NULL;
    struct ynode_doc *doc = NULL;

    if (st && stream_document(st, &doc) < 0)
        doc = NULL;
    stream_close(st);
    source_close(src);
    diag_destroy(d);
    return doc;
}

char *pd_blob_reserve(struct blob *b, size_t n)
{
    /* an empty blob gets its buffer even for n == 0: NULL + 0 is undefined, and NULL reads as out of memory */
    if (!b->buf || b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        char *grown;

        while (cap < b->len + n)
            cap *= 2;
        if (!(grown = realloc(b->buf, cap)))
            return NULL;
        b->buf = grown;
        b->cap = cap;
    }
    return b->buf + b->len;
}

int pd_blob_add(struct blob *b, const void *p, size_t n)
{
    char *at = pd_blob_reserve(b, n);

    if (!at)
        return -1;
    memcpy(at, p, n);
    b->len += n;
    return 0;
}

int pd_blob_str(struct blob *b, const char *s, size_t n)
{
    uint32_t len = (uint32_t)n;

    return pd_blob_add(b, &len, sizeof(len)) == 0 && pd_blob_add(b, s, n) == 0 ? 0 : -1;
}

/* A text's digest, a word at a time: every scalar of every job of both sides is
 * hashed, and FNV-1a's byte at a time was a fifth of the digest's cost. */
static uint64_t text_hash(const char *t, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull ^ len, w;
    size_t i = 0;

    for (; i + 8 <= len; i += 8) {
        memcpy(&w, t + i, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 32;
    }
    if (i < len) {
        w = 0;
        memcpy(&w, t + i, len - i);
        h = (h ^ w) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 32;
    }
    return h;
}

/* A digest of a whole value: the values shown are cut at VALUE_MAX, and a change past
 * the cut must still count. */
uint64_t pd_node_hash(const struct ynode *n, uint64_t h)
{
    size_t len;
    const char *t;
    bool quoted;

    if (!n)
        return (h ^ 'n') * FNV_PRIME;
    if (ynode_is_map(n) || ynode_is_seq(n)) {
        h = (h ^ (ynode_is_map(n) ? '{' : '[')) * FNV_PRIME;
        for (size_t i = 0; i < ynode_len(n); i++) {
            if (ynode_is_map(n))
                h = pd_node_hash(ynode_key(n, i), h);
            h = pd_node_hash(ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i), h);
        }
        return (h ^ '}') * FNV_PRIME;
    }
    t = ynode_scalar(n, &len);
    /* a string that reads the same written plain is the same value as that plain scalar
     * (a rendering writes `"x"` as x) */
    quoted = ynode_is_string(n) && yscalar_style(t, len, false) != YS_PLAIN;
    return ((h ^ (quoted ? 's' : 'p')) * FNV_PRIME ^ text_hash(t, len)) * FNV_PRIME;
}

uint64_t pd_entry_hash(const char *name, size_t len, const struct ynode *v, uint64_t salt)
{
    return pd_node_hash(v, strhash_fnv1a(name, len)) * salt;
}

static bool is_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
    }
    return n > 0;
}

/* t[0..m) as one text, into buf: the text they all are, or a run of consecutive numbers
 * in one place ("--shard-id=1..3", "Shard 2..4"). False when they differ otherwise. */
bool pd_summarize(char *buf, size_t cap, char *const *t, unsigned m)
{
    size_t l0 = strlen(t[0]), min = l0, p = 0, s = 0;
    bool same = true, alike = true;
    long first = 0, prev = 0;

    for (unsigned j = 1; j < m; j++) {
        same = same && !strcmp(t[j], t[0]);
        min = strlen(t[j]) < min ? strlen(t[j]) : min;
    }
    if (same) {
        snprintf(buf, cap, "%s", t[0]);
        return true;
    }
    for (; p < min && alike; p += alike) {
        for (unsigned j = 1; j < m && alike; j++)
            alike = t[j][p] == t[0][p];
    }
    alike = true;
    for (; s < min - p && alike; s += alike) {
        for (unsigned j = 1; j < m && alike; j++)
            alike = t[j][strlen(t[j]) - 1 - s] == t[0][l0 - 1 - s];
    }
    /* a number is one whole: what the texts share of its digits goes back to it (and a
     * dotted one, a version, is no number to count: "3.10" and "3.11" are not "3.10..11") */
    while (p && (is_digits(t[0] + p - 1, 1) || t[0][p - 1] == '.'))
        p--;
    while (s && (is_digits(t[0] + l0 - s, 1) || t[0][l0 - s] == '.'))
        s--;
    for (unsigned j = 0; j < m; j++) {
        size_t n = strlen(t[j]) - p - s;
        const char *v = t[j] + p;
        long x;

        if (n > 9 || !is_digits(v, n) || (n > 1 && v[0] == '0'))
            return false;
        x = strtol(v, NULL, 10);
        if (j && x != prev + 1)
            return false;
        first = j ? first : x;
        prev = x;
    }
    snprintf(buf, cap, "%.*s%ld..%ld%s", (int)p, t[0], first, prev, t[0] + l0 - s);
    return true;
}

/* What separates words in a shown value: blanks, and a list's brackets and commas. */
static bool word_sep(char c)
{
    return c == ' ' || c == ',' || c == '[' || c == ']';
}

#define WINDOW_LEAD 40 /* characters shown before a long value's first difference, about */

char *pd_window(const char *s, const char *other, bool *cut)
{
    size_t ls = strlen(s), lo = strlen(other), p = 0, q = 0, from, to;
    char *w;

    if (ls <= VALUE_MAX && lo <= VALUE_MAX) {
        *cut = false;
        return strdup(s);
    }
    while (p < ls && p < lo && s[p] == other[p])
        p++;
    while (q < ls - p && q < lo - p && s[ls - 1 - q] == other[lo - 1 - q])
        q++;
    /* from some way before the difference (a word's start, when one is near; the same
     * place on both sides: what precedes the difference is alike), to VALUE_MAX
     * characters on, or a little past the difference's end when that is sooner */
    from = p > WINDOW_LEAD ? p - WINDOW_LEAD : 0;
    for (size_t i = from; from && i < p - WINDOW_LEAD / 2; i++) {
        if (word_sep(s[i])) {
            from = i + 1;
            break;
        }
    }
    while (from < ls && (s[from] & 0xC0) == 0x80)
        from++;
    to = ls - q + WINDOW_LEAD < ls ? ls - q + WINDOW_LEAD : ls;
    to = from + text_utf8_cut(s + from, to - from, VALUE_MAX);
    if (!(w = malloc(to - from + 8)))
        return NULL;
    sprintf(w, "%s%.*s%s", from ? "..." : "", (int)(to - from), s + from, to < ls ? "..." : "");
    *cut = from || to < ls;
    return w;
}

/* The words of `a` and `b` that differ, between the words they start and end with alike:
 * span[0] of a and span[1] of b ([from, to)). */
void pd_differing_words(const char *a, const char *b, size_t span[2][2])
{
    const char *v[2] = {a, b};
    size_t la = strlen(a), lb = strlen(b), p = 0, q = 0;

    while (p < la && p < lb && a[p] == b[p])
        p++;
    while (p && !word_sep(a[p - 1]))
        p--;
    while (q < la - p && q < lb - p && a[la - 1 - q] == b[lb - 1 - q])
        q++;
    while (q && !word_sep(a[la - q]))
        q--;
    span[0][0] = span[1][0] = p;
    span[0][1] = la - q;
    span[1][1] = lb - q;
    for (int k = 0; k < 2; k++) {
        while (span[k][0] < span[k][1] && word_sep(v[k][span[k][0]]))
            span[k][0]++;
        while (span[k][1] > span[k][0] && word_sep(v[k][span[k][1] - 1]))
            span[k][1]--;
    }
}
