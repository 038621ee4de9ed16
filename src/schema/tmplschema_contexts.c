/* tmplschema_contexts: what a value's type is below another (a mapping's key, a
 * sequence's item, a key path), with the contexts its expressions may use joined as
 * GitHub's reader joins them (DefinitionInfo), and the name lists an expression is
 * checked against for a set of context items. */
#include "tmplschema_internal.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"

struct tmpl_type tmpl_child_type(struct tmpl_type parent, const struct tmpl_def *d)
{
    struct tmpl_type t = {d, parent.contexts};

    if (d->contexts)
        t.contexts = (parent.contexts & ~d->shadows) | d->contexts;
    return t;
}

bool tmplschema_type(const struct tmplschema *s, const char *name, struct tmpl_type *out)
{
    const struct tmpl_def *d = tmpl_find_def(s, name);

    if (!d)
        return false;
    *out = tmpl_child_type((struct tmpl_type){d, 0}, d);
    return true;
}

size_t tmpl_defs_of_kind(const struct tmpl_def *d, enum def_kind kind, const struct tmpl_def **out, size_t cap)
{
    size_t n = 0;

    if (d->kind == kind) {
        out[n++] = d;
    } else if (d->kind == D_ONE_OF) {
        for (size_t i = 0; i < d->n_one_of; i++) {
            if (d->one_of[i]->kind == kind && n < cap)
                out[n++] = d->one_of[i];
        }
    }
    return n;
}

const struct tmpl_prop *tmpl_find_prop(const struct tmpl_def *d, const char *key, size_t len)
{
    if (d->indexed) {
        for (size_t i = tmpl_prop_slot(key, len); d->prop_slots[i]; i = (i + 1) & (TMPL_PROP_SLOTS - 1)) {
            const struct tmpl_prop *p = &d->props[d->prop_slots[i] - 1];

            if (p->len == len && !memcmp(p->name, key, len))
                return p;
        }
        return NULL;
    }
    for (size_t i = 0; i < d->n_props; i++) {
        /* the first byte before a memcmp call: most names of one length differ in it */
        if (d->props[i].len == len && (!len || d->props[i].name[0] == key[0]) && !memcmp(d->props[i].name, key, len))
            return &d->props[i];
    }
    return NULL;
}

bool tmpl_type_item(struct tmpl_type parent, struct tmpl_type *out)
{
    const struct tmpl_def *seq = NULL;

    if (!tmpl_defs_of_kind(parent.def, D_SEQUENCE, &seq, 1))
        return false;
    *out = tmpl_child_type(parent, seq->item);
    return true;
}

bool tmpl_type_child(struct tmpl_type parent, const char *key, size_t len, struct tmpl_type *out)
{
    const struct tmpl_def *defs[MAX_BRANCHES];
    size_t n;

    n = tmpl_defs_of_kind(parent.def, D_MAPPING, defs, MAX_BRANCHES);
    for (size_t i = 0; i < n; i++) {
        const struct tmpl_prop *p = tmpl_find_prop(defs[i], key, len);

        if (p) {
            *out = tmpl_child_type(parent, p->type);
            return true;
        }
    }
    if (n && defs[0]->loose_key) {
        *out = tmpl_child_type(parent, defs[0]->loose_value);
        return true;
    }
    return false;
}

bool tmpl_type_at(struct tmpl_type from, const char *const *path, size_t n, struct tmpl_type *out)
{
    for (size_t i = 0; i < n; i++) {
        if (path[i] ? !tmpl_type_child(from, path[i], strlen(path[i]), &from) : !tmpl_type_item(from, &from))
            return false;
    }
    *out = from;
    return true;
}

bool tmpl_type_allows(const struct tmplschema *s, struct tmpl_type t, const char *name)
{
    for (size_t i = 0; i < s->n_items; i++) {
        if ((t.contexts >> i & 1) && tmpl_same_upper(s->items[i].name, name))
            return true;
    }
    return false;
}

const struct expr_names *tmpl_names_for(const struct tmplschema *cs, uint64_t set)
{
    struct tmplschema *s = (struct tmplschema *)cs; /* the cache is not part of its meaning */
    struct names_cache *c;

    for (size_t i = 0; i < s->n_names; i++) {
        if (s->names[i].set == set)
            return &s->names[i].names;
    }
    if (s->n_names == s->cap_names) {
        struct names_cache *grown = array_grow(s->names, &s->cap_names, s->n_names + 1, 16, sizeof(*grown));

        if (!grown)
            return NULL;
        s->names = grown;
    }
    c = &s->names[s->n_names];
    memset(c, 0, sizeof(*c));
    c->set = set;
    c->contexts = calloc(s->n_items + 1, sizeof(*c->contexts));
    c->functions = calloc(s->n_items + 1, sizeof(*c->functions));
    if (!c->contexts || !c->functions) {
        free(c->contexts);
        free(c->functions);
        return NULL;
    }
    for (size_t i = 0; i < s->n_items; i++) {
        if (!(set >> i & 1))
            continue;
        if (s->items[i].function)
            c->functions[c->names.n_functions++] =
                (struct expr_function){s->items[i].name, s->items[i].min, s->items[i].max};
        else
            c->contexts[c->names.n_contexts++] = s->items[i].name;
    }
    c->names.contexts = c->contexts;
    c->names.functions = c->functions;
    s->n_names++;
    return &c->names;
}
