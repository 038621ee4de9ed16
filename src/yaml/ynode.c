#include "fanout/ynode.h"

#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/* ---- the arena ---- */

/* Chunks grow from the first size by doubling, so a document of any size costs a few
 * mallocs; first-size chunks are kept for the next document (a render makes one small
 * document per step). */
#define CHUNK_FIRST 4096u
#define CHUNK_MAX (1u << 20)
#define CHUNK_CACHE 16

struct chunk {
    struct chunk *next;
    size_t size, used; /* of data[] */
    max_align_t data[];
};

struct ynode_doc {
    struct chunk *chunks; /* the current one first */
    size_t next_size;
    struct ynode *root;
};

/* per thread, as every cache of the render path: diff renders its two sides at once */
static _Thread_local struct chunk *cache[CHUNK_CACHE];
static _Thread_local size_t cached;

static struct chunk *chunk_new(size_t size)
{
    struct chunk *c;

    if (size == CHUNK_FIRST && cached)
        c = cache[--cached];
    else if (!(c = malloc(sizeof(*c) + size)))
        return NULL;
    c->next = NULL;
    c->size = size;
    c->used = 0;
    return c;
}

static void chunk_free(struct chunk *c)
{
    if (c->size == CHUNK_FIRST && cached < CHUNK_CACHE)
        cache[cached++] = c;
    else
        free(c);
}

struct ynode_doc *ynode_doc_create(void)
{
    struct ynode_doc *doc = malloc(sizeof(*doc));

    if (!doc)
        return NULL;
    doc->chunks = NULL;
    doc->next_size = CHUNK_FIRST;
    doc->root = NULL;
    return doc;
}

struct ynode_doc *ynode_doc_wrap(struct ynode *root)
{
    struct ynode_doc *doc = ynode_doc_create();

    if (doc)
        doc->root = root;
    return doc;
}

void ynode_doc_destroy(struct ynode_doc *doc)
{
    if (!doc)
        return;
    while (doc->chunks) {
        struct chunk *next = doc->chunks->next;

        chunk_free(doc->chunks);
        doc->chunks = next;
    }
    free(doc);
}

/* A new chunk for `size` bytes (rounded), kept apart so that the common case below
 * saves no registers: its pushes and pops were half of every allocation. */
static __attribute__((noinline)) void *alloc_in_new_chunk(struct ynode_doc *doc, size_t size)
{
    size_t want = doc->next_size;
    struct chunk *c;

    while (want < size)
        want *= 2;
    if (!(c = chunk_new(want)))
        return NULL;
    if (doc->next_size < CHUNK_MAX)
        doc->next_size *= 2;
    c->next = doc->chunks;
    doc->chunks = c;
    c->used = size;
    return c->data;
}

/* inlined into this file's node makers, which are most of the calls */
static inline void *doc_alloc(struct ynode_doc *doc, size_t size)
{
    struct chunk *c = doc->chunks;
    void *p;

    size = (size + 7) & ~(size_t)7;
    if (!c || c->size - c->used < size)
        return alloc_in_new_chunk(doc, size);
    p = (char *)c->data + c->used;
    c->used += size;
    return p;
}

void *ynode_doc_alloc(struct ynode_doc *doc, size_t size)
{
    return doc_alloc(doc, size);
}

void ynode_doc_adopt(struct ynode_doc *doc, struct ynode_doc *other)
{
    struct chunk **tail = &doc->chunks;

    if (!other)
        return;
    /* behind the current chunk, which keeps taking new allocations */
    if (*tail)
        tail = &(*tail)->next;
    while (other->chunks) {
        struct chunk *c = other->chunks;

        other->chunks = c->next;
        c->next = *tail;
        *tail = c;
    }
    free(other);
}

struct ynode *ynode_doc_root(const struct ynode_doc *doc)
{
    return doc->root;
}

void ynode_doc_set_root(struct ynode_doc *doc, struct ynode *root)
{
    doc->root = root;
}

/* ---- reading ---- */

const char *ynode_scalar(const struct ynode *n, size_t *len)
{
    if (!ynode_is_scalar(n))
        return NULL;
    if (len)
        *len = n->u.scalar.len;
    return n->u.scalar.text;
}

bool ynode_scalar_is_n(const struct ynode *n, const char *s, size_t len)
{
    return ynode_is_scalar(n) && n->u.scalar.len == len && memcmp(n->u.scalar.text, s, len) == 0;
}

bool ynode_is_null(const struct ynode *n)
{
    const char *t;
    size_t len;

    if (!n)
        return true;
    if (!ynode_is_scalar(n) || n->style != YNODE_PLAIN)
        return false;
    t = n->u.scalar.text;
    len = n->u.scalar.len;
    return len == 0 || (len == 1 && t[0] == '~') ||
           (len == 4 && (!memcmp(t, "null", 4) || !memcmp(t, "Null", 4) || !memcmp(t, "NULL", 4)));
}

bool ynode_int(const struct ynode *n, long long *out)
{
    size_t len, i = 0;
    const char *t;
    long long v = 0;

    if (ynode_is_string(n) || !(t = ynode_scalar(n, &len)) || len == 0 || len > 18)
        return false;
    if (t[0] == '-')
        i = 1;
    /* One way to write a number: no '+', no leading zero (YAML 1.1 reads 010 as 8). */
    if (i == len || (t[i] == '0' && (len > i + 1 || i == 1)))
        return false;
    for (; i < len; i++) {
        if (t[i] < '0' || t[i] > '9')
            return false;
        v = v * 10 + (t[i] - '0');
    }
    *out = t[0] == '-' ? -v : v;
    return true;
}

long ynode_find(const struct ynode *map, const char *key, size_t len)
{
    if (!ynode_is_map(map))
        return -1;
    for (size_t i = 0; i < map->u.map.n; i++) {
        const struct ynode *k = map->u.map.pairs[i].key;

        if (k->u.scalar.len == len && (!len || k->u.scalar.text[0] == key[0]) &&
            memcmp(k->u.scalar.text, key, len) == 0)
            return (long)i;
    }
    return -1;
}

const char *ynode_get_any(const struct ynode *map, const char *const *keys, struct ynode **value)
{
    for (; *keys; keys++) {
        long i = ynode_find(map, *keys, strlen(*keys));

        if (i >= 0) {
            if (value)
                *value = map->u.map.pairs[i].value;
            return *keys;
        }
    }
    if (value)
        *value = NULL;
    return NULL;
}

struct ypos ynode_text_pos(const struct ynode *n, size_t offset)
{
    struct ypos pos = ynode_pos(n);

    if (ynode_is_scalar(n) && n->verbatim && offset <= n->u.scalar.len)
        pos.col += (unsigned)offset;
    return pos;
}

/* ---- positions through the input's bytes ---- */

struct raw_walk {
    const char *raw, *end;
    const char *at; /* the byte reached */
};

static bool is_break(char c)
{
    return c == '\n' || c == '\r';
}

/* Past one line break (\n, \r\n or \r). */
static const char *past_break(const char *p, const char *end)
{
    if (p < end && *p == '\r')
        p++;
    if (p < end && *p == '\n')
        p++;
    return p;
}

static const char *line_end(const char *p, const char *end)
{
    while (p < end && !is_break(*p))
        p++;
    return p;
}

static bool blank_to_break(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p == end || is_break(*p);
}

/* Bytes of the UTF-8 encoding of `cp`. */
static size_t utf8_bytes(unsigned long cp)
{
    return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/* A double-quoted escape at p (the backslash): its length in the input, the bytes it
 * makes in *made; 0 when it is not one. */
static size_t escape_len(const char *p, const char *end, size_t *made)
{
    static const char simple[] = "0abt\tnvfre \"/\\";
    size_t hex = 0;
    unsigned long cp = 0;

    if (end - p < 2)
        return 0;
    switch (p[1]) {
    case 'x': hex = 2; break;
    case 'u': hex = 4; break;
    case 'U': hex = 8; break;
    case 'N': case '_': *made = 2; return 2; /* U+0085, U+00A0 */
    case 'L': case 'P': *made = 3; return 2; /* U+2028, U+2029 */
    default:
        *made = 1;
        return p[1] && strchr(simple, p[1]) ? 2 : 0;
    }
    if ((size_t)(end - p) < 2 + hex)
        return 0;
    for (size_t i = 0; i < hex; i++) {
        char c = p[2 + i];
        int d = c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;

        if (d < 0)
            return 0;
        cp = cp * 16 + (unsigned long)d;
    }
    *made = utf8_bytes(cp);
    return 2 + hex;
}

/* A flow scalar (plain, single- or double-quoted) from `w->at`: follows `offset` bytes
 * of `text`. False when the input does not hold the text. */
static bool walk_flow(struct raw_walk *w, int style, const char *text, size_t offset)
{
    const char *p = w->at, *end = w->end;
    size_t i = 0;

    while (i < offset) {
        if (p >= end)
            return false;
        if (is_break(*p)) {
            size_t empty = 0;

            /* a line break folds: into one space, or into a \n per empty line after it */
            for (p = past_break(p, end);; p = past_break(p, end), empty++) {
                while (p < end && (*p == ' ' || *p == '\t'))
                    p++;
                if (p >= end || !is_break(*p))
                    break;
            }
            if (text[i] != (empty ? '\n' : ' '))
                return false;
            i += empty ? empty : 1;
        } else if ((*p == ' ' || *p == '\t') && blank_to_break(p, end)) {
            p = line_end(p, end); /* white space before a break is not in the text */
        } else if (style == YNODE_SINGLE_QUOTED && *p == '\'' && p + 1 < end && p[1] == '\'') {
            p += 2;
            i++;
        } else if (style == YNODE_DOUBLE_QUOTED && *p == '\\' && p + 1 < end && is_break(p[1])) {
            /* an escaped line break: nothing, and the next line's indentation goes */
            for (p = past_break(p + 1, end); p < end && (*p == ' ' || *p == '\t'); p++)
                ;
        } else if (style == YNODE_DOUBLE_QUOTED && *p == '\\') {
            size_t made, n = escape_len(p, end, &made);

            if (!n)
                return false;
            p += n;
            i += made;
        } else {
            if (*p != text[i])
                return false;
            p++;
            i++;
        }
    }
    w->at = p;
    return true;
}

/* A literal or folded block scalar: w->at is at the start of its header line. */
static bool walk_block(struct raw_walk *w, int style, const char *text, size_t text_len, size_t offset)
{
    const char *p = w->at, *end = w->end, *header = line_end(p, end), *ind = NULL;
    size_t indent = 0, i = 0, blanks = 0;
    bool first = true, prev_more = false;

    /* the header: `|` or `>`, then an indentation digit and a chomping sign in any
     * order, then white space or a comment */
    for (const char *q = p; q < header && !ind; q++) {
        const char *r = q + 1;

        if (*q != (style == YNODE_LITERAL ? '|' : '>'))
            continue;
        while (r < header && (*r == '+' || *r == '-' || (*r >= '1' && *r <= '9')))
            r++;
        if (r == header || *r == ' ' || *r == '\t')
            ind = q;
    }
    if (!ind)
        return false;
    for (const char *q = ind + 1; q < header && *q != ' ' && *q != '\t'; q++) {
        if (*q >= '1' && *q <= '9') {
            /* counted from the indentation of the node that holds the scalar: the
             * header line's, and its `- ` entries but the one the scalar is */
            const char *s = p;

            while (s < ind && (*s == ' ' || (*s == '-' && s + 1 < ind && s[1] == ' ')))
                s++;
            if (s == ind && s - p >= 2 && s[-2] == '-')
                s -= 2;
            indent = (size_t)(s - p) + (size_t)(*q - '0');
        }
    }
    p = past_break(header, end);
    if (!indent) { /* the first line with content */
        for (const char *q = p; q < end;) {
            const char *e = line_end(q, end), *s = q;

            while (s < e && *s == ' ')
                s++;
            if (s < e) {
                indent = (size_t)(s - q);
                break;
            }
            q = past_break(e, end);
        }
    }
    if (!indent)
        return false;
    while (p < end) {
        const char *e = line_end(p, end), *content = p + indent;
        bool blank = blank_to_break(p, e) && (size_t)(e - p) <= indent, more;
        size_t sep = 0, n;

        if (blank) {
            blanks++;
            p = past_break(e, end);
            continue;
        }
        for (const char *q = p; q < content; q++) {
            if (q >= e || *q != ' ')
                return false; /* less indented: the scalar ended */
        }
        more = *content == ' ' || *content == '\t';
        if (first)
            sep = blanks;
        else if (style == YNODE_LITERAL || more || prev_more)
            sep = blanks + 1;
        else
            sep = blanks ? blanks : 1;
        if (offset < i + sep) /* in the line breaks before this line: at its start */
            offset = i + sep;
        i += sep;
        n = (size_t)(e - content);
        if (offset <= i + n) {
            if (memcmp(content, text + i, offset - i) != 0)
                return false;
            w->at = content + (offset - i);
            return true;
        }
        if (i + n > text_len || memcmp(content, text + i, n) != 0)
            return false;
        i += n;
        first = false;
        prev_more = more;
        blanks = 0;
        p = past_break(e, end);
    }
    return false;
}

struct ypos ynode_text_pos_raw(const struct ynode *n, size_t offset, const char *raw, size_t len)
{
    struct ypos pos = ynode_pos(n), at = pos;
    struct raw_walk w = {raw, raw + len, raw};
    const char *line = raw;
    bool ok;

    if (!ynode_is_scalar(n) || n->style == YNODE_MADE || !pos.line || offset > n->u.scalar.len)
        return pos;
    if (n->style == YNODE_LITERAL || n->style == YNODE_FOLDED) {
        ok = walk_block(&w, n->style, n->u.scalar.text, n->u.scalar.len, offset);
        at.line = pos.line - 1;
    } else {
        /* to the scalar's column (in characters) on its line */
        for (unsigned col = 1; col < pos.col && w.at < w.end && !is_break(*w.at);) {
            w.at++;
            col += w.at == w.end || ((unsigned char)*w.at & 0xC0) != 0x80;
        }
        ok = walk_flow(&w, n->style, n->u.scalar.text, offset);
    }
    if (!ok)
        return pos;
    for (const char *p = raw; p < w.at; p++) {
        if (*p == '\n' || (*p == '\r' && (p + 1 == w.at || p[1] != '\n'))) {
            at.line++;
            line = p + 1;
        }
    }
    at.col = 1;
    for (const char *p = line; p < w.at; p++)
        at.col += ((unsigned char)*p & 0xC0) != 0x80;
    return at;
}

struct ynode *ynode_rewrite_scalars(struct ynode_doc *doc, struct ynode *n, ynode_scalar_fn fn, void *user)
{
    struct ynode *copy = NULL;

    if (ynode_is_scalar(n))
        return fn(user, doc, n);
    for (size_t i = 0; i < ynode_len(n); i++) {
        struct ynode *child = ynode_is_seq(n) ? n->u.seq.items[i] : n->u.map.pairs[i].value;
        struct ynode *done = ynode_rewrite_scalars(doc, child, fn, user);

        if (!done)
            return NULL;
        if (done == child)
            continue;
        if (!copy && !(copy = ynode_copy_shallow(doc, n)))
            return NULL;
        if (ynode_is_seq(n))
            ynode_set_item(copy, i, done);
        else
            ynode_set_value(copy, i, done);
    }
    return copy ? copy : n;
}

bool ynode_proven_settle(struct ynode *n)
{
    bool whole = n->proven & YNODE_PROVEN;

    /* every child settled, even past a changed one: each is asked on its own later; a
     * child settled already (one the configurations of a matrix job share) as it was */
    for (size_t i = 0; i < ynode_len(n); i++) {
        struct ynode *c = ynode_is_seq(n) ? n->u.seq.items[i] : n->u.map.pairs[i].value;

        if (c && !((c->proven & YNODE_SETTLED) ? c->proven & YNODE_PROVEN : ynode_proven_settle(c)))
            whole = false;
    }
    n->proven = (uint8_t)((n->proven & (YNODE_NO_EXPR | YNODE_SHARED)) | YNODE_SETTLED | (whole ? YNODE_PROVEN : 0));
    return whole;
}

size_t ynode_tree_size_within(const struct ynode *n, size_t budget)
{
    size_t count = 1;

    if (!n)
        return 0;
    if (ynode_is_seq(n)) {
        for (size_t i = 0; i < n->u.seq.n && count <= budget; i++)
            count += ynode_tree_size_within(n->u.seq.items[i], budget - count);
    } else if (ynode_is_map(n)) {
        for (size_t i = 0; i < n->u.map.n && count <= budget; i++)
            count += 1 + ynode_tree_size_within(n->u.map.pairs[i].value, budget - count);
    }
    return count;
}

size_t ynode_tree_size(const struct ynode *n)
{
    return ynode_tree_size_within(n, SIZE_MAX);
}

/* ---- making ---- */

static struct ynode *new_node(struct ynode_doc *doc, enum ynode_kind kind, struct ypos pos)
{
    struct ynode *n = doc_alloc(doc, sizeof(*n));

    if (!n)
        return NULL;
    memset(n, 0, sizeof(*n));
    n->kind = (uint8_t)kind;
    n->pos = pos;
    return n;
}

struct ynode *ynode_new_map(struct ynode_doc *doc, struct ypos pos)
{
    return new_node(doc, YNODE_MAP, pos);
}

struct ynode *ynode_new_seq(struct ynode_doc *doc, struct ypos pos)
{
    return new_node(doc, YNODE_SEQ, pos);
}

struct ynode *ynode_new_scalar(struct ynode_doc *doc, const char *s, size_t len,
                               enum ynode_style style, struct ypos pos)
{
    /* the node and its text in one allocation (two were a tenth of building a tree) */
    struct ynode *n = doc_alloc(doc, sizeof(*n) + len + 1);
    char *text;

    if (!n)
        return NULL;
    text = (char *)(n + 1);
    memset(n, 0, sizeof(*n));
    n->kind = YNODE_SCALAR;
    n->pos = pos;
    memcpy(text, s, len);
    text[len] = '\0';
    n->style = (uint8_t)style;
    n->u.scalar.text = text;
    n->u.scalar.len = len;
    return n;
}

struct ynode *ynode_new_string(struct ynode_doc *doc, const char *s, size_t len, struct ypos pos)
{
    return ynode_new_scalar(doc, s, len, YNODE_MADE, pos);
}

struct ynode *ynode_new_plain(struct ynode_doc *doc, const char *text, struct ypos pos)
{
    return ynode_new_scalar(doc, text, strlen(text), YNODE_PLAIN, pos);
}

struct ynode *ynode_new_string_of(struct ynode_doc *doc, const struct ynode *n)
{
    struct ynode *s = new_node(doc, YNODE_SCALAR, n->pos);

    if (!s)
        return NULL;
    s->style = YNODE_MADE;
    s->u.scalar = n->u.scalar;
    s->proven = n->proven & (YNODE_PROVEN | YNODE_NO_EXPR);
    return s;
}

/* With `share`, scalars keep src's text (which lives as long as doc). */
static struct ynode *copy(struct ynode_doc *doc, const struct ynode *src, bool share)
{
    struct ynode *n;

    if (!src)
        return NULL;
    switch (src->kind) {
    case YNODE_SCALAR:
        if (share && (n = new_node(doc, YNODE_SCALAR, src->pos)) != NULL) {
            n->style = src->style;
            n->u.scalar = src->u.scalar;
        } else if (share || !(n = ynode_new_scalar(doc, src->u.scalar.text, src->u.scalar.len,
                                                   (enum ynode_style)src->style, src->pos))) {
            return NULL;
        }
        n->verbatim = src->verbatim;
        n->proven = src->proven & (YNODE_PROVEN | YNODE_NO_EXPR);
        return n;
    case YNODE_SEQ:
        /* the array made at its size at once (appending grew it 4, 8, 16 ...: a matrix
         * job is copied for every configuration) */
        if (!(n = ynode_new_seq(doc, src->pos)) ||
            (src->u.seq.n && !(n->u.seq.items = doc_alloc(doc, src->u.seq.n * sizeof(*n->u.seq.items)))))
            return NULL;
        n->u.seq.cap = src->u.seq.n;
        for (size_t i = 0; i < src->u.seq.n; i++) {
            if (!(n->u.seq.items[i] = copy(doc, src->u.seq.items[i], share)))
                return NULL;
            n->u.seq.n++;
        }
        n->proven = src->proven & YNODE_PROVEN; /* a copy holds what src holds */
        return n;
    default:
        if (!(n = ynode_new_map(doc, src->pos)) ||
            (src->u.map.n && !(n->u.map.pairs = doc_alloc(doc, src->u.map.n * sizeof(*n->u.map.pairs)))))
            return NULL;
        n->u.map.cap = src->u.map.n;
        for (size_t i = 0; i < src->u.map.n; i++) {
            const struct ynode_pair *p = &src->u.map.pairs[i];
            struct ynode *k = copy(doc, p->key, share);
            struct ynode *v = p->value ? copy(doc, p->value, share) : NULL;

            if (!k || (p->value && !v))
                return NULL;
            n->u.map.pairs[i] = (struct ynode_pair){k, v};
            n->u.map.n++;
        }
        n->proven = src->proven & YNODE_PROVEN;
        return n;
    }
}

struct ynode *ynode_copy(struct ynode_doc *doc, const struct ynode *src)
{
    return copy(doc, src, false);
}

struct ynode *ynode_copy_in(struct ynode_doc *doc, const struct ynode *src)
{
    return copy(doc, src, true);
}

struct ynode *ynode_copy_shallow(struct ynode_doc *doc, const struct ynode *src)
{
    struct ynode *n;
    size_t len = ynode_len(src), size;

    if (!src || src->kind == YNODE_SCALAR)
        return (struct ynode *)src;
    if (!(n = new_node(doc, (enum ynode_kind)src->kind, src->pos)))
        return NULL;
    if (!len)
        return n;
    size = src->kind == YNODE_SEQ ? sizeof(struct ynode *) : sizeof(struct ynode_pair);
    /* one spare slot: a shard usually gains a field (env) */
    {
        void *arr = doc_alloc(doc, (len + 1) * size);

        if (!arr)
            return NULL;
        if (src->kind == YNODE_SEQ) {
            memcpy(arr, src->u.seq.items, len * size);
            n->u.seq.items = arr;
            n->u.seq.n = len;
            n->u.seq.cap = len + 1;
        } else {
            memcpy(arr, src->u.map.pairs, len * size);
            n->u.map.pairs = arr;
            n->u.map.n = len;
            n->u.map.cap = len + 1;
        }
    }
    return n;
}

/* ---- changing ---- */

/* Makes room for one more element of `size` bytes in *arr (n used of *cap). */
static int grow(struct ynode_doc *doc, void **arr, size_t n, size_t *cap, size_t size)
{
    size_t want;
    void *bigger;

    if (n < *cap)
        return 0;
    want = *cap ? *cap * 2 : 4;
    if (!(bigger = doc_alloc(doc, want * size)))
        return -1;
    if (n)
        memcpy(bigger, *arr, n * size);
    *arr = bigger;
    *cap = want;
    return 0;
}

int ynode_insert(struct ynode_doc *doc, struct ynode *seq, size_t at, struct ynode *item)
{
    if (!item || grow(doc, (void **)&seq->u.seq.items, seq->u.seq.n, &seq->u.seq.cap,
                      sizeof(*seq->u.seq.items)) != 0)
        return -1;
    memmove(&seq->u.seq.items[at + 1], &seq->u.seq.items[at],
            (seq->u.seq.n - at) * sizeof(*seq->u.seq.items));
    seq->u.seq.items[at] = item;
    seq->u.seq.n++;
    seq->proven = 0;
    return 0;
}

int ynode_append(struct ynode_doc *doc, struct ynode *seq, struct ynode *item)
{
    return ynode_insert(doc, seq, seq->u.seq.n, item);
}

void ynode_remove_at(struct ynode *n, size_t at)
{
    n->proven = 0;
    if (ynode_is_seq(n)) {
        memmove(&n->u.seq.items[at], &n->u.seq.items[at + 1],
                (n->u.seq.n - at - 1) * sizeof(*n->u.seq.items));
        n->u.seq.n--;
    } else if (ynode_is_map(n)) {
        memmove(&n->u.map.pairs[at], &n->u.map.pairs[at + 1],
                (n->u.map.n - at - 1) * sizeof(*n->u.map.pairs));
        n->u.map.n--;
    }
}

void ynode_set_item(struct ynode *seq, size_t i, struct ynode *item)
{
    seq->u.seq.items[i] = item;
    seq->proven = 0;
}

void ynode_set_value(struct ynode *map, size_t i, struct ynode *value)
{
    map->u.map.pairs[i].value = value;
    map->proven = 0;
}

void ynode_replace_equal(struct ynode *n, size_t i, struct ynode *value)
{
    if (ynode_is_seq(n))
        n->u.seq.items[i] = value;
    else
        n->u.map.pairs[i].value = value;
}

void ynode_take_children(struct ynode *dst, const struct ynode *src)
{
    dst->u = src->u;
    dst->proven = 0;
}

int ynode_append_pair(struct ynode_doc *doc, struct ynode *map, struct ynode *key,
                      struct ynode *value)
{
    if (!key || grow(doc, (void **)&map->u.map.pairs, map->u.map.n, &map->u.map.cap,
                     sizeof(*map->u.map.pairs)) != 0)
        return -1;
    map->u.map.pairs[map->u.map.n].key = key;
    map->u.map.pairs[map->u.map.n].value = value;
    map->u.map.n++;
    map->proven = 0;
    return 0;
}

int ynode_set(struct ynode_doc *doc, struct ynode *map, const char *key, struct ynode *value)
{
    size_t len = strlen(key);
    long i = ynode_find(map, key, len);

    if (!value)
        return -1;
    if (i >= 0) {
        ynode_set_value(map, (size_t)i, value);
        return 0;
    }
    return ynode_append_pair(doc, map, ynode_new_string(doc, key, len, value->pos), value);
}

void ynode_remove(struct ynode *map, const char *key)
{
    long i = ynode_find(map, key, strlen(key));

    if (i >= 0)
        ynode_remove_at(map, (size_t)i);
}
