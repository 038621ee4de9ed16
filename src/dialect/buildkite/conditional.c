/* conditional: Buildkite's `if:` language, as github.com/buildkite/conditional at af63d27
 * has it: internal/lexer/lexer.go (tokens), internal/parser/parser.go (a Pratt parser:
 * `?:` < `||` < `&&` < comparisons < `!` < calls), typecheck.go and conditional.go's
 * validateEnvCalls (what the server refuses before evaluating), assignments.go (the
 * variables and their types), internal/evaluator/evaluator.go (the values), conditional.go
 * (the final value: a boolean, null is false) and internal/regex/regex.go (the regex
 * features the server refuses). Evaluation is three-valued: a variable not given is
 * unknown, and `&&`/`||`/`!`/`?:` decide what they can without it. */
#define _GNU_SOURCE /* memmem */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "conditional.h"

#include <pcre2.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"

/* ---- tokens (lexer.go) ---- */

enum tok {
    T_EOF, T_ILLEGAL, T_IDENT, T_INT, T_STRING, T_REGEXP, T_SHELL, T_BANG, T_DOT, T_EQ, T_NE, T_RE, T_NRE,
    T_INCLUDES, T_AND, T_OR, T_QUESTION, T_COLON, T_COMMA, T_LPAREN, T_RPAREN, T_LBRACKET, T_RBRACKET,
    T_TRUE, T_FALSE, T_NULL,
};

struct token {
    enum tok t;
    const char *s; /* the text (a string's or regex's inside) */
    size_t n;
    const char *flags; /* a regex's */
    size_t nflags;
    char quote; /* a string's */
};

/* Nodes, and what the parse allocated, freed together. */
enum nkind { N_BOOL, N_NULL, N_INT, N_STRING, N_REGEX, N_SHELL, N_IDENT, N_NOT, N_INFIX, N_TERNARY, N_CALL, N_ARRAY };

struct node {
    enum nkind k;
    enum tok op;
    bool b, shell;     /* shell: a double-quoted string with an expansion (its value is the build's) */
    bool dollar;       /* a double-quoted string with a `$`: the server evaluates it as shell text */
    bool ignore_case;  /* a regex's `i` */
    long long i;
    char *s;           /* a string's value, a regex's source, a name */
    size_t n;
    pcre2_code *re;    /* NULL: a regex fanout does not decide (regex_portable) */
    struct node *l, *r, *c;
    struct node **items;
    size_t n_items;
};

struct parser {
    const char *in;
    size_t len, pos;
    struct token cur, peek;
    char *why;
    size_t why_size;
    bool failed;
    void **owned; /* malloc'd */
    size_t n_owned, cap_owned;
    pcre2_code **codes;
    size_t n_codes;
    bool oom;
};

static void fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct parser *p, const char *fmt, ...)
{
    va_list ap;

    if (p->failed)
        return;
    p->failed = true;
    if (p->why_size) {
        va_start(ap, fmt);
        vsnprintf(p->why, p->why_size, fmt, ap);
        va_end(ap);
    }
}

static void *own(struct parser *p, void *m)
{
    if (m && p->n_owned == p->cap_owned) {
        void **grown = array_grow(p->owned, &p->cap_owned, p->n_owned + 1, 16, sizeof(*grown));

        if (!grown) {
            free(m);
            m = NULL;
        } else {
            p->owned = grown;
        }
    }
    if (!m) {
        p->oom = true;
        fail(p, "out of memory");
        return NULL;
    }
    p->owned[p->n_owned++] = m;
    return m;
}

/* The input ends at its end or at a NUL (lexer.go reads a 0 byte as the end). */
static char at(const struct parser *p, size_t i)
{
    return i < p->len ? p->in[i] : '\0';
}

static bool is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static void skip_space_and_comments(struct parser *p)
{
    for (;;) {
        while (strchr(" \t\n\r", at(p, p->pos)) && at(p, p->pos))
            p->pos++;
        if (at(p, p->pos) != '/' || at(p, p->pos + 1) != '/')
            return;
        while (at(p, p->pos) && at(p, p->pos) != '\n')
            p->pos++;
    }
}

static const struct {
    const char *word;
    enum tok t;
} keywords[] = {{"true", T_TRUE}, {"false", T_FALSE}, {"null", T_NULL}, {"includes", T_INCLUDES}};

/* internal/shell's ReadExpansion: the end of the `$name` or `${...}` at `start` (a
 * name runs on over letters, digits, `_` and `.`; braces nest through `${`, skipping
 * quotes and escapes), or 0 when it is none. Its value is the build's environment,
 * which fanout leaves unknown. */
static size_t expansion_end(const char *s, size_t n, size_t start)
{
    size_t depth = 1;

    if (start + 1 >= n || s[start + 1] == '$')
        return 0;
    if (is_letter(s[start + 1])) {
        size_t i = start + 2;

        while (i < n && (is_letter(s[i]) || is_digit(s[i]) || s[i] == '.'))
            i++;
        return i;
    }
    if (s[start + 1] != '{')
        return 0;
    for (size_t i = start + 2; i < n; i++) {
        if (s[i] == '\\') {
            i++;
        } else if (s[i] == '"' || s[i] == '\'') {
            bool escaped = false;
            size_t k = i + 1;

            while (k < n && !(s[k] == s[i] && !escaped)) {
                escaped = s[k] == '\\' && !escaped;
                k++;
            }
            if (k == n)
                return 0;
            i = k;
        } else if (s[i] == '$' && i + 1 < n && s[i + 1] == '{') {
            depth++;
            i++;
        } else if (s[i] == '}' && --depth == 0) {
            return i + 1;
        }
    }
    return 0;
}

/* ContainsExpansion: a double-quoted string whose value is the environment's (`$$` and
 * escapes are literal). */
static bool has_expansion(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '$' && i + 1 < n && s[i + 1] == '$')
            i++;
        else if (s[i] == '$' && expansion_end(s, n, i))
            return true;
        else if (s[i] == '\\')
            i++;
    }
    return false;
}

static bool read_shell(struct parser *p, struct token *t)
{
    size_t end = expansion_end(p->in, p->len, p->pos);

    if (!end)
        return false;
    t->s = p->in + p->pos;
    t->n = end - p->pos;
    p->pos = end;
    return true;
}

/* A quoted string's text runs to the closing quote, escapes skipped; decoded later. */
static bool read_quoted(struct parser *p, struct token *t, char quote)
{
    size_t i = p->pos + 1;

    for (;; i++) {
        char c = at(p, i);

        if (!c)
            return false;
        if (c == quote)
            break;
        if (c == '\\' && !at(p, ++i))
            return false;
    }
    t->s = p->in + p->pos + 1;
    t->n = i - p->pos - 1;
    t->quote = quote;
    p->pos = i + 1;
    return true;
}

static bool read_regex(struct parser *p, struct token *t)
{
    size_t i = p->pos + 1;
    bool escaped = false;

    for (;; i++) {
        char c = at(p, i);

        if (!c)
            return false;
        if (c == '/' && !escaped)
            break;
        escaped = c == '\\' && !escaped;
    }
    t->s = p->in + p->pos + 1;
    t->n = i - p->pos - 1;
    t->flags = p->in + i + 1;
    for (i++; is_letter(at(p, i)); i++)
        ;
    t->nflags = (size_t)(p->in + i - t->flags);
    p->pos = i;
    return true;
}

static struct token next_token(struct parser *p)
{
    static const char *const pairs = "==\x01=~\x02!=\x03!~\x04&&\x05||\x06";
    static const enum tok pair_tok[] = {T_EOF, T_EQ, T_RE, T_NE, T_NRE, T_AND, T_OR};
    struct token t = {T_ILLEGAL, NULL, 0, NULL, 0, 0};
    char c, d;

    skip_space_and_comments(p);
    c = at(p, p->pos);
    d = at(p, p->pos + 1);
    t.s = p->in + p->pos;
    t.n = 1;
    for (const char *q = pairs; *q; q += 3) {
        if (c == q[0] && d == q[1]) {
            t.t = pair_tok[(unsigned char)q[2]];
            t.n = 2;
            p->pos += 2;
            return t;
        }
    }
    if (!c) {
        t.t = T_EOF;
        t.n = 0;
        return t;
    }
    if (is_letter(c)) {
        size_t start = p->pos;

        while (is_letter(at(p, p->pos)) || is_digit(at(p, p->pos)) || at(p, p->pos) == '.')
            p->pos++;
        t.n = p->pos - start;
        t.t = T_IDENT;
        for (size_t k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++) {
            if (strlen(keywords[k].word) == t.n && !memcmp(keywords[k].word, t.s, t.n))
                t.t = keywords[k].t;
        }
        return t;
    }
    if (is_digit(c)) {
        size_t start = p->pos;

        while (is_digit(at(p, p->pos)))
            p->pos++;
        t.n = p->pos - start;
        t.t = T_INT;
        return t;
    }
    switch (c) {
    case '!': t.t = T_BANG; break;
    case ',': t.t = T_COMMA; break;
    case '.': t.t = T_DOT; break;
    case '?': t.t = T_QUESTION; break;
    case ':': t.t = T_COLON; break;
    case '(': t.t = T_LPAREN; break;
    case ')': t.t = T_RPAREN; break;
    case '[': t.t = T_LBRACKET; break;
    case ']': t.t = T_RBRACKET; break;
    case '$':
        if (read_shell(p, &t))
            t.t = T_SHELL;
        else
            p->pos = p->len;
        return t;
    case '"':
    case '\'':
        if (read_quoted(p, &t, c))
            t.t = T_STRING;
        else
            p->pos = p->len;
        return t;
    case '/':
        if (read_regex(p, &t))
            t.t = T_REGEXP;
        else
            p->pos = p->len;
        return t;
    default: break;
    }
    p->pos++;
    return t;
}

static void advance(struct parser *p)
{
    p->cur = p->peek;
    p->peek = next_token(p);
}

/* ---- strings (internal/shell: ReadStringEscape, ReadSingleQuotedEscape) ---- */

static bool is_octal(char c)
{
    return c >= '0' && c <= '7';
}

static int hex_value(char c)
{
    return is_digit(c) ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
}

/* A string token's value; NULL after failing (an octal escape over \377). */
static char *decode_string(struct parser *p, const struct token *t, size_t *len)
{
    char *out = own(p, malloc(t->n + 1));
    size_t o = 0;

    if (!out)
        return NULL;
    for (size_t i = 0; i < t->n; i++) {
        char c = t->s[i], e;

        if (c != '\\') {
            out[o++] = c;
            continue;
        }
        e = t->s[++i];
        if (t->quote == '\'') {
            if (e != '\\' && e != '\'')
                out[o++] = '\\';
            out[o++] = e;
            continue;
        }
        switch (e) {
        case 'n': out[o++] = '\n'; break;
        case 's': out[o++] = ' '; break;
        case 'r': out[o++] = '\r'; break;
        case 't': out[o++] = '\t'; break;
        case 'v': out[o++] = '\v'; break;
        case 'f': out[o++] = '\f'; break;
        case 'b': out[o++] = '\b'; break;
        case 'a': out[o++] = '\a'; break;
        case 'e': out[o++] = '\x1b'; break;
        case 'x':
            /* two hex digits, else an `x` (the raw input must hold both) */
            if (i + 2 < t->n + 1 && hex_value(t->s[i + 1]) >= 0 && hex_value(t->s[i + 2]) >= 0 &&
                t->s + i + 2 < p->in + p->len) {
                out[o++] = (char)(hex_value(t->s[i + 1]) * 16 + hex_value(t->s[i + 2]));
                i += 2;
            } else {
                out[o++] = 'x';
            }
            break;
        default:
            if (is_octal(e)) {
                unsigned v = 0;
                size_t end = i;

                while (end < t->n && end < i + 3 && is_octal(t->s[end]))
                    v = v * 8 + (unsigned)(t->s[end++] - '0');
                if (v > 0xff) {
                    fail(p, "octal escape out of range: \\%.*s", (int)(end - i), t->s + i);
                    return NULL;
                }
                out[o++] = (char)v;
                i = end - 1;
            } else {
                out[o++] = e;
            }
        }
    }
    out[o] = '\0';
    *len = o;
    return out;
}

/* ---- regular expressions (internal/regex/regex.go) ---- */

static bool has_at(const char *s, size_t n, size_t i, const char *prefix)
{
    size_t k = strlen(prefix);

    return n - i >= k && !memcmp(s + i, prefix, k);
}

/* `{` at `open` .. `}` at `close` bounds a quantifier: digits, then optionally a comma
 * and digits. */
static bool quantifier_bounds(const char *s, size_t open, size_t close)
{
    size_t digits = 0;
    bool comma = false;

    if (close == open + 1)
        return false;
    for (size_t i = open + 1; i < close; i++) {
        if (is_digit(s[i]))
            digits += !comma;
        else if (s[i] == ',' && !comma)
            comma = true;
        else
            return false;
    }
    return digits != 0;
}

static bool escaped_at(const char *s, size_t i)
{
    size_t n = 0;

    while (i > n && s[i - n - 1] == '\\')
        n++;
    return n % 2 == 1;
}

/* Validate: the features the server's validator refuses. NULL, or the feature. */
static const char *refused_feature(const char *s, size_t n)
{
    bool escaped = false, in_class = false, class_first = false;

    for (size_t i = 0; i < n; i++) {
        char c = s[i];

        if (escaped) {
            escaped = false;
            if (in_class)
                class_first = false;
            continue;
        }
        if (c == '\\') {
            escaped = true;
            continue;
        }
        if (in_class) {
            if (c == '[' && i + 1 < n && strchr(":.=", s[i + 1]) && s[i + 1]) {
                for (size_t k = i + 2; k + 1 < n; k++) {
                    if (s[k] == s[i + 1] && s[k + 1] == ']') {
                        i = k + 1;
                        class_first = false;
                        break;
                    }
                }
                continue;
            }
            if (c == ']' && !class_first)
                in_class = false;
            class_first = false;
            continue;
        }
        if (c == '[') {
            in_class = class_first = true;
            continue;
        }
        if (c == '(' && i + 1 < n && s[i + 1] == '?') {
            if (has_at(s, n, i, "(?#")) {
                size_t k = i + 3;

                while (k < n && s[k] != ')')
                    k++;
                if (k == n)
                    return NULL;
                i = k;
                continue;
            }
            if (has_at(s, n, i, "(?<="))
                return "lookbehind";
            if (has_at(s, n, i, "(?<!"))
                return "nlookbehind";
            if (has_at(s, n, i, "(?>"))
                return "atomic";
            if (has_at(s, n, i, "(?<") || has_at(s, n, i, "(?P<"))
                return "named_ab";
            if (has_at(s, n, i, "(?'"))
                return "named_sq";
            if (has_at(s, n, i, "(?("))
                return "condition_open";
        }
        if (i + 1 < n && s[i + 1] == '+') {
            if (c == '?')
                return "zero_or_one_possessive";
            if (c == '*')
                return "zero_or_more_possessive";
            if (c == '+')
                return "one_or_more_possessive";
            if (c == '}') {
                for (size_t open = i; open-- > 0;) {
                    if (s[open] != '{')
                        continue;
                    if (!escaped_at(s, open) && quantifier_bounds(s, open, i))
                        return "bounded_possessive";
                    break;
                }
            }
        }
    }
    return NULL;
}

/* Whether PCRE2 matches the pattern as the server's engine (regexp2 with its RE2 option)
 * does: ASCII, and only the constructs the two read alike (literals, escaped
 * punctuation, \d \w \s \b and their negations, `.`, anchors, classes with ranges,
 * `(...)`, `(?:...)`, `|`, and the quantifiers * + ? {n} {n,} {n,m}, lazy or not).
 * Others (backreferences, lookarounds, inline flags, named groups, POSIX or Unicode
 * classes, a `{` that is no quantifier) are left undecided. */
static bool regex_portable(const char *s, size_t n)
{
    bool in_class = false;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c < 0x20 || c > 0x7e)
            return false;
        if (c == '\\') {
            char e = i + 1 < n ? s[++i] : '\0';
            bool punct = e > 0x20 && e < 0x7f && !is_letter(e) && !is_digit(e);

            if (!(punct || (e && strchr("dDwWsSntrfv", e)) || (e && strchr("bB", e) && !in_class)))
                return false;
            continue;
        }
        if (in_class) {
            if (c == '[')
                return false;
            if (c == ']')
                in_class = false;
            continue;
        }
        if (c == '[') {
            in_class = true;
            i += i + 1 < n && s[i + 1] == '^';
            i += i + 1 < n && s[i + 1] == ']'; /* a leading ] is literal in both */
            continue;
        }
        if (c == '(' && i + 1 < n && s[i + 1] == '?' && !has_at(s, n, i, "(?:"))
            return false;
        if (c == '{') {
            size_t close = i + 1;

            while (close < n && s[close] != '}')
                close++;
            if (close == n || !quantifier_bounds(s, i, close) || (i && strchr("({|", s[i - 1])) || !i)
                return false;
            i = close;
        }
    }
    return !in_class;
}

static struct node *new_node(struct parser *p, enum nkind k)
{
    struct node *n = own(p, calloc(1, sizeof(struct node)));

    if (n)
        n->k = k;
    return n;
}

static void compile_regex(struct parser *p, struct node *n, const struct token *t)
{
    const char *feature;

    for (size_t i = 0; i < t->nflags; i++) {
        if (t->flags[i] != 'i') {
            fail(p, "unsupported regexp flag: %c", t->flags[i]);
            return;
        }
    }
    n->ignore_case = t->nflags > 0;
    if ((feature = refused_feature(t->s, t->n)) != NULL) {
        fail(p, "unsupported regexp feature: %s", feature);
        return;
    }
    n->s = own(p, strndup(t->s, t->n));
    n->n = t->n;
    if (n->s && regex_portable(t->s, t->n)) {
        int code;
        PCRE2_SIZE off;

        pcre2_code **grown = own(p, malloc((p->n_codes + 1) * sizeof(*grown)));

        if (!grown)
            return;
        if (p->n_codes)
            memcpy(grown, p->codes, p->n_codes * sizeof(*grown));
        p->codes = grown;
        n->re = pcre2_compile((PCRE2_SPTR)t->s, t->n, n->ignore_case ? PCRE2_CASELESS : 0, &code, &off, NULL);
        if (n->re)
            p->codes[p->n_codes++] = n->re;
    }
}

/* ---- the parser (parser.go) ---- */

enum prec { P_LOWEST = 1, P_TERNARY, P_OR, P_AND, P_EQUALS, P_PREFIX, P_CALL, P_DOT };

static int precedence(enum tok t)
{
    switch (t) {
    case T_EQ: case T_NE: case T_RE: case T_NRE: case T_INCLUDES: return P_EQUALS;
    case T_AND: return P_AND;
    case T_OR: return P_OR;
    case T_QUESTION: return P_TERNARY;
    case T_LPAREN: return P_CALL;
    case T_DOT: return P_DOT;
    default: return P_LOWEST;
    }
}

static struct node *parse_expression(struct parser *p, int prec);

static bool expect_peek(struct parser *p, enum tok t)
{
    if (p->peek.t != t) {
        fail(p, "expected %s, got %.*s", t == T_RPAREN ? "')'" : t == T_RBRACKET ? "']'" : "':'",
             p->peek.t == T_EOF ? 3 : (int)p->peek.n, p->peek.t == T_EOF ? "end" : p->peek.s);
        return false;
    }
    advance(p);
    return true;
}

/* The items up to `end` (a call's arguments, an array's elements). */
static bool parse_list(struct parser *p, struct node *n, enum tok end)
{
    struct node **items = NULL;
    size_t count = 0;

    if (p->peek.t == end) {
        advance(p);
        return true;
    }
    do {
        struct node **grown = realloc(items, (count + 1) * sizeof(*grown));

        advance(p);
        if (count)
            advance(p);
        if (!grown) {
            fail(p, "out of memory");
            break;
        }
        items = grown;
        if (!(items[count++] = parse_expression(p, P_LOWEST)))
            break;
    } while (p->peek.t == T_COMMA);
    if (p->failed) {
        free(items);
        return false;
    }
    if (!(n->items = own(p, items)))
        return false;
    n->n_items = count;
    return expect_peek(p, end);
}

static struct node *parse_prefix(struct parser *p)
{
    struct token t = p->cur;
    struct node *n = NULL;

    switch (t.t) {
    case T_IDENT:
        if (t.s[0] == '.' || t.s[t.n - 1] == '.' || memmem(t.s, t.n, "..", 2)) {
            fail(p, "invalid dotted identifier: %.*s", (int)t.n, t.s);
            return NULL;
        }
        if ((n = new_node(p, N_IDENT)) && (n->s = own(p, strndup(t.s, t.n))))
            n->n = t.n;
        return n && n->s ? n : NULL;
    case T_INT: {
        /* strconv.ParseInt(s, 0, 64): a leading 0 is octal */
        unsigned long long v = 0;
        bool octal = t.n > 1 && t.s[0] == '0';

        for (size_t i = 0; i < t.n; i++) {
            unsigned d = (unsigned)(t.s[i] - '0');

            if ((octal && d > 7) || v > (0x7fffffffffffffffULL - d) / (octal ? 8 : 10)) {
                fail(p, "could not parse \"%.*s\" as integer", (int)t.n, t.s);
                return NULL;
            }
            v = v * (octal ? 8 : 10) + d;
        }
        if ((n = new_node(p, N_INT)))
            n->i = (long long)v;
        return n;
    }
    case T_STRING:
        if ((n = new_node(p, N_STRING))) {
            n->shell = t.quote == '"' && has_expansion(t.s, t.n);
            n->dollar = t.quote == '"' && memchr(t.s, '$', t.n);
            if (!(n->s = decode_string(p, &t, &n->n)))
                return NULL;
        }
        return n;
    case T_REGEXP:
        if ((n = new_node(p, N_REGEX)))
            compile_regex(p, n, &t);
        return p->failed ? NULL : n;
    case T_SHELL: return new_node(p, N_SHELL);
    case T_TRUE:
    case T_FALSE:
        if ((n = new_node(p, N_BOOL)))
            n->b = t.t == T_TRUE;
        return n;
    case T_NULL: return new_node(p, N_NULL);
    case T_BANG:
        if (!(n = new_node(p, N_NOT)))
            return NULL;
        advance(p);
        return (n->r = parse_expression(p, P_PREFIX)) ? n : NULL;
    case T_LPAREN:
        advance(p);
        n = parse_expression(p, P_LOWEST);
        return n && expect_peek(p, T_RPAREN) ? n : NULL;
    case T_LBRACKET:
        if (!(n = new_node(p, N_ARRAY)))
            return NULL;
        return parse_list(p, n, T_RBRACKET) ? n : NULL;
    default:
        fail(p, "unexpected %.*s", t.t == T_EOF ? 3 : (int)t.n, t.t == T_EOF ? "end" : t.s);
        return NULL;
    }
}

static struct node *parse_expression(struct parser *p, int prec)
{
    struct node *left = parse_prefix(p);

    while (left && p->peek.t != T_EOF && prec < precedence(p->peek.t)) {
        enum tok op = p->peek.t;
        struct node *n;

        if (op == T_DOT)
            return left; /* no infix parse function: the caller finds it unexpected */
        advance(p);
        if (op == T_LPAREN) {
            /* a call: the function is a name (`env`, `build.env`) */
            if (left->k != N_IDENT) {
                fail(p, "function call must be an identifier");
                return NULL;
            }
            left->k = N_CALL;
            if (!parse_list(p, left, T_RPAREN))
                return NULL;
            continue;
        }
        if (!(n = new_node(p, op == T_QUESTION ? N_TERNARY : N_INFIX)))
            return NULL;
        n->op = op;
        n->l = left;
        advance(p);
        if (op == T_QUESTION) {
            n->c = left;
            n->l = parse_expression(p, P_LOWEST);
            if (!n->l || !expect_peek(p, T_COLON))
                return NULL;
            advance(p);
            n->r = parse_expression(p, P_TERNARY - 1);
        } else {
            n->r = parse_expression(p, precedence(op));
        }
        if (!n->r)
            return NULL;
        left = n;
    }
    return left;
}

/* ---- the server's variables (assignments.go) and environment (env.go) ---- */

enum ty { TY_UNKNOWN, TY_STRING, TY_NUMBER, TY_BOOL, TY_NULL, TY_REGEXP, TY_ARRAY };

static const char *const build_states[] = {"creating", "started", "running", "scheduled", "blocked", "passed",
                                           "failing", "failed", "canceling", "canceled", "skipped", "not_run", NULL};
static const char *const blocked_states[] = {"failed", "passed", "running", NULL};
static const char *const sources[] = {"api", "ui", "webhook", "trigger_job", "schedule", "pipeline_trigger", NULL};

static const struct variable {
    const char *name;
    enum ty ty;
    const char *const *values; /* an enumeration's */
} variables[] = {
    {"build.id", TY_STRING, NULL}, {"build.state", TY_STRING, build_states}, {"build.fixed", TY_BOOL, NULL},
    {"build.blocked_state", TY_STRING, blocked_states}, {"build.source", TY_STRING, sources},
    {"build.source_event", TY_STRING, NULL}, {"build.source_action", TY_STRING, NULL},
    {"build.branch", TY_STRING, NULL}, {"build.tag", TY_STRING, NULL}, {"build.message", TY_STRING, NULL},
    {"build.commit", TY_STRING, NULL}, {"build.number", TY_NUMBER, NULL}, {"build.creator.id", TY_STRING, NULL},
    {"build.creator.name", TY_STRING, NULL}, {"build.creator.email", TY_STRING, NULL},
    {"build.creator.teams", TY_ARRAY, NULL}, {"build.creator.verified", TY_BOOL, NULL},
    {"build.author.id", TY_STRING, NULL}, {"build.author.name", TY_STRING, NULL},
    {"build.author.email", TY_STRING, NULL}, {"build.author.teams", TY_ARRAY, NULL},
    {"build.scm.author.name", TY_STRING, NULL}, {"build.scm.author.email", TY_STRING, NULL},
    {"build.scm.committer.name", TY_STRING, NULL}, {"build.scm.committer.email", TY_STRING, NULL},
    {"build.pull_request.id", TY_STRING, NULL}, {"build.pull_request.base_branch", TY_STRING, NULL},
    {"build.pull_request.draft", TY_BOOL, NULL}, {"build.pull_request.label", TY_STRING, NULL},
    {"build.pull_request.labels", TY_ARRAY, NULL}, {"build.pull_request.repository", TY_STRING, NULL},
    {"build.pull_request.repository.fork", TY_BOOL, NULL}, {"build.merge_queue.base_branch", TY_STRING, NULL},
    {"build.merge_queue.base_commit", TY_STRING, NULL}, {"pipeline.id", TY_STRING, NULL},
    {"pipeline.slug", TY_STRING, NULL}, {"pipeline.default_branch", TY_STRING, NULL},
    {"pipeline.repository", TY_STRING, NULL}, {"pipeline.started_passing", TY_BOOL, NULL},
    {"pipeline.started_failing", TY_BOOL, NULL}, {"pipeline.next_finished_build_exists", TY_BOOL, NULL},
    {"organization.id", TY_STRING, NULL}, {"organization.slug", TY_STRING, NULL},
};

static const struct variable *variable_find(const char *name)
{
    for (size_t i = 0; i < sizeof(variables) / sizeof(variables[0]); i++) {
        if (!strcmp(variables[i].name, name))
            return &variables[i];
    }
    return NULL;
}

/* env.go: the BUILDKITE_* names env() and build.env() may read. */
static const char *const buildkite_env[] = {
    "BUILDKITE_BRANCH", "BUILDKITE_TAG", "BUILDKITE_MESSAGE", "BUILDKITE_COMMIT", "BUILDKITE_PIPELINE_SLUG",
    "BUILDKITE_PIPELINE_NAME", "BUILDKITE_PIPELINE_ID", "BUILDKITE_ORGANIZATION_SLUG",
    "BUILDKITE_TRIGGERED_FROM_BUILD_ID", "BUILDKITE_TRIGGERED_FROM_BUILD_NUMBER",
    "BUILDKITE_TRIGGERED_FROM_BUILD_PIPELINE_SLUG", "BUILDKITE_TRIGGERED_FROM_BUILD_JOB_ID",
    "BUILDKITE_REBUILT_FROM_BUILD_ID", "BUILDKITE_REBUILT_FROM_BUILD_NUMBER", "BUILDKITE_REPO",
    "BUILDKITE_PULL_REQUEST", "BUILDKITE_PULL_REQUEST_BASE_BRANCH", "BUILDKITE_PULL_REQUEST_REPO",
    "BUILDKITE_PULL_REQUEST_USING_MERGE_REFSPEC", "BUILDKITE_MERGE_QUEUE_BASE_BRANCH",
    "BUILDKITE_MERGE_QUEUE_BASE_COMMIT", "BUILDKITE_GIT_DIFF_BASE", "BUILDKITE_GITHUB_ACTION",
    "BUILDKITE_GITHUB_COMMENT_ID", "BUILDKITE_GITHUB_DEPLOYMENT_ID", "BUILDKITE_GITHUB_DEPLOYMENT_TASK",
    "BUILDKITE_GITHUB_DEPLOYMENT_ENVIRONMENT", "BUILDKITE_GITHUB_DEPLOYMENT_PAYLOAD", "BUILDKITE_GITHUB_EVENT",
    "BUILDKITE_GITHUB_REVIEW_ID", "BUILDKITE_GITHUB_CHECK_RUN_CONCLUSION", "BUILDKITE_GITHUB_CHECK_RUN_NAME",
    "BUILDKITE_GITHUB_DEPLOYMENT_STATUS_ENVIRONMENT", "BUILDKITE_GITHUB_DEPLOYMENT_STATUS_STATE",
    "BUILDKITE_GITHUB_RELEASE_DRAFT", "BUILDKITE_GITHUB_RELEASE_PRERELEASE", "BUILDKITE_GITHUB_RELEASE_TAG",
    "BUILDKITE_GITHUB_REVIEW_STATE", NULL};

/* A BUILDKITE_* name the server does not give (BUILDKITE_PULL_REQUEST_LABELS only at run
 * time, `runtime`). */
static bool unsupported_env(const char *name, bool runtime)
{
    if (strncmp(name, "BUILDKITE_", 10) != 0 || (runtime && !strcmp(name, "BUILDKITE_PULL_REQUEST_LABELS")))
        return false;
    for (size_t i = 0; buildkite_env[i]; i++) {
        if (!strcmp(buildkite_env[i], name))
            return false;
    }
    return true;
}

/* ---- the checks before evaluation (typecheck.go, validateEnvCalls) ---- */

struct type {
    enum ty k;
    const char *const *values;
};

static struct type check(struct parser *p, const struct node *n);

static bool expect_any(struct parser *p, const struct node *n, enum ty a, enum ty b)
{
    struct type t = check(p, n);

    if (p->failed || t.k == TY_UNKNOWN || (!t.values && (t.k == a || t.k == b)))
        return !p->failed;
    fail(p, "unexpected type");
    return false;
}

static struct type compatible(struct parser *p, const struct node *l, const struct node *r)
{
    struct type lt = check(p, l), rt = check(p, r), none = {TY_UNKNOWN, NULL};

    if (p->failed)
        return none;
    if (lt.k == TY_NULL || lt.k == TY_UNKNOWN)
        return rt;
    if (rt.k == TY_NULL || rt.k == TY_UNKNOWN)
        return lt;
    if (lt.k == TY_ARRAY || rt.k == TY_ARRAY) {
        if (lt.k != rt.k)
            fail(p, "unexpected type");
        return lt;
    }
    if (lt.values) {
        if (!expect_any(p, r, TY_STRING, TY_NULL))
            return none;
        if (r->k == N_STRING && !r->shell) {
            size_t i = 0;

            while (lt.values[i] && strcmp(lt.values[i], r->s))
                i++;
            if (!lt.values[i])
                fail(p, "\"%s\" is not a valid `%s`", r->s, l->k == N_IDENT ? l->s : "value");
        }
        return lt;
    }
    expect_any(p, r, lt.k, TY_NULL);
    return lt;
}

static struct type check(struct parser *p, const struct node *n)
{
    struct type t = {TY_UNKNOWN, NULL};

    switch (n->k) {
    case N_BOOL: t.k = TY_BOOL; break;
    case N_NULL: t.k = TY_NULL; break;
    case N_INT: t.k = TY_NUMBER; break;
    case N_STRING:
    case N_SHELL: t.k = TY_STRING; break;
    case N_REGEX: t.k = TY_REGEXP; break;
    case N_IDENT: {
        const struct variable *v = variable_find(n->s);

        if (!v) {
            fail(p, "`%s` is not a variable", n->s);
            break;
        }
        t.k = v->ty;
        t.values = v->values;
        break;
    }
    case N_NOT:
        if (expect_any(p, n->r, TY_BOOL, TY_BOOL))
            t.k = TY_BOOL;
        break;
    case N_TERNARY:
        if (expect_any(p, n->c, TY_BOOL, TY_BOOL))
            t = compatible(p, n->l, n->r);
        break;
    case N_CALL:
        if (strcmp(n->s, "env") != 0 && strcmp(n->s, "build.env") != 0) {
            fail(p, "`%s` is not a function", n->s);
            break;
        }
        if (n->n_items != 1) {
            fail(p, "%s expects exactly one argument", n->s);
            break;
        }
        if (n->items[0]->k == N_STRING && !n->items[0]->shell) {
            const char *name = n->items[0]->s;
            bool valid = *name;

            for (const char *c = name; *c; c++)
                valid = valid && (is_letter(*c) || is_digit(*c));
            if (name[0] == '$' || !valid || unsupported_env(name, false)) {
                fail(p, "%s(\"%s\") names no environment variable Buildkite gives", n->s, name);
                break;
            }
        }
        if (expect_any(p, n->items[0], TY_STRING, TY_STRING))
            t.k = TY_STRING;
        break;
    case N_ARRAY:
        for (size_t i = 0; i < n->n_items; i++) {
            if (!expect_any(p, n->items[i], TY_STRING, TY_STRING))
                return t;
        }
        t.k = TY_ARRAY;
        break;
    case N_INFIX:
        switch (n->op) {
        case T_RE:
        case T_NRE:
            if (expect_any(p, n->l, TY_STRING, TY_NULL) && expect_any(p, n->r, TY_REGEXP, TY_REGEXP))
                t.k = TY_BOOL;
            break;
        case T_INCLUDES: {
            struct type r;

            if (!expect_any(p, n->l, TY_ARRAY, TY_NULL))
                break;
            r = check(p, n->r);
            if (!p->failed && r.k != TY_UNKNOWN && !(r.k == TY_STRING && !r.values) && r.k != TY_REGEXP &&
                r.k != TY_NULL)
                fail(p, "unexpected type");
            t.k = TY_BOOL;
            break;
        }
        case T_AND:
        case T_OR:
            if (expect_any(p, n->l, TY_BOOL, TY_BOOL) && expect_any(p, n->r, TY_BOOL, TY_BOOL))
                t.k = TY_BOOL;
            break;
        default:
            compatible(p, n->l, n->r);
            t.k = TY_BOOL;
            break;
        }
        break;
    }
    return t;
}

/* ---- evaluation (evaluator.go), three-valued ---- */

enum vk { V_UNKNOWN, V_ERROR, V_NULL, V_BOOL, V_INT, V_STRING, V_REGEX, V_ARRAY };

struct value {
    enum vk k;
    int truth; /* an unknown value's: -1 unknown, 0 false or null, 1 any other */
    bool b;
    long long i;
    const char *s; /* a string's, or an array's items "a,b" (`n` bytes), split on ',' */
    size_t n;
    const struct node *re;
    const struct node *items; /* an array literal's */
};

struct eval {
    bkc_lookup_fn lookup;
    void *user;
    pcre2_match_data *md;
};

static const struct value unknown = {V_UNKNOWN, -1, false, 0, NULL, 0, NULL, NULL};

static struct value of_bool(bool b)
{
    struct value v = {V_BOOL, -1, b, 0, NULL, 0, NULL, NULL};

    return v;
}

static struct value of_string(const char *s, size_t n)
{
    struct value v = {V_STRING, -1, false, 0, s, n, NULL, NULL};

    return v;
}

static struct value error_value(void)
{
    struct value v = {V_ERROR, -1, false, 0, NULL, 0, NULL, NULL};

    return v;
}

static int truth_of(const struct value *v)
{
    switch (v->k) {
    case V_UNKNOWN: return v->truth;
    case V_BOOL: return v->b;
    case V_NULL: return 0;
    default: return 1;
    }
}

static struct value eval(struct eval *e, const struct node *n);

/* A value given for `key`, typed as `ty`; unknown when not given or not of its type. */
static struct value given(struct eval *e, const char *key, enum ty ty)
{
    const char *v = e->lookup(e->user, key);
    struct value out = unknown;

    if (!v)
        return unknown;
    if (!*v) {
        out.k = V_NULL;
        return out;
    }
    switch (ty) {
    case TY_BOOL:
        if (!strcmp(v, "true") || !strcmp(v, "false"))
            return of_bool(v[0] == 't');
        return unknown;
    case TY_NUMBER: {
        char *end;

        out.i = strtoll(v, &end, 10);
        out.k = *end ? V_UNKNOWN : V_INT;
        return out;
    }
    case TY_ARRAY:
        out = of_string(v, strlen(v));
        out.k = V_ARRAY;
        return out;
    default: return of_string(v, strlen(v));
    }
}

/* A variable: `build.X` is the value given for X, any other the value given for its name. */
static struct value variable(struct eval *e, const char *name)
{
    const struct variable *v = variable_find(name);
    const char *key = strncmp(name, "build.", 6) ? name : name + 6;
    struct value source;

    if (!v)
        return error_value();
    /* sourceEvent, sourceAction, pullRequestLabel: null unless a webhook's (a pull
     * request's) */
    if (!strcmp(key, "source_event") || !strcmp(key, "source_action") || !strcmp(key, "pull_request.label")) {
        source = given(e, "source", TY_STRING);
        if (source.k == V_STRING && strcmp(source.s, "webhook") != 0) {
            source.k = V_NULL;
            return source;
        }
        if (!strcmp(key, "pull_request.label")) {
            source = variable(e, "build.source_event");
            if (source.k == V_NULL || (source.k == V_STRING && strcmp(source.s, "pull_request") != 0)) {
                source.k = V_NULL;
                return source;
            }
            if (source.k != V_STRING)
                return unknown;
        } else if (source.k != V_STRING) {
            return unknown;
        }
    }
    return given(e, key, v->ty);
}

/* builtinEnv: the BUILDKITE_* values the server derives from the build; NULL for others. */
static const struct {
    const char *env, *key, *null_value;
} derived_env[] = {
    {"BUILDKITE_BRANCH", "branch", NULL},
    {"BUILDKITE_TAG", "tag", ""},
    {"BUILDKITE_MESSAGE", "message", ""},
    {"BUILDKITE_COMMIT", "commit", NULL},
    {"BUILDKITE_PULL_REQUEST", "pull_request.id", "false"},
    {"BUILDKITE_PULL_REQUEST_BASE_BRANCH", "pull_request.base_branch", ""},
    {"BUILDKITE_PIPELINE_SLUG", "pipeline.slug", NULL},
    {"BUILDKITE_ORGANIZATION_SLUG", "organization.slug", NULL},
    {"BUILDKITE_PULL_REQUEST_LABELS", "pull_request.labels", ""},
};

/* env("NAME") and build.env("NAME"): --build env.NAME, or what the server derives;
 * unknown when neither is given (its absence is not known: env() would say "",
 * build.env() null). */
static struct value env_call(struct eval *e, const char *name)
{
    struct value out;
    char key[256];

    if (!*name || unsupported_env(name, true))
        return error_value();
    for (size_t i = 0; i < sizeof(derived_env) / sizeof(derived_env[0]); i++) {
        if (strcmp(derived_env[i].env, name) != 0)
            continue;
        out = given(e, derived_env[i].key, TY_STRING);
        if (out.k == V_NULL && derived_env[i].null_value)
            return of_string(derived_env[i].null_value, strlen(derived_env[i].null_value));
        if (out.k == V_NULL)
            return unknown; /* not set by the server; the environment's own may be */
        return out;
    }
    if (snprintf(key, sizeof(key), "env.%s", name) >= (int)sizeof(key))
        return unknown;
    {
        const char *v = e->lookup(e->user, key);

        return v ? of_string(v, strlen(v)) : unknown;
    }
}

/* 1 matched, 0 not, -1 undecided. */
static int regex_match(struct eval *e, const struct node *re, const char *s, size_t n)
{
    int rc;

    if (!re->re)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)s[i] > 0x7e || (s[i] == '\n' && (memchr(re->s, '^', re->n) || memchr(re->s, '$', re->n))))
            return -1;
    }
    rc = pcre2_match(re->re, (PCRE2_SPTR)s, n, 0, 0, e->md, NULL);
    return rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

/* The i-th item of an array (a literal's evaluated, a given list's split); false past the end. */
static bool array_item(struct eval *e, const struct value *a, size_t i, struct value *out)
{
    if (a->items) {
        if (i >= a->items->n_items)
            return false;
        *out = eval(e, a->items->items[i]);
        return true;
    }
    {
        const char *p = a->s, *end = a->s + a->n;

        for (size_t k = 0; k < i && p; k++) {
            p = memchr(p, ',', (size_t)(end - p));
            p = p ? p + 1 : NULL;
        }
        if (!p || (p == end && i > 0 && !(end > a->s && end[-1] == ',')))
            return false;
        {
            const char *comma = memchr(p, ',', (size_t)(end - p));

            *out = of_string(p, comma ? (size_t)(comma - p) : (size_t)(end - p));
        }
        return true;
    }
}

static bool same(struct eval *e, const struct value *a, const struct value *b, bool *undecided);

/* Array.Equals: the same length and items of the same type that are equal. */
static bool arrays_equal(struct eval *e, const struct value *a, const struct value *b, bool *undecided)
{
    struct value x, y;
    size_t i = 0;

    for (;; i++) {
        bool hx = array_item(e, a, i, &x), hy = array_item(e, b, i, &y);

        if (hx != hy)
            return false;
        if (!hx)
            return true;
        if (x.k == V_UNKNOWN || y.k == V_UNKNOWN) {
            *undecided = true;
            return false;
        }
        if (!same(e, &x, &y, undecided))
            return false;
    }
}

static bool same(struct eval *e, const struct value *a, const struct value *b, bool *undecided)
{
    if (a->k != b->k)
        return false;
    switch (a->k) {
    case V_NULL: return true;
    case V_BOOL: return a->b == b->b;
    case V_INT: return a->i == b->i;
    case V_STRING: return a->n == b->n && !memcmp(a->s, b->s, a->n);
    case V_REGEX: return a->re->n == b->re->n && !memcmp(a->re->s, b->re->s, a->re->n) &&
                         a->re->ignore_case == b->re->ignore_case;
    case V_ARRAY: return arrays_equal(e, a, b, undecided);
    default: return false;
    }
}

/* evalArrayInfixExpression's `includes` (arrayContains). */
static struct value includes(struct eval *e, const struct value *a, const struct value *x)
{
    struct value item;
    bool undecided = false;

    if (x->k == V_NULL)
        return of_bool(false);
    for (size_t i = 0; array_item(e, a, i, &item); i++) {
        if (item.k == V_UNKNOWN) {
            undecided = true;
            continue;
        }
        if (x->k == V_REGEX) {
            int m;

            if (item.k != V_STRING)
                return undecided ? unknown : error_value(); /* an earlier item may match */
            m = regex_match(e, x->re, item.s, item.n);
            if (m < 0)
                undecided = true;
            else if (m)
                return of_bool(true);
            continue;
        }
        if (item.k != x->k)
            return undecided ? unknown : error_value();
        if (same(e, &item, x, &undecided))
            return of_bool(true);
    }
    return undecided ? unknown : of_bool(false);
}

static struct value infix(struct eval *e, enum tok op, const struct value *l, const struct value *r)
{
    bool undecided = false, eq;

    if (l->k == V_STRING && r->k == V_REGEX && (op == T_RE || op == T_NRE)) {
        int m = regex_match(e, r->re, l->s, l->n);

        return m < 0 ? unknown : of_bool((m == 1) == (op == T_RE));
    }
    if (l->k == V_NULL && r->k == V_REGEX)
        return op == T_RE ? of_bool(false) : op == T_NRE ? of_bool(true) : error_value();
    if (l->k == V_ARRAY && op == T_INCLUDES)
        return includes(e, l, r);
    if (l->k == V_NULL && op == T_INCLUDES)
        return of_bool(false);
    if (op == T_EQ || op == T_NE) {
        /* integers, strings, arrays compare by value; other kinds only when alike */
        eq = same(e, l, r, &undecided);
        return undecided ? unknown : of_bool(eq == (op == T_EQ));
    }
    return error_value();
}

static struct value eval(struct eval *e, const struct node *n)
{
    struct value l, r;

    switch (n->k) {
    case N_INT: l = unknown; l.k = V_INT; l.i = n->i; return l;
    case N_STRING: return n->dollar ? unknown : of_string(n->s, n->n);
    case N_REGEX: l = unknown; l.k = V_REGEX; l.re = n; return l;
    case N_SHELL: return unknown;
    case N_BOOL: return of_bool(n->b);
    case N_NULL: l = unknown; l.k = V_NULL; return l;
    case N_IDENT: return variable(e, n->s);
    case N_ARRAY:
        for (size_t i = 0; i < n->n_items; i++) {
            r = eval(e, n->items[i]);
            if (r.k == V_ERROR)
                return r;
        }
        l = unknown;
        l.k = V_ARRAY;
        l.items = n;
        return l;
    case N_CALL:
        if (n->n_items != 1)
            return error_value();
        r = eval(e, n->items[0]);
        if (r.k == V_ERROR)
            return r;
        if (r.k == V_UNKNOWN)
            return unknown;
        if (r.k != V_STRING || memchr(r.s, '\0', r.n))
            return error_value();
        return env_call(e, r.s);
    case N_NOT:
        r = eval(e, n->r);
        if (r.k == V_ERROR)
            return r;
        if (r.k == V_UNKNOWN)
            return r.truth < 0 ? unknown : of_bool(!r.truth);
        return of_bool(!truth_of(&r));
    case N_TERNARY: {
        int t;

        l = eval(e, n->c);
        if (l.k == V_ERROR)
            return l;
        t = truth_of(&l);
        return t < 0 ? unknown : eval(e, t ? n->l : n->r);
    }
    case N_INFIX:
        l = eval(e, n->l);
        if (l.k == V_ERROR)
            return l;
        if (n->op == T_AND || n->op == T_OR) {
            /* evalLogicalExpression: `&&` is left when left is falsy, else right */
            int lt = truth_of(&l), rt;
            bool decides_left = n->op == T_AND ? lt == 0 : lt == 1;

            if (decides_left)
                return l;
            r = eval(e, n->r);
            if (lt >= 0)
                return r;
            if (r.k == V_ERROR)
                return unknown; /* an error only when left does not decide */
            rt = truth_of(&r);
            /* left unknown: the value is left's or right's, of one truth when right has
             * the truth that left would decide with */
            l = unknown;
            l.truth = rt == (n->op == T_OR) ? rt : -1;
            return l;
        }
        r = eval(e, n->r);
        if (r.k == V_ERROR)
            return r;
        if (l.k == V_UNKNOWN || r.k == V_UNKNOWN)
            return unknown;
        return infix(e, n->op, &l, &r);
    }
    return error_value();
}

/* ---- the verdict (conditional.go's evaluate) ---- */

enum bkc_verdict bkc_decide(const char *text, size_t len, bkc_lookup_fn lookup, void *user, char *why, size_t size)
{
    struct parser p = {.in = text, .len = len, .why = why, .why_size = size};
    struct eval e = {lookup, user, NULL};
    enum bkc_verdict verdict = BKC_INVALID;
    struct node *root = NULL;
    struct value v;

    if (size)
        why[0] = '\0';
    advance(&p);
    advance(&p);
    if (p.cur.t == T_EOF)
        fail(&p, "empty expression");
    else if ((root = parse_expression(&p, P_LOWEST)) && p.peek.t != T_EOF)
        fail(&p, "unexpected %.*s after the expression", (int)p.peek.n, p.peek.s);
    if (!p.failed && root) {
        struct type t = check(&p, root);

        if (!p.failed && t.k != TY_BOOL && t.k != TY_UNKNOWN)
            fail(&p, "expected a boolean result");
    }
    if (!p.failed && root && !(e.md = pcre2_match_data_create(1, NULL)))
        fail(&p, "out of memory");
    if (!p.failed && root) {
        v = eval(&e, root);
        switch (v.k) {
        case V_ERROR: fail(&p, "it fails to evaluate"); break;
        case V_BOOL: verdict = v.b ? BKC_TRUE : BKC_FALSE; break;
        case V_NULL: verdict = BKC_FALSE; break;
        case V_UNKNOWN: verdict = v.truth < 0 ? BKC_UNKNOWN : v.truth ? BKC_TRUE : BKC_FALSE; break;
        default: fail(&p, "expected a boolean result"); break;
        }
    }
    if (p.oom)
        verdict = BKC_UNKNOWN;
    pcre2_match_data_free(e.md);
    for (size_t i = 0; i < p.n_codes; i++)
        pcre2_code_free(p.codes[i]);
    for (size_t i = 0; i < p.n_owned; i++)
        free(p.owned[i]);
    free(p.owned);
    return verdict;
}
