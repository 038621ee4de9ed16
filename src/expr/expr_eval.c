/* Partial evaluation and the canonical text of what stays unknown.
 *
 * Every node evaluates to a value (a reference) or to a residual node: a residual
 * depends on a context that is not known, or calls hashFiles() or a status function,
 * which fanout can never know. Known parts are folded into literals, as GitHub would
 * compute them (evaluator.ts and funcs/). && and || return an operand and skip the rest
 * once the result is decided, so folding keeps that: `true && x` -> x, `false && x` ->
 * false, `'' || x` -> x, `'a' || x` -> 'a', and a known operand after an unknown one is
 * dropped when it cannot decide (`x && true && y` -> `x && y`).
 *
 * Where only truthiness matters (an `if:`, and operands of !, && and || there) also
 * `x && <truthy>` -> x and `x || <falsy>` -> x; and `x && <falsy>` -> the falsy value,
 * `x || <truthy>` -> the truthy one, when x cannot fail at run time (it calls none of
 * fromJSON, format, case, hashFiles), since GitHub would still evaluate it.
 *
 * An evaluation error (fromJSON of bad JSON...) is an error when GitHub would surely
 * meet it; in an operand that an unknown one before it may skip, the failing call is
 * kept in the residual instead, to fail at run time if it is reached.
 *
 * The canonical text: minimal parentheses by precedence (|| < && < == != < < <= > >=
 * < ! < postfix), nested runs of the same && or || flattened, one space around binary
 * operators, ", " between arguments; contexts in lower case, functions in their
 * documented spelling (contains, startsWith, endsWith, format, join, toJSON, fromJSON,
 * case, hashFiles, success, always, cancelled, failure); `a.b` when b is an identifier
 * ([a-zA-Z_][a-zA-Z0-9_-]*), else `a['b']`, `a.*` for both filter spellings; strings
 * single-quoted with '' for a quote; numbers as JavaScript prints them (NaN, Infinity,
 * -Infinity included); a known array or object as fromJSON('<compact JSON>'), with `'`
 * written \u0027 and ±Infinity 1e400 and -1e400 inside, and followed by `.*` for the result of a filter (whose items
 * index one by one); a string holding a NUL as fromJSON('"...\u0000..."'). Every
 * residual is checked before it is returned (parsed again when its length or the tokens
 * written could reach GitHub's limits), so fanout never writes an expression GitHub
 * would refuse (too long or too deep). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr_internal.h"

enum { LAZY = 1, TRUTH = 2 };

struct ev {
    const struct expr_contexts *c;
    struct expr_arena arena; /* residual nodes */
    struct expr_held *held;  /* values of residual literals */
    struct expr_error *err;
};

/* Exactly one of v and r is set. */
struct pv {
    struct expr_value *v;
    struct expr_node *r;
    /* r is the parsed node itself where nothing under it was known (the rest of the
     * tree shares it, and write_residual finds the tree as parsed at once); where a copy
     * was made before, its offset was 0, which a message keeps */
    bool as_parsed;
};

/* Whether p is what kid evaluates to when nothing in it is known: kid itself, or its
 * literal's value. */
static bool unchanged(const struct expr_node *kid, const struct pv *p)
{
    return p->r ? p->r == kid : kid->kind == EN_LIT && p->v == kid->u.lit;
}

/* Sets *out to the parsed node n (nothing under it known). 0. */
static int as_parsed(const struct expr_node *n, struct pv *out)
{
    out->r = (struct expr_node *)n;
    out->as_parsed = true;
    return 0;
}

static int oom(struct ev *ev)
{
    return expr_fail(ev->err, 0, "out of memory");
}

static struct expr_node *rnode(struct ev *ev, int kind, uint32_t n)
{
    struct expr_node *node = expr_arena_alloc(&ev->arena, sizeof(*node));

    if (!node)
        return NULL;
    memset(node, 0, sizeof(*node));
    node->kind = (uint8_t)kind;
    node->n = n;
    if (n) {
        node->u.kids = expr_arena_alloc(&ev->arena, n * sizeof(*node->u.kids));
        if (!node->u.kids)
            return NULL;
        memset(node->u.kids, 0, n * sizeof(*node->u.kids)); /* `*` leaves kids[1] NULL */
    }
    return node;
}

/* A residual literal for `v` (the reference is taken, also on failure). */
static struct expr_node *lit_node(struct ev *ev, struct expr_value *v)
{
    struct expr_held *h = expr_arena_alloc(&ev->arena, sizeof(*h));
    struct expr_node *node;

    if (!h) {
        expr_unref(v);
        return NULL;
    }
    h->v = v;
    h->next = ev->held;
    ev->held = h;
    node = rnode(ev, EN_LIT, 0);
    if (node)
        node->u.lit = v;
    return node;
}

static struct expr_node *as_node(struct ev *ev, struct pv *p)
{
    struct expr_value *v = p->v;

    if (p->r)
        return p->r;
    p->v = NULL;
    return lit_node(ev, v);
}

static void release(struct pv *p)
{
    expr_unref(p->v);
    p->v = NULL;
}

/* ---- indexing (evaluator.ts: idxHelper, arrayAccess, objectAccess...) ---- */

struct index {
    bool star, has_str, has_int;
    const char *str;
    size_t len;
    double i;
    char num[EXPR_NUMBUF];
};

/* `idx` read as a key, and as an array's position when `array` (Number() of a string
 * index is most of a lookup, and an object never uses it). */
static void index_of(struct index *x, const struct expr_value *idx, bool array)
{
    double f;

    memset(x, 0, sizeof(*x));
    if (!idx) {
        x->star = true;
        return;
    }
    if (expr_is_primitive(idx)) {
        x->has_str = true;
        switch (idx->kind) {
        case EXPR_STRING:
            x->str = idx->u.str.s, x->len = idx->u.str.len;
            break;
        case EXPR_NUMBER:
            x->len = expr_coerce_number(idx->u.d, x->num), x->str = x->num;
            break;
        case EXPR_BOOL:
            x->str = idx->u.b ? "true" : "false", x->len = strlen(x->str);
            break;
        default:
            x->str = "", x->len = 0;
            break;
        }
    }
    if (!array)
        return;
    f = expr_to_number(idx);
    if (isfinite(f) && f >= 0) {
        x->has_int = true;
        x->i = floor(f);
    }
}

static int add_item(struct expr_value *a, struct expr_value *item)
{
    return expr_array_append(a, expr_ref(item));
}

static struct expr_value *filtered_access(const struct expr_value *fa, const struct index *x)
{
    struct expr_value *out = expr_filtered_array();

    for (size_t i = 0; out && i < fa->u.arr.n; i++) {
        const struct expr_value *item = fa->u.arr.items[i];
        struct expr_value *v;
        int rc = 0;

        if (item->kind == EXPR_OBJECT) {
            if (x->star) {
                for (size_t k = 0; rc == 0 && k < item->u.obj.n; k++)
                    rc = add_item(out, item->u.obj.pairs[k].v);
            } else if (x->has_str && (v = expr_get(item, x->str, x->len))) {
                rc = add_item(out, v);
            }
        } else if (item->kind == EXPR_ARRAY) {
            if (x->star) {
                for (size_t k = 0; rc == 0 && k < item->u.arr.n; k++)
                    rc = add_item(out, item->u.arr.items[k]);
            } else if (x->has_int && x->i < (double)item->u.arr.n) {
                rc = add_item(out, item->u.arr.items[(size_t)x->i]);
            }
        }
        if (rc != 0) {
            expr_unref(out);
            return NULL;
        }
    }
    return out;
}

struct expr_value *expr_index(const struct expr_value *obj, const struct expr_value *idx)
{
    struct index x;
    struct expr_value *out, *v;

    index_of(&x, idx, obj->kind == EXPR_ARRAY);
    if (obj->kind == EXPR_ARRAY && obj->filtered)
        return filtered_access(obj, &x);
    if (obj->kind != EXPR_ARRAY && obj->kind != EXPR_OBJECT)
        return x.star ? expr_filtered_array() : expr_null();
    if (x.star) {
        size_t n = expr_len(obj);

        out = expr_filtered_array();
        for (size_t i = 0; out && i < n; i++) {
            v = obj->kind == EXPR_ARRAY ? obj->u.arr.items[i] : obj->u.obj.pairs[i].v;
            if (add_item(out, v) != 0) {
                expr_unref(out);
                return NULL;
            }
        }
        return out;
    }
    if (obj->kind == EXPR_ARRAY) {
        if (x.has_int && x.i < (double)obj->u.arr.n)
            return expr_ref(obj->u.arr.items[(size_t)x.i]);
        return expr_null();
    }
    v = x.has_str ? expr_get(obj, x.str, x.len) : NULL;
    return v ? expr_ref(v) : expr_null();
}

/* ---- functions (funcs/ in the package) ---- */

/* coerceString of v, NUL-terminated, malloc'd; NULL when out of memory. */
static char *coerce(const struct expr_value *v, size_t *len)
{
    struct strbuf b = {.max = EXPR_MAX_STRING};

    expr_buf_coerce(&b, v);
    return strbuf_take(&b, len);
}

/* The string made in `b` as the result; -1 when it grew past EXPR_MAX_STRING. */
static int string_result(struct strbuf *b, size_t pos, struct expr_error *err,
                         struct expr_value **out)
{
    size_t len;
    char *s = strbuf_take(b, &len);

    if (!s && b->too_long) {
        b->too_long = false;
        return expr_fail(err, pos, "the result would be longer than %zu MiB",
                         EXPR_MAX_STRING >> 20);
    }
    *out = s ? expr_string(s, len) : NULL;
    free(s);
    return *out ? 0 : -2;
}

/* A function's result: 0, -1 for an evaluation error (*err set), -2 out of memory. */
static int fn_contains(struct expr_value **args, struct expr_value **out)
{
    const struct expr_value *l = args[0], *r = args[1];
    bool found = false;

    if (expr_is_primitive(l) && expr_is_primitive(r)) {
        size_t ll, rl, fl, fr;
        char *ls = coerce(l, &ll), *rs = coerce(r, &rl);
        char *lf = ls ? expr_upper(ls, ll, &fl) : NULL;
        char *rf = rs ? expr_upper(rs, rl, &fr) : NULL;
        int rc = lf && rf ? expr_find(lf, fl, rf, fr) : -1;

        free(ls);
        free(rs);
        free(lf);
        free(rf);
        if (rc < 0)
            return -2;
        found = rc;
    } else if (l->kind == EXPR_ARRAY) {
        for (size_t i = 0; !found && i < l->u.arr.n; i++)
            found = expr_equal(r, l->u.arr.items[i]);
    }
    *out = expr_bool(found);
    return *out ? 0 : -2;
}

static int fn_affix(struct expr_value **args, bool start, struct expr_value **out)
{
    bool yes = false;

    if (expr_is_primitive(args[0]) && expr_is_primitive(args[1])) {
        size_t ll, rl, fl, fr;
        char *ls = coerce(args[0], &ll), *rs = coerce(args[1], &rl);
        char *lf = ls ? expr_upper(ls, ll, &fl) : NULL;
        char *rf = rs ? expr_upper(rs, rl, &fr) : NULL;
        bool ok = lf && rf;

        if (ok && fr <= fl)
            yes = memcmp(start ? lf : lf + fl - fr, rf, fr) == 0;
        free(ls);
        free(rs);
        free(lf);
        free(rf);
        if (!ok)
            return -2;
    }
    *out = expr_bool(yes);
    return *out ? 0 : -2;
}

/* Where the next `c` is, searched once per run of the text: the package calls indexOf
 * from each position, which is quadratic on a long format string. */
struct scan {
    size_t from, at; /* the first `c` at or after `from` (SIZE_MAX: none) */
    bool valid;
};

static size_t next_of(const char *s, size_t len, char c, size_t from, struct scan *sc)
{
    const char *p;

    if (sc->valid && from >= sc->from && (sc->at == SIZE_MAX || sc->at >= from))
        return sc->at;
    p = from < len ? memchr(s + from, c, len - from) : NULL;
    sc->from = from;
    sc->at = p ? (size_t)(p - s) : SIZE_MAX;
    sc->valid = true;
    return sc->at;
}

static int fn_format(struct expr_value **args, size_t n, size_t pos, struct expr_error *err,
                     struct expr_value **out)
{
    struct strbuf b = {.max = EXPR_MAX_STRING};
    struct scan ls = {0}, rs = {0};
    size_t len, index = 0;
    char *fs = coerce(args[0], &len);
    int rc = -1;

    if (!fs)
        return -2;
    while (index < len) {
        size_t l = next_of(fs, len, '{', index, &ls), r = next_of(fs, len, '}', index, &rs);

        if (l != SIZE_MAX && (r == SIZE_MAX || r > l)) {
            size_t k = l + 1, arg = 0;

            if (k < len && fs[k] == '{') { /* {{ */
                strbuf_put(&b, fs + index, l - index + 1);
                index = l + 2;
                continue;
            }
            /* {N} and anything up to the next }, as the package reads it: {0:x} is {0}. */
            while (k < len && fs[k] >= '0' && fs[k] <= '9') {
                if (arg < 1000000)
                    arg = arg * 10 + (size_t)(fs[k] - '0');
                k++;
            }
            if (r == SIZE_MAX || r <= l + 1 || k == l + 1) {
                expr_fail(err, pos, "The following format string is invalid: %s", fs);
                goto done;
            }
            if (1 + arg > n - 1) {
                expr_fail(err, pos,
                          "The following format string references more arguments than were "
                          "supplied: %s",
                          fs);
                goto done;
            }
            strbuf_put(&b, fs + index, l - index);
            expr_buf_coerce(&b, args[1 + arg]);
            index = r + 1;
        } else if (r != SIZE_MAX) {
            if (r + 1 >= len || fs[r + 1] != '}') {
                expr_fail(err, pos, "The following format string is invalid: %s", fs);
                goto done;
            }
            strbuf_put(&b, fs + index, r - index + 1); /* }} */
            index = r + 2;
        } else {
            strbuf_put(&b, fs + index, len - index);
            break;
        }
    }
    rc = string_result(&b, pos, err, out);
done:
    strbuf_free(&b);
    free(fs);
    return rc;
}

static int fn_join(struct expr_value **args, size_t n, size_t pos, struct expr_error *err,
                   struct expr_value **out)
{
    struct strbuf b = {.max = EXPR_MAX_STRING};
    const struct expr_value *a = args[0];

    if (expr_is_primitive(a)) {
        expr_buf_coerce(&b, a);
    } else if (a->kind == EXPR_ARRAY) {
        for (size_t i = 0; i < a->u.arr.n; i++) {
            if (i > 0 && n > 1 && expr_is_primitive(args[1]))
                expr_buf_coerce(&b, args[1]);
            else if (i > 0)
                strbuf_putc(&b, ',');
            expr_buf_coerce(&b, a->u.arr.items[i]);
        }
    }
    return string_result(&b, pos, err, out);
}

/* The pieces the runner's toJSON writes for `v`, each costing EXPR_PIECE_COST: a scalar,
 * a key, an empty array or object, the start and the end of another. */
static size_t json_pieces(const struct expr_value *v)
{
    size_t n = expr_len(v), pieces = 2;

    if (expr_is_primitive(v) || n == 0)
        return 1;
    for (size_t i = 0; i < n; i++) {
        if (v->kind == EXPR_ARRAY)
            pieces += json_pieces(v->u.arr.items[i]);
        else
            pieces += 1 + json_pieces(v->u.obj.pairs[i].v);
    }
    return pieces;
}

static int fn_tojson(struct expr_value **args, size_t pos, struct expr_error *err,
                     struct expr_value **out)
{
    /* A UTF-16 code unit is at most 3 bytes of UTF-8: the buffer holds what the cap allows. */
    struct strbuf b = {.max = EXPR_MAX_MEMORY / 2 * 3};
    size_t pieces = json_pieces(args[0]);

    if (pieces <= EXPR_MAX_MEMORY / EXPR_PIECE_COST)
        expr_buf_json(&b, args[0], true);
    if (pieces > EXPR_MAX_MEMORY / EXPR_PIECE_COST || b.too_long ||
        (!b.oom && pieces * EXPR_PIECE_COST + 2 * expr_utf16_len(b.s, b.len) > EXPR_MAX_MEMORY)) {
        strbuf_free(&b);
        return expr_fail(err, pos,
                         "The maximum allowed memory size was exceeded while evaluating toJSON "
                         "(GitHub's runner allows %d bytes, a character counting two)",
                         EXPR_MAX_MEMORY);
    }
    return string_result(&b, pos, err, out);
}

static int fn_fromjson(struct expr_value **args, size_t pos, struct expr_error *err,
                       struct expr_value **out)
{
    size_t len, start = 0, end;
    char *s = coerce(args[0], &len), *msg = NULL;
    int rc;

    if (!s)
        return -2;
    end = len;
    expr_js_trim(s, &start, &end);
    if (start == end) {
        free(s);
        return expr_fail(err, pos, "fromJSON: empty input");
    }
    *out = expr_from_json(s, len, &msg);
    free(s);
    if (*out)
        return 0;
    rc = msg && strcmp(msg, "out of memory") != 0 ? -1 : -2;
    if (rc == -1)
        expr_fail(err, pos, "Error parsing JSON when evaluating fromJSON: %s", msg);
    free(msg);
    return rc;
}

static int fn_case(struct expr_value **args, size_t n, size_t pos, struct expr_error *err,
                   struct expr_value **out)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        if (args[i]->kind != EXPR_BOOL)
            return expr_fail(err, pos, "case predicate must evaluate to a boolean value");
        if (args[i]->u.b) {
            *out = expr_ref(args[i + 1]);
            return 0;
        }
    }
    *out = expr_ref(args[n - 1]);
    return 0;
}

static int call_fn(unsigned fn, struct expr_value **args, size_t n, size_t pos,
                   struct expr_error *err, struct expr_value **out)
{
    *out = NULL;
    switch (fn) {
    case EF_CONTAINS:
        return fn_contains(args, out);
    case EF_STARTSWITH:
    case EF_ENDSWITH:
        return fn_affix(args, fn == EF_STARTSWITH, out);
    case EF_FORMAT:
        return fn_format(args, n, pos, err, out);
    case EF_JOIN:
        return fn_join(args, n, pos, err, out);
    case EF_TOJSON:
        return fn_tojson(args, pos, err, out);
    case EF_FROMJSON:
        return fn_fromjson(args, pos, err, out);
    default:
        return fn_case(args, n, pos, err, out);
    }
}

/* ---- evaluation ---- */

static int eval(struct ev *ev, const struct expr_node *n, int flags, struct pv *out);

static bool compare(enum expr_op op, const struct expr_value *a, const struct expr_value *b)
{
    switch (op) {
    case EOP_EQ:
        return expr_equal(a, b);
    case EOP_NE:
        return !expr_equal(a, b);
    case EOP_GT:
        return expr_greater(a, b);
    case EOP_GE:
        return expr_equal(a, b) || expr_greater(a, b);
    case EOP_LT:
        return expr_less(a, b);
    default:
        return expr_equal(a, b) || expr_less(a, b);
    }
}

/* True when evaluating the residual `n` cannot fail at run time. */
static bool cannot_fail(const struct expr_node *n)
{
    if (n->kind == EN_LIT || n->kind == EN_CTX)
        return true;
    if (n->kind == EN_CALL && (n->fn == EF_FROMJSON || n->fn == EF_FORMAT || n->fn == EF_CASE ||
                               n->fn == EF_HASHFILES))
        return false;
    for (uint32_t i = 0; i < n->n; i++) {
        if (n->u.kids[i] && !cannot_fail(n->u.kids[i]))
            return false;
    }
    return true;
}

static bool calls_status(const struct expr_node *n)
{
    if (n->kind == EN_LIT || n->kind == EN_CTX)
        return false;
    if (n->kind == EN_CALL && expr_fn_is_status(n->fn))
        return true;
    for (uint32_t i = 0; i < n->n; i++) {
        if (n->u.kids[i] && calls_status(n->u.kids[i]))
            return true;
    }
    return false;
}

#define FEW_OPERANDS 8

static int eval_chain(struct ev *ev, const struct expr_node *n, int flags, struct pv *out)
{
    /* a few operands on the stack: calloc, which glibc serves without its thread cache,
     * was a tenth of a comparison */
    struct pv few[FEW_OPERANDS], *ops = n->n <= FEW_OPERANDS ? few : malloc(n->n * sizeof(*ops));
    struct pv acc = {0};
    uint32_t i;
    int rc = -1;

    if (!ops)
        return oom(ev);
    memset(ops, 0, n->n * sizeof(*ops));
    /* Every operand is evaluated, as GitHub does (no short cut in comparisons). */
    for (i = 0; i < n->n; i++) {
        if (eval(ev, n->u.kids[i], flags & LAZY, &ops[i]) != 0)
            goto done;
    }
    acc = ops[0];
    ops[0].v = NULL;
    for (i = 1; i < n->n && acc.v && ops[i].v; i++) {
        struct expr_value *b = expr_bool(compare(n->ops[i - 1], acc.v, ops[i].v));

        release(&acc);
        if (!b) {
            oom(ev);
            goto done;
        }
        acc.v = b;
    }
    if (i == 1 && unchanged(n->u.kids[0], &acc)) {
        for (i = 1; i < n->n && unchanged(n->u.kids[i], &ops[i]); i++)
            ;
        if (i == n->n) {
            rc = as_parsed(n, out);
            goto done;
        }
        i = 1;
    }
    if (i < n->n) { /* from here on unknown: acc op ops[i] op ... */
        struct expr_node *r = rnode(ev, EN_CHAIN, n->n - i + 1);

        if (!r || !(r->ops = expr_arena_alloc(&ev->arena, n->n - i)) ||
            !(r->u.kids[0] = as_node(ev, &acc))) {
            oom(ev);
            goto done;
        }
        memcpy(r->ops, n->ops + i - 1, n->n - i);
        for (uint32_t k = i; k < n->n; k++) {
            if (!(r->u.kids[k - i + 1] = as_node(ev, &ops[k]))) {
                oom(ev);
                goto done;
            }
        }
        out->r = r;
    } else {
        out->v = acc.v;
        acc.v = NULL;
    }
    rc = 0;
done:
    release(&acc);
    for (i = 0; i < n->n; i++)
        release(&ops[i]);
    if (ops != few)
        free(ops);
    return rc;
}

/* The operands of a run of && or ||, parenthesised runs of the same operator included:
 * `(a || b) || c` is `a || b || c`, and folding must see it so, or what it keeps of the
 * group (`a || null`) is not what it keeps of the run (`a`), and the residual, printed
 * flat, folds again differently. Returns how many; writes them when `ops` is given. */
static uint32_t run_operands(const struct expr_node *n, int kind, const struct expr_node **ops)
{
    uint32_t count = 0;

    for (uint32_t i = 0; i < n->n; i++) {
        const struct expr_node *k = n->u.kids[i];

        if (k->kind == kind)
            count += run_operands(k, kind, ops ? ops + count : NULL);
        else if (ops)
            ops[count++] = k;
        else
            count++;
    }
    return count;
}

static int eval_logical(struct ev *ev, const struct expr_node *n, int flags, struct pv *out)
{
    bool is_and = n->kind == EN_AND, truth = flags & TRUTH, safe = true;
    uint32_t count = run_operands(n, n->kind, NULL), nk = 0;
    bool first_as_parsed = false, same = count == n->n; /* same: each operand kept as parsed */
    const struct expr_node **ops = expr_arena_alloc(&ev->arena, count * sizeof(*ops));
    struct expr_node **kept = expr_arena_alloc(&ev->arena, count * sizeof(*kept));
    struct expr_node *r;

    if (!ops || !kept)
        return oom(ev);
    run_operands(n, n->kind, ops);
    for (uint32_t i = 0; i < count; i++) {
        struct pv a = {0};
        bool decides, last = i + 1 == count;
        int lazy = nk > 0 || (flags & LAZY) ? LAZY : 0; /* an unknown before may skip it */

        if (eval(ev, ops[i], (flags & TRUTH) | lazy, &a) != 0)
            return -1;
        if (a.r) {
            first_as_parsed = nk == 0 ? a.as_parsed : first_as_parsed;
            same = same && a.r == ops[i];
            kept[nk++] = a.r;
            safe = safe && cannot_fail(a.r);
            continue;
        }
        decides = expr_truthy(a.v) != is_and;
        if (nk == 0 && (decides || last)) {
            *out = a;
            return 0;
        }
        if (decides && truth && safe) {
            *out = a; /* x && <falsy>: falsy whatever x is */
            return 0;
        }
        if (decides || (last && !truth)) {
            same = false;
            if (!(kept[nk++] = as_node(ev, &a)))
                return oom(ev);
            break;
        }
        release(&a); /* cannot decide: the operands around it give the result */
    }
    if (nk == 1) {
        out->r = kept[0];
        out->as_parsed = first_as_parsed;
        return 0;
    }
    if (same && nk == count)
        return as_parsed(n, out);
    r = rnode(ev, n->kind, 0);
    if (!r)
        return oom(ev);
    r->n = nk;
    r->u.kids = kept;
    out->r = r;
    return 0;
}

static int eval_call(struct ev *ev, const struct expr_node *n, int flags, struct pv *out)
{
    bool many = n->n > FEW_OPERANDS; /* a few on the stack, as eval_chain's */
    struct pv few_args[FEW_OPERANDS], *args = many ? malloc(n->n * sizeof(*args)) : few_args;
    struct expr_value *few_vals[FEW_OPERANDS], **vals = many ? malloc(n->n * sizeof(*vals)) : few_vals;
    bool known = !expr_fn_is_status(n->fn) && n->fn != EF_HASHFILES;
    struct expr_node *r;
    uint32_t i;
    int rc = -1;

    if (!args || !vals) {
        oom(ev);
        goto done;
    }
    memset(args, 0, n->n * sizeof(*args));
    for (i = 0; i < n->n; i++) {
        if (eval(ev, n->u.kids[i], flags & LAZY, &args[i]) != 0)
            goto done;
        known = known && args[i].v != NULL;
        vals[i] = args[i].v;
    }
    if (known) {
        rc = call_fn(n->fn, vals, n->n, n->pos, ev->err, &out->v);
        if (rc == -2) {
            rc = oom(ev);
            goto done;
        }
        if (rc == 0 || !(flags & LAZY))
            goto done;
        /* Failing where it may not run: GitHub fails only if it gets there. */
    }
    for (i = 0; i < n->n && unchanged(n->u.kids[i], &args[i]); i++)
        ;
    if (i == n->n) {
        rc = as_parsed(n, out);
        goto done;
    }
    r = rnode(ev, EN_CALL, n->n);
    if (!r) {
        rc = oom(ev);
        goto done;
    }
    r->fn = n->fn;
    r->pos = n->pos;
    for (i = 0; i < n->n; i++) {
        if (!(r->u.kids[i] = as_node(ev, &args[i]))) {
            rc = oom(ev);
            goto done;
        }
    }
    out->r = r;
    rc = 0;
done:
    for (i = 0; i < n->n && args; i++)
        release(&args[i]);
    if (many) {
        free(args);
        free(vals);
    }
    return rc;
}

/* Member `index` of context value v for node n (an EN_INDEX): its value, or n left as
 * written when that member is unknown. */
static int index_member(struct ev *ev, const struct expr_node *n, const struct expr_value *v,
                        const struct expr_value *index, struct pv *out)
{
    out->v = expr_index(v, index);
    if (out->v && out->v->unknown) {
        expr_unref(out->v);
        out->v = NULL;
        out->r = (struct expr_node *)n;
        return 0;
    }
    return out->v ? 0 : oom(ev);
}

static int eval(struct ev *ev, const struct expr_node *n, int flags, struct pv *out)
{
    struct pv a, b; /* set where they are used: a matrix job's `matrix.x` needs neither */
    struct expr_node *r;
    struct expr_value *v;

    out->v = NULL;
    out->r = NULL;
    out->as_parsed = false;
    switch (n->kind) {
    case EN_LIT:
        out->v = expr_ref(n->u.lit);
        return 0;
    case EN_CTX:
        v = expr_contexts_get(ev->c, n->u.name);
        if (v && !expr_holds_unknown(v))
            out->v = expr_ref(v);
        else
            out->r = (struct expr_node *)n; /* the parsed node lives as long as the result */
        return 0;
    case EN_NOT:
        if (eval(ev, n->u.kids[0], flags, &a) != 0)
            return -1;
        if (a.v) {
            out->v = expr_bool(!expr_truthy(a.v));
            release(&a);
            return out->v ? 0 : oom(ev);
        }
        if (a.r == n->u.kids[0])
            return as_parsed(n, out);
        r = rnode(ev, EN_NOT, 1);
        if (!r)
            return oom(ev);
        r->u.kids[0] = a.r;
        out->r = r;
        return 0;
    case EN_INDEX:
        /* A known context indexed by a literal (matrix.os: most of a matrix job's
         * expressions) read at once, as the two ways below read it, without the
         * operands' evaluation (a third of a matrix configuration's evaluation). */
        v = n->u.kids[0]->kind == EN_CTX ? expr_contexts_get(ev->c, n->u.kids[0]->u.name) : NULL;
        if (v && n->u.kids[1] && n->u.kids[1]->kind == EN_LIT)
            return index_member(ev, n, v, n->u.kids[1]->u.lit, out);
        /* The index first, as GitHub does (it matters only for which error shows). */
        b = (struct pv){0};
        if (n->u.kids[1] && eval(ev, n->u.kids[1], flags & LAZY, &b) != 0)
            return -1;
        if (n->u.kids[0]->kind == EN_CTX && b.v && expr_holds_unknown(v)) {
            /* a member of a context known in part: known, or left as written */
            int rc = index_member(ev, n, v, b.v, out);

            release(&b);
            return rc;
        }
        if (eval(ev, n->u.kids[0], flags & LAZY, &a) != 0) {
            release(&b);
            return -1;
        }
        if (a.v && (b.v || !n->u.kids[1])) {
            out->v = expr_index(a.v, b.v);
            release(&a);
            release(&b);
            if (out->v && out->v->unknown) { /* a member of a member known in part */
                expr_unref(out->v);
                out->v = NULL;
                out->r = (struct expr_node *)n;
                return 0;
            }
            return out->v ? 0 : oom(ev);
        }
        if (unchanged(n->u.kids[0], &a) && (!n->u.kids[1] || unchanged(n->u.kids[1], &b))) {
            release(&a);
            release(&b);
            return as_parsed(n, out);
        }
        r = rnode(ev, EN_INDEX, 2);
        if (!r || !(r->u.kids[0] = as_node(ev, &a)) ||
            (n->u.kids[1] && !(r->u.kids[1] = as_node(ev, &b)))) {
            release(&a);
            release(&b);
            return oom(ev);
        }
        out->r = r;
        return 0;
    case EN_CHAIN:
        return eval_chain(ev, n, flags, out);
    case EN_AND:
    case EN_OR:
        return eval_logical(ev, n, flags, out);
    default:
        return eval_call(ev, n, flags, out);
    }
}

/* ---- canonical text ---- */

struct printer {
    struct strbuf b;
    const char *unknown[32]; /* contexts and functions, in order of first use */
    size_t nunknown;
    bool status, unwritable;
    /* The tokens written that can raise GitHub's parser a level (EXPR_MAX_DEPTH) for what
     * follows them: `(` of a grouping or a call, `!`, `&&`, `||`, `.` and `[`. A level is
     * raised by a token on the way to it (a run of && or || once, an index and its
     * expression by its `[`), so no path through the text is deeper than one for the
     * whole, one for a literal's fromJSON('...') at its end, and these. */
    size_t raising;
};

static void note_unknown(struct printer *p, const char *name)
{
    for (size_t i = 0; i < p->nunknown; i++) {
        if (p->unknown[i] == name)
            return;
    }
    if (p->nunknown < sizeof(p->unknown) / sizeof(p->unknown[0]))
        p->unknown[p->nunknown++] = name;
}

static int precedence(const struct expr_node *n)
{
    switch (n->kind) {
    case EN_OR:
        return 1;
    case EN_AND:
        return 2;
    case EN_CHAIN:
        return n->ops[0] == EOP_EQ || n->ops[0] == EOP_NE ? 3 : 4;
    case EN_NOT:
        return 5;
    default:
        return 6;
    }
}

void expr_buf_string_literal(struct strbuf *b, const char *s, size_t len)
{
    size_t run = 0;

    if (memchr(s, '\0', len)) {
        strbuf_puts(b, "fromJSON('");
        expr_buf_json_string(b, s, len, true);
        strbuf_puts(b, "')");
        return;
    }
    strbuf_putc(b, '\'');
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\'') {
            strbuf_put(b, s + run, i + 1 - run);
            run = i; /* the quote again */
        }
    }
    strbuf_put(b, s + run, len - run);
    strbuf_putc(b, '\'');
}

static void print_value(struct printer *p, const struct expr_value *v)
{
    char num[EXPR_NUMBUF];

    switch (v->kind) {
    case EXPR_NULL:
        strbuf_puts(&p->b, "null");
        break;
    case EXPR_BOOL:
        strbuf_puts(&p->b, v->u.b ? "true" : "false");
        break;
    case EXPR_NUMBER:
        strbuf_put(&p->b, num, expr_js_number(v->u.d, num));
        break;
    case EXPR_STRING:
        expr_buf_string_literal(&p->b, v->u.str.s, v->u.str.len);
        break;
    default:
        strbuf_puts(&p->b, "fromJSON('");
        if (expr_buf_json(&p->b, v, false) != 0)
            p->unwritable = true;
        strbuf_puts(&p->b, "')");
        if (v->filtered) {
            strbuf_puts(&p->b, ".*");
            p->raising++;
        }
        break;
    }
}

static bool is_identifier(const struct expr_value *v)
{
    const char *s;

    if (v->kind != EXPR_STRING || v->u.str.len == 0)
        return false;
    s = v->u.str.s;
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return false;
    for (size_t i = 1; i < v->u.str.len; i++) {
        char c = s[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

static void print(struct printer *p, const struct expr_node *n, int min);

/* The operands of a run of && or ||, nested runs of the same operator flattened. */
static void print_run(struct printer *p, const struct expr_node *n, int kind, bool *first)
{
    for (uint32_t i = 0; i < n->n; i++) {
        const struct expr_node *k = n->u.kids[i];

        if (k->kind == kind) {
            print_run(p, k, kind, first);
            continue;
        }
        if (!*first) {
            strbuf_puts(&p->b, kind == EN_AND ? " && " : " || ");
            p->raising++;
        }
        *first = false;
        print(p, k, kind == EN_AND ? 3 : 2);
    }
}

static void print(struct printer *p, const struct expr_node *n, int min)
{
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
    int prec = precedence(n);
    bool parens = prec < min, first = true;
    const struct expr_node *base;

    if (parens) {
        strbuf_putc(&p->b, '(');
        p->raising++;
    }
    switch (n->kind) {
    case EN_LIT:
        print_value(p, n->u.lit);
        break;
    case EN_CTX:
        strbuf_puts(&p->b, n->u.name);
        note_unknown(p, n->u.name);
        break;
    case EN_NOT:
        strbuf_putc(&p->b, '!');
        p->raising++;
        print(p, n->u.kids[0], 5);
        break;
    case EN_CHAIN:
        print(p, n->u.kids[0], prec);
        for (uint32_t i = 1; i < n->n; i++) {
            strbuf_putc(&p->b, ' ');
            strbuf_puts(&p->b, ops[n->ops[i - 1]]);
            strbuf_putc(&p->b, ' ');
            print(p, n->u.kids[i], prec + 1);
        }
        break;
    case EN_AND:
    case EN_OR:
        print_run(p, n, n->kind, &first);
        break;
    case EN_INDEX:
        /* Only a context, a call, an index or a grouping may be indexed. */
        base = n->u.kids[0];
        if (base->kind == EN_CTX || base->kind == EN_CALL || base->kind == EN_INDEX ||
            (base->kind == EN_LIT && !expr_is_primitive(base->u.lit))) {
            print(p, base, 6);
        } else {
            strbuf_putc(&p->b, '(');
            p->raising++;
            print(p, base, 1);
            strbuf_putc(&p->b, ')');
        }
        p->raising++; /* `.` or `[` */
        if (!n->u.kids[1]) {
            strbuf_puts(&p->b, ".*");
        } else if (n->u.kids[1]->kind == EN_LIT && is_identifier(n->u.kids[1]->u.lit)) {
            strbuf_putc(&p->b, '.');
            strbuf_put(&p->b, n->u.kids[1]->u.lit->u.str.s, n->u.kids[1]->u.lit->u.str.len);
        } else {
            strbuf_putc(&p->b, '[');
            print(p, n->u.kids[1], 1);
            strbuf_putc(&p->b, ']');
        }
        break;
    default:
        strbuf_puts(&p->b, expr_fns[n->fn].name);
        if (expr_fn_is_status(n->fn) || n->fn == EF_HASHFILES)
            note_unknown(p, expr_fns[n->fn].name);
        p->status = p->status || expr_fn_is_status(n->fn);
        strbuf_putc(&p->b, '(');
        p->raising++;
        for (uint32_t i = 0; i < n->n; i++) {
            if (i)
                strbuf_puts(&p->b, ", ");
            print(p, n->u.kids[i], 1);
        }
        strbuf_putc(&p->b, ')');
        break;
    }
    if (parens)
        strbuf_putc(&p->b, ')');
}

/* Whether residual `r` is tree `n` as parsed: the same kinds, operators, functions,
 * contexts and literal values (the parsed ones, not values that compare equal). */
static bool same_tree(const struct expr_node *r, const struct expr_node *n)
{
    if (r == n)
        return true;
    if (!r || !n || r->kind != n->kind || r->n != n->n)
        return false;
    switch (r->kind) {
    case EN_LIT:
        return r->u.lit == n->u.lit;
    case EN_CTX:
        return r->u.name == n->u.name;
    case EN_CHAIN:
        if (memcmp(r->ops, n->ops, n->n - 1) != 0)
            return false;
        break;
    case EN_CALL:
        if (r->fn != n->fn)
            return false;
        break;
    default:
        break;
    }
    for (uint32_t i = 0; i < n->n; i++) {
        if (!same_tree(r->u.kids[i], n->u.kids[i]))
            return false;
    }
    return true;
}

/* A residual kept with its tree, in one block: its texts follow it. */
struct expr_kept {
    const char *residual, *unknown;
    bool status;
};

/* The residual kept with `e` into `out`. 0, or -1 when out of memory. */
static int kept_residual(struct ev *ev, const struct expr *e, struct expr_result *out)
{
    out->residual = strdup(e->kept->residual);
    out->unknown = strdup(e->kept->unknown);
    out->status = e->kept->status;
    return out->residual && out->unknown ? 0 : oom(ev);
}

/* Keeps the residual in `out` with `e` (nothing when out of memory: it is written
 * again next time). */
static void keep_residual(struct expr *e, const struct expr_result *out)
{
    size_t rlen = strlen(out->residual) + 1, ulen = strlen(out->unknown) + 1;
    struct expr_kept *k = malloc(sizeof(*k) + rlen + ulen);
    char *text;

    if (!k)
        return;
    text = (char *)(k + 1);
    k->residual = memcpy(text, out->residual, rlen);
    k->unknown = memcpy(text + rlen, out->unknown, ulen);
    k->status = out->status;
    e->kept = k;
}

/* Fills out->residual, ->unknown and ->status from the residual node `r` of `e`. A
 * residual that is `e` as parsed (nothing in it known: a workflow's `github.*` tests,
 * in every job and matrix configuration) is printed and checked once, and kept with the
 * tree (a tree is one thread's: expr_parse's table is). */
static int write_residual(struct ev *ev, const struct expr *e, const struct pv *top,
                          struct expr_result *out)
{
    const struct expr_node *r = top->r;
    size_t pos = top->as_parsed && r->kind != EN_CALL ? 0 : r->pos; /* a copy's offset */
    struct printer p = {.b.max = EXPR_MAX_STRING};
    struct strbuf names = {.max = EXPR_MAX_STRING};
    struct expr_error check;
    struct expr *again, *keep = same_tree(r, e->root) ? (struct expr *)e : NULL;
    size_t len, bad;

    if (keep && keep->kept)
        return kept_residual(ev, e, out);
    print(&p, r, 1);
    if (p.b.too_long) { /* far past what GitHub parses */
        strbuf_free(&p.b);
        return expr_fail(ev->err, pos,
                         "the expression left to GitHub would be refused: Exceeded max "
                         "expression length %d", EXPR_MAX_LENGTH);
    }
    if (p.unwritable) {
        strbuf_free(&p.b);
        return expr_fail(ev->err, pos,
                         "a known value cannot be written into the expression: NaN "
                         "inside an array or object (JSON has no NaN)");
    }
    out->residual = strbuf_take(&p.b, &len);
    if (!out->residual)
        return oom(ev);
    /* GitHub takes the text when it is short enough, valid UTF-8 (a string fromJSON made
     * may not be) and surely not too deep (printer's `raising`); else the parser says */
    if (len <= EXPR_MAX_LENGTH && p.raising + 2 <= EXPR_MAX_DEPTH && expr_utf8_valid(out->residual, len, &bad))
        again = NULL;
    else if (!(again = expr_parse(out->residual, len, &check))) {
        if (strcmp(check.message, "out of memory") == 0)
            return oom(ev);
        return expr_fail(ev->err, pos, "the expression left to GitHub would be refused: %s",
                         check.message);
    }
    expr_free(again);
    for (size_t i = 0; i < p.nunknown; i++) {
        if (i)
            strbuf_puts(&names, ", ");
        strbuf_puts(&names, p.unknown[i]);
    }
    out->unknown = strbuf_take(&names, NULL);
    out->status = p.status;
    if (!out->unknown)
        return oom(ev);
    if (keep)
        keep_residual(keep, out);
    return 0;
}

void expr_result_clear(struct expr_result *r)
{
    if (!r)
        return;
    expr_unref(r->value);
    free(r->residual);
    free(r->unknown);
    r->value = NULL;
    r->residual = NULL;
    r->unknown = NULL;
    r->status = false;
}

int expr_eval(const struct expr *e, const struct expr_contexts *c, bool condition,
              struct expr_result *out, struct expr_error *err)
{
    struct ev ev = {c, {0}, NULL, err};
    struct pv top = {0};
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (eval(&ev, e->root, condition ? TRUTH : 0, &top) != 0)
        goto done;
    /* GitHub ANDs success() into an `if:` that calls no status function, so what stays
     * must call one when the original did: a truthy constant becomes always(), and a
     * residual that lost its calls is ANDed with always() (same truthiness). */
    if (condition && e->has_status && (top.r ? !calls_status(top.r) : expr_truthy(top.v))) {
        struct expr_node *always = rnode(&ev, EN_CALL, 0), *and = NULL;

        if (always)
            always->fn = EF_ALWAYS;
        if (always && top.r && (and = rnode(&ev, EN_AND, 2))) {
            and->u.kids[0] = always;
            and->u.kids[1] = top.r;
        }
        if (!always || (top.r && !and)) {
            oom(&ev);
            goto done;
        }
        release(&top);
        top.r = and ? and : always;
        top.as_parsed = false;
    }
    if (top.v) {
        out->value = top.v;
        top.v = NULL;
        rc = 0;
    } else {
        rc = write_residual(&ev, e, &top, out);
    }
done:
    release(&top);
    if (rc != 0)
        expr_result_clear(out);
    for (struct expr_held *h = ev.held; h; h = h->next)
        expr_unref(h->v);
    expr_arena_free(&ev.arena);
    return rc;
}
