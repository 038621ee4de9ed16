#define _GNU_SOURCE /* asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/stream.h"

#include "rayci_internal.h"

/* rayci's `array` steps (raycicmd at 52b3334: array_config.go, array_expand.go,
 * array_depends.go): a step with `array: {dim: [values], adjustments: [...]}` becomes
 * one step per element of the dimensions' product (dimensions sorted by name), keyed
 * `<key>--<dim><value>-...`, its `{{array.dim}}` placeholders filled; a depends_on
 * names an array step's elements with `key($)`, `key(*)` or `key(dim=value,...)`. */

struct rc_array {
    char *key;
    unsigned build; /* a run's arrays are its own: each build's (struct rayci) */
    const struct ynode *dims[64]; /* the dimensions' names, sorted */
    const struct ynode *vals[64]; /* their value lists */
    size_t n_dims;
    const char **elems; /* n_elems rows of n_dims values */
    size_t n_elems;
};

struct rc_arrays {
    /* copies of the `array` definitions, which outlive their file's document: the
     * arrays' names and values point into it */
    struct ynode_doc *defs;
    struct rc_array *a;
    size_t n, cap;
    struct elem_of {
        char *key; /* an expanded step's key */
        size_t array, elem;
    } *of;
    size_t n_of, cap_of;
};

/* The most steps all arrays of a run expand into: as many as one steps list may hold
 * (stream.h), five times what Buildkite runs in a build. */
#define RC_MAX_ELEMENTS STREAM_MAX_MAPPING_PAIRS

struct rc_arrays *rc_arrays_create(void)
{
    struct rc_arrays *a = calloc(1, sizeof(*a));

    if (a && !(a->defs = ynode_doc_create())) {
        free(a);
        return NULL;
    }
    return a;
}

void rc_arrays_destroy(struct rc_arrays *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n; i++) {
        free(a->a[i].key);
        free(a->a[i].elems);
    }
    for (size_t i = 0; i < a->n_of; i++)
        free(a->of[i].key);
    free(a->a);
    free(a->of);
    ynode_doc_destroy(a->defs);
    free(a);
}

/* The array step keyed `key` of build `build`, or NULL. */
static const struct rc_array *array_find(const struct rc_arrays *a, unsigned build, const char *key, size_t len)
{
    for (size_t i = 0; i < a->n; i++) {
        if (a->a[i].build == build && strlen(a->a[i].key) == len && !memcmp(a->a[i].key, key, len))
            return &a->a[i];
    }
    return NULL;
}

static const char *elem_value(const struct rc_array *arr, size_t e, size_t d)
{
    return arr->elems[e * arr->n_dims + d];
}

/* generateKey: the base key, "--", each dimension's name and value with all but
 * [A-Za-z0-9_:] deleted, joined by '-'. malloc'd. */
static char *elem_key(const struct rc_array *arr, size_t e, const char *base, size_t blen)
{
    size_t cap = blen + 3;
    char *key, *o;

    for (size_t d = 0; d < arr->n_dims; d++)
        cap += strlen(ynode_scalar(arr->dims[d], NULL)) + strlen(elem_value(arr, e, d)) + 1;
    if (!(key = malloc(cap)))
        return NULL;
    memcpy(key, base, blen);
    o = key + blen;
    *o++ = '-';
    *o++ = '-';
    for (size_t d = 0; d < arr->n_dims; d++) {
        for (int part = 0; part < 2; part++) {
            for (const char *c = part ? elem_value(arr, e, d) : ynode_scalar(arr->dims[d], NULL); *c; c++) {
                if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
                    *c == ':')
                    *o++ = *c;
            }
        }
        if (d + 1 < arr->n_dims)
            *o++ = '-';
    }
    *o = '\0';
    return key;
}

/* parseArrayConfig: a mapping of dimensions (besides `adjustments`) to non-empty lists
 * of strings. */
static int parse_dims(struct rayci *r, const struct ynode *def, struct rc_array *arr, const char *base)
{
    if (!ynode_is_map(def) || !ynode_len(def))
        return rc_error(r, def, RULE_RAYCI_ARRAY, "parse array in step '%s': array must be a non-empty map", base);
    for (size_t i = 0; i < ynode_len(def); i++) {
        const struct ynode *k = ynode_key(def, i), *v = ynode_value(def, i);
        const char *dim = ynode_scalar(k, NULL);
        size_t at = arr->n_dims;

        if (ynode_scalar_is(k, "adjustments"))
            continue;
        if (!ynode_is_seq(v) || !ynode_len(v))
            return rc_error(r, v, RULE_RAYCI_ARRAY, "parse array in step '%s': array.%s must be a non-empty list", base,
                            dim);
        for (size_t j = 0; j < ynode_len(v); j++) {
            if (!rc_string(ynode_item(v, j), NULL))
                return rc_error(r, ynode_item(v, j), RULE_RAYCI_ARRAY,
                                "parse array in step '%s': array.%s: element %zu must be a string", base, dim, j);
        }
        if (at == sizeof(arr->dims) / sizeof(arr->dims[0]))
            return rc_error(r, k, RULE_RAYCI_ARRAY, "an array of more than 64 dimensions");
        while (at > 0 && strcmp(ynode_scalar(arr->dims[at - 1], NULL), dim) > 0) {
            arr->dims[at] = arr->dims[at - 1];
            arr->vals[at] = arr->vals[at - 1];
            at--;
        }
        arr->dims[at] = k;
        arr->vals[at] = v;
        arr->n_dims++;
    }
    if (!arr->n_dims)
        return rc_error(r, def, RULE_RAYCI_ARRAY, "parse array in step '%s': array must have at least one dimension",
                        base);
    return 0;
}

static long dim_index(const struct rc_array *arr, const char *name, size_t len)
{
    for (size_t d = 0; d < arr->n_dims; d++) {
        if (ynode_scalar_is_n(arr->dims[d], name, len))
            return (long)d;
    }
    return -1;
}

/* Whether element `e` has every value `with` (a mapping of dimension to value) gives. */
static bool elem_matches(const struct rc_array *arr, size_t e, const struct ynode *with)
{
    for (size_t i = 0; i < ynode_len(with); i++) {
        size_t len;
        const char *dim = ynode_scalar(ynode_key(with, i), &len);
        long d = dim_index(arr, dim, len);

        if (d < 0 || strcmp(elem_value(arr, e, (size_t)d), ynode_scalar(ynode_value(with, i), NULL)))
            return false;
    }
    return true;
}

/* parseAdjustment: a map of a non-empty `with` map of strings, and `skip`. */
static int check_adjustment(struct rayci *r, const struct ynode *adj, size_t i, const char *base)
{
    const struct ynode *with = ynode_get(adj, "with");

    if (!ynode_is_map(adj))
        return rc_error(r, adj, RULE_RAYCI_ARRAY, "step '%s': adjustments[%zu] must be a map", base, i);
    if (!with)
        return rc_error(r, adj, RULE_RAYCI_ARRAY, "step '%s': adjustments[%zu]: missing required \"with\" key", base, i);
    if (!ynode_is_map(with))
        return rc_error(r, with, RULE_RAYCI_ARRAY, "step '%s': adjustments[%zu]: \"with\" must be a map", base, i);
    if (!ynode_len(with))
        return rc_error(r, with, RULE_RAYCI_ARRAY, "step '%s': adjustments[%zu]: \"with\" cannot be empty", base, i);
    for (size_t j = 0; j < ynode_len(with); j++) {
        if (!rc_string(ynode_value(with, j), NULL))
            return rc_error(r, ynode_value(with, j), RULE_RAYCI_ARRAY,
                            "step '%s': adjustments[%zu]: with: value for key '%s' must be a string", base, i,
                            ynode_scalar(ynode_key(with, j), NULL));
    }
    for (size_t j = 0; j < ynode_len(adj); j++) {
        if (!ynode_scalar_is(ynode_key(adj, j), "with") && !ynode_scalar_is(ynode_key(adj, j), "skip"))
            return rc_error(r, ynode_key(adj, j), RULE_RAYCI_ARRAY, "step '%s': adjustments[%zu]: unknown key '%s'",
                            base, i, ynode_scalar(ynode_key(adj, j), NULL));
    }
    return 0;
}

/* The product of the dimensions (the first sorted dimension outermost), then the
 * adjustments: additions appended, skips deleted (applyAdjustments). */
static int make_elems(struct rayci *r, struct rc_array *arr, const struct ynode *adjs, const char *base)
{
    size_t n = 1, extra = ynode_is_seq(adjs) ? ynode_len(adjs) : 0;

    for (size_t d = 0; d < arr->n_dims; d++) {
        if ((n *= ynode_len(arr->vals[d])) > 10000)
            return rc_error(r, arr->dims[d], RULE_RAYCI_ARRAY, "array step '%s': more than 10000 elements", base);
    }
    if (!(arr->elems = calloc((n + extra) * arr->n_dims, sizeof(*arr->elems))))
        return -1;
    for (size_t e = 0; e < n; e++) {
        size_t rest = e;

        for (size_t d = arr->n_dims; d-- > 0;) {
            size_t k = ynode_len(arr->vals[d]);

            arr->elems[e * arr->n_dims + d] = ynode_scalar(ynode_item(arr->vals[d], rest % k), NULL);
            rest /= k;
        }
    }
    arr->n_elems = n;
    if (adjs && !ynode_is_seq(adjs))
        return rc_error(r, adjs, RULE_RAYCI_ARRAY, "step '%s': adjustments must be an array", base);
    for (size_t i = 0; i < extra; i++) {
        const struct ynode *adj = ynode_item(adjs, i), *with = ynode_get(adj, "with"), *skip = ynode_get(adj, "skip");

        if (check_adjustment(r, adj, i, base) != 0)
            return -1;
        for (size_t j = 0; j < i; j++) {
            const struct ynode *prev = ynode_get(ynode_item(adjs, j), "with");
            bool same = ynode_len(prev) == ynode_len(with);

            for (size_t k = 0; same && k < ynode_len(with); k++) {
                const struct ynode *v = ynode_get(prev, ynode_scalar(ynode_key(with, k), NULL));

                same = v && !strcmp(ynode_scalar(v, NULL), ynode_scalar(ynode_value(with, k), NULL));
            }
            if (same)
                return rc_error(r, adj, RULE_RAYCI_ARRAY, "step '%s': adjustments[%zu]: duplicate \"with\"", base, i);
        }
        if (ynode_scalar_is(skip, "true") && !ynode_is_string(skip))
            continue;
        for (size_t d = 0; d < arr->n_dims; d++) {
            const struct ynode *v = ynode_get(with, ynode_scalar(arr->dims[d], NULL));

            if (!v)
                return rc_error(r, with, RULE_RAYCI_ARRAY,
                                "step '%s': addition adjustment must specify all dimensions; missing '%s'", base,
                                ynode_scalar(arr->dims[d], NULL));
            arr->elems[arr->n_elems * arr->n_dims + d] = ynode_scalar(v, NULL);
        }
        for (size_t e = 0; e < arr->n_elems; e++) {
            if (elem_matches(arr, e, with))
                return rc_error(r, with, RULE_RAYCI_ARRAY,
                                "step '%s': addition adjustment duplicates an existing element", base);
        }
        arr->n_elems++;
    }
    for (size_t i = 0; i < extra; i++) {
        const struct ynode *adj = ynode_item(adjs, i), *with = ynode_get(adj, "with"), *skip = ynode_get(adj, "skip");
        size_t kept = 0;
        bool hit = false;

        if (!ynode_scalar_is(skip, "true") || ynode_is_string(skip))
            continue;
        for (size_t e = 0; e < arr->n_elems; e++) {
            bool match = elem_matches(arr, e, with);

            hit = hit || match;
            if (!match)
                memmove(&arr->elems[kept++ * arr->n_dims], &arr->elems[e * arr->n_dims],
                        arr->n_dims * sizeof(*arr->elems));
        }
        if (!hit)
            return rc_error(r, with, RULE_RAYCI_ARRAY, "step '%s': skip adjustment matches no element", base);
        arr->n_elems = kept;
    }
    if (!arr->n_elems)
        return rc_error(r, adjs, RULE_RAYCI_ARRAY, "array step '%s': no elements after expansion", base);
    return 0;
}

struct fill {
    const struct rc_array *arr;
    size_t elem;
};

/* substituteString: each "{{array.dim}}" of the element's dimensions replaced. */
static struct ynode *fill_scalar(void *user, struct ynode_doc *doc, struct ynode *scalar)
{
    const struct fill *f = user;
    size_t len, cap;
    const char *t = ynode_scalar(scalar, &len);
    char *out, *o;
    struct ynode *n;

    if (!rc_string(scalar, NULL) || !memmem(t, len, "{{array.", 8))
        return scalar;
    /* a placeholder is 10 bytes or more ("{{array.}}" for a dimension named ""): at most
     * len / 10 of them */
    cap = 0;
    for (size_t d = 0; d < f->arr->n_dims; d++)
        cap = strlen(elem_value(f->arr, f->elem, d)) > cap ? strlen(elem_value(f->arr, f->elem, d)) : cap;
    cap = len + 1 + (len / 10) * cap;
    if (!(out = malloc(cap)))
        return NULL;
    for (o = out; *t;) {
        size_t d = 0, dl = 0;

        for (; !strncmp(t, "{{array.", 8) && d < f->arr->n_dims; d++) {
            const char *dim = ynode_scalar(f->arr->dims[d], &dl);

            if (!strncmp(t + 8, dim, dl) && !strncmp(t + 8 + dl, "}}", 2))
                break;
        }
        if (!strncmp(t, "{{array.", 8) && d < f->arr->n_dims) {
            o = stpcpy(o, elem_value(f->arr, f->elem, d));
            t += 10 + dl;
        } else {
            *o++ = *t++;
        }
    }
    *o = '\0';
    n = ynode_new_scalar(doc, out, (size_t)(o - out), (enum ynode_style)scalar->style, scalar->pos);
    free(out);
    return n;
}

static int note_elem(struct rc_arrays *a, char *key, size_t elem)
{
    if (a->n_of == a->cap_of) {
        struct elem_of *of = array_grow(a->of, &a->cap_of, a->n_of + 1, 16, sizeof(*of));

        if (!of)
            return -1;
        a->of = of;
    }
    a->of[a->n_of++] = (struct elem_of){key, a->n - 1, elem};
    return 0;
}

/* One array step (expandSingleArrayStep) → its steps, inserted at `at` of `steps` in
 * place of it. The number of steps, or -1. */
static long expand_one(struct rayci *r, struct rc_arrays *a, struct ynode_doc *doc, struct ynode *steps, size_t at)
{
    struct ynode *step = ynode_item(steps, at);
    const struct ynode *def = ynode_copy(a->defs, ynode_get(step, "array")), *label = ynode_get(step, "label");
    size_t blen;
    const char *base = rc_step_key(step, &blen), *lt;
    struct rc_array arr = {.key = NULL, .build = r->build};

    if (!def)
        return -1;
    if (ynode_has(step, "matrix"))
        return rc_error(r, step, RULE_RAYCI_ARRAY, "step '%s' has both \"matrix\" and \"array\"; use only one",
                        base ? base : "");
    if (!base || !blen)
        return rc_error(r, step, RULE_RAYCI_ARRAY, "step with array must have a key or name");
    if (parse_dims(r, def, &arr, base) != 0)
        return -1;
    if ((lt = rc_string(label, NULL)) && !strstr(lt, "{{array."))
        return rc_error(r, label, RULE_RAYCI_ARRAY, "array step '%s': label must contain {{array...}} placeholder", base);
    if (array_find(a, r->build, base, blen))
        return rc_error(r, step, RULE_RAYCI_ARRAY, "duplicate array step key '%s'", base);
    if (make_elems(r, &arr, ynode_get(def, "adjustments"), base) != 0 || !(arr.key = strndup(base, blen))) {
        free(arr.elems);
        return -1;
    }
    if (a->n_of + arr.n_elems > RC_MAX_ELEMENTS) {
        free(arr.key);
        free(arr.elems);
        return rc_error(r, step, RULE_RAYCI_ARRAY, "array step '%s': the arrays expand into more than %u steps", base,
                        RC_MAX_ELEMENTS);
    }
    if (a->n == a->cap) {
        struct rc_array *grown = array_grow(a->a, &a->cap, a->n + 1, 8, sizeof(*grown));

        if (!grown) {
            free(arr.key);
            free(arr.elems);
            return -1;
        }
        a->a = grown;
    }
    a->a[a->n++] = arr;
    ynode_remove_at(steps, at);
    for (size_t e = 0; e < arr.n_elems; e++) {
        struct fill f = {&a->a[a->n - 1], e};
        struct ynode *copy = ynode_copy(doc, step), *filled;
        char *key = elem_key(&arr, e, base, blen);

        ynode_remove(copy, "array");
        filled = copy ? ynode_rewrite_scalars(doc, copy, fill_scalar, &f) : NULL;
        if (!key || !filled || note_elem(a, key, e) != 0) {
            free(key);
            return -1;
        }
        for (size_t k = a->n_of - 1 - e; k < a->n_of - 1; k++) {
            if (!strcmp(a->of[k].key, key))
                return rc_error(r, step, RULE_RAYCI_ARRAY,
                                "array step '%s': duplicate generated key '%s' (values may collide after sanitization)",
                                base, key);
        }
        if (ynode_set(doc, filled, ynode_has(step, "name") ? "name" : "key",
                      ynode_new_string(doc, key, strlen(key), ynode_pos(step))) != 0 ||
            ynode_insert(doc, steps, at + e, filled) != 0)
            return -1;
    }
    return (long)arr.n_elems;
}

int rc_arrays_expand(struct rayci *r, struct rc_arrays *a, struct ynode_doc *doc, struct ynode *steps)
{
    for (size_t i = 0; i < ynode_len(steps);) {
        long n = ynode_has(ynode_item(steps, i), "array") ? expand_one(r, a, doc, steps, i) : 1;

        if (n < 0)
            return -1;
        i += (size_t)n;
    }
    return 0;
}

/* ---- depends_on selectors (array_depends.go) ---- */

enum mode { SEL_LITERAL, SEL_IMPLICIT, SEL_ALL, SEL_FILTER };

#define SEL_MAX_ENTRIES 64

struct entry {
    const char *dim, *val;
    size_t dlen, vlen;
};

struct selector {
    const char *key; /* the step's key, before '(' */
    size_t len;
    enum mode mode;
    struct entry entries[SEL_MAX_ENTRIES]; /* SEL_FILTER: its dim=value entries */
    size_t n;
};

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* s[0..len) with the spaces around it trimmed (strings.TrimSpace, ASCII). */
static const char *trim(const char *s, size_t *len)
{
    while (*len && is_space(*s))
        s++, (*len)--;
    while (*len && is_space(s[*len - 1]))
        (*len)--;
    return s;
}

/* parseSelectorFilter: "dim=value" entries split at ',', each trimmed. */
static int parse_filter(struct rayci *r, const struct ynode *at, const char *p, const char *end, struct selector *sel)
{
    const char *s = ynode_scalar(at, NULL);

    for (; p <= end; sel->n++) {
        const char *comma = memchr(p, ',', (size_t)(end - p)), *stop = comma ? comma : end;
        size_t plen = (size_t)(stop - p);
        const char *pair = trim(p, &plen), *eq = memchr(pair, '=', plen);
        struct entry *e = &sel->entries[sel->n];

        if (!plen)
            return rc_error(r, at, RULE_RAYCI_ARRAY, "depends_on '%s': empty filter entry at position %zu", s,
                            sel->n + 1);
        if (!eq)
            return rc_error(r, at, RULE_RAYCI_ARRAY, "depends_on '%s': invalid filter '%.*s': expected key=value", s,
                            (int)plen, pair);
        if (sel->n == SEL_MAX_ENTRIES)
            return rc_error(r, at, RULE_RAYCI_ARRAY, "depends_on '%s': more than 64 filter entries", s);
        e->dlen = (size_t)(eq - pair);
        e->vlen = plen - e->dlen - 1;
        e->dim = trim(pair, &e->dlen);
        e->val = trim(eq + 1, &e->vlen);
        if (!e->dlen || !e->vlen)
            return rc_error(r, at, RULE_RAYCI_ARRAY, "depends_on '%s': invalid filter '%.*s': empty %s", s,
                            (int)plen, pair, e->dlen ? "value" : "dimension name");
        for (size_t k = 0; k < sel->n; k++) {
            const struct entry *o = &sel->entries[k];

            if (o->dlen == e->dlen && o->vlen == e->vlen && !memcmp(o->dim, e->dim, e->dlen) &&
                !memcmp(o->val, e->val, e->vlen))
                return rc_error(r, at, RULE_RAYCI_ARRAY, "depends_on '%s': duplicate filter entry %.*s=%.*s", s,
                                (int)e->dlen, e->dim, (int)e->vlen, e->val);
        }
        p = stop + 1;
    }
    return 0;
}

/* parseSelector: "key", "key($)", "key(*)" or "key(dim=val,...)". */
static int parse_selector(struct rayci *r, const struct ynode *at, struct selector *sel)
{
    size_t len;
    const char *s = ynode_scalar(at, &len), *open = memchr(s, '(', len);

    sel->key = s;
    sel->len = len;
    sel->mode = SEL_LITERAL;
    sel->n = 0;
    if (!open)
        return 0;
    if (open == s)
        return rc_error(r, at, RULE_RAYCI_ARRAY, "depends_on '%s': step name before '(' is empty", s);
    if (s[len - 1] != ')')
        return rc_error(r, at, RULE_RAYCI_ARRAY, "depends_on '%s': missing closing ')'", s);
    sel->len = (size_t)(open - s);
    if (s + len - open == 3 && (open[1] == '$' || open[1] == '*')) {
        sel->mode = open[1] == '$' ? SEL_IMPLICIT : SEL_ALL;
        return 0;
    }
    if (s + len - open == 2)
        return rc_error(r, at, RULE_RAYCI_ARRAY, "depends_on '%s': empty parentheses", s);
    sel->mode = SEL_FILTER;
    return parse_filter(r, at, open + 1, s + len - 1, sel);
}

/* matchesSelector: for each dimension the filter names, the element's value is one of
 * the values it gives. */
static bool sel_matches(const struct rc_array *arr, size_t e, const struct selector *sel)
{
    for (size_t k = 0; k < sel->n; k++) {
        bool any = false;

        for (size_t m = 0; m < sel->n; m++) {
            const struct entry *o = &sel->entries[m];
            long d = dim_index(arr, o->dim, o->dlen);
            const char *v = d >= 0 ? elem_value(arr, e, (size_t)d) : "";

            any = any || (o->dlen == sel->entries[k].dlen && !memcmp(o->dim, sel->entries[k].dim, o->dlen) &&
                          strlen(v) == o->vlen && !memcmp(v, o->val, o->vlen));
        }
        if (!any)
            return false;
    }
    return true;
}

/* The element of build `build`'s arrays an expanded step keyed `key` is, or NULL. */
static const struct elem_of *elem_of(const struct rc_arrays *a, unsigned build, const char *key, size_t len)
{
    for (size_t i = 0; key && i < a->n_of; i++) {
        if (a->a[a->of[i].array].build == build && strlen(a->of[i].key) == len && !memcmp(a->of[i].key, key, len))
            return &a->of[i];
    }
    return NULL;
}

/* Appends to `out` the keys the selector at `at` names (resolveDependsOn, or for a
 * group's depends_on resolveGroupDependsOn). `cur`: the element the depending step is
 * of, or NULL. */
static int resolve_one(struct rayci *r, const struct rc_arrays *a, struct ynode_doc *doc, const struct ynode *at,
                       const struct elem_of *cur, bool group, struct ynode *out)
{
    struct selector sel;
    const struct rc_array *arr;
    size_t hits = 0;

    if (parse_selector(r, at, &sel) != 0)
        return -1;
    if (!(arr = array_find(a, r->build, sel.key, sel.len))) {
        if (sel.mode != SEL_LITERAL)
            return rc_error(r, at, RULE_RAYCI_ARRAY, "cannot use array selector on non-array step '%.*s'",
                            RC_SHORT(sel.len), sel.key);
        return ynode_append(doc, out, ynode_new_string(doc, sel.key, sel.len, ynode_pos(at)));
    }
    if (sel.mode == SEL_LITERAL && !group)
        return rc_error(r, at, RULE_RAYCI_ARRAY,
                        "plain depends_on '%.*s' targets an array step; use ($), (*), or (key=val) suffix",
                        RC_SHORT(sel.len), sel.key);
    if (sel.mode == SEL_IMPLICIT && group)
        return rc_error(r, at, RULE_RAYCI_ARRAY,
                        "($) on '%.*s' cannot be used in group depends_on; use %.*s(*) or an explicit filter",
                        RC_SHORT(sel.len), sel.key, RC_SHORT(sel.len), sel.key);
    for (size_t k = 0; k < sel.n; k++) {
        if (dim_index(arr, sel.entries[k].dim, sel.entries[k].dlen) < 0)
            return rc_error(r, at, RULE_RAYCI_ARRAY, "selector dimension '%.*s' not found in array for '%.*s'",
                            (int)sel.entries[k].dlen, sel.entries[k].dim, RC_SHORT(sel.len), sel.key);
    }
    if (sel.mode == SEL_IMPLICIT && !cur)
        return rc_error(r, at, RULE_RAYCI_ARRAY,
                        "($) on '%.*s' can only be used from an array step; use %.*s(*) for non-array steps",
                        RC_SHORT(sel.len), sel.key, RC_SHORT(sel.len), sel.key);
    for (size_t e = 0; e < arr->n_elems; e++) {
        bool match = sel.mode == SEL_LITERAL || sel.mode == SEL_ALL;

        if (sel.mode == SEL_IMPLICIT) {
            const struct rc_array *from = &a->a[cur->array];
            size_t shared = 0;

            match = true;
            for (size_t d = 0; d < from->n_dims; d++) {
                size_t dl;
                const char *dim = ynode_scalar(from->dims[d], &dl);
                long td = dim_index(arr, dim, dl);

                if (td >= 0) {
                    shared++;
                    match = match && !strcmp(elem_value(arr, e, (size_t)td), elem_value(from, cur->elem, d));
                }
            }
            if (!shared)
                return rc_error(r, at, RULE_RAYCI_ARRAY,
                                "($) on '%.*s': no overlapping dimensions; use %.*s(*) to depend on all variants",
                                RC_SHORT(sel.len), sel.key, RC_SHORT(sel.len), sel.key);
        } else if (sel.mode == SEL_FILTER) {
            match = sel_matches(arr, e, &sel);
        }
        if (match) {
            char *key = elem_key(arr, e, arr->key, strlen(arr->key));
            int rc = key ? ynode_append(doc, out, ynode_new_string(doc, key, strlen(key), ynode_pos(at))) : -1;

            free(key);
            if (rc != 0)
                return -1;
            hits++;
        }
    }
    if (!hits)
        return rc_error(r, at, RULE_RAYCI_ARRAY, "selector on '%.*s' matches no elements%s", RC_SHORT(sel.len), sel.key,
                        sel.mode == SEL_IMPLICIT ? "; use (*) to depend on all variants" : "");
    return 0;
}

/* A depends_on resolved into a list in `doc` (parseArrayDependsOn: a string, or a list
 * of strings). NULL after a finding. */
static struct ynode *resolve_list(struct rayci *r, const struct rc_arrays *a, struct ynode_doc *doc,
                                  const struct ynode *deps, const struct elem_of *cur, bool group)
{
    struct ynode *out = ynode_new_seq(doc, ynode_pos(deps));

    if (!out)
        return NULL;
    if (rc_string(deps, NULL))
        return resolve_one(r, a, doc, deps, cur, group, out) ? NULL : out;
    if (!ynode_is_seq(deps))
        return rc_error(r, deps, RULE_RAYCI_ARRAY, "depends_on must be string or array"), NULL;
    for (size_t i = 0; i < ynode_len(deps); i++) {
        if (!rc_string(ynode_item(deps, i), NULL))
            return rc_error(r, ynode_item(deps, i), RULE_RAYCI_ARRAY,
                            "depends_on[%zu]: expected string; use selector syntax like step(key=val)", i),
                   NULL;
        if (resolve_one(r, a, doc, ynode_item(deps, i), cur, group, out) != 0)
            return NULL;
    }
    return out;
}

int rc_arrays_resolve(struct rayci *r, const struct rc_arrays *a, struct ynode_doc *doc, struct ynode *steps,
                      const struct ynode *group_deps, struct ynode **resolved_group_deps)
{
    int rc = 0;

    *resolved_group_deps = NULL;
    for (size_t i = 0; i < ynode_len(steps); i++) {
        struct ynode *step = ynode_item(steps, i), *list;
        const struct ynode *deps = ynode_get(step, "depends_on");
        size_t len;
        const char *key = rc_step_key(step, &len);

        if (!deps || ynode_is_null(deps))
            continue;
        if (!(list = resolve_list(r, a, doc, deps, elem_of(a, r->build, key, len), false)))
            rc = -1;
        else if (ynode_len(list) && ynode_set(doc, step, "depends_on", list) != 0)
            return -1;
    }
    if (group_deps && !(*resolved_group_deps = resolve_list(r, a, doc, group_deps, NULL, true)))
        rc = -1;
    return rc;
}
