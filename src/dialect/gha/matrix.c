#include "matrix.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(struct matrix_error *err, const char *key, long index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct matrix_error *err, const char *key, long index, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    err->key = key;
    err->index = index;
    return -1;
}

static int out_of_memory(struct matrix_error *err)
{
    return fail(err, NULL, -1, "out of memory");
}

static bool is_keyword(const char *key, size_t len)
{
    return (len == 7 && memcmp(key, "include", 7) == 0) || (len == 7 && memcmp(key, "exclude", 7) == 0);
}

/* `v` (include or exclude entries) with each number as GitHub compares it in a filter:
 * MatrixFilter.AddExpression writes each leaf into the expression `matrix[...] ==
 * literal`, a number as its G15 text (ExpressionUtility.ConvertToParseToken), which the
 * lexer reads back, so a number of 16 and more significant digits matches no value.
 * NULL when out of memory. */
static struct expr_value *filter_literals(const struct expr_value *v)
{
    char text[EXPR_NUMBUF];
    enum expr_kind kind = expr_kind_of(v);
    struct expr_value *out;

    if (kind == EXPR_NUMBER) {
        expr_g15_number(expr_number_value(v), text);
        return expr_number(strtod(text, NULL));
    }
    if (kind != EXPR_OBJECT && kind != EXPR_ARRAY)
        return expr_ref((struct expr_value *)v);
    out = kind == EXPR_OBJECT ? expr_object() : expr_array();
    for (size_t i = 0; out && i < expr_len(v); i++) {
        size_t len;
        const char *k = kind == EXPR_OBJECT ? expr_key(v, i, &len) : NULL;
        struct expr_value *item = filter_literals(k ? expr_member(v, i) : expr_item(v, i));

        if (!item || (k ? expr_object_set(out, k, len, item) : expr_array_append(out, item)) != 0) {
            expr_unref(out);
            out = NULL;
        }
    }
    return out;
}

/* Whether the include or exclude value `want` (its numbers as filter_literals makes
 * them) matches `have`, as MatrixFilter tests it: one `==` per leaf of `want` (a scalar;
 * mappings and lists are walked by key and by index), each on `have` indexed by the
 * leaf's path as an expression indexes (a path through a scalar or a missing key gives
 * null). So {} and [] (no leaves) match everything, {x: null} matches a scalar, [1]
 * matches [1, 2]. 1, 0, or -1 when out of memory. */
static int matches(const struct expr_value *have, const struct expr_value *want)
{
    enum expr_kind wk = expr_kind_of(want);
    int rc = 1;

    if (wk != EXPR_OBJECT && wk != EXPR_ARRAY)
        return expr_equal(have, want);
    for (size_t i = 0; rc == 1 && i < expr_len(want); i++) {
        size_t len;
        const char *k = wk == EXPR_OBJECT ? expr_key(want, i, &len) : NULL;
        struct expr_value *index = k ? expr_string(k, len) : expr_number((double)i);
        struct expr_value *at = index ? expr_index(have, index) : NULL;

        rc = at ? matches(at, k ? expr_member(want, i) : expr_item(want, i)) : -1;
        expr_unref(at);
        expr_unref(index);
    }
    return rc;
}

/* Whether every pair of `entry` whose key is a vector of `m` matches `row`: 1, 0, or -1
 * when out of memory. */
static int entry_matches(const struct expr_value *m, const struct expr_value *entry,
                         const struct expr_value *row)
{
    int rc = 1;

    for (size_t i = 0; rc == 1 && i < expr_len(entry); i++) {
        size_t len;
        const char *k = expr_key(entry, i, &len);

        if (expr_get(m, k, len) && !is_keyword(k, len))
            rc = matches(expr_get(row, k, len), expr_member(entry, i));
    }
    return rc;
}

/* The leaves of `v` (what matching it costs), at least 1. */
static unsigned long leaves(const struct expr_value *v)
{
    unsigned long n = 0;

    if (expr_kind_of(v) != EXPR_OBJECT && expr_kind_of(v) != EXPR_ARRAY)
        return 1;
    for (size_t i = 0; i < expr_len(v); i++)
        n += leaves(expr_kind_of(v) == EXPR_OBJECT ? expr_member(v, i) : expr_item(v, i));
    return n ? n : 1;
}

static bool is_vector_key(const struct expr_value *m, const char *k, size_t len)
{
    return !is_keyword(k, len) && expr_get(m, k, len) != NULL;
}

/* ---- the job name's values ---- */

/* A row's shown values, NUL-terminated one after another (in `local` while they fit):
 * rows_add makes them one block, where a malloc'd copy of each and their list were a
 * fifth of the 1 MB matrix workflow's matrix_expand. */
struct shown {
    char *text;
    size_t len, cap, n;
    char local[256];
};

static int shown_add(struct shown *s, const char *text, size_t len)
{
    if (len == 0)
        return 0; /* empty strings are skipped */
    len = strnlen(text, len); /* a value's NUL ends it as the name reads it */
    if (!s->text) {
        s->text = s->local;
        s->cap = sizeof(s->local);
    }
    if (len + 1 > s->cap - s->len) {
        size_t cap = 2 * (s->len + len + 1);
        char *grown = len < SIZE_MAX / 4 ? malloc(cap) : NULL;

        if (!grown)
            return -1;
        memcpy(grown, s->text, s->len);
        if (s->text != s->local)
            free(s->text);
        s->text = grown;
        s->cap = cap;
    }
    memcpy(s->text + s->len, text, len);
    s->text[s->len + len] = '\0';
    s->len += len + 1;
    s->n++;
    return 0;
}

/* The leaf scalars of `v`, depth-first in key order, as MatrixBuilder.CreateConfiguration
 * prints them (ExpressionData.ToString): numbers in .NET's G15 form (NaN, Infinity),
 * booleans as true/false, null skipped. */
static int shown_leaves(struct shown *s, const struct expr_value *v)
{
    char buf[EXPR_NUMBUF];
    size_t len;
    const char *t;

    switch (expr_kind_of(v)) {
    case EXPR_NULL:
        return 0;
    case EXPR_BOOL:
        t = expr_bool_value(v) ? "true" : "false";
        return shown_add(s, t, strlen(t));
    case EXPR_NUMBER:
        len = expr_g15_number(expr_number_value(v), buf);
        return shown_add(s, buf, len);
    case EXPR_STRING:
        t = expr_string_value(v, &len);
        return shown_add(s, t, len);
    case EXPR_ARRAY:
        for (size_t i = 0; i < expr_len(v); i++) {
            if (shown_leaves(s, expr_item(v, i)) != 0)
                return -1;
        }
        return 0;
    case EXPR_OBJECT:
        for (size_t i = 0; i < expr_len(v); i++) {
            if (shown_leaves(s, expr_member(v, i)) != 0)
                return -1;
        }
        return 0;
    }
    return 0;
}

size_t matrix_name_cut(char *name, size_t len)
{
    size_t units = 0, at = 0, keep;

    /* name.Length counts UTF-16 code units: 2 for a character past U+FFFF (4 bytes) */
    for (size_t i = 0; i < len; i++)
        units += ((unsigned char)name[i] & 0xC0) != 0x80 ? 1 + ((unsigned char)name[i] >= 0xF0) : 0;
    if (units <= MATRIX_NAME_MAX)
        return len;
    for (units = 0; at < len; ) {
        size_t w = (unsigned char)name[at] >= 0xF0 ? 2 : 1, bytes = 1;

        if (units + w > MATRIX_NAME_MAX - 3)
            break;
        while (at + bytes < len && ((unsigned char)name[at + bytes] & 0xC0) == 0x80)
            bytes++;
        units += w;
        at += bytes;
    }
    keep = at;
    /* Substring(0, 97) keeps the first half of a surrogate pair it cuts, which GitHub
     * sends as U+FFFD (UTF-8's replacement for a lone surrogate). */
    if (units < MATRIX_NAME_MAX - 3) {
        memcpy(name + keep, "\xEF\xBF\xBD", 3);
        keep += 3;
    }
    memcpy(name + keep, "...", 4);
    return keep + 3;
}

/* ---- building ---- */

static void shown_free(struct shown *s)
{
    if (s->text != s->local)
        free(s->text);
    s->text = NULL;
    s->len = s->cap = s->n = 0;
}

/* shown_leaves' test without its copies (a configuration's name asks it: their mallocs
 * were 15M of the 1 MB matrix workflow's instructions): a null or an empty string is
 * skipped, every other leaf shown. */
bool matrix_names_values(const struct expr_value *values)
{
    size_t len;

    switch (expr_kind_of(values)) {
    case EXPR_NULL:
        return false;
    case EXPR_STRING:
        expr_string_value(values, &len);
        return len > 0;
    case EXPR_ARRAY:
    case EXPR_OBJECT:
        for (size_t i = 0; i < expr_len(values); i++) {
            if (matrix_names_values(expr_kind_of(values) == EXPR_ARRAY ? expr_item(values, i)
                                                                      : expr_member(values, i)))
                return true;
        }
        return false;
    case EXPR_BOOL:
    case EXPR_NUMBER:
        break;
    }
    return true;
}

/* Adds a row; takes `values` and the name's values `s`, also on failure. */
static int rows_add(struct matrix *out, struct expr_value *values, struct shown *s,
                    struct matrix_error *err)
{
    struct matrix_row *grown = NULL;
    char **shown = NULL;
    size_t n = s->n;

    if (out->n == MATRIX_MAX_JOBS) {
        shown_free(s);
        expr_unref(values);
        return fail(err, NULL, -1, "the matrix generates more than %d jobs (GitHub's limit)",
                    MATRIX_MAX_JOBS);
    }
    /* the rows double when their number is a power of two */
    if (values && !(out->n & (out->n - 1)))
        grown = realloc(out->rows, (out->n ? 2 * out->n : 1) * sizeof(*grown));
    else if (values)
        grown = out->rows;
    if (grown)
        out->rows = grown;
    /* the list of the shown values, then their text: one block */
    if (grown && n && (shown = malloc(n * sizeof(*shown) + s->len))) {
        char *text = memcpy(shown + n, s->text, s->len);

        for (size_t i = 0; i < n; text += strlen(text) + 1)
            shown[i++] = text;
    }
    shown_free(s);
    if (!grown || (n && !shown)) {
        expr_unref(values);
        return out_of_memory(err);
    }
    out->rows[out->n].values = values;
    out->rows[out->n].shown = shown;
    out->rows[out->n].n_shown = n;
    out->n++;
    return 0;
}

/* An include or exclude entry that is empty, or an exclude key that names no vector, fails
 * the run: the runner's MatrixBuilder.cs ("Matrix include mapping does not contain any
 * values", "Matrix exclude filter must not be empty", "Matrix exclude key '...' does not
 * match any key within the matrix"); GitHub's npm parser does not look. */
static int check_entries(const struct expr_value *m, const char *which, const struct expr_value *list,
                         bool keys_are_vectors, struct matrix_error *err)
{
    if (expr_kind_of(list) != EXPR_ARRAY)
        return fail(err, which, -1, "matrix %s must be a list of mappings", which);
    for (size_t i = 0; i < expr_len(list); i++) {
        const struct expr_value *e = expr_item(list, i);

        if (expr_kind_of(e) != EXPR_OBJECT)
            return fail(err, which, (long)i, "matrix %s entry must be a mapping", which);
        if (expr_len(e) == 0)
            return fail(err, which, (long)i, "matrix %s entry is empty", which);
        for (size_t k = 0; keys_are_vectors && k < expr_len(e); k++) {
            size_t len;
            const char *key = expr_key(e, k, &len);

            if (!is_vector_key(m, key, len))
                return fail(err, which, (long)i,
                            "matrix exclude key '%.*s' does not match any key within the matrix",
                            (int)(len > 100 ? 100 : len), key);
        }
    }
    return 0;
}

/* ---- the cross product, exclude applied ----
 *
 * The product is walked in its order (the first vector varies slowest) without being
 * materialised: a combination is a tuple of value indexes, and each exclude entry is a
 * table per key of which values of that vector it matches. An entry is dropped for the
 * rest of a subtree as soon as one of its keys does not match, and excludes the subtree
 * once its last key matches, so an exclude on the first vectors skips whole blocks. The
 * walk stops at the 257th surviving row (GitHub's limit applies after exclude and
 * include); its work is bounded by MATRIX_MAX_STEPS. */

struct vector {
    const char *key;
    size_t len;
    const struct expr_value *values;
};

/* One key of one exclude entry: which values of its vector it matches. */
struct exclude_test {
    size_t entry;
    bool *ok;
};

struct product {
    struct vector *vectors;
    size_t n_vectors;
    struct exclude_test **tests; /* per vector, the keys naming it */
    size_t *n_tests;
    size_t *last;                /* per entry, its deepest vector */
    size_t *dropped_at;          /* per entry, the depth that dropped it, or SIZE_MAX */
    unsigned long steps;
    const struct expr_value *include;  /* the include entries, */
    struct expr_value *include_filter; /* as filter_literals makes them (for matching) */
    bool *matched;                     /* per entry, whether a row matched it */
};

static void product_free(struct product *p)
{
    for (size_t v = 0; p->tests && p->n_tests && v < p->n_vectors; v++) {
        for (size_t t = 0; p->tests[v] && t < p->n_tests[v]; t++)
            free(p->tests[v][t].ok);
        free(p->tests[v]);
    }
    free(p->vectors);
    free(p->tests);
    free(p->n_tests);
    free(p->last);
    free(p->dropped_at);
    expr_unref(p->include_filter);
}

/* The vectors in order, checked, and the product's size (at most MATRIX_MAX_PRODUCT). */
static int product_vectors(struct product *p, const struct expr_value *m, unsigned long long *size,
                           struct matrix_error *err)
{
    *size = 1;
    if (!(p->vectors = calloc(expr_len(m) ? expr_len(m) : 1, sizeof(*p->vectors))))
        return out_of_memory(err);
    for (size_t i = 0; i < expr_len(m); i++) {
        size_t len;
        const char *key = expr_key(m, i, &len);
        const struct expr_value *vec = expr_member(m, i);

        if (is_keyword(key, len))
            continue;
        if (expr_kind_of(vec) != EXPR_ARRAY)
            return fail(err, key, -1, "matrix vector '%.*s' must be a list", (int)(len > 100 ? 100 : len), key);
        if (expr_len(vec) == 0)
            return fail(err, key, -1, "matrix vector '%.*s' does not contain any values",
                        (int)(len > 100 ? 100 : len), key);
        /* Checked before multiplying, which cannot overflow then. */
        if (*size > MATRIX_MAX_PRODUCT / expr_len(vec))
            return fail(err, NULL, -1, "the matrix has more than %d combinations before exclude "
                        "(GitHub counts them in a 32-bit integer and fails)", MATRIX_MAX_PRODUCT);
        *size *= expr_len(vec);
        p->vectors[p->n_vectors++] = (struct vector){key, len, vec};
    }
    if (!p->n_vectors)
        *size = 0;
    return 0;
}

static int over_budget(struct matrix_error *err)
{
    return fail(err, NULL, -1, "applying exclude to the matrix takes more than %d steps (fanout's "
                "limit): most of its combinations are excluded one by one; list the jobs with "
                "include instead", MATRIX_MAX_STEPS);
}

/* The tables of `entries` exclude entries (their numbers as filter_literals makes
 * them), each key's values it matches (counted against the work bound too: many
 * entries on long vectors). */
static int exclude_tables(struct product *p, const struct expr_value *exclude, size_t entries,
                          struct matrix_error *err)
{
    p->tests = calloc(p->n_vectors, sizeof(*p->tests));
    p->n_tests = calloc(p->n_vectors, sizeof(*p->n_tests));
    p->last = calloc(entries ? entries : 1, sizeof(*p->last));
    p->dropped_at = malloc((entries ? entries : 1) * sizeof(*p->dropped_at));
    if (!p->tests || !p->n_tests || !p->last || !p->dropped_at)
        return out_of_memory(err);
    /* how many keys name each vector, then the tables */
    for (size_t e = 0; e < entries; e++) {
        for (size_t v = 0; v < p->n_vectors; v++)
            p->n_tests[v] += expr_get(expr_item(exclude, e), p->vectors[v].key, p->vectors[v].len) != NULL;
    }
    for (size_t v = 0; v < p->n_vectors; v++) {
        if (p->n_tests[v] && !(p->tests[v] = calloc(p->n_tests[v], sizeof(*p->tests[v]))))
            return out_of_memory(err);
        p->n_tests[v] = 0;
    }
    for (size_t e = 0; e < entries; e++) {
        p->dropped_at[e] = SIZE_MAX;
        for (size_t v = 0; v < p->n_vectors; v++) {
            const struct expr_value *want = expr_get(expr_item(exclude, e), p->vectors[v].key, p->vectors[v].len);
            size_t n = expr_len(p->vectors[v].values);
            bool *ok;

            if (!want)
                continue;
            if ((p->steps += n * leaves(want)) > MATRIX_MAX_STEPS)
                return over_budget(err);
            if (!(ok = malloc(n * sizeof(*ok))))
                return out_of_memory(err);
            p->tests[v][p->n_tests[v]++] = (struct exclude_test){e, ok};
            for (size_t i = 0; i < n; i++) {
                int rc = matches(expr_item(p->vectors[v].values, i), want);

                if (rc < 0)
                    return out_of_memory(err);
                ok[i] = rc;
            }
            p->last[e] = v;
        }
    }
    return 0;
}

/* Each exclude entry's keys as tables of the values they match. */
static int product_excludes(struct product *p, const struct expr_value *written, struct matrix_error *err)
{
    struct expr_value *exclude = written ? filter_literals(written) : NULL;
    int rc;

    if (written && !exclude)
        return out_of_memory(err);
    rc = exclude_tables(p, exclude, exclude ? expr_len(exclude) : 0, err);
    expr_unref(exclude);
    return rc;
}

/* Takes value `value` of vector `depth`: drops the entries one of whose keys it does not
 * match; true when an entry still standing ends here (the combinations below are
 * excluded). */
static bool product_enter(struct product *p, size_t depth, size_t value)
{
    bool excluded = false;

    for (size_t t = 0; t < p->n_tests[depth]; t++) {
        const struct exclude_test *x = &p->tests[depth][t];

        p->steps++;
        if (p->dropped_at[x->entry] < depth)
            continue;
        if (!x->ok[value])
            p->dropped_at[x->entry] = depth;
        else if (p->last[x->entry] == depth)
            excluded = true;
    }
    return excluded;
}

/* Undoes product_enter at `depth`. */
static void product_leave(struct product *p, size_t depth)
{
    for (size_t t = 0; t < p->n_tests[depth]; t++) {
        if (p->dropped_at[p->tests[depth][t].entry] == depth)
            p->dropped_at[p->tests[depth][t].entry] = SIZE_MAX;
    }
    p->steps += p->n_tests[depth];
}

/* The combination `at` as the matrix context: vector key to value (the vectors' keys,
 * unique: added without a look). */
static struct expr_value *product_row(const struct product *p, const size_t *at)
{
    struct expr_value *row = expr_object();

    for (size_t v = 0; row && v < p->n_vectors; v++) {
        if (expr_object_add(row, p->vectors[v].key, p->vectors[v].len,
                            expr_ref(expr_item(p->vectors[v].values, at[v]))) != 0) {
            expr_unref(row);
            row = NULL;
        }
    }
    return row;
}

static int add_row(const struct product *p, const struct expr_value *m, struct expr_value *row,
                   struct matrix *out, struct matrix_error *err);

/* Every combination the exclude entries leave, in order, added to `out`. */
static int product_walk(struct product *p, const struct expr_value *m, struct matrix *out,
                        struct matrix_error *err)
{
    size_t *at = calloc(p->n_vectors, sizeof(*at)), depth = 0;
    int rc = 0;

    if (!at)
        return out_of_memory(err);
    /* at[depth] is the value being tried at depth; entered, unless it is past the end */
    while (rc == 0) {
        bool excluded;

        if (at[depth] == expr_len(p->vectors[depth].values)) {
            if (depth == 0)
                break;
            at[depth] = 0;
            product_leave(p, --depth);
            at[depth]++;
            continue;
        }
        if (p->steps > MATRIX_MAX_STEPS) {
            rc = over_budget(err);
            break;
        }
        excluded = product_enter(p, depth, at[depth]);
        if (!excluded && depth + 1 < p->n_vectors) {
            at[++depth] = 0;
            continue;
        }
        if (!excluded)
            rc = add_row(p, m, product_row(p, at), out, err);
        product_leave(p, depth);
        at[depth]++;
    }
    free(at);
    return rc;
}

/* `row` with the extras of every include entry whose filter matches it. */
static struct expr_value *with_extras(const struct product *p, const struct expr_value *m,
                                      struct expr_value *row)
{
    for (size_t e = 0; p->include && e < expr_len(p->include); e++) {
        const struct expr_value *entry = expr_item(p->include, e);
        int rc = entry_matches(m, expr_item(p->include_filter, e), row);

        /* Matched against the product's values: extras added so far do not count. */
        if (rc < 0)
            return NULL;
        if (rc == 0)
            continue;
        p->matched[e] = true;
        for (size_t k = 0; k < expr_len(entry); k++) {
            size_t len;
            const char *key = expr_key(entry, k, &len);

            if (is_vector_key(m, key, len))
                continue;
            if (expr_object_set(row, key, len, expr_ref(expr_member(entry, k))) != 0)
                return NULL;
        }
    }
    return row;
}

/* An include entry that matched no row: its filter pairs, then its extras. */
static struct expr_value *include_row(const struct expr_value *m, const struct expr_value *entry)
{
    struct expr_value *row = expr_object();

    for (int pass = 0; row && pass < 2; pass++) {
        for (size_t k = 0; k < expr_len(entry); k++) {
            size_t len;
            const char *key = expr_key(entry, k, &len);

            if (is_vector_key(m, key, len) != (pass == 0))
                continue;
            if (expr_object_set(row, key, len, expr_ref(expr_member(entry, k))) != 0) {
                expr_unref(row);
                return NULL;
            }
        }
    }
    return row;
}

/* Adds a row of the product with its include extras; takes `row` (NULL: out of memory). */
static int add_row(const struct product *p, const struct expr_value *m, struct expr_value *row,
                   struct matrix *out, struct matrix_error *err)
{
    struct shown s = {0};

    /* The name shows the product's values, before the extras. */
    if (!row || shown_leaves(&s, row) != 0 || !with_extras(p, m, row)) {
        shown_free(&s);
        expr_unref(row);
        return out_of_memory(err);
    }
    return rows_add(out, row, &s, err);
}

int matrix_expand(const struct expr_value *m, struct matrix *out, struct matrix_error *err)
{
    const struct expr_value *include = expr_get(m, "include", 7);
    const struct expr_value *exclude = expr_get(m, "exclude", 7);
    struct product p = {0};
    bool *matched = NULL;
    unsigned long long size;
    size_t n_include;

    memset(out, 0, sizeof(*out));
    memset(err, 0, sizeof(*err));
    err->index = -1;
    if (expr_kind_of(m) != EXPR_OBJECT)
        return fail(err, NULL, -1, "the matrix must be a mapping");
    if (exclude && check_entries(m, "exclude", exclude, true, err) != 0)
        return -1;
    if (include && check_entries(m, "include", include, false, err) != 0)
        return -1;
    n_include = include ? expr_len(include) : 0;
    if (product_vectors(&p, m, &size, err) != 0)
        goto fail;
    if (size == 0 && n_include == 0) {
        fail(err, NULL, -1, "the matrix must define at least one vector (or a non-empty include)");
        goto fail;
    }
    p.include = include;
    if (!(matched = p.matched = calloc(n_include ? n_include : 1, sizeof(*matched))) ||
        (include && !(p.include_filter = filter_literals(include)))) {
        out_of_memory(err);
        goto fail;
    }
    if (size && (product_excludes(&p, exclude, err) != 0 || product_walk(&p, m, out, err) != 0))
        goto fail;
    for (size_t e = 0; e < n_include; e++) {
        struct shown s = {0};
        struct expr_value *row;

        if (matched[e])
            continue;
        row = include_row(m, expr_item(include, e));
        if (row && shown_leaves(&s, row) != 0) {
            shown_free(&s);
            expr_unref(row);
            row = NULL;
        }
        if (rows_add(out, row, &s, err) != 0)
            goto fail;
    }
    product_free(&p);
    free(matched);
    return 0;
fail:
    product_free(&p);
    free(matched);
    matrix_free(out);
    return -1;
}

void matrix_free(struct matrix *m)
{
    for (size_t r = 0; r < m->n; r++) {
        expr_unref(m->rows[r].values);
        free(m->rows[r].shown); /* one block (rows_add) */
    }
    free(m->rows);
    m->rows = NULL;
    m->n = 0;
}
