/* substitute: a job's contexts (the run's known ones, `matrix`, `strategy`) and what
 * they fold: every `${{ }}` string of the fields where GitHub makes `matrix` and
 * `strategy` available substituted (its value, or the text with what stays unknown left
 * as expressions), and each step's `if:` folded (a step that never runs removed). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/source.h"
#include "fanout/text.h"
#include "fanout/yscalar.h"

#include "gha_internal.h"

/* Where a message about a scalar's text goes: the line and column of its offset in the
 * scalar, followed through the input's bytes (block scalars, folded lines, quotes and
 * escapes); at the scalar when those cannot be read again or no longer hold it. */
void gha_report_in_text(struct job *j, enum diag_severity sev, const struct ynode *at, size_t offset,
                        enum rule_id rule, const char *fmt, ...)
{
    struct ypos p = ynode_text_pos(at, offset);
    size_t len;
    char *raw = NULL;
    va_list ap;

    if (!at->verbatim && ynode_pos(at).line && at->style != YNODE_MADE &&
        (raw = source_lines(j->ctx->sources[p.file], ynode_raw_line(at), SOURCE_MAX_TOKEN + 4096, &len)))
        p = ynode_text_pos_raw(at, offset, raw, len);
    free(raw);
    va_start(ap, fmt);
    gha_vreport(j, sev, p, rule, fmt, ap);
    va_end(ap);
}

void gha_expr_error_at(struct job *j, const struct ynode *at, const struct expr_error *e)
{
    gha_report_in_text(j, DIAG_ERROR, at, e->offset, RULE_EXPRESSION, "%s", e->message);
}

bool gha_has_expression(const struct ynode *n)
{
    size_t len;
    const char *t = ynode_scalar(n, &len);

    return t && !(n->proven & YNODE_NO_EXPR) && expr_template_open(t, len) != SIZE_MAX;
}

struct ynode *gha_string_node(struct job *j, const char *s, size_t len, struct ypos pos)
{
    size_t n;
    char *text;
    struct ynode *out;

    /* what expr_template_literal leaves as it is, without its copy */
    if (expr_template_open(s, len) == SIZE_MAX && !memchr(s, '\0', len))
        return ynode_new_string(j->doc, s, len, pos);
    text = expr_template_literal(s, len, &n);
    out = text ? ynode_new_string(j->doc, text, n, pos) : NULL;

    free(text);
    return out;
}

/* A number as plain YAML that GitHub's reader (YamlObjectReader.MatchFloat, .NET's
 * correctly rounded Double.TryParse) reads back as the same double: the shortest digits
 * that round-trip, NaN and the infinities in YAML's own spellings (.nan, .inf,
 * -.inf; plain NaN and Infinity are strings there). */
static struct ynode *number_node(struct job *j, double d, struct ypos pos)
{
    char buf[EXPR_NUMBUF];

    if (isnan(d))
        return ynode_new_plain(j->doc, ".nan", pos);
    if (isinf(d))
        return ynode_new_plain(j->doc, d < 0 ? "-.inf" : ".inf", pos);
    expr_js_number(d, buf);
    return ynode_new_plain(j->doc, buf, pos);
}

/* A scalar value of a matrix row and its node, made once for the configurations of a
 * job (gha_shared.values). */
struct shared_value {
    const struct expr_value *v;
    struct ypos pos;
    struct ynode *node;
};

/* Past this many, a row's value is made for each configuration. */
#define SHARED_VALUES 64

/* gha_node_from_value, the value made anew. */
static struct ynode *value_node(struct job *j, const struct expr_value *v, bool in_field, struct ypos pos)
{
    struct ynode *n = NULL;
    size_t len;
    const char *s;
    char *text;

    switch (expr_kind_of(v)) {
    case EXPR_NULL:
        return in_field ? ynode_new_string(j->doc, "", 0, pos) : ynode_new_plain(j->doc, "null", pos);
    case EXPR_BOOL:
        return ynode_new_plain(j->doc, expr_bool_value(v) ? "true" : "false", pos);
    case EXPR_NUMBER:
        /* -0 stays -0, as GitHub's YAML and JSON readers keep it (the job's name shows
         * it so; JavaScript's text of it is 0) */
        if (expr_number_value(v) == 0 && signbit(expr_number_value(v)))
            return ynode_new_plain(j->doc, "-0", pos);
        if (!in_field)
            return number_node(j, expr_number_value(v), pos);
        if (!(text = expr_to_string(v)))
            return NULL;
        n = ynode_new_plain(j->doc, text, pos);
        free(text);
        return n;
    case EXPR_STRING:
        s = expr_string_value(v, &len);
        return gha_string_node(j, s, len, pos);
    case EXPR_ARRAY:
        if (!(n = ynode_new_seq(j->doc, pos)))
            return NULL;
        for (size_t i = 0; i < expr_len(v); i++) {
            struct ynode *item = gha_node_from_value(j, expr_item(v, i), in_field, pos);

            if (!item || ynode_append(j->doc, n, item) != 0)
                return NULL;
        }
        return n;
    case EXPR_OBJECT:
        if (!(n = ynode_new_map(j->doc, pos)))
            return NULL;
        for (size_t i = 0; i < expr_len(v); i++) {
            struct ynode *val = gha_node_from_value(j, expr_member(v, i), in_field, pos);
            struct ynode *key;

            s = expr_key(v, i, &len);
            key = ynode_new_string(j->doc, s, len, pos);
            if (!key || !val || ynode_append_pair(j->doc, n, key, val) != 0)
                return NULL;
        }
        return n;
    }
    return NULL;
}

/* The node of scalar `v` of a row: the one an earlier configuration's row got for the
 * same value at the same place (the rows hold the matrix's own values), then shared
 * (ynode.h: proven once by the rendering's check). */
static struct ynode *row_scalar_node(struct job *j, const struct expr_value *v, struct ypos pos)
{
    struct gha_shared *sh = j->shared;
    struct shared_value *grown;
    struct ynode *n;

    for (size_t i = 0; i < sh->n_values; i++) {
        const struct shared_value *e = &sh->values[i];

        if (e->v == v && e->pos.file == pos.file && e->pos.line == pos.line && e->pos.col == pos.col) {
            e->node->proven |= YNODE_SHARED;
            return e->node;
        }
    }
    if (!(n = value_node(j, v, false, pos)) || sh->n_values == SHARED_VALUES)
        return n;
    if (sh->n_values == sh->cap_values) {
        if (!(grown = array_grow(sh->values, &sh->cap_values, sh->n_values + 1, 8, sizeof(*grown))))
            return n;
        sh->values = grown;
    }
    sh->values[sh->n_values++] = (struct shared_value){v, pos, n};
    return n;
}

/* A value as a node of the rendering: strings stay strings whatever they look like
 * (gha_string_node). In a matrix row each value reads back as itself: null stays null
 * (toJSON(matrix) shows it), a number as number_node. With `in_field` null is the empty
 * string and a number prints as GitHub prints it (what it makes of them in a field). */
struct ynode *gha_node_from_value(struct job *j, const struct expr_value *v, bool in_field, struct ypos pos)
{
    if (!in_field && j->shared && expr_kind_of(v) != EXPR_ARRAY && expr_kind_of(v) != EXPR_OBJECT)
        return row_scalar_node(j, v, pos);
    return value_node(j, v, in_field, pos);
}

/* A node's reads of what changes between configurations: up to SHARED_READS members of
 * `matrix` by name, or (`n` -1) what a node is substituted in each configuration for:
 * `strategy` (job-index), the whole matrix, more members. */
#define SHARED_READS 4
/* Variants a node keeps (what it became for a tuple of those members' values); past
 * them, it is substituted in each configuration. */
#define SHARED_VARIANTS 16

struct shared_name {
    const char *name;
    size_t len;
};

struct shared_reads {
    int n;
    struct shared_name read[SHARED_READS];
};

/* In the job's pool of variants (indexes stay as it grows), each slot's linked. */
struct shared_variant {
    const struct expr_value *values[SHARED_READS];
    struct ynode *to;
    size_t next; /* the slot's next variant + 1, 0: none */
    bool runs;   /* a step's: whether it runs */
};

/* Small (a job's table is made for each matrix job): its reads' names are in the job's
 * pool of names, from `names`. */
struct gha_shared_slot {
    const struct ynode *from;
    int n_reads;
    uint32_t names;
    uint32_t first; /* its first variant + 1, 0: none */
    uint32_t n_variants;
};

/* What recall() found to look for, for remember(). */
struct shared_key {
    const struct ynode *from;
    struct gha_shared_slot *slot; /* while the table has `cap` slots */
    size_t cap;
    int n; /* -1: nothing to keep */
    const struct expr_value *values[SHARED_READS];
};

void gha_shared_clear(struct gha_shared *s)
{
    free(s->values);
    free(s->names);
    free(s->variants);
    free(s->slots);
    memset(s, 0, sizeof(*s));
}

static size_t slot_of(const struct ynode *n, size_t cap)
{
    return (size_t)(((uintptr_t)n >> 3) * 0x9E3779B97F4A7C15u >> 32) & (cap - 1);
}

/* The slot of node n (from NULL: not there yet), or NULL when out of memory. */
static struct gha_shared_slot *shared_slot(struct gha_shared *s, const struct ynode *n)
{
    size_t at;

    if (2 * (s->n + 1) > s->cap) { /* at most half full */
        size_t cap = s->cap ? 2 * s->cap : 32;
        struct gha_shared_slot *slots = calloc(cap, sizeof(*slots));

        if (!slots)
            return NULL;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slots[i].from)
                continue;
            for (at = slot_of(s->slots[i].from, cap); slots[at].from; at = (at + 1) & (cap - 1))
                ;
            slots[at] = s->slots[i];
        }
        free(s->slots);
        s->slots = slots;
        s->cap = cap;
    }
    for (at = slot_of(n, s->cap); s->slots[at].from && s->slots[at].from != n; at = (at + 1) & (s->cap - 1))
        ;
    return &s->slots[at];
}

/* Whether text holds `word` (lower case) at `at`, in any case. */
static bool word_at(const char *text, size_t len, size_t at, const char *word)
{
    for (; *word; word++, at++) {
        if (at >= len || (text[at] | 0x20) != *word)
            return false;
    }
    return true;
}

/* The characters of a name in an expression (a context's, a property's: [A-Za-z0-9_-]). */
static const bool name_chars[256] = {
    ['-'] = true, ['_'] = true,
    ['0'] = true, ['1'] = true, ['2'] = true, ['3'] = true, ['4'] = true, ['5'] = true, ['6'] = true,
    ['7'] = true, ['8'] = true, ['9'] = true,
    ['A'] = true, ['B'] = true, ['C'] = true, ['D'] = true, ['E'] = true, ['F'] = true, ['G'] = true,
    ['H'] = true, ['I'] = true, ['J'] = true, ['K'] = true, ['L'] = true, ['M'] = true, ['N'] = true,
    ['O'] = true, ['P'] = true, ['Q'] = true, ['R'] = true, ['S'] = true, ['T'] = true, ['U'] = true,
    ['V'] = true, ['W'] = true, ['X'] = true, ['Y'] = true, ['Z'] = true,
    ['a'] = true, ['b'] = true, ['c'] = true, ['d'] = true, ['e'] = true, ['f'] = true, ['g'] = true,
    ['h'] = true, ['i'] = true, ['j'] = true, ['k'] = true, ['l'] = true, ['m'] = true, ['n'] = true,
    ['o'] = true, ['p'] = true, ['q'] = true, ['r'] = true, ['s'] = true, ['t'] = true, ['u'] = true,
    ['v'] = true, ['w'] = true, ['x'] = true, ['y'] = true, ['z'] = true,
};

static bool is_name_char(char c)
{
    return name_chars[(unsigned char)c];
}

/* Adds `name` to the reads `r` (once; past SHARED_READS, it reads everything). */
static void add_read(struct shared_reads *r, const char *name, size_t len)
{
    int k = 0;

    while (k < r->n && !(r->read[k].len == len && !memcmp(r->read[k].name, name, len)))
        k++;
    if (k < r->n || r->n < 0)
        return;
    if (r->n == SHARED_READS) {
        r->n = -1;
        return;
    }
    r->read[r->n].name = name;
    r->read[r->n++].len = len;
}

/* Adds to `r` what the expression text[from..len) may read of the configuration, erring
 * towards more: every word `matrix` in it (in any case, in a string or not) reads the
 * member named after its `.`, and any other use of it (`matrix[x]`, `toJSON(matrix)`,
 * `matrix.*`) or a word `strategy` reads everything. */
static void add_reads(struct shared_reads *r, const char *text, size_t from, size_t len)
{
    for (size_t i = from; i < len && r->n >= 0;) {
        size_t start = i, name;

        if (!is_name_char(text[i])) {
            i++;
            continue;
        }
        while (i < len && is_name_char(text[i]))
            i++;
        if (i - start == 8 && word_at(text, len, start, "strategy")) {
            r->n = -1;
            return;
        }
        if (i - start != 6 || !word_at(text, len, start, "matrix"))
            continue;
        if (i + 1 >= len || text[i] != '.' || !is_name_char(text[i + 1])) {
            r->n = -1;
            return;
        }
        for (name = ++i; i < len && is_name_char(text[i]);)
            i++;
        add_read(r, text + name, i - name);
    }
}

/* The reads of node `n` (`step`: a step, whose `if:` is all expression, with or without
 * `${{ }}`), kept in its slot, made the first time: a scalar's `${{ }}` expressions as
 * expr_template's split ends them (expr_template_close; an unclosed one runs to the
 * end), a container's children's (each kept too, so a text is read once a job). */
static struct gha_shared_slot *reads_of(struct job *j, const struct ynode *n, bool step, struct shared_reads *r)
{
    struct gha_shared *sh = j->shared;
    struct gha_shared_slot *s = shared_slot(sh, n);
    size_t len, cap = sh->cap;
    const char *t;

    r->n = 0;
    if (!s) {
        r->n = -1;
        return NULL;
    }
    if (s->from) {
        r->n = s->n_reads;
        if (r->n > 0)
            memcpy(r->read, sh->names + s->names, (size_t)r->n * sizeof(*r->read));
        return s;
    }
    if (ynode_is_scalar(n)) { /* one with `${{` (its callers look first) */
        t = ynode_scalar(n, &len);
        for (size_t at = 0, open; t && at < len && r->n >= 0 &&
                                  (open = expr_template_open(t + at, len - at)) != SIZE_MAX;) {
            size_t close = expr_template_close(t, len, at + open), end = close ? close : len;

            add_reads(r, t, at + open + 3, end);
            at = end + 1;
        }
    }
    for (size_t i = 0; !ynode_is_scalar(n) && i < ynode_len(n) && r->n >= 0; i++) {
        const struct ynode *v = ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i);
        struct shared_reads child;

        if (step && ynode_scalar_is(ynode_key(n, i), "if") && (t = ynode_scalar(v, &len))) {
            add_reads(r, t, 0, len);
            continue;
        }
        if (ynode_is_scalar(v) && !gha_has_expression(v))
            continue;
        (void)reads_of(j, v, false, &child);
        for (int k = 0; k < child.n && r->n >= 0; k++)
            add_read(r, child.read[k].name, child.read[k].len);
        if (child.n < 0)
            r->n = -1;
    }
    if (r->n > 0 && sh->n_names + (size_t)r->n > sh->cap_names) {
        size_t grown = 2 * (sh->n_names + SHARED_READS);
        struct shared_name *names = grown < UINT32_MAX ? realloc(sh->names, grown * sizeof(*names)) : NULL;

        if (!names)
            r->n = -1;
        else
            sh->names = names, sh->cap_names = grown;
    }
    /* found again if the children's slots grew the table */
    if (sh->cap != cap && !(s = shared_slot(sh, n)))
        return NULL;
    s->from = n;
    s->n_reads = r->n;
    s->names = (uint32_t)sh->n_names;
    if (r->n > 0) {
        memcpy(sh->names + sh->n_names, r->read, (size_t)r->n * sizeof(*r->read));
        sh->n_names += (size_t)r->n;
    }
    sh->n++;
    return s;
}

static bool same_value(const struct expr_value *a, const struct expr_value *b)
{
    size_t alen, blen;
    const char *as, *bs;
    double ad, bd;

    if (a == b)
        return true;
    if (!a || !b || expr_kind_of(a) != expr_kind_of(b))
        return false;
    switch (expr_kind_of(a)) {
    case EXPR_NULL:
        return true;
    case EXPR_BOOL:
        return expr_truthy(a) == expr_truthy(b);
    case EXPR_NUMBER: /* bit for bit: -0 and 0 are written apart */
        ad = expr_number_value(a), bd = expr_number_value(b);
        return !memcmp(&ad, &bd, sizeof(ad));
    case EXPR_STRING:
        as = expr_string_value(a, &alen), bs = expr_string_value(b, &blen);
        return alen == blen && !memcmp(as, bs, alen);
    default: /* an array or object: the same one only */
        return false;
    }
}

/* What `n` (`step`: a step, its `if:` folded) became in an earlier configuration whose
 * values of what it reads are this one's: true with *to (and *runs) set. Else false,
 * with `key` filled for remember(). A node that reads more than `most` members is not
 * looked for (nor kept). */
static bool recall(struct job *j, const struct ynode *n, bool step, int most, struct shared_key *key,
                   struct ynode **to, bool *runs)
{
    struct gha_shared *sh = j->shared;
    struct gha_shared_slot *s;
    struct shared_reads r;

    key->from = n;
    key->n = -1;
    if (!sh || !(s = reads_of(j, n, step, &r)) || r.n < 0 || r.n > most)
        return false;
    key->slot = s;
    key->cap = sh->cap;
    key->n = r.n;
    for (int i = 0; i < r.n; i++)
        key->values[i] = expr_get(sh->matrix, r.read[i].name, r.read[i].len);
    for (size_t v = s->first; v; v = sh->variants[v - 1].next) {
        const struct shared_variant *kept = &sh->variants[v - 1];
        int i = 0;

        while (i < r.n && same_value(kept->values[i], key->values[i]))
            i++;
        if (i == r.n) {
            kept->to->proven |= YNODE_SHARED;
            *to = kept->to;
            *runs = kept->runs;
            return true;
        }
    }
    return false;
}

/* Keeps what key's node became. Out of memory, or past SHARED_VARIANTS, it is not. */
static void remember(struct job *j, const struct shared_key *key, struct ynode *to, bool runs)
{
    struct gha_shared *sh = j->shared;
    struct gha_shared_slot *s;
    struct shared_variant *v;

    if (key->n < 0 || j->failed || !to)
        return;
    s = sh->cap == key->cap ? key->slot : shared_slot(sh, key->from); /* the table grew */
    if (!s || !s->from || s->n_variants == SHARED_VARIANTS)
        return;
    if (sh->n_variants == sh->cap_variants) {
        size_t cap = sh->cap_variants ? 2 * sh->cap_variants : 16;

        if (cap >= UINT32_MAX || !(v = realloc(sh->variants, cap * sizeof(*v))))
            return;
        sh->variants = v;
        sh->cap_variants = cap;
    }
    v = &sh->variants[sh->n_variants++];
    memcpy(v->values, key->values, sizeof(v->values));
    v->to = to;
    v->runs = runs;
    v->next = s->first;
    s->first = (uint32_t)sh->n_variants;
    s->n_variants++;
}

/* A `${{ }}` string evaluated: its value as a node, or the text with what stays unknown
 * left as expressions. NULL after an error (reported). */
static struct ynode *substitute_each(struct job *j, struct ynode *n)
{
    struct expr_result res = {0};
    struct expr_error err;
    struct ynode *out;
    size_t len;
    const char *text = ynode_scalar(n, &len);

    if (expr_template_eval(text, len, j->contexts, &res, &err) != 0) {
        gha_expr_error_at(j, n, &err);
        return NULL;
    }
    if (res.value)
        out = gha_node_from_value(j, res.value, true, ynode_pos(n));
    else if (strlen(res.residual) == len && !memcmp(res.residual, text, len))
        out = ynode_new_string_of(j->doc, n); /* nothing known in it: the same text */
    else
        out = ynode_new_string(j->doc, res.residual, strlen(res.residual), ynode_pos(n));
    expr_result_clear(&res);
    if (!out)
        gha_out_of_memory(j, n);
    return out;
}

/* Child `i` of `n` (`old`) replaced by its substitution `new`: a container keeps its
 * proven mark (ynode.h) when nothing changed, or only a scalar's type and not its text,
 * or when `new` is `old`'s own copy (gha_own_copy: what changed is marked below it). */
static void put_child(struct ynode *n, size_t i, const struct ynode *old, struct ynode *new)
{
    if (new == old)
        return;
    if (!ynode_is_scalar(old) ? !ynode_is_scalar(new)
                              : ynode_is_scalar(new) && new->u.scalar.text == old->u.scalar.text)
        ynode_replace_equal(n, i, new);
    else if (ynode_is_map(n))
        ynode_set_value(n, i, new);
    else
        ynode_set_item(n, i, new);
}

/* Copy on write: a matrix job's configurations share what substitution leaves as it is
 * (most of a job: its copy for every configuration was 65M of the 1 MB matrix
 * workflow's 1,148M instructions), so a container is copied (shallow, holding what `n`
 * holds: its proven mark) before its first child changes. */
struct ynode *gha_own_copy(struct job *j, const struct ynode *n)
{
    struct ynode *c = ynode_copy_shallow(j->doc, n);

    if (!c)
        gha_out_of_memory(j, n);
    else
        c->proven = n->proven & YNODE_PROVEN;
    return c;
}

/* Substitutes every `${{ }}` string under `n`; returns the node to put in its place
 * (`n` itself when nothing changed: `n` is not changed). What an earlier configuration
 * got is taken (recall) for a field's whole value (`whole`) and for a scalar that reads
 * nothing that changes; a scalar that does is rarely worth it on its own (its step or
 * field was not). */
static struct ynode *substitute(struct job *j, struct ynode *n, bool whole)
{
    struct ynode *out = n;
    struct shared_key key = {.n = -1};
    bool runs;

    if (!n || j->failed || (ynode_is_scalar(n) && !gha_has_expression(n)))
        return n;
    if ((whole || ynode_is_scalar(n)) && recall(j, n, false, whole ? SHARED_READS : 0, &key, &out, &runs))
        return out;
    if (ynode_is_scalar(n)) {
        out = substitute_each(j, n);
        remember(j, &key, out, true);
        return out;
    }
    for (size_t i = 0; i < ynode_len(n); i++) {
        struct ynode *old = ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i);
        struct ynode *new = substitute(j, old, false);

        if (!new || (new != old && out == n && !(out = gha_own_copy(j, n))))
            return NULL;
        put_child(out, i, old, new);
    }
    remember(j, &key, out, true);
    return out;
}

/* Substitutes the fields of `map` named in `fields` (NULL-terminated): into `map` itself
 * when `own`, else into its own copy when a field changes (`whole`: a value is taken
 * whole from an earlier configuration when it can). Returns the map to put in its
 * place, NULL after an error (reported). */
static struct ynode *substitute_fields(struct job *j, struct ynode *map, const char *const *fields, bool own,
                                       bool whole)
{
    struct ynode *out = map;

    for (size_t i = 0; ynode_is_map(map) && i < ynode_len(map) && !j->failed; i++) {
        size_t len = 0;
        const char *key = ynode_scalar(ynode_key(map, i), &len);

        /* the first letters tell most names apart (a matrix job's every configuration's
         * every step is looked through) */
        for (const char *const *f = fields; key && *f; f++) {
            if (**f == *key && text_is(*f, key, len)) {
                struct ynode *old = ynode_value(map, i), *new = substitute(j, old, whole);

                if (!new || (new != old && !own && out == map && !(out = gha_own_copy(j, map))))
                    return NULL;
                put_child(out, i, old, new);
                break;
            }
        }
    }
    return j->failed ? NULL : out;
}

/* The job's `name` evaluated as WorkflowTemplateEvaluator.EvaluateJobName does: a string
 * made by GitHub's C# runtime (numbers in G15: 1E-07, not @actions/expressions' 1e-7);
 * an array or object fails the job there (TemplateEvaluator: "A mapping was not
 * expected"), so it is an error here. */
static void substitute_name(struct job *j, struct ynode *job)
{
    long at = ynode_find(job, "name", 4);
    struct ynode *n = at >= 0 ? ynode_value(job, (size_t)at) : NULL, *out;
    struct expr_result res = {0};
    struct expr_error err;
    size_t len;
    const char *text = ynode_scalar(n, &len);

    j->name_unknown = false;
    if (!text || !gha_has_expression(n))
        return;
    if (expr_template_string(text, len, j->contexts, &res, &err) != 0) {
        gha_expr_error_at(j, n, &err);
        return;
    }
    if (res.value && expr_kind_of(res.value) != EXPR_STRING) {
        gha_error_at(j, n, RULE_EXPRESSION, "the job's name is %s, where GitHub wants a string "
                     "(it fails the job: A %s was not expected)",
                     expr_kind_of(res.value) == EXPR_ARRAY ? "a list" : "a mapping",
                     expr_kind_of(res.value) == EXPR_ARRAY ? "sequence" : "mapping");
        expr_result_clear(&res);
        return;
    }
    j->name_unknown = !res.value;
    text = res.value ? expr_string_value(res.value, &len) : res.residual;
    out = res.value ? gha_string_node(j, text, len, ynode_pos(n))
                    : ynode_new_string(j->doc, text, strlen(text), ynode_pos(n));
    expr_result_clear(&res);
    if (!out)
        gha_out_of_memory(j, n);
    else
        ynode_set_value(job, (size_t)at, out);
}

/* Where GitHub makes `matrix` and `strategy` available (docs: contexts#context-availability;
 * `name` too: substitute_name). */
static const char *const job_fields[] = {"runs-on", "env", "container", "services",
                                         "timeout-minutes", "continue-on-error", "environment",
                                         "with", "secrets", "concurrency", NULL};
static const char *const step_fields[] = {"name", "run", "with", "env", "timeout-minutes",
                                          "continue-on-error", "working-directory", "shell", NULL};

static const char *const strategy_fields[] = {"fail-fast", "max-parallel", NULL};

/* The text GitHub reads an `if:` from: where YAML types a plain scalar as a boolean, null
 * or number (`True`, `~`, `.inf`), the literal's string (template-reader.js validate: a
 * literal where a string is wanted is literal.toString(): true, "" for null, a number as
 * JavaScript prints it) into `lit`; else the scalar's text. */
static const char *condition_source(const struct ynode *cond, size_t *len, char lit[EXPR_NUMBUF])
{
    const char *text = ynode_scalar(cond, len);
    struct expr_value *v;

    if (!text || ynode_is_string(cond) || yscalar_type(text, *len) == YS_STRING || !(v = expr_from_ynode(cond)))
        return text;
    if (expr_kind_of(v) == EXPR_NUMBER)
        *len = expr_js_number(expr_number_value(v), lit);
    else
        *len = (size_t)snprintf(lit, EXPR_NUMBUF, "%s", expr_kind_of(v) != EXPR_BOOL ? ""
                                                        : expr_bool_value(v) ? "true" : "false");
    expr_unref(v);
    return lit;
}

char *gha_condition(const struct ynode *cond, size_t *len, size_t *base, bool *formatted, struct expr_error *err)
{
    char lit[EXPR_NUMBUF];
    size_t tlen;
    const char *text = condition_source(cond, &tlen, lit);
    char *out = expr_condition_text(text, tlen, &gha_job_if_names, len, base, formatted, err);

    if (text == lit)
        *base = SIZE_MAX;
    return out;
}

int gha_fold_if(struct job *j, const struct ynode *cond, char **residual)
{
    struct expr_result res = {0};
    struct expr_error err;
    size_t len;
    char lit[EXPR_NUMBUF];
    const char *text = condition_source(cond, &len, lit);
    int rc;

    *residual = NULL;
    if (expr_condition_eval(text, len, j->contexts, &res, &err) != 0) {
        gha_expr_error_at(j, cond, &err);
        return -1;
    }
    if (res.value) {
        rc = expr_truthy(res.value) ? 1 : 0;
    } else {
        *residual = res.residual;
        res.residual = NULL;
        rc = 2;
    }
    expr_result_clear(&res);
    return rc;
}

/* A step with its `if:` folded and its fields substituted: `step` itself when nothing
 * changed, else its own copy; *runs false when it never runs (remove it). NULL after
 * an error. */
static struct ynode *fold_step(struct job *j, struct ynode *step, bool *runs)
{
    long at = ynode_find(step, "if", 2);
    struct ynode *cond = at >= 0 ? ynode_value(step, (size_t)at) : NULL, *out = step, *n;
    char *residual;
    int rc;

    *runs = true;
    if (ynode_scalar(cond, NULL) && (rc = gha_fold_if(j, cond, &residual)) >= 0) {
        /* Known: false never runs; true is what the implicit success() says anyway. */
        if (rc == 0) {
            *runs = false;
            return step;
        }
        /* Nothing known in it: the step keeps its `if:`, and its proven mark (ynode.h),
         * so that the rendering's check does not read it again for every configuration. */
        if (rc == 2 && ynode_scalar_is(cond, residual)) {
            free(residual);
            return substitute_fields(j, step, step_fields, false, false);
        }
        if (!(out = gha_own_copy(j, step))) {
            free(residual);
            return NULL;
        }
        if (rc == 1)
            ynode_remove_at(out, (size_t)at);
        else if ((n = ynode_new_string(j->doc, residual, strlen(residual), ynode_pos(cond))))
            ynode_set_value(out, (size_t)at, n);
        else
            gha_out_of_memory(j, cond);
        free(residual);
    }
    return substitute_fields(j, out, step_fields, out != step, false);
}

/* fold_step, or what it made of the step in an earlier configuration (recall). */
static struct ynode *substitute_step(struct job *j, struct ynode *step, bool *runs)
{
    struct shared_key key;
    struct ynode *out;

    if (recall(j, step, true, SHARED_READS, &key, &out, runs))
        return out;
    out = fold_step(j, step, runs);
    remember(j, &key, out, *runs);
    return out;
}

/* The job's steps, into its own list when one changes (the job itself is the
 * configuration's own). */
static void substitute_steps(struct job *j, struct ynode *job)
{
    long at = ynode_find(job, "steps", 5);
    struct ynode *steps = at >= 0 ? ynode_value(job, (size_t)at) : NULL, *out = steps;
    size_t k = 0; /* the step's index in `out` */

    for (size_t i = 0; ynode_is_seq(steps) && i < ynode_len(steps) && !j->failed; i++) {
        struct ynode *step = ynode_item(steps, i), *done = step;
        bool runs = true;

        if (ynode_is_map(step) && !(done = substitute_step(j, step, &runs)))
            return;
        if ((done != step || !runs) && out == steps && !(out = gha_own_copy(j, steps)))
            return;
        if (!runs) {
            ynode_remove_at(out, k);
            continue;
        }
        put_child(out, k++, step, done);
    }
    if (out != steps)
        put_child(job, (size_t)at, steps, out);
}

/* strategy.max-parallel as GitHub takes it: (Int32) of the written number (saturating, as
 * .NET converts a double; NaN is 0), the number of jobs when that is 0 or less
 * (WorkflowTemplateConverter.ConvertToStrategy), 1 for the job of a strategy with no
 * configuration (WorkflowTemplateEvaluator.EvaluateStrategy's default one, `total` 0). A
 * value that is not a number (what stays unknown) is kept. Takes `written`. */
static struct expr_value *max_parallel_value(struct expr_value *written, size_t total)
{
    double d;

    if (total && expr_kind_of(written) != EXPR_NUMBER && expr_kind_of(written) != EXPR_NULL)
        return written;
    d = expr_kind_of(written) == EXPR_NUMBER ? expr_number_value(written) : 0;
    expr_unref(written);
    d = isnan(d) ? 0 : d >= 2147483647.0 ? 2147483647.0 : d <= -2147483648.0 ? -2147483648.0 : trunc(d);
    return expr_number(!total ? 1 : d > 0 ? d : (double)total);
}

/* The `strategy` context of job `index` of `total` (docs: contexts#strategy-context);
 * `total` 0: the one job of a strategy with no configuration. */
struct expr_value *gha_strategy_value(const struct ynode *strategy, size_t index, size_t total)
{
    struct expr_value *s = expr_object();
    struct expr_value *fail_fast = expr_from_ynode(ynode_get(strategy, "fail-fast"));
    struct expr_value *max_parallel = expr_from_ynode(ynode_get(strategy, "max-parallel"));

    if (s && fail_fast && expr_kind_of(fail_fast) == EXPR_NULL) {
        expr_unref(fail_fast);
        fail_fast = expr_bool(true);
    }
    if (max_parallel)
        max_parallel = max_parallel_value(max_parallel, total);
    if (!s || !fail_fast || !max_parallel ||
        expr_object_set(s, "fail-fast", 9, fail_fast) != 0 ||
        expr_object_set(s, "job-index", 9, expr_number((double)index)) != 0 ||
        expr_object_set(s, "job-total", 9, expr_number((double)(total ? total : 1))) != 0 ||
        expr_object_set(s, "max-parallel", 12, max_parallel) != 0) {
        if (!s) {
            expr_unref(fail_fast);
            expr_unref(max_parallel);
        }
        expr_unref(s);
        return NULL;
    }
    return s;
}

/* The job's contexts: the run's known ones, then `matrix` and `strategy` (taken). */
static int set_contexts(struct job *j, struct expr_value *matrix, struct expr_value *strategy)
{
    const struct expr_value *known = j->known;
    int rc = 0;

    expr_contexts_destroy(j->contexts);
    if (!(j->contexts = expr_contexts_create()) || !matrix || !strategy) {
        expr_unref(matrix);
        expr_unref(strategy);
        return -1;
    }
    for (size_t i = 0; known && i < expr_len(known) && rc == 0; i++) {
        char name[64];
        size_t len;
        const char *key = expr_key(known, i, &len);

        snprintf(name, sizeof(name), "%.*s", (int)len, key);
        rc = expr_contexts_set(j->contexts, name, expr_ref(expr_member(known, i)));
    }
    rc |= expr_contexts_set(j->contexts, "matrix", matrix);
    rc |= expr_contexts_set(j->contexts, "strategy", strategy);
    return rc ? -1 : 0;
}

/* The job's fields and steps with `matrix` and `strategy` (both taken) known. */
int gha_substitute_job(struct job *j, struct ynode *job, struct expr_value *matrix,
                       struct expr_value *strategy)
{
    /* The job's contexts are there (gha_job_contexts, with these known ones): only matrix
     * and strategy change between its configurations (copying the run's for each was
     * 15M of the 1 MB matrix workflow's instructions). */
    int rc = j->contexts ? expr_contexts_set(j->contexts, "matrix", matrix) |
                               expr_contexts_set(j->contexts, "strategy", strategy)
                         : set_contexts(j, matrix, strategy);

    if (rc != 0) {
        gha_out_of_memory(j, job);
        return -1;
    }
    if (j->shared)
        j->shared->matrix = matrix;
    substitute_name(j, job);
    substitute_fields(j, job, job_fields, true, true);
    substitute_steps(j, job);
    return j->failed ? -1 : 0;
}

int gha_job_contexts(struct job *j, const struct ynode *job)
{
    if (set_contexts(j, expr_null(), expr_null()) != 0) {
        gha_out_of_memory(j, job);
        return -1;
    }
    return 0;
}

/* fail-fast and max-parallel may be expressions of the run's contexts (not matrix). */
int gha_substitute_strategy(struct job *j, struct ynode *strategy)
{
    substitute_fields(j, strategy, strategy_fields, true, false);
    return j->failed ? -1 : 0;
}

/* A `${{ }}` text folded with the job's contexts: 1 with *value set, 0 with *unknown
 * set (what it depends on, malloc'd) when it stays unknown, -1 after an error. */
int gha_fold(struct job *j, const struct ynode *n, struct expr_value **value, char **unknown)
{
    struct expr_result res = {0};
    struct expr_error err;
    size_t len;
    const char *text = ynode_scalar(n, &len);

    *value = NULL;
    if (expr_template_eval(text, len, j->contexts, &res, &err) != 0) {
        gha_expr_error_at(j, n, &err);
        return -1;
    }
    if (res.value)
        *value = expr_ref(res.value);
    else if (unknown) {
        *unknown = res.unknown;
        res.unknown = NULL;
    }
    expr_result_clear(&res);
    return *value ? 1 : 0;
}
