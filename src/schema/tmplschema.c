/* tmplschema: GitHub's template-schema language and its reader (include/fanout/
 * tmplschema.h names the upstream files this follows). Compiling reads the schema tree
 * once into definitions that point at each other; validating walks a YAML tree as
 * TemplateReader.readValue walks its token stream. */
#include "fanout/tmplschema.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/bundled.h"
#include "fanout/expr.h"
#include "fanout/strhash.h"
#include "fanout/suggest.h"
#include "fanout/yscalar.h"

enum def_kind { D_NULL, D_BOOLEAN, D_NUMBER, D_STRING, D_SEQUENCE, D_MAPPING, D_ONE_OF };

static const char *const kind_keys[] = {"null", "boolean", "number", "string", "sequence", "mapping", "one-of"};

struct tmpl_prop {
    const char *name;
    size_t len;
    const char *type_name;
    const struct tmpl_def *type;
    bool required;
};

struct tmpl_def {
    const char *name;
    uint8_t kind; /* enum def_kind */
    const struct ynode *at; /* where it is defined (NULL: built in) */
    /* `context`: the items it allows, and the items it overrides (functions of the same
     * name with other argument counts, which its own replace in a joined list) */
    uint64_t contexts, shadows;
    /* string */
    const char *constant;
    size_t constant_len;
    bool ignore_case, require_non_empty;
    /* sequence: item type; mapping: loose key and value types */
    const char *item_name, *loose_key_name, *loose_value_name;
    const struct tmpl_def *item, *loose_key, *loose_value;
    struct tmpl_prop *props;
    size_t n_props;
    /* one-of (and allowed-values) */
    const char **one_of_names;
    const struct tmpl_def **one_of;
    size_t n_one_of;
};

/* One `context` item: a named-value, or a function with its argument counts. */
struct ctx_item {
    char *text; /* as written first */
    char *name; /* the named-value or function name */
    bool function;
    unsigned min, max;
};

#define MAX_CTX_ITEMS 64
#define CHECKED_SLOTS 4096
/* The mappings of one one-of (a step has six kinds) */
#define MAX_BRANCHES 16

struct tmplschema {
    char *name;
    struct tmpl_def **defs; /* sorted by name */
    size_t n_defs, cap_defs;
    struct ctx_item items[MAX_CTX_ITEMS];
    size_t n_items;
    /* expr_names for each set of context items a reader met, made when first asked */
    struct names_cache {
        uint64_t set;
        struct expr_names names;
        const char **contexts;
        struct expr_function *functions;
    } *names;
    size_t n_names, cap_names;
    /* expressions found valid, by two hashes of their text and the context set (h2 with
     * its low bit set marks a used slot): a rendering repeats its input's expressions
     * in every job of a matrix. Emptied when three quarters full. */
    struct checked {
        uint64_t h1, h2, set;
    } *checked;
    size_t n_checked;
    struct diag *diag; /* compiling only */
    bool failed;
};

/* ---- compiling ---- */

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

static const struct tmpl_def *find_def(const struct tmplschema *s, const char *name)
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
        size_t cap = s->cap_defs ? s->cap_defs * 2 : 64;
        struct tmpl_def **grown = realloc(s->defs, cap * sizeof(*grown));

        if (!grown)
            return NULL;
        s->defs = grown;
        s->cap_defs = cap;
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

static bool same_upper(const char *a, const char *b)
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
        if (same_upper(s->items[i].text, t))
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
                if (b == a || !s->items[b].function || !same_upper(s->items[a].name, s->items[b].name))
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

static void read_mapping(struct tmplschema *s, struct tmpl_def *d, const struct ynode *m)
{
    for (size_t i = 0; ynode_is_map(m) && i < ynode_len(m); i++) {
        const struct ynode *k = ynode_key(m, i), *v = ynode_value(m, i);

        if (ynode_scalar_is(k, "loose-key-type")) {
            d->loose_key_name = scalar_text(s, v, "'loose-key-type'");
        } else if (ynode_scalar_is(k, "loose-value-type")) {
            d->loose_value_name = scalar_text(s, v, "'loose-value-type'");
        } else if (ynode_scalar_is(k, "properties") && ynode_is_map(v)) {
            d->props = calloc(ynode_len(v) ? ynode_len(v) : 1, sizeof(*d->props));
            if (!d->props) {
                compile_error(s, v, "out of memory");
                return;
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

/* One entry of `definitions`: its kind is its first key other than context and
 * description (TemplateSchema's constructor). */
static void read_definition(struct tmplschema *s, const struct ynode *k, const struct ynode *body)
{
    const char *name = scalar_text(s, k, "a definition name");
    struct tmpl_def *d = NULL;

    if (!name)
        return;
    if (!is_def_name(name))
        compile_error(s, k, "invalid definition name '%s'", name);
    if (!ynode_is_map(body)) {
        compile_error(s, body, "definition '%s' must be a mapping", name);
        return;
    }
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
            return;
        }
    }
    if (!d) {
        if (!s->failed)
            compile_error(s, k, "not enough information to construct definition '%s'", name);
        return;
    }
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

static const struct tmpl_def *resolve(struct tmplschema *s, const struct tmpl_def *from, const char *name)
{
    const struct tmpl_def *d = name ? find_def(s, name) : NULL;

    if (name && !d)
        compile_error(s, from->at, "schema definition '%s' not found (used by '%s')", name, from->name);
    return d;
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
        /* Two mappings may share a property only with the same type. */
        for (size_t j = 0; c->kind == D_MAPPING && j < i; j++) {
            const struct tmpl_def *o = d->one_of[j];

            for (size_t a = 0; o->kind == D_MAPPING && a < c->n_props; a++)
                for (size_t b = 0; b < o->n_props; b++)
                    if (!strcmp(c->props[a].name, o->props[b].name) && c->props[a].type != o->props[b].type)
                        compile_error(s, d->at, "'%s' contains two mappings with property '%s' of different types",
                                      d->name, c->props[a].name);
        }
    }
    for (int k = D_NULL; k <= D_ONE_OF; k++) {
        if (counts[k] > 1 && k != D_STRING && k != D_MAPPING)
            compile_error(s, d->at, "'%s' refers to more than one definition of type '%s'", d->name, kind_keys[k]);
    }
    if (counts[D_MAPPING] > 1 && loose)
        compile_error(s, d->at, "'%s' refers to two mappings and one sets 'loose-key-type'", d->name);
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

struct tmplschema *tmplschema_compile(const struct ynode *root, const char *name, struct diag *d)
{
    struct tmplschema *s = calloc(1, sizeof(*s));
    const struct ynode *defs = ynode_get(root, "definitions");

    if (!s || !(s->name = dup_text(name, strlen(name)))) {
        free(s);
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
    for (size_t i = 0; i < s->n_defs; i++) {
        free((char *)s->defs[i]->name);
        free(s->defs[i]->props);
        free(s->defs[i]->one_of_names);
        free(s->defs[i]->one_of);
        free(s->defs[i]);
    }
    for (size_t i = 0; i < s->n_items; i++) {
        free(s->items[i].text);
        free(s->items[i].name);
    }
    for (size_t i = 0; i < s->n_names; i++) {
        free(s->names[i].contexts);
        free(s->names[i].functions);
    }
    free(s->names);
    free(s->checked);
    free(s->defs);
    free(s->name);
    free(s);
}

const struct tmplschema *tmplschema_bundled(const char *name, struct diag *d)
{
    /* Compiled once per process, on first use: only a run that reads a workflow pays. */
    static struct {
        const char *name;
        struct tmplschema *schema;
    } cache[4];
    static size_t cached;
    const struct ynode *root;

    for (size_t i = 0; i < cached; i++) {
        if (!strcmp(cache[i].name, name))
            return cache[i].schema;
    }
    root = bundled_schema(name);
    if (!root || !tmplschema_is_template(root) || cached == sizeof(cache) / sizeof(cache[0]))
        return NULL;
    if (!(cache[cached].schema = tmplschema_compile(root, name, d)))
        return NULL;
    cache[cached].name = name;
    return cache[cached++].schema;
}

/* ---- types ---- */

static struct tmpl_type child_type(struct tmpl_type parent, const struct tmpl_def *d)
{
    struct tmpl_type t = {d, parent.contexts};

    if (d->contexts)
        t.contexts = (parent.contexts & ~d->shadows) | d->contexts;
    return t;
}

bool tmplschema_type(const struct tmplschema *s, const char *name, struct tmpl_type *out)
{
    const struct tmpl_def *d = find_def(s, name);

    if (!d)
        return false;
    *out = child_type((struct tmpl_type){d, 0}, d);
    return true;
}

/* getDefinitionsOfType: `d` itself, or the members of one-of `d` (one level), of `kind`. */
static size_t defs_of_kind(const struct tmpl_def *d, enum def_kind kind, const struct tmpl_def **out, size_t cap)
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

static const struct tmpl_prop *find_prop(const struct tmpl_def *d, const char *key, size_t len)
{
    for (size_t i = 0; i < d->n_props; i++) {
        if (d->props[i].len == len && !memcmp(d->props[i].name, key, len))
            return &d->props[i];
    }
    return NULL;
}

bool tmpl_type_item(struct tmpl_type parent, struct tmpl_type *out)
{
    const struct tmpl_def *seq = NULL;

    if (!defs_of_kind(parent.def, D_SEQUENCE, &seq, 1))
        return false;
    *out = child_type(parent, seq->item);
    return true;
}

bool tmpl_type_child(struct tmpl_type parent, const char *key, size_t len, struct tmpl_type *out)
{
    const struct tmpl_def *defs[MAX_BRANCHES];
    size_t n;

    n = defs_of_kind(parent.def, D_MAPPING, defs, MAX_BRANCHES);
    for (size_t i = 0; i < n; i++) {
        const struct tmpl_prop *p = find_prop(defs[i], key, len);

        if (p) {
            *out = child_type(parent, p->type);
            return true;
        }
    }
    if (n && defs[0]->loose_key) {
        *out = child_type(parent, defs[0]->loose_value);
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
        if ((t.contexts >> i & 1) && same_upper(s->items[i].name, name))
            return true;
    }
    return false;
}

/* The lists GitHub's parser is given for a set of context items (allowed-context.ts),
 * made once per set. NULL when out of memory. */
static const struct expr_names *names_for(const struct tmplschema *cs, uint64_t set)
{
    struct tmplschema *s = (struct tmplschema *)cs; /* the cache is not part of its meaning */
    struct names_cache *c;

    for (size_t i = 0; i < s->n_names; i++) {
        if (s->names[i].set == set)
            return &s->names[i].names;
    }
    if (s->n_names == s->cap_names) {
        size_t cap = s->cap_names ? s->cap_names * 2 : 16;
        struct names_cache *grown = realloc(s->names, cap * sizeof(*grown));

        if (!grown)
            return NULL;
        s->names = grown;
        s->cap_names = cap;
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

/* ---- reading (TemplateReader) ---- */

/* A scalar as the reader sees it after parseScalar. */
enum token_kind { TK_NULL, TK_BOOLEAN, TK_NUMBER, TK_STRING, TK_EXPRESSION, TK_INSERT };

struct token {
    enum token_kind kind;
    const char *text; /* strings: the value (a literal ${{ 'x' }} unquoted into `own`) */
    size_t len;
    char *own;
    bool failed; /* an expression in it had an error (reported): nothing more to say */
};

struct reader {
    const struct tmplschema *s;
    tmpl_error_fn fn;
    void *user;
    size_t errors;
    /* the path of the value being read, for messages: a JSON pointer */
    char path[512];
    size_t path_len;
};

static void report(struct reader *r, enum tmpl_problem problem, const struct ynode *at, size_t offset,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void report(struct reader *r, enum tmpl_problem problem, const struct ynode *at, size_t offset,
                   const char *fmt, ...)
{
    char msg[1024];
    int n = snprintf(msg, sizeof(msg), "%s: ", r->path_len ? r->path : "(root)");
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    va_end(ap);
    r->errors++;
    r->fn(r->user, &(struct tmpl_error){problem, at, offset, msg});
}

/* Appends "/key" (JSON-pointer escaped) to the path; returns the length to restore. */
static size_t path_push(struct reader *r, const char *key, size_t len)
{
    size_t old = r->path_len, o = old;

    if (o + 1 < sizeof(r->path))
        r->path[o++] = '/';
    for (size_t i = 0; i < len && o + 3 < sizeof(r->path); i++) {
        if (key[i] == '~' || key[i] == '/') {
            r->path[o++] = '~';
            r->path[o++] = key[i] == '~' ? '0' : '1';
        } else {
            r->path[o++] = key[i];
        }
    }
    r->path[o] = '\0';
    r->path_len = o;
    return old;
}

static size_t path_push_index(struct reader *r, size_t index)
{
    char num[24];
    size_t n = sizeof(num);

    do
        num[--n] = (char)('0' + index % 10);
    while ((index /= 10) != 0);
    return path_push(r, num + n, sizeof(num) - n);
}

static void path_pop(struct reader *r, size_t old)
{
    r->path_len = old;
    r->path[old] = '\0';
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
    size_t len = tk->len;

    if (tk->kind == TK_NULL)
        return "null";
    if (len > 60) {
        len = 60;
        while (len > 0 && ((unsigned char)tk->text[len] & 0xC0) == 0x80)
            len--;
    }
    snprintf(out, cap, "%s '%.*s%s'", kinds[tk->kind], (int)len, tk->text, len < tk->len ? "..." : "");
    return out;
}

/* ---- scalars ---- */

static void token_clear(struct token *tk)
{
    free(tk->own);
    tk->own = NULL;
}

/* The literal kind of a YAML scalar as GitHub's YAML reader (YAML 1.2 core) types it. */
static struct token literal(const struct ynode *n)
{
    struct token tk = {TK_STRING, NULL, 0, NULL, false};

    tk.text = ynode_scalar(n, &tk.len);
    if (!ynode_is_string(n)) {
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

/* Whether expression `e` was found valid with context set `set` before; *out is its
 * entry, for checked_add when it is found valid now. */
static bool checked_before(const struct tmplschema *cs, const char *e, size_t len, uint64_t set,
                           struct checked *out)
{
    struct tmplschema *s = (struct tmplschema *)cs; /* a cache, not part of its meaning */
    size_t i;

    strhash_pair(e, len, &out->h1, &out->h2);
    out->h2 |= 1;
    out->set = set;
    if (!s->checked || s->n_checked * 4 >= CHECKED_SLOTS * 3) {
        free(s->checked);
        s->checked = calloc(CHECKED_SLOTS, sizeof(*s->checked));
        s->n_checked = 0;
        if (!s->checked)
            return false;
    }
    for (i = out->h1 & (CHECKED_SLOTS - 1); s->checked[i].h2; i = (i + 1) & (CHECKED_SLOTS - 1)) {
        if (s->checked[i].h1 == out->h1 && s->checked[i].h2 == out->h2 && s->checked[i].set == set)
            return true;
    }
    return false;
}

static void checked_add(const struct tmplschema *cs, const struct checked *c)
{
    struct tmplschema *s = (struct tmplschema *)cs;
    size_t i;

    if (!s->checked)
        return;
    for (i = c->h1 & (CHECKED_SLOTS - 1); s->checked[i].h2; i = (i + 1) & (CHECKED_SLOTS - 1))
        ;
    s->checked[i] = *c;
    s->n_checked++;
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
    if (!(names = names_for(r->s, contexts))) {
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

/* parseScalar: a string with `${{ }}` becomes an expression token (several parts: one
 * format() expression), or stays a string when any part has an error (reported). */
static struct token parse_scalar(struct reader *r, const struct ynode *n, struct tmpl_type t)
{
    struct token tk = literal(n);
    const char *s = tk.text, *open;
    size_t i = 0, segments = 0, first_start = 0, first_len = 0;
    bool failed = false, only_expressions = true, directive = false;

    if (tk.kind != TK_STRING || !tk.len || !(open = strstr(s, "${{")))
        return tk;
    while (i < tk.len) {
        size_t at = open ? (size_t)(open - s) : tk.len;

        if (i < at) {
            segments++;
            only_expressions = false;
            i = at;
            continue;
        }
        {
            /* from `${{` to the first `}}` outside a quoted string ('' toggles twice) */
            size_t j = at + 3, end = 0;
            bool quoted = false;
            const char *e;
            size_t elen, lead = 0;
            int ins;

            for (; j < tk.len; j++) {
                if (s[j] == '\'') {
                    quoted = !quoted;
                } else if (!quoted && s[j] == '}' && s[j - 1] == '}') {
                    end = j;
                    break;
                }
            }
            if (!end) {
                report(r, TMPL_EXPRESSION, n, at,
                       "the expression is not closed: '${{' without a closing '}}'");
                tk.failed = true;
                return tk;
            }
            e = s + at + 3;
            elen = end - 1 - (at + 3);
            while (lead < elen && is_ascii_space(e[lead]))
                lead++;
            while (elen > lead && is_ascii_space(e[elen - 1]))
                elen--;
            i = end + 1;
            open = strstr(s + i, "${{");
            if (elen == lead) {
                report(r, TMPL_EXPRESSION, n, at, "an expression was expected between '${{' and '}}'");
                failed = true;
                continue;
            }
            ins = insert_directive(r, n, at, e + lead, elen - lead);
            if (ins < 0) {
                failed = true;
                continue;
            }
            if (ins > 0) {
                if (at != 0 || i < tk.len) {
                    report(r, TMPL_EXPRESSION, n, at,
                           "the directive 'insert' is only allowed when the whole value is the expression");
                    tk.failed = true;
                    return tk;
                }
                directive = true;
            } else if (check_expression(r, n, at + 3 + lead, e + lead, elen - lead, t.contexts) != 0) {
                failed = true;
                continue;
            }
            if (!segments) {
                first_start = at + 3 + lead;
                first_len = elen - lead;
            }
            segments++;
        }
    }
    if (failed) {
        tk.failed = true;
        return tk;
    }
    if (directive) {
        tk.kind = TK_INSERT;
        return tk;
    }
    /* `${{ 'text' }}` alone is that text, a string */
    if (segments == 1 && only_expressions && literal_expression(s + first_start, first_len, &tk))
        return tk;
    tk.kind = TK_EXPRESSION;
    return tk;
}

/* A scalar definition's isMatch. */
static bool scalar_match(const struct tmpl_def *d, enum token_kind kind, const char *text, size_t len)
{
    switch (d->kind) {
    case D_NULL:
        return kind == TK_NULL;
    case D_BOOLEAN:
        return kind == TK_BOOLEAN;
    case D_NUMBER:
        return kind == TK_NUMBER;
    case D_STRING:
        if (kind != TK_STRING)
            return false;
        if (d->constant && *d->constant)
            return d->constant_len == len &&
                   (d->ignore_case ? same_upper(d->constant, text) : !memcmp(d->constant, text, len));
        return !d->require_non_empty || len > 0;
    default:
        return false;
    }
}

/* Any scalar definition of `d` (through nested one-ofs) matching. */
static bool scalar_any(const struct tmpl_def *d, enum token_kind kind, const char *text, size_t len)
{
    if (d->kind == D_ONE_OF) {
        for (size_t i = 0; i < d->n_one_of; i++) {
            if (scalar_any(d->one_of[i], kind, text, len))
                return true;
        }
        return false;
    }
    return scalar_match(d, kind, text, len);
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
    constants(t.def, names, 0, sizeof(names) / sizeof(names[0]));
    near = tk->kind == TK_STRING && len ? suggest_closest(text, len, names, suggest_limit(len)) : NULL;
    report(r, TMPL_VALUE, n, SIZE_MAX, "%s, got %s%s", expected(t, exp, sizeof(exp)), got(tk, gotbuf, sizeof(gotbuf)),
           suggest_phrase(near, phrase));
}

/* ---- keys ---- */

/* The keys of one mapping, compared as GitHub does (upper-cased), by two hashes. A
 * streamed mapping outlives its pairs' trees: it keeps copies of its keys' texts. */
#define KEYSET_INLINE 16

struct keyset {
    struct keyslot {
        uint64_t h1, h2;
        const char *text; /* the key as written (owned when `copies`) */
        size_t len;
        unsigned line;
    } *slots, inline_slots[KEYSET_INLINE]; /* most mappings are small: no allocation */
    size_t n, cap; /* cap: a power of two, or 0 */
    bool copies;
};

static void keyset_free(struct keyset *k)
{
    for (size_t i = 0; k->copies && i < k->cap; i++)
        free((char *)k->slots[i].text);
    if (k->slots != k->inline_slots)
        free(k->slots);
    k->slots = NULL;
    k->n = k->cap = 0;
}

/* The two hashes of `text` in upper case (JavaScript's toUpperCase, one-to-one
 * mappings). False when out of memory. */
static bool key_hash(const char *text, size_t len, uint64_t *h1, uint64_t *h2)
{
    char small[128] = {0}, *upper = small;
    size_t ulen = len, i;
    bool ascii = true;

    for (i = 0; i < len && ascii; i++)
        ascii = (unsigned char)text[i] < 0x80;
    if (!ascii)
        upper = expr_upper(text, len, &ulen);
    else if (len >= sizeof(small))
        upper = malloc(len + 1);
    if (!upper)
        return false;
    for (i = 0; ascii && i < len; i++)
        upper[i] = text[i] >= 'a' && text[i] <= 'z' ? (char)(text[i] - 32) : text[i];
    strhash_pair(upper, ulen, h1, h2);
    if (!ascii || len >= sizeof(small))
        free(upper);
    return true;
}

/* The slot of the key with these hashes, or the empty slot where it would go. */
static struct keyslot *keyset_slot(struct keyslot *slots, size_t cap, uint64_t h1, uint64_t h2)
{
    size_t i = h1 & (cap - 1);

    while (slots[i].text && !(slots[i].h1 == h1 && slots[i].h2 == h2))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

static bool keyset_has(const struct keyset *k, const char *text, size_t len)
{
    uint64_t h1, h2;

    return k->cap && key_hash(text, len, &h1, &h2) && keyset_slot(k->slots, k->cap, h1, h2)->text;
}

/* Adds key `text` written at `line`; when one equal in upper case was there, false
 * with its slot in *seen. *oom set when out of memory. */
static bool keyset_add(struct keyset *k, const char *text, size_t len, unsigned line, const struct keyslot **seen,
                       bool *oom)
{
    uint64_t h1, h2;
    struct keyslot *slot;
    char *copy = NULL;

    if (!key_hash(text, len, &h1, &h2) || (k->copies && !(copy = malloc(len + 1)))) {
        *oom = true;
        return false;
    }
    if (!k->cap) {
        memset(k->inline_slots, 0, sizeof(k->inline_slots));
        k->slots = k->inline_slots;
        k->cap = KEYSET_INLINE;
    } else if ((k->n + 1) * 4 > k->cap * 3) {
        size_t cap = k->cap * 2;
        struct keyslot *old = k->slots, *slots = calloc(cap, sizeof(*slots));

        if (!slots) {
            free(copy);
            *oom = true;
            return false;
        }
        for (size_t j = 0; j < cap / 2; j++) {
            if (old[j].text)
                *keyset_slot(slots, cap, old[j].h1, old[j].h2) = old[j];
        }
        if (old != k->inline_slots)
            free(old);
        k->slots = slots;
        k->cap = cap;
    }
    slot = keyset_slot(k->slots, k->cap, h1, h2);
    if (slot->text) {
        free(copy);
        *seen = slot;
        return false;
    }
    if (copy) {
        memcpy(copy, text, len);
        copy[len] = '\0';
    }
    *slot = (struct keyslot){h1, h2, copy ? copy : text, len, line};
    k->n++;
    return true;
}

/* A key as a string token: an expression key, or a literal (a number or boolean key is
 * its text, as GitHub's C# reader converts it; null is the empty string). */
static struct token key_token(struct reader *r, const struct ynode *key, struct tmpl_type t)
{
    struct token tk = parse_scalar(r, key, t);

    if (tk.kind == TK_NULL) {
        tk.text = "";
        tk.len = 0;
    }
    if (tk.kind <= TK_NUMBER)
        tk.kind = TK_STRING;
    return tk;
}

static void read_value(struct reader *r, const struct ynode *n, struct tmpl_type t);

/* The well-known keys of background steps, which GitHub's parser refuses unless a
 * feature flag (allowBackgroundSteps) is on; and those only background steps have. */
static bool background_key(const char *k, size_t len, bool only)
{
    static const char *const keys[] = {"wait", "wait-all", "cancel", "background"};

    for (size_t i = 0; i < (only ? 3u : 4u); i++) {
        if (strlen(keys[i]) == len && !memcmp(keys[i], k, len))
            return true;
    }
    return false;
}

struct tmpl_mapping {
    struct reader own; /* streaming: the reader of this mapping */
    struct reader *r;
    struct tmpl_type t;
    const struct ynode *at;
    const struct tmpl_def *defs[MAX_BRANCHES];
    size_t n_defs;
    const struct tmpl_def *loose; /* the first mapping definition with loose keys */
    bool all_loose;  /* no well-known properties at all */
    bool expr_key;   /* an expression key makes the required check moot */
    bool refused;    /* no mapping is allowed here (reported) */
    const char *typo_for; /* a key reported as a typo of this property (no "missing" then) */
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
    m->typo_for = NULL;
    m->keys.slots = NULL;
    m->keys.n = m->keys.cap = 0;
    m->keys.copies = false;
    m->n_defs = defs_of_kind(t.def, D_MAPPING, m->defs, MAX_BRANCHES);
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

/* matchPropertyAndFilter: the property `key` names in any remaining definition; those
 * without it are dropped. */
static const struct tmpl_prop *match_property(struct tmpl_mapping *m, const char *key, size_t len)
{
    const struct tmpl_prop *found = NULL;
    size_t kept = 0;

    for (size_t i = 0; i < m->n_defs; i++) {
        const struct tmpl_prop *p = find_prop(m->defs[i], key, len);

        if (p)
            found = p;
    }
    if (!found)
        return NULL;
    for (size_t i = 0; i < m->n_defs; i++) {
        if (find_prop(m->defs[i], key, len))
            m->defs[kept++] = m->defs[i];
    }
    m->n_defs = kept;
    return found;
}

/* The well-known properties of the remaining definitions, for a suggestion. */
static const char *suggest_key(const struct tmpl_mapping *m, const char *key, size_t len)
{
    const char *names[256];
    size_t n = 0;

    for (size_t i = 0; i < m->n_defs; i++) {
        for (size_t p = 0; p < m->defs[i]->n_props && n + 1 < sizeof(names) / sizeof(names[0]); p++) {
            if (!background_key(m->defs[i]->props[p].name, m->defs[i]->props[p].len, false))
                names[n++] = m->defs[i]->props[p].name;
        }
    }
    names[n] = NULL;
    return suggest_closest(key, len, names, suggest_limit(len));
}

/* One pair; `value` NULL reads no value (streaming), `*vt` gets its type. False when
 * the value is not to be read (the key was refused). */
static bool mapping_pair(struct tmpl_mapping *m, const struct ynode *key, const struct ynode *value,
                         struct tmpl_type *vt)
{
    struct reader *r = m->r;
    struct token tk;
    const struct tmpl_prop *p;
    const struct keyslot *seen = NULL;
    bool oom = false, ok = true;
    size_t old;
    char phrase[SUGGEST_PHRASE_MAX];

    if (m->refused)
        return false;
    tk = key_token(r, key, m->t);
    if (tk.failed) {
        /* an expression in the key was reported: its value would only add echoes */
        token_clear(&tk);
        return false;
    }
    if (tk.kind == TK_EXPRESSION || tk.kind == TK_INSERT) {
        m->expr_key = true;
        if (!m->t.contexts) {
            report(r, TMPL_CONTEXT, key, SIZE_MAX, "an expression is not allowed in a key here");
            token_clear(&tk);
            return false;
        }
        *vt = m->all_loose ? child_type(m->t, m->loose->loose_value) : child_type(m->t, find_def(r->s, "any"));
        old = path_push(r, tk.text, tk.len);
        if (value)
            read_value(r, value, *vt);
        path_pop(r, old);
        token_clear(&tk);
        return true;
    }
    if (tk.len && !keyset_add(&m->keys, tk.text, tk.len, ynode_pos(key).line, &seen, &oom) && !oom) {
        const char *was = seen->text;

        /* The same text twice is the YAML reader's error (duplicate-key), or in a
         * rendering the key index's (key-collision): only the case is this check's. */
        if (seen->len != tk.len || memcmp(was, tk.text, tk.len))
            report(r, TMPL_DUPLICATE, key, SIZE_MAX, "'%.*s' is already defined (as '%.*s' at line %u; GitHub "
                   "compares keys without regard to case)", (int)tk.len, tk.text, (int)seen->len, was, seen->line);
        token_clear(&tk);
        return false;
    }
    if (oom) {
        report(r, TMPL_EXPRESSION, key, SIZE_MAX, "out of memory");
        token_clear(&tk);
        return false;
    }
    old = path_push(r, tk.text, tk.len);
    if (!m->all_loose && (p = match_property(m, tk.text, tk.len)) != NULL) {
        if (background_key(tk.text, tk.len, false)) {
            path_pop(r, old);
            report(r, TMPL_KEY, key, SIZE_MAX, "key '%.*s' is not available: GitHub's parser accepts it only with "
                   "background steps enabled", (int)tk.len, tk.text);
            ok = false;
        } else {
            *vt = child_type(m->t, p->type);
        }
    } else if (m->loose) {
        struct token ks = tk;
        struct tmpl_type kt = child_type(m->t, m->loose->loose_key);

        ks.kind = TK_STRING;
        validate_scalar(r, key, &ks, kt);
        *vt = child_type(m->t, m->loose->loose_value);
    } else {
        const char *near = suggest_key(m, tk.text, tk.len);

        path_pop(r, old);
        if (near && !m->typo_for)
            m->typo_for = near;
        report(r, TMPL_KEY, key, SIZE_MAX, "unexpected key '%.*s'%s", (int)tk.len, tk.text,
               near ? suggest_phrase(near, phrase) : "");
        ok = false;
    }
    if (ok && value)
        read_value(r, value, *vt);
    if (ok)
        path_pop(r, old);
    token_clear(&tk);
    return ok;
}

static size_t mapping_end(struct tmpl_mapping *m)
{
    struct reader *r = m->r;

    if (!m->refused && m->n_defs > 1) {
        /* Which of several mappings: name the keys that would tell (each one's required
         * keys, else the keys only one of them has), as GitHub does. */
        struct words w = {.len = 0};
        bool all_required = true;

        for (size_t i = 0; i < m->n_defs; i++) {
            bool has = false;

            for (size_t p = 0; p < m->defs[i]->n_props; p++) {
                const struct tmpl_prop *pr = &m->defs[i]->props[p];

                if (pr->required && !background_key(pr->name, pr->len, true)) {
                    words_add(&w, "%s", pr->name);
                    has = true;
                } else if (pr->required) {
                    has = true;
                }
            }
            all_required = all_required && has;
        }
        if (!all_required) {
            memset(&w, 0, sizeof(w));
            for (size_t i = 0; i < m->n_defs; i++) {
                for (size_t p = 0; p < m->defs[i]->n_props; p++) {
                    const struct tmpl_prop *pr = &m->defs[i]->props[p];
                    size_t in = 0;

                    for (size_t j = 0; j < m->n_defs; j++)
                        in += find_prop(m->defs[j], pr->name, pr->len) != NULL;
                    if (in == 1 && !background_key(pr->name, pr->len, true))
                        words_add(&w, "%s", pr->name);
                }
            }
        }
        if (!m->typo_for)
            report(r, TMPL_REQUIRED, m->at, SIZE_MAX, "not enough keys to tell which kind of '%s' this is: "
                   "add one of %s", m->t.def->name, w.buf);
    } else if (!m->refused && !m->all_loose && !m->expr_key) {
        for (size_t p = 0; p < m->defs[0]->n_props; p++) {
            const struct tmpl_prop *pr = &m->defs[0]->props[p];

            if (!pr->required || keyset_has(&m->keys, pr->name, pr->len) ||
                (m->typo_for && !strcmp(m->typo_for, pr->name)))
                continue;
            report(r, TMPL_REQUIRED, m->at, SIZE_MAX, "missing required key '%s'", pr->name);
        }
    }
    keyset_free(&m->keys);
    return r->errors - m->errors_at_begin;
}

static void read_value(struct reader *r, const struct ynode *n, struct tmpl_type t)
{
    char exp[700];

    if (ynode_is_scalar(n)) {
        struct token tk = parse_scalar(r, n, t);

        if (!tk.failed)
            validate_scalar(r, n, &tk, t);
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
        struct tmpl_mapping m;
        struct tmpl_type vt;

        mapping_begin(&m, r, t, n);
        for (size_t i = 0; i < ynode_len(n); i++)
            mapping_pair(&m, ynode_key(n, i), ynode_value(n, i), &vt);
        mapping_end(&m);
    }
}

static void reader_init(struct reader *r, const struct tmplschema *s, const char *path, tmpl_error_fn fn,
                        void *user)
{
    r->errors = 0;
    r->s = s;
    r->fn = fn;
    r->user = user;
    snprintf(r->path, sizeof(r->path), "%s", path);
    r->path_len = strlen(r->path);
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
    struct tmpl_mapping *m = malloc(sizeof(*m));
    struct reader r;

    if (!m)
        return NULL;
    reader_init(&r, s, path, fn, user);
    mapping_begin(m, &r, t, at);
    m->own = r;
    m->r = &m->own;
    m->keys.copies = true; /* its pairs' trees go before it does */
    return m;
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

void tmpl_mapping_drop(struct tmpl_mapping *m)
{
    if (m)
        keyset_free(&m->keys);
    free(m);
}
