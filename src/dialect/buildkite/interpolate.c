/* The agent's buildkite/interpolate (v0.1.5, parser.go and interpolate.go) as one pass: a
 * recursive descent over the same grammar that evaluates as it parses. The agent parses the
 * whole text before it expands anything, so a bad token in a default that is not used is
 * still an error, and a parse error wins over an expansion's error: both are kept here
 * until the text is read. Unlike the agent, `$$` and `\$` are not looked past (its
 * look-ahead only feeds its Identifiers(), and costs exponential time on `$${A:-$${A:-...`). */
#include "interpolate.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/strbuf.h"
#include "fanout/text.h"

struct uni_range {
    uint32_t lo, hi;
};

#include "interpolate_unicode.h"

#define NO_RUNE (-1L) /* end of text */
#define BAD_RUNE 0xFFFDL /* what Go decodes a byte that is not UTF-8 to */

/* ---- Go's view of the text ---- */

/* The rune at s[0..n) and its size, as Go's utf8.DecodeRuneInString: a byte that does not
 * start a valid sequence (overlong, surrogate, past U+10FFFF, cut off) is U+FFFD of size 1. */
static long decode_rune(const char *s, size_t n, size_t *size)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t need;
    long r;

    *size = 1;
    if (n == 0)
        return NO_RUNE;
    if (u[0] < 0x80)
        return u[0];
    if (u[0] >= 0xC2 && u[0] <= 0xDF)
        need = 1, r = u[0] & 0x1F;
    else if (u[0] >= 0xE0 && u[0] <= 0xEF)
        need = 2, r = u[0] & 0x0F;
    else if (u[0] >= 0xF0 && u[0] <= 0xF4)
        need = 3, r = u[0] & 0x07;
    else
        return BAD_RUNE;
    if (n <= need)
        return BAD_RUNE;
    for (size_t i = 1; i <= need; i++) {
        /* the second byte's range rules out overlongs, surrogates and past U+10FFFF */
        unsigned char lo = i == 1 && u[0] == 0xE0 ? 0xA0 : i == 1 && u[0] == 0xF0 ? 0x90 : 0x80;
        unsigned char hi = i == 1 && u[0] == 0xED ? 0x9F : i == 1 && u[0] == 0xF4 ? 0x8F : 0xBF;

        if (u[i] < lo || u[i] > hi)
            return BAD_RUNE;
        r = (r << 6) | (u[i] & 0x3F);
    }
    *size = need + 1;
    return r;
}

static bool in_ranges(long r, const struct uni_range *t, size_t n)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;

        if ((uint32_t)r > t[mid].hi)
            lo = mid + 1;
        else if ((uint32_t)r < t[mid].lo)
            hi = mid;
        else
            return true;
    }
    return false;
}

/* unicode.IsLetter, unicode.IsNumber (the text's U+FFFD is neither) */
static bool is_letter(long r)
{
    return r >= 0 && in_ranges(r, uni_letters, sizeof(uni_letters) / sizeof(uni_letters[0]));
}

static bool is_identifier(long r)
{
    return r == '_' || is_letter(r) ||
           (r >= 0 && in_ranges(r, uni_numbers, sizeof(uni_numbers) / sizeof(uni_numbers[0])));
}

/* unicode.IsSpace, for strings.TrimSpace */
static bool is_space(long r)
{
    return (r >= '\t' && r <= '\r') || r == ' ' || r == 0x85 || r == 0xA0 || r == 0x1680 ||
           (r >= 0x2000 && r <= 0x200A) || r == 0x2028 || r == 0x2029 || r == 0x202F ||
           r == 0x205F || r == 0x3000;
}

/* strconv.Atoi(strings.TrimSpace(s)): an optional sign, decimal digits, within int64. */
static bool go_atoi(const char *s, size_t n, long long *out)
{
    size_t size, i, end = 0, start = n;
    bool neg = false;
    unsigned long long v = 0, limit;

    for (i = 0; i < n; i += size) {
        if (!is_space(decode_rune(s + i, n - i, &size))) {
            start = start < i ? start : i;
            end = i + size;
        }
    }
    if (start >= end)
        return false;
    s += start;
    n = end - start;
    i = 0;
    if (s[0] == '+' || s[0] == '-')
        neg = s[0] == '-', i = 1;
    if (i == n)
        return false;
    limit = neg ? (unsigned long long)INT64_MAX + 1 : (unsigned long long)INT64_MAX;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (limit - (unsigned long long)(s[i] - '0')) / 10)
            return false;
        v = v * 10 + (unsigned long long)(s[i] - '0');
    }
    *out = !neg ? (long long)v : v > (unsigned long long)INT64_MAX ? INT64_MIN : -(long long)v;
    return true;
}

/* ---- output ---- */

/* Text as the agent writes it back: a byte that is not UTF-8 becomes U+FFFD (Go's
 * string(rune) of what it decoded). */
static void put_agent_text(struct strbuf *b, const char *s, size_t n)
{
    size_t size, start = 0;

    for (size_t i = 0; i < n; i += size) {
        if ((unsigned char)s[i] >= 0x80 && decode_rune(s + i, n - i, &size) == BAD_RUNE && size == 1) {
            strbuf_put(b, s + start, i - start);
            strbuf_put(b, "\xEF\xBF\xBD", 3);
            start = i + 1;
        }
        else if ((unsigned char)s[i] < 0x80)
            size = 1;
    }
    strbuf_put(b, s + start, n - start);
}

/* ---- the parser ---- */

/* A top-level item of the text (interp_partial, interp_glob). */
enum item_kind { ITEM_TEXT, ITEM_ESCAPE, ITEM_EXPANSION };

struct item {
    enum item_kind kind;
    size_t at, end;          /* in the text */
    size_t value, value_len; /* an expansion's value, in the values buffer */
    bool unknown;            /* an expansion that needs a variable not known */
    size_t name_at, name_len; /* that variable */
};

struct items {
    struct item *v;
    size_t n, cap;
};

struct parser {
    const char *s;
    size_t len, pos;
    interp_lookup_fn lookup;
    void *user;
    bool unknown_is_unset; /* interp_expand */
    unsigned depth;
    struct items *items;   /* the top-level items, when wanted */
    size_t next_dollar, next_backslash, next_brace; /* next_of's */
    bool unknown;          /* the current top-level item needs an unknown variable */
    size_t unknown_at, unknown_len;
    /* the first parse error, and the first expansion error (a parse error wins) */
    bool parse_failed, eval_failed, nomem, limit;
    struct interp_error *err, eval_err;
};

#define NO_NEXT .next_dollar = SIZE_MAX, .next_backslash = SIZE_MAX, .next_brace = SIZE_MAX

static long peek(const struct parser *p, size_t *size)
{
    return decode_rune(p->s + p->pos, p->len - p->pos, size);
}

static bool starts(const struct parser *p, const char *two)
{
    return p->len - p->pos >= 2 && p->s[p->pos] == two[0] && p->s[p->pos + 1] == two[1];
}

/* A rune as a message shows it: the end of the text, a printable ASCII, else U+XXXX. */
static const char *rune_text(long r, char buf[16])
{
    if (r == NO_RUNE)
        return "the end of the text";
    if (r > ' ' && r < 0x7F)
        snprintf(buf, 16, "'%c'", (int)r);
    else
        snprintf(buf, 16, "U+%04X", (unsigned)r & 0x1FFFFFu);
    return buf;
}

__attribute__((format(printf, 3, 4)))
static void parse_error(struct parser *p, size_t at, const char *fmt, ...)
{
    va_list ap;

    if (p->parse_failed)
        return;
    p->parse_failed = true;
    p->err->offset = at;
    va_start(ap, fmt);
    vsnprintf(p->err->message, sizeof(p->err->message), fmt, ap);
    va_end(ap);
}

/* Advances past the runes for which `stop` is false (Go's scanUntil: a rune that is not
 * UTF-8 stops it too); returns where it started. */
static size_t scan_until(struct parser *p, bool (*stop)(long r))
{
    size_t start = p->pos, size;
    long r;

    while ((r = peek(p, &size)) != NO_RUNE && r != BAD_RUNE && !stop(r))
        p->pos += size;
    return start;
}

/* Where the next `c` is at or after the position (the end when none): found with memchr
 * and kept until the position passes it, so that a text of megabytes is read once. */
static size_t next_of(struct parser *p, char c, size_t *at)
{
    if (*at == SIZE_MAX || *at < p->pos) {
        const char *f = memchr(p->s + p->pos, c, p->len - p->pos);

        *at = f ? (size_t)(f - p->s) : p->len;
    }
    return *at;
}

static bool not_identifier(long r)
{
    return !is_identifier(r);
}

static bool ends_offset(long r)
{
    return r == ':' || r == '}';
}

static bool ends_length(long r)
{
    return r == '}';
}

/* The state and value of name[0..n), looked up only when the value is wanted (`out`); an
 * unknown one makes the top-level item unknown. */
static enum interp_var use_variable(struct parser *p, size_t name, size_t n, struct strbuf *out,
                                    const char **value, size_t *value_len)
{
    enum interp_var state;

    *value = "";
    *value_len = 0;
    if (!out)
        return INTERP_UNKNOWN;
    state = p->lookup(p->user, p->s + name, n, value, value_len);
    if (state == INTERP_UNKNOWN && p->unknown_is_unset)
        state = INTERP_UNSET;
    if (state != INTERP_SET)
        *value = "", *value_len = 0;
    if (state == INTERP_UNKNOWN && !p->unknown) {
        p->unknown = true;
        p->unknown_at = name;
        p->unknown_len = n;
    }
    return state;
}

static void parse_expression(struct parser *p, bool in_brace, struct strbuf *out);

/* After `${NAME:` (the brace at `at`): SubstringExpansion, its value to `out`. */
static void parse_substring(struct parser *p, size_t at, size_t name, size_t n, struct strbuf *out)
{
    size_t start = scan_until(p, ends_offset), size, value_len;
    long long offset = 0, length = 0, from, to, vlen;
    bool has_length = false;
    const char *value;

    if (!go_atoi(p->s + start, p->pos - start, &offset)) {
        parse_error(p, at, "'%.*s' is not a substring offset (a whole number; the agent has no "
                    "'${VAR:?message}': '${VAR?message}' fails when VAR is unset)",
                    (int)text_utf8_cut(p->s + start, p->pos - start, 40), p->s + start);
        return;
    }
    if (peek(p, &size) != '}') {
        /* Go takes the next rune, whatever it is, for the ':' */
        if (p->pos < p->len)
            p->pos += size;
        start = scan_until(p, ends_length);
        if (!go_atoi(p->s + start, p->pos - start, &length)) {
            parse_error(p, at, "'%.*s' is not a substring length (a whole number)",
                        (int)text_utf8_cut(p->s + start, p->pos - start, 40), p->s + start);
            return;
        }
        has_length = true;
    }
    if (use_variable(p, name, n, out, &value, &value_len) == INTERP_UNKNOWN)
        return;
    vlen = (long long)value_len;
    from = offset < 0 ? offset + vlen : offset;
    from = from < 0 ? 0 : from > vlen ? vlen : from;
    to = vlen;
    if (has_length && length >= 0) {
        /* Go's int wraps around here and the agent panics: the upload fails */
        if (length > INT64_MAX - from) {
            parse_error(p, at, "substring length %lld overflows (the agent's int wraps around and "
                        "it panics)", length);
            return;
        }
        to = from + length;
    }
    else if (has_length) {
        to = length + vlen < from ? from : length + vlen;
    }
    to = to > vlen ? vlen : to;
    strbuf_put(out, value + from, (size_t)(to - from));
}

/* After `${NAME` and its operator (the brace at `at`): `:-`, `-` or `?` and their word. */
static void parse_word(struct parser *p, size_t at, size_t name, size_t n, char op, struct strbuf *out)
{
    const char *value;
    size_t value_len;
    enum interp_var state = use_variable(p, name, n, out, &value, &value_len);
    bool want_word = false;
    struct strbuf message = {.max = INTERP_MAX_OUTPUT};

    if (state != INTERP_UNKNOWN) {
        /* EmptyValueExpansion: the word when unset or empty; UnsetValueExpansion and
         * RequiredExpansion: when unset */
        want_word = op == ':' ? value_len == 0 : state == INTERP_UNSET;
        if (!want_word)
            strbuf_put(out, value, value_len);
    }
    parse_expression(p, true, !want_word ? NULL : op == '?' ? &message : out);
    p->nomem |= message.oom && !message.too_long;
    if (op == '?' && want_word && !p->eval_failed) {
        p->eval_failed = true;
        p->eval_err.offset = at;
        snprintf(p->eval_err.message, sizeof(p->eval_err.message), "$%.*s: %.*s", (int)n, p->s + name,
                 message.len ? (int)text_utf8_cut(message.s, message.len, 200) : 7,
                 message.len ? message.s : "not set");
    }
    free(message.s);
}

/* At `${` (`at`): one brace expansion, its value to `out`. */
static void parse_brace(struct parser *p, size_t at, struct strbuf *out)
{
    size_t size, name, n, value_len;
    const char *value;
    char rb[16];
    long r;

    p->pos++; /* '{' */
    if (!is_letter(r = peek(p, &size))) {
        if (r == NO_RUNE)
            parse_error(p, at, "unterminated '${'");
        else
            parse_error(p, at, "'${' is followed by %s, not a variable name (a letter first); "
                        "write '$${' for a literal '${'", rune_text(r, rb));
        return;
    }
    name = scan_until(p, not_identifier);
    n = p->pos - name;
    r = peek(p, &size);
    if (r == '}') {
        p->pos++;
        if (use_variable(p, name, n, out, &value, &value_len) != INTERP_UNKNOWN)
            strbuf_put(out, value, value_len);
        return;
    }
    if (r != ':' && r != '-' && r != '?') {
        if (r == NO_RUNE)
            parse_error(p, at, "unterminated '${%.*s'", (int)n, p->s + name);
        else
            parse_error(p, at, "'${%.*s' is followed by %s: the agent knows only '}', ':-', '-', "
                        "'?' and ':offset:length' there", (int)n, p->s + name, rune_text(r, rb));
        return;
    }
    p->pos += size;
    if (++p->depth > INTERP_MAX_DEPTH) {
        parse_error(p, at, "expansions nested more than %d deep", INTERP_MAX_DEPTH);
        p->limit = true;
        return;
    }
    if (r == ':' && (p->pos == p->len || p->s[p->pos] != '-'))
        parse_substring(p, at, name, n, out);
    else {
        p->pos += r == ':'; /* the '-' of ':-' */
        parse_word(p, at, name, n, (char)r, out);
    }
    p->depth--;
    if (!p->parse_failed && (p->pos == p->len || p->s[p->pos] != '}'))
        parse_error(p, at, "unterminated '${%.*s...': no closing '}'", (int)n, p->s + name);
    p->pos += !p->parse_failed;
}

/* At a `$` with a rune after it: an expansion (ITEM_EXPANSION), or a literal `$`. */
static enum item_kind parse_dollar(struct parser *p, struct strbuf *out)
{
    size_t at = p->pos, size, name, value_len;
    const char *value;
    long r;

    p->pos++;
    r = peek(p, &size);
    if (r == '{') {
        parse_brace(p, at, out);
        return ITEM_EXPANSION;
    }
    if (!is_letter(r)) {
        if (out)
            strbuf_put(out, "$", 1);
        return ITEM_TEXT;
    }
    name = scan_until(p, not_identifier);
    if (use_variable(p, name, p->pos - name, out, &value, &value_len) != INTERP_UNKNOWN)
        strbuf_put(out, value, value_len);
    return ITEM_EXPANSION;
}

static void record(struct parser *p, enum item_kind kind, size_t at, size_t value, size_t value_end)
{
    struct items *it = p->items;

    if (it->n == it->cap) {
        struct item *v = array_grow(it->v, &it->cap, it->n + 1, 16, sizeof(*v));

        if (!v) {
            p->nomem = true;
            return;
        }
        it->v = v;
    }
    it->v[it->n++] = (struct item){kind, at, p->pos, value, value_end - value,
                                   kind == ITEM_EXPANSION && p->unknown, p->unknown_at, p->unknown_len};
}

/* Items up to the end of the text, or of a brace's word at its `}`; their value to `out`
 * when wanted. */
static void parse_expression(struct parser *p, bool in_brace, struct strbuf *out)
{
    bool top = !in_brace && p->items;

    while (p->pos < p->len && !p->parse_failed && !p->nomem && !(out && out->oom)) {
        size_t at = p->pos, value = out ? out->len : 0, size;
        enum item_kind kind = ITEM_TEXT;
        char c = p->s[p->pos];

        if (in_brace && c == '}')
            break;
        if (top)
            p->unknown = false;
        if (starts(p, "\\\\") || starts(p, "$(")) { /* text; `$(` is the shell's */
            p->pos += 2;
            if (out)
                strbuf_put(out, p->s + at, 2);
        }
        else if (starts(p, "\\$") || starts(p, "$$")) {
            p->pos += 2;
            kind = ITEM_ESCAPE;
            if (out)
                strbuf_put(out, "$", 1);
        }
        else if (c == '$' && p->pos + 1 < p->len) {
            kind = parse_dollar(p, out);
        }
        else {
            /* a rune, then the text up to a '$', a '\', or the brace's '}' */
            size_t end;

            peek(p, &size);
            p->pos += size;
            end = next_of(p, '$', &p->next_dollar);
            end = next_of(p, '\\', &p->next_backslash) < end ? p->next_backslash : end;
            if (in_brace && next_of(p, '}', &p->next_brace) < end)
                end = p->next_brace;
            p->pos = end < p->pos ? p->pos : end;
            if (out)
                put_agent_text(out, p->s + at, p->pos - at);
        }
        if (top)
            record(p, kind, at, value, out ? out->len : 0);
    }
}

/* Parses the whole text, its value to `out` and its top-level items to `items` when
 * wanted. */
static int run(struct parser *p, struct strbuf *out, struct interp_error *err)
{
    p->err = err;
    memset(err, 0, sizeof(*err));
    parse_expression(p, false, out);
    if (p->nomem || (out && out->oom && !out->too_long))
        return INTERP_NOMEM;
    if (p->parse_failed)
        return p->limit ? INTERP_LIMIT : INTERP_FAILED;
    if (out && out->too_long) {
        err->offset = 0;
        snprintf(err->message, sizeof(err->message), "interpolates to more than %u bytes",
                 INTERP_MAX_OUTPUT);
        return INTERP_LIMIT;
    }
    if (p->eval_failed) {
        *err = p->eval_err;
        return INTERP_FAILED;
    }
    return INTERP_OK;
}

int interp_expand(const char *s, size_t len, interp_lookup_fn lookup, void *user, char **out,
                  size_t *out_len, struct interp_error *err)
{
    struct parser p = {.s = s, .len = len, .lookup = lookup, .user = user, .unknown_is_unset = true,
                       NO_NEXT};
    struct strbuf b = {.max = INTERP_MAX_OUTPUT};
    int rc = run(&p, &b, err);

    strbuf_put(&b, "", 0);
    if (rc == INTERP_OK && b.oom && !b.too_long)
        rc = INTERP_NOMEM;
    if (rc != INTERP_OK) {
        free(b.s);
        return rc;
    }
    *out = b.s;
    *out_len = b.len;
    return INTERP_OK;
}

static bool same_specials(const struct items *got, const struct items *want)
{
    size_t j = 0;

    for (size_t i = 0; i < got->n; i++) {
        const struct item *g = &got->v[i];

        if (g->kind == ITEM_TEXT)
            continue;
        if (j == want->n || want->v[j].kind != g->kind || want->v[j].at != g->at ||
            want->v[j].end != g->end)
            return false;
        j++;
    }
    return j == want->n;
}

static bool want_item(struct items *w, enum item_kind kind, size_t at, size_t end)
{
    if (w->n == w->cap) {
        struct item *v = array_grow(w->v, &w->cap, w->n + 1, 16, sizeof(*v));

        if (!v)
            return false;
        w->v = v;
    }
    w->v[w->n++] = (struct item){.kind = kind, .at = at, .end = end};
    return true;
}

/* No other lookup is made while the result is checked. */
static enum interp_var all_unknown(void *user, const char *name, size_t len, const char **value,
                                   size_t *value_len)
{
    (void)user, (void)name, (void)len, (void)value, (void)value_len;
    return INTERP_UNKNOWN;
}

int interp_partial(const char *s, size_t len, interp_lookup_fn lookup, interp_unknown_fn unknown,
                   void *user, char **out, size_t *out_len, struct interp_error *err)
{
    struct items items = {0}, want = {0}, got = {0};
    struct parser p = {.s = s, .len = len, .lookup = lookup, .user = user, .items = &items, NO_NEXT};
    struct strbuf values = {.max = INTERP_MAX_OUTPUT}, b = {.max = INTERP_MAX_OUTPUT};
    bool changed = false, ok = true;
    int rc;

    *out = NULL;
    *out_len = 0;
    /* room up front: megabyte texts grow the buffers once, not a dozen times */
    if (len < INTERP_MAX_OUTPUT)
        strbuf_reserve(&values, len);
    rc = run(&p, &values, err);
    if (rc == INTERP_OK && values.len + len < INTERP_MAX_OUTPUT)
        strbuf_reserve(&b, values.len + len);
    for (size_t i = 0; rc == INTERP_OK && ok && i < items.n; i++) {
        const struct item *it = &items.v[i];
        const char *v = values.s + it->value;

        if (it->kind == ITEM_EXPANSION && it->unknown && unknown)
            unknown(user, s + it->name_at, it->name_len, it->at, it->end - it->at);
        if (it->kind != ITEM_EXPANSION || it->unknown) {
            ok = it->kind == ITEM_TEXT || want_item(&want, it->kind, b.len, b.len + it->end - it->at);
            strbuf_put(&b, s + it->at, it->end - it->at);
            continue;
        }
        changed = true;
        for (const char *v_end = v + it->value_len, *d; ok && v <= v_end; v = d + 1) {
            d = memchr(v, '$', (size_t)(v_end - v));
            strbuf_put(&b, v, (size_t)((d ? d : v_end) - v));
            if (!d)
                break;
            ok = want_item(&want, ITEM_ESCAPE, b.len, b.len + 2);
            strbuf_put(&b, "$$", 2);
        }
    }
    if (rc == INTERP_OK && (!ok || (b.oom && !b.too_long)))
        rc = INTERP_NOMEM;
    if (rc == INTERP_OK && b.too_long) {
        err->offset = 0;
        snprintf(err->message, sizeof(err->message), "interpolates to more than %u bytes",
                 INTERP_MAX_OUTPUT);
        rc = INTERP_LIMIT;
    }
    /* The agent must read the result as meant: the same escapes and expansions where they
     * were put, and only those; then it reads the text between them as it is. It does not
     * when a value's letters follow a kept `$NAME` (a longer name), or a `\` in a value
     * meets a `$` (the escape `\$`). Then the text stays as written, which the agent
     * reads as the text. */
    if (rc == INTERP_OK && changed) {
        struct parser check = {.s = b.s, .len = b.len, .lookup = all_unknown, .items = &got, NO_NEXT};
        struct interp_error ignored;

        rc = run(&check, NULL, &ignored);
        if (rc == INTERP_FAILED || rc == INTERP_LIMIT || (rc == INTERP_OK && !same_specials(&got, &want)))
            changed = false, rc = INTERP_OK;
    }
    if (rc == INTERP_OK && changed) {
        *out = b.s;
        *out_len = b.len;
        b.s = NULL;
    }
    free(b.s);
    free(values.s);
    free(items.v);
    free(want.v);
    free(got.v);
    return rc;
}

char *interp_glob(const char *s, size_t len)
{
    struct items items = {0};
    struct parser p = {.s = s, .len = len, .lookup = all_unknown, .items = &items, NO_NEXT};
    struct interp_error err;
    struct strbuf b = {.max = INTERP_MAX_OUTPUT};
    bool any = false;

    if (run(&p, NULL, &err) == INTERP_OK) {
        for (size_t i = 0; i < items.n; i++) {
            const struct item *it = &items.v[i];

            if (it->kind == ITEM_EXPANSION) {
                strbuf_put(&b, "*", 1);
                any = true;
                continue;
            }
            for (size_t k = it->at; k < it->end; k++) {
                if (strchr("*?[\\", s[k]))
                    strbuf_put(&b, "\\", 1);
                strbuf_put(&b, s + k, 1);
            }
        }
    }
    free(items.v);
    if (!any || b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}


bool interp_needed(const char *s, size_t len)
{
    const char *end = s + len, *p = s;
    size_t size;

    /* parse_expression's choice at each `$` (found with memchr): `\\` pairs from where
     * a run of them starts, so an odd run before the `$` makes the escape `\$` */
    while ((p = memchr(p, '$', (size_t)(end - p))) != NULL) {
        size_t run = 0;

        while (p - run > s && p[-1 - (long)run] == '\\')
            run++;
        if (run % 2 == 1) {
            p++;
        }
        else if (p + 1 == end) {
            return false;
        }
        else if (p[1] == '$' || p[1] == '(') {
            p += 2;
        }
        else if (p[1] == '{' || is_letter(decode_rune(p + 1, (size_t)(end - p - 1), &size))) {
            return true;
        }
        else {
            p++;
        }
    }
    return false;
}
