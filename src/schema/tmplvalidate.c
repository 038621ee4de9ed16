#include "fanout/tmplvalidate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct tmplvalidate {
    const struct tmplschema *schema;
    struct tmpl_type root;
    const struct stream_shape *shape;
    struct diag *diag;
    const char *const *files;
    enum diag_class cls;
    unsigned errors;
    /* the current document: its top-level mapping and its items' mapping, read a pair
     * at a time; nodes that stand for them in messages (no tree holds them whole) */
    struct tmpl_mapping *top, *items;
    struct ynode top_at, items_at;
    char items_path[256];
    /* tmplvalidate_prove: the input's check records (and owns) them, the rendering's
     * uses them */
    struct tmpl_proofs *proofs;
    bool use_proofs;
};

/* Each bundled template schema and the definition a document is read as (GitHub's
 * parser reads a workflow as workflow-root-strict: workflow-constants.ts). */
static const struct {
    const char *schema, *root;
} roots[] = {
    {"github-workflow-v1", "workflow-root-strict"},
};

const char *tmplvalidate_root(const char *name)
{
    for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
        if (!strcmp(roots[i].schema, name))
            return roots[i].root;
    }
    return NULL;
}

static void report(void *user, const struct tmpl_error *e)
{
    static const enum rule_id rules[] = {
        [TMPL_KEY] = RULE_WORKFLOW_KEY,      [TMPL_REQUIRED] = RULE_WORKFLOW_REQUIRED,
        [TMPL_VALUE] = RULE_WORKFLOW_VALUE,  [TMPL_CONTEXT] = RULE_WORKFLOW_CONTEXT,
        [TMPL_EXPRESSION] = RULE_EXPRESSION, [TMPL_DUPLICATE] = RULE_DUPLICATE_KEY,
        [TMPL_NUMBER_TEXT] = RULE_NUMBER_TEXT,
    };
    struct tmplvalidate *v = user;
    struct ypos p = e->offset == SIZE_MAX ? ynode_pos(e->at) : ynode_text_pos(e->at, e->offset);
    enum diag_class cls = e->problem == TMPL_EXPRESSION || e->problem == TMPL_DUPLICATE ? DIAG_INPUT : v->cls;

    if (e->problem == TMPL_NUMBER_TEXT) {
        diag_at(v->diag, DIAG_WARNING, DIAG_FINDING, v->files, p, rules[e->problem], "%s", e->message);
        return;
    }
    diag_at(v->diag, DIAG_ERROR, cls, v->files, p, rules[e->problem], "%s", e->message);
    v->errors++;
}

struct tmplvalidate *tmplvalidate_create(const struct tmplschema *s, const char *root,
                                         const struct stream_shape *shape, struct diag *d,
                                         const char *const *files, enum diag_class cls)
{
    struct tmplvalidate *v = calloc(1, sizeof(*v));

    if (!v)
        return NULL;
    v->schema = s;
    v->shape = shape ? shape : stream_steps_shape;
    v->diag = d;
    v->files = files;
    v->cls = cls;
    if (!tmplschema_type(s, root, &v->root)) {
        free(v);
        return NULL;
    }
    return v;
}

void tmplvalidate_destroy(struct tmplvalidate *v)
{
    if (!v)
        return;
    /* a document the stream did not finish (its error is reported): nothing to add */
    tmpl_mapping_drop(v->items);
    tmpl_mapping_drop(v->top);
    if (!v->use_proofs)
        tmpl_proofs_free(v->proofs);
    free(v);
}

int tmplvalidate_prove(struct tmplvalidate *input, struct tmplvalidate *rendering)
{
    if (!(input->proofs = tmpl_proofs_create()))
        return -1;
    rendering->proofs = input->proofs;
    rendering->use_proofs = true;
    return 0;
}

/* A mapping begun, reading with the proofs. */
static struct tmpl_mapping *begin(struct tmplvalidate *v, struct tmpl_type t, const struct ynode *at,
                                  const char *path)
{
    struct tmpl_mapping *m = tmpl_mapping_begin(v->schema, t, at, path, report, v);

    if (m && v->proofs)
        tmpl_mapping_prove(m, v->proofs, v->use_proofs);
    return m;
}

unsigned tmplvalidate_errors(const struct tmplvalidate *v)
{
    return v->errors;
}

static void out_of_memory(struct tmplvalidate *v, struct ypos p)
{
    diag_at(v->diag, DIAG_ERROR, DIAG_INPUT, v->files, p, RULE_INTERNAL, "out of memory");
    v->errors++;
}

/* A node standing for a mapping no tree holds whole, at `pos`. */
static void stand_in(struct ynode *n, struct ypos pos)
{
    memset(n, 0, sizeof(*n));
    n->kind = YNODE_MAP;
    n->pos = pos;
}

static void items_start(struct tmplvalidate *v, const struct stream_item *item)
{
    struct ynode key;
    struct tmpl_type t;
    const char *name = item->items_key ? item->items_key : v->shape->key;

    stand_in(&v->items_at, item->pos);
    if (item->bare) {
        /* a document that is a bare list (a Buildkite shape): a sequence at the root */
        tmpl_mapping_drop(v->top);
        v->top = NULL;
        diag_at(v->diag, DIAG_ERROR, v->cls, v->files, item->pos,
                RULE_WORKFLOW_VALUE, "(root): expected a mapping, got a sequence");
        v->errors++;
        return;
    }
    stand_in(&key, item->pos);
    key.kind = YNODE_SCALAR;
    key.u.scalar.text = name;
    key.u.scalar.len = strlen(name);
    if (!v->top || !tmpl_mapping_pair(v->top, &key, NULL, &t))
        return;
    v->items_path[0] = '/';
    snprintf(v->items_path + 1, sizeof(v->items_path) - 1, "%s", name);
    v->items = begin(v, t, &v->items_at, v->items_path);
    if (!v->items)
        out_of_memory(v, item->pos);
}

void tmplvalidate_item(struct tmplvalidate *v, const struct stream_item *item)
{
    struct ynode *pair = item->doc ? ynode_doc_root(item->doc) : NULL;

    /* the proofs are of one item, whose rendering is checked before the next is read */
    if (v->proofs && !v->use_proofs)
        tmpl_proofs_clear(v->proofs);
    switch (item->kind) {
    case STREAM_DOC_START:
        tmpl_mapping_end(v->top);
        stand_in(&v->top_at, item->pos);
        v->top = begin(v, v->root, &v->top_at, "");
        if (!v->top)
            out_of_memory(v, item->pos);
        break;
    case STREAM_PAIR:
        if (v->top && ynode_len(pair) == 1)
            tmpl_mapping_pair(v->top, ynode_key(pair, 0), ynode_value(pair, 0), NULL);
        break;
    case STREAM_STEPS_START:
        items_start(v, item);
        break;
    case STREAM_STEP:
        /* a job as read, or the jobs a rendering made of it (a matrix job's) */
        for (size_t i = 0; v->items && ynode_is_map(pair) && i < ynode_len(pair); i++)
            tmpl_mapping_pair(v->items, ynode_key(pair, i), ynode_value(pair, i), NULL);
        break;
    case STREAM_STEPS_END:
        tmpl_mapping_end(v->items);
        v->items = NULL;
        break;
    case STREAM_DOC_END:
        tmpl_mapping_end(v->items);
        v->items = NULL;
        tmpl_mapping_end(v->top);
        v->top = NULL;
        break;
    }
}
