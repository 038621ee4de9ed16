/* Lexer and parser, step for step those of @actions/expressions (lexer.ts, parser.ts),
 * so that the same texts are refused, with the same depth counting; the only departure
 * is that every '' in a string is an escaped quote (the package's lexer replaces only
 * the first, against GitHub's runtime and its own workflow parser).
 *
 * One difference in the tree: a run of == / != (or of < <= > >=) is one EN_CHAIN node
 * evaluated left to right, not nested binary nodes, because the package does not count
 * depth along such a run and a nested tree would make recursion unbounded. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/strhash.h"

#include "expr_internal.h"

const struct expr_fn_info expr_fns[] = {
    [EF_CONTAINS] = {"contains", 2, 2},   [EF_STARTSWITH] = {"startsWith", 2, 2},
    [EF_ENDSWITH] = {"endsWith", 2, 2},   [EF_FORMAT] = {"format", 1, 255},
    [EF_JOIN] = {"join", 1, 2},           [EF_TOJSON] = {"toJSON", 1, 1},
    [EF_FROMJSON] = {"fromJSON", 1, 1},   [EF_CASE] = {"case", 3, UINT32_MAX},
    [EF_HASHFILES] = {"hashFiles", 1, 255}, [EF_SUCCESS] = {"success", 0, 0},
    [EF_ALWAYS] = {"always", 0, 0},       [EF_CANCELLED] = {"cancelled", 0, 0},
    [EF_FAILURE] = {"failure", 0, 0},
};

/* Every context GitHub defines; any other name is an error there, and here. Rows of a
 * fixed size, NUL-padded: find_context compares a whole row at once. */
#define CONTEXT_ROW 9
static const char contexts[][CONTEXT_ROW] = {"github", "env",      "vars",   "job",
                                             "jobs",   "steps",    "runner", "secrets",
                                             "strategy", "matrix", "needs",  "inputs"};

int expr_fail(struct expr_error *err, size_t offset, const char *fmt, ...)
{
    va_list ap;
    size_t n, k;
    int full;

    if (!err)
        return -1;
    err->offset = offset;
    va_start(ap, fmt);
    full = vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    /* Cut short: drop a character the cut split. */
    n = strlen(err->message);
    if (full > (int)n) {
        for (k = n; k > 0 && ((unsigned char)err->message[k - 1] & 0xC0) == 0x80; k--)
            ;
        if (k > 0 && (unsigned char)err->message[k - 1] >= 0xC0) {
            unsigned char lead = (unsigned char)err->message[k - 1];
            size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;

            if (n - (k - 1) < need)
                err->message[k - 1] = '\0';
        }
    }
    return -1;
}

/* How much of s[0..n) a message quotes: 100 bytes at most, cut at a character. */
static int quoted_len(const char *s, size_t n)
{
    if (n <= 100)
        return (int)n;
    n = 100;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    return (int)n;
}

/* ---- arena ---- */

struct expr_chunk {
    struct expr_chunk *next;
    max_align_t data[];
};

/* The largest chunk but one that is alone: glibc's malloc serves a block below 1 KiB
 * (1,008 bytes with its header) from its small bins, where a larger one first merges the
 * freed small blocks (malloc_consolidate) unless its thread cache holds one: 700 to 1,400
 * instructions a malloc when a parse's trees are kept. */
#define EXPR_CHUNK (1000 - sizeof(struct expr_chunk))

void *expr_arena_grow(struct expr_arena *a, size_t size)
{
    size_t want = a->chunk ? a->chunk : EXPR_CHUNK, cap = size > want ? size : want;
    struct expr_chunk *c = malloc(sizeof(*c) + cap);

    if (!c)
        return NULL;
    a->chunk = 2 * cap < EXPR_CHUNK ? 2 * cap : EXPR_CHUNK;
    c->next = a->chunks;
    a->chunks = c;
    a->p = (char *)c->data + size;
    a->left = cap - size;
    return c->data;
}

void expr_arena_free(struct expr_arena *a)
{
    while (a->chunks) {
        struct expr_chunk *next = a->chunks->next;

        free(a->chunks);
        a->chunks = next;
    }
    a->p = NULL;
    a->left = 0;
}

/* ---- lexer ---- */

enum tok {
    T_LPAREN,
    T_RPAREN,
    T_LBRACKET,
    T_RBRACKET,
    T_COMMA,
    T_DOT,
    T_BANG,
    T_NE,
    T_EQ,
    T_GT,
    T_GE,
    T_LT,
    T_LE,
    T_AND,
    T_OR,
    T_STAR,
    T_NUMBER,
    T_STRING,
    T_IDENT,
    T_TRUE,
    T_FALSE,
    T_NULL,
    T_EOF,
};

struct token {
    uint8_t type;
    size_t start, end;
    double num;
};

/* Tokens a text of usual length makes, kept on the stack (a malloc and its reallocs were
 * a tenth of a parse). */
#define LEX_INLINE 64

struct lexer {
    const char *s;
    size_t len, i;
    struct token *t; /* `inline_t` until it outgrows it */
    size_t n, cap;
    struct expr_error *err;
    struct token inline_t[LEX_INLINE];
};

/* The ASCII characters that end a number or a word: punctuation the lexer reads, and
 * white space. */
static const bool ascii_boundary[128] = {
    ['('] = true, ['['] = true, [')'] = true, [']'] = true, [','] = true, ['.'] = true,
    ['!'] = true, ['>'] = true, ['<'] = true, ['='] = true, ['&'] = true, ['|'] = true,
    [' '] = true, ['\t'] = true, ['\n'] = true, ['\v'] = true, ['\f'] = true, ['\r'] = true,
};

static bool is_boundary(const char *s, size_t len, size_t i)
{
    unsigned char c = (unsigned char)s[i];

    if (c < 0x80)
        return ascii_boundary[c];
    return expr_is_js_space(expr_utf8_next(s, len, &i)); /* JavaScript's other white space */
}

static void lexer_free(struct lexer *l)
{
    if (l->t != l->inline_t)
        free(l->t);
}

static int previous_type(const struct lexer *l)
{
    return l->n ? l->t[l->n - 1].type : T_EOF;
}

/* Room for twice the tokens. 0, or -1 when out of memory. */
static __attribute__((noinline)) int grow(struct lexer *l, size_t start)
{
    size_t cap = l->cap * 2;
    struct token *t = realloc(l->t == l->inline_t ? NULL : l->t, cap * sizeof(*t));

    if (!t)
        return expr_fail(l->err, start, "out of memory");
    if (l->t == l->inline_t)
        memcpy(t, l->inline_t, sizeof(l->inline_t));
    l->t = t;
    l->cap = cap;
    return 0;
}

/* Inline, its rare growth apart: a call a token was a tenth of the lexer. */
static inline int add(struct lexer *l, int type, size_t start, double num)
{
    if (l->n == l->cap && grow(l, start) != 0)
        return -1;
    l->t[l->n++] = (struct token){(uint8_t)type, start, l->i, num};
    return 0;
}

/* The message for a text the lexer refuses, as the package words it. */
static int unexpected(struct lexer *l, size_t start, size_t end)
{
    return expr_fail(l->err, start, "Unexpected symbol: '%.*s%s'",
                     quoted_len(l->s + start, end - start), l->s + start,
                     end - start > 100 ? "..." : "");
}

static int lex_number(struct lexer *l, size_t start)
{
    double d;

    while (l->i < l->len && (!is_boundary(l->s, l->len, l->i) || l->s[l->i] == '.'))
        l->i++;
    d = expr_js_to_number(l->s + start, l->i - start);
    if (isnan(d))
        return unexpected(l, start, l->i);
    return add(l, T_NUMBER, start, d);
}

/* The characters an identifier may hold past its first (letters, digits, `_`, `-`): a
 * table, one load a character. */
static const bool word_char[256] = {
    ['-'] = true, ['_'] = true, ['0'] = true, ['1'] = true, ['2'] = true, ['3'] = true,
    ['4'] = true, ['5'] = true, ['6'] = true, ['7'] = true, ['8'] = true, ['9'] = true,
    ['A'] = true, ['B'] = true, ['C'] = true, ['D'] = true, ['E'] = true, ['F'] = true,
    ['G'] = true, ['H'] = true, ['I'] = true, ['J'] = true, ['K'] = true, ['L'] = true,
    ['M'] = true, ['N'] = true, ['O'] = true, ['P'] = true, ['Q'] = true, ['R'] = true,
    ['S'] = true, ['T'] = true, ['U'] = true, ['V'] = true, ['W'] = true, ['X'] = true,
    ['Y'] = true, ['Z'] = true, ['a'] = true, ['b'] = true, ['c'] = true, ['d'] = true,
    ['e'] = true, ['f'] = true, ['g'] = true, ['h'] = true, ['i'] = true, ['j'] = true,
    ['k'] = true, ['l'] = true, ['m'] = true, ['n'] = true, ['o'] = true, ['p'] = true,
    ['q'] = true, ['r'] = true, ['s'] = true, ['t'] = true, ['u'] = true, ['v'] = true,
    ['w'] = true, ['x'] = true, ['y'] = true, ['z'] = true,
};

static bool word_is(const char *s, size_t len, const char *w)
{
    return strlen(w) == len && memcmp(s, w, len) == 0;
}

static int lex_identifier(struct lexer *l, size_t start)
{
    const char *w = l->s + start;
    size_t len;
    int type = T_IDENT;
    double num = 0;
    bool legal = (*w >= 'a' && *w <= 'z') || (*w >= 'A' && *w <= 'Z') || *w == '_';

    /* the word runs to a boundary; legal when all it holds is a name's */
    while (l->i < l->len && word_char[(unsigned char)l->s[l->i]])
        l->i++;
    if (l->i < l->len && !is_boundary(l->s, l->len, l->i)) {
        legal = false;
        while (l->i < l->len && !is_boundary(l->s, l->len, l->i))
            l->i++;
    }
    len = l->i - start;
    if (previous_type(l) != T_DOT) {
        if (word_is(w, len, "true")) {
            type = T_TRUE;
        } else if (word_is(w, len, "false")) {
            type = T_FALSE;
        } else if (word_is(w, len, "null")) {
            type = T_NULL;
        } else if (word_is(w, len, "NaN")) {
            type = T_NUMBER, num = NAN;
        } else if (word_is(w, len, "Infinity")) {
            type = T_NUMBER, num = INFINITY;
        }
    }
    if (!legal)
        return unexpected(l, start, l->i);
    return add(l, type, start, num);
}

static int lex_string(struct lexer *l, size_t start)
{
    while (l->i < l->len && (l->s[l->i] != '\'' || (l->i + 1 < l->len && l->s[l->i + 1] == '\''))) {
        if (l->s[l->i] == '\'')
            l->i++; /* '' is an escaped quote */
        l->i++;
    }
    if (l->i >= l->len)
        return unexpected(l, start, l->len);
    l->i++;
    return add(l, T_STRING, start, 0);
}

static bool match_char(struct lexer *l, char c)
{
    if (l->i < l->len && l->s[l->i] == c) {
        l->i++;
        return true;
    }
    return false;
}

static int lex(struct lexer *l)
{
    size_t bad;

    /* a text has no more UTF-16 units than bytes: only a long one is counted */
    if (l->len > EXPR_MAX_LENGTH && expr_utf16_len(l->s, l->len) > EXPR_MAX_LENGTH)
        return expr_fail(l->err, 0, "Exceeded max expression length %d", EXPR_MAX_LENGTH);
    if (!expr_utf8_valid(l->s, l->len, &bad))
        return expr_fail(l->err, bad, "invalid UTF-8");
    while (l->i < l->len) {
        size_t start = l->i;
        char c = l->s[l->i++];
        int rc;

        switch (c) {
        case '(':
            rc = add(l, T_LPAREN, start, 0);
            break;
        case ')':
            rc = add(l, T_RPAREN, start, 0);
            break;
        case '[':
            rc = add(l, T_LBRACKET, start, 0);
            break;
        case ']':
            rc = add(l, T_RBRACKET, start, 0);
            break;
        case ',':
            rc = add(l, T_COMMA, start, 0);
            break;
        case '.': {
            int p = previous_type(l);

            if (p != T_IDENT && p != T_RBRACKET && p != T_RPAREN && p != T_STAR)
                rc = lex_number(l, start);
            else
                rc = add(l, T_DOT, start, 0);
            break;
        }
        case '-':
        case '+':
            rc = lex_number(l, start);
            break;
        case '!':
            rc = add(l, match_char(l, '=') ? T_NE : T_BANG, start, 0);
            break;
        case '<':
            rc = add(l, match_char(l, '=') ? T_LE : T_LT, start, 0);
            break;
        case '>':
            rc = add(l, match_char(l, '=') ? T_GE : T_GT, start, 0);
            break;
        case '=':
        case '&':
        case '|':
            /* A lone one reads on as an identifier, which then is illegal. */
            if (match_char(l, c))
                rc = add(l, c == '=' ? T_EQ : c == '&' ? T_AND : T_OR, start, 0);
            else
                rc = lex_identifier(l, start);
            break;
        case '*':
            rc = add(l, T_STAR, start, 0);
            break;
        case ' ':
        case '\r':
        case '\t':
        case '\n':
            rc = 0;
            break;
        case '\'':
            rc = lex_string(l, start);
            break;
        default:
            rc = c >= '0' && c <= '9' ? lex_number(l, start) : lex_identifier(l, start);
            break;
        }
        if (rc != 0)
            return -1;
    }
    l->i = l->len;
    return add(l, T_EOF, l->len, 0);
}

/* ---- parser ---- */

struct parser {
    const char *s;
    const struct token *t;
    size_t pos;
    unsigned depth;
    struct expr *e;
    struct expr_error *err;
    /* expr_check: what the place allows (NULL: every context and function GitHub has),
     * and where to say that a refused name is one GitHub has elsewhere. */
    const struct expr_names *names;
    bool *not_here;
};

enum error_kind {
    ERR_SYMBOL,
    ERR_END,
    ERR_DEPTH,
    ERR_CONTEXT,
    ERR_FUNCTION,
    ERR_FEW,
    ERR_MANY,
    ERR_EVEN,
};

static const char *const error_text[] = {
    [ERR_SYMBOL] = "Unexpected symbol",
    [ERR_END] = "Unexpected end of expression",
    [ERR_DEPTH] = "Exceeded max expression depth 50",
    [ERR_CONTEXT] = "Unrecognized named-value",
    [ERR_FUNCTION] = "Unrecognized function",
    [ERR_FEW] = "Too few parameters supplied",
    [ERR_MANY] = "Too many parameters supplied",
    [ERR_EVEN] = "Even number of parameters supplied, requires an odd number of parameters",
};

/* ExpressionError: the description and the token (EOF, or its text). */
static struct expr_node *error_at(struct parser *p, enum error_kind kind, const struct token *t)
{
    size_t n = t->end - t->start;

    if (t->type == T_EOF)
        expr_fail(p->err, t->start, "%s: 'EOF'", error_text[kind]);
    else
        expr_fail(p->err, t->start, "%s: '%.*s%s'", error_text[kind],
                  quoted_len(p->s + t->start, n), p->s + t->start, n > 100 ? "..." : "");
    return NULL;
}

static struct expr_node *no_memory(struct parser *p)
{
    expr_fail(p->err, p->t[p->pos].start, "out of memory");
    return NULL;
}

static const struct token *peek(const struct parser *p)
{
    return &p->t[p->pos];
}

static const struct token *previous(const struct parser *p)
{
    return &p->t[p->pos - 1];
}

static bool at_end(const struct parser *p)
{
    return p->t[p->pos].type == T_EOF;
}

static bool check(const struct parser *p, int type)
{
    return !at_end(p) && p->t[p->pos].type == type;
}

static bool match(struct parser *p, int type)
{
    if (!check(p, type))
        return false;
    p->pos++;
    return true;
}

static bool incr_depth(struct parser *p)
{
    if (++p->depth > EXPR_MAX_DEPTH) {
        error_at(p, ERR_DEPTH, peek(p));
        return false;
    }
    if (p->depth > p->e->max_depth)
        p->e->max_depth = p->depth;
    return true;
}

static struct expr_node *new_node(struct parser *p, int kind, size_t pos, uint32_t n)
{
    struct expr_node *node = expr_arena_alloc(&p->e->arena, sizeof(*node));

    if (!node)
        return NULL;
    memset(node, 0, sizeof(*node));
    node->kind = (uint8_t)kind;
    node->pos = pos;
    node->n = n;
    if (n && kind != EN_LIT && kind != EN_CTX) {
        node->u.kids = expr_arena_alloc(&p->e->arena, n * sizeof(*node->u.kids));
        if (!node->u.kids)
            return NULL;
    }
    return node;
}

/* A literal node holding `v` (taken; released with the expression). */
static struct expr_node *literal(struct parser *p, struct expr_value *v, size_t pos)
{
    struct expr_held *h = v ? expr_arena_alloc(&p->e->arena, sizeof(*h)) : NULL;
    struct expr_node *node;

    if (!h) {
        expr_unref(v);
        return no_memory(p);
    }
    h->v = v;
    h->next = p->e->held;
    p->e->held = h;
    node = new_node(p, EN_LIT, pos, 0);
    if (!node)
        return no_memory(p);
    node->u.lit = v;
    return node;
}

/* Operands gathered before they are copied into a node: the first LIST_INLINE in the
 * list itself (most runs are short; their mallocs were a sixth of a parse). */
#define LIST_INLINE 8

struct list {
    struct expr_node **items;
    uint8_t *ops;
    size_t n, cap;
    struct expr_node *inline_items[LIST_INLINE];
    uint8_t inline_ops[LIST_INLINE];
};

static void list_init(struct list *l)
{
    l->items = l->inline_items;
    l->ops = l->inline_ops;
    l->n = 0;
    l->cap = LIST_INLINE;
}

static int list_add(struct list *l, struct expr_node *item, uint8_t op)
{
    if (l->n == l->cap) {
        bool was_inline = l->items == l->inline_items;
        size_t cap = l->cap * 2;
        struct expr_node **items = realloc(was_inline ? NULL : l->items, cap * sizeof(*items));
        uint8_t *ops;

        if (!items)
            return -1;
        if (was_inline)
            memcpy(items, l->inline_items, sizeof(l->inline_items));
        l->items = items;
        ops = realloc(was_inline ? NULL : l->ops, cap);
        if (!ops)
            return -1;
        if (was_inline)
            memcpy(ops, l->inline_ops, sizeof(l->inline_ops));
        l->ops = ops;
        l->cap = cap;
    }
    l->items[l->n] = item;
    l->ops[l->n++] = op;
    return 0;
}

static void list_free(struct list *l)
{
    if (l->items != l->inline_items)
        free(l->items);
    if (l->ops != l->inline_ops)
        free(l->ops);
}

/* A node of `kind` over the gathered operands (ops[i] joins items[i - 1] and items[i]). */
static struct expr_node *from_list(struct parser *p, int kind, size_t pos, struct list *l)
{
    struct expr_node *node = new_node(p, kind, pos, (uint32_t)l->n);

    if (!node)
        return no_memory(p);
    if (l->n)
        memcpy(node->u.kids, l->items, l->n * sizeof(*l->items));
    if (kind == EN_CHAIN) {
        node->ops = expr_arena_alloc(&p->e->arena, l->n - 1);
        if (!node->ops)
            return no_memory(p);
        memcpy(node->ops, l->ops + 1, l->n - 1);
    }
    return node;
}

static struct expr_node *expression(struct parser *p);
static struct expr_node *unary(struct parser *p);

/* Property names and string literals met before, shared (a string value is never
 * changed): a workflow names the same few (`event_name`, `os`, 'push') in most of its
 * expressions, and a value of its own for each was a sixth of a parse. Direct-mapped,
 * texts of 1 to NAME_MAX_LEN bytes: the memory held stays bounded. One table a thread,
 * as expr_parse's trees. */
#define NAME_SLOTS 256
#define NAME_MAX_LEN 32

static _Thread_local struct expr_value **names_met; /* on the heap at the first name */

static struct expr_value *name_value(const char *s, size_t len)
{
    struct expr_value **slot, *v;

    if (len == 0 || len > NAME_MAX_LEN || (!names_met && !(names_met = calloc(NAME_SLOTS, sizeof(*names_met)))))
        return expr_string(s, len);
    slot = &names_met[(len * 31 + (unsigned char)s[0] * 7 + (unsigned char)s[len - 1]) & (NAME_SLOTS - 1)];
    if (*slot && (*slot)->u.str.len == len && memcmp((*slot)->u.str.s, s, len) == 0)
        return expr_ref(*slot);
    if ((v = expr_string(s, len))) {
        expr_unref(*slot);
        *slot = expr_ref(v);
    }
    return v;
}

static struct expr_node *string_literal(struct parser *p, const struct token *t)
{
    const char *s = p->s + t->start + 1;
    size_t len = t->end - t->start - 2, n = 0;
    char *text;
    struct expr_value *v;

    if (!memchr(s, '\'', len)) /* no '' to unescape */
        return literal(p, name_value(s, len), t->start);
    if (!(text = malloc(len + 1)))
        return no_memory(p);
    for (size_t i = 0; i < len; i++) {
        text[n++] = s[i];
        if (s[i] == '\'')
            i++; /* the second quote of '' */
    }
    v = expr_string(text, n);
    free(text);
    return literal(p, v, t->start);
}

static struct expr_node *primary(struct parser *p, bool *postfix)
{
    const struct token *t = peek(p);
    struct expr_node *e;

    switch (at_end(p) ? T_EOF : t->type) {
    case T_FALSE:
    case T_TRUE:
        p->pos++;
        return literal(p, expr_bool(t->type == T_TRUE), t->start);
    case T_NULL:
        p->pos++;
        return literal(p, expr_null(), t->start);
    case T_NUMBER:
        p->pos++;
        return literal(p, expr_number(t->num), t->start);
    case T_STRING:
        p->pos++;
        return string_literal(p, t);
    case T_LPAREN:
        p->pos++;
        e = expression(p);
        if (!e)
            return NULL;
        if (at_end(p))
            return error_at(p, ERR_END, previous(p));
        if (!match(p, T_RPAREN))
            return error_at(p, ERR_SYMBOL, peek(p));
        *postfix = true; /* a grouping may be indexed */
        return e;
    case T_EOF:
        return error_at(p, ERR_END, previous(p));
    default:
        return error_at(p, ERR_SYMBOL, t);
    }
}

static int find_function(const char *s, size_t len)
{
    for (size_t f = 0; f < sizeof(expr_fns) / sizeof(expr_fns[0]); f++) {
        const char *name = expr_fns[f].name;
        size_t i;

        if ((s[0] | 0x20) != (name[0] | 0x20)) /* a name's first letter, in either case */
            continue;
        for (i = 0; i < len && name[i]; i++) {
            char a = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
            char b = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] + 32) : name[i];

            if (a != b)
                break;
        }
        if (i == len && !name[len])
            return (int)f;
    }
    return -1;
}

static const char *find_context(const char *s, size_t len)
{
    char low[CONTEXT_ROW] = {0};

    if (len >= CONTEXT_ROW)
        return NULL;
    for (size_t i = 0; i < len; i++)
        low[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
    for (size_t c = 0; c < sizeof(contexts) / sizeof(contexts[0]); c++) {
        if (contexts[c][0] == low[0] && memcmp(contexts[c], low, CONTEXT_ROW) == 0)
            return contexts[c];
    }
    return NULL;
}

/* The bit of struct expr's `contexts` for a name of `contexts` (find_context's). */
static unsigned context_bit(const char *name)
{
    size_t c = 0;

    while (contexts[c] != name)
        c++;
    return 1u << c;
}

static bool same_word(const char *a, const char *b)
{
    for (;; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;

        if (x != y)
            return false;
        if (!x)
            return true;
    }
}

static bool names_context(const struct expr_names *names, const char *name)
{
    for (size_t i = 0; i < names->n_contexts; i++) {
        if (same_word(names->contexts[i], name))
            return true;
    }
    return false;
}

/* GitHub's parser keeps the last entry of a name (a Map set in list order). */
static bool names_function(const struct expr_names *names, const char *name, unsigned *min,
                           unsigned *max)
{
    bool found = false;

    for (size_t i = 0; i < names->n_functions; i++) {
        if (same_word(names->functions[i].name, name)) {
            *min = names->functions[i].min;
            *max = names->functions[i].max;
            found = true;
        }
    }
    return found;
}

/* Notes a call of `fn` (past EF_CASE) with `n` arguments in e's placed functions. */
static void note_placed(struct expr *e, unsigned fn, uint32_t n)
{
    unsigned k = fn - EF_HASHFILES;
    uint32_t *range = e->placed_args[k];

    if (!(e->placed >> k & 1) || n < range[0])
        range[0] = n;
    if (!(e->placed >> k & 1) || n > range[1])
        range[1] = n;
    e->placed |= 1u << k;
}

static struct expr_node *call(struct parser *p, bool *postfix)
{
    const struct token *id;
    struct expr_node *node = NULL;
    struct list args;
    const char *name;
    int fn;
    unsigned min, max;

    if (!check(p, T_IDENT))
        return primary(p, postfix);
    id = &p->t[p->pos++];
    *postfix = true;
    if (!match(p, T_LPAREN)) {
        name = find_context(p->s + id->start, id->end - id->start);
        if (name && p->names && !names_context(p->names, name)) {
            *p->not_here = true;
            name = NULL;
        }
        if (!name)
            return error_at(p, ERR_CONTEXT, id);
        node = new_node(p, EN_CTX, id->start, 0);
        if (!node)
            return no_memory(p);
        node->u.name = name;
        p->e->contexts |= context_bit(name);
        return node;
    }
    list_init(&args);
    while (!match(p, T_RPAREN)) {
        struct expr_node *arg = expression(p);

        if (!arg)
            goto done;
        if (list_add(&args, arg, 0) != 0) {
            no_memory(p);
            goto done;
        }
        if (!check(p, T_RPAREN) && !match(p, T_COMMA)) {
            error_at(p, ERR_SYMBOL, peek(p));
            goto done;
        }
    }
    fn = find_function(p->s + id->start, id->end - id->start);
    min = fn < 0 ? 0 : expr_fns[fn].min;
    max = fn < 0 ? 0 : expr_fns[fn].max;
    /* Past the built-in ones (contains ... case), a function is the place's to allow,
     * with its argument counts (`failure(0,MAX)` in a job's if:). */
    if (fn > EF_CASE && p->names && !names_function(p->names, expr_fns[fn].name, &min, &max)) {
        *p->not_here = true;
        fn = -1;
    }
    if (fn < 0) {
        error_at(p, ERR_FUNCTION, id);
    } else if (args.n < min) {
        error_at(p, ERR_FEW, id);
    } else if (args.n > max) {
        error_at(p, ERR_MANY, id);
    } else if (fn == EF_CASE && args.n % 2 == 0) {
        error_at(p, ERR_EVEN, id);
    } else {
        node = from_list(p, EN_CALL, id->start, &args);
        if (node) {
            node->fn = (uint8_t)fn;
            if (expr_fn_is_status((unsigned)fn))
                p->e->has_status = true;
            if (fn > EF_CASE)
                note_placed(p->e, (unsigned)fn, (uint32_t)args.n);
        }
    }
done:
    list_free(&args);
    return node;
}

static struct expr_node *property(struct parser *p, const struct token *t)
{
    return literal(p, name_value(p->s + t->start, t->end - t->start), t->start);
}

static struct expr_node *index_access(struct parser *p)
{
    bool postfix = false;
    struct expr_node *e = call(p, &postfix);
    unsigned raised = 0;

    while (e && postfix) {
        const struct token *t = peek(p);
        struct expr_node *idx = NULL, *node;

        if (match(p, T_LBRACKET)) {
            if (!match(p, T_STAR)) {
                idx = expression(p);
                if (!idx)
                    return NULL;
            }
            if (!match(p, T_RBRACKET))
                return error_at(p, ERR_SYMBOL, peek(p));
            if (!incr_depth(p))
                return NULL;
            raised++;
        } else if (match(p, T_DOT)) {
            if (!incr_depth(p))
                return NULL;
            raised++;
            if (match(p, T_IDENT)) {
                idx = property(p, previous(p));
                if (!idx)
                    return NULL;
            } else if (!match(p, T_STAR)) {
                return error_at(p, ERR_SYMBOL, peek(p));
            }
        } else {
            break;
        }
        node = new_node(p, EN_INDEX, t->start, 2);
        if (!node)
            return no_memory(p);
        node->u.kids[0] = e;
        node->u.kids[1] = idx;
        e = node;
    }
    p->depth -= raised;
    return e;
}

static struct expr_node *unary(struct parser *p)
{
    const struct token *t = peek(p);
    struct expr_node *operand, *node;

    if (!match(p, T_BANG))
        return index_access(p);
    if (!incr_depth(p) || !(operand = unary(p)))
        return NULL;
    p->depth--;
    node = new_node(p, EN_NOT, t->start, 1);
    if (!node)
        return no_memory(p);
    node->u.kids[0] = operand;
    return node;
}

/* The operator of a chain's level at the next token (EOP_EQ ...), or -1. */
static int chain_op(const struct parser *p, bool equality)
{
    int type = at_end(p) ? T_EOF : peek(p)->type;

    if (equality && (type == T_EQ || type == T_NE))
        return type == T_EQ ? EOP_EQ : EOP_NE;
    if (!equality && (type == T_GT || type == T_GE || type == T_LT || type == T_LE))
        return type == T_GT ? EOP_GT : type == T_GE ? EOP_GE : type == T_LT ? EOP_LT : EOP_LE;
    return -1;
}

static struct expr_node *chain(struct parser *p, bool equality);

/* The run after `first`, an operator of its level next: apart from chain, whose operands
 * mostly stand alone (the list's frame, set up for each, was a tenth of a parse). */
static __attribute__((noinline)) struct expr_node *chain_run(struct parser *p, bool equality,
                                                            struct expr_node *first)
{
    struct expr_node *node = first;
    struct list l;
    int op;

    list_init(&l);
    while ((op = chain_op(p, equality)) >= 0) {
        struct expr_node *right;

        p->pos++;
        if (l.n == 0 && list_add(&l, first, 0) != 0)
            goto oom;
        right = equality ? chain(p, false) : unary(p);
        if (!right) {
            node = NULL;
            goto done;
        }
        if (list_add(&l, right, (uint8_t)op) != 0)
            goto oom;
    }
    node = from_list(p, EN_CHAIN, first->pos, &l);
done:
    list_free(&l);
    return node;
oom:
    list_free(&l);
    return no_memory(p);
}

/* A left-to-right run of binary operators of one precedence level. */
static struct expr_node *chain(struct parser *p, bool equality)
{
    struct expr_node *first = equality ? chain(p, false) : unary(p);

    if (!first || chain_op(p, equality) < 0)
        return first;
    return chain_run(p, equality, first);
}

static struct expr_node *logical(struct parser *p, bool or);

/* The run after `first`, its operator next: apart from logical, as chain_run is. */
static __attribute__((noinline)) struct expr_node *logical_run(struct parser *p, bool or,
                                                              struct expr_node *first)
{
    int type = or ? T_OR : T_AND;
    struct expr_node *node = first;
    struct list l;

    list_init(&l);
    if (!incr_depth(p))
        return NULL;
    if (list_add(&l, first, 0) != 0)
        goto oom;
    while (match(p, type)) {
        struct expr_node *next = or ? logical(p, false) : chain(p, true);

        if (!next) {
            node = NULL;
            goto done;
        }
        if (list_add(&l, next, 0) != 0)
            goto oom;
    }
    p->depth--;
    node = from_list(p, or ? EN_OR : EN_AND, first->pos, &l);
done:
    list_free(&l);
    return node;
oom:
    list_free(&l);
    return no_memory(p);
}

/* a && b && ... (and) or a || b || ... (or); the package raises the depth once for the
 * run, while it parses the operands after the first. */
static struct expr_node *logical(struct parser *p, bool or)
{
    struct expr_node *first = or ? logical(p, false) : chain(p, true);

    if (!first || !check(p, or ? T_OR : T_AND))
        return first;
    return logical_run(p, or, first);
}

static struct expr_node *expression(struct parser *p)
{
    struct expr_node *e;

    if (!incr_depth(p))
        return NULL;
    e = logical(p, true);
    p->depth--;
    return e;
}

static struct expr *parse(const char *text, size_t len, const struct expr_names *names,
                          bool *not_here, struct expr_error *err)
{
    struct lexer l; /* its inline tokens are not cleared: add() writes each */
    struct parser p = {text, NULL, 0, 0, NULL, err, names, not_here};
    struct expr *e = NULL;
    /* A tree lives on in expr_parse's table: its first chunk as small as its text
     * allows (a node per character or two, about 48 bytes each), and the tree itself
     * in it (a calloc and a free fewer). */
    size_t first = sizeof(*e) + 32 * len + 64;
    struct expr_arena arena = {.chunk = first < EXPR_CHUNK ? first : EXPR_CHUNK};

    l.s = text;
    l.len = len;
    l.i = l.n = 0;
    l.t = l.inline_t;
    l.cap = LEX_INLINE;
    l.err = err;
    if (lex(&l) != 0)
        goto fail;
    e = expr_arena_alloc(&arena, sizeof(*e));
    if (!e) {
        expr_fail(err, 0, "out of memory");
        goto fail;
    }
    memset(e, 0, sizeof(*e));
    e->arena = arena;
    p.t = l.t;
    p.e = e;
    if (at_end(&p)) {
        expr_fail(err, 0, "An expression was expected");
        goto fail;
    }
    e->root = expression(&p);
    if (!e->root)
        goto fail;
    if (!at_end(&p)) {
        error_at(&p, ERR_SYMBOL, peek(&p));
        goto fail;
    }
    lexer_free(&l);
    return e;
fail:
    lexer_free(&l);
    expr_free(e);
    return NULL;
}

/* Trees already parsed, by their text. A workflow's expressions are parsed again and
 * again (by substitution in every matrix configuration, the check that GitHub reads a
 * residual, the reference check): SGLang's six workflows parsed 187 texts 1,767 times.
 * A tree is a function of its text alone and evaluation does not change it, so one is
 * shared. Two ways a set, the one used last first (direct-mapped, texts that took each
 * other's slot were parsed again), and texts of at most
 * PARSED_MAX_TEXT bytes: the memory held stays bounded whatever the input. One a
 * thread: the trees' share counts are not atomic. */
#define PARSED_SLOTS 1024 /* in sets of two */
#define PARSED_MAX_TEXT 1024

struct parsed {
    char *text;
    size_t len;
    struct expr *e;
};

static _Thread_local struct parsed *parsed; /* on the heap at the first parse (expr_template.c's memos say why) */

struct expr *expr_parse_new(const char *text, size_t len, struct expr_error *err)
{
    return parse(text, len, NULL, NULL, err);
}

struct expr *expr_parse(const char *text, size_t len, struct expr_error *err)
{
    struct parsed *set, found;
    struct expr *e;
    char *copy;

    if (!parsed && !(parsed = calloc(PARSED_SLOTS, sizeof(*parsed))))
        return parse(text, len, NULL, NULL, err); /* shared by none */
    set = &parsed[strhash_words(text, len) & (PARSED_SLOTS - 2)];
    for (int w = 0; w < 2; w++) {
        if (set[w].e && set[w].len == len && memcmp(set[w].text, text, len) == 0) {
            found = set[w];
            set[w] = set[0];
            set[0] = found;
            found.e->shared++;
            return found.e;
        }
    }
    /* the text kept in the tree's arena, freed with it */
    if (!(e = parse(text, len, NULL, NULL, err)) || len > PARSED_MAX_TEXT ||
        !(copy = expr_arena_alloc(&e->arena, len)))
        return e;
    memcpy(copy, text, len);
    expr_free(set[1].e); /* the one used less lately */
    set[1] = set[0];
    set[0] = (struct parsed){copy, len, e};
    e->shared++;
    return e;
}

/* Whether the parser given `names` would take the tree expr_parse made: each context it
 * names (its `contexts` bits), each function past the built-in ones it calls, with the
 * argument counts of its calls in the place's range (call() checks the same while it
 * parses). One look-up a name, not one a node: walking the tree was half of a check. */
static bool allowed(const struct expr *e, const struct expr_names *names)
{
    unsigned min, max;

    for (size_t c = 0; c < sizeof(contexts) / sizeof(contexts[0]); c++) {
        if ((e->contexts >> c & 1) && !names_context(names, contexts[c]))
            return false;
    }
    for (unsigned k = 0; k <= EF_FAILURE - EF_HASHFILES; k++) {
        if ((e->placed >> k & 1) &&
            (!names_function(names, expr_fns[EF_HASHFILES + k].name, &min, &max) ||
             e->placed_args[k][0] < min || e->placed_args[k][1] > max))
            return false;
    }
    return true;
}

/* A place's parse: the shared tree of expr_parse when `names` allows all it names (the
 * same tree the parser given `names` makes; a workflow's texts are checked again in
 * every place and configuration), else the parse given `names`, for its error. */
static struct expr *parse_named(const char *text, size_t len, const struct expr_names *names, bool *not_here,
                                struct expr_error *err)
{
    struct expr *e = expr_parse(text, len, NULL);

    *not_here = false;
    if (e && allowed(e, names))
        return e;
    expr_free(e);
    return parse(text, len, names, not_here, err);
}

int expr_check(const char *text, size_t len, const struct expr_names *names, bool *not_here,
               struct expr_error *err)
{
    struct expr *e = parse_named(text, len, names, not_here, err);

    expr_free(e);
    return e ? 0 : -1;
}

struct expr *expr_parse_in(const char *text, size_t len, const struct expr_names *names,
                           struct expr_error *err)
{
    bool not_here;

    return parse_named(text, len, names, &not_here, err);
}

void expr_free(struct expr *e)
{
    struct expr_arena arena;

    if (!e)
        return;
    if (e->shared) {
        e->shared--;
        return;
    }
    for (struct expr_held *h = e->held; h; h = h->next)
        expr_unref(h->v);
    free(e->kept);
    arena = e->arena; /* e is in it */
    expr_arena_free(&arena);
}

bool expr_uses_context(const struct expr *e, const char *name)
{
    const char *known = e ? find_context(name, strlen(name)) : NULL;

    return known && (e->contexts & context_bit(known));
}

bool expr_calls_status(const struct expr *e)
{
    return e && e->has_status;
}

static int walk_paths(const struct expr_node *n, expr_path_fn fn, void *user);

/* The path read through the index node `n` (`ctx.a['b'].c`): the properties named by
 * literal strings from the context up, as far as they are; then the indexes computed
 * inside it (`matrix[inputs.k]`), and what a chain starts from when it is no context
 * (`fromJSON(x).a`), walked as expressions of their own. */
static int walk_index(const struct expr_node *n, expr_path_fn fn, void *user)
{
    const struct expr_node *chain[EXPR_MAX_DEPTH + 2];
    size_t depth = 0;
    struct expr_path path = {0};
    bool named = true;
    int rc;

    /* The parser's depth limit bounds a chain of postfix indexes. */
    for (; n->kind == EN_INDEX && depth < EXPR_MAX_DEPTH + 2; n = n->u.kids[0])
        chain[depth++] = n;
    if (n->kind == EN_CTX) {
        path.context = n->u.name;
        path.offset = n->pos;
        for (size_t i = depth; i-- > 0 && named && path.n < EXPR_PATH_MAX;) {
            const struct expr_node *idx = chain[i]->u.kids[1];
            struct expr_path_part *part = &path.props[path.n];

            named = idx && idx->kind == EN_LIT && expr_kind_of(idx->u.lit) == EXPR_STRING;
            if (named) {
                part->name = expr_string_value(idx->u.lit, &part->len);
                path.n++;
            }
        }
        if ((rc = fn(user, &path)) != 0)
            return rc;
    } else if ((rc = walk_paths(n, fn, user)) != 0) {
        return rc;
    }
    while (depth-- > 0) {
        if ((rc = walk_paths(chain[depth]->u.kids[1], fn, user)) != 0)
            return rc;
    }
    return 0;
}

static int walk_paths(const struct expr_node *n, expr_path_fn fn, void *user)
{
    int rc = 0;

    if (!n || n->kind == EN_LIT)
        return 0;
    if (n->kind == EN_INDEX || n->kind == EN_CTX)
        return walk_index(n, fn, user);
    for (uint32_t i = 0; i < n->n && rc == 0; i++)
        rc = walk_paths(n->u.kids[i], fn, user);
    return rc;
}

int expr_each_path(const struct expr *e, expr_path_fn fn, void *user)
{
    return e ? walk_paths(e->root, fn, user) : 0;
}
