/* glob_zzglob: drjosh.dev/zzglob v0.4.3, the glob library buildkite-agent applies
 * `if_changed` with (clicommand/pipeline_upload.go: zzglob.Parse(pattern) with the
 * default options, then Pattern.Match(path)), step after step: tokenise.go on a POSIX
 * system (\ escapes), preprocess.go, parsers.go's automaton, match.go and
 * state_machine.go's simulation. Characters are runes as Go's `range` reads a string
 * (a byte that begins no valid UTF-8 character is U+FFFD). */
#include "glob_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"

#define MAX_NESTING 1000 /* fanout's bound on nested braces (Go's stack grows; ours does not) */

/* tokeniser.go: a literal is its rune (>= 0), a special token negative */
enum {
    T_STAR = -'*', T_QUESTION = -'?', T_OPEN_BRACE = -'{', T_CLOSE_BRACE = -'}',
    T_OPEN_BRACKET = -'[', T_CLOSE_BRACKET = -']', T_COMMA = -',', T_DOUBLE_STAR = -128,
    T_BRACKET_CARET = -129
};

struct ztok {
    int32_t t;
    size_t at; /* its byte offset in the pattern, for messages */
};

struct ztoks {
    struct ztok *v;
    size_t n, cap;
    bool oom;
};

enum zexpr { Z_EPS, Z_LIT, Z_STAR, Z_DOUBLE_STAR, Z_QUESTION, Z_NEG_SET, Z_NEG_LIT };

struct zedge {
    enum zexpr expr;
    int32_t rune;
    size_t set, set_len; /* Z_NEG_SET: its runes, sorted, in the sets array */
    size_t to;
};

struct zstate {
    struct zedge *out;
    size_t n, cap;
    bool accept;
};

struct zzglob {
    char *root; /* the literal prefix a path must begin with (match.go's CutPrefix) */
    size_t root_len;
    bool literal; /* all literal: the path must be the root */
    bool home;    /* began with ~/: the agent's home directory (glob.h) */
    struct zstate *states;
    size_t nstates, capstates;
    int32_t *sets;
    size_t nsets, capsets;
    size_t initial;
    bool oom;
};

/* Go's utf8.DecodeRuneInString */
static int32_t decode(const char *s, size_t i, size_t n, size_t *width)
{
    const unsigned char *u = (const unsigned char *)s + i;
    size_t avail = n - i;
    *width = 1;
    if (u[0] < 0x80)
        return u[0];
    size_t len = u[0] >= 0xC2 && u[0] <= 0xDF   ? 2
                 : u[0] >= 0xE0 && u[0] <= 0xEF ? 3
                 : u[0] >= 0xF0 && u[0] <= 0xF4 ? 4
                                                : 0;
    if (!len || avail < len)
        return 0xFFFD;
    int32_t r = u[0] & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
    for (size_t k = 1; k < len; k++) {
        if ((u[k] & 0xC0) != 0x80)
            return 0xFFFD;
        r = (r << 6) | (u[k] & 0x3F);
    }
    if ((len == 3 && (r < 0x800 || (r >= 0xD800 && r <= 0xDFFF))) ||
        (len == 4 && (r < 0x10000 || r > 0x10FFFF)))
        return 0xFFFD;
    *width = len;
    return r;
}

static void encode(int32_t r, char *buf, size_t *len)
{
    unsigned u = (unsigned)r;
    if (u < 0x80) {
        buf[0] = (char)u;
        *len = 1;
    } else if (u < 0x800) {
        buf[0] = (char)(0xC0 | (u >> 6));
        buf[1] = (char)(0x80 | (u & 0x3F));
        *len = 2;
    } else if (u < 0x10000) {
        buf[0] = (char)(0xE0 | (u >> 12));
        buf[1] = (char)(0x80 | ((u >> 6) & 0x3F));
        buf[2] = (char)(0x80 | (u & 0x3F));
        *len = 3;
    } else {
        buf[0] = (char)(0xF0 | (u >> 18));
        buf[1] = (char)(0x80 | ((u >> 12) & 0x3F));
        buf[2] = (char)(0x80 | ((u >> 6) & 0x3F));
        buf[3] = (char)(0x80 | (u & 0x3F));
        *len = 4;
    }
}

static void emit(struct ztoks *k, int32_t t, size_t at)
{
    struct ztok *v = array_grow(k->v, &k->cap, k->n + 1, 16, sizeof(*v));
    if (!v) {
        k->oom = true;
        return;
    }
    k->v = v;
    k->v[k->n++] = (struct ztok){t, at};
}

/* tokeniser.go's tokenise with the default parse config on a POSIX system */
static void tokenise(const char *p, size_t n, struct ztoks *k)
{
    int32_t prev = 0;
    size_t prev_at = 0;
    bool inside_cc = false;

    for (size_t i = 0, w; i < n; i += w) {
        int32_t c = decode(p, i, n, &w);
        if (prev == '\\') {
            prev = 0;
            emit(k, c, prev_at);
            continue;
        }
        if (prev == '*') {
            prev = 0;
            if (c == '*') {
                emit(k, T_DOUBLE_STAR, prev_at);
                continue;
            }
            emit(k, T_STAR, prev_at);
        } else if (prev == '[') {
            prev = 0;
            inside_cc = true;
            if (c == '^') {
                emit(k, T_BRACKET_CARET, prev_at);
                continue;
            }
            emit(k, T_OPEN_BRACKET, prev_at);
        }
        if (inside_cc) {
            if (c == '\\') {
                prev = '\\';
                prev_at = i;
            } else if (c == ']') {
                emit(k, T_CLOSE_BRACKET, i);
                inside_cc = false;
            } else {
                emit(k, c, i);
            }
            continue;
        }
        switch (c) {
        case '*': case '\\': case '[':
            prev = c;
            prev_at = i;
            break;
        case '?':
            emit(k, T_QUESTION, i);
            break;
        case '{': case '}': case ',':
            emit(k, -c, i);
            break;
        default:
            emit(k, c, i);
            break;
        }
    }
    if (prev == '*')
        emit(k, T_STAR, prev_at);
    else if (prev)
        emit(k, prev, prev_at);
}

static bool has_prefix(const struct ztoks *k, const int32_t *prefix, size_t n)
{
    if (k->n < n)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (k->v[i].t != prefix[i])
            return false;
    }
    return true;
}

/* preprocess.go: a leading `**` and slash becomes {,**SLASH}, and a slash, `**` and slash
 * anywhere SLASH{,**SLASH} (replaceAll:
 * a partial match that fails puts back what it had and goes on with the next token,
 * without trying the failing one as a new start). */
static void preprocess(struct ztoks *k, bool *home)
{
    static const int32_t star_slash[] = {T_DOUBLE_STAR, '/'}, tilde[] = {'~', '/'};
    static const int32_t find[] = {'/', T_DOUBLE_STAR, '/'};
    static const int32_t sub[] = {'/', T_OPEN_BRACE, T_COMMA, T_DOUBLE_STAR, '/', T_CLOSE_BRACE};
    struct ztoks out = {0};
    size_t next = 0, start = 0;

    if (has_prefix(k, star_slash, 2)) {
        size_t at = k->v[0].at;
        emit(&out, T_OPEN_BRACE, at);
        emit(&out, T_COMMA, at);
        emit(&out, T_DOUBLE_STAR, at);
        emit(&out, '/', at);
        emit(&out, T_CLOSE_BRACE, at);
        start = 2;
    } else if (has_prefix(k, tilde, 2)) {
        *home = true; /* expanded to user.Current()'s home directory */
        start = 2;
    }
    for (size_t i = start; i < k->n; i++) {
        struct ztok t = k->v[i];
        if (t.t == find[next]) {
            if (++next == 3) {
                for (size_t s = 0; s < 6; s++)
                    emit(&out, sub[s], k->v[i - 2 + (s ? 1 : 0)].at);
                next = 0;
            }
            continue;
        }
        for (size_t s = 0; s < next; s++)
            emit(&out, find[s], k->v[i - next + s].at);
        next = 0;
        emit(&out, t.t, t.at);
    }
    for (size_t s = 0; s < next; s++)
        emit(&out, find[s], k->v[k->n - next + s].at);
    if (out.oom)
        k->oom = true;
    free(k->v);
    *k = (struct ztoks){out.v, out.n, out.cap, k->oom};
}

static size_t new_state(struct zzglob *z)
{
    struct zstate *states = array_grow(z->states, &z->capstates, z->nstates + 1, 16, sizeof(*states));
    if (!states) {
        z->oom = true;
        return 0;
    }
    z->states = states;
    z->states[z->nstates] = (struct zstate){0};
    return z->nstates++;
}

static void add_edge(struct zzglob *z, size_t from, struct zedge e)
{
    struct zstate *s = &z->states[from];
    struct zedge *out = array_grow(s->out, &s->cap, s->n + 1, 16, sizeof(*out));
    if (!out) {
        z->oom = true;
        return;
    }
    s->out = out;
    s->out[s->n++] = e;
}

struct zparse {
    struct zzglob *z;
    const struct ztoks *k;
    size_t pos;
    struct glob_error *err;
};

static bool fail(struct zparse *p, size_t at, const char *message)
{
    p->err->offset = at;
    snprintf(p->err->message, sizeof(p->err->message), "%s", message);
    return false;
}

static bool parse_sequence(struct zparse *p, bool inside_alt, unsigned depth, size_t *start,
                           size_t *end, int32_t *ended_with);

/* parsers.go's parseAlternation: a branch per sequence, merged at a new state */
static bool parse_alternation(struct zparse *p, size_t from, size_t open_at, unsigned depth,
                              size_t *end)
{
    if (depth > MAX_NESTING)
        return fail(p, open_at, "braces nest deeper than fanout follows (1000)");
    *end = new_state(p->z);
    for (;;) {
        size_t st, ed;
        int32_t done;
        if (!parse_sequence(p, true, depth + 1, &st, &ed, &done))
            return false;
        add_edge(p->z, from, (struct zedge){.expr = Z_EPS, .to = st});
        add_edge(p->z, ed, (struct zedge){.expr = Z_EPS, .to = *end});
        if (done == T_CLOSE_BRACE)
            return true;
        if (done != T_COMMA)
            return fail(p, open_at, "unterminated alternation - missing closing brace");
    }
}

static int rune_cmp(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* parseCharClass and parseNegatedCharClass: one edge a rune, or one negated edge */
static bool parse_class(struct zparse *p, size_t from, bool negated, size_t open_at, size_t *end)
{
    struct zzglob *z = p->z;
    size_t first = z->nsets;

    *end = new_state(z);
    for (;;) {
        if (p->pos >= p->k->n)
            return fail(p, open_at, negated ? "unterminated negated char class - missing "
                                              "closing square bracket"
                                            : "unterminated char class - missing closing "
                                              "square bracket");
        int32_t t = p->k->v[p->pos++].t;
        if (t < 0) {
            if (t != T_CLOSE_BRACKET)
                return fail(p, p->k->v[p->pos - 1].at, "invalid token within char class");
            break;
        }
        if (!negated) {
            add_edge(z, from, (struct zedge){.expr = Z_LIT, .rune = t, .to = *end});
            continue;
        }
        bool seen = false;
        for (size_t i = first; i < z->nsets && !seen; i++)
            seen = z->sets[i] == t;
        if (seen)
            continue;
        int32_t *sets = array_grow(z->sets, &z->capsets, z->nsets + 1, 16, sizeof(*sets));
        if (!sets) {
            z->oom = true;
            return false;
        }
        z->sets = sets;
        z->sets[z->nsets++] = t;
    }
    if (!negated)
        return true;
    size_t len = z->nsets - first;
    if (len == 1) {
        add_edge(z, from, (struct zedge){.expr = Z_NEG_LIT, .rune = z->sets[first], .to = *end});
        return true;
    }
    if (len > 1) /* `[^]` lists nothing: it matches any character */
        qsort(z->sets + first, len, sizeof(*z->sets), rune_cmp);
    add_edge(z, from, (struct zedge){.expr = Z_NEG_SET, .set = first, .set_len = len, .to = *end});
    return true;
}

/* parsers.go's parseSequence */
static bool parse_sequence(struct zparse *p, bool inside_alt, unsigned depth, size_t *start,
                           size_t *end, int32_t *ended_with)
{
    struct zzglob *z = p->z;

    *start = *end = new_state(z);
    *ended_with = 0;
    while (p->pos < p->k->n && !z->oom) {
        struct ztok t = p->k->v[p->pos++];
        size_t next;
        if (t.t >= 0 || ((t.t == T_CLOSE_BRACE || t.t == T_COMMA) && !inside_alt) ||
            t.t == T_CLOSE_BRACKET) {
            next = new_state(z);
            add_edge(z, *end, (struct zedge){.expr = Z_LIT, .rune = t.t >= 0 ? t.t : -t.t,
                                             .to = next});
            *end = next;
            continue;
        }
        switch (t.t) {
        case T_STAR:
        case T_DOUBLE_STAR:
            add_edge(z, *end, (struct zedge){.expr = t.t == T_STAR ? Z_STAR : Z_DOUBLE_STAR,
                                             .to = *end});
            break;
        case T_QUESTION:
            next = new_state(z);
            add_edge(z, *end, (struct zedge){.expr = Z_QUESTION, .to = next});
            *end = next;
            break;
        case T_OPEN_BRACE:
            if (!parse_alternation(p, *end, t.at, depth, &next))
                return false;
            *end = next;
            break;
        case T_CLOSE_BRACE:
        case T_COMMA: /* inside an alternation: the sequence ends */
            *ended_with = t.t;
            return true;
        default: /* T_OPEN_BRACKET, T_BRACKET_CARET */
            if (!parse_class(p, *end, t.t == T_BRACKET_CARET, t.at, &next))
                return false;
            *end = next;
            break;
        }
    }
    return !z->oom;
}

void glob_zz_free(struct zzglob *z)
{
    if (!z)
        return;
    for (size_t i = 0; i < z->nstates; i++)
        free(z->states[i].out);
    free(z->states);
    free(z->sets);
    free(z->root);
    free(z);
}

/* The runes of tokens [0, n) (all literal) as UTF-8. */
static char *literal_text(const struct ztoks *k, size_t n, size_t *len)
{
    char *s = malloc(n * 4 + 1);
    *len = 0;
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t w;
        encode(k->v[i].t, s + *len, &w);
        *len += w;
    }
    s[*len] = '\0';
    return s;
}

struct zzglob *glob_zz_parse(const char *pattern, size_t len, struct glob_error *err)
{
    struct zzglob *z = calloc(1, sizeof(*z));
    struct ztoks k = {0};
    size_t lits = 0, root = 0;

    if (!z)
        return NULL;
    tokenise(pattern, len, &k);
    preprocess(&k, &z->home);
    if (k.oom)
        goto fail;
    while (lits < k.n && k.v[lits].t >= 0) {
        if (k.v[lits].t == '/')
            root = lits + 1;
        lits++;
    }
    /* Parse: all literal (and something) is a path; else the root is the literal
     * prefix up to its last slash (findRoot) and the rest an automaton */
    z->literal = k.n && lits == k.n;
    z->root = literal_text(&k, z->literal ? k.n : root, &z->root_len);
    if (!z->root)
        goto fail;
    if (!z->literal) {
        struct zparse p = {z, &k, root, err};
        size_t terminal;
        int32_t ended;
        if (!parse_sequence(&p, false, 0, &z->initial, &terminal, &ended))
            goto fail;
        z->states[terminal].accept = true;
    }
    free(k.v);
    return z;
fail:
    if (z->oom || k.oom) {
        err->offset = 0;
        snprintf(err->message, sizeof(err->message), "%s", "out of memory");
    }
    free(k.v);
    glob_zz_free(z);
    return NULL;
}

static bool edge_matches(const struct zzglob *z, const struct zedge *e, int32_t r)
{
    switch (e->expr) {
    case Z_LIT:
        return e->rune == r;
    case Z_STAR:
    case Z_QUESTION:
        return r != '/';
    case Z_DOUBLE_STAR:
        return true;
    case Z_NEG_LIT:
        return e->rune != r;
    case Z_NEG_SET:
        return !e->set_len || !bsearch(&r, z->sets + e->set, e->set_len, sizeof(int32_t), rune_cmp);
    case Z_EPS:
        break;
    }
    return false;
}

/* state_machine.go's transitiveClosure over the set in `list` (marks: `mark`). */
static void closure(const struct zzglob *z, size_t *list, size_t *n, unsigned *mark, unsigned gen)
{
    for (size_t i = 0; i < *n; i++) {
        const struct zstate *s = &z->states[list[i]];
        for (size_t e = 0; e < s->n; e++) {
            if (s->out[e].expr == Z_EPS && mark[s->out[e].to] != gen) {
                mark[s->out[e].to] = gen;
                list[(*n)++] = s->out[e].to;
            }
        }
    }
}

bool glob_zz_match(const struct zzglob *z, const char *path, size_t len)
{
    if (z->home)
        return false; /* an absolute home directory: no repository path is under it */
    if (z->literal)
        return len == z->root_len && (!len || !memcmp(path, z->root, len));
    if (len < z->root_len || (z->root_len && memcmp(path, z->root, z->root_len)))
        return false;

    size_t *a = malloc(z->nstates * sizeof(*a)), *b = malloc(z->nstates * sizeof(*b));
    unsigned *mark = calloc(z->nstates, sizeof(*mark)), gen = 1;
    size_t na = 0, nb;
    bool accept = false;

    if (!a || !b || !mark)
        goto done;
    a[na++] = z->initial;
    mark[z->initial] = gen;
    closure(z, a, &na, mark, gen);
    for (size_t i = z->root_len, w; i < len && na; i += w) {
        int32_t r = decode(path, i, len, &w);
        gen++;
        nb = 0;
        for (size_t k = 0; k < na; k++) {
            const struct zstate *s = &z->states[a[k]];
            for (size_t e = 0; e < s->n; e++) {
                const struct zedge *ed = &s->out[e];
                if (ed->expr != Z_EPS && mark[ed->to] != gen && edge_matches(z, ed, r)) {
                    mark[ed->to] = gen;
                    b[nb++] = ed->to;
                }
            }
        }
        closure(z, b, &nb, mark, gen);
        size_t *t = a;
        a = b;
        b = t;
        na = nb;
    }
    for (size_t k = 0; k < na && !accept; k++)
        accept = z->states[a[k]].accept;
done:
    free(a);
    free(b);
    free(mark);
    return accept;
}
