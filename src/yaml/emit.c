#include "fanout/emit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/text.h"
#include "fanout/ynode.h"
#include "fanout/yscalar.h"

#include "fanout/memo.h"

/* Output is gathered here and written in large blocks: stdio's per-character calls and
 * locks were a tenth of a render. */
#define EMIT_BUFFER 65536
#define MAX_ORDER 255 /* keys of an item_key_order that rank */
/* The containers' texts kept in an item (memo.h): past this, containers are written
 * each time. */
#define MEMO_MAX_TEXT (16u << 20)
/* A matrix job's configuration has some 30 short strings to style: with 16 slots half
 * the lookups missed (77,000 yscalar_style calls, 17M instructions at 1 MB). */
#define STYLE_SLOTS 128
#define STYLE_TEXT 32

struct emitter {
    FILE *out;
    size_t n; /* bytes in buf */
    enum emit_format format;
    const struct emit_layout *layout;
    size_t n_order; /* keys in layout->item_key_order (at most MAX_ORDER are used) */
    /* The order keys by their first byte, for item_key_rank: 1 + the index of the first
     * (0: none), then each's next; comparing each key with all of them was a tenth of
     * the emitter. */
    unsigned char first[256], next[MAX_ORDER];
    unsigned docs;      /* documents started */
    uint64_t flushed;   /* bytes written out of buf (or past it) */
    unsigned members;   /* top-level members written in this document */
    unsigned steps;     /* steps written in this document */
    bool failed;        /* a write failed */
    bool steps_open;
    bool had_steps;     /* this document has a steps section */
    /* The containers written in the item being written, by node (memo.h): on in an
     * item of several jobs (a matrix job's configurations), whose shared nodes are
     * written again as the text written the first time. */
    struct memo *memo;
    bool memo_on;
    /* The styles of short strings, by their text: a rendering writes the same keys and
     * values fanout made (BUILDKITE_PARALLEL_JOB: "0") for every job, and choosing a
     * style reads the whole text. A slot by length and ends; len 0: empty. Allocated at
     * the first short string to style (zeroing them in emit_create cost a one-step
     * render more than it saved). */
    struct style_slot {
        unsigned char len;
        bool is_key;
        enum yscalar_style style;
        char text[STYLE_TEXT];
    } *styles;
    char buf[EMIT_BUFFER]; /* last: emit_create zeroes what comes before it */
};

/* yscalar_style, remembered for short texts. */
static enum yscalar_style style_of(struct emitter *e, const char *s, size_t len, bool is_key)
{
    unsigned slot;

    if (len == 0 || len > STYLE_TEXT ||
        (!e->styles && !(e->styles = calloc(STYLE_SLOTS, sizeof(*e->styles)))))
        return yscalar_style(s, len, is_key);
    slot = (unsigned)(len + (unsigned char)s[0] + 3u * (unsigned char)s[len - 1] + is_key) % STYLE_SLOTS;
    if (e->styles[slot].len != len || e->styles[slot].is_key != is_key || memcmp(e->styles[slot].text, s, len) != 0) {
        e->styles[slot].len = (unsigned char)len;
        e->styles[slot].is_key = is_key;
        e->styles[slot].style = yscalar_style(s, len, is_key);
        memcpy(e->styles[slot].text, s, len);
    }
    return e->styles[slot].style;
}

const struct emit_layout emit_plain_layout = {"steps", false, NULL, NULL};

struct emitter *emit_create(FILE *out, enum emit_format format, const struct emit_layout *layout)
{
    struct emitter *e = malloc(sizeof(*e));

    if (e) {
        memset(e, 0, offsetof(struct emitter, buf));
        e->out = out;
        e->format = format;
        e->layout = layout ? layout : &emit_plain_layout;
        for (const char *const *k = e->layout->item_key_order; k && *k && e->n_order < MAX_ORDER; k++)
            e->n_order++;
        for (size_t i = e->n_order; i-- > 0;) { /* chains in the layout's order */
            unsigned char c = (unsigned char)e->layout->item_key_order[i][0];

            e->next[i] = e->first[c];
            e->first[c] = (unsigned char)(i + 1);
        }
    }
    return e;
}

void emit_destroy(struct emitter *e)
{
    if (e) {
        emit_flush(e);
        free(e->styles);
        memo_destroy(e->memo);
    }
    free(e);
}

unsigned emit_docs(const struct emitter *e)
{
    return e->docs;
}

uint64_t emit_offset(const struct emitter *e)
{
    return e->flushed + e->n;
}

void emit_flush(struct emitter *e)
{
    if (e->n && fwrite(e->buf, 1, e->n, e->out) != e->n)
        e->failed = true;
    e->flushed += e->n;
    e->n = 0;
}

int emit_error(struct emitter *e)
{
    emit_flush(e);
    return e->failed || ferror(e->out) ? -1 : 0;
}

/* putn when the buffer cannot take n more bytes. */
static void putn_flushing(struct emitter *e, const char *s, size_t n)
{
    emit_flush(e);
    if (n > EMIT_BUFFER) {
        if (fwrite(s, 1, n, e->out) != n)
            e->failed = true;
        e->flushed += n;
        return;
    }
    memcpy(e->buf, s, n);
    e->n = n;
}

/* Inline: a call for every key, indent and colon was a twentieth of the emitter. */
static inline void putn(struct emitter *e, const char *s, size_t n)
{
    if (e->n + n > EMIT_BUFFER) {
        putn_flushing(e, s, n);
        return;
    }
    memcpy(e->buf + e->n, s, n);
    e->n += n;
}

/* Inline wherever it is called, for the length of a literal to be a constant (a call and
 * a strlen for every "|" and ": "). */
__attribute__((always_inline)) static inline void put(struct emitter *e, const char *s)
{
    putn(e, s, strlen(s));
}

static inline void putch(struct emitter *e, char c)
{
    if (e->n == EMIT_BUFFER)
        emit_flush(e);
    e->buf[e->n++] = c;
}

static const char spaces[] = "                                ";

/* indent when the buffer has no room for all of `spaces`, or n is more */
static void indent_long(struct emitter *e, unsigned n)
{
    while (n > sizeof(spaces) - 1) {
        putn(e, spaces, sizeof(spaces) - 1);
        n -= sizeof(spaces) - 1;
    }
    putn(e, spaces, n);
}

/* Inline, and all of the spaces copied, the ones past n written over next: a copy of a
 * constant size is two stores, and a call with n bytes to copy (registers saved for its
 * loop) was a tenth of the emitter. */
static inline void indent(struct emitter *e, unsigned n)
{
    if (n <= sizeof(spaces) - 1 && e->n + sizeof(spaces) - 1 <= EMIT_BUFFER) {
        memcpy(e->buf + e->n, spaces, sizeof(spaces) - 1);
        e->n += n;
    } else {
        indent_long(e, n);
    }
}

/* ---- scalars ---- */

/* Bytes that stand for themselves between double quotes: printable ASCII but '"' and
 * '\\'. A table: the test was most of the cost of quoting a label. */
static const unsigned char quoted_byte[256] = {
#define ROW16(a) a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a
    ROW16(0), ROW16(0),
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20: '"' */
    ROW16(1), ROW16(1),
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x50: '\\' */
    ROW16(1),
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, /* 0x70: DEL */
#undef ROW16
};

static void put_double_quoted(struct emitter *e, const char *s, size_t len, bool json)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;

    putch(e, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = p[i];
        char esc[8];
        size_t run = i;

        while (run < len && quoted_byte[p[run]])
            run++;
        if (run > i) { /* printable ASCII that stands for itself, put whole */
            putn(e, s + i, run - i);
            i = run - 1;
            continue;
        }
        switch (c) {
        case '"':
            put(e, "\\\"");
            continue;
        case '\\':
            put(e, "\\\\");
            continue;
        case '\n':
            put(e, "\\n");
            continue;
        case '\t':
            put(e, "\\t");
            continue;
        case '\r':
            put(e, "\\r");
            continue;
        default:
            break;
        }
        if (c < 0x20 || c == 0x7F) {
            snprintf(esc, sizeof(esc), json ? "\\u00%c%c" : "\\x%c%c", hex[c >> 4], hex[c & 15]);
            put(e, esc);
        } else if (!json && c == 0xC2 && i + 1 < len && p[i + 1] == 0x85) {
            put(e, "\\N");
            i++;
        } else if (c == 0xE2 && i + 2 < len && p[i + 1] == 0x80 && (p[i + 2] == 0xA8 || p[i + 2] == 0xA9)) {
            /* Line/paragraph separators end lines in JavaScript and YAML 1.1 readers. */
            put(e, p[i + 2] == 0xA8 ? (json ? "\\u2028" : "\\L") : (json ? "\\u2029" : "\\P"));
            i += 2;
        } else if (c == 0xEF && i + 2 < len && p[i + 1] == 0xBB && p[i + 2] == 0xBF) {
            put(e, "\\uFEFF");
            i += 2;
        } else {
            putch(e, c);
        }
    }
    putch(e, '"');
}

/* A literal block's header line; the number of line breaks that end its text. */
static size_t literal_header(struct emitter *e, const char *s, size_t len)
{
    size_t trailing = 0, i = 0;

    while (trailing < len && s[len - 1 - trailing] == '\n')
        trailing++;
    put(e, "|");
    while (i < len && s[i] == '\n')
        i++;
    if (i < len && s[i] == ' ')
        put(e, "2"); /* the first line's own spaces are content, not indentation */
    put(e, trailing == 0 ? "-" : trailing > 1 ? "+" : "");
    putch(e, '\n');
    return trailing;
}

/* A literal block for text with line breaks; `col` is the indent of its lines. */
static void put_literal(struct emitter *e, const char *s, size_t len, unsigned col)
{
    size_t trailing = literal_header(e, s, len);

    for (size_t i = 0; i < len;) {
        const char *nl = memchr(s + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - s) : len;

        if (end > i) {
            indent(e, col);
            putn(e, s + i, end - i);
        }
        if (!nl)
            break;
        putch(e, '\n');
        i = end + 1;
    }
    if (trailing == 0)
        putch(e, '\n');
}

struct literal_at {
    struct emitter *e;
    unsigned col;
    bool full; /* a line did not fit: nothing more is written */
};

/* A line of put_literal's, as yscalar_literal_lines gives it: put only while the buffer
 * has room for it (a flush could not be taken back). */
static void literal_line(void *user, const char *line, size_t len, bool nl)
{
    struct literal_at *at = user;
    struct emitter *e = at->e;

    if (at->full || e->n + at->col + len + 1 > EMIT_BUFFER) {
        at->full = true;
        return;
    }
    if (len) {
        indent(e, at->col);
        putn(e, line, len);
    }
    if (nl)
        putch(e, '\n');
}

/* Text with a line break: put_literal's block, written in the scan that finds whether it
 * can be one (yscalar_style then put_literal read it twice: the scan, and a memchr for
 * every line), else double-quoted, the block taken back from the buffer. A block that
 * does not fit in the buffer is written as before. */
static void put_multiline(struct emitter *e, const char *s, size_t len, unsigned col)
{
    struct literal_at to = {e, col, false};
    size_t at, trailing;
    bool literal;

    /* room for the text twice over, its indents most often too */
    if (e->n + 2 * len + 64 > EMIT_BUFFER)
        emit_flush(e);
    at = e->n;
    trailing = literal_header(e, s, len);
    literal = yscalar_literal_lines(s, len, literal_line, &to);
    if (literal && !to.full) {
        if (trailing == 0)
            putch(e, '\n');
        return;
    }
    e->n = at;
    if (literal) {
        put_literal(e, s, len, col);
        return;
    }
    put_double_quoted(e, s, len, false);
    putch(e, '\n');
}

/* The text of a scalar, "" for a missing value. */
static const char *scalar_text(const struct ynode *n, size_t *len)
{
    const char *s = ynode_scalar(n, len);

    if (!s) {
        *len = 0;
        return "";
    }
    return s;
}

/* A key longer than 1024 characters cannot be implicit (YAML 1.2.2 7.4.2 and 8.2.2; both
 * platforms' readers refuse one, and so does fanout's): a key that might be, written, is
 * an explicit `? key` with its `:` on the next line, at `col`. A key of this many bytes
 * is at most 1022 characters escaped (\uXXXX) and quoted. */
#define IMPLICIT_KEY_MAX 170

static void yaml_key_text(struct emitter *e, const struct ynode *k, const char *s, size_t len)
{
    if ((!ynode_is_string(k) && len && (k->verbatim || !memchr(s, '\n', len))) ||
        style_of(e, s, len, true) == YS_PLAIN)
        putn(e, s, len);
    else
        put_double_quoted(e, s, len, false);
}

/* The explicit form: rare, and kept out of the keys' way. */
__attribute__((cold, noinline)) static void yaml_explicit_key(struct emitter *e, const struct ynode *k, const char *s,
                                                               size_t len, unsigned col)
{
    put(e, "? ");
    yaml_key_text(e, k, s, len);
    putch(e, '\n');
    indent(e, col);
    putch(e, ':');
}

/* A key and its `:`. A plain input key keeps its text, and so its type; others are
 * strings. (A verbatim scalar is on one line: no search for a line break.) */
static inline void yaml_key_colon(struct emitter *e, const struct ynode *k, unsigned col)
{
    size_t len;
    const char *s = scalar_text(k, &len);

    if (__builtin_expect(len > IMPLICIT_KEY_MAX, 0)) {
        yaml_explicit_key(e, k, s, len, col);
        return;
    }
    yaml_key_text(e, k, s, len);
    putch(e, ':');
}

/* A scalar value after "key:" or "-", ending its line(s); `col` indents block lines. */
static void yaml_scalar(struct emitter *e, const struct ynode *n, unsigned col)
{
    size_t len;
    const char *s = scalar_text(n, &len);
    enum yscalar_style style;

    if (n && !ynode_is_string(n) && (n->verbatim || !memchr(s, '\n', len))) {
        if (len) {
            putch(e, ' ');
            putn(e, s, len);
        }
        putch(e, '\n');
        return;
    }
    putch(e, ' ');
    if (len <= STYLE_TEXT) { /* remembered (a search for a line break cost more) */
        style = style_of(e, s, len, false);
    } else if (memchr(s, '\n', len)) {
        put_multiline(e, s, len, col);
        return;
    } else {
        /* as a key's: without a line break no text is a literal block, and a key's
         * style is not searched for one again */
        style = yscalar_style(s, len, true);
    }
    switch (style) {
    case YS_LITERAL:
        put_literal(e, s, len, col);
        return;
    case YS_PLAIN:
        putn(e, s, len);
        break;
    case YS_DOUBLE_QUOTED:
        put_double_quoted(e, s, len, false);
        break;
    }
    putch(e, '\n');
}

static void json_scalar(struct emitter *e, const struct ynode *n, bool is_key)
{
    size_t len = 0;
    const char *s = ynode_scalar(n, &len);

    if (!s)
        s = "";
    if (!is_key && !ynode_is_string(n)) {
        switch (yscalar_type(s, len)) {
        case YS_NULL:
            put(e, "null");
            return;
        case YS_BOOL:
            put(e, s[0] == 't' || s[0] == 'T' ? "true" : "false");
            return;
        case YS_INT:
            if (s[0] != '0' || len == 1) {
                putn(e, s[0] == '+' ? s + 1 : s, s[0] == '+' ? len - 1 : len);
                return;
            }
            break; /* 0o17, 0x1F, 007: keep the text rather than guess */
        case YS_FLOAT:
            if (memchr("0123456789-", s[0], 11) && s[len - 1] >= '0' && s[len - 1] <= '9' &&
                !strstr(s, ".e") && !strstr(s, ".E")) {
                putn(e, s, len);
                return;
            }
            break;
        case YS_STRING:
            break;
        }
    }
    put_double_quoted(e, s, len, true);
}

/* ---- collections ---- */

static void yaml_value(struct emitter *e, const struct ynode *n, unsigned col, bool step);
static void yaml_mapping(struct emitter *e, const struct ynode *m, unsigned col, bool first_inline,
                         bool step);
static void yaml_sequence(struct emitter *e, const struct ynode *s, unsigned col, bool first_inline,
                          bool steps);

/* An item key's place: the layout's keys by their order, then the rest (as written),
 * then the nested items (a group's `steps`). */
static size_t item_key_rank(const struct emitter *e, const struct ynode *k)
{
    const char *const *order = e->layout->item_key_order;
    size_t len = 0;
    const char *t = ynode_scalar(k, &len);

    if (!t)
        return e->n_order;
    for (unsigned i = e->first[(unsigned char)t[0]]; i; i = e->next[i - 1]) {
        if (text_is(order[i - 1], t, len))
            return i - 1;
    }
    return e->layout->nested_key && text_is(e->layout->nested_key, t, len) ? e->n_order + 1 : e->n_order;
}

static bool is_nested_key(const struct emitter *e, const struct ynode *k)
{
    size_t len;
    const char *t = e->layout->nested_key ? ynode_scalar(k, &len) : NULL;

    return t && text_is(e->layout->nested_key, t, len);
}

/* Pairs an item may have for ordered_pairs to sort them on the stack; more are allocated
 * (a malloc and free of two arrays for every mapping were a tenth of the emitter). */
#define STACK_PAIRS 32

/* The pair indexes of `m` in output order in *order, and their number: as written
 * (*order NULL), or for an item by item_key_rank (a stable insertion sort: items have a
 * few dozen keys at most) in `room` (STACK_PAIRS of them) or, for more, an array to
 * free. 0 when out of memory. */
static size_t ordered_pairs(const struct emitter *e, const struct ynode *m, bool step, size_t *room,
                            size_t **order)
{
    size_t count = ynode_len(m), stack_ranks[STACK_PAIRS], *ranks = stack_ranks, *o = room;

    *order = NULL;
    if (!step || !count)
        return count;
    if (count > STACK_PAIRS) {
        o = malloc(count * sizeof(*o));
        ranks = malloc(count * sizeof(*ranks));
        if (!o || !ranks) {
            free(o);
            free(ranks);
            return 0;
        }
    }
    for (size_t k = 0; k < count; k++) {
        size_t i = k, rank = item_key_rank(e, ynode_key(m, k));

        for (; i > 0 && ranks[i - 1] > rank; i--) {
            o[i] = o[i - 1];
            ranks[i] = ranks[i - 1];
        }
        ranks[i] = rank;
        o[i] = k;
    }
    if (ranks != stack_ranks)
        free(ranks);
    *order = o;
    return count;
}

/* The index of the i-th pair in output order. */
static size_t pair_at(const size_t *order, size_t i)
{
    return order ? order[i] : i;
}

static void order_free(size_t *order, const size_t *room)
{
    if (order != room)
        free(order);
}

static void yaml_mapping(struct emitter *e, const struct ynode *m, unsigned col, bool first_inline,
                         bool step)
{
    size_t room[STACK_PAIRS], *order;
    size_t n = ordered_pairs(e, m, step, room, &order);

    for (size_t i = 0; i < n; i++) {
        const struct ynode *k = ynode_key(m, pair_at(order, i));

        if (i > 0 || !first_inline)
            indent(e, col);
        yaml_key_colon(e, k, col);
        /* A group's steps are steps themselves. */
        yaml_value(e, ynode_value(m, pair_at(order, i)), col, step && is_nested_key(e, k));
    }
    order_free(order, room);
}

/* yaml_container with e->memo_on: the text written for `n` before in this item, or
 * `n` written and its text kept. Apart, so that an item without it pays one test. */
__attribute__((noinline)) static void yaml_container_memo(struct emitter *e, const struct ynode *n, unsigned col,
                                                          bool first_inline, bool steps)
{
    unsigned how = col << 2 | (unsigned)first_inline << 1 | (unsigned)steps;
    uint64_t start = e->flushed + e->n;
    const void *text;
    size_t len;

    if (memo_find(e->memo, n, how, &text, &len)) {
        putn(e, text, len);
        return;
    }
    if (ynode_is_map(n))
        yaml_mapping(e, n, col, first_inline, steps);
    else
        yaml_sequence(e, n, col, first_inline, steps);
    if (start >= e->flushed) /* still all in the buffer */
        memo_keep(e->memo, n, how, e->buf + (start - e->flushed), e->n - (size_t)(start - e->flushed));
}

/* A non-empty container written as yaml_mapping or yaml_sequence writes it, or (in an
 * item of several jobs, e->memo_on) as the text they wrote for it before. */
static inline void yaml_container(struct emitter *e, const struct ynode *n, unsigned col, bool first_inline,
                                  bool steps)
{
    if (e->memo_on)
        yaml_container_memo(e, n, col, first_inline, steps);
    else if (ynode_is_map(n))
        yaml_mapping(e, n, col, first_inline, steps);
    else
        yaml_sequence(e, n, col, first_inline, steps);
}

static void yaml_sequence(struct emitter *e, const struct ynode *s, unsigned col, bool first_inline,
                          bool steps)
{
    for (size_t i = 0; i < ynode_len(s); i++) {
        const struct ynode *item = ynode_item(s, i);

        if (i > 0 || !first_inline)
            indent(e, col);
        putch(e, '-');
        if (ynode_is_map(item) && ynode_len(item)) {
            putch(e, ' ');
            yaml_container(e, item, col + 2, true, steps);
        } else if (ynode_is_seq(item) && ynode_len(item)) {
            putch(e, ' ');
            yaml_container(e, item, col + 2, true, false);
        } else {
            yaml_value(e, item, col, false);
        }
    }
}

/* The value after "key:" or "-" at column `col`; ends with a newline. */
static void yaml_value(struct emitter *e, const struct ynode *n, unsigned col, bool steps)
{
    if (!n || ynode_is_scalar(n)) {
        yaml_scalar(e, n, col + 2);
    } else if (!ynode_len(n)) {
        put(e, ynode_is_map(n) ? " {}\n" : " []\n");
    } else {
        putch(e, '\n');
        yaml_container(e, n, col + 2, false, ynode_is_seq(n) && steps);
    }
}

static void json_value(struct emitter *e, const struct ynode *n, unsigned col, bool step);

static void json_mapping(struct emitter *e, const struct ynode *m, unsigned col, bool step)
{
    size_t room[STACK_PAIRS], *order;
    size_t n = ordered_pairs(e, m, step, room, &order);

    if (n == 0) {
        put(e, "{}");
        return;
    }
    put(e, "{\n");
    for (size_t i = 0; i < n; i++) {
        const struct ynode *k = ynode_key(m, pair_at(order, i));

        indent(e, col + 2);
        json_scalar(e, k, true);
        put(e, ": ");
        json_value(e, ynode_value(m, pair_at(order, i)), col + 2, step && is_nested_key(e, k));
        put(e, i + 1 < n ? ",\n" : "\n");
    }
    indent(e, col);
    putch(e, '}');
    order_free(order, room);
}

static void json_sequence(struct emitter *e, const struct ynode *s, unsigned col, bool steps)
{
    if (!ynode_len(s)) {
        put(e, "[]");
        return;
    }
    put(e, "[\n");
    for (size_t i = 0; i < ynode_len(s); i++) {
        if (i)
            put(e, ",\n");
        indent(e, col + 2);
        json_value(e, ynode_item(s, i), col + 2, steps);
    }
    putch(e, '\n');
    indent(e, col);
    putch(e, ']');
}

/* `step` marks a step mapping (or, for a sequence, a list of steps). */
static void json_value(struct emitter *e, const struct ynode *n, unsigned col, bool step)
{
    if (!n || ynode_is_scalar(n))
        json_scalar(e, n, false);
    else if (ynode_is_map(n))
        json_mapping(e, n, col, step);
    else
        json_sequence(e, n, col, step);
}

/* ---- documents ---- */

void emit_doc_start(struct emitter *e)
{
    if (e->format == EMIT_YAML && e->docs > 0)
        put(e, "---\n");
    if (e->format == EMIT_JSON)
        put(e, "{");
    e->docs++;
    e->members = 0;
    e->steps = 0;
    e->steps_open = false;
    e->had_steps = false;
}

void emit_steps_end(struct emitter *e)
{
    if (!e->steps_open)
        return;
    e->steps_open = false;
    if (e->format == EMIT_JSON)
        put(e, e->steps ? (e->layout->items_mapping ? "\n  }" : "\n  ]")
                        : (e->layout->items_mapping ? "}" : "]"));
    else if (!e->steps)
        put(e, e->layout->items_mapping ? " {}\n" : " []\n");
}

/* Starts a top-level member: the separator and, for YAML, nothing else. */
static void json_member(struct emitter *e)
{
    put(e, e->members ? ",\n  " : "\n  ");
}

void emit_pair(struct emitter *e, const struct ynode *pair)
{
    emit_steps_end(e);
    for (size_t i = 0; i < ynode_len(pair); i++) {
        if (e->format == EMIT_JSON) {
            json_member(e);
            json_scalar(e, ynode_key(pair, i), true);
            put(e, ": ");
            json_value(e, ynode_value(pair, i), 2, false);
        } else {
            yaml_key_colon(e, ynode_key(pair, i), 0);
            yaml_value(e, ynode_value(pair, i), 0, false);
        }
        e->members++;
    }
}

void emit_steps_start(struct emitter *e)
{
    if (e->steps_open)
        return;
    e->steps_open = true;
    e->had_steps = true;
    if (e->format == EMIT_JSON) {
        json_member(e);
        put(e, "\"");
        put(e, e->layout->items_key);
        put(e, e->layout->items_mapping ? "\": {" : "\": [");
    } else {
        put(e, e->layout->items_key);
        putch(e, ':');
    }
    e->members++;
}

/* One item: of a list of items (`key` NULL: a step), or a pair of a mapping of items
 * (a job: its key, then its value). */
static void emit_one(struct emitter *e, const struct ynode *key, const struct ynode *item)
{
    emit_steps_start(e);
    if (e->format == EMIT_JSON) {
        put(e, e->steps ? ",\n    " : "\n    ");
        if (key) {
            json_scalar(e, key, true);
            put(e, ": ");
        }
        json_value(e, item, 4, true);
    } else {
        if (!e->steps)
            putch(e, '\n');
        if (key) {
            indent(e, 2);
            yaml_key_colon(e, key, 2);
        } else {
            put(e, "  -");
        }
        if (ynode_is_map(item) && ynode_len(item)) {
            putch(e, key ? '\n' : ' ');
            yaml_mapping(e, item, 4, !key, true);
        } else {
            yaml_value(e, item, 2, false);
        }
    }
    e->steps++;
}

void emit_step(struct emitter *e, const struct ynode *step)
{
    emit_one(e, NULL, step);
}

void emit_doc_end(struct emitter *e)
{
    /* Every rendered document has its items, even when there are none. */
    if (!e->had_steps)
        emit_steps_start(e);
    emit_steps_end(e);
    if (e->format == EMIT_JSON)
        put(e, "\n}\n");
}

void emit_node(struct emitter *e, const struct ynode *node)
{
    size_t len;
    const char *s;

    if (e->format == EMIT_JSON) {
        json_value(e, node, 0, false);
        putch(e, '\n');
    } else if (ynode_is_map(node)) {
        if (!ynode_len(node))
            put(e, "{}\n");
        else
            yaml_mapping(e, node, 0, false, false);
    } else if (ynode_is_seq(node)) {
        if (!ynode_len(node))
            put(e, "[]\n");
        else
            yaml_sequence(e, node, 0, false, false);
    } else {
        s = scalar_text(node, &len);
        if (node && !ynode_is_string(node) && !memchr(s, '\n', len)) {
            putn(e, s, len);
            putch(e, '\n');
        } else if (yscalar_style(s, len, false) == YS_LITERAL) {
            put_literal(e, s, len, 2);
        } else if (yscalar_style(s, len, false) == YS_PLAIN) {
            putn(e, s, len);
            putch(e, '\n');
        } else {
            put_double_quoted(e, s, len, false);
            putch(e, '\n');
        }
    }
}

/* Writes one item (a STEP already expanded and rewritten). */
void emit_item(struct emitter *em, const struct stream_item *item)
{
    const struct ynode *steps = item->doc ? ynode_doc_root(item->doc) : NULL;

    switch (item->kind) {
    case STREAM_DOC_START:
        emit_doc_start(em);
        break;
    case STREAM_PAIR:
        emit_pair(em, steps);
        break;
    case STREAM_STEPS_START:
        emit_steps_start(em);
        break;
    case STREAM_STEP:
        /* a matrix job's configurations (a parallel step's jobs share little) */
        em->memo_on = em->format == EMIT_YAML && ynode_is_map(steps) && ynode_len(steps) > 2 &&
                      (em->memo || (em->memo = memo_create(MEMO_MAX_TEXT)));
        for (size_t i = 0; i < ynode_len(steps); i++) {
            if (ynode_is_map(steps))
                emit_one(em, ynode_key(steps, i), ynode_value(steps, i));
            else
                emit_one(em, NULL, ynode_item(steps, i));
        }
        if (em->memo_on)
            memo_reset(em->memo);
        em->memo_on = false;
        break;
    case STREAM_STEPS_END:
        emit_steps_end(em);
        break;
    case STREAM_DOC_END:
        emit_doc_end(em);
        break;
    }
}

void emit_text(struct emitter *e, const char *text, size_t n, unsigned docs)
{
    putn(e, text, n);
    e->docs += docs;
}

/* Every rendering has a document, even an empty one. */
void emit_finish(struct emitter *em)
{
    if (emit_docs(em) == 0) {
        emit_doc_start(em);
        emit_doc_end(em);
    }
}
