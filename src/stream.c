#include "fanout/stream.h"

#include "fanout/strhash.h"
#include "fanout/strset.h"

#include <stdlib.h>
#include <string.h>

enum state {
    ST_STREAM,   /* between documents */
    ST_ROOT,     /* expecting the document's root node */
    ST_TOP_MAP,  /* inside the top-level mapping, expecting a key */
    ST_STEPS,    /* inside the steps sequence */
    ST_DOC_TAIL, /* root finished, expecting the document end */
    ST_DONE,
};

struct anchor {
    char *name;
    struct fy_node *node; /* lives in anchor_doc */
};

struct stream {
    struct source *src;
    unsigned file;
    struct diag *diag;
    struct fy_diag *fydiag;
    struct fy_parser *fyp;
    enum state state;
    bool bare;
    bool in_doc;              /* a DOC_START was reported for the current document */
    bool pending_steps_start; /* a bare list: STEPS_START follows DOC_START */
    struct strset *top_keys; /* of the current document, for the duplicate check */
    /* Anchors of the current document (copies, so they outlive each step). */
    struct fy_document *anchor_doc;
    struct anchor *anchors;
    size_t n_anchors, cap_anchors;
    size_t anchor_nodes;
    size_t alias_nodes; /* copied for aliases in the item being built */
};

/* Only a hash: a key's text may point into libfyaml's input buffer, which moves
 * as more input is read. A hash match is confirmed against the mapping itself. */
struct key_seen {
    uint64_t hash;
    size_t len;
};


/* A container being built. Merge (`<<`) sources are held back until the mapping ends,
 * because explicit keys win over merged ones wherever they appear. */
struct frame {
    struct fy_node *node;
    struct fy_node *key; /* mapping: key waiting for its value */
    bool key_is_merge;
    struct fy_node **merges;
    size_t n_merges;
    char *anchor;
    /* hashes of the keys so far, for the duplicate check (looking every new key up
     * in the mapping was a tenth of the run) */
    struct key_seen *keys;
    unsigned pairs, cap_keys; /* pairs: against STREAM_MAX_MAPPING_PAIRS */
};

static struct ypos event_pos(const struct stream *s, struct fy_event *fye)
{
    const struct fy_mark *m = fy_event_start_mark(fye);
    struct ypos p = {s->file, 0, 0};

    if (m) {
        p.line = (unsigned)m->line + 1;
        p.col = (unsigned)m->column + 1;
    }
    return p;
}

static void report(struct stream *s, struct ypos pos, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void report(struct stream *s, struct ypos pos, const char *rule, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    diag_vreport(s->diag, DIAG_ERROR, DIAG_INPUT, source_name(s->src), pos.line, pos.col, rule,
                 fmt, ap);
    va_end(ap);
}

static void report_parser_error(struct stream *s)
{
    void *it = NULL;
    struct fy_diag_error *err;

    if (source_failed(s->src))
        return; /* the reader already reported the bad byte that stopped the parser */
    while ((err = fy_diag_errors_iterate(s->fydiag, &it)) != NULL) {
        if (err->type != FYET_ERROR)
            continue;
        diag_report(s->diag, DIAG_ERROR, DIAG_INPUT, source_name(s->src), (unsigned)err->line,
                    (unsigned)err->column, "yaml", "%s", err->msg);
        return;
    }
    diag_report(s->diag, DIAG_ERROR, DIAG_INPUT, source_name(s->src), 0, 0, "yaml",
                "invalid YAML");
}

/* Next event, or NULL after reporting an error. */
static struct fy_event *next_event(struct stream *s)
{
    struct fy_event *fye = fy_parser_parse(s->fyp);
    const struct fy_mark *end = fye ? fy_event_end_mark(fye) : NULL;

    if (end)
        source_progress(s->src, (unsigned)end->line + 1, (unsigned)end->column + 1);
    if (source_failed(s->src)) {
        if (fye)
            fy_parser_event_free(s->fyp, fye);
        return NULL;
    }
    if (!fye)
        report_parser_error(s);
    return fye;
}

static char *anchor_name(struct fy_token *tok)
{
    size_t len;
    const char *t;

    if (!tok)
        return NULL;
    t = fy_token_get_text(tok, &len);
    return t ? strndup(t, len) : NULL;
}

static struct fy_token *event_anchor(struct fy_event *fye)
{
    switch (fye->type) {
    case FYET_SCALAR:
        return fye->scalar.anchor;
    case FYET_MAPPING_START:
        return fye->mapping_start.anchor;
    case FYET_SEQUENCE_START:
        return fye->sequence_start.anchor;
    default:
        return NULL;
    }
}

static void anchors_clear(struct stream *s)
{
    /* The copies are not attached to anchor_doc's root, and destroying a document
     * does not free detached nodes. */
    for (size_t i = 0; i < s->n_anchors; i++) {
        fy_node_free(s->anchors[i].node);
        free(s->anchors[i].name);
    }
    s->n_anchors = 0;
    s->anchor_nodes = 0;
    if (s->anchor_doc)
        fy_document_destroy(s->anchor_doc);
    s->anchor_doc = NULL;
}

static struct anchor *anchor_find(struct stream *s, const char *name, size_t len)
{
    /* Latest definition wins, so search backwards. */
    for (size_t i = s->n_anchors; i-- > 0;) {
        if (strlen(s->anchors[i].name) == len && memcmp(s->anchors[i].name, name, len) == 0)
            return &s->anchors[i];
    }
    return NULL;
}

/* Keeps a copy of an anchored node for aliases in later items. Takes `name`. */
static int anchor_define(struct stream *s, char *name, struct fy_node *node, struct ypos pos)
{
    struct fy_node *copy;
    size_t count = ynode_count(node);

    if (s->anchor_nodes + count > STREAM_ANCHOR_NODE_BUDGET) {
        report(s, pos, "alias-budget", "anchored content exceeds %u nodes in one document",
               STREAM_ANCHOR_NODE_BUDGET);
        free(name);
        return -1;
    }
    if (!s->anchor_doc && !(s->anchor_doc = ynode_document_new()))
        goto oom;
    copy = ynode_copy(s->anchor_doc, node);
    if (!copy)
        goto oom;
    if (s->n_anchors == s->cap_anchors) {
        size_t cap = s->cap_anchors ? s->cap_anchors * 2 : 16;
        struct anchor *a = realloc(s->anchors, cap * sizeof(*a));

        if (!a) {
            fy_node_free(copy);
            goto oom;
        }
        s->anchors = a;
        s->cap_anchors = cap;
    }
    s->anchors[s->n_anchors].name = name;
    s->anchors[s->n_anchors].node = copy;
    s->n_anchors++;
    s->anchor_nodes += count;
    return 0;
oom:
    free(name);
    report(s, pos, "internal", "%s", "out of memory");
    return -1;
}

static struct fy_node *resolve_alias(struct stream *s, struct fy_document *fyd, struct fy_event *fye)
{
    size_t len;
    const char *name = fy_token_get_text(fye->alias.anchor, &len);
    struct anchor *a = name ? anchor_find(s, name, len) : NULL;
    struct ypos pos = event_pos(s, fye);
    struct fy_node *copy;
    char buf[128];

    if (!a) {
        snprintf(buf, sizeof(buf), "%.*s", (int)(len > 100 ? 100 : len), name ? name : "");
        report(s, pos, "alias", "undefined alias '*%s'", buf);
        return NULL;
    }
    s->alias_nodes += ynode_count(a->node);
    if (s->alias_nodes > STREAM_ALIAS_NODE_BUDGET) {
        report(s, pos, "alias-budget",
               "aliases expand to more than %u nodes in one step (alias bomb?)",
               STREAM_ALIAS_NODE_BUDGET);
        return NULL;
    }
    copy = ynode_copy(fyd, a->node);
    if (!copy)
        report(s, pos, "internal", "%s", "out of memory");
    return copy;
}

/* Appends the pairs of mapping `src` whose keys `f`'s mapping does not have yet. */
static int merge_mapping(struct stream *s, struct frame *f, struct fy_node *src)
{
    struct fy_document *fyd = fy_node_document(f->node);
    struct fy_node_pair *p;
    void *it = NULL;

    if (!fy_node_is_mapping(src)) {
        report(s, ynode_pos(src), "merge", "%s", "'<<' needs a mapping or a list of mappings");
        return -1;
    }
    while ((p = fy_node_mapping_iterate(src, &it)) != NULL) {
        struct fy_node *k, *v;

        {
            size_t len;
            const char *t = ynode_scalar(fy_node_pair_key(p), &len);

            if (t && ynode_pair_n(f->node, t, len))
                continue;
        }
        k = ynode_copy(fyd, fy_node_pair_key(p));
        v = ynode_copy(fyd, fy_node_pair_value(p));
        if (!k || !v || fy_node_mapping_append(f->node, k, v) != 0) {
            fy_node_free(k);
            fy_node_free(v);
            report(s, ynode_pos(src), "internal", "%s", "out of memory");
            return -1;
        }
    }
    return 0;
}

/* Applies the held-back `<<` sources: a mapping, or a list of mappings (earlier wins). */
static int apply_merges(struct stream *s, struct frame *f)
{
    for (size_t i = 0; i < f->n_merges; i++) {
        struct fy_node *src = f->merges[i];

        if (fy_node_is_sequence(src)) {
            struct fy_node *item;
            void *it = NULL;

            while ((item = fy_node_sequence_iterate(src, &it)) != NULL) {
                if (merge_mapping(s, f, item) != 0)
                    return -1;
            }
        } else if (merge_mapping(s, f, src) != 0) {
            return -1;
        }
    }
    return 0;
}

static void frame_release(struct frame *f)
{
    free(f->keys);
    f->keys = NULL;
    f->pairs = f->cap_keys = 0;
    for (size_t i = 0; i < f->n_merges; i++)
        fy_node_free(f->merges[i]);
    free(f->merges);
    fy_node_free(f->key);
    free(f->anchor);
    f->merges = NULL;
    f->n_merges = 0;
    f->key = NULL;
    f->anchor = NULL;
}

static bool is_merge_key(struct fy_node *k)
{
    return !ynode_is_string(k) && ynode_scalar_is(k, "<<");
}

/* Adds a finished `child` to the container in `f`. Consumes `child`. */
static int attach(struct stream *s, struct frame *f, struct fy_node *child)
{
    struct ypos pos = ynode_pos(child);

    if (fy_node_is_sequence(f->node)) {
        if (fy_node_sequence_append(f->node, child) == 0)
            return 0;
        fy_node_free(child);
        report(s, pos, "internal", "%s", "out of memory");
        return -1;
    }
    if (!f->key) {
        if (!fy_node_is_scalar(child)) {
            fy_node_free(child);
            report(s, pos, "yaml", "%s", "mapping keys must be scalars");
            return -1;
        }
        f->key = child;
        f->key_is_merge = is_merge_key(child);
        return 0;
    }
    if (f->key_is_merge) {
        struct fy_node **m = realloc(f->merges, (f->n_merges + 1) * sizeof(*m));

        if (!m) {
            fy_node_free(child);
            report(s, pos, "internal", "%s", "out of memory");
            return -1;
        }
        f->merges = m;
        f->merges[f->n_merges++] = child;
        fy_node_free(f->key);
        f->key = NULL;
        return 0;
    }
    {
        size_t len;
        const char *t = ynode_scalar(f->key, &len);

        /* Keys are compared by text, like libfyaml's own check (1 and "1" collide). */
        uint64_t hash = t ? strhash_fnv1a(t, len) : 0;
        int seen = 0;

        for (unsigned i = 0; t && i < f->pairs && !seen; i++)
            seen = f->keys[i].hash == hash && f->keys[i].len == len;
        if (seen && ynode_pair_n(f->node, t, len)) {
            char buf[128];
            struct ypos kpos = ynode_pos(f->key);

            snprintf(buf, sizeof(buf), "%.*s", (int)(len > 100 ? 100 : len), t);
            fy_node_free(child);
            fy_node_free(f->key);
            f->key = NULL;
            report(s, kpos, "duplicate-key", "duplicate key '%s'", buf);
            return -1;
        }
        if (f->pairs == STREAM_MAX_MAPPING_PAIRS) {
            struct ypos kpos = ynode_pos(f->key);

            fy_node_free(child);
            fy_node_free(f->key);
            f->key = NULL;
            report(s, kpos, "depth", "a mapping with more than %u keys", STREAM_MAX_MAPPING_PAIRS);
            return -1;
        }
        if (f->pairs == f->cap_keys) {
            unsigned cap = f->cap_keys ? f->cap_keys * 2 : 16;
            struct key_seen *keys = realloc(f->keys, cap * sizeof(*keys));

            if (!keys) {
                fy_node_free(child);
                report(s, pos, "internal", "%s", "out of memory");
                return -1;
            }
            f->keys = keys;
            f->cap_keys = cap;
        }
        f->keys[f->pairs].hash = hash;
        f->keys[f->pairs].len = len;
        f->pairs++;
    }
    if (fy_node_mapping_append(f->node, f->key, child) == 0) {
        f->key = NULL;
        return 0;
    }
    fy_node_free(child);
    fy_node_free(f->key);
    f->key = NULL;
    report(s, pos, "internal", "%s", "out of memory");
    return -1;
}

/* Builds the node that starts with `fye` (consumed) and everything below it. */
static struct fy_node *build(struct stream *s, struct fy_document *fyd, struct fy_event *fye)
{
    struct frame stack[STREAM_MAX_DEPTH];
    int depth = 0;
    struct fy_node *done = NULL;

    s->alias_nodes = 0;
    for (;;) {
        struct fy_node *node = NULL;
        struct ypos pos = event_pos(s, fye);
        char *anchor = NULL;
        bool finished = true;

        /* An empty value has no mark of its own: it is where its key is. */
        if (!pos.line && depth > 0 && stack[depth - 1].key)
            pos = ynode_pos(stack[depth - 1].key);
        switch (fye->type) {
        case FYET_SCALAR:
            node = fy_node_create_from_event(fyd, s->fyp, fye);
            if (node) {
                fy_node_remove_anchor(node);
                ynode_set_pos(node, pos);
            }
            anchor = anchor_name(event_anchor(fye));
            break;
        case FYET_ALIAS:
            node = resolve_alias(s, fyd, fye);
            if (!node) {
                fy_parser_event_free(s->fyp, fye);
                goto fail;
            }
            break;
        case FYET_MAPPING_START:
        case FYET_SEQUENCE_START:
            if (depth == STREAM_MAX_DEPTH) {
                fy_parser_event_free(s->fyp, fye);
                report(s, pos, "depth", "nesting deeper than %d levels", STREAM_MAX_DEPTH);
                goto fail;
            }
            node = fye->type == FYET_MAPPING_START ? fy_node_create_mapping(fyd)
                                                   : fy_node_create_sequence(fyd);
            if (node)
                ynode_set_pos(node, pos);
            memset(&stack[depth], 0, sizeof(stack[depth]));
            stack[depth].node = node;
            stack[depth].anchor = anchor_name(event_anchor(fye));
            depth++;
            finished = false;
            break;
        case FYET_MAPPING_END:
        case FYET_SEQUENCE_END:
            depth--;
            node = stack[depth].node;
            anchor = stack[depth].anchor;
            stack[depth].anchor = NULL;
            if (stack[depth].n_merges && apply_merges(s, &stack[depth]) != 0) {
                stack[depth].node = NULL;
                frame_release(&stack[depth]);
                fy_node_free(node);
                free(anchor);
                fy_parser_event_free(s->fyp, fye);
                goto fail;
            }
            stack[depth].node = NULL;
            frame_release(&stack[depth]);
            break;
        default:
            fy_parser_event_free(s->fyp, fye);
            report(s, pos, "yaml", "%s", "unexpected YAML event");
            goto fail;
        }
        fy_parser_event_free(s->fyp, fye);
        if (!node) {
            free(anchor);
            report(s, pos, "internal", "%s", "out of memory");
            goto fail;
        }
        if (finished) {
            if (anchor && anchor_define(s, anchor, node, pos) != 0) {
                fy_node_free(node);
                goto fail;
            }
            if (depth == 0) {
                done = node;
                break;
            }
            if (attach(s, &stack[depth - 1], node) != 0)
                goto fail;
        }
        fye = next_event(s);
        if (!fye)
            goto fail;
    }
    return done;
fail:
    while (depth > 0) {
        depth--;
        fy_node_free(stack[depth].node);
        stack[depth].node = NULL;
        frame_release(&stack[depth]);
    }
    return NULL;
}

/* Builds the step starting at `fye` into a fresh document whose root is a one-item
 * sequence: expansion later replaces that item with the steps it renders to. */
static struct fy_document *build_step_doc(struct stream *s, struct fy_event *fye)
{
    struct fy_document *fyd = ynode_document_new();
    struct fy_node *seq = fyd ? fy_node_create_sequence(fyd) : NULL;
    struct ypos pos = event_pos(s, fye);
    struct fy_node *step;

    if (!seq || fy_document_set_root(fyd, seq) != 0) {
        fy_parser_event_free(s->fyp, fye);
        if (fyd)
            fy_document_destroy(fyd);
        report(s, pos, "internal", "%s", "out of memory");
        return NULL;
    }
    ynode_set_pos(seq, pos);
    step = build(s, fyd, fye);
    if (!step || fy_node_sequence_append(seq, step) != 0) {
        if (step)
            fy_node_free(step);
        fy_document_destroy(fyd);
        return NULL;
    }
    return fyd;
}

struct stream *stream_open(struct source *src, unsigned file, struct diag *d)
{
    struct stream *s = calloc(1, sizeof(*s));
    struct fy_diag_cfg dcfg;
    struct fy_parse_cfg pcfg;

    if (!s)
        return NULL;
    s->src = src;
    s->file = file;
    s->diag = d;
    s->top_keys = strset_create();
    if (!s->top_keys)
        goto fail;
    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    dcfg.colorize = false;
    dcfg.output_fn = NULL;
    s->fydiag = fy_diag_create(&dcfg);
    if (!s->fydiag)
        goto fail;
    fy_diag_set_collect_errors(s->fydiag, true);
    memset(&pcfg, 0, sizeof(pcfg));
    pcfg.flags = FYPCF_QUIET;
    pcfg.diag = s->fydiag;
    s->fyp = fy_parser_create(&pcfg);
    if (!s->fyp || source_attach(src, s->fyp) != 0)
        goto fail;
    s->state = ST_STREAM;
    return s;
fail:
    diag_report(d, DIAG_ERROR, DIAG_INPUT, source_name(src), 0, 0, "internal",
                "cannot start the YAML parser");
    stream_close(s);
    return NULL;
}

void stream_close(struct stream *s)
{
    if (!s)
        return;
    anchors_clear(s);
    free(s->anchors);
    strset_destroy(s->top_keys);
    if (s->fyp)
        fy_parser_destroy(s->fyp);
    if (s->fydiag)
        fy_diag_destroy(s->fydiag);
    free(s);
}

static int fail(struct stream *s)
{
    s->state = ST_DONE;
    return -1;
}

/* An empty document (`---` alone, or only comments) has a null root. */
static bool is_empty_root(struct fy_event *fye)
{
    size_t len = 1;

    if (fye->type != FYET_SCALAR || fye->scalar.anchor || fye->scalar.tag)
        return false;
    if (fy_token_scalar_style(fye->scalar.value) != FYSS_PLAIN)
        return false;
    fy_token_get_text(fye->scalar.value, &len);
    return len == 0;
}

int stream_next(struct stream *s, struct stream_item *item)
{
    memset(item, 0, sizeof(*item));
    if (s->pending_steps_start) {
        s->pending_steps_start = false;
        item->kind = STREAM_STEPS_START;
        item->bare = true;
        return 1;
    }
    for (;;) {
        struct fy_event *fye;
        struct ypos pos;

        if (s->state == ST_DONE)
            return 0;
        fye = next_event(s);
        if (!fye)
            return fail(s);
        pos = event_pos(s, fye);
        item->pos = pos;

        switch (s->state) {
        case ST_STREAM:
            if (fye->type == FYET_STREAM_START) {
                fy_parser_event_free(s->fyp, fye);
                continue;
            }
            if (fye->type == FYET_STREAM_END) {
                fy_parser_event_free(s->fyp, fye);
                s->state = ST_DONE;
                return 0;
            }
            if (fye->type != FYET_DOCUMENT_START) {
                fy_parser_event_free(s->fyp, fye);
                report(s, pos, "yaml", "%s", "unexpected YAML event");
                return fail(s);
            }
            fy_parser_event_free(s->fyp, fye);
            s->state = ST_ROOT;
            strset_clear(s->top_keys);
            continue;
        case ST_ROOT:
            /* DOC_START is reported once the root is known: an empty document (a
             * trailing `---`, a file of comments) yields no items at all. */
            if (fye->type == FYET_MAPPING_START) {
                fy_parser_event_free(s->fyp, fye);
                s->state = ST_TOP_MAP;
                s->in_doc = true;
                item->kind = STREAM_DOC_START;
                return 1;
            }
            if (fye->type == FYET_SEQUENCE_START) {
                fy_parser_event_free(s->fyp, fye);
                s->state = ST_STEPS;
                s->bare = true;
                s->in_doc = true;
                s->pending_steps_start = true;
                item->kind = STREAM_DOC_START;
                return 1;
            }
            if (is_empty_root(fye)) {
                fy_parser_event_free(s->fyp, fye);
                s->state = ST_DOC_TAIL;
                s->in_doc = false;
                continue;
            }
            fy_parser_event_free(s->fyp, fye);
            report(s, pos, "pipeline-shape", "%s",
                   "a pipeline must be a mapping with 'steps' or a list of steps");
            return fail(s);
        case ST_TOP_MAP: {
            size_t len;
            const char *key;
            int seen;

            if (fye->type == FYET_MAPPING_END) {
                fy_parser_event_free(s->fyp, fye);
                s->state = ST_DOC_TAIL;
                continue;
            }
            if (fye->type != FYET_SCALAR) {
                fy_parser_event_free(s->fyp, fye);
                report(s, pos, "pipeline-shape", "%s", "top-level keys must be scalars");
                return fail(s);
            }
            key = fy_token_get_text(fye->scalar.value, &len);
            seen = strset_add(s->top_keys, key ? key : "", key ? len : 0);
            if (seen != 0) {
                char buf[128];

                snprintf(buf, sizeof(buf), "%.*s", (int)(len > 100 ? 100 : len), key ? key : "");
                fy_parser_event_free(s->fyp, fye);
                if (seen < 0)
                    report(s, pos, "internal", "%s", "out of memory");
                else
                    report(s, pos, "duplicate-key", "duplicate key '%s'", buf);
                return fail(s);
            }
            /* Quoted or not: JSON input writes "steps". */
            if (key && len == 5 && memcmp(key, "steps", 5) == 0) {
                struct fy_event *val;

                fy_parser_event_free(s->fyp, fye);
                val = next_event(s);
                if (!val)
                    return fail(s);
                if (val->type != FYET_SEQUENCE_START) {
                    pos = event_pos(s, val);
                    fy_parser_event_free(s->fyp, val);
                    report(s, pos, "pipeline-shape", "%s", "'steps' must be a list");
                    return fail(s);
                }
                item->pos = event_pos(s, val);
                fy_parser_event_free(s->fyp, val);
                s->state = ST_STEPS;
                s->bare = false;
                item->kind = STREAM_STEPS_START;
                return 1;
            }
            /* Any other top-level pair becomes a one-pair mapping document. */
            {
                struct fy_document *fyd = ynode_document_new();
                struct fy_node *map = fyd ? fy_node_create_mapping(fyd) : NULL;
                struct fy_node *k = fyd ? fy_node_create_from_event(fyd, s->fyp, fye) : NULL;
                struct fy_node *v;
                struct fy_event *val;

                fy_parser_event_free(s->fyp, fye);
                if (!map || !k) {
                    if (fyd)
                        fy_document_destroy(fyd);
                    report(s, pos, "internal", "%s", "out of memory");
                    return fail(s);
                }
                fy_node_remove_anchor(k);
                ynode_set_pos(k, pos);
                ynode_set_pos(map, pos);
                fy_document_set_root(fyd, map);
                val = next_event(s);
                v = val ? build(s, fyd, val) : NULL;
                if (v && !ynode_pos(v).line)
                    ynode_set_pos(v, pos); /* an empty value: where its key is */
                if (!v || fy_node_mapping_append(map, k, v) != 0) {
                    if (v)
                        fy_node_free(v);
                    fy_node_free(k);
                    fy_document_destroy(fyd);
                    return fail(s);
                }
                item->kind = STREAM_PAIR;
                item->doc = fyd;
                return 1;
            }
        }
        case ST_STEPS:
            if (fye->type == FYET_SEQUENCE_END) {
                fy_parser_event_free(s->fyp, fye);
                s->state = s->bare ? ST_DOC_TAIL : ST_TOP_MAP;
                item->kind = STREAM_STEPS_END;
                return 1;
            }
            item->doc = build_step_doc(s, fye);
            if (!item->doc)
                return fail(s);
            item->kind = STREAM_STEP;
            return 1;
        case ST_DOC_TAIL: {
            enum fy_event_type type = fye->type;

            fy_parser_event_free(s->fyp, fye);
            if (type != FYET_DOCUMENT_END) {
                report(s, pos, "yaml", "%s", "unexpected content after the pipeline");
                return fail(s);
            }
            anchors_clear(s);
            s->state = ST_STREAM;
            if (!s->in_doc)
                continue;
            s->in_doc = false;
            item->kind = STREAM_DOC_END;
            return 1;
        }
        case ST_DONE:
            fy_parser_event_free(s->fyp, fye);
            return 0;
        }
    }
}

int stream_document(struct stream *s, struct fy_document **out)
{
    *out = NULL;
    for (;;) {
        struct fy_event *fye;
        enum fy_event_type type;

        if (s->state == ST_DONE)
            return 0;
        if (!(fye = next_event(s)))
            return fail(s);
        type = fye->type;
        if (type == FYET_STREAM_START || type == FYET_DOCUMENT_START) {
            fy_parser_event_free(s->fyp, fye);
            continue;
        }
        if (type == FYET_STREAM_END) {
            fy_parser_event_free(s->fyp, fye);
            s->state = ST_DONE;
            return 0;
        }
        if (type == FYET_DOCUMENT_END) {
            fy_parser_event_free(s->fyp, fye);
            anchors_clear(s);
            return 1;
        }
        {
            struct fy_document *fyd = ynode_document_new();
            struct fy_node *root = fyd ? build(s, fyd, fye) : NULL;

            if (!fyd) {
                fy_parser_event_free(s->fyp, fye);
                report(s, event_pos(s, fye), "internal", "%s", "out of memory");
            }
            if (!root || fy_document_set_root(fyd, root) != 0) {
                if (root)
                    fy_node_free(root);
                if (fyd)
                    fy_document_destroy(fyd);
                return fail(s);
            }
            *out = fyd;
        }
    }
}
