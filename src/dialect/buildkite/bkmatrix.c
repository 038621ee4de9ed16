#include "bkmatrix.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/yscalar.h"

#include "bkscalar.h"
#include "steps.h"

#define SHORT(len) ((int)((len) > 60 ? 60 : (len)))

struct bkm_matrix {
    bool single;
    size_t n_dims;
    const struct ynode *names[BKM_MAX_DIMENSIONS]; /* the setup's keys (single: the static name) */
    const struct ynode *const *elements[BKM_MAX_DIMENSIONS];
    size_t n_elements[BKM_MAX_DIMENSIONS];
    struct bkm_combination *combos;
    const struct ynode **values; /* n_dims per combination */
    size_t n_combos, cap, jobs;
};

/* The name a single dimension goes by (its token is `{{matrix}}`). */
static const struct ynode single_name = {
    .kind = YNODE_SCALAR, .style = YNODE_MADE, .u.scalar = {"matrix", 6}};

static int fail(struct bkm_error *err, const struct ynode *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct bkm_error *err, const struct ynode *at, const char *fmt, ...)
{
    va_list ap;

    err->at = at;
    err->offset = 0;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return -1;
}

static bool text_eq(const struct ynode *a, const struct ynode *b)
{
    size_t la, lb;
    const char *ta = ynode_scalar(a, &la), *tb = ynode_scalar(b, &lb);

    return ta && tb && la == lb && memcmp(ta, tb, la) == 0;
}

/* A value (checked by check_element) as the agent makes it a string: `010` is "8",
 * `3.10` "3.1", `True` "true" (bkscalar.h). */
static const char *value_text(const struct ynode *v, char buf[BK_SCALAR_BUF], size_t *len)
{
    const char *t;

    bk_scalar_text(v, buf, &t, len);
    return t;
}

/* Whether two values are one to the agent (`8` and `010` are; `010` and "010" are not). */
static bool value_eq(const struct ynode *a, const struct ynode *b)
{
    char ba[BK_SCALAR_BUF], bb[BK_SCALAR_BUF];
    size_t la, lb;
    const char *ta = value_text(a, ba, &la), *tb = value_text(b, bb, &lb);

    return ta && tb && la == lb && memcmp(ta, tb, la) == 0;
}

static long token_find(const char *s, size_t len, size_t from, size_t *tok_len, const char **name,
                       size_t *name_len);

/* An element (or a `with` value, `with`): a scalar the agent makes a string of
 * (go-pipeline's ordered.Unmarshal takes a string, an int, a float or a bool for a setup's
 * value, MatrixAdjustmentWith.UnmarshalOrdered no float: bkscalar.h) of at most 128 bytes,
 * without a matrix token (the agent fills tokens once, so the job would run the token as
 * written, and a rendering would fill it when rendered again). */
static int check_element(const struct ynode *e, bool with, struct bkm_error *err)
{
    const char *what = with ? "a 'with' value" : "a matrix value";
    size_t tl, nl;
    const char *name;
    long at;

    size_t len;
    char buf[BK_SCALAR_BUF];
    const char *t;

    switch (bk_scalar_text(e, buf, &t, &len)) {
    case BK_SCALAR_OTHER:
        return fail(err, e, "%s must be a string, a number or a boolean, not a %s", what,
                    ynode_is_map(e) ? "mapping" : "list");
    case BK_SCALAR_NULL:
        return fail(err, e, "%s must be a string, a number or a boolean, not the null '%.*s'", what,
                    SHORT(len), t);
    case BK_SCALAR_UINT:
        return fail(err, e, "%s '%.*s' is past the agent's integers (int64): its YAML reader makes it a "
                    "uint64, which go-pipeline does not take; quote it", what, SHORT(len), t);
    case BK_SCALAR_TIMESTAMP:
        return fail(err, e, "%s '%.*s' is a timestamp to the agent's YAML reader (gopkg.in/yaml.v3), "
                    "which go-pipeline does not take; quote it", what, SHORT(len), t);
    case BK_SCALAR_FLOAT:
        if (with) {
            size_t own;
            const char *written = ynode_scalar(e, &own);

            return fail(err, e, "a 'with' value must be a string, an integer or a boolean, not the float "
                        "'%.*s' (go-pipeline's adjustments take no float, where a setup's value may be one)",
                        SHORT(own), written);
        }
        break;
    default:
        break;
    }
    if (len > BKM_MAX_ELEMENT_BYTES)
        return fail(err, e, "%s is %zu bytes; Buildkite allows %d", what, len, BKM_MAX_ELEMENT_BYTES);
    if ((at = token_find(t, len, 0, &tl, &name, &nl)) >= 0) {
        fail(err, e, "%s holds the matrix token '%.*s', which Buildkite would not fill (it fills "
             "tokens once, not in the values it puts in)", what, SHORT(tl), t + at);
        err->offset = (size_t)at;
        return -1;
    }
    return 0;
}

static int read_dimension(struct bkm_matrix *m, const struct ynode *name, const struct ynode *list,
                          struct bkm_error *err)
{
    size_t n = ynode_len(list);

    if (!ynode_is_seq(list))
        return fail(err, list, "a matrix dimension must be a list of values");
    if (!n)
        return fail(err, list, "a matrix dimension needs at least one value");
    for (size_t i = 0; i < n; i++) {
        const struct ynode *e = ynode_item(list, i);

        if (i == BKM_MAX_ELEMENTS)
            return fail(err, e, "more than %d values in one matrix dimension", BKM_MAX_ELEMENTS);
        if (check_element(e, false, err) != 0)
            return -1;
        for (size_t j = 0; j < i; j++) {
            const struct ynode *was = ynode_item(list, j);
            char buf[BK_SCALAR_BUF];
            size_t len;
            const char *t;

            if (!value_eq(was, e))
                continue;
            if (text_eq(was, e))
                return fail(err, e, "'%s' is already a value of this dimension (line %u)", ynode_scalar(e, NULL),
                            ynode_pos(was).line);
            t = value_text(e, buf, &len);
            return fail(err, e, "'%s' is already a value of this dimension (line %u: '%s'; the agent reads both "
                        "as '%.*s')", ynode_scalar(e, NULL), ynode_pos(was).line, ynode_scalar(was, NULL),
                        (int)len, t);
        }
    }
    m->names[m->n_dims] = name;
    m->elements[m->n_dims] = (const struct ynode *const *)list->u.seq.items;
    m->n_elements[m->n_dims] = n;
    m->n_dims++;
    return 0;
}

static bool name_ok(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = s[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return false;
    }
    return len > 0;
}

static int read_setup(struct bkm_matrix *m, const struct ynode *setup, struct bkm_error *err)
{
    if (ynode_is_seq(setup)) {
        m->single = true;
        return read_dimension(m, &single_name, setup, err);
    }
    if (!ynode_is_map(setup))
        return fail(err, setup, "matrix setup must be a list of values or a mapping of dimensions");
    if (!ynode_len(setup))
        return fail(err, setup, "matrix setup needs at least one dimension");
    for (size_t i = 0; i < ynode_len(setup); i++) {
        const struct ynode *key = ynode_key(setup, i);
        size_t len;
        const char *name = ynode_scalar(key, &len);

        if (i == BKM_MAX_DIMENSIONS)
            return fail(err, key, "more than %d matrix dimensions", BKM_MAX_DIMENSIONS);
        if (!name_ok(name, len))
            return fail(err, key, "matrix dimension name '%.*s' may only use letters, digits and '_'",
                        SHORT(len), name);
        if (len > BKM_MAX_ELEMENT_BYTES)
            return fail(err, key, "matrix dimension name is %zu bytes; Buildkite allows %d", len,
                        BKM_MAX_ELEMENT_BYTES);
        if (read_dimension(m, key, ynode_value(setup, i), err) != 0)
            return -1;
    }
    return 0;
}

/* Appends a combination whose values are `values` (copied). */
static int add_combination(struct bkm_matrix *m, const struct ynode *const *values, bool added)
{
    if (m->n_combos == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        struct bkm_combination *c = realloc(m->combos, cap * sizeof(*c));
        const struct ynode **v;

        if (!c)
            return -1;
        m->combos = c;
        if (!(v = realloc(m->values, cap * m->n_dims * sizeof(*v))))
            return -1;
        m->values = v;
        m->cap = cap;
    }
    memcpy(m->values + m->n_combos * m->n_dims, values, m->n_dims * sizeof(*values));
    memset(&m->combos[m->n_combos], 0, sizeof(m->combos[0]));
    m->combos[m->n_combos].added = added;
    m->n_combos++;
    return 0;
}

static int cross_product(struct bkm_matrix *m, const struct ynode *at, struct bkm_error *err)
{
    size_t total = 1, index[BKM_MAX_DIMENSIONS] = {0};
    const struct ynode *values[BKM_MAX_DIMENSIONS];

    /* at most 25^6: no overflow */
    for (size_t d = 0; d < m->n_dims; d++)
        total *= m->n_elements[d];
    if (total > BKM_MAX_COMBINATIONS)
        return fail(err, at, "the matrix makes %zu combinations; fanout renders at most %d a step "
                    "(Buildkite's default quota is %d jobs)", total, BKM_MAX_COMBINATIONS, BKM_DEFAULT_JOBS);
    for (size_t c = 0; c < total; c++) {
        for (size_t d = 0; d < m->n_dims; d++)
            values[d] = m->elements[d][index[d]];
        if (add_combination(m, values, false) != 0)
            return fail(err, NULL, "out of memory");
        /* the last dimension varies fastest */
        for (size_t d = m->n_dims; d-- > 0;) {
            if (++index[d] < m->n_elements[d])
                break;
            index[d] = 0;
        }
    }
    return 0;
}

/* Whether combination c has `values` (a NULL value matches any). */
static bool combination_matches(const struct bkm_matrix *m, size_t c, const struct ynode *const *values)
{
    for (size_t d = 0; d < m->n_dims; d++) {
        if (values[d] && !value_eq(m->values[c * m->n_dims + d], values[d]))
            return false;
    }
    return true;
}

static long find_combination(const struct bkm_matrix *m, const struct ynode *const *values)
{
    for (size_t c = 0; c < m->n_combos; c++) {
        if (combination_matches(m, c, values))
            return (long)c;
    }
    return -1;
}

static void dimension_list(const struct bkm_matrix *m, char *buf, size_t cap)
{
    size_t o = 0;

    buf[0] = '\0';
    for (size_t d = 0; d < m->n_dims && o < cap; d++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%s", d ? ", " : "", ynode_scalar(m->names[d], NULL));
}

/* The values `with` gives, by dimension (NULL for a dimension it leaves out: the
 * adjustment then applies to every combination with the values it gives, as in
 * buildkite/agent's own release pipeline, `with: {pkg_arch: X}` and `skip: true`). */
static int read_with(const struct bkm_matrix *m, const struct ynode *adj, const struct ynode *with,
                     const struct ynode **values, struct bkm_error *err)
{
    char dims[256];

    if (!with)
        return fail(err, adj, "a matrix adjustment needs 'with': the combination it adjusts or adds");
    if (m->single) {
        if (ynode_is_seq(with) && ynode_len(with) != 1)
            return fail(err, with, "'with' of a single-dimension matrix gives one value, not %zu",
                        ynode_len(with));
        values[0] = ynode_is_seq(with) ? ynode_item(with, 0) : with;
        return check_element(values[0], true, err);
    }
    dimension_list(m, dims, sizeof(dims));
    if (!ynode_is_map(with))
        return fail(err, with, "'with' must be a mapping of dimensions to values (%s)", dims);
    memset(values, 0, m->n_dims * sizeof(*values));
    for (size_t i = 0; i < ynode_len(with); i++) {
        const struct ynode *key = ynode_key(with, i);
        size_t d = 0;

        while (d < m->n_dims && !text_eq(m->names[d], key))
            d++;
        if (d == m->n_dims)
            return fail(err, key, "'%s' is not a dimension of this matrix (%s)", ynode_scalar(key, NULL), dims);
        values[d] = ynode_value(with, i);
        if (check_element(values[d], true, err) != 0)
            return -1;
    }
    return 0;
}

/* The first dimension `values` leaves out, or -1 when it gives them all. */
static long missing_dimension(const struct bkm_matrix *m, const struct ynode *const *values)
{
    for (size_t d = 0; d < m->n_dims; d++) {
        if (!values[d])
            return (long)d;
    }
    return -1;
}

/* `skip: true` or a reason skips; false and "" do not. */
static int read_skip(const struct ynode *skip, bool *skipped, struct bkm_error *err)
{
    size_t len;
    const char *t = ynode_scalar(skip, &len);
    enum yscalar_type type = t && !ynode_is_string(skip) ? yscalar_type(t, len) : YS_STRING;

    *skipped = false;
    if (!skip)
        return 0;
    if (!t || type == YS_NULL || type == YS_INT || type == YS_FLOAT)
        return fail(err, skip, "'skip' must be true, false or a reason");
    *skipped = type == YS_BOOL ? (t[0] == 't' || t[0] == 'T') : len > 0;
    return 0;
}

static int apply_adjustments(struct bkm_matrix *m, const struct ynode *list, struct bkm_error *err)
{
    const struct ynode *values[BKM_MAX_DIMENSIONS];

    if (!ynode_is_seq(list))
        return fail(err, list, "matrix adjustments must be a list");
    for (size_t i = 0; i < ynode_len(list); i++) {
        const struct ynode *adj = ynode_item(list, i);
        struct bkm_combination *c;
        bool skipped;
        long at;

        if (i == BKM_MAX_ADJUSTMENTS)
            return fail(err, adj, "more than %d matrix adjustments", BKM_MAX_ADJUSTMENTS);
        if (!ynode_is_map(adj))
            return fail(err, adj, "a matrix adjustment must be a mapping (with, skip, soft_fail)");
        for (size_t k = 0; k < ynode_len(adj); k++) {
            const struct ynode *key = ynode_key(adj, k);

            if (!ynode_scalar_is(key, "with") && !ynode_scalar_is(key, "skip") &&
                !ynode_scalar_is(key, "soft_fail"))
                return fail(err, key, "unknown key '%s' in a matrix adjustment (only with, skip and "
                            "soft_fail)", ynode_scalar(key, NULL));
        }
        if (read_with(m, adj, ynode_get(adj, "with"), values, err) != 0 ||
            read_skip(ynode_get(adj, "skip"), &skipped, err) != 0)
            return -1;
        if ((at = find_combination(m, values)) < 0) {
            long missing = missing_dimension(m, values);
            char dims[256];

            /* only a combination of its own is added, and it needs every value */
            if (missing >= 0) {
                dimension_list(m, dims, sizeof(dims));
                return fail(err, ynode_get(adj, "with"), "'with' matches no combination and gives no "
                            "value for dimension '%s' (an added combination names %s)",
                            ynode_scalar(m->names[missing], NULL), dims);
            }
            if (add_combination(m, values, true) != 0)
                return fail(err, NULL, "out of memory");
            at = (long)m->n_combos - 1;
        }
        for (size_t n = (size_t)at; n < m->n_combos; n++) {
            if (!combination_matches(m, n, values))
                continue;
            c = &m->combos[n];
            if (ynode_has(adj, "skip")) {
                c->skip = ynode_get(adj, "skip");
                c->skipped = skipped;
            }
            if (ynode_has(adj, "soft_fail"))
                c->soft_fail = ynode_get(adj, "soft_fail");
        }
    }
    return 0;
}

struct bkm_matrix *bkm_read(const struct ynode *matrix, struct bkm_error *err)
{
    struct bkm_matrix *m = calloc(1, sizeof(*m));
    const struct ynode *setup = matrix, *adjustments = NULL;

    if (!m) {
        fail(err, NULL, "out of memory");
        return NULL;
    }
    if (ynode_is_map(matrix)) {
        for (size_t k = 0; k < ynode_len(matrix); k++) {
            const struct ynode *key = ynode_key(matrix, k);

            if (!ynode_scalar_is(key, "setup") && !ynode_scalar_is(key, "adjustments")) {
                fail(err, key, "unknown key '%s' in matrix (only setup and adjustments)",
                     ynode_scalar(key, NULL));
                goto fail;
            }
        }
        if (!(setup = ynode_get(matrix, "setup"))) {
            fail(err, matrix, "matrix needs 'setup': a list of values or a mapping of dimensions");
            goto fail;
        }
        adjustments = ynode_get(matrix, "adjustments");
    } else if (!ynode_is_seq(matrix)) {
        fail(err, matrix, "matrix must be a list of values or a mapping with 'setup'");
        goto fail;
    }
    if (read_setup(m, setup, err) != 0 || cross_product(m, matrix, err) != 0 ||
        (adjustments && apply_adjustments(m, adjustments, err) != 0))
        goto fail;
    for (size_t c = 0; c < m->n_combos; c++) {
        m->combos[c].values = m->values + c * m->n_dims;
        m->jobs += !m->combos[c].skipped;
    }
    return m;
fail:
    bkm_destroy(m);
    return NULL;
}

void bkm_destroy(struct bkm_matrix *m)
{
    if (!m)
        return;
    free(m->combos);
    free(m->values);
    free(m);
}

size_t bkm_dimensions(const struct bkm_matrix *m) { return m->n_dims; }
bool bkm_single(const struct bkm_matrix *m) { return m->single; }
size_t bkm_combinations(const struct bkm_matrix *m) { return m->n_combos; }
size_t bkm_jobs(const struct bkm_matrix *m) { return m->jobs; }

const struct bkm_combination *bkm_combination(const struct bkm_matrix *m, size_t i)
{
    return &m->combos[i];
}

/* ---- tokens ---- */

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
}

/* The next token `{{ matrix(.name)? }}` (Buildkite's pattern) in s[from..len): its
 * offset, its length in *tok_len and the name it gives (*name_len 0: `{{matrix}}`);
 * -1 when there is none. */
static long token_find(const char *s, size_t len, size_t from, size_t *tok_len, const char **name,
                       size_t *name_len)
{
    for (const char *p = from < len ? memchr(s + from, '{', len - from) : NULL; p;
         p = p + 1 < s + len ? memchr(p + 1, '{', (size_t)(s + len - p - 1)) : NULL) {
        size_t i = (size_t)(p - s) + 2;

        if (i > len || p[1] != '{')
            continue;
        while (i < len && is_space(s[i]))
            i++;
        if (len - i < 6 || memcmp(s + i, "matrix", 6) != 0)
            continue;
        i += 6;
        *name = NULL;
        *name_len = 0;
        if (i < len && s[i] == '.') {
            size_t start = ++i;

            while (i < len && is_name_char(s[i]))
                i++;
            if (i == start)
                continue;
            *name = s + start;
            *name_len = i - start;
        }
        while (i < len && is_space(s[i]))
            i++;
        if (len - i < 2 || s[i] != '}' || s[i + 1] != '}')
            continue;
        *tok_len = i + 2 - (size_t)(p - s);
        return p - s;
    }
    return -1;
}

/* The dimension a token names, or -1. */
static long token_dimension(const struct bkm_matrix *m, const char *name, size_t len)
{
    if (m->single)
        return name ? -1 : 0;
    for (size_t d = 0; name && d < m->n_dims; d++) {
        if (ynode_scalar_is_n(m->names[d], name, len))
            return (long)d;
    }
    return -1;
}

/* Checks the tokens of every scalar under `n`; `fills`: Buildkite fills this field. */
static int check_node(const struct bkm_matrix *m, const struct ynode *n, const char *field, bool fills,
                      bool is_key, struct bkm_error *err)
{
    size_t len, tl, nl;
    const char *t = ynode_scalar(n, &len), *name;
    long at;

    if (t) {
        char dims[256];

        for (size_t from = 0; (at = token_find(t, len, from, &tl, &name, &nl)) >= 0; from = (size_t)at + tl) {
            if (is_key || !fills) {
                fail(err, n, "matrix token '%.*s' in %s%s: Buildkite fills tokens only in label, "
                     "command(s), env values, agents, plugins, secrets, cache and checkout", SHORT(tl),
                     t + at, is_key ? "a mapping key of " : "", field);
                err->offset = (size_t)at;
                return -1;
            }
            if (token_dimension(m, name, nl) >= 0)
                continue;
            dimension_list(m, dims, sizeof(dims));
            if (m->single)
                fail(err, n, "unknown matrix token '%.*s': a single-dimension matrix is {{matrix}}",
                     SHORT(tl), t + at);
            else if (!name)
                fail(err, n, "unknown matrix token '%.*s': this matrix has dimensions %s, "
                     "written {{matrix.<dimension>}}", SHORT(tl), t + at, dims);
            else
                fail(err, n, "unknown matrix token '%.*s': this matrix has no dimension '%.*s' (%s)",
                     SHORT(tl), t + at, SHORT(nl), name, dims);
            err->offset = (size_t)at;
            return -1;
        }
        return 0;
    }
    for (size_t i = 0; i < ynode_len(n); i++) {
        if (ynode_is_seq(n)) {
            if (check_node(m, ynode_item(n, i), field, fills, false, err) != 0)
                return -1;
        } else if (check_node(m, ynode_key(n, i), field, fills, true, err) != 0 ||
                   check_node(m, ynode_value(n, i), field, fills, false, err) != 0) {
            return -1;
        }
    }
    return 0;
}

bool bkm_fills_field(const char *field, size_t len)
{
    static const char *const filled[] = {"label", "name", "command", "commands", "env", "agents",
                                         "agent_query_rules", "plugins", "secrets", "cache",
                                         "checkout", NULL};

    for (size_t i = 0; filled[i]; i++) {
        if (strlen(filled[i]) == len && !memcmp(filled[i], field, len))
            return true;
    }
    /* Fields Buildkite does not know are carried to the job and filled there. */
    return !bk_known_key(BK_COMMAND, field, len);
}

int bkm_check_tokens(const struct bkm_matrix *m, const struct ynode *step, struct bkm_error *err)
{
    for (size_t i = 0; i < ynode_len(step); i++) {
        size_t len;
        const char *field = ynode_scalar(ynode_key(step, i), &len);

        if (ynode_scalar_is(ynode_key(step, i), "matrix"))
            continue;
        if (check_node(m, ynode_value(step, i), field, bkm_fills_field(field, len), false, err) != 0)
            return -1;
    }
    return 0;
}

/* s[0..len) with its tokens filled (two passes: the length, then the text); malloc'd,
 * NULL when out of memory. */
static char *fill_text(const struct bkm_matrix *m, size_t combo, const char *s, size_t len, size_t *out_len)
{
    const struct ynode *const *values = m->combos[combo].values;
    char *out = NULL;

    for (int pass = 0; pass < 2; pass++) {
        size_t o = 0, from = 0, tl, nl, vl;
        const char *name, *v;
        char vbuf[BK_SCALAR_BUF];
        long at;

        while ((at = token_find(s, len, from, &tl, &name, &nl)) >= 0) {
            long d = token_dimension(m, name, nl);

            if (d >= 0)
                v = value_text(values[d], vbuf, &vl);
            else
                v = s + at, vl = tl; /* left as written */
            if (out) {
                memcpy(out + o, s + from, (size_t)at - from);
                memcpy(out + o + ((size_t)at - from), v, vl);
            }
            o += (size_t)at - from + vl;
            from = (size_t)at + tl;
        }
        if (out) {
            memcpy(out + o, s + from, len - from);
            out[o + len - from] = '\0';
        } else if (!(out = malloc(o + len - from + 1))) {
            return NULL;
        }
        *out_len = o + len - from;
    }
    return out;
}

struct fill {
    const struct bkm_matrix *m;
    size_t combo;
};

/* A scalar with its tokens filled (ynode_rewrite_scalars). */
static struct ynode *fill_scalar(void *user, struct ynode_doc *doc, struct ynode *scalar)
{
    const struct fill *f = user;
    size_t len, tl, nl, out_len;
    const char *t = ynode_scalar(scalar, &len), *name;
    char *filled;
    struct ynode *made;

    if (token_find(t, len, 0, &tl, &name, &nl) < 0)
        return scalar;
    if (!(filled = fill_text(f->m, f->combo, t, len, &out_len)))
        return NULL;
    made = ynode_new_string(doc, filled, out_len, scalar->pos);
    free(filled);
    return made;
}

struct ynode *bkm_fill(const struct bkm_matrix *m, size_t i, struct ynode_doc *doc, struct ynode *n)
{
    struct fill f = {m, i};

    return ynode_rewrite_scalars(doc, n, fill_scalar, &f);
}

/* ---- a rendered job's matrix ---- */

/* Value `v` in a job's matrix as the agent reads it: itself, or (`010`, `True`, `3.10`) the
 * agent's text, a float's as a string (the text the job's tokens were filled with, and
 * Buildkite's schema takes no float). NULL: out of memory. */
static struct ynode *job_value(const struct ynode *v, struct ynode_doc *doc)
{
    char buf[BK_SCALAR_BUF], text[BK_SCALAR_BUF + 1];
    size_t len, own;
    const char *t;
    enum bk_scalar kind = bk_scalar_text(v, buf, &t, &len);

    if (kind == BK_SCALAR_STRING || (t == ynode_scalar(v, &own) && len == own))
        return (struct ynode *)v;
    if (kind == BK_SCALAR_FLOAT)
        return ynode_new_string(doc, t, len, ynode_pos(v));
    snprintf(text, sizeof(text), "%.*s", (int)len, t);
    return ynode_new_plain(doc, text, ynode_pos(v));
}

struct ynode *bkm_job_matrix(const struct bkm_matrix *m, size_t i, struct ynode_doc *doc, struct ypos pos)
{
    struct ynode *outer, *setup, *v;

    if (m->single) {
        outer = ynode_new_seq(doc, pos);
        v = outer ? job_value(m->combos[i].values[0], doc) : NULL;
        return v && ynode_append(doc, outer, v) == 0 ? outer : NULL;
    }
    outer = ynode_new_map(doc, pos);
    setup = ynode_new_map(doc, pos);
    if (!outer || !setup || ynode_set(doc, outer, "setup", setup) != 0)
        return NULL;
    for (size_t d = 0; d < m->n_dims; d++) {
        struct ynode *list = ynode_new_seq(doc, pos);

        if (!list || !(v = job_value(m->combos[i].values[d], doc)) || ynode_append(doc, list, v) != 0 ||
            ynode_append_pair(doc, setup, (struct ynode *)m->names[d], list) != 0)
            return NULL;
    }
    return outer;
}

size_t bkm_row(const struct ynode *matrix, struct ynode_pair pairs[BKM_MAX_DIMENSIONS])
{
    const struct ynode *setup = matrix;

    if (ynode_is_map(matrix)) {
        if (ynode_len(matrix) != 1 || !(setup = ynode_get(matrix, "setup")))
            return 0;
    }
    if (ynode_is_seq(setup)) {
        if (ynode_len(setup) != 1 || !ynode_is_scalar(ynode_item(setup, 0)))
            return 0;
        pairs[0].key = (struct ynode *)&single_name;
        pairs[0].value = ynode_item(setup, 0);
        return 1;
    }
    if (!ynode_is_map(setup) || !ynode_len(setup) || ynode_len(setup) > BKM_MAX_DIMENSIONS)
        return 0;
    for (size_t d = 0; d < ynode_len(setup); d++) {
        const struct ynode *list = ynode_value(setup, d);

        if (!ynode_is_seq(list) || ynode_len(list) != 1 || !ynode_is_scalar(ynode_item(list, 0)))
            return 0;
        pairs[d].key = ynode_key(setup, d);
        pairs[d].value = ynode_item(list, 0);
    }
    return ynode_len(setup);
}

size_t bkm_combination_row(const struct bkm_matrix *m, size_t i, struct ynode_pair pairs[BKM_MAX_DIMENSIONS])
{
    for (size_t d = 0; d < m->n_dims; d++) {
        pairs[d].key = (struct ynode *)m->names[d];
        pairs[d].value = (struct ynode *)m->combos[i].values[d];
    }
    return m->n_dims;
}

size_t bkm_row_text(const struct ynode_pair *pairs, size_t n, char *buf, size_t cap)
{
    size_t o = 0;

    buf[0] = '\0';
    for (size_t d = 0; d < n && o + 1 < cap; d++) {
        char vbuf[BK_SCALAR_BUF];
        size_t vl;
        const char *v = value_text(pairs[d].value, vbuf, &vl);
        int w = snprintf(buf + o, cap - o, "%s%.*s", d ? ", " : "", (int)vl, v ? v : "");

        o = w < 0 || (size_t)w >= cap - o ? cap - 1 : o + (size_t)w;
    }
    return o;
}
