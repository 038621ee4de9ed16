#include "fanout/matrix.h"

#include <stdarg.h>
#include <stdbool.h>
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

/* Whether `want` (an exclude or include value) matches `have`: mappings leaf by leaf
 * (only the leaves `want` names), sequences item by item, scalars by loose `==`. */
static bool matches(const struct expr_value *have, const struct expr_value *want)
{
    enum expr_kind hk = have ? expr_kind_of(have) : EXPR_NULL, wk = expr_kind_of(want);

    if (wk == EXPR_OBJECT) {
        if (hk != EXPR_OBJECT)
            return false;
        for (size_t i = 0; i < expr_len(want); i++) {
            size_t len;
            const char *k = expr_key(want, i, &len);

            if (!matches(expr_get(have, k, len), expr_member(want, i)))
                return false;
        }
        return true;
    }
    if (wk == EXPR_ARRAY) {
        if (hk != EXPR_ARRAY || expr_len(have) != expr_len(want))
            return false;
        for (size_t i = 0; i < expr_len(want); i++) {
            if (!matches(expr_item(have, i), expr_item(want, i)))
                return false;
        }
        return true;
    }
    if (!have || hk == EXPR_OBJECT || hk == EXPR_ARRAY)
        return false;
    return expr_equal(have, want);
}

/* Every pair of `entry` whose key is (is_vector) or is not (!is_vector) a vector of `m`
 * matches `row`. */
static bool entry_matches(const struct expr_value *m, const struct expr_value *entry,
                          const struct expr_value *row)
{
    for (size_t i = 0; i < expr_len(entry); i++) {
        size_t len;
        const char *k = expr_key(entry, i, &len);

        if (expr_get(m, k, len) && !is_keyword(k, len) &&
            !matches(expr_get(row, k, len), expr_member(entry, i)))
            return false;
    }
    return true;
}

static bool is_vector_key(const struct expr_value *m, const char *k, size_t len)
{
    return !is_keyword(k, len) && expr_get(m, k, len) != NULL;
}

/* ---- the job name's values ---- */

struct shown {
    char **items;
    size_t n, cap;
};

static int shown_add(struct shown *s, const char *text, size_t len)
{
    char *copy;

    if (len == 0)
        return 0; /* empty strings are skipped */
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        char **grown = realloc(s->items, cap * sizeof(*grown));

        if (!grown)
            return -1;
        s->items = grown;
        s->cap = cap;
    }
    if (!(copy = malloc(len + 1)))
        return -1;
    memcpy(copy, text, len);
    copy[len] = '\0';
    s->items[s->n++] = copy;
    return 0;
}

/* The leaf scalars of `v`, depth-first in key order, as JobNameBuilder prints them:
 * numbers in .NET's G15 form, booleans as true/false, null skipped. */
static int shown_leaves(struct shown *s, const struct expr_value *v)
{
    char buf[64];
    size_t len;
    const char *t;

    switch (expr_kind_of(v)) {
    case EXPR_NULL:
        return 0;
    case EXPR_BOOL:
        t = expr_bool_value(v) ? "true" : "false";
        return shown_add(s, t, strlen(t));
    case EXPR_NUMBER:
        snprintf(buf, sizeof(buf), "%.15G", expr_number_value(v));
        return shown_add(s, buf, strlen(buf));
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

/* ---- building ---- */

static void shown_free(struct shown *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->items[i]);
    free(s->items);
}

/* Adds a row; takes `values` and the name's values `s`, also on failure. */
static int rows_add(struct matrix *out, struct expr_value *values, struct shown s,
                    struct matrix_error *err)
{
    struct matrix_row *grown = NULL;

    if (out->n == MATRIX_MAX_JOBS) {
        shown_free(&s);
        expr_unref(values);
        return fail(err, NULL, -1, "the matrix generates more than %d jobs (GitHub's limit)",
                    MATRIX_MAX_JOBS);
    }
    /* the rows double when their number is a power of two */
    if (values && !(out->n & (out->n - 1)))
        grown = realloc(out->rows, (out->n ? 2 * out->n : 1) * sizeof(*grown));
    else if (values)
        grown = out->rows;
    if (!grown) {
        shown_free(&s);
        expr_unref(values);
        return out_of_memory(err);
    }
    out->rows = grown;
    out->rows[out->n].values = values;
    out->rows[out->n].shown = s.items;
    out->rows[out->n].n_shown = s.n;
    out->n++;
    return 0;
}

/* A new object with the pairs of `row` (shared values) plus `key: v`. */
static struct expr_value *row_with(const struct expr_value *row, const char *key, size_t len,
                                   struct expr_value *v)
{
    struct expr_value *o = expr_object();

    for (size_t i = 0; o && row && i < expr_len(row); i++) {
        size_t kl;
        const char *k = expr_key(row, i, &kl);

        if (expr_object_set(o, k, kl, expr_ref(expr_member(row, i))) != 0) {
            expr_unref(o);
            o = NULL;
        }
    }
    if (!o || expr_object_set(o, key, len, expr_ref(v)) != 0) {
        expr_unref(o);
        return NULL;
    }
    return o;
}

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

/* The cross product of the vectors, excluded rows left out. */
static int product(const struct expr_value *m, const struct expr_value *exclude,
                   struct expr_value ***rows_out, size_t *n_out, struct matrix_error *err)
{
    struct expr_value **rows = malloc(sizeof(*rows)), **next;
    size_t n = 1, vectors = 0;

    if (!rows || !(rows[0] = expr_object())) {
        free(rows);
        return out_of_memory(err);
    }
    for (size_t v = 0; v < expr_len(m); v++) {
        size_t len, values;
        const char *key = expr_key(m, v, &len);
        const struct expr_value *vec = expr_member(m, v);

        if (is_keyword(key, len))
            continue;
        vectors++;
        if (expr_kind_of(vec) != EXPR_ARRAY) {
            fail(err, key, -1, "matrix vector '%.*s' must be a list", (int)(len > 100 ? 100 : len), key);
            goto fail;
        }
        if ((values = expr_len(vec)) == 0) {
            fail(err, key, -1, "matrix vector '%.*s' does not contain any values",
                 (int)(len > 100 ? 100 : len), key);
            goto fail;
        }
        /* Checked before multiplying: the product of a few vectors overflows quickly. */
        if (n * values > MATRIX_MAX_JOBS * 64) {
            fail(err, NULL, -1, "the matrix generates more than %d jobs (GitHub's limit)",
                 MATRIX_MAX_JOBS);
            goto fail;
        }
        if (!(next = calloc(n * values, sizeof(*next)))) {
            out_of_memory(err);
            goto fail;
        }
        for (size_t r = 0; r < n; r++) {
            for (size_t i = 0; i < values; i++) {
                next[r * values + i] = row_with(rows[r], key, len, expr_item(vec, i));
                if (!next[r * values + i]) {
                    for (size_t j = 0; j < n * values; j++)
                        expr_unref(next[j]);
                    free(next);
                    out_of_memory(err);
                    goto fail;
                }
            }
        }
        for (size_t r = 0; r < n; r++)
            expr_unref(rows[r]);
        free(rows);
        rows = next;
        n *= values;
    }
    if (vectors == 0) {
        expr_unref(rows[0]);
        n = 0;
    }
    *rows_out = rows;
    *n_out = 0;
    for (size_t r = 0; r < n; r++) {
        bool excluded = false;

        for (size_t e = 0; exclude && !excluded && e < expr_len(exclude); e++)
            excluded = entry_matches(m, expr_item(exclude, e), rows[r]);
        if (excluded)
            expr_unref(rows[r]);
        else
            rows[(*n_out)++] = rows[r];
    }
    return 0;
fail:
    for (size_t r = 0; r < n; r++)
        expr_unref(rows[r]);
    free(rows);
    return -1;
}

/* `row` with the extras of every include entry whose filter matches it. */
static struct expr_value *with_extras(const struct expr_value *m, const struct expr_value *include,
                                      struct expr_value *row, bool *matched)
{
    for (size_t e = 0; include && e < expr_len(include); e++) {
        const struct expr_value *entry = expr_item(include, e);

        /* Matched against the product's values: extras added so far do not count. */
        if (!entry_matches(m, entry, row))
            continue;
        matched[e] = true;
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

int matrix_expand(const struct expr_value *m, struct matrix *out, struct matrix_error *err)
{
    const struct expr_value *include = expr_get(m, "include", 7);
    const struct expr_value *exclude = expr_get(m, "exclude", 7);
    struct expr_value **rows = NULL;
    bool *matched = NULL;
    size_t n = 0, r = 0, n_include;

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
    if (product(m, exclude, &rows, &n, err) != 0)
        return -1;
    if (n == 0 && n_include == 0) {
        free(rows);
        return fail(err, NULL, -1, "the matrix must define at least one vector (or a non-empty include)");
    }
    if (!(matched = calloc(n_include ? n_include : 1, sizeof(*matched)))) {
        out_of_memory(err);
        goto fail;
    }
    for (; r < n; r++) {
        struct shown s = {0};
        struct expr_value *row = rows[r];

        rows[r] = NULL;
        /* The name shows the product's values, before the extras. */
        if (shown_leaves(&s, row) != 0 || !with_extras(m, include, row, matched)) {
            shown_free(&s);
            expr_unref(row);
            out_of_memory(err);
            goto fail;
        }
        if (rows_add(out, row, s, err) != 0)
            goto fail;
    }
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
        if (rows_add(out, row, s, err) != 0)
            goto fail;
    }
    free(rows);
    free(matched);
    return 0;
fail:
    for (; r < n; r++)
        expr_unref(rows[r]);
    free(rows);
    free(matched);
    matrix_free(out);
    return -1;
}

void matrix_free(struct matrix *m)
{
    for (size_t r = 0; r < m->n; r++) {
        expr_unref(m->rows[r].values);
        for (size_t i = 0; i < m->rows[r].n_shown; i++)
            free(m->rows[r].shown[i]);
        free(m->rows[r].shown);
    }
    free(m->rows);
    m->rows = NULL;
    m->n = 0;
}
