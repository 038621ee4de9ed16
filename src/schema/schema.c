/* schema: the JSON Schema draft-07 validator's entry (include/fanout/schema.h): a
 * schema document compiled (its $ids registered, its nodes compiled from the root, its
 * in-place cycles refused), loaded from a file or a text, freed; and the questions a
 * caller streaming an instance asks of a compiled node. schema_internal.h says which
 * file does what. */
#include "schema_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/source.h"
#include "fanout/stream.h"

static uint64_t ptr_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;

    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static void **ptrmap_slot(struct ptrmap *m, const void *key, bool *found)
{
    size_t i = ptr_hash(key) & (m->cap - 1);

    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    *found = m->keys[i] != NULL;
    m->keys[i] = key;
    return &m->vals[i];
}

int schema_ptrmap_put(struct ptrmap *m, const void *key, void *val)
{
    bool found;

    if ((m->n + 1) * 2 > m->cap) {
        struct ptrmap g = {0};

        g.cap = m->cap ? m->cap * 2 : 64;
        g.keys = calloc(g.cap, sizeof(*g.keys));
        g.vals = calloc(g.cap, sizeof(*g.vals));
        if (!g.keys || !g.vals) {
            free(g.keys);
            free(g.vals);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (m->keys[i])
                *ptrmap_slot(&g, m->keys[i], &found) = m->vals[i];
        }
        g.n = m->n;
        free(m->keys);
        free(m->vals);
        *m = g;
    }
    *ptrmap_slot(m, key, &found) = val;
    if (!found)
        m->n++;
    return 0;
}

void *schema_ptrmap_get(const struct ptrmap *m, const void *key)
{
    size_t i;

    if (!m->cap)
        return NULL;
    for (i = ptr_hash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key)
            return m->vals[i];
    }
    return NULL;
}

char *schema_text_of(struct ynode *n)
{
    size_t len;
    const char *t = ynode_scalar(n, &len);

    return t ? strndup(t, len) : NULL;
}

/* Reads a schema document (JSON or YAML) from `src` through the same reader and checks
 * as pipelines: its nodes carry their positions. Problems are reported to `d`. */
static struct ynode_doc *load_document(struct source *src, struct diag *d)
{
    struct stream *st = src ? stream_open(src, 0, d) : NULL;
    struct ynode_doc *fyd = NULL;
    int rc = st ? stream_document(st, &fyd) : -1;

    if (rc == 0)
        diag_report(d, DIAG_ERROR, DIAG_INPUT, source_name(src), 0, 0, RULE_SCHEMA,
                    "an empty document");
    stream_close(st);
    source_close(src);
    return fyd;
}

static void node_free(struct schema_node *sn)
{
    for (size_t i = 0; i < sn->n_props; i++)
        free(sn->props[i].name);
    free(sn->props);
    free(sn->by_length);
    for (size_t i = 0; i < sn->n_pprops; i++) {
        pcre2_match_data_free(sn->pprops[i].md);
        pcre2_code_free(sn->pprops[i].re);
    }
    free(sn->pprops);
    if (sn->required_names) {
        for (size_t i = 0; sn->required_names[i]; i++)
            free((char *)sn->required_names[i]);
        free(sn->required_names);
    }
    free(sn->item_list);
    free(sn->all_of);
    free(sn->any_of);
    free(sn->one_of);
    for (size_t i = 0; i < sn->n_deps; i++)
        free(sn->deps[i].name);
    free(sn->deps);
    pcre2_match_data_free(sn->pattern_md);
    free(sn->pattern_memo);
    free(sn->pattern_class);
    pcre2_code_free(sn->pattern);
    free(sn->pattern_src);
    free(sn);
}

void schema_free(struct schema *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_all; i++)
        node_free(s->all[i]);
    free(s->all);
    for (size_t i = 0; i < s->n_base_texts; i++)
        free(s->base_texts[i]);
    free(s->base_texts);
    free(s->bases.keys);
    free(s->bases.vals);
    free(s->compiled.keys);
    free(s->compiled.vals);
    for (size_t i = 0; i < s->n_anchors; i++)
        free(s->anchors[i].uri);
    free(s->anchors);
    for (size_t i = 0; i < s->n_docs; i++) {
        ynode_doc_destroy(s->docs[i].fyd);
        free(s->docs[i].uri);
    }
    free(s->docs);
    free(s->name);
    free(s);
}

/* schema_compile, or schema_compile_lazily when `lazy`. */
static struct schema *compile(struct ynode_doc *doc, const char *name, struct diag *d, bool lazy)
{
    struct schema *s = calloc(1, sizeof(*s));

    if (!s) {
        ynode_doc_destroy(doc);
        return NULL;
    }
    s->diag = d;
    s->lazy = lazy;
    s->name = strdup(name);
    if (!s->name || schema_add_doc(s, doc, "") != 0) {
        if (s->n_docs == 0)
            ynode_doc_destroy(doc);
        diag_report(d, DIAG_ERROR, DIAG_INPUT, name, 0, 0, RULE_SCHEMA, "out of memory");
        schema_free(s);
        return NULL;
    }
    schema_compile_node(s, ynode_doc_root(doc));
    if (!s->failed && !lazy)
        schema_check_ref_cycles(s);
    if (s->failed) {
        schema_free(s);
        return NULL;
    }
    if (lazy) /* its nodes are compiled during later runs, whose diags this one outlives */
        s->diag = NULL;
    return s;
}

struct schema *schema_compile(struct ynode_doc *doc, const char *name, struct diag *d)
{
    return compile(doc, name, d, false);
}

struct schema *schema_compile_lazily(struct ynode_doc *doc, const char *name, struct diag *d)
{
    return compile(doc, name, d, true);
}

struct schema *schema_load_text(const char *name, const char *text, size_t len, struct diag *d)
{
    struct ynode_doc *fyd = load_document(source_open_text(name, text, len, d), d);

    return fyd ? schema_compile(fyd, name, d) : NULL;
}

struct schema *schema_load_file(const char *path, struct diag *d)
{
    struct ynode_doc *fyd = load_document(source_open(path, d), d);

    return fyd ? schema_compile(fyd, path, d) : NULL;
}

const struct schema_node *schema_root(const struct schema *s)
{
    return schema_ptrmap_get(&s->compiled, ynode_doc_root(s->docs[0].fyd));
}

/* Only the keywords an object's walk member by member handles by itself (the counts
 * of members are checked at its end). */
static bool streamable_object(const struct schema_node *sn)
{
    return sn && !sn->is_bool && !sn->enum_values && !sn->const_value && !sn->n_all_of &&
           !sn->n_any_of && !sn->n_one_of && !sn->not_ && !sn->if_ && !sn->property_names &&
           !sn->n_deps && (sn->types & ~T_OBJECT) == 0;
}

/* Only the keywords a top-level streaming walk handles by itself. */
static bool simple_object(const struct schema_node *sn)
{
    return streamable_object(sn) && sn->min_props < 0 && sn->max_props < 0;
}

const struct schema_node *schema_property(const struct schema_node *sn, const char *key,
                                          size_t len, bool *allowed, bool *simple)
{
    const struct prop *p;

    sn = deref(sn);
    *allowed = true;
    *simple = simple_object(sn);
    if (!*simple)
        return NULL;
    if ((p = schema_find_prop(sn, key, len)) != NULL)
        return p->schema;
    if (sn->n_pprops) {
        *simple = false; /* the caller validates the whole value by itself then */
        return NULL;
    }
    if (sn->additional_props) {
        const struct schema_node *a = deref(sn->additional_props);

        if (a->is_bool && !a->bool_value)
            *allowed = false;
        return sn->additional_props;
    }
    return NULL;
}

const struct schema_node *schema_member(const struct schema_node *sn, const char *key, size_t len,
                                        bool *allowed, bool *streamable)
{
    const struct schema_node *found = NULL;
    const struct prop *p;

    sn = deref(sn);
    *allowed = true;
    *streamable = streamable_object(sn);
    if (!*streamable)
        return NULL;
    if ((p = schema_find_prop(sn, key, len)) != NULL)
        found = p->schema;
    for (size_t i = 0; i < sn->n_pprops; i++) {
        struct pattern_prop *pp = &sn->pprops[i];
        int m = pp->re ? schema_match(pp->re, pp->md, &pp->jit_tried, key, len) : 0;

        if (m < 0) {
            *streamable = false; /* undecided: the whole object's check says so */
            return NULL;
        }
        if (m) {
            if (found) {
                *streamable = false; /* two schemas apply: validate the whole object */
                return NULL;
            }
            found = sn->pprops[i].schema;
        }
    }
    if (found || !sn->additional_props)
        return found;
    if (deref(sn->additional_props)->is_bool && !deref(sn->additional_props)->bool_value)
        *allowed = false;
    return sn->additional_props;
}

void schema_property_counts(const struct schema_node *sn, long long *min, long long *max)
{
    sn = deref(sn);
    *min = sn ? sn->min_props : -1;
    *max = sn ? sn->max_props : -1;
}

const struct schema_node *schema_items(const struct schema_node *sn)
{
    sn = deref(sn);
    if (!sn || sn->is_bool || sn->items_is_list || !sn->items || sn->contains || sn->unique_items ||
        sn->min_items >= 0 || sn->max_items >= 0 || sn->n_all_of || sn->n_any_of || sn->n_one_of ||
        sn->not_ || sn->if_ || sn->enum_values || sn->const_value || (sn->types & ~T_ARRAY))
        return NULL;
    return sn->items;
}

const char *const *schema_required(const struct schema_node *sn)
{
    sn = deref(sn);
    return sn ? (const char *const *)sn->required_names : NULL;
}
