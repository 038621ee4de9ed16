/* glob_picomatch: picomatch 2.3.1's makeRe (lib/picomatch.js, lib/parse.js) for the
 * options dorny/paths-filter passes, { dot: true } on a POSIX platform, written step by
 * step after the JavaScript so that the regular expression is the one picomatch builds:
 * its quirks are behaviour (a token whose output is null prints as "null", slice(0, -0)
 * empties the output). The options it never sets (bash, capture, nobrace, ...) are left
 * out. A pattern is handled a byte at a time where picomatch handles a UTF-16 unit:
 * only ASCII characters are special to it, and other text is copied whole. */
#include "glob_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"

#define MAX_LENGTH 65536 /* constants.js MAX_LENGTH; the length is in UTF-16 units */

/* constants.js, POSIX_CHARS */
#define DOT_LITERAL "\\."
#define PLUS_LITERAL "\\+"
#define SLASH_LITERAL "\\/"
#define ONE_CHAR "(?=.)"
#define QMARK "[^/]"
#define END_ANCHOR "(?:" SLASH_LITERAL "|$)"
#define START_ANCHOR "(?:^|" SLASH_LITERAL ")"
#define DOTS_SLASH DOT_LITERAL "{1,2}" END_ANCHOR
#define NO_DOTS "(?!" START_ANCHOR DOTS_SLASH ")"
#define NO_DOT_SLASH "(?!" DOT_LITERAL "{0,1}" END_ANCHOR ")"
#define NO_DOTS_SLASH "(?!" DOTS_SLASH ")"
#define STAR QMARK "*?"
/* parse.js globstar(opts) with opts.dot */
#define GLOBSTAR "(?:(?:(?!" START_ANCHOR DOTS_SLASH ").)*?)"

enum ptype {
    P_BOS, P_TEXT, P_PAREN, P_BRACKET, P_BRACE, P_COMMA, P_SLASH, P_DOT, P_DOTS,
    P_QMARK, P_NEGATE, P_PLUS, P_AT, P_STAR, P_GLOBSTAR, P_MAYBE_SLASH
};

struct ptok {
    enum ptype type;
    struct strbuf value, output;
    bool has_output; /* output != null */
    bool star, posix, extglob, comma, dots;
    int prev;
    size_t output_index, tokens_index; /* a brace's */
};

struct pext { /* an open extglob (EXTGLOB_CHARS entry) */
    enum ptype type;
    struct strbuf close, inner;
    int prev, parens;
};

struct pstate {
    const char *in;
    size_t len;
    long index;
    size_t start;
    struct strbuf output;
    bool backtrack, negated, oom;
    int brackets, braces, parens, quotes;
    struct ptok *toks; /* every token made (prev links stay valid) */
    size_t ntoks, captoks;
    int *list; /* state.tokens */
    size_t nlist, caplist;
    char *stack; /* increment/decrement's type stack: '[', '{', '(' */
    size_t nstack, capstack;
    struct pext *ext; /* the open extglobs */
    size_t next, capext;
    int *bracestk; /* the open braces' tokens */
    size_t nbraces, capbraces;
    int prev;
};

static const struct {
    const char *name, *source;
} posix_classes[] = { /* constants.js POSIX_REGEX_SOURCE */
    {"alnum", "a-zA-Z0-9"}, {"alpha", "a-zA-Z"}, {"ascii", "\\x00-\\x7F"},
    {"blank", " \\t"}, {"cntrl", "\\x00-\\x1F\\x7F"}, {"digit", "0-9"},
    {"graph", "\\x21-\\x7E"}, {"lower", "a-z"}, {"print", "\\x20-\\x7E "},
    {"punct", "\\-!\"#$%&'()\\*+,./:;<=>?@[\\]^_`{|}~"}, {"space", " \\t\\r\\n\\v\\f"},
    {"upper", "A-Z"}, {"word", "A-Za-z0-9_"}, {"xdigit", "A-Fa-f0-9"},
};

static char peek(const struct pstate *st, long n)
{
    long i = st->index + n;
    return i >= 0 && (size_t)i < st->len ? st->in[i] : '\0';
}

static char advance(struct pstate *st)
{
    st->index++;
    return (size_t)st->index < st->len ? st->in[st->index] : '\0';
}

static const char *remaining(const struct pstate *st)
{
    return st->in + st->index + 1;
}

static size_t remaining_len(const struct pstate *st)
{
    return st->len - (size_t)(st->index + 1);
}

static bool eos(const struct pstate *st)
{
    return st->index == (long)st->len - 1;
}

static struct ptok *tok(struct pstate *st, int i)
{
    return &st->toks[i];
}

/* JavaScript's s.slice(0, -n): n == 0 keeps nothing. */
static void slice_neg(struct strbuf *b, size_t n)
{
    strbuf_cut(b, n == 0 || n > b->len ? 0 : b->len - n);
}

/* token.output != null ? token.output : token.value */
static const struct strbuf *shown(const struct ptok *t)
{
    return t->has_output ? &t->output : &t->value;
}

/* prev.output += s, where a null output prints as "null" */
static void output_add(struct ptok *t, const char *s)
{
    if (!t->has_output) {
        strbuf_puts(&t->output, "null");
        t->has_output = true;
    }
    strbuf_puts(&t->output, s);
}

static void set_buf(struct strbuf *b, const char *s, size_t n)
{
    strbuf_cut(b, 0);
    strbuf_put(b, s, n);
}

/* A new token (not yet pushed): its index. */
static int new_tok(struct pstate *st, enum ptype type, const char *value, size_t vlen,
                   const char *output)
{
    struct ptok *toks = array_grow(st->toks, &st->captoks, st->ntoks + 1, 16, sizeof(*toks));
    if (!toks) {
        st->oom = true;
        return -1;
    }
    st->toks = toks;
    struct ptok *t = &st->toks[st->ntoks];
    memset(t, 0, sizeof(*t));
    t->type = type;
    t->prev = -1;
    strbuf_put(&t->value, value, vlen);
    if (output) {
        t->has_output = true;
        strbuf_puts(&t->output, output);
    }
    return (int)st->ntoks++;
}

static void list_push(struct pstate *st, int t)
{
    int *list = array_grow(st->list, &st->caplist, st->nlist + 1, 16, sizeof(*list));
    if (!list) {
        st->oom = true;
        return;
    }
    st->list = list;
    st->list[st->nlist++] = t;
}

static void increment(struct pstate *st, int *counter, char type)
{
    (*counter)++;
    char *stack = array_grow(st->stack, &st->capstack, st->nstack + 1, 16, 1);
    if (!stack) {
        st->oom = true;
        return;
    }
    st->stack = stack;
    st->stack[st->nstack++] = type;
}

static void decrement(struct pstate *st, int *counter)
{
    (*counter)--;
    if (st->nstack)
        st->nstack--;
}

static void append(struct pstate *st, const struct ptok *t)
{
    const struct strbuf *s = shown(t);
    strbuf_put(&st->output, s->s, s->len);
}

static void push(struct pstate *st, int ti)
{
    if (ti < 0)
        return;
    struct ptok *prev = tok(st, st->prev), *t = tok(st, ti);

    if (prev->type == P_GLOBSTAR) {
        bool is_brace = st->braces > 0 && (t->type == P_COMMA || t->type == P_BRACE);
        bool is_extglob = t->extglob || (st->next && t->type == P_PAREN);
        if (t->type != P_SLASH && t->type != P_PAREN && !is_brace && !is_extglob) {
            slice_neg(&st->output, shown(prev)->len);
            prev->type = P_STAR;
            set_buf(&prev->value, "*", 1);
            set_buf(&prev->output, STAR, strlen(STAR));
            prev->has_output = true;
            strbuf_puts(&st->output, STAR);
        }
    }
    if (st->next && t->type != P_PAREN)
        strbuf_put(&st->ext[st->next - 1].inner, t->value.s, t->value.len);
    if (t->value.len || (t->has_output && t->output.len))
        append(st, t);
    if (prev->type == P_TEXT && t->type == P_TEXT) {
        /* prev.output = (prev.output || '') + tok.value */
        if (!prev->has_output) {
            strbuf_cut(&prev->output, 0);
            prev->has_output = true;
        }
        strbuf_put(&prev->value, t->value.s, t->value.len);
        strbuf_put(&prev->output, t->value.s, t->value.len);
        return;
    }
    t->prev = st->prev;
    list_push(st, ti);
    st->prev = ti;
}

static void push_new(struct pstate *st, enum ptype type, const char *value, size_t vlen,
                     const char *output)
{
    push(st, new_tok(st, type, value, vlen, output));
}

/* utils.escapeRegex */
static void escape_regex(struct strbuf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strchr("-*+?.^${}(|)[]", s[i]) && s[i])
            strbuf_putc(out, '\\');
        strbuf_putc(out, s[i]);
    }
}

/* utils.hasRegexChars */
static bool has_regex_chars(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] && strchr("-*+?.^${}(|)[]", s[i]))
            return true;
    }
    return false;
}

static bool contains(const char *s, size_t n, char c)
{
    return n && memchr(s, c, n) != NULL;
}

/* utils.escapeLast: a backslash before the last `c` not already escaped */
static void escape_last(struct strbuf *b, char c)
{
    long from = (long)b->len - 1, idx;

    if (!b->len)
        return;
    for (;;) {
        for (idx = from < 0 ? 0 : from; idx >= 0 && b->s[idx] != c; idx--)
            ;
        if (idx < 0)
            return;
        if (idx == 0 || b->s[idx - 1] != '\\')
            break;
        from = idx - 1;
    }
    struct strbuf t = {0};
    strbuf_put(&t, b->s, (size_t)idx);
    strbuf_putc(&t, '\\');
    strbuf_put(&t, b->s + idx, b->len - (size_t)idx);
    if (t.oom)
        b->oom = true;
    strbuf_free(b);
    *b = t;
}

static const char *ext_open(enum ptype type)
{
    return type == P_NEGATE ? "(?:(?!(?:" : "(?:";
}

static const char *ext_close(enum ptype type)
{
    switch (type) {
    case P_NEGATE:
        return "))" STAR ")";
    case P_QMARK:
        return ")?";
    case P_PLUS:
        return ")+";
    default:
        return ")*";
    }
}

static void extglob_open(struct pstate *st, enum ptype type, char value)
{
    struct pext *ext = array_grow(st->ext, &st->capext, st->next + 1, 16, sizeof(*ext));
    if (!ext) {
        st->oom = true;
        return;
    }
    st->ext = ext;
    struct pext e = {.type = type, .prev = st->prev, .parens = st->parens};
    strbuf_puts(&e.close, ext_close(type));
    increment(st, &st->parens, '(');
    push_new(st, type, &value, 1, st->output.len ? "" : ONE_CHAR);
    char paren = advance(st);
    int t = new_tok(st, P_PAREN, &paren, paren ? 1 : 0, ext_open(type));
    if (t >= 0)
        tok(st, t)->extglob = true;
    push(st, t);
    st->ext[st->next++] = e;
}

static bool only_close_parens(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != ')')
            return false;
    }
    return true;
}

/* /^\.[^\\/.]+$/ */
static bool dot_extension(const char *s, size_t n)
{
    if (n < 2 || s[0] != '.')
        return false;
    for (size_t i = 1; i < n; i++) {
        if (s[i] == '\\' || s[i] == '/' || s[i] == '.' || s[i] == '\n' || s[i] == '\r')
            return false;
    }
    return true;
}

static bool parse(const char *input, size_t len, bool fastpaths, struct strbuf *out,
                  bool *negated, struct glob_error *err);

static void extglob_close(struct pstate *st, struct pext *e)
{
    struct strbuf *output = &e->close;

    if (e->type == P_NEGATE) {
        /* a negated extglob with a slash inside spans folders */
        bool spans = e->inner.len > 1 && contains(e->inner.s, e->inner.len, '/');
        const char *extglob_star = spans ? GLOBSTAR : STAR;
        if (spans || eos(st) ||
            only_close_parens(remaining(st), remaining_len(st))) {
            strbuf_cut(output, 0);
            strbuf_puts(output, ")$))");
            strbuf_puts(output, extglob_star);
        }
        if (contains(e->inner.s, e->inner.len, '*') && remaining_len(st) &&
            dot_extension(remaining(st), remaining_len(st))) {
            struct strbuf expr = {0};
            bool neg;
            struct glob_error ignored;
            if (!parse(remaining(st), remaining_len(st), false, &expr, &neg, &ignored))
                st->oom = true;
            strbuf_cut(output, 0);
            strbuf_putc(output, ')');
            strbuf_put(output, expr.s, expr.len);
            strbuf_putc(output, ')');
            strbuf_puts(output, extglob_star);
            strbuf_putc(output, ')');
            strbuf_free(&expr);
        }
    }
    if (output->oom)
        st->oom = true;
    int t = new_tok(st, P_PAREN, ")", 1, output->s ? output->s : "");
    if (t >= 0)
        tok(st, t)->extglob = true;
    push(st, t);
    decrement(st, &st->parens);
}

/* parse.js's negate() */
static bool negate(struct pstate *st)
{
    int count = 1;
    while (peek(st, 1) == '!' && (peek(st, 2) != '(' || peek(st, 3) == '?')) {
        advance(st);
        st->start++;
        count++;
    }
    if (count % 2 == 0)
        return false;
    st->negated = true;
    st->start++;
    return true;
}

/* expandRange: the sorted values joined into a class when `new RegExp` takes it. */
static int str_cmp(const void *a, const void *b)
{
    const struct strbuf *x = *(const struct strbuf *const *)a, *y = *(const struct strbuf *const *)b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static void expand_range(struct pstate *st, const struct strbuf **args, size_t n, struct strbuf *out)
{
    qsort(args, n, sizeof(*args), str_cmp);
    strbuf_putc(out, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            strbuf_putc(out, '-');
        strbuf_put(out, args[i]->s, args[i]->len);
    }
    strbuf_putc(out, ']');
    if (out->oom) {
        st->oom = true;
        return;
    }
    if (glob_js_regex_valid(out->s, out->len))
        return;
    strbuf_cut(out, 0);
    for (size_t i = 0; i < n; i++) {
        if (i)
            strbuf_puts(out, "..");
        escape_regex(out, args[i]->s, args[i]->len);
    }
}

static void close_brace(struct pstate *st)
{
    int bi = st->bracestk[st->nbraces - 1];
    struct strbuf output = {0}, value = {0};

    strbuf_putc(&value, '}');
    strbuf_putc(&output, ')');
    if (tok(st, bi)->dots) {
        const struct strbuf **range = malloc((st->nlist + 1) * sizeof(*range));
        size_t nr = 0;
        if (!range) {
            st->oom = true;
            return;
        }
        for (size_t i = st->nlist; i-- > 0;) {
            struct ptok *t = tok(st, st->list[i]);
            st->nlist--;
            if (t->type == P_BRACE)
                break;
            if (t->type != P_DOTS)
                range[nr++] = &t->value;
        }
        for (size_t i = 0; i < nr / 2; i++) { /* unshift: back into order */
            const struct strbuf *x = range[i];
            range[i] = range[nr - 1 - i];
            range[nr - 1 - i] = x;
        }
        strbuf_cut(&output, 0);
        expand_range(st, range, nr, &output);
        free(range);
        st->backtrack = true;
    }
    struct ptok *brace = tok(st, bi);
    if (!brace->comma && !brace->dots) {
        strbuf_cut(&st->output, brace->output_index);
        set_buf(&brace->value, "\\{", 2);
        set_buf(&brace->output, "\\{", 2);
        brace->has_output = true;
        set_buf(&value, "\\}", 2);
        set_buf(&output, "\\}", 2);
        for (size_t i = brace->tokens_index; i < st->nlist; i++) {
            const struct ptok *t = tok(st, st->list[i]);
            const struct strbuf *s = t->has_output && t->output.len ? &t->output : &t->value;
            strbuf_put(&st->output, s->s, s->len);
        }
    }
    if (output.oom || value.oom)
        st->oom = true;
    int t = new_tok(st, P_BRACE, value.s ? value.s : "", value.len, output.s ? output.s : "");
    push(st, t);
    decrement(st, &st->braces);
    st->nbraces--;
    strbuf_free(&output);
    strbuf_free(&value);
}

/* The stars branch of parse.js's loop. */
/* A `**` after a slash that is not the first token, both branches of parse.js's: its
 * text taken back off the output, the slash opening a group `(?:/` that the globstar
 * closes. */
static void globstar_after_slash(struct pstate *st, struct ptok *prior, struct ptok *prev)
{
    slice_neg(&st->output, shown(prior)->len + shown(prev)->len);
    struct strbuf po = {0};
    strbuf_puts(&po, "(?:");
    strbuf_put(&po, shown(prior)->s, shown(prior)->len);
    strbuf_free(&prior->output);
    prior->output = po;
    prior->has_output = true;
    prev->type = P_GLOBSTAR;
}

static void star(struct pstate *st)
{
    struct ptok *prev = tok(st, st->prev);

    if (prev->type == P_GLOBSTAR || prev->star) {
        prev->type = P_STAR;
        prev->star = true;
        strbuf_putc(&prev->value, '*');
        set_buf(&prev->output, STAR, strlen(STAR));
        prev->has_output = true;
        st->backtrack = true;
        return;
    }
    const char *rest = remaining(st);
    size_t rest_len = remaining_len(st);
    if (rest_len >= 2 && rest[0] == '(' && rest[1] != '?') {
        extglob_open(st, P_STAR, '*');
        return;
    }
    if (prev->type == P_STAR) {
        struct ptok *prior = tok(st, prev->prev);
        struct ptok *before = prior->prev >= 0 ? tok(st, prior->prev) : NULL;
        bool is_start = prior->type == P_SLASH || prior->type == P_BOS;
        bool after_star = before && (before->type == P_STAR || before->type == P_GLOBSTAR);
        bool is_brace = st->braces > 0 && (prior->type == P_COMMA || prior->type == P_BRACE);
        bool is_extglob = st->next && prior->type == P_PAREN;

        if (!is_start && prior->type != P_PAREN && !is_brace && !is_extglob) {
            push_new(st, P_STAR, "*", 1, "");
            return;
        }
        while (rest_len >= 3 && !memcmp(rest, "/**", 3)) {
            char after = peek(st, 4);
            if (after && after != '/')
                break;
            rest += 3;
            rest_len -= 3;
            st->index += 3;
        }
        /* prior.prev.type: the token before a slash always exists */
        bool prior_after_bos = prior->prev >= 0 && tok(st, prior->prev)->type == P_BOS;
        if (prior->type == P_BOS && eos(st)) {
            prev->type = P_GLOBSTAR;
            strbuf_putc(&prev->value, '*');
            set_buf(&prev->output, GLOBSTAR, strlen(GLOBSTAR));
            prev->has_output = true;
            set_buf(&st->output, GLOBSTAR, strlen(GLOBSTAR));
            return;
        }
        if (prior->type == P_SLASH && !prior_after_bos && !after_star && eos(st)) {
            globstar_after_slash(st, prior, prev);
            set_buf(&prev->output, GLOBSTAR "|$)", strlen(GLOBSTAR "|$)"));
            prev->has_output = true;
            strbuf_putc(&prev->value, '*');
            strbuf_put(&st->output, prior->output.s, prior->output.len);
            strbuf_put(&st->output, prev->output.s, prev->output.len);
            return;
        }
        if (prior->type == P_SLASH && !prior_after_bos && rest_len && rest[0] == '/') {
            const char *end = rest_len > 1 ? "|$" : "";
            globstar_after_slash(st, prior, prev);
            strbuf_cut(&prev->output, 0);
            strbuf_puts(&prev->output, GLOBSTAR SLASH_LITERAL "|" SLASH_LITERAL);
            strbuf_puts(&prev->output, end);
            strbuf_putc(&prev->output, ')');
            prev->has_output = true;
            strbuf_putc(&prev->value, '*');
            strbuf_put(&st->output, prior->output.s, prior->output.len);
            strbuf_put(&st->output, prev->output.s, prev->output.len);
            advance(st);
            push_new(st, P_SLASH, "/", 1, "");
            return;
        }
        if (prior->type == P_BOS && rest_len && rest[0] == '/') {
            prev->type = P_GLOBSTAR;
            strbuf_putc(&prev->value, '*');
            set_buf(&prev->output, "(?:^|" SLASH_LITERAL "|" GLOBSTAR SLASH_LITERAL ")",
                    strlen("(?:^|" SLASH_LITERAL "|" GLOBSTAR SLASH_LITERAL ")"));
            prev->has_output = true;
            set_buf(&st->output, prev->output.s, prev->output.len);
            advance(st);
            push_new(st, P_SLASH, "/", 1, "");
            return;
        }
        slice_neg(&st->output, shown(prev)->len);
        prev->type = P_GLOBSTAR;
        set_buf(&prev->output, GLOBSTAR, strlen(GLOBSTAR));
        prev->has_output = true;
        strbuf_putc(&prev->value, '*');
        strbuf_puts(&st->output, GLOBSTAR);
        return;
    }
    if ((size_t)st->index == st->start || prev->type == P_SLASH || prev->type == P_DOT) {
        const char *guard = prev->type == P_DOT ? NO_DOT_SLASH : NO_DOTS_SLASH;
        strbuf_puts(&st->output, guard);
        output_add(prev, guard);
        if (peek(st, 1) != '*') {
            strbuf_puts(&st->output, ONE_CHAR);
            output_add(prev, ONE_CHAR);
        }
    }
    push_new(st, P_STAR, "*", 1, STAR);
}

/* The branch of a character inside a bracket expression; false when it is not one. */
static bool in_bracket(struct pstate *st, struct strbuf *value)
{
    struct ptok *prev = tok(st, st->prev);
    bool prev_open = (prev->value.len == 1 && prev->value.s[0] == '[') ||
                     (prev->value.len == 2 && !memcmp(prev->value.s, "[^", 2));

    if (!(st->brackets > 0 && (!(value->len == 1 && value->s[0] == ']') || prev_open)))
        return false;
    if (value->len == 1 && value->s[0] == ':' && prev->value.len > 1 &&
        contains(prev->value.s + 1, prev->value.len - 1, '[')) {
        prev->posix = true;
        if (contains(prev->value.s + 1, prev->value.len - 1, ':')) {
            size_t idx = prev->value.len;
            while (idx-- > 0 && prev->value.s[idx] != '[')
                ;
            const char *rest = prev->value.s + idx + 2;
            size_t rest_len = idx + 2 <= prev->value.len ? prev->value.len - idx - 2 : 0;
            for (size_t i = 0; i < sizeof(posix_classes) / sizeof(posix_classes[0]); i++) {
                if (strlen(posix_classes[i].name) == rest_len &&
                    !memcmp(posix_classes[i].name, rest, rest_len)) {
                    strbuf_cut(&prev->value, idx);
                    strbuf_puts(&prev->value, posix_classes[i].source);
                    st->backtrack = true;
                    advance(st);
                    struct ptok *bos = tok(st, 0);
                    if (!bos->output.len && st->nlist > 1 && st->list[1] == st->prev) {
                        set_buf(&bos->output, ONE_CHAR, strlen(ONE_CHAR));
                        bos->has_output = true;
                    }
                    return true;
                }
            }
        }
    }
    if (value->len == 1 && ((value->s[0] == '[' && peek(st, 1) != ':') ||
                          (value->s[0] == '-' && peek(st, 1) == ']'))) {
        char c = value->s[0];
        set_buf(value, "\\", 1);
        strbuf_putc(value, c);
    }
    if (value->len == 1 && value->s[0] == ']' && prev_open)
        set_buf(value, "\\]", 2);
    strbuf_put(&prev->value, value->s, value->len);
    strbuf_put(&st->output, value->s, value->len);
    return true;
}

static void close_bracket(struct pstate *st)
{
    struct ptok *prev = tok(st, st->prev);

    if (prev->type == P_BRACKET && prev->value.len == 1) {
        push_new(st, P_TEXT, "]", 1, "\\]");
        return;
    }
    if (st->brackets == 0) {
        push_new(st, P_TEXT, "]", 1, "\\]");
        return;
    }
    decrement(st, &st->brackets);
    /* prevValue = prev.value.slice(1) */
    const char *pv = prev->value.len ? prev->value.s + 1 : "";
    size_t pvn = prev->value.len ? prev->value.len - 1 : 0;
    bool slash_first = !prev->posix && pvn && pv[0] == '^' && !contains(pv, pvn, '/');
    bool regex_chars = has_regex_chars(pv, pvn);
    const char *value = slash_first ? "/]" : "]";
    strbuf_puts(&prev->value, value);
    strbuf_puts(&st->output, value);
    if (regex_chars)
        return;
    struct strbuf escaped = {0}, both = {0};
    escape_regex(&escaped, prev->value.s, prev->value.len);
    slice_neg(&st->output, prev->value.len);
    strbuf_puts(&both, "(?:");
    strbuf_put(&both, escaped.s, escaped.len);
    strbuf_putc(&both, '|');
    strbuf_put(&both, prev->value.s, prev->value.len);
    strbuf_putc(&both, ')');
    strbuf_free(&prev->value);
    prev->value = both;
    strbuf_put(&st->output, both.s, both.len);
    strbuf_free(&escaped);
}

/* The non-special characters REGEX_NON_SPECIAL_CHARS takes after a plain one. */
static size_t non_special_run(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] && !strchr("@![].,$*+?^{}()|\\/", s[i]))
        i++;
    return i;
}

/* parse.js's inline fast path: picomatch's regex for a pattern with no special
 * character but `*`, `?`, `.` and other punctuation, run by run. */
static bool is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

static void fast_inline(const char *in, size_t len, struct strbuf *out)
{
    struct strbuf o = {0};
    bool backslashes = false;

    /* input.replace(/(\\?)((\W)(\3*))/g, ...) */
    for (size_t i = 0; i < len;) {
        size_t m = i;
        bool esc = false;
        /* (\\?)(\W): a backslash taken as the escape only when a non-word follows */
        if (in[i] == '\\' && i + 1 < len && !is_word(in[i + 1]))
            esc = true;
        size_t f = esc ? i + 1 : i;
        if (f >= len || is_word(in[f])) {
            strbuf_putc(&o, in[i]);
            i++;
            continue;
        }
        /* \W is one UTF-16 unit: a non-ASCII character is a run of its own kind */
        char first = in[f];
        size_t clen = 1;
        if ((unsigned char)first >= 0x80) {
            while (f + clen < len && ((unsigned char)in[f + clen] & 0xC0) == 0x80)
                clen++;
        }
        size_t e = f + clen;
        while (e + clen <= len && !memcmp(in + e, in + f, clen))
            e += clen;
        size_t chars = (e - f) / clen, rest = chars - 1;
        if (first == '\\') {
            backslashes = true;
            strbuf_put(&o, in + m, e - m);
        } else if (first == '?') {
            if (esc) {
                strbuf_puts(&o, "\\?");
                for (size_t k = 0; k < rest; k++)
                    strbuf_puts(&o, QMARK);
            } else {
                /* qmarkNoDot is QMARK with dot: true, at index 0 as elsewhere */
                for (size_t k = 0; k < chars; k++)
                    strbuf_puts(&o, QMARK);
            }
        } else if (first == '.') {
            for (size_t k = 0; k < chars; k++)
                strbuf_puts(&o, DOT_LITERAL);
        } else if (first == '*') {
            if (esc) {
                strbuf_puts(&o, "\\*");
                if (rest)
                    strbuf_puts(&o, STAR);
            } else {
                strbuf_puts(&o, STAR);
            }
        } else {
            if (!esc)
                strbuf_putc(&o, '\\');
            strbuf_put(&o, in + m, e - m);
        }
        i = e;
    }
    if (backslashes) { /* runs of backslashes: an even run is two, an odd one one */
        struct strbuf b = {0};
        for (size_t i = 0; i < o.len;) {
            if (o.s[i] != '\\') {
                strbuf_putc(&b, o.s[i++]);
                continue;
            }
            size_t j = i;
            while (j < o.len && o.s[j] == '\\')
                j++;
            strbuf_puts(&b, (j - i) % 2 == 0 ? "\\\\" : "\\");
            i = j;
        }
        strbuf_free(&o);
        o = b;
    }
    strbuf_puts(out, "^(?:"); /* utils.wrapOutput */
    strbuf_put(out, o.s, o.len);
    strbuf_puts(out, ")$");
    if (o.oom)
        out->oom = true;
    strbuf_free(&o);
}

/* The input parse and its fast paths read: constants.js REPLACEMENTS applied to the
 * whole pattern, and NULL (the message in `err`) past MAX_LENGTH. */
static const char *replacement(const char *in, size_t len, size_t *out_len, struct glob_error *err)
{
    *out_len = len;
    if (len == 3 && !memcmp(in, "***", 3)) {
        *out_len = 1;
        return "*";
    }
    if ((len == 5 && !memcmp(in, "**/**", 5)) || (len == 8 && !memcmp(in, "**/**/**", 8))) {
        *out_len = 2;
        return "**";
    }
    if (len > MAX_LENGTH) {
        err->offset = 0;
        snprintf(err->message, sizeof(err->message),
                 "picomatch refuses a pattern over %d characters", MAX_LENGTH);
        return NULL;
    }
    return in;
}

static void free_state(struct pstate *st)
{
    for (size_t i = 0; i < st->ntoks; i++) {
        strbuf_free(&st->toks[i].value);
        strbuf_free(&st->toks[i].output);
    }
    for (size_t i = 0; i < st->next; i++) {
        strbuf_free(&st->ext[i].close);
        strbuf_free(&st->ext[i].inner);
    }
    free(st->toks);
    free(st->list);
    free(st->stack);
    free(st->ext);
    free(st->bracestk);
}

static void loop_char(struct pstate *st, char c)
{
    struct strbuf value = {0};
    strbuf_putc(&value, c);

    if (c == '\\') {
        char next = peek(st, 1);
        if (next == '/' || next == '.' || next == ';')
            goto done;
        if (!next) {
            strbuf_putc(&value, '\\');
            push_new(st, P_TEXT, value.s, value.len, NULL);
            goto done;
        }
        size_t slashes = 0;
        while (slashes < remaining_len(st) && remaining(st)[slashes] == '\\')
            slashes++;
        if (slashes > 2) {
            st->index += (long)slashes;
            if (slashes % 2 != 0)
                strbuf_putc(&value, '\\');
        }
        char a = advance(st);
        if (a)
            strbuf_putc(&value, a);
        if (st->brackets == 0) {
            push_new(st, P_TEXT, value.s, value.len, NULL);
            goto done;
        }
    }
    if (in_bracket(st, &value))
        goto done;
    if (st->quotes == 1 && c != '"') {
        struct strbuf e = {0};
        escape_regex(&e, value.s, value.len);
        strbuf_put(&tok(st, st->prev)->value, e.s, e.len);
        strbuf_put(&st->output, e.s, e.len);
        strbuf_free(&e);
        goto done;
    }
    switch (c) {
    case '"':
        st->quotes = st->quotes == 1 ? 0 : 1;
        break;
    case '(':
        increment(st, &st->parens, '(');
        push_new(st, P_PAREN, "(", 1, NULL);
        break;
    case ')':
        if (st->next && st->parens == st->ext[st->next - 1].parens + 1) {
            struct pext e = st->ext[--st->next];
            extglob_close(st, &e);
            strbuf_free(&e.close);
            strbuf_free(&e.inner);
            break;
        }
        push_new(st, P_PAREN, ")", 1, st->parens ? ")" : "\\)");
        decrement(st, &st->parens);
        break;
    case '[':
        if (!contains(remaining(st), remaining_len(st), ']'))
            push_new(st, P_BRACKET, "\\[", 2, NULL);
        else {
            increment(st, &st->brackets, '[');
            push_new(st, P_BRACKET, "[", 1, NULL);
        }
        break;
    case ']':
        close_bracket(st);
        break;
    case '{': {
        increment(st, &st->braces, '{');
        int t = new_tok(st, P_BRACE, "{", 1, "(");
        if (t < 0)
            break;
        tok(st, t)->output_index = st->output.len;
        tok(st, t)->tokens_index = st->nlist;
        int *bracestk = array_grow(st->bracestk, &st->capbraces, st->nbraces + 1, 16, sizeof(*bracestk));
        if (!bracestk) {
            st->oom = true;
            break;
        }
        st->bracestk = bracestk;
        st->bracestk[st->nbraces++] = t;
        push(st, t);
        break;
    }
    case '}':
        if (!st->nbraces)
            push_new(st, P_TEXT, "}", 1, "}");
        else
            close_brace(st);
        break;
    case '|':
        push_new(st, P_TEXT, "|", 1, NULL);
        break;
    case ',': {
        const char *output = ",";
        if (st->nbraces && st->nstack && st->stack[st->nstack - 1] == '{') {
            tok(st, st->bracestk[st->nbraces - 1])->comma = true;
            output = "|";
        }
        push_new(st, P_COMMA, ",", 1, output);
        break;
    }
    case '/':
        if (tok(st, st->prev)->type == P_DOT && (size_t)st->index == st->start + 1) {
            st->start = (size_t)st->index + 1;
            strbuf_cut(&st->output, 0);
            st->nlist--;
            st->prev = 0;
            break;
        }
        push_new(st, P_SLASH, "/", 1, SLASH_LITERAL);
        break;
    case '.': {
        struct ptok *prev = tok(st, st->prev);
        if (st->braces > 0 && prev->type == P_DOT) {
            if (prev->value.len == 1)
                set_buf(&prev->output, DOT_LITERAL, 2);
            prev->type = P_DOTS;
            output_add(prev, ".");
            strbuf_putc(&prev->value, '.');
            tok(st, st->bracestk[st->nbraces - 1])->dots = true;
            break;
        }
        if (st->braces + st->parens == 0 && prev->type != P_BOS && prev->type != P_SLASH)
            push_new(st, P_TEXT, ".", 1, DOT_LITERAL);
        else
            push_new(st, P_DOT, ".", 1, DOT_LITERAL);
        break;
    }
    case '?': {
        struct ptok *prev = tok(st, st->prev);
        bool is_group = prev->value.len == 1 && prev->value.s[0] == '(';
        if (!is_group && peek(st, 1) == '(' && peek(st, 2) != '?') {
            extglob_open(st, P_QMARK, '?');
            break;
        }
        if (prev->type == P_PAREN) {
            char next = peek(st, 1);
            const char *output = "?";
            bool lookbehind_or_name = false;
            if (next == '<') { /* /<([!=]|\w+>)/ on remaining() */
                const char *r = remaining(st);
                size_t rn = remaining_len(st);
                for (size_t k = 0; k < rn && !lookbehind_or_name; k++) {
                    if (r[k] != '<')
                        continue;
                    if (k + 1 < rn && (r[k + 1] == '!' || r[k + 1] == '='))
                        lookbehind_or_name = true;
                    size_t w = k + 1;
                    while (w < rn && is_word(r[w]))
                        w++;
                    if (w > k + 1 && w < rn && r[w] == '>')
                        lookbehind_or_name = true;
                }
            }
            if ((is_group && !(next && strchr("!=<:", next))) ||
                (next == '<' && !lookbehind_or_name))
                output = "\\?";
            push_new(st, P_TEXT, "?", 1, output);
            break;
        }
        push_new(st, P_QMARK, "?", 1, QMARK);
        break;
    }
    case '!':
        if (peek(st, 1) == '(') {
            char p3 = peek(st, 3);
            if (peek(st, 2) != '?' || !(p3 && strchr("!=<:", p3))) {
                extglob_open(st, P_NEGATE, '!');
                break;
            }
        }
        if (st->index == 0) {
            negate(st);
            break;
        }
        goto text;
    case '+': {
        struct ptok *prev = tok(st, st->prev);
        if (peek(st, 1) == '(' && peek(st, 2) != '?') {
            extglob_open(st, P_PLUS, '+');
            break;
        }
        if (prev->value.len == 1 && prev->value.s[0] == '(')
            push_new(st, P_PLUS, "+", 1, PLUS_LITERAL);
        else if (prev->type == P_BRACKET || prev->type == P_PAREN || prev->type == P_BRACE ||
                 st->parens > 0)
            push_new(st, P_PLUS, "+", 1, NULL);
        else
            push_new(st, P_PLUS, PLUS_LITERAL, 2, NULL);
        break;
    }
    case '@':
        if (peek(st, 1) == '(' && peek(st, 2) != '?') {
            int t = new_tok(st, P_AT, "@", 1, "");
            if (t >= 0)
                tok(st, t)->extglob = true;
            push(st, t);
            break;
        }
        push_new(st, P_TEXT, "@", 1, NULL);
        break;
    case '*':
        star(st);
        break;
    default:
    text:
        if (c == '$' || c == '^') {
            set_buf(&value, "\\", 1);
            strbuf_putc(&value, c);
        }
        {
            size_t run = non_special_run(remaining(st), remaining_len(st));
            strbuf_put(&value, remaining(st), run);
            st->index += (long)run;
        }
        push_new(st, P_TEXT, value.s, value.len, NULL);
        break;
    }
done:
    if (value.oom)
        st->oom = true;
    strbuf_free(&value);
}

/* picomatch's fast path for the whole input: `str` no special characters... */
static bool fast_inline_applies(const char *in, size_t len)
{
    if (len && (in[0] == '*' || in[0] == '!'))
        return false;
    for (size_t i = 0; i < len; i++) {
        if (strchr("/()[]{}\"", in[i]) && in[i])
            return false;
    }
    return true;
}

/* parse(input, options): its state.output and state.negated. */
static bool parse(const char *input, size_t len, bool fastpaths, struct strbuf *out,
                  bool *negated, struct glob_error *err)
{
    struct pstate st = {0};

    if (!(input = replacement(input, len, &len, err)))
        return false;
    *negated = false;
    /* utils.removePrefix */
    if (len >= 2 && input[0] == '.' && input[1] == '/') {
        input += 2;
        len -= 2;
    }
    if (fastpaths && fast_inline_applies(input, len)) {
        fast_inline(input, len, out);
        return !out->oom;
    }
    st.in = input;
    st.len = len;
    st.index = -1;
    st.prev = new_tok(&st, P_BOS, "", 0, "");
    if (st.prev < 0) {
        free_state(&st);
        return false;
    }
    list_push(&st, 0);
    while (!eos(&st) && !st.oom) {
        if (st.index >= (long)st.len) {
            /* an escape skipped past the end (three or more backslashes end the
             * pattern): eos() is never true again and picomatch loops for ever */
            err->offset = 0;
            snprintf(err->message, sizeof(err->message), "%s",
                     "picomatch never returns on a pattern that ends with three or more "
                     "backslashes after one (dorny/paths-filter would hang)");
            free_state(&st);
            strbuf_free(&st.output);
            return false;
        }
        char c = advance(&st);
        if (c == '\0')
            continue;
        loop_char(&st, c);
    }
    while (st.brackets > 0) {
        escape_last(&st.output, '[');
        decrement(&st, &st.brackets);
    }
    while (st.parens > 0) {
        escape_last(&st.output, '(');
        decrement(&st, &st.parens);
    }
    while (st.braces > 0) {
        escape_last(&st.output, '{');
        decrement(&st, &st.braces);
    }
    enum ptype last = tok(&st, st.prev)->type;
    if (last == P_STAR || last == P_BRACKET)
        push_new(&st, P_MAYBE_SLASH, "", 0, SLASH_LITERAL "?");
    if (st.backtrack) {
        strbuf_cut(&st.output, 0);
        for (size_t i = 0; i < st.nlist; i++) {
            const struct strbuf *s = shown(tok(&st, st.list[i]));
            strbuf_put(&st.output, s->s, s->len);
        }
    }
    bool ok = !st.oom && !st.output.oom;
    strbuf_put(out, st.output.s, st.output.len);
    *negated = st.negated;
    free_state(&st);
    strbuf_free(&st.output);
    return ok && !out->oom;
}

/* parse.fastpaths: the regex for a few common shapes (a star, a globstar and a slash,
 * with an extension...), else none. */
static bool create(const char *s, size_t n, struct strbuf *out)
{
    static const struct {
        const char *glob, *source;
    } shapes[] = {
        {"*", NO_DOTS ONE_CHAR STAR},
        {".*", DOT_LITERAL ONE_CHAR STAR},
        {"*.*", NO_DOTS STAR DOT_LITERAL ONE_CHAR STAR},
        {"*/*", NO_DOTS STAR SLASH_LITERAL ONE_CHAR NO_DOTS_SLASH STAR},
        {"**", NO_DOTS GLOBSTAR},
        {"**/*", "(?:" NO_DOTS GLOBSTAR SLASH_LITERAL ")?" NO_DOTS_SLASH ONE_CHAR STAR},
        {"**/*.*", "(?:" NO_DOTS GLOBSTAR SLASH_LITERAL ")?" NO_DOTS_SLASH STAR DOT_LITERAL
                   ONE_CHAR STAR},
        {"**/.*", "(?:" NO_DOTS GLOBSTAR SLASH_LITERAL ")?" DOT_LITERAL ONE_CHAR STAR},
    };
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        if (strlen(shapes[i].glob) == n && !memcmp(shapes[i].glob, s, n)) {
            strbuf_puts(out, shapes[i].source);
            return true;
        }
    }
    /* /^(.*?)\.(\w+)$/: the last `.` followed by word characters to the end (`.` does
     * not match a line terminator) */
    size_t w = n;
    while (w > 0 && is_word(s[w - 1]))
        w--;
    if (w == n || w == 0 || s[w - 1] != '.')
        return false;
    for (size_t i = 0; i + 1 < w; i++) {
        if (s[i] == '\n' || s[i] == '\r')
            return false;
    }
    /* lazy (.*?): the first `.` from which only `.word` runs... the shortest prefix
     * whose rest is `\.\w+$`; that is the last dot, as \w has no dot */
    if (!create(s, w - 1, out))
        return false;
    strbuf_puts(out, DOT_LITERAL);
    strbuf_put(out, s + w, n - w);
    return true;
}

bool glob_picomatch_source(const char *pattern, size_t len, struct strbuf *out,
                           struct glob_error *err)
{
    struct strbuf body = {0};
    bool negated = false, ok = true;

    if (len == 0) {
        err->offset = 0;
        snprintf(err->message, sizeof(err->message), "%s",
                 "picomatch refuses an empty pattern");
        return false;
    }
    /* picomatch.makeRe: parse.fastpaths first for a pattern that starts with . or * */
    if (pattern[0] == '.' || pattern[0] == '*') {
        size_t n;
        const char *in = replacement(pattern, len, &n, err);
        if (!in)
            return false;
        if (n >= 2 && in[0] == '.' && in[1] == '/') {
            in += 2;
            n -= 2;
        }
        if (create(in, n, &body))
            strbuf_puts(&body, SLASH_LITERAL "?");
        else
            strbuf_cut(&body, 0);
    }
    if (!body.len) {
        err->offset = 0;
        snprintf(err->message, sizeof(err->message), "%s", "out of memory");
        ok = parse(pattern, len, true, &body, &negated, err);
    }
    if (ok) { /* picomatch.compileRe */
        if (negated)
            strbuf_puts(out, "^(?!");
        strbuf_puts(out, "^(?:");
        strbuf_put(out, body.s, body.len);
        strbuf_puts(out, ")$");
        if (negated)
            strbuf_puts(out, ").*$");
        strbuf_putc(out, '\0');
        out->len--;
        ok = !out->oom;
    }
    strbuf_free(&body);
    return ok;
}
