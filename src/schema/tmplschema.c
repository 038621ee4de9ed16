/* tmplschema: GitHub's template-schema language and its reader (include/fanout/
 * tmplschema.h names the upstream files this follows). tmplschema_read.c compiles the
 * schema tree once into definitions that point at each other; this file validates a
 * YAML tree as TemplateReader.readValue walks its token stream: scalars parsed for
 * `${{ }}` (each expression checked against the contexts its key allows), matched
 * against the scalar definitions, mappings matched key by key against the mapping
 * definitions that remain, whole or a pair at a time. */
#include "tmplschema_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/expr.h"
#include "fanout/suggest.h"
#include "fanout/text.h"
#include "fanout/yscalar.h"

#define CHECKED_SLOTS 4096

/* A scalar as the reader sees it after parseScalar. */
enum token_kind { TK_NULL, TK_BOOLEAN, TK_NUMBER, TK_STRING, TK_EXPRESSION, TK_INSERT };

struct token {
    enum token_kind kind;
    const char *text; /* strings: the value (a literal ${{ 'x' }} unquoted into `own`) */
    size_t len;
    char *own;
    bool failed; /* an expression in it had an error (reported): nothing more to say */
};

/* The path of the value being read, for messages (a JSON pointer): written out only
 * for a message, from the keys and indexes pushed (PATH_MAX bytes at most, so no more
 * pushes than that can show). */
#define PATH_MAX_BYTES 512

struct path_part {
    const char *key; /* NULL: an index, in len */
    size_t len;
};

struct reader {
    const struct tmplschema *s;
    tmpl_error_fn fn;
    void *user;
    size_t errors;
    size_t reports; /* errors and warnings */
    const char *base; /* the path the reader starts at */
    struct path_part parts[PATH_MAX_BYTES];
    size_t depth;
    struct tmpl_proofs *proofs; /* NULL, or recorded (use_proofs false) or used */
    bool use_proofs;
};

/* Appends "/key" (JSON-pointer escaped) to path[0..o), as far as it fits; the length. */
static size_t path_put(char *path, size_t o, const char *key, size_t len)
{
    if (o + 1 < PATH_MAX_BYTES)
        path[o++] = '/';
    for (size_t i = 0; i < len && o + 3 < PATH_MAX_BYTES; i++) {
        if (key[i] == '~' || key[i] == '/') {
            path[o++] = '~';
            path[o++] = key[i] == '~' ? '0' : '1';
        } else {
            path[o++] = key[i];
        }
    }
    path[o] = '\0';
    return o;
}

/* The path of the value being read into path[PATH_MAX_BYTES]. */
static const char *path_text(const struct reader *r, char *path)
{
    size_t o = (size_t)snprintf(path, PATH_MAX_BYTES, "%s", r->base);

    o = o < PATH_MAX_BYTES ? o : PATH_MAX_BYTES - 1;
    for (size_t i = 0; i < r->depth && i < PATH_MAX_BYTES; i++) {
        char num[24];
        size_t n = sizeof(num), index = r->parts[i].len;

        if (r->parts[i].key) {
            o = path_put(path, o, r->parts[i].key, r->parts[i].len);
            continue;
        }
        do
            num[--n] = (char)('0' + index % 10);
        while ((index /= 10) != 0);
        o = path_put(path, o, num + n, sizeof(num) - n);
    }
    return path;
}

static void report(struct reader *r, enum tmpl_problem problem, const struct ynode *at, size_t offset,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void report(struct reader *r, enum tmpl_problem problem, const struct ynode *at, size_t offset,
                   const char *fmt, ...)
{
    char msg[1024], path[PATH_MAX_BYTES];
    int n = snprintf(msg, sizeof(msg), "%s: ", *path_text(r, path) ? path : "(root)");
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    va_end(ap);
    if (problem != TMPL_NUMBER_TEXT) /* a warning */
        r->errors++;
    r->reports++;
    r->fn(r->user, &(struct tmpl_error){problem, at, offset, msg});
}

/* Pushes key (or with `key` NULL, index `len`) onto the path; returns the depth to
 * restore. */
static size_t path_push(struct reader *r, const char *key, size_t len)
{
    if (r->depth < PATH_MAX_BYTES)
        r->parts[r->depth] = (struct path_part){key, len};
    return r->depth++;
}

static size_t path_push_index(struct reader *r, size_t index)
{
    return path_push(r, NULL, index);
}

static void path_pop(struct reader *r, size_t old)
{
    r->depth = old;
}

/* ---- what was expected, in words ---- */

struct words {
    char buf[600];
    size_t len, n;
    bool cut;
};

static void words_add(struct words *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void words_add(struct words *w, const char *fmt, ...)
{
    char one[160];
    va_list ap;
    size_t len;

    va_start(ap, fmt);
    vsnprintf(one, sizeof(one), fmt, ap);
    va_end(ap);
    len = strlen(one);
    /* each alternative once */
    for (const char *p = w->buf; (p = strstr(p, one)) != NULL; p += len) {
        if ((p == w->buf || p[-1] == ' ') && (p[len] == ',' || p[len] == '\0'))
            return;
    }
    if (w->n == 12 || w->len + len + 8 >= sizeof(w->buf)) {
        w->cut = true;
        return;
    }
    w->len += (size_t)snprintf(w->buf + w->len, sizeof(w->buf) - w->len, "%s%s", w->n ? ", " : "", one);
    w->n++;
}

/* The alternatives a value of definition `d` may take: scalars through nested one-ofs
 * (getScalarDefinitions), sequences and mappings one level down (getDefinitionsOfType). */
static void describe(const struct tmpl_def *d, struct words *w, bool top)
{
    switch (d->kind) {
    case D_NULL:
        words_add(w, "null");
        break;
    case D_BOOLEAN:
        words_add(w, "a boolean");
        break;
    case D_NUMBER:
        words_add(w, "a number");
        break;
    case D_STRING:
        if (d->constant && *d->constant)
            words_add(w, "'%.60s'", d->constant);
        else
            words_add(w, d->require_non_empty ? "a non-empty string" : "a string");
        break;
    case D_SEQUENCE:
        if (top)
            words_add(w, "a sequence");
        break;
    case D_MAPPING:
        if (top)
            words_add(w, "a mapping");
        break;
    case D_ONE_OF:
        for (size_t i = 0; i < d->n_one_of; i++)
            describe(d->one_of[i], w, top && d->one_of[i]->kind != D_ONE_OF);
        break;
    }
}

/* "expected a number (or an expression)" / "expected one of: 'read', 'write'". */
static const char *expected(struct tmpl_type t, char *out, size_t cap)
{
    struct words w = {.len = 0};

    describe(t.def, &w, true);
    snprintf(out, cap, "expected %s%s%s%s", w.n > 1 ? "one of: " : "", w.n ? w.buf : "nothing",
             w.cut ? ", ..." : "", t.contexts ? " (or a ${{ }} expression)" : "");
    return out;
}

/* How a scalar was written, for "got ...". */
static const char *got(const struct token *tk, char *out, size_t cap)
{
    static const char *const kinds[] = {"null", "boolean", "number", "string"};
    size_t len;

    if (tk->kind == TK_NULL)
        return "null";
    len = text_utf8_cut(tk->text, tk->len, 60);
    snprintf(out, cap, "%s '%.*s%s'", kinds[tk->kind], (int)len, tk->text, len < tk->len ? "..." : "");
    return out;
}

/* ---- scalars ---- */

static void token_clear(struct token *tk)
{
    if (!tk->own) /* nearly every token: no call */
        return;
    free(tk->own);
    tk->own = NULL;
}

/* The literal kind of a YAML scalar as GitHub's YAML reader (YAML 1.2 core) types it.
 * Not `typed`: only whether it is null (the rest read as strings), for a key (which is
 * its text whatever its kind) or a value whose definition takes every string or no
 * boolean or number (either is valid there as its text, or not at all): yscalar_type was
 * a call for every one. Inlined: a call a scalar, and its token returned through memory,
 * were 117K instructions on SGLang. */
__attribute__((always_inline)) static inline struct token literal(const struct ynode *n, bool typed)
{
    struct token tk = {TK_STRING, NULL, 0, NULL, false};

    /* its fields read here, as ynode_scalar and ynode_is_string would (two calls a
     * scalar); anything else reads as null */
    if (!ynode_is_scalar(n)) {
        tk.kind = TK_NULL;
        return tk;
    }
    tk.text = n->u.scalar.text;
    tk.len = n->u.scalar.len;
    if (n->style != YNODE_PLAIN)
        return tk;
    if (!typed) {
        if (yscalar_null(tk.text, tk.len))
            tk.kind = TK_NULL;
    } else {
        switch (yscalar_type(tk.text, tk.len)) {
        case YS_NULL:
            tk.kind = TK_NULL;
            break;
        case YS_BOOL:
            tk.kind = TK_BOOLEAN;
            break;
        case YS_INT:
        case YS_FLOAT:
            tk.kind = TK_NUMBER;
            break;
        case YS_STRING:
            break;
        }
    }
    return tk;
}

static bool is_ascii_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The `insert` directive (`${{ insert }}`) as matchDirective finds it in a trimmed
 * expression: 1 when it is one, 0 when not, -1 (reported) when more follows it. */
static int insert_directive(struct reader *r, const struct ynode *n, size_t at, const char *e, size_t len)
{
    if (len < 6 || memcmp(e, "insert", 6) != 0 || (len > 6 && !is_ascii_space(e[6])))
        return 0;
    if (len == 6)
        return 1;
    report(r, TMPL_EXPRESSION, n, at, "the directive 'insert' takes no parameters");
    return -1;
}

/* getExpressionString: the text of an expression that is nothing but one or more
 * adjacent string literals (`'a''b'` is a'b), else NULL. Into `own`. */
static bool literal_expression(const char *e, size_t len, struct token *tk)
{
    bool in = false;
    size_t n = 0;

    if (!(tk->own = malloc(len + 1)))
        return false;
    for (size_t i = 0; i < len; i++) {
        if (e[i] == '\'') {
            in = !in;
            if (in && i != 0)
                tk->own[n++] = '\'';
        } else if (!in) {
            token_clear(tk);
            return false;
        } else {
            tk->own[n++] = e[i];
        }
    }
    tk->own[n] = '\0';
    tk->kind = TK_STRING;
    tk->text = tk->own;
    tk->len = n;
    return true;
}

static void checked_add(const struct tmplschema *cs, const struct checked *c)
{
    struct tmplschema *s = (struct tmplschema *)cs;
    size_t i;

    if (!s->checked)
        return;
    for (i = c->h1 & (s->cap_checked - 1); s->checked[i].h2; i = (i + 1) & (s->cap_checked - 1))
        ;
    s->checked[i] = *c;
    s->n_checked++;
}

/* The end of the string literal opening at e[open] (its closing quote; '' inside is a
 * quote), or `len` when it is not closed. */
static size_t literal_end(const char *e, size_t len, size_t open)
{
    const char *q;

    for (size_t i = open + 1; (q = memchr(e + i, '\'', len - i)) != NULL; i = (size_t)(q - e) + 2) {
        if (q + 1 == e + len || q[1] != '\'')
            return (size_t)(q - e);
    }
    return len;
}

/* An expression's text as it is known by (in out[ELIDED_MAX], its length): without the
 * contents of its ASCII string literals, when it is at most ELIDED_MAX bytes long (a
 * longer one is known by its whole text). Whether an expression is valid does not depend
 * on them, when the rest and the length are the same: the lexer reads a quote outside a
 * literal only as one's start, or in a token it then refuses; the length limit counts
 * the same UTF-16 units; no check reads a literal's value. A matrix's renderings repeat
 * `format('...')` with a text of their own in each job: 7,369 parses of the 1 MB matrix
 * workflow's expressions were 33M instructions. */
#define ELIDED_MAX 256

/* Into out[0..ELIDED_MAX) when len <= ELIDED_MAX; its length. */
static size_t elided(const char *e, size_t len, char *out)
{
    size_t n = 0, from = 0, at = 0; /* the piece not yet copied; where a literal is looked for */
    const char *q;

    while ((q = memchr(e + at, '\'', len - at)) != NULL) {
        size_t open = (size_t)(q - e), end = literal_end(e, len, open);

        if (end == len)
            break; /* not closed: the rest as it is */
        at = end + 1;
        if (!tmpl_is_ascii(e + open + 1, end - open - 1))
            continue; /* kept, in the piece */
        memcpy(out + n, e + from, open + 1 - from);
        n += open + 1 - from;
        from = end; /* the closing quote on */
    }
    memcpy(out + n, e + from, len - from);
    return n + len - from;
}

/* Mixes `w` into the two hashes (multiply-xorshift ones with other constants: a pair of
 * texts that collides in one rarely does in the other). */
static void mix2(uint64_t *a, uint64_t *b, uint64_t w)
{
    *a = (*a ^ w) * 0x100000001b3ull;
    *a ^= *a >> 31;
    *b = (*b ^ w) * 0x9E3779B97F4A7C15ull;
    *b ^= *b >> 29;
}

static uint64_t fmix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

/* The two hashes an expression is known by, of what it is known by (its elided text when
 * short) and its length: both in one pass a word at a time (two strhash streams, one a
 * byte along, were some 300 instructions an expression; strhash_pair before them, a
 * byte at a time twice, a tenth of the check of SGLang's workflows). */
static void checked_hashes(const char *e, size_t len, uint64_t *h1, uint64_t *h2)
{
    char buf[ELIDED_MAX];
    const char *p = e;
    size_t n = len;
    uint64_t a = 0xcbf29ce484222325ull ^ len, b = 0x243F6A8885A308D3ull ^ len, w;

    if (len <= ELIDED_MAX) {
        n = elided(e, len, buf);
        p = buf;
    }
    mix2(&a, &b, n);
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        mix2(&a, &b, w);
    }
    w = 0;
    memcpy(&w, p, n);
    mix2(&a, &b, w);
    *h1 = fmix(a);
    *h2 = fmix(b);
}

/* Whether expression `e` was found valid with context set `set` before; *out is its
 * entry, for checked_add when it is found valid now. */
static bool checked_before(const struct tmplschema *cs, const char *e, size_t len, uint64_t set,
                           struct checked *out)
{
    struct tmplschema *s = (struct tmplschema *)cs; /* a cache, not part of its meaning */
    size_t i;

    checked_hashes(e, len, &out->h1, &out->h2);
    out->h2 |= 1;
    out->set = set;
    if (!s->checked || s->n_checked * 4 >= s->cap_checked * 3) {
        struct checked *old = s->checked;
        size_t old_cap = s->cap_checked, cap = !old ? 256 : old_cap < CHECKED_SLOTS ? old_cap * 2 : CHECKED_SLOTS;

        s->checked = calloc(cap, sizeof(*s->checked));
        s->n_checked = 0;
        s->cap_checked = s->checked ? cap : 0;
        for (size_t k = 0; s->checked && old_cap < CHECKED_SLOTS && k < old_cap; k++)
            if (old[k].h2) /* grown: kept; at the largest size, emptied */
                checked_add(s, &old[k]);
        free(old);
        if (!s->checked)
            return false;
    }
    for (i = out->h1 & (s->cap_checked - 1); s->checked[i].h2; i = (i + 1) & (s->cap_checked - 1)) {
        if (s->checked[i].h1 == out->h1 && s->checked[i].h2 == out->h2 && s->checked[i].set == set)
            return true;
    }
    return false;
}

/* One expression text (between `${{` and `}}`, at byte `at` of the scalar) checked
 * against the contexts of `t`. 0, or -1 after reporting. */
static int check_expression(struct reader *r, const struct ynode *n, size_t at, const char *e, size_t len,
                            uint64_t contexts)
{
    const struct expr_names *names;
    struct expr_error err;
    struct checked key;
    bool not_here;

    if (checked_before(r->s, e, len, contexts, &key))
        return 0;
    if (!(names = tmpl_names_for(r->s, contexts))) {
        report(r, TMPL_EXPRESSION, n, at, "out of memory");
        return -1;
    }
    if (expr_check(e, len, names, &not_here, &err) == 0) {
        checked_add(r->s, &key);
        return 0;
    }
    if (!not_here) {
        report(r, TMPL_EXPRESSION, n, at + err.offset, "%s", err.message);
        return -1;
    }
    {
        /* The refused name, and what the key allows instead. */
        const char *w = e + err.offset;
        size_t wl = 0;
        struct words allowed = {.len = 0};

        while (err.offset + wl < len && ((w[wl] >= 'a' && w[wl] <= 'z') || (w[wl] >= 'A' && w[wl] <= 'Z') ||
                                         (w[wl] >= '0' && w[wl] <= '9') || w[wl] == '_' || w[wl] == '-'))
            wl++;
        for (size_t i = 0; i < names->n_contexts; i++)
            words_add(&allowed, "%s", names->contexts[i]);
        for (size_t i = 0; i < names->n_functions; i++)
            words_add(&allowed, "%s()", names->functions[i].name);
        report(r, TMPL_CONTEXT, n, at + err.offset, "%s '%.*s' is not available in this key (it has %s)",
               strstr(err.message, "function") ? "function" : "context", (int)wl, w,
               allowed.n ? allowed.buf : "none");
    }
    return -1;
}

/* What parse_scalar found in a scalar's parts so far. */
struct segments {
    size_t n;                      /* literal texts and expressions */
    size_t first_start, first_len; /* the first expression's text */
    bool only_expressions;
    bool failed;                   /* an expression had an error (reported) */
    bool directive;                /* `${{ insert }}` */
};

/* The expression from `${{` at `at` to `}}` ending at `end` of scalar `n` (text `s`,
 * `len` bytes): a directive, or an expression checked against the contexts of `t`. -1
 * when the whole scalar fails (reported); an error in this expression alone sets
 * seg->failed. */
static int scan_expression(struct reader *r, const struct ynode *n, struct tmpl_type t, const char *s,
                           size_t len, size_t at, size_t end, struct segments *seg)
{
    const char *e = s + at + 3;
    size_t elen = end - 1 - (at + 3), lead = 0;
    int ins;

    while (lead < elen && is_ascii_space(e[lead]))
        lead++;
    while (elen > lead && is_ascii_space(e[elen - 1]))
        elen--;
    if (elen == lead) {
        report(r, TMPL_EXPRESSION, n, at, "an expression was expected between '${{' and '}}'");
        seg->failed = true;
        return 0;
    }
    ins = insert_directive(r, n, at, e + lead, elen - lead);
    if (ins < 0) {
        seg->failed = true;
        return 0;
    }
    if (ins > 0) {
        if (at != 0 || end + 1 < len) {
            report(r, TMPL_EXPRESSION, n, at,
                   "the directive 'insert' is only allowed when the whole value is the expression");
            return -1;
        }
        seg->directive = true;
    } else if (check_expression(r, n, at + 3 + lead, e + lead, elen - lead, t.contexts) != 0) {
        seg->failed = true;
        return 0;
    }
    if (!seg->n) {
        seg->first_start = at + 3 + lead;
        seg->first_len = elen - lead;
    }
    seg->n++;
    return 0;
}

/* s + at, the first `${{` of s (at: SIZE_MAX, none), unless a NUL comes before it (where
 * strstr would stop): NULL then. */
static const char *open_of(const char *s, size_t at)
{
    return at == SIZE_MAX || memchr(s, '\0', at) ? NULL : s + at;
}

/* The first `${{` of s[0..len) before any NUL, or NULL: found by memchr, as a long
 * `run:` script has few `$`. */
static const char *find_open(const char *s, size_t len)
{
    return open_of(s, expr_template_open(s, len));
}

/* parseScalar: a string with `${{ }}` becomes an expression token (several parts: one
 * format() expression), or stays a string when any part has an error (reported). `typed`: as
 * literal's. */
static struct token parse_scalar(struct reader *r, const struct ynode *n, struct tmpl_type t, bool typed)
{
    struct token tk = literal(n, typed);
    const char *s = tk.text, *open;
    size_t i = 0, first;
    struct segments seg = {.only_expressions = true};

    if (tk.kind != TK_STRING || !tk.len || (n->proven & YNODE_NO_EXPR))
        return tk;
    /* the input's own tree marked, as its proofs are: substitution reads the mark and does
     * not search the text again */
    if ((first = expr_template_open(s, tk.len)) == SIZE_MAX && r->proofs && !r->use_proofs)
        ((struct ynode *)n)->proven |= YNODE_NO_EXPR;
    if (!(open = open_of(s, first)))
        return tk;
    while (i < tk.len) {
        size_t at = open ? (size_t)(open - s) : tk.len, end;

        if (i < at) {
            seg.n++;
            seg.only_expressions = false;
            i = at;
            continue;
        }
        if (!(end = expr_template_close(s, tk.len, at))) {
            report(r, TMPL_EXPRESSION, n, at, "the expression is not closed: '${{' without a closing '}}'");
            tk.failed = true;
            return tk;
        }
        i = end + 1;
        open = find_open(s + i, tk.len - i);
        if (scan_expression(r, n, t, s, tk.len, at, end, &seg) != 0) {
            tk.failed = true;
            return tk;
        }
    }
    if (seg.failed) {
        tk.failed = true;
        return tk;
    }
    if (seg.directive) {
        tk.kind = TK_INSERT;
        return tk;
    }
    /* `${{ 'text' }}` alone is that text, a string */
    if (seg.n == 1 && seg.only_expressions && literal_expression(s + seg.first_start, seg.first_len, &tk))
        return tk;
    tk.kind = TK_EXPRESSION;
    return tk;
}

/* A string constant of `d`, through nested one-ofs, equal to text[0..len). */
static bool constant_any(const struct tmpl_def *d, const char *text, size_t len)
{
    if (d->kind == D_ONE_OF) {
        for (size_t i = 0; i < d->n_one_of; i++) {
            if (constant_any(d->one_of[i], text, len))
                return true;
        }
        return false;
    }
    return d->kind == D_STRING && d->constant && *d->constant && d->constant_len == len &&
           (d->ignore_case ? tmpl_same_upper(d->constant, text) : !memcmp(d->constant, text, len));
}

/* Any scalar definition of `d` (through nested one-ofs) matching (isMatch): by its
 * scalars, else by a string constant. */
static bool scalar_any(const struct tmpl_def *d, enum token_kind kind, const char *text, size_t len)
{
    static const uint8_t bits[] = {[TK_NULL] = S_NULL, [TK_BOOLEAN] = S_BOOLEAN, [TK_NUMBER] = S_NUMBER,
                                   [TK_STRING] = 0, [TK_EXPRESSION] = 0, [TK_INSERT] = 0};

    if (kind != TK_STRING)
        return d->scalars & bits[kind];
    return (d->scalars & (len ? S_NON_EMPTY : S_STRING)) || constant_any(d, text, len);
}

/* The string constants of `d`, for a suggestion. */
static size_t constants(const struct tmpl_def *d, const char **out, size_t n, size_t cap)
{
    if (d->kind == D_STRING && d->constant && *d->constant && n + 1 < cap)
        out[n++] = d->constant;
    for (size_t i = 0; d->kind == D_ONE_OF && i < d->n_one_of; i++)
        n = constants(d->one_of[i], out, n, cap);
    out[n] = NULL;
    return n;
}

/* TemplateReader.validate: a literal must match a scalar definition as it is, else as
 * a string (a number or boolean where a string is expected is its text); an expression
 * needs a place that allows contexts. */
static void validate_scalar(struct reader *r, const struct ynode *n, const struct token *tk, struct tmpl_type t)
{
    char exp[700], gotbuf[120], phrase[SUGGEST_PHRASE_MAX];
    const char *names[128], *near;
    size_t len;
    const char *text;
    struct token as_written;

    switch (tk->kind) {
    case TK_EXPRESSION:
        if (!t.contexts)
            report(r, TMPL_CONTEXT, n, SIZE_MAX, "an expression is not allowed here (%s)", expected(t, exp, sizeof(exp)));
        return;
    case TK_INSERT:
        report(r, TMPL_EXPRESSION, n, SIZE_MAX, "the directive '${{ insert }}' is only allowed as a key");
        return;
    default:
        break;
    }
    if (scalar_any(t.def, tk->kind, tk->text, tk->len))
        return;
    /* as a string: null reads as "", the others as their text */
    text = tk->kind == TK_NULL ? "" : tk->text;
    len = tk->kind == TK_NULL ? 0 : tk->len;
    if (tk->kind != TK_STRING && scalar_any(t.def, TK_STRING, text, len))
        return;
    /* read untyped (read_tree): its kind as written, for the message */
    as_written = *tk;
    if (tk->kind == TK_STRING && !tk->own)
        as_written.kind = literal(n, true).kind;
    constants(t.def, names, 0, sizeof(names) / sizeof(names[0]));
    near = as_written.kind == TK_STRING && len ? suggest_closest(text, len, names, suggest_limit(len)) : NULL;
    report(r, TMPL_VALUE, n, SIZE_MAX, "%s, got %s%s", expected(t, exp, sizeof(exp)),
           got(&as_written, gotbuf, sizeof(gotbuf)), suggest_phrase(near, phrase));
}


/* A key as a string token: an expression key, or a literal (a number or boolean key is
 * its text, as GitHub's C# reader converts it; null is the empty string). */
static struct token key_token(struct reader *r, const struct ynode *key, struct tmpl_type t)
{
    struct token tk = parse_scalar(r, key, t, false);

    if (tk.kind == TK_NULL) {
        tk.text = "";
        tk.len = 0;
    }
    if (tk.kind <= TK_NUMBER)
        tk.kind = TK_STRING;
    return tk;
}

static void read_value(struct reader *r, const struct ynode *n, struct tmpl_type t);

struct tmpl_mapping {
    struct reader *r;
    struct tmpl_type t;
    const struct ynode *at;
    const struct tmpl_def *defs[MAX_BRANCHES];
    size_t n_defs;
    const struct tmpl_def *loose; /* the first mapping definition with loose keys */
    bool all_loose;  /* no well-known properties at all */
    bool expr_key;   /* an expression key makes the required check moot */
    bool refused;    /* no mapping is allowed here (reported) */
    bool plain_keys; /* every key read as its text (no expression, null or quoted literal) */
    const char *typo_for; /* a key reported as a typo of this property (no "missing" then) */
    /* keyed: the type's key table (tmpl_def.keys; NULL when it has none, or all keys are
     * loose). Then a key that names a prop is kept as its name's bit in `named` and its
     * line in lines[], the definitions left are `alive` (bits of their indexes in it), and
     * `keys` holds only the other keys. */
    const struct tmpl_keys *keyed;
    uint16_t alive;
    uint64_t named, named_literal; /* named_literal: by a literal expression (${{ 'k' }}) */
    unsigned lines[TMPL_PROPS_INDEXED];
    struct keyset keys;
    size_t errors_at_begin;
};

static void mapping_begin(struct tmpl_mapping *m, struct reader *r, struct tmpl_type t, const struct ynode *at)
{
    char exp[700];

    /* field by field: the key set's inline slots are cleared only when used */
    m->r = r;
    m->t = t;
    m->at = at;
    m->errors_at_begin = r->errors;
    m->expr_key = m->refused = false;
    m->plain_keys = true;
    m->typo_for = NULL;
    m->keys.slots = NULL;
    m->keys.n = m->keys.cap = 0;
    m->keys.copies = false;
    m->keys.texts = NULL;
    m->named = m->named_literal = 0;
    if ((m->keyed = t.def->keys) != NULL) { /* its definitions, listed once */
        memcpy(m->defs, m->keyed->maps, m->keyed->n_maps * sizeof(*m->defs));
        m->n_defs = m->keyed->n_maps;
        m->alive = (uint16_t)((1u << m->n_defs) - 1);
    } else {
        m->n_defs = tmpl_defs_of_kind(t.def, D_MAPPING, m->defs, MAX_BRANCHES);
    }
    if (!m->n_defs) {
        m->loose = NULL;
        m->all_loose = false;
        m->refused = true;
        report(r, TMPL_VALUE, at, SIZE_MAX, "%s, got a mapping", expected(t, exp, sizeof(exp)));
        return;
    }
    m->loose = m->defs[0]->loose_key ? m->defs[0] : NULL;
    m->all_loose = m->n_defs == 1 && m->defs[0]->n_props == 0 && m->loose;
}

/* matchPropertyAndFilter by the key table: the property of name `u` (-1: none) in the
 * remaining definitions (in the last that has it), or NULL; *has: those that have it. */
static const struct tmpl_prop *keyed_property(const struct tmpl_mapping *m, int u, unsigned *has)
{
    const struct tmpl_keys *k = m->keyed;
    unsigned last = (unsigned)k->n_maps;

    *has = u < 0 ? 0 : k->has[u] & m->alive;
    if (!*has)
        return NULL;
    while (!(*has >> --last & 1))
        ;
    return k->props[(size_t)u * k->n_maps + last];
}

/* ... and filtered: only the definitions in `has` remain. */
static void keep_keyed(struct tmpl_mapping *m, unsigned has)
{
    if (has == m->alive) /* most keys drop none: no copy */
        return;
    m->alive = (uint16_t)has;
    m->n_defs = 0;
    for (size_t i = 0; i < m->keyed->n_maps; i++) {
        if (has >> i & 1)
            m->defs[m->n_defs++] = m->keyed->maps[i];
    }
}

/* matchPropertyAndFilter: the property `key` names in any remaining definition; those
 * without it are dropped. */
static const struct tmpl_prop *match_property(struct tmpl_mapping *m, const char *key, size_t len)
{
    const struct tmpl_prop *found = NULL;
    const struct tmpl_def *kept[MAX_BRANCHES];
    size_t n = 0;

    for (size_t i = 0; i < m->n_defs; i++) {
        const struct tmpl_prop *p = tmpl_find_prop(m->defs[i], key, len);

        if (p) {
            found = p;
            kept[n++] = m->defs[i];
        }
    }
    if (!found)
        return NULL;
    memcpy(m->defs, kept, n * sizeof(*kept));
    m->n_defs = n;
    return found;
}

/* The well-known properties of the remaining definitions, for a suggestion. */
static const char *suggest_key(const struct tmpl_mapping *m, const char *key, size_t len)
{
    const char *names[256];
    size_t n = 0;

    for (size_t i = 0; i < m->n_defs; i++) {
        for (size_t p = 0; p < m->defs[i]->n_props && n + 1 < sizeof(names) / sizeof(names[0]); p++) {
            if (!tmpl_background_key(m->defs[i]->props[p].name, m->defs[i]->props[p].len, false))
                names[n++] = m->defs[i]->props[p].name;
        }
    }
    names[n] = NULL;
    return suggest_closest(key, len, names, suggest_limit(len));
}

/* A pair whose key is an expression (`tk`): its value may be anything there, unless
 * the mapping's keys are all loose. False when no expression may be a key here. */
static bool expression_pair(struct tmpl_mapping *m, const struct ynode *key, const struct ynode *value,
                            const struct token *tk, struct tmpl_type *vt)
{
    struct reader *r = m->r;
    size_t old;

    m->expr_key = true;
    if (!m->t.contexts) {
        report(r, TMPL_CONTEXT, key, SIZE_MAX, "an expression is not allowed in a key here");
        return false;
    }
    *vt = m->all_loose ? tmpl_child_type(m->t, m->loose->loose_value)
                       : tmpl_child_type(m->t, tmpl_find_def(r->s, "any"));
    old = path_push(r, tk->text, tk->len);
    if (value)
        read_value(r, value, *vt);
    path_pop(r, old);
    return true;
}

/* GitHub's template reader compares a literal expression key (`${{ 'k' }}`) by its
 * value, so `k` written again, either way, is a key defined twice (TemplateReader's
 * "'k' is already defined"). */
static void same_key_twice(struct reader *r, const struct ynode *key, const struct token *tk, unsigned line)
{
    report(r, TMPL_DUPLICATE, key, SIZE_MAX, "'%.*s' is already defined (at line %u)", (int)tk->len, tk->text,
           line);
}

/* Key `tk` recorded among the mapping's keys, and the property it names (*prop, NULL
 * when none) in the remaining definitions, which it filters; false when a key equal to
 * it without regard to case was there (reported when only the case differs) or out of
 * memory. */
static bool new_key(struct tmpl_mapping *m, const struct ynode *key, const struct token *tk,
                    const struct tmpl_prop **prop)
{
    struct reader *r = m->r;
    const struct keyslot *seen = NULL;
    const char *text = NULL;
    size_t len = 0;
    unsigned line = 0;
    unsigned has;
    int u;
    bool oom = false;

    if (m->keyed) {
        u = tmpl_keys_find(m->keyed, tk->text, tk->len);
        *prop = keyed_property(m, u, &has);
        if (*prop && !tk->len) /* the empty key is not kept */
            keep_keyed(m, has);
        if (!tk->len)
            return true;
        if (*prop && (m->named >> u & 1)) {
            if (tk->own || (m->named_literal >> u & 1))
                same_key_twice(r, key, tk, m->lines[u]);
            return false; /* else the same text twice is the YAML reader's: see below */
        }
        if (*prop && !(seen = tmpl_keyset_find(&m->keys, tk->text, tk->len))) {
            /* the props' names differ in upper case: only a key not a prop can equal it */
            keep_keyed(m, has);
            m->named |= (uint64_t)1 << u;
            m->named_literal |= (uint64_t)(tk->own != NULL) << u;
            m->lines[u] = ynode_pos(key).line;
            return true;
        }
        for (uint64_t b = *prop ? 0 : m->named; b && !text; b &= b - 1) {
            int j = 0;

            while (!(b >> j & 1))
                j++;
            if (tmpl_same_key(m->keyed->named[j]->name, m->keyed->named[j]->len, tk->text, tk->len)) {
                text = m->keyed->named[j]->name;
                len = m->keyed->named[j]->len;
                line = m->lines[j];
            }
        }
    } else {
        *prop = NULL;
    }
    /* a literal expression's text is its token's own, freed after the pair: copied */
    if (!text && !seen &&
        (!tk->len || tmpl_keyset_add(&m->keys, tk->text, tk->len, ynode_pos(key).line, tk->own != NULL, &seen, &oom))) {
        if (!m->keyed && !m->all_loose)
            *prop = match_property(m, tk->text, tk->len);
        return true;
    }
    if (oom) {
        report(r, TMPL_EXPRESSION, key, SIZE_MAX, "out of memory");
        return false;
    }
    if (seen) {
        text = seen->text;
        len = seen->len;
        line = seen->line;
    }
    /* The same text twice is the YAML reader's error (duplicate-key), or in a rendering
     * the key index's (key-collision): only the case is this check's, and a literal
     * expression's text, which the reader saw as other text. */
    if (len != tk->len || memcmp(text, tk->text, tk->len))
        report(r, TMPL_DUPLICATE, key, SIZE_MAX, "'%.*s' is already defined (as '%.*s' at line %u; GitHub "
               "compares keys without regard to case)", (int)tk->len, tk->text, (int)len, text, line);
    else if (tk->own || (seen && seen->literal))
        same_key_twice(r, key, tk, line);
    return false;
}

/* A pair whose key is a literal (`tk`): a property of the mappings that remain, else a
 * loose key, else refused with a suggestion. */
static bool literal_pair(struct tmpl_mapping *m, const struct ynode *key, const struct ynode *value,
                         const struct token *tk, const struct tmpl_prop *p, struct tmpl_type *vt)
{
    struct reader *r = m->r;
    size_t old = path_push(r, tk->text, tk->len);
    char phrase[SUGGEST_PHRASE_MAX];

    if (p) {
        if (p->background) {
            path_pop(r, old);
            report(r, TMPL_KEY, key, SIZE_MAX, "key '%.*s' is not available: GitHub's parser accepts it only with "
                   "background steps enabled", (int)tk->len, tk->text);
            return false;
        }
        *vt = tmpl_child_type(m->t, p->type);
    } else if (m->loose) {
        struct token ks = *tk;

        ks.kind = TK_STRING;
        validate_scalar(r, key, &ks, tmpl_child_type(m->t, m->loose->loose_key));
        *vt = tmpl_child_type(m->t, m->loose->loose_value);
    } else {
        const char *near = suggest_key(m, tk->text, tk->len);

        path_pop(r, old);
        if (near && !m->typo_for)
            m->typo_for = near;
        report(r, TMPL_KEY, key, SIZE_MAX, "unexpected key '%.*s'%s", (int)tk->len, tk->text,
               near ? suggest_phrase(near, phrase) : "");
        return false;
    }
    if (value)
        read_value(r, value, *vt);
    path_pop(r, old);
    return true;
}

/* One pair; `value` NULL reads no value (streaming), `*vt` gets its type. False when
 * the value is not to be read (the key was refused). */
static bool mapping_pair(struct tmpl_mapping *m, const struct ynode *key, const struct ynode *value,
                         struct tmpl_type *vt)
{
    struct token tk;
    const struct tmpl_prop *p;
    bool ok;

    if (m->refused)
        return false;
    tk = key_token(m->r, key, m->t);
    if (tk.kind != TK_STRING || tk.own || tk.text != key->u.scalar.text)
        m->plain_keys = false;
    if (tk.failed) /* an expression in the key was reported: its value would only add echoes */
        ok = false;
    else if (tk.kind == TK_EXPRESSION || tk.kind == TK_INSERT)
        ok = expression_pair(m, key, value, &tk, vt);
    else
        ok = new_key(m, key, &tk, &p) && literal_pair(m, key, value, &tk, p, vt);
    token_clear(&tk);
    return ok;
}

/* Which of several mappings: the keys that would tell (each one's required keys, else
 * the keys only one of them has), as GitHub names them. */
static void distinguishing_keys(const struct tmpl_mapping *m, struct words *w)
{
    bool all_required = true;

    for (size_t i = 0; i < m->n_defs; i++) {
        bool has = false;

        for (size_t p = 0; p < m->defs[i]->n_props; p++) {
            const struct tmpl_prop *pr = &m->defs[i]->props[p];

            if (pr->required && !tmpl_background_key(pr->name, pr->len, true)) {
                words_add(w, "%s", pr->name);
                has = true;
            } else if (pr->required) {
                has = true;
            }
        }
        all_required = all_required && has;
    }
    if (all_required)
        return;
    memset(w, 0, sizeof(*w));
    for (size_t i = 0; i < m->n_defs; i++) {
        for (size_t p = 0; p < m->defs[i]->n_props; p++) {
            const struct tmpl_prop *pr = &m->defs[i]->props[p];
            size_t in = 0;

            for (size_t j = 0; j < m->n_defs; j++)
                in += tmpl_find_prop(m->defs[j], pr->name, pr->len) != NULL;
            if (in == 1 && !tmpl_background_key(pr->name, pr->len, true))
                words_add(w, "%s", pr->name);
        }
    }
}

/* The required keys of the one mapping left that no key named (nor a typo of). */
static void missing_required(struct tmpl_mapping *m)
{
    if (!m->defs[0]->any_required) /* most mappings: no loop over their props */
        return;
    for (size_t p = 0; p < m->defs[0]->n_props; p++) {
        const struct tmpl_prop *pr = &m->defs[0]->props[p];

        if (!pr->required || (m->named && (m->named >> tmpl_keys_find(m->keyed, pr->name, pr->len) & 1)) ||
            tmpl_keyset_find(&m->keys, pr->name, pr->len) ||
            (m->typo_for && !strcmp(m->typo_for, pr->name)))
            continue;
        report(m->r, TMPL_REQUIRED, m->at, SIZE_MAX, "missing required key '%s'", pr->name);
    }
}

static size_t mapping_end(struct tmpl_mapping *m)
{
    struct reader *r = m->r;

    if (!m->refused && m->n_defs > 1) {
        struct words w = {.len = 0};

        distinguishing_keys(m, &w);
        if (!m->typo_for)
            report(r, TMPL_REQUIRED, m->at, SIZE_MAX, "not enough keys to tell which kind of '%s' this is: "
                   "add one of %s", m->t.def->name, w.buf);
    } else if (!m->refused && !m->all_loose && !m->expr_key) {
        missing_required(m);
    }
    tmpl_keyset_free(&m->keys);
    return r->errors - m->errors_at_begin;
}

static void read_tree(struct reader *r, const struct ynode *n, struct tmpl_type t);

static void read_value(struct reader *r, const struct ynode *n, struct tmpl_type t)
{
    size_t errors = r->errors;

    if (!r->proofs) {
        read_tree(r, n, t);
    } else if (!r->use_proofs) {
        read_tree(r, n, t);
        /* the input's own tree, which the reader of the item owns: marked, not changed */
        if (r->errors == errors)
            tmpl_proofs_add(r->proofs, (struct ynode *)n, t); /* marks it */
    } else {
        /* a tree settled once, when first met (ynode_proven_settle) */
        if ((n->proven & (YNODE_PROVEN | YNODE_SETTLED)) == YNODE_PROVEN)
            ynode_proven_settle((struct ynode *)n);
        if (!(n->proven & YNODE_PROVEN) || !tmpl_proofs_has(r->proofs, n, t)) {
            size_t reports = r->reports;

            read_tree(r, n, t);
            /* what the configurations after share (ynode.h), when it said nothing (not
             * even a warning, which each configuration says): proven with its tree as
             * it was read, settled */
            if ((n->proven & YNODE_SHARED) && r->reports == reports) {
                tmpl_proofs_add(r->proofs, (struct ynode *)n, t);
                ((struct ynode *)n)->proven |= YNODE_SETTLED;
            }
        }
    }
}

/* A mapping. In a rendering's check, one whose keys and type are those of a mapping
 * read before at its place in this item without a problem (a matrix configuration's,
 * whose keys are its job's) has only its values read, each under the type kept: what
 * the keys decide (each one's property and type, the duplicates, the required keys)
 * follows from the keys and the type alone (the check of the 1 MB matrix workflow's
 * rendering: 299M -> 156M instructions). */
static void read_mapping(struct reader *r, const struct ynode *n, struct tmpl_type t)
{
    struct tmpl_mapping m;
    struct tmpl_type vt;
    struct tmpl_shape_pair shape[TMPL_SHAPE_MAX];
    const struct tmpl_shape_pair *kept = NULL;
    size_t errors = r->errors, len = ynode_len(n);
    bool keep = r->use_proofs && len <= TMPL_SHAPE_MAX;

    if (keep && (kept = tmpl_proofs_shape(r->proofs, n, t)) != NULL && tmpl_shape_same(kept, n)) {
        /* copied: a value's own mapping may keep its shape, which moves the kept pairs */
        memcpy(shape, kept, len * sizeof(*shape));
        for (size_t i = 0; i < len; i++) {
            size_t old = path_push(r, shape[i].text, shape[i].len);

            if (ynode_value(n, i))
                read_value(r, ynode_value(n, i), shape[i].vt);
            path_pop(r, old);
        }
        return;
    }
    mapping_begin(&m, r, t, n);
    for (size_t i = 0; i < len; i++) {
        const struct ynode *key = ynode_key(n, i);

        /* a pair not read (a key the YAML reader refused twice, said there) is no shape */
        if (!mapping_pair(&m, key, ynode_value(n, i), &vt))
            keep = false;
        else if (keep)
            shape[i] = (struct tmpl_shape_pair){key->u.scalar.text, key->u.scalar.len, key->style, vt};
    }
    mapping_end(&m);
    if (keep && !kept && m.plain_keys && r->errors == errors)
        tmpl_proofs_shape_add(r->proofs, n, t, shape);
}

/* `number-text`: the plain scalar `n`, taken as a string where no number is (an action's
 * input, an env value), if YAML 1.2 reads a number there: GitHub's reader makes the
 * number's text of it (template-reader.ts `validate`, "Not a string, convert"; the
 * runner's NumberToken.ToString, .NET's G15), which differs from what is written when
 * digits go (`3.10` is "3.1", `1.0` "1", `0x10` "16"). A warning: GitHub runs it. */
static void number_text(struct reader *r, const struct ynode *n)
{
    enum yscalar_type type = yscalar_type(n->u.scalar.text, n->u.scalar.len);
    char buf[EXPR_NUMBUF];
    struct expr_value *v;
    size_t len;

    if ((type != YS_INT && type != YS_FLOAT) || !(v = expr_from_ynode(n)))
        return;
    len = expr_g15_number(expr_number_value(v), buf);
    expr_unref(v);
    if (len == n->u.scalar.len && !memcmp(buf, n->u.scalar.text, len))
        return;
    report(r, TMPL_NUMBER_TEXT, n, SIZE_MAX, "%.*s is the number %s to GitHub's workflow reader, which makes "
           "the string \"%s\" of it here: quote it to keep %.*s", (int)text_utf8_cut(n->u.scalar.text,
           n->u.scalar.len, 40), n->u.scalar.text, buf, buf, (int)text_utf8_cut(n->u.scalar.text, n->u.scalar.len, 40),
           n->u.scalar.text);
}

/* Whether a plain scalar beginning with `c` may be a YAML 1.2 number: a digit, `+`, `-`
 * or `.` (and `,` or `/`, which share their range: one comparison for every scalar). */
static bool may_be_number(char c)
{
    return (unsigned char)(c - '+') <= '9' - '+';
}

static void read_tree(struct reader *r, const struct ynode *n, struct tmpl_type t)
{
    char exp[700];

    if (ynode_is_scalar(n)) {
        /* a boolean or number where neither is taken validates as its text, as a string
         * does (validate_scalar): typed only for its "got" (375 of SGLang's 1,202
         * yscalar_type calls were for a non-empty string) */
        struct token tk = parse_scalar(r, n, t, !(t.def->scalars & S_STRING) &&
                                                    (t.def->scalars & (S_NULL | S_BOOLEAN | S_NUMBER)));

        if (!tk.failed)
            validate_scalar(r, n, &tk, t);
        if (!tk.failed && tk.len && may_be_number(*tk.text) && tk.kind == TK_STRING && n->style == YNODE_PLAIN &&
            (t.def->scalars & S_STRING) && !(t.def->scalars & S_NUMBER) &&
            !yscalar_canonical_decimal(tk.text, tk.len))
            number_text(r, n);
        token_clear(&tk);
    } else if (ynode_is_seq(n)) {
        struct tmpl_type item;

        if (!tmpl_type_item(t, &item)) {
            report(r, TMPL_VALUE, n, SIZE_MAX, "%s, got a sequence", expected(t, exp, sizeof(exp)));
            return;
        }
        for (size_t i = 0; i < ynode_len(n); i++) {
            size_t old = path_push_index(r, i);

            read_value(r, ynode_item(n, i), item);
            path_pop(r, old);
        }
    } else if (ynode_is_map(n)) {
        read_mapping(r, n, t);
    }
}

static void reader_init(struct reader *r, const struct tmplschema *s, const char *path, tmpl_error_fn fn,
                        void *user)
{
    r->errors = 0;
    r->reports = 0;
    r->s = s;
    r->fn = fn;
    r->user = user;
    r->base = path;
    r->depth = 0;
    r->proofs = NULL;
    r->use_proofs = false;
}

size_t tmpl_validate(const struct tmplschema *s, struct tmpl_type t, const struct ynode *n, const char *path,
                     tmpl_error_fn fn, void *user)
{
    struct reader r;

    reader_init(&r, s, path, fn, user);
    read_value(&r, n, t);
    return r.errors;
}

struct tmpl_mapping *tmpl_mapping_begin(const struct tmplschema *s, struct tmpl_type t, const struct ynode *at,
                                        const char *path, tmpl_error_fn fn, void *user)
{
    /* streaming: the mapping with a reader of its own (freed with it: its first member) */
    struct streamed {
        struct tmpl_mapping m;
        struct reader r;
    } *sm = malloc(sizeof(*sm));

    if (!sm)
        return NULL;
    reader_init(&sm->r, s, path, fn, user);
    mapping_begin(&sm->m, &sm->r, t, at);
    sm->m.keys.copies = true; /* its pairs' trees go before it does */
    return &sm->m;
}

bool tmpl_mapping_pair(struct tmpl_mapping *m, const struct ynode *key, const struct ynode *value,
                       struct tmpl_type *value_type)
{
    struct tmpl_type vt;

    return mapping_pair(m, key, value, value_type ? value_type : &vt);
}

size_t tmpl_mapping_end(struct tmpl_mapping *m)
{
    size_t n;

    if (!m)
        return 0;
    n = mapping_end(m);
    free(m);
    return n;
}

void tmpl_mapping_prove(struct tmpl_mapping *m, struct tmpl_proofs *p, bool use)
{
    m->r->proofs = p;
    m->r->use_proofs = use;
}

void tmpl_mapping_drop(struct tmpl_mapping *m)
{
    if (m)
        tmpl_keyset_free(&m->keys);
    free(m);
}
