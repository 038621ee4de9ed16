/* schema_ref: a schema's documents and what its $refs name. Every subschema's base URI
 * is recorded and every $id registered (as a document URI or a plain-name anchor) before
 * compiling, so that a $ref resolves against the base of the subschema it is written in,
 * to a JSON pointer into a document or to an anchor; the bundled draft-07 metaschema is
 * loaded when a $ref first names it. After compiling, the subschemas applied in place are
 * searched for a cycle, which validation could never leave. */
#include "schema_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/bundled.h"

static int add_anchor(struct schema *s, char *uri, struct ynode *node)
{
    if (s->n_anchors == s->cap_anchors) {
        struct anchor *a = array_grow(s->anchors, &s->cap_anchors, s->n_anchors + 1, 16, sizeof(*a));

        if (!a) {
            free(uri);
            return -1;
        }
        s->anchors = a;
    }
    s->anchors[s->n_anchors].uri = uri;
    s->anchors[s->n_anchors].node = node;
    s->n_anchors++;
    return 0;
}

static struct ynode *find_anchor(const struct schema *s, const char *uri)
{
    for (size_t i = s->n_anchors; i-- > 0;) {
        if (strcmp(s->anchors[i].uri, uri) == 0)
            return s->anchors[i].node;
    }
    return NULL;
}

/* The keywords prewalk reads, in the order it visits them: those whose values are
 * schemas, maps of schemas, lists of schemas, then `items` (a schema or a list), `$id`
 * and `$ref`. */
enum prewalk_keyword {
    PK_ADDITIONAL_ITEMS, PK_ADDITIONAL_PROPERTIES, PK_CONTAINS, PK_PROPERTY_NAMES, PK_NOT, PK_IF, PK_THEN,
    PK_ELSE, PK_PROPERTIES, PK_PATTERN_PROPERTIES, PK_DEFINITIONS, PK_DEPENDENCIES, PK_ALL_OF, PK_ANY_OF,
    PK_ONE_OF, PK_ITEMS, PK_ID, PK_REF, PK_COUNT
};
#define PK_FIRST_MAP PK_PROPERTIES
#define PK_FIRST_LIST PK_ALL_OF
static const struct schema_keyword prewalk_keywords[PK_COUNT] = {
    SCHEMA_KEYWORD("additionalItems"), SCHEMA_KEYWORD("additionalProperties"), SCHEMA_KEYWORD("contains"),
    SCHEMA_KEYWORD("propertyNames"), SCHEMA_KEYWORD("not"), SCHEMA_KEYWORD("if"), SCHEMA_KEYWORD("then"),
    SCHEMA_KEYWORD("else"), SCHEMA_KEYWORD("properties"), SCHEMA_KEYWORD("patternProperties"),
    SCHEMA_KEYWORD("definitions"), SCHEMA_KEYWORD("dependencies"), SCHEMA_KEYWORD("allOf"),
    SCHEMA_KEYWORD("anyOf"), SCHEMA_KEYWORD("oneOf"), SCHEMA_KEYWORD("items"), SCHEMA_KEYWORD("$id"),
    SCHEMA_KEYWORD("$ref"),
};

/* Keeps `text`, a base URI an $id made, for the schema's lifetime; NULL when out of
 * memory (`text` freed). */
static char *keep_base(struct schema *s, char *text)
{
    char **grown = text && !(s->n_base_texts & (s->n_base_texts + 1)) /* doubles at 2^k - 1 */
                       ? realloc(s->base_texts, (2 * s->n_base_texts + 1) * sizeof(*grown))
                       : s->base_texts;

    if (!text || !grown) {
        free(text);
        return NULL;
    }
    s->base_texts = grown;
    return s->base_texts[s->n_base_texts++] = text;
}

static int prewalk(struct schema *s, struct ynode *n, const char *base);

/* The base URI of `n`, which has an $id (kept in *own, NULL: `base` stays): a document
 * URI is registered as an anchor, and becomes the base; "#name", a plain-name anchor, is
 * registered as such, and the base stays the parent's. -1 when out of memory. */
static int register_id(struct schema *s, struct ynode *n, struct ynode *id, const char *base, const char **own)
{
    char *idtext = schema_text_of(id), *uri, *frag;

    uri = idtext ? schema_uri_resolve(base, idtext) : NULL;
    free(idtext);
    *own = NULL;
    if (!uri)
        return -1;
    frag = strchr(uri, '#');
    if (frag && frag[1] && frag[1] != '/')
        return add_anchor(s, uri, n); /* the base stays */
    *own = keep_base(s, schema_uri_strip_fragment(uri));
    free(uri);
    if (!*own)
        return -1;
    return add_anchor(s, strdup(*own), n);
}

/* prewalk over the subschemas of `n` (whose keywords prewalk reads are `v`, its base
 * `base`). */
static int prewalk_children(struct schema *s, struct ynode *const *v, const char *base)
{
    struct ynode *items = v[PK_ITEMS];
    int rc = 0;

    for (size_t k = 0; k < PK_FIRST_MAP && rc == 0; k++)
        rc = prewalk(s, v[k], base);
    for (size_t k = PK_FIRST_MAP; k < PK_FIRST_LIST && rc == 0; k++) {
        for (size_t i = 0; ynode_is_map(v[k]) && i < ynode_len(v[k]) && rc == 0; i++)
            rc = prewalk(s, ynode_value(v[k], i), base);
    }
    for (size_t k = PK_FIRST_LIST; k < PK_ITEMS && rc == 0; k++) {
        for (size_t i = 0; ynode_is_seq(v[k]) && i < ynode_len(v[k]) && rc == 0; i++)
            rc = prewalk(s, ynode_item(v[k], i), base);
    }
    if (rc != 0)
        return rc;
    if (!ynode_is_seq(items))
        return prewalk(s, items, base);
    for (size_t i = 0; i < ynode_len(items) && rc == 0; i++)
        rc = prewalk(s, ynode_item(items, i), base);
    return rc;
}

/* Records the base URI of every subschema and registers $ids (a $ref's siblings,
 * $id included, are ignored in draft-07). A subschema without an $id shares its
 * parent's base text. */
static int prewalk(struct schema *s, struct ynode *n, const char *base)
{
    struct ynode *v[PK_COUNT];
    const char *own = NULL;

    if (!n || !ynode_is_map(n) || schema_ptrmap_get(&s->bases, n))
        return 0;
    schema_keywords_read(n, prewalk_keywords, PK_COUNT, v);
    if (v[PK_ID] && !v[PK_REF] && ynode_scalar(v[PK_ID], NULL) && register_id(s, n, v[PK_ID], base, &own) != 0)
        return -1;
    if (!own)
        own = base;
    if (schema_ptrmap_put(&s->bases, n, (void *)own) != 0)
        return -1;
    if (v[PK_REF])
        return 0;
    return prewalk_children(s, v, own);
}

int schema_add_doc(struct schema *s, struct ynode_doc *fyd, const char *uri)
{
    /* the list doubles when its length is a power of two */
    struct doc *d = s->n_docs & (s->n_docs - 1) ? s->docs
                    : realloc(s->docs, (s->n_docs ? 2 * s->n_docs : 1) * sizeof(*d));
    struct ynode *root = ynode_doc_root(fyd);
    struct ynode *id = ynode_get(root, "$id");
    char *base, *idtext = id ? schema_text_of(id) : NULL;

    if (!d) {
        free(idtext);
        return -1;
    }
    s->docs = d;
    base = idtext ? schema_uri_resolve(uri, idtext) : strdup(uri);
    free(idtext);
    if (!base)
        return -1;
    d = &s->docs[s->n_docs++];
    d->fyd = fyd;
    d->uri = schema_uri_strip_fragment(base);
    free(base);
    if (!d->uri || add_anchor(s, strdup(d->uri), root) != 0)
        return -1;
    if (uri[0] && strcmp(uri, d->uri) != 0 && add_anchor(s, schema_uri_strip_fragment(uri), root) != 0)
        return -1;
    return prewalk(s, root, d->uri);
}

/* The bundled metaschema, loaded on first reference. */
static struct ynode *load_metaschema(struct schema *s)
{
    struct ynode *root = bundled_schema("json-schema-draft-07");
    struct ynode_doc *fyd = root ? ynode_doc_wrap(root) : NULL;

    if (!fyd || schema_add_doc(s, fyd, METASCHEMA_URI) != 0) {
        if (fyd && (s->n_docs == 0 || s->docs[s->n_docs - 1].fyd != fyd))
            ynode_doc_destroy(fyd);
        return NULL;
    }
    return root;
}

/* Follows a JSON pointer (URI fragment form: ~0 ~1 and %XX escapes) from `n`. */
static struct ynode *follow_pointer(struct ynode *n, const char *ptr)
{
    char seg[1024];

    while (n && *ptr == '/') {
        size_t o = 0;

        ptr++;
        while (*ptr && *ptr != '/' && o + 1 < sizeof(seg)) {
            char c = *ptr++;

            if (c == '~' && (*ptr == '0' || *ptr == '1'))
                c = *ptr++ == '0' ? '~' : '/';
            else if (c == '%' && ptr[0] && ptr[1]) {
                char hex[3] = {ptr[0], ptr[1], 0};

                c = (char)strtol(hex, NULL, 16);
                ptr += 2;
            }
            seg[o++] = c;
        }
        seg[o] = '\0';
        if (ynode_is_map(n)) {
            long i = ynode_find(n, seg, o);

            n = i < 0 ? NULL : ynode_value(n, (size_t)i);
        } else if (ynode_is_seq(n)) {
            char *end;
            long idx = strtol(seg, &end, 10);

            n = (*end || idx < 0 || (size_t)idx >= ynode_len(n)) ? NULL : ynode_item(n, (size_t)idx);
        } else {
            n = NULL;
        }
    }
    return *ptr ? NULL : n;
}

struct ynode *schema_resolve_ref(struct schema *s, struct ynode *at, const char *ref)
{
    const char *base = schema_ptrmap_get(&s->bases, at);
    char *abs = schema_uri_resolve(base ? base : "", ref), *doc_uri, *frag;
    struct ynode *target = NULL;

    if (!abs)
        return NULL;
    frag = strchr(abs, '#');
    doc_uri = schema_uri_strip_fragment(abs);
    if (!doc_uri) {
        free(abs);
        return NULL;
    }
    if (frag && frag[1] && frag[1] != '/') {
        target = find_anchor(s, abs); /* a plain-name anchor */
    } else {
        struct ynode *doc = find_anchor(s, doc_uri);

        if (!doc && strcmp(doc_uri, METASCHEMA_URI) == 0)
            doc = load_metaschema(s);
        target = doc ? follow_pointer(doc, frag ? frag + 1 : "") : NULL;
        /* a pointer into a subschema: the subschema's base is known by prewalk,
         * other nodes get the document's */
        if (target && !schema_ptrmap_get(&s->bases, target) && ynode_is_map(target)) {
            const char *kept = keep_base(s, strdup(doc_uri));

            if (!kept || prewalk(s, target, kept) != 0)
                target = NULL;
        }
    }
    free(doc_uri);
    free(abs);
    return target;
}

/* The subschemas that `sn` applies to the instance itself rather than to a part of it,
 * as one index space: in_place(sn, k) for k < in_place_count(sn) (NULL: none there).
 * A cycle through them never reaches the instance: validation could not end. */
static size_t in_place_count(const struct schema_node *sn)
{
    return 5 + sn->n_all_of + sn->n_any_of + sn->n_one_of + sn->n_deps;
}

static const struct schema_node *in_place(const struct schema_node *sn, size_t k)
{
    const struct schema_node *fixed[5] = {sn->ref, sn->not_, sn->if_, sn->then_, sn->else_};

    if (k < 5)
        return fixed[k];
    k -= 5;
    if (k < sn->n_all_of)
        return sn->all_of[k];
    k -= sn->n_all_of;
    if (k < sn->n_any_of)
        return sn->any_of[k];
    k -= sn->n_any_of;
    if (k < sn->n_one_of)
        return sn->one_of[k];
    return sn->deps[k - sn->n_one_of].schema;
}

/* Writes the JSON pointer of `target` under `n` (o bytes of buf used so far); false
 * when `target` is not there. Only for messages: a depth-first search. */
static bool pointer_to(const struct ynode *n, const struct ynode *target, char *buf, size_t cap,
                       size_t o)
{
    if (n == target) {
        buf[o < cap ? o : cap - 1] = '\0';
        return true;
    }
    for (size_t i = 0; i < ynode_len(n); i++) {
        int w = ynode_is_map(n) ? snprintf(buf + o, cap - o, "/%s", ynode_scalar(ynode_key(n, i), NULL))
                                : snprintf(buf + o, cap - o, "/%zu", i);
        size_t next = o + (size_t)w < cap ? o + (size_t)w : cap - 1;

        if (pointer_to(ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i), target, buf, cap, next))
            return true;
    }
    return false;
}

static void report_cycle(struct schema *s, const struct schema_node *const *chain, size_t n,
                         struct ynode *at)
{
    char text[400];
    size_t o = 0;

    for (size_t i = 0; i < n && o < sizeof(text) - 8; i++) {
        char path[200] = "";

        for (size_t d = 0; d < s->n_docs && !pointer_to(ynode_doc_root(s->docs[d].fyd), chain[i]->src,
                                                          path, sizeof(path), 0); d++)
            ;
        o += (size_t)snprintf(text + o, sizeof(text) - o, "%s#%s", i ? " -> " : "", path);
    }
    if (o >= sizeof(text) - 8)
        strcpy(text + sizeof(text) - 8, "...");
    schema_compile_error(s, at, "$ref cycle that never looks into the instance (%s)", text);
}

/* One frame of the depth-first search: a node and the next of its in-place edges. */
struct frame {
    const struct schema_node *sn;
    size_t k;
};

/* The edge from the top of `stack` to `child`, which is on the stack, closes a cycle:
 * reported with its nodes in order, at the $ref (edge 0) or at the child. */
static void report_back_edge(struct schema *s, const struct frame *stack, size_t depth,
                             const struct schema_node *child, size_t edge, const struct schema_node **chain)
{
    const struct schema_node *from_sn = stack[depth - 1].sn;
    size_t from = depth, n = 0;

    while (from > 0 && stack[from - 1].sn != child)
        from--;
    for (size_t i = from - 1; i < depth; i++)
        chain[n++] = stack[i].sn;
    chain[n++] = child;
    report_cycle(s, chain, n, edge == 0 ? ynode_get(from_sn->src, "$ref") : child->src);
}

/* Depth-first over the in-place edges; the first cycle found is reported. */
void schema_check_ref_cycles(struct schema *s)
{
    struct frame *stack = malloc((s->n_all + 1) * sizeof(*stack));
    const struct schema_node **chain = malloc((s->n_all + 1) * sizeof(*chain));
    unsigned char *color = calloc(s->n_all + 1, 1); /* 0 new, 1 on the stack, 2 done */

    if (!stack || !chain || !color) {
        s->failed = true;
        goto done;
    }
    for (size_t r = 0; r < s->n_all && !s->failed; r++) {
        size_t depth = 0;

        if (color[r])
            continue;
        stack[depth++] = (struct frame){s->all[r], 0};
        color[r] = 1;
        while (depth > 0 && !s->failed) {
            struct frame *top = &stack[depth - 1];
            const struct schema_node *child;
            size_t edge = top->k;

            if (top->k == in_place_count(top->sn)) {
                color[top->sn->index] = 2;
                depth--;
                continue;
            }
            child = in_place(top->sn, top->k++);
            if (!child || color[child->index] == 2)
                continue;
            if (color[child->index] == 0) {
                color[child->index] = 1;
                stack[depth++] = (struct frame){child, 0};
                continue;
            }
            report_back_edge(s, stack, depth, child, edge, chain);
        }
    }
done:
    free(stack);
    free(chain);
    free(color);
}
