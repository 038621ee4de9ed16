/* JSON in and out: toJSON's text (JSON.stringify with two-space indentation), the
 * compact form a residual expression embeds, fromJSON's reader, and YAML values.
 *
 * The reader is fanout's own, not libfyaml's JSON mode: JSON.parse accepts duplicate
 * keys (the last value wins) and lone surrogate escapes, which libfyaml 0.7.12 refuses,
 * and libfyaml accepts a second document after the first ("[1]\n[2]"), which JSON.parse
 * refuses. JSON's grammar is small; this one follows ECMA-404 exactly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_internal.h"
#include "fanout/ynode.h"
#include "fanout/yscalar.h"

/* ---- writing ---- */

void expr_buf_json_string(struct strbuf *b, const char *s, size_t len, bool no_quote)
{
    static const char hex[] = "0123456789abcdef";
    size_t run = 0;

    strbuf_putc(b, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        char u[7];

        switch (c) {
        case '"':
            esc = "\\\"";
            break;
        case '\\':
            esc = "\\\\";
            break;
        case '\b':
            esc = "\\b";
            break;
        case '\f':
            esc = "\\f";
            break;
        case '\n':
            esc = "\\n";
            break;
        case '\r':
            esc = "\\r";
            break;
        case '\t':
            esc = "\\t";
            break;
        default:
            if (c < 0x20 || (c == '\'' && no_quote)) {
                memcpy(u, "\\u00", 4);
                u[4] = hex[c >> 4];
                u[5] = hex[c & 15];
                u[6] = '\0';
                esc = u;
            }
        }
        if (esc) {
            strbuf_put(b, s + run, i - run);
            strbuf_puts(b, esc);
            run = i + 1;
        }
    }
    strbuf_put(b, s + run, len - run);
    strbuf_putc(b, '"');
}

static void indent(struct strbuf *b, int depth)
{
    strbuf_putc(b, '\n');
    for (int i = 0; i < depth; i++)
        strbuf_put(b, "  ", 2);
}

static int write_json(struct strbuf *b, const struct expr_value *v, bool pretty, int depth)
{
    char num[EXPR_NUMBUF];
    size_t n = expr_len(v);

    switch (v->kind) {
    case EXPR_NULL:
        strbuf_puts(b, "null");
        return 0;
    case EXPR_BOOL:
        strbuf_puts(b, v->u.b ? "true" : "false");
        return 0;
    case EXPR_NUMBER:
        if (pretty && !isfinite(v->u.d)) {
            strbuf_puts(b, "null");
            return 0;
        }
        if (isnan(v->u.d))
            return -1; /* JSON has no NaN: fromJSON could not give it back */
        if (isinf(v->u.d)) {
            /* A number too large for a double: JSON.parse and the runner's fromJSON
             * (Newtonsoft on .NET 8, where an overflowing parse is ±Infinity) read it
             * back as ±Infinity. */
            strbuf_puts(b, v->u.d > 0 ? "1e400" : "-1e400");
            return 0;
        }
        strbuf_put(b, num, expr_js_number(v->u.d, num));
        return 0;
    case EXPR_STRING:
        expr_buf_json_string(b, v->u.str.s, v->u.str.len, !pretty);
        return 0;
    default:
        break;
    }
    strbuf_putc(b, v->kind == EXPR_ARRAY ? '[' : '{');
    for (size_t i = 0; i < n; i++) {
        if (i)
            strbuf_putc(b, ',');
        if (pretty)
            indent(b, depth + 1);
        if (v->kind == EXPR_OBJECT) {
            expr_buf_json_string(b, v->u.obj.pairs[i].key, v->u.obj.pairs[i].len, !pretty);
            strbuf_put(b, ": ", pretty ? 2 : 1);
        }
        if (write_json(b, v->kind == EXPR_ARRAY ? v->u.arr.items[i] : v->u.obj.pairs[i].v,
                       pretty, depth + 1) != 0)
            return -1;
    }
    if (pretty && n)
        indent(b, depth);
    strbuf_putc(b, v->kind == EXPR_ARRAY ? ']' : '}');
    return 0;
}

int expr_buf_json(struct strbuf *b, const struct expr_value *v, bool pretty)
{
    return write_json(b, v, pretty, 0);
}

char *expr_to_json(const struct expr_value *v)
{
    struct strbuf b = {0}; /* output, not an evaluation: unbounded */
    struct expr_value none = {.kind = EXPR_NULL};

    expr_buf_json(&b, v ? v : &none, true);
    return strbuf_take(&b, NULL);
}

/* ---- reading ---- */

struct reader {
    const char *s;
    size_t len, i;
    char *error; /* malloc'd message, or NULL */
    bool oom;
};

static struct expr_value *fail(struct reader *r, const char *what)
{
    char msg[160];

    if (!r->error && !r->oom) {
        snprintf(msg, sizeof(msg), "%s at position %zu", what, r->i);
        r->error = strdup(msg);
        r->oom = !r->error;
    }
    return NULL;
}

static struct expr_value *oom(struct reader *r)
{
    r->oom = true;
    return NULL;
}

static void skip_space(struct reader *r)
{
    while (r->i < r->len && (r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\n' ||
                             r->s[r->i] == '\r'))
        r->i++;
}

static int hex4(const char *s, uint32_t *out)
{
    uint32_t v = 0;

    for (int k = 0; k < 4; k++) {
        char c = s[k];

        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
            v |= (uint32_t)((c | 0x20) - 'a' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static void put_utf8(struct strbuf *b, uint32_t cp)
{
    char u[4];
    size_t n;

    if (cp < 0x80) {
        u[0] = (char)cp, n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    } else {
        u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        u[2] = (char)(0x80 | (cp >> 6 & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    }
    strbuf_put(b, u, n);
}

/* A string after its opening quote, decoded into *out. A lone surrogate escape, which
 * JSON.parse keeps but UTF-8 cannot hold, becomes U+FFFD. */
static int read_string(struct reader *r, struct strbuf *out)
{
    size_t run = r->i;

    for (;;) {
        unsigned char c;

        if (r->i >= r->len) {
            fail(r, "Unterminated string");
            return -1;
        }
        c = (unsigned char)r->s[r->i];
        if (c == '"')
            break;
        if (c < 0x20) {
            fail(r, "Bad control character in string");
            return -1;
        }
        if (c != '\\') {
            r->i++;
            continue;
        }
        strbuf_put(out, r->s + run, r->i - run);
        if (++r->i >= r->len) {
            fail(r, "Unterminated string");
            return -1;
        }
        c = (unsigned char)r->s[r->i++];
        switch (c) {
        case '"':
        case '\\':
        case '/':
            strbuf_putc(out, (char)c);
            break;
        case 'b':
            strbuf_putc(out, '\b');
            break;
        case 'f':
            strbuf_putc(out, '\f');
            break;
        case 'n':
            strbuf_putc(out, '\n');
            break;
        case 'r':
            strbuf_putc(out, '\r');
            break;
        case 't':
            strbuf_putc(out, '\t');
            break;
        case 'u': {
            uint32_t cp, lo;

            if (r->len - r->i < 4 || hex4(r->s + r->i, &cp) != 0) {
                fail(r, "Bad Unicode escape");
                return -1;
            }
            r->i += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && r->len - r->i >= 6 && r->s[r->i] == '\\' &&
                r->s[r->i + 1] == 'u' && hex4(r->s + r->i + 2, &lo) == 0 && lo >= 0xDC00 &&
                lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                r->i += 6;
            } else if (cp >= 0xD800 && cp <= 0xDFFF) {
                cp = 0xFFFD;
            }
            put_utf8(out, cp);
            break;
        }
        default:
            r->i--;
            fail(r, "Bad escaped character");
            return -1;
        }
        run = r->i;
    }
    strbuf_put(out, r->s + run, r->i - run);
    r->i++;
    if (out->oom) {
        r->oom = true;
        return -1;
    }
    return 0;
}

static size_t digits(struct reader *r)
{
    size_t start = r->i;

    while (r->i < r->len && r->s[r->i] >= '0' && r->s[r->i] <= '9')
        r->i++;
    return r->i - start;
}

static struct expr_value *read_number(struct reader *r)
{
    size_t start = r->i;
    struct expr_value *v;

    if (r->s[r->i] == '-')
        r->i++;
    if (r->i < r->len && r->s[r->i] == '0')
        r->i++;
    else if (!digits(r))
        return fail(r, "No number after minus sign");
    if (r->i < r->len && r->s[r->i] == '.') {
        r->i++;
        if (!digits(r))
            return fail(r, "Unterminated fractional number");
    }
    if (r->i < r->len && (r->s[r->i] == 'e' || r->s[r->i] == 'E')) {
        r->i++;
        if (r->i < r->len && (r->s[r->i] == '+' || r->s[r->i] == '-'))
            r->i++;
        if (!digits(r))
            return fail(r, "Exponent part is missing a number");
    }
    v = expr_number(expr_json_number(r->s + start, r->i - start));
    return v ? v : oom(r);
}

static struct expr_value *read_value(struct reader *r, int depth);

/* JSON.parse keeps one value per exact key (the last), and GitHub's dictionary then
 * keeps the first spelling of a key that differs only in case. */
static int object_put(struct expr_value *o, const char *key, size_t len, struct expr_value *v)
{
    long at = expr_object_find(o, key, len);

    if (at < 0)
        return expr_object_set(o, key, len, v);
    if (o->u.obj.pairs[at].len == len && memcmp(o->u.obj.pairs[at].key, key, len) == 0) {
        /* replaced in place: JSON makes no unknown value, so o->u.obj.unknown stays 0 */
        expr_unref(o->u.obj.pairs[at].v);
        o->u.obj.pairs[at].v = v;
    } else {
        expr_unref(v);
    }
    return 0;
}

static struct expr_value *read_container(struct reader *r, int depth)
{
    bool object = r->s[r->i++] == '{';
    char close = object ? '}' : ']';
    struct expr_value *c = object ? expr_object() : expr_array();
    struct strbuf key = {.max = EXPR_MAX_STRING};

    if (!c)
        return oom(r);
    if (depth >= EXPR_MAX_VALUE_DEPTH) {
        fail(r, "Nested too deeply");
        goto fail;
    }
    skip_space(r);
    if (r->i < r->len && r->s[r->i] == close) {
        r->i++;
        return c;
    }
    for (;;) {
        struct expr_value *item;

        if (object) {
            skip_space(r);
            if (r->i >= r->len || r->s[r->i] != '"') {
                fail(r, "Expected property name");
                goto fail;
            }
            r->i++;
            key.len = 0;
            if (read_string(r, &key) != 0)
                goto fail;
            skip_space(r);
            if (r->i >= r->len || r->s[r->i] != ':') {
                fail(r, "Expected ':' after property name");
                goto fail;
            }
            r->i++;
        }
        item = read_value(r, depth + 1);
        if (!item)
            goto fail;
        if ((object ? object_put(c, key.s ? key.s : "", key.len, item)
                    : expr_array_append(c, item)) != 0) {
            oom(r);
            goto fail;
        }
        skip_space(r);
        if (r->i < r->len && r->s[r->i] == ',') {
            r->i++;
            continue;
        }
        if (r->i < r->len && r->s[r->i] == close) {
            r->i++;
            break;
        }
        fail(r, object ? "Expected ',' or '}'" : "Expected ',' or ']'");
        goto fail;
    }
    strbuf_free(&key);
    return c;
fail:
    strbuf_free(&key);
    expr_unref(c);
    return NULL;
}

static bool take_word(struct reader *r, const char *w)
{
    size_t n = strlen(w);

    if (r->len - r->i >= n && memcmp(r->s + r->i, w, n) == 0) {
        r->i += n;
        return true;
    }
    return false;
}

static struct expr_value *read_value(struct reader *r, int depth)
{
    struct expr_value *v;
    struct strbuf b = {.max = EXPR_MAX_STRING};
    char *s;
    size_t len;

    skip_space(r);
    if (r->i >= r->len)
        return fail(r, "Unexpected end of JSON input");
    switch (r->s[r->i]) {
    case '{':
    case '[':
        return read_container(r, depth);
    case '"':
        r->i++;
        if (read_string(r, &b) != 0) {
            strbuf_free(&b);
            return NULL;
        }
        s = strbuf_take(&b, &len);
        if (!s)
            return oom(r);
        v = expr_string(s, len);
        free(s);
        return v ? v : oom(r);
    case 't':
    case 'f':
    case 'n':
        if (take_word(r, "true"))
            v = expr_bool(true);
        else if (take_word(r, "false"))
            v = expr_bool(false);
        else if (take_word(r, "null"))
            v = expr_null();
        else
            return fail(r, "Unexpected token");
        return v ? v : oom(r);
    default:
        if (r->s[r->i] == '-' || (r->s[r->i] >= '0' && r->s[r->i] <= '9'))
            return read_number(r);
        return fail(r, "Unexpected token");
    }
}

struct expr_value *expr_from_json(const char *text, size_t len, char **error)
{
    struct reader r = {text, len, 0, NULL, false};
    struct expr_value *v = read_value(&r, 0);

    if (v) {
        skip_space(&r);
        if (r.i < r.len) {
            fail(&r, "Unexpected non-whitespace character after JSON");
            expr_unref(v);
            v = NULL;
        }
    }
    if (!v) {
        if (r.oom) {
            free(r.error);
            r.error = strdup("out of memory");
        }
        *error = r.error;
    }
    return v;
}

/* ---- YAML ---- */

static struct expr_value *from_ynode(const struct ynode *n, int depth)
{
    struct expr_value *v;
    const char *text;
    size_t len;

    if (!n)
        return expr_null();
    if (depth >= EXPR_MAX_VALUE_DEPTH)
        return NULL;
    if (ynode_is_scalar(n)) {
        text = ynode_scalar(n, &len);
        if (ynode_is_string(n))
            return expr_string(text, len);
        switch (yscalar_type(text, len)) {
        case YS_NULL:
            return expr_null();
        case YS_BOOL:
            return expr_bool(text[0] == 't' || text[0] == 'T');
        case YS_INT:
        case YS_FLOAT:
            return expr_number(expr_yaml_number(text, len));
        default:
            return expr_string(text, len);
        }
    }
    v = ynode_is_seq(n) ? expr_array() : expr_object();
    for (size_t i = 0; v && i < ynode_len(n); i++) {
        if (ynode_is_seq(n)) {
            if (expr_array_append(v, from_ynode(ynode_item(n, i), depth + 1)) != 0)
                goto fail;
        } else {
            text = ynode_scalar(ynode_key(n, i), &len);
            if (!text || expr_object_set(v, text, len, from_ynode(ynode_value(n, i), depth + 1)) != 0)
                goto fail;
        }
    }
    return v;
fail:
    expr_unref(v);
    return NULL;
}

struct expr_value *expr_from_ynode(const struct ynode *n)
{
    return from_ynode(n, 0);
}
