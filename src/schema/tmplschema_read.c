/* tmplschema_read: a schema file of the template-schema language read into definitions
 * (TemplateSchema's constructor and the definition types' validate): each definition's
 * kind and keys, its `context` list interned into a set of context items, `allowed-values`
 * made a one-of of string constants, then the names linked and the one-ofs checked for
 * what GitHub's reader could not tell apart (the bundled schemas at build time:
 * tools/tmplembed.c, tmplschema_bundled.c). */
#include "tmplschema_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/yscalar.h"

static const char *const kind_keys[] = {"null", "boolean", "number", "string", "sequence", "mapping", "one-of"};

static void compile_error(struct tmplschema *s, const struct ynode *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void compile_error(struct tmplschema *s, const struct ynode *at, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    struct ypos p = ynode_pos(at);

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    s->failed = true;
    if (s->diag)
        diag_report(s->diag, DIAG_ERROR, DIAG_INPUT, s->name, p.line, p.col, RULE_SCHEMA, "%s", msg);
}

static char *dup_text(const char *t, size_t len)
{
    char *c = malloc(len + 1);

    if (c) {
        memcpy(c, t, len);
        c[len] = '\0';
    }
    return c;
}

static int def_cmp(const void *a, const void *b)
{
    return strcmp((*(const struct tmpl_def *const *)a)->name, (*(const struct tmpl_def *const *)b)->name);
}

const struct tmpl_def *tmpl_find_def(const struct tmplschema *s, const char *name)
{
    struct tmpl_def key = {.name = name}, *kp = &key, **hit;

    hit = bsearch(&kp, s->defs, s->n_defs, sizeof(*s->defs), def_cmp);
    return hit ? *hit : NULL;
}

/* A new definition (owned by the schema); NULL when out of memory. A name defined twice
 * is found once all are sorted. */
static struct tmpl_def *add_def(struct tmplschema *s, const char *name, enum def_kind kind,
                                const struct ynode *at)
{
    struct tmpl_def *d;

    if (s->n_defs == s->cap_defs) {
        struct tmpl_def **grown = array_grow(s->defs, &s->cap_defs, s->n_defs + 1, 64, sizeof(*grown));

        if (!grown)
            return NULL;
        s->defs = grown;
    }
    d = calloc(1, sizeof(*d));
    if (!d || !(d->name = dup_text(name, strlen(name)))) {
        free(d);
        return NULL;
    }
    d->kind = (uint8_t)kind;
    d->at = at;
    s->defs[s->n_defs++] = d;
    return d;
}

/* The text of a string scalar (quoted, or plain and typed a string), else NULL. */
static const char *string_of(const struct ynode *n)
{
    size_t len;
    const char *t = ynode_scalar(n, &len);

    return t && (ynode_is_string(n) || yscalar_type(t, len) == YS_STRING) ? t : NULL;
}

static const char *scalar_text(struct tmplschema *s, const struct ynode *n, const char *what)
{
    const char *t = string_of(n);

    if (!t)
        compile_error(s, n, "%s must be a string", what);
    return t;
}

static bool scalar_bool(struct tmplschema *s, const struct ynode *n, const char *what)
{
    if (ynode_scalar_is(n, "true") && !ynode_is_string(n))
        return true;
    if (!ynode_scalar_is(n, "false") || ynode_is_string(n))
        compile_error(s, n, "%s must be a boolean", what);
    return false;
}

static bool is_def_name(const char *t)
{
    if (!((t[0] >= 'a' && t[0] <= 'z') || (t[0] >= 'A' && t[0] <= 'Z') || t[0] == '_'))
        return false;
    for (t++; *t; t++) {
        if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9') ||
              *t == '_' || *t == '-'))
            return false;
    }
    return true;
}

bool tmpl_same_upper(const char *a, const char *b)
{
    for (;; a++, b++) {
        char x = *a >= 'a' && *a <= 'z' ? (char)(*a - 32) : *a;
        char y = *b >= 'a' && *b <= 'z' ? (char)(*b - 32) : *b;

        if (x != y)
            return false;
        if (!x)
            return true;
    }
}

/* `name(MIN,MAX)` (MAX: any number) as allowed-context.ts reads a function item. */
static bool parse_function(const char *t, struct ctx_item *it)
{
    const char *open = strchr(t, '('), *p;
    unsigned long v[2];

    if (!open || open == t)
        return false;
    for (p = t; p < open; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    }
    p = open + 1;
    for (int k = 0; k < 2; k++) {
        char *end;

        if (k == 1 && !strcmp(p, "MAX)")) {
            v[1] = UINT32_MAX;
            p += 4;
            break;
        }
        if (*p < '0' || *p > '9')
            return false;
        v[k] = strtoul(p, &end, 10);
        if (v[k] > UINT32_MAX || *end != (k == 0 ? ',' : ')'))
            return false;
        p = end + 1;
    }
    if (*p)
        return false;
    it->function = true;
    it->min = (unsigned)v[0];
    it->max = (unsigned)v[1];
    it->name = dup_text(t, (size_t)(open - t));
    return it->name != NULL;
}

/* The bit of context item `t` (interned case-insensitively), or -1. */
static int intern_item(struct tmplschema *s, const struct ynode *at, const char *t)
{
    struct ctx_item it = {0};

    for (size_t i = 0; i < s->n_items; i++) {
        if (tmpl_same_upper(s->items[i].text, t))
            return (int)i;
    }
    if (s->n_items == MAX_CTX_ITEMS) {
        compile_error(s, at, "more than %d distinct context items", MAX_CTX_ITEMS);
        return -1;
    }
    if (!parse_function(t, &it) && !(it.name = dup_text(t, strlen(t))))
        return -1;
    if (!(it.text = dup_text(t, strlen(t)))) {
        free(it.name);
        return -1;
    }
    s->items[s->n_items] = it;
    return (int)s->n_items++;
}

static void read_context(struct tmplschema *s, struct tmpl_def *d, const struct ynode *list)
{
    if (!ynode_is_seq(list)) {
        compile_error(s, list, "'context' of '%s' must be a sequence", d->name);
        return;
    }
    for (size_t i = 0; i < ynode_len(list); i++) {
        const char *t = scalar_text(s, ynode_item(list, i), "a context item");
        int bit = t && *t ? intern_item(s, ynode_item(list, i), t) : -1;

        if (t && !*t)
            compile_error(s, ynode_item(list, i), "a context item must not be empty");
        if (bit < 0)
            continue;
        if (d->contexts & ((uint64_t)1 << bit))
            compile_error(s, ynode_item(list, i), "duplicate context item '%s'", t);
        d->contexts |= (uint64_t)1 << bit;
    }
}

/* After every context list is read: for each function a definition allows, the other
 * items of that name are shadowed (GitHub's parser keeps the last one of a name, and a
 * definition's own items come after those it inherits). Within one list the last of a
 * name wins. */
static void resolve_shadows(struct tmplschema *s)
{
    for (size_t i = 0; i < s->n_defs; i++) {
        struct tmpl_def *d = s->defs[i];

        for (size_t a = 0; a < s->n_items; a++) {
            if (!(d->contexts >> a & 1) || !s->items[a].function)
                continue;
            for (size_t b = 0; b < s->n_items; b++) {
                if (b == a || !s->items[b].function || !tmpl_same_upper(s->items[a].name, s->items[b].name))
                    continue;
                d->shadows |= (uint64_t)1 << b;
                if (b < a && (d->contexts >> b & 1))
                    d->contexts &= ~((uint64_t)1 << b);
            }
        }
    }
}

static void read_string(struct tmplschema *s, struct tmpl_def *d, const struct ynode *m)
{
    for (size_t i = 0; ynode_is_map(m) && i < ynode_len(m); i++) {
        const struct ynode *k = ynode_key(m, i), *v = ynode_value(m, i);

        if (ynode_scalar_is(k, "constant")) {
            d->constant = scalar_text(s, v, "'constant'");
            d->constant_len = d->constant ? strlen(d->constant) : 0;
        } else if (ynode_scalar_is(k, "ignore-case")) {
            d->ignore_case = scalar_bool(s, v, "'ignore-case'");
        } else if (ynode_scalar_is(k, "require-non-empty")) {
            d->require_non_empty = scalar_bool(s, v, "'require-non-empty'");
        } else if (ynode_scalar_is(k, "is-expression")) {
            scalar_bool(s, v, "'is-expression'"); /* for GitHub's evaluator, not its reader */
        } else {
            compile_error(s, k, "unexpected key '%s' in string definition '%s'", ynode_scalar(k, &(size_t){0}), d->name);
        }
    }
    if (d->constant && *d->constant && d->require_non_empty)
        compile_error(s, m, "'%s': 'constant' and 'require-non-empty' cannot both be set", d->name);
}

/* `properties`: each a type name, or a mapping of `type`, `required`, `description`. */
static int read_properties(struct tmplschema *s, struct tmpl_def *d, const struct ynode *v)
{
    d->props = calloc(ynode_len(v) ? ynode_len(v) : 1, sizeof(*d->props));
    if (!d->props) {
        compile_error(s, v, "out of memory");
        return -1;
    }
    for (size_t p = 0; p < ynode_len(v); p++) {
        struct tmpl_prop *prop = &d->props[d->n_props++];
        const struct ynode *pv = ynode_value(v, p);

        prop->name = ynode_scalar(ynode_key(v, p), &prop->len);
        if (ynode_is_map(pv)) {
            for (size_t j = 0; j < ynode_len(pv); j++) {
                const struct ynode *pk = ynode_key(pv, j);

                if (ynode_scalar_is(pk, "type"))
                    prop->type_name = scalar_text(s, ynode_value(pv, j), "'type'");
                else if (ynode_scalar_is(pk, "required"))
                    prop->required = scalar_bool(s, ynode_value(pv, j), "'required'");
                else if (!ynode_scalar_is(pk, "description"))
                    compile_error(s, pk, "unexpected key in property '%s'", prop->name);
            }
        } else {
            prop->type_name = scalar_text(s, pv, "a property's type");
        }
        if (!prop->type_name || !*prop->type_name)
            compile_error(s, pv, "type not specified for the property '%s' on '%s'", prop->name, d->name);
    }
    return 0;
}

static void read_mapping(struct tmplschema *s, struct tmpl_def *d, const struct ynode *m)
{
    for (size_t i = 0; ynode_is_map(m) && i < ynode_len(m); i++) {
        const struct ynode *k = ynode_key(m, i), *v = ynode_value(m, i);

        if (ynode_scalar_is(k, "loose-key-type")) {
            d->loose_key_name = scalar_text(s, v, "'loose-key-type'");
        } else if (ynode_scalar_is(k, "loose-value-type")) {
            d->loose_value_name = scalar_text(s, v, "'loose-value-type'");
        } else if (ynode_scalar_is(k, "properties") && ynode_is_map(v)) {
            if (read_properties(s, d, v) != 0)
                return;
        } else {
            compile_error(s, k, "unexpected key in mapping definition '%s'", d->name);
        }
    }
    if (d->loose_key_name && !d->loose_value_name)
        compile_error(s, m, "'loose-key-type' is defined but 'loose-value-type' is not on '%s'", d->name);
    if (d->loose_value_name && !d->loose_key_name)
        compile_error(s, m, "'loose-value-type' is defined but 'loose-key-type' is not on '%s'", d->name);
}

static int add_one_of(struct tmpl_def *d, const char *name)
{
    const char **grown = realloc(d->one_of_names, (d->n_one_of + 1) * sizeof(*grown));

    if (!grown)
        return -1;
    d->one_of_names = grown;
    d->one_of_names[d->n_one_of++] = name;
    return 0;
}

/* `allowed-values: [a, b]`: a one-of of the string constants `<name>-a`, `<name>-b`. */
static void read_allowed_values(struct tmplschema *s, struct tmpl_def *d, const struct ynode *list)
{
    for (size_t i = 0; ynode_is_seq(list) && i < ynode_len(list); i++) {
        const struct ynode *item = ynode_item(list, i);
        size_t len;
        const char *value = string_of(item);
        char *name = value ? malloc(strlen(d->name) + (len = strlen(value)) + 2) : NULL;
        struct tmpl_def *c;

        if (!value) {
            compile_error(s, item, "an allowed value must be a string");
            continue;
        }
        if (!name) {
            compile_error(s, item, "out of memory");
            return;
        }
        sprintf(name, "%s-%s", d->name, value);
        c = add_def(s, name, D_STRING, item);
        if (c) {
            c->constant = value;
            c->constant_len = len;
            if (add_one_of(d, c->name) != 0)
                compile_error(s, item, "out of memory");
        }
        free(name);
    }
}

static void read_one_of(struct tmplschema *s, struct tmpl_def *d, const struct ynode *list)
{
    for (size_t i = 0; ynode_is_seq(list) && i < ynode_len(list); i++) {
        const char *t = scalar_text(s, ynode_item(list, i), "a one-of item");

        if (t && add_one_of(d, t) != 0)
            compile_error(s, list, "out of memory");
    }
}

/* The definition `name` (written at `k`) of the kind its first key other than context
 * and description says (TemplateSchema's constructor); NULL after reporting. */
static struct tmpl_def *new_definition(struct tmplschema *s, const char *name, const struct ynode *k,
                                       const struct ynode *body)
{
    struct tmpl_def *d = NULL;

    for (size_t i = 0; i < ynode_len(body) && !d; i++) {
        const struct ynode *key = ynode_key(body, i);

        if (ynode_scalar_is(key, "context") || ynode_scalar_is(key, "description"))
            continue;
        if (ynode_scalar_is(key, "allowed-values")) {
            d = add_def(s, name, D_ONE_OF, k);
            continue;
        }
        for (size_t kind = 0; kind < sizeof(kind_keys) / sizeof(kind_keys[0]); kind++) {
            if (ynode_scalar_is(key, kind_keys[kind]))
                d = add_def(s, name, (enum def_kind)kind, k);
        }
        if (!d) {
            compile_error(s, key, "unexpected key '%s' in definition '%s'", ynode_scalar(key, &(size_t){0}), name);
            return NULL;
        }
    }
    if (!d && !s->failed)
        compile_error(s, k, "not enough information to construct definition '%s'", name);
    return d;
}

/* The keys of definition `d`'s body: its context, and those of its kind. */
static void read_definition_keys(struct tmplschema *s, struct tmpl_def *d, const char *name,
                                 const struct ynode *body)
{
    for (size_t i = 0; i < ynode_len(body); i++) {
        const struct ynode *key = ynode_key(body, i), *v = ynode_value(body, i);

        if (ynode_scalar_is(key, "context"))
            read_context(s, d, v);
        else if (ynode_scalar_is(key, "description"))
            scalar_text(s, v, "'description'");
        else if (d->kind == D_ONE_OF && ynode_scalar_is(key, "one-of"))
            read_one_of(s, d, v);
        else if (d->kind == D_ONE_OF && ynode_scalar_is(key, "allowed-values"))
            read_allowed_values(s, d, v);
        else if (!ynode_scalar_is(key, kind_keys[d->kind]))
            compile_error(s, key, "unexpected key '%s' in definition '%s'", ynode_scalar(key, &(size_t){0}), name);
        else if (d->kind == D_STRING)
            read_string(s, d, v);
        else if (d->kind == D_MAPPING)
            read_mapping(s, d, v);
        else if (d->kind == D_SEQUENCE && ynode_is_map(v) && ynode_len(v) == 1 &&
                 ynode_scalar_is(ynode_key(v, 0), "item-type"))
            d->item_name = scalar_text(s, ynode_value(v, 0), "'item-type'");
        else if (d->kind == D_SEQUENCE || (ynode_is_map(v) && ynode_len(v)) || (!ynode_is_map(v) && !ynode_is_null(v)))
            compile_error(s, v, "unexpected content in definition '%s'", name);
    }
}

/* One entry of `definitions`. */
static void read_definition(struct tmplschema *s, const struct ynode *k, const struct ynode *body)
{
    const char *name = scalar_text(s, k, "a definition name");
    struct tmpl_def *d;

    if (!name)
        return;
    if (!is_def_name(name))
        compile_error(s, k, "invalid definition name '%s'", name);
    if (!ynode_is_map(body)) {
        compile_error(s, body, "definition '%s' must be a mapping", name);
        return;
    }
    if ((d = new_definition(s, name, k, body)) != NULL)
        read_definition_keys(s, d, name, body);
}

static const struct tmpl_def *resolve(struct tmplschema *s, const struct tmpl_def *from, const char *name)
{
    const struct tmpl_def *d = name ? tmpl_find_def(s, name) : NULL;

    if (name && !d)
        compile_error(s, from->at, "schema definition '%s' not found (used by '%s')", name, from->name);
    return d;
}

/* Two mappings of one-of `d` may share a property only with the same type: mapping
 * member `i` against those before it. */
static void check_shared_properties(struct tmplschema *s, const struct tmpl_def *d, size_t i)
{
    const struct tmpl_def *c = d->one_of[i];

    for (size_t j = 0; j < i; j++) {
        const struct tmpl_def *o = d->one_of[j];

        for (size_t a = 0; o->kind == D_MAPPING && a < c->n_props; a++)
            for (size_t b = 0; b < o->n_props; b++)
                if (!strcmp(c->props[a].name, o->props[b].name) && c->props[a].type != o->props[b].type)
                    compile_error(s, d->at, "'%s' contains two mappings with property '%s' of different types",
                                  d->name, c->props[a].name);
    }
}

/* The checks of OneOfDefinition.validate: what GitHub's reader could not tell apart. */
static void check_one_of(struct tmplschema *s, struct tmpl_def *d)
{
    unsigned counts[D_ONE_OF + 1] = {0};
    const struct tmpl_def *first_string = NULL;
    bool loose = false;

    if (!d->n_one_of)
        compile_error(s, d->at, "'%s' does not contain any references", d->name);
    for (size_t i = 0; i < d->n_one_of; i++) {
        const struct tmpl_def *c = d->one_of[i];

        for (size_t j = 0; j < i; j++) {
            if (d->one_of[j] == c)
                compile_error(s, d->at, "'%s' contains duplicate nested type '%s'", d->name, c->name);
        }
        if (c->contexts)
            compile_error(s, d->at, "'%s' is a one-of definition and references '%s', which defines context",
                          d->name, c->name);
        counts[c->kind]++;
        if (c->kind == D_STRING && first_string && (!first_string->constant || !c->constant))
            compile_error(s, d->at, "'%s' refers to more than one string, but some do not set 'constant'", d->name);
        if (c->kind == D_STRING && !first_string)
            first_string = c;
        loose = loose || (c->kind == D_MAPPING && c->loose_key);
        if (c->kind == D_MAPPING && counts[D_MAPPING] > MAX_BRANCHES)
            compile_error(s, d->at, "'%s' refers to more than %d mappings", d->name, MAX_BRANCHES);
        if (c->kind == D_MAPPING)
            check_shared_properties(s, d, i);
    }
    for (int k = D_NULL; k <= D_ONE_OF; k++) {
        if (counts[k] > 1 && k != D_STRING && k != D_MAPPING)
            compile_error(s, d->at, "'%s' refers to more than one definition of type '%s'", d->name, kind_keys[k]);
    }
    if (counts[D_MAPPING] > 1 && loose)
        compile_error(s, d->at, "'%s' refers to two mappings and one sets 'loose-key-type'", d->name);
}

/* The well-known keys of background steps, which GitHub's parser refuses unless a
 * feature flag (allowBackgroundSteps) is on; and those only background steps have. */
bool tmpl_background_key(const char *k, size_t len, bool only)
{
    static const struct {
        const char *text;
        size_t len;
    } keys[] = {{"wait", 4}, {"wait-all", 8}, {"cancel", 6}, {"background", 10}};

    for (size_t i = 0; i < (only ? 3u : 4u); i++) {
        if (keys[i].len == len && !memcmp(keys[i].text, k, len))
            return true;
    }
    return false;
}

/* Whether two props' names may be one key as GitHub compares keys (expr_upper): equal
 * in ASCII upper case, or either not ASCII (its upper case may be the other's: the
 * upper case of U+017F is S). */
static bool props_may_clash(const struct tmpl_prop *a, const struct tmpl_prop *b)
{
    if (!tmpl_is_ascii(a->name, a->len) || !tmpl_is_ascii(b->name, b->len))
        return true;
    if (a->len != b->len)
        return false;
    for (size_t i = 0; i < a->len; i++) {
        char x = a->name[i] >= 'a' && a->name[i] <= 'z' ? (char)(a->name[i] - 32) : a->name[i];
        char y = b->name[i] >= 'a' && b->name[i] <= 'z' ? (char)(b->name[i] - 32) : b->name[i];

        if (x != y)
            return false;
    }
    return true;
}

void tmpl_index_props(struct tmpl_def *d)
{
    memset(d->prop_slots, 0, sizeof(d->prop_slots));
    d->any_required = false;
    for (size_t p = 0; p < d->n_props; p++) {
        d->props[p].background = tmpl_background_key(d->props[p].name, d->props[p].len, false);
        d->any_required = d->any_required || d->props[p].required;
    }
    /* at most three quarters full (a slot holds an index + 1 in a byte); props that
     * differ in upper case, so that a mapping's reader keeps its keys that name them as
     * bits of their indexes (tmplschema.c: tmpl_mapping.by_props) */
    d->indexed = d->n_props && d->n_props <= TMPL_PROPS_INDEXED;
    for (size_t p = 0; d->indexed && p < d->n_props; p++) {
        for (size_t q = 0; d->indexed && q < p; q++)
            d->indexed = !props_may_clash(&d->props[p], &d->props[q]);
    }
    for (size_t p = 0; d->indexed && p < d->n_props; p++) {
        size_t i = tmpl_prop_slot(d->props[p].name, d->props[p].len);

        /* in order along a probe run: the first of two equal names is found first, as a
         * scan finds it */
        while (d->prop_slots[i])
            i = (i + 1) & (TMPL_PROP_SLOTS - 1);
        d->prop_slots[i] = (uint8_t)(p + 1);
    }
}

struct tmpl_keys *tmpl_make_keys(const struct tmpl_def *d)
{
    const struct tmpl_def *maps[MAX_BRANCHES];
    const struct tmpl_prop *named[TMPL_PROPS_INDEXED];
    size_t n_maps = tmpl_defs_of_kind(d, D_MAPPING, maps, MAX_BRANCHES), n = 0, all = 0;
    struct tmpl_keys *k;
    const struct tmpl_prop **props;
    const struct tmpl_def **own_maps;

    for (size_t i = 0; i < n_maps; i++) {
        if (!maps[i]->indexed && maps[i]->n_props)
            return NULL;
        for (size_t p = 0; p < maps[i]->n_props; p++) {
            const struct tmpl_prop *pr = &maps[i]->props[p];
            size_t j = 0;

            while (j < n && !(named[j]->len == pr->len && !memcmp(named[j]->name, pr->name, pr->len)))
                j++;
            if (j < n)
                continue;
            for (j = 0; j < n; j++) {
                if (props_may_clash(named[j], pr))
                    return NULL;
            }
            if (n == TMPL_PROPS_INDEXED)
                return NULL;
            named[n++] = pr;
        }
    }
    if (!n)
        return NULL;
    all = n * n_maps;
    k = calloc(1, sizeof(*k) + (n + all) * sizeof(*props) + n_maps * sizeof(*own_maps));
    if (!k)
        return NULL;
    props = (const struct tmpl_prop **)(k + 1);
    own_maps = (const struct tmpl_def **)(props + n + all);
    memcpy(props, named, n * sizeof(*named));
    memcpy(own_maps, maps, n_maps * sizeof(*maps));
    k->named = props;
    k->props = props + n;
    k->maps = own_maps;
    k->n_maps = n_maps;
    k->n_names = n;
    for (size_t j = 0; j < n; j++) {
        size_t i = tmpl_prop_slot(named[j]->name, named[j]->len);

        while (k->slots[i])
            i = (i + 1) & (TMPL_PROP_SLOTS - 1);
        k->slots[i] = (uint8_t)(j + 1);
        for (size_t m = 0; m < n_maps; m++) {
            props[n + j * n_maps + m] = tmpl_find_prop(maps[m], named[j]->name, named[j]->len);
            k->has[j] = (uint16_t)(k->has[j] | (props[n + j * n_maps + m] ? 1u << m : 0));
        }
    }
    return k;
}

static void link_defs(struct tmplschema *s)
{
    for (size_t i = 0; i < s->n_defs; i++) {
        struct tmpl_def *d = s->defs[i];

        d->item = resolve(s, d, d->item_name);
        d->loose_key = resolve(s, d, d->loose_key_name);
        d->loose_value = resolve(s, d, d->loose_value_name);
        if (d->kind == D_SEQUENCE && !d->item_name)
            compile_error(s, d->at, "'%s' does not define 'item-type'", d->name);
        for (size_t p = 0; p < d->n_props; p++)
            d->props[p].type = resolve(s, d, d->props[p].type_name);
        tmpl_index_props(d);
        if (d->n_one_of && !(d->one_of = calloc(d->n_one_of, sizeof(*d->one_of)))) {
            compile_error(s, d->at, "out of memory");
            return;
        }
        for (size_t j = 0; j < d->n_one_of; j++)
            d->one_of[j] = resolve(s, d, d->one_of_names[j]);
    }
    for (size_t i = 0; i < s->n_defs && !s->failed; i++) {
        if (s->defs[i]->kind == D_ONE_OF)
            check_one_of(s, s->defs[i]);
    }
    /* out of memory: the reader looks keys up in each definition */
    for (size_t i = 0; i < s->n_defs && !s->failed; i++)
        s->defs[i]->keys = tmpl_make_keys(s->defs[i]);
}

/* Each definition's tmpl_def.scalars: its own, then each one-of's from its members'
 * until none changes (a one-of may nest another, even itself). */
static void settle_scalars(struct tmplschema *s)
{
    static const uint8_t own[] = {[D_NULL] = S_NULL, [D_BOOLEAN] = S_BOOLEAN, [D_NUMBER] = S_NUMBER};
    bool changed = true;

    for (size_t i = 0; i < s->n_defs; i++) {
        struct tmpl_def *d = s->defs[i];

        d->scalars = d->kind <= D_NUMBER ? own[d->kind] : 0;
        if (d->kind == D_STRING && !(d->constant && *d->constant))
            d->scalars = (uint8_t)(S_NON_EMPTY | (d->require_non_empty ? 0 : S_STRING));
    }
    while (changed) {
        changed = false;
        for (size_t i = 0; i < s->n_defs; i++) {
            struct tmpl_def *d = s->defs[i];
            uint8_t all = d->scalars;

            for (size_t j = 0; d->kind == D_ONE_OF && j < d->n_one_of; j++)
                all |= d->one_of[j]->scalars;
            changed = changed || all != d->scalars;
            d->scalars = all;
        }
    }
}

/* TemplateSchema's built-in types: null, boolean, number, string, a sequence of any, a
 * mapping of string keys to any, and any. */
static int add_builtins(struct tmplschema *s)
{
    static const char *const any[] = {"null", "boolean", "number", "string", "sequence", "mapping"};
    struct tmpl_def *d;

    for (int k = D_NULL; k <= D_MAPPING; k++) {
        if (!(d = add_def(s, kind_keys[k], (enum def_kind)k, NULL)))
            return -1;
        d->item_name = k == D_SEQUENCE ? "any" : NULL;
        d->loose_key_name = k == D_MAPPING ? "string" : NULL;
        d->loose_value_name = k == D_MAPPING ? "any" : NULL;
    }
    if (!(d = add_def(s, "any", D_ONE_OF, NULL)))
        return -1;
    for (size_t i = 0; i < sizeof(any) / sizeof(any[0]); i++) {
        if (add_one_of(d, any[i]) != 0)
            return -1;
    }
    return 0;
}

bool tmplschema_is_template(const struct ynode *root)
{
    if (!ynode_is_map(root) || !ynode_has(root, "definitions") || !ynode_has(root, "version"))
        return false;
    for (size_t i = 0; i < ynode_len(root); i++) {
        if (!ynode_scalar_is(ynode_key(root, i), "version") && !ynode_scalar_is(ynode_key(root, i), "definitions"))
            return false;
    }
    return true;
}

struct tmplschema *tmpl_schema_new(const char *name)
{
    struct tmplschema *s = calloc(1, sizeof(*s));

    if (s && !(s->name = dup_text(name, strlen(name)))) {
        free(s);
        return NULL;
    }
    return s;
}

struct tmplschema *tmplschema_compile(const struct ynode *root, const char *name, struct diag *d)
{
    struct tmplschema *s = tmpl_schema_new(name);
    const struct ynode *defs = ynode_get(root, "definitions");

    if (!s) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, name, 0, 0, RULE_INTERNAL, "out of memory");
        return NULL;
    }
    s->diag = d;
    if (!tmplschema_is_template(root) || !ynode_is_map(defs))
        compile_error(s, root, "a template schema is a mapping of 'version' and 'definitions'");
    else if (scalar_text(s, ynode_get(root, "version"), "'version'") && add_builtins(s) != 0)
        compile_error(s, root, "out of memory");
    for (size_t i = 0; !s->failed && i < ynode_len(defs); i++)
        read_definition(s, ynode_key(defs, i), ynode_value(defs, i));
    if (!s->failed) {
        qsort(s->defs, s->n_defs, sizeof(*s->defs), def_cmp);
        for (size_t i = 1; i < s->n_defs; i++) {
            if (!strcmp(s->defs[i - 1]->name, s->defs[i]->name))
                compile_error(s, s->defs[i]->at, "definition '%s' is defined twice", s->defs[i]->name);
        }
    }
    if (!s->failed) {
        link_defs(s);
        resolve_shadows(s);
        if (!s->failed)
            settle_scalars(s);
    }
    s->diag = NULL;
    if (s->failed) {
        tmplschema_free(s);
        return NULL;
    }
    return s;
}

void tmplschema_free(struct tmplschema *s)
{
    if (!s)
        return;
    for (size_t i = 0; !s->prebuilt && i < s->n_defs; i++) {
        free((char *)s->defs[i]->name);
        free(s->defs[i]->props);
        free(s->defs[i]->one_of_names);
        free(s->defs[i]->one_of);
        free((struct tmpl_keys *)s->defs[i]->keys);
        free(s->defs[i]);
    }
    for (size_t i = 0; !s->prebuilt && i < s->n_items; i++) {
        free(s->items[i].text);
        free(s->items[i].name);
    }
    for (size_t i = 0; i < s->n_names; i++) {
        free(s->names[i].contexts);
        free(s->names[i].functions);
    }
    free(s->names);
    free(s->checked);
    if (!s->prebuilt)
        free(s->defs);
    free(s->name);
    free(s);
}
