#define _GNU_SOURCE /* memmem */
#include "fanout/stream.h"

#include <libfyaml.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/blocktext.h"
#include "fanout/quotedtext.h"
#include "fanout/strhash.h"
#include "fanout/strset.h"
#include "fanout/yscalar.h"

enum state {
    ST_STREAM,   /* between documents */
    ST_ROOT,     /* expecting the document's root node */
    ST_TOP_MAP,  /* inside the top-level mapping, expecting a key */
    ST_STEPS,    /* inside the items' container (the steps sequence, the jobs mapping) */
    ST_DOC_TAIL, /* root finished, expecting the document end */
    ST_DONE,
};

struct anchor {
    char *name;
    struct ynode *node; /* lives in anchor_doc */
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
    const struct stream_shape *shapes; /* where items may be kept, {NULL}-terminated */
    const struct stream_shape *shape;  /* the one this document uses */
    struct strset *top_keys;  /* of the current document, for the duplicate check */
    struct strset *merged_keys; /* the top-level keys a `<<` merge gave (merge_top) */
    /* The top-level pairs a `<<` merge gave, handed out one a call from `next_queued`. */
    struct stream_item *queued;
    size_t n_queued, next_queued;
    struct strset *item_keys; /* a mapping of items: its keys so far, for the same check */
    /* Anchors of the current document (copies, so they outlive each step). */
    struct ynode_doc *anchor_doc;
    struct anchor *anchors;
    size_t n_anchors, cap_anchors;
    size_t anchor_nodes;
    size_t alias_nodes; /* copied for aliases in the item being built */
    /* Each depth's array of key hashes (struct frame), lent to the mapping being built
     * there and given back at its end: one allocated for each mapping was a twentieth of
     * building a tree. */
    uint64_t *hashes[STREAM_MAX_DEPTH];
    unsigned cap_hashes[STREAM_MAX_DEPTH];
    char *text; /* a block or quoted scalar's text, worked out by blocktext or quotedtext */
    size_t cap_text;
    /* The last event parsed and its marks: libfyaml's calls for them, a position and a
     * scalar's text each asking again, were a twentieth of building a tree. */
    struct fy_event *last;
    const struct fy_mark *last_start, *last_end;
    /* The document's first quoted scalar line no deeper than its key, read while its shape
     * did not refuse it (line 0: none); `shallow_failed`: reported at stream_reshape, the
     * next read fails. */
    struct ypos flow_shallow;
    bool shallow_in_collection; /* flow_shallow is a flow collection's line (flow_scan) */
    bool shallow_failed;
    /* The flow collection in block context being built (flow_scan): `depth` its frame,
     * `least` its key's or '-''s column (1-based; 0: not checked), and the libfyaml
     * mark up to which its bytes were looked at. `root_least`: the column of the key a
     * node build begins is the value of (build_pair_doc), 0: none. */
    struct {
        bool on;
        int depth;
        unsigned least;
        int line, col;
        size_t pos;
    } flow;
    unsigned root_least;
    bool top_flow, items_flow; /* the top-level mapping, the items' one, is a flow one */
    /* The indicators of empty block scalars the input is read again with (reread_past):
     * sorted by offset, as they are found; the bytes those reads went through. */
    struct source_patch *patches;
    size_t n_patches;
    uint64_t reread_bytes;
    bool merged; /* a `<<` merge was applied in the item being built */
    bool key_replaced; /* a key given twice kept its last value in the item being built */
    /* The last block scalar libfyaml read a line into (block_text): `read`, blocktext_shallow
     * read it, `at` its answer; its indicator's offset in what the parser was handed
     * (source_line_start), line and column (0-based, as libfyaml counts them: characters). */
    struct {
        bool read;
        struct blocktext_shallow at;
        uint64_t offset;
        unsigned line, column;
    } empty;
};

/* A container being built. Merge (`<<`) sources are held back until the mapping ends,
 * because explicit keys win over merged ones wherever they appear. */
struct frame {
    struct ynode *node;
    bool flow; /* a flow collection: its scalars' lines are not held to its column */
    struct ynode *key; /* mapping: key waiting for its value */
    bool key_is_merge;
    struct ynode **merges;
    size_t n_merges;
    char *anchor;
    /* hashes of the keys so far, for the duplicate check (looking every new key up
     * in the mapping was a tenth of the run) */
    uint64_t *hashes;
    unsigned cap_hashes;
};

static const struct fy_mark *start_mark(const struct stream *s, struct fy_event *fye)
{
    return fye == s->last ? s->last_start : fy_event_start_mark(fye);
}

static const struct fy_mark *end_mark(const struct stream *s, struct fy_event *fye)
{
    return fye == s->last ? s->last_end : fy_event_end_mark(fye);
}

static struct ypos event_pos(const struct stream *s, struct fy_event *fye)
{
    const struct fy_mark *m = start_mark(s, fye);
    struct ypos p = {s->file, 0, 0};

    if (m) {
        p.line = (unsigned)m->line + 1;
        p.col = (unsigned)m->column + 1;
        source_position(s->src, &p.line, &p.col);
    }
    return p;
}

static void report(struct stream *s, struct ypos pos, enum rule_id rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void report(struct stream *s, struct ypos pos, enum rule_id rule, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    diag_vreport(s->diag, DIAG_ERROR, DIAG_INPUT, source_name(s->src), pos.line, pos.col, rule,
                 fmt, ap);
    va_end(ap);
}

static void report_oom(struct stream *s, struct ypos pos)
{
    report(s, pos, RULE_INTERNAL, "%s", "out of memory");
}

static void report_parser_error(struct stream *s)
{
    void *it = NULL;
    struct fy_diag_error *err;

    if (source_failed(s->src))
        return; /* the reader already reported the bad byte that stopped the parser */
    while ((err = fy_diag_errors_iterate(s->fydiag, &it)) != NULL) {
        unsigned line = (unsigned)err->line, col = (unsigned)err->column;

        if (err->type != FYET_ERROR)
            continue;
        source_position(s->src, &line, &col);
        diag_report(s->diag, DIAG_ERROR, DIAG_INPUT, source_name(s->src), line, col, RULE_YAML, "%s", err->msg);
        return;
    }
    diag_report(s->diag, DIAG_ERROR, DIAG_INPUT, source_name(s->src), 0, 0, RULE_YAML,
                "invalid YAML");
}

/* `fye` (or none) is the event the stream is at. */
static inline void at_event(struct stream *s, struct fy_event *fye)
{
    const struct fy_mark *end = fye ? fy_event_end_mark(fye) : NULL;

    s->last = fye;
    s->last_start = fye ? fy_event_start_mark(fye) : NULL;
    s->last_end = end;
    if (end)
        source_progress(s->src, (unsigned)end->line + 1, (unsigned)end->column + 1);
}

/* Next event, or NULL after reporting an error. */
static struct fy_event *next_event(struct stream *s)
{
    struct fy_event *fye = fy_parser_parse(s->fyp);

    at_event(s, fye);
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
    for (size_t i = 0; i < s->n_anchors; i++)
        free(s->anchors[i].name);
    s->n_anchors = 0;
    s->anchor_nodes = 0;
    ynode_doc_destroy(s->anchor_doc);
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
static int anchor_define(struct stream *s, char *name, struct ynode *node, struct ypos pos)
{
    struct ynode *copy;
    size_t count = ynode_tree_size(node);

    if (s->anchor_nodes + count > STREAM_ANCHOR_NODE_BUDGET) {
        report(s, pos, RULE_ALIAS_BUDGET, "anchored content exceeds %u nodes in one document",
               STREAM_ANCHOR_NODE_BUDGET);
        free(name);
        return -1;
    }
    if (!s->anchor_doc && !(s->anchor_doc = ynode_doc_create()))
        goto oom;
    if (!(copy = ynode_copy(s->anchor_doc, node)))
        goto oom;
    if (s->n_anchors == s->cap_anchors) {
        size_t cap = s->cap_anchors ? s->cap_anchors * 2 : 16;
        struct anchor *a = realloc(s->anchors, cap * sizeof(*a));

        if (!a)
            goto oom;
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
    report_oom(s, pos);
    return -1;
}

static struct ynode *resolve_alias(struct stream *s, struct ynode_doc *doc, struct fy_event *fye)
{
    size_t len;
    const char *name = fy_token_get_text(fye->alias.anchor, &len);
    struct anchor *a = name ? anchor_find(s, name, len) : NULL;
    struct ypos pos = event_pos(s, fye);
    struct ynode *copy;

    if (!a) {
        report(s, pos, RULE_ALIAS, "undefined alias '*%.*s'", (int)(len > 100 ? 100 : len),
               name ? name : "");
        return NULL;
    }
    s->alias_nodes += ynode_tree_size(a->node);
    if (s->alias_nodes > STREAM_ALIAS_NODE_BUDGET) {
        report(s, pos, RULE_ALIAS_BUDGET,
               "aliases expand to more than %u nodes in one step (alias bomb?)",
               STREAM_ALIAS_NODE_BUDGET);
        return NULL;
    }
    if (!(copy = ynode_copy(doc, a->node)))
        report_oom(s, pos);
    return copy;
}

/* Appends the pairs of mapping `src` whose keys `f`'s mapping does not have yet. */
static int merge_mapping(struct stream *s, struct ynode_doc *doc, struct frame *f,
                         const struct ynode *src)
{
    if (!ynode_is_map(src)) {
        report(s, ynode_pos(src), RULE_MERGE, "%s", "'<<' needs a mapping or a list of mappings");
        return -1;
    }
    for (size_t i = 0; i < ynode_len(src); i++) {
        const struct ynode *k = ynode_key(src, i);

        if (ynode_find(f->node, k->u.scalar.text, k->u.scalar.len) >= 0)
            continue;
        if (ynode_append_pair(doc, f->node, ynode_copy(doc, k), ynode_copy(doc, ynode_value(src, i))) != 0) {
            report_oom(s, ynode_pos(src));
            return -1;
        }
    }
    return 0;
}

/* Applies the held-back `<<` sources: a mapping, or a list of mappings (earlier wins). */
static int apply_merges(struct stream *s, struct ynode_doc *doc, struct frame *f)
{
    s->merged = true;
    for (size_t i = 0; i < f->n_merges; i++) {
        const struct ynode *src = f->merges[i];

        if (ynode_is_seq(src)) {
            for (size_t j = 0; j < ynode_len(src); j++) {
                if (merge_mapping(s, doc, f, ynode_item(src, j)) != 0)
                    return -1;
            }
        } else if (merge_mapping(s, doc, f, src) != 0) {
            return -1;
        }
    }
    return 0;
}

/* What the next node built in frame `f` is held to the column of: the key waiting for
 * its value, else the sequence (or mapping) itself. */
static const struct ynode *frame_parent(const struct frame *f)
{
    return f->key ? f->key : f->node;
}

static void frame_release(struct frame *f)
{
    free(f->hashes);
    free(f->merges);
    free(f->anchor);
    memset(f, 0, sizeof(*f));
}

static bool is_merge_key(const struct ynode *k)
{
    return !ynode_is_string(k) && ynode_scalar_is(k, "<<");
}

/* Adds a finished `child` to the container in `f`. */
static int attach(struct stream *s, struct ynode_doc *doc, struct frame *f, struct ynode *child)
{
    struct ypos pos = ynode_pos(child);
    struct ynode *map = f->node;
    size_t len, n;
    const char *t;
    uint64_t hash;

    if (ynode_is_seq(map)) {
        if (ynode_append(doc, map, child) == 0)
            return 0;
        report_oom(s, pos);
        return -1;
    }
    if (!f->key) {
        if (!ynode_is_scalar(child)) {
            report(s, pos, RULE_YAML, "%s", "mapping keys must be scalars");
            return -1;
        }
        f->key = child;
        f->key_is_merge = is_merge_key(child) && !s->shape->literal_merge_keys;
        return 0;
    }
    if (f->key_is_merge) {
        /* the list doubles when its length is a power of two: a mapping may hold 20,000 */
        struct ynode **m = f->n_merges & (f->n_merges - 1) ? f->merges
                           : realloc(f->merges, (f->n_merges ? 2 * f->n_merges : 1) * sizeof(*m));

        if (!m) {
            report_oom(s, pos);
            return -1;
        }
        f->merges = m;
        f->merges[f->n_merges++] = child;
        f->key = NULL;
        return 0;
    }
    /* Keys are compared by text, like libfyaml's own check (1 and "1" collide). */
    t = ynode_scalar(f->key, &len);
    hash = strhash_fnv1a(t, len);
    n = ynode_len(map);
    for (size_t i = 0; i < n; i++) {
        const struct ynode *k = ynode_key(map, i);

        if (f->hashes[i] == hash && k->u.scalar.len == len && memcmp(k->u.scalar.text, t, len) == 0) {
            /* plain and quoted alike (`010:`, `"010":`) may be two keys to the reader
             * (an integer and a string): not told here, an error as before */
            if (s->shape->last_key_wins && ynode_is_string(k) == ynode_is_string(f->key)) {
                struct ypos at = ynode_pos(f->key);

                diag_report(s->diag, DIAG_WARNING, DIAG_FINDING, source_name(s->src), at.line, at.col,
                            RULE_DUPLICATE_KEY, "key '%.*s' given twice: %s keeps this value, in the first "
                            "one's place", (int)(len > 100 ? 100 : len), t, s->shape->last_key_wins);
                ynode_set_value(map, i, child);
                s->key_replaced = true;
                f->key = NULL;
                return 0;
            }
            report(s, ynode_pos(f->key), RULE_DUPLICATE_KEY, "duplicate key '%.*s'%s",
                   (int)(len > 100 ? 100 : len), t,
                   s->shape->last_key_wins ? " (written plain once and quoted once: fanout does not tell whether "
                                             "they are one key to the platform; write them alike)" : "");
            f->key = NULL;
            return -1;
        }
    }
    if (n == STREAM_MAX_MAPPING_PAIRS) {
        report(s, ynode_pos(f->key), RULE_DEPTH, "a mapping with more than %u keys",
               STREAM_MAX_MAPPING_PAIRS);
        f->key = NULL;
        return -1;
    }
    if (n == f->cap_hashes) {
        unsigned cap = f->cap_hashes ? f->cap_hashes * 2 : 16;
        uint64_t *hashes = realloc(f->hashes, cap * sizeof(*hashes));

        if (!hashes) {
            report_oom(s, pos);
            return -1;
        }
        f->hashes = hashes;
        f->cap_hashes = cap;
    }
    f->hashes[n] = hash;
    if (ynode_append_pair(doc, map, f->key, child) != 0) {
        report_oom(s, pos);
        return -1;
    }
    f->key = NULL;
    return 0;
}

/* What was applied in the item just built, handed to `item` and cleared for the next. */
static void hand_over_flags(struct stream *s, struct stream_item *item)
{
    item->merged = s->merged;
    item->key_replaced = s->key_replaced;
    s->merged = s->key_replaced = false;
}

/* The YAML core-schema tags (YAML 1.2, 10.3), the only ones fanout reads: each decides
 * the type of what it tags, as every reader of the rendering must see it. Other tags
 * (`!foo`, `!`, `!!binary`, a `%TAG` that renames `!!`) are refused: readers disagree
 * on them, and a rendering could not keep them. */
enum tag { TAG_NONE, TAG_STR, TAG_INT, TAG_FLOAT, TAG_BOOL, TAG_NULL, TAG_SEQ, TAG_MAP };

static const struct {
    const char *name; /* as resolved: `!!int` and `!<tag:yaml.org,2002:int>` alike */
    enum tag tag;
    const char *needs; /* what the tagged node must be, for a message */
} core_tags[] = {
    {"tag:yaml.org,2002:str", TAG_STR, "a scalar"},
    {"tag:yaml.org,2002:int", TAG_INT, "an integer (12, -3; 0o17, 0x1F below 2^64)"},
    {"tag:yaml.org,2002:float", TAG_FLOAT, "a number (1.5, -3, 2e6, .inf, .nan)"},
    {"tag:yaml.org,2002:bool", TAG_BOOL, "true or false"},
    {"tag:yaml.org,2002:null", TAG_NULL, "null, ~ or nothing"},
    {"tag:yaml.org,2002:seq", TAG_SEQ, "a list"},
    {"tag:yaml.org,2002:map", TAG_MAP, "a mapping"},
};

static struct fy_token *event_tag(struct fy_event *fye)
{
    switch (fye->type) {
    case FYET_SCALAR:
        return fye->scalar.tag;
    case FYET_MAPPING_START:
        return fye->mapping_start.tag;
    case FYET_SEQUENCE_START:
        return fye->sequence_start.tag;
    default:
        return NULL;
    }
}

/* [-+]?[0-9]+: an integer a !!float may be written as (not 0x1F, 0o17). */
static bool is_decimal(const char *t, size_t len)
{
    size_t sign = len && (t[0] == '-' || t[0] == '+');

    return len > sign && strspn(t + sign, "0123456789") == len - sign;
}

/* The value of a !!int written 0x1F or 0o17 (YAML 1.1 readers take 0o17 for a string;
 * decimal reads alike everywhere): 1 and *v, 0 for another form, -1 past 64 bits. */
static int based_int(const char *t, size_t len, unsigned long long *v)
{
    unsigned base = len > 2 && t[0] == '0' ? (t[1] == 'x' ? 16 : t[1] == 'o' ? 8 : 0) : 0;

    if (!base)
        return 0;
    *v = 0;
    for (size_t i = 2; i < len; i++) {
        unsigned d = t[i] <= '9' ? (unsigned)(t[i] - '0') : (unsigned)((t[i] | 0x20) - 'a' + 10);

        if (*v > (ULLONG_MAX - d) / base)
            return -1;
        *v = *v * base + d;
    }
    return 1;
}

/* A decimal integer with a leading zero: 010 is 8 to YAML 1.1 readers (PyYAML) and 10
 * to YAML 1.2 ones, so a !!int cannot say which; a plain one is kept as written. */
static bool leading_zero(const char *t, size_t len)
{
    size_t sign = len && (t[0] == '-' || t[0] == '+');

    return is_decimal(t, len) && len > sign + 1 && t[sign] == '0';
}

/* Whether a core-schema tag fits the node of `fye`: a scalar's text must read as a plain
 * scalar of the tag's type would. */
static bool tag_fits(enum tag tag, struct fy_event *fye)
{
    size_t len = 0;
    const char *t;
    enum yscalar_type type;

    if (fye->type != FYET_SCALAR)
        return tag == (fye->type == FYET_MAPPING_START ? TAG_MAP : TAG_SEQ);
    if (tag == TAG_STR)
        return true;
    if (!(t = fy_token_get_text(fye->scalar.value, &len)))
        t = "", len = 0;
    type = yscalar_type(t, len);
    switch (tag) {
    case TAG_INT:
        return type == YS_INT && based_int(t, len, &(unsigned long long){0}) >= 0 &&
               !leading_zero(t, len);
    case TAG_FLOAT:
        return type == YS_FLOAT || is_decimal(t, len);
    case TAG_BOOL:
        return type == YS_BOOL;
    case TAG_NULL:
        return type == YS_NULL;
    default:
        return false;
    }
}

/* check_tag of a node tagged `tok`. */
static __attribute__((noinline)) int tag_of(struct stream *s, struct fy_event *fye, struct fy_token *tok)
{
    const struct fy_mark *m;
    struct ypos pos;
    size_t len = 0, hlen = 0, slen = 0;
    const char *name, *handle, *suffix, *t;
    char shown[128]; /* as written: !!int, !<tag:yaml.org,2002:int>, !e!foo */
    bool local;

    m = fy_token_start_mark(tok);
    pos = event_pos(s, fye);
    name = fy_token_get_text(tok, &len);
    if (m) {
        pos.line = (unsigned)m->line + 1;
        pos.col = (unsigned)m->column + 1;
    }
    handle = fy_tag_token_handle(tok, &hlen);
    suffix = fy_tag_token_suffix(tok, &slen);
    snprintf(shown, sizeof(shown), "%s%.*s%.*s%s", hlen ? "" : "!<", (int)hlen, hlen ? handle : "",
             (int)(slen > 100 ? 100 : slen), suffix ? suffix : "", hlen ? "" : ">");
    for (size_t i = 0; name && i < sizeof(core_tags) / sizeof(core_tags[0]); i++) {
        if (strlen(core_tags[i].name) != len || memcmp(core_tags[i].name, name, len) != 0)
            continue;
        if (tag_fits(core_tags[i].tag, fye))
            return (int)core_tags[i].tag;
        if (fye->type == FYET_SCALAR && core_tags[i].tag != TAG_SEQ && core_tags[i].tag != TAG_MAP) {
            if (!(t = fy_token_get_text(fye->scalar.value, &len)))
                t = "", len = 0;
            if (core_tags[i].tag == TAG_INT && leading_zero(t, len))
                report(s, pos, RULE_TAG, "tag '%s' on '%.*s': a leading zero is ambiguous (YAML 1.1 "
                       "readers such as PyYAML read 010 as 8, YAML 1.2 readers as 10)", shown,
                       (int)(len > 100 ? 100 : len), t);
            else
                report(s, pos, RULE_TAG, "tag '%s' needs %s, got '%.*s'", shown, core_tags[i].needs,
                       (int)(len > 100 ? 100 : len), t);
        } else {
            report(s, pos, RULE_TAG, "tag '%s' needs %s, got a %s", shown, core_tags[i].needs,
                   fye->type == FYET_SCALAR ? "scalar" : fye->type == FYET_MAPPING_START ? "mapping" : "list");
        }
        return -1;
    }
    /* `if: !cancelled()`, `if: ! startsWith(...)`: a '!' meant as text is a local tag, or
     * the non-specific one, which makes the rest a string without it (GitHub's runner
     * refuses both, its npm parser drops the tag and the negation with it) */
    local = hlen == 1 && handle[0] == '!';
    /* a handle that a %TAG directive names: what it stands for too */
    hlen = hlen > 1 && name && (len < 18 || memcmp(name, "tag:yaml.org,2002:", 18) != 0) ? len : 0;
    report(s, pos, RULE_TAG, "unknown tag '%s'%s%.*s%s: %sfanout reads the YAML core-schema tags only "
           "(!!str, !!int, !!float, !!bool, !!null, !!seq, !!map)", shown, hlen ? " (" : "",
           (int)(hlen > 100 ? 100 : hlen), hlen ? name : "", hlen ? ")" : "",
           local ? "a plain value that starts with '!' is a YAML tag, not text (quote the value to keep its "
                   "'!'); " : "");
    return -1;
}

/* The core-schema tag of the node that starts with `fye` (TAG_NONE when untagged), or
 * -1 after reporting, at the tag, a tag fanout does not read or one the node does not
 * fit. Nearly every node has none: tag_of's frame (its message's buffer) was most of a
 * call's cost. */
static inline int check_tag(struct stream *s, struct fy_event *fye)
{
    struct fy_token *tok = event_tag(fye);

    return tok ? tag_of(s, fye, tok) : TAG_NONE;
}

static enum ynode_style style_of(struct fy_event *fye)
{
    switch (fy_token_scalar_style(fye->scalar.value)) {
    case FYSS_SINGLE_QUOTED:
        return YNODE_SINGLE_QUOTED;
    case FYSS_DOUBLE_QUOTED:
        return YNODE_DOUBLE_QUOTED;
    case FYSS_LITERAL:
        return YNODE_LITERAL;
    case FYSS_FOLDED:
        return YNODE_FOLDED;
    default:
        return YNODE_PLAIN;
    }
}

/* The scalar of `fye`, typed by its tag when it has one: a !!str is a string however it
 * is written, and a value tagged with another scalar type is the plain scalar that
 * every reader reads as that type (the tag has checked that it is one): a finite
 * !!float in the one form YAML 1.1, 1.2 and JSON agree on (`3` -> `3.0`), a !!int in
 * hex or octal in decimal. NULL after an error. */
/* The text of a scalar that is its input's bytes as they stand, from what the source
 * handed the parser: one line, as many bytes as columns (every character one byte),
 * plain, or quoted without an escape ('' or a backslash) with its marks just inside its
 * quotes. NULL: ask libfyaml, whose fy_token_get_text formats every scalar with a space
 * into a copy. Inline: scalar_from's call was 0.2M of SGLang's render once key_text called
 * it too. */
static inline __attribute__((always_inline)) const char *
verbatim_text(const struct stream *s, struct fy_event *fye, const struct fy_mark *start, const struct fy_mark *end,
              size_t *len)
{
    enum fy_scalar_style st = fy_token_scalar_style(fye->scalar.value);
    char quote = st == FYSS_SINGLE_QUOTED ? '\'' : st == FYSS_DOUBLE_QUOTED ? '"' : 0;
    const char *t;
    size_t n;

    if (!start || !end || start->line != end->line || end->column <= start->column ||
        end->input_pos - start->input_pos != (size_t)(end->column - start->column) ||
        (st != FYSS_PLAIN && !quote) || (quote && start->column == 0))
        return NULL;
    n = (size_t)(end->column - start->column);
    if (!quote)
        t = source_span(s->src, (unsigned)start->line, (unsigned)start->column, start->input_pos, n);
    else if ((t = source_span(s->src, (unsigned)start->line, (unsigned)start->column - 1, start->input_pos - 1,
                              n + 2)) != NULL &&
             t[0] == quote && t[n + 1] == quote && !memchr(t + 1, quote == '"' ? '\\' : '\'', n))
        t++;
    else
        t = NULL;
    if (t)
        *len = n;
    return t;
}

/* s->text with room for `n` bytes; false when memory ran out. */
static bool text_room(struct stream *s, size_t n)
{
    char *t;

    if (n <= s->cap_text)
        return true;
    if (!(t = realloc(s->text, n)))
        return false;
    s->text = t;
    s->cap_text = n;
    return true;
}

/* The text of a block scalar from the lines the source handed the parser (its header's
 * line, then its own), when blocktext works it out; NULL: ask libfyaml, whose
 * fy_token_get_text runs its line iterator over them twice (a twelfth of rendering a
 * workflow), unless *shallow says libfyaml read a line YAML leaves out (the column of its
 * text; s->empty its details). *cut, *keep: blocktext_cut's, whoever writes the text. */
static const char *block_text(struct stream *s, const struct fy_mark *start, const struct fy_mark *end,
                              bool folded, unsigned *shallow, bool *cut, bool *keep, size_t *len)
{
    size_t n, body_len;
    bool more, plain;
    const char *line;
    struct blocktext b;

    if (!start || !end || start->line < 1 || start->column != 0 || end->input_pos < start->input_pos ||
        end->line < start->line ||
        !(line = source_lines_to(s->src, (unsigned)start->line - 1, start->input_pos - 1, (unsigned)end->line,
                                 (unsigned)end->column, end->input_pos, &n, &more, &plain)))
        return NULL;
    body_len = end->input_pos - start->input_pos;
    if (body_len >= n || line[n - body_len - 1] != '\n' || memchr(line, '\n', n - body_len - 1))
        return NULL; /* not the header's line then the scalar's */
    if (!text_room(s, body_len + 1))
        return NULL;
    b = (struct blocktext){line, n - body_len - 1, line + n - body_len, body_len, folded, !more, plain, false, 0};
    *cut = blocktext_cut(&b, keep);
    if (blocktext_format(&b, s->text, len))
        return s->text;
    /* declined: perhaps for a line no deeper than the key (blocktext_format does not read a
     * header with a comment or a tab) */
    *shallow = b.shallow;
    s->empty.read = false;
    if (blocktext_shallow(&b, &s->empty.at)) {
        *shallow = s->empty.at.col;
        s->empty.line = (unsigned)start->line - 1;
        s->empty.read = source_line_start(s->src, s->empty.line, start->input_pos - 1, &s->empty.offset);
        s->empty.offset += s->empty.at.indicator;
        s->empty.column = 0;
        for (size_t i = 0; i < s->empty.at.indicator; i++)
            s->empty.column += ((unsigned char)b.header[i] & 0xC0) != 0x80;
    }
    return NULL;
}

#define QUOTED_SHALLOW_MESSAGE "a quoted scalar's lines must be indented more than its key or '-' (YAML 1.2.2, 6.1, 7.3)"
#define FLOW_SHALLOW_MESSAGE                                                                                      \
    "a flow collection's lines must be indented more than its key or '-' (YAML 1.2.2, 6.1, 7.4; GitHub's reader "  \
    "refuses it)"

/* A line of a quoted scalar, or of a flow collection (`in_collection`), no deeper than its
 * key or '-', at `pos`: reported where the shape refuses it (false), else the document's
 * first is kept for stream_reshape, which reports it once the shape is known. */
static bool shallow_line(struct stream *s, struct ypos pos, bool in_collection)
{
    if (s->shape->flow_lines_indented) {
        report(s, pos, RULE_YAML, "%s", in_collection ? FLOW_SHALLOW_MESSAGE : QUOTED_SHALLOW_MESSAGE);
        return false;
    }
    if (!s->flow_shallow.line)
        s->flow_shallow = pos, s->shallow_in_collection = in_collection;
    return true;
}

/* Whether quoted scalar `body` (n bytes, at `pos`) keeps its lines deeper than column
 * `least` - 1 (its key's or entry's; 0: not known), or its shape takes it; false:
 * reported (shallow_line). */
static bool flow_lines_ok(struct stream *s, const char *body, size_t n, unsigned least, struct ypos pos)
{
    size_t line, col;

    if (!least || !quotedtext_shallow(body, n, least, &line, &col))
        return true;
    pos.line += (unsigned)line;
    pos.col = (unsigned)col + 1;
    return shallow_line(s, pos, false);
}

/* The text of quoted scalar `fye` that verbatim_text does not take (an escape, a line
 * break, a wide character), worked out by quotedtext from its bytes between the quotes
 * the source handed the parser (read where it holds them when on one line after ASCII,
 * else copied to s->text, the text written after them). Where they cannot be had (gone
 * from the window, a CR alone or NEL before them turned it off), libfyaml's text, unless
 * it is single-quoted and holds '': 0.7.12 may have misread the escapes, so that is an
 * error at `pos` (NULL). A double-quoted text is not checked: what 0.7.12 misreads there
 * (an escaped space before a break) cannot be seen in its text. Its lines are held to
 * column `least` (flow_lines_ok; 0: not). */
static const char *quoted_text(struct stream *s, struct fy_event *fye, const struct fy_mark *start,
                               const struct fy_mark *end, struct ypos pos, unsigned least, size_t *len)
{
    char quote = fy_token_scalar_style(fye->scalar.value) == FYSS_SINGLE_QUOTED ? '\'' : '"';
    size_t n = start && end && end->input_pos >= start->input_pos ? end->input_pos - start->input_pos : 0;
    const char *t;

    /* one line (wide characters in it) after ASCII: its bytes where they stand, as they
     * stand without an escape (copying and reading them cost 7 times libfyaml's pointer) */
    if (start && end && start->line == end->line && start->column > 0 &&
        (t = source_span(s->src, (unsigned)start->line, (unsigned)start->column - 1, start->input_pos - 1,
                         n + 2)) != NULL &&
        t[0] == quote && t[n + 1] == quote) {
        if (!memchr(t + 1, quote == '"' ? '\\' : quote, n) && !memchr(t + 1, '\r', n))
            return *len = n, t + 1;
        if (text_room(s, QUOTEDTEXT_ROOM(n)) && quotedtext_format(t + 1, n, quote, s->text, len))
            return s->text;
    }
    if (start && end && start->column > 0 && n < SIZE_MAX / 4 && text_room(s, n + 2 + QUOTEDTEXT_ROOM(n)) &&
        source_copy_span(s->src, (unsigned)start->line, (unsigned)start->column - 1, start->input_pos - 1,
                         (unsigned)end->line, (unsigned)end->column + 1, end->input_pos + 1, s->text) &&
        s->text[0] == quote && s->text[n + 1] == quote &&
        quotedtext_format(s->text + 1, n, quote, s->text + n + 2, len))
        return start->line == end->line || flow_lines_ok(s, s->text + 1, n, least, pos) ? s->text + n + 2 : NULL;
    if (!(t = fy_token_get_text(fye->scalar.value, len)))
        return *len = 0, "";
    if (quote == '\'' && memmem(t, *len, "''", 2)) {
        report(s, pos, RULE_YAML, "%s", "a single-quoted scalar with '' in it that fanout cannot read from its "
               "bytes (a CR alone or NEL before it, a tab or control character before both its quotes on their "
               "lines, or over 256 KiB): libfyaml 0.7.12, which reads it then, misreads '' escapes in a row; write "
               "it double-quoted");
        return NULL;
    }
    return t;
}

/* The text of key `fye` (a scalar), or NULL (reported). */
static const char *key_text(struct stream *s, struct fy_event *fye, struct ypos pos, size_t *len)
{
    enum fy_scalar_style st = fy_token_scalar_style(fye->scalar.value);
    const struct fy_mark *start, *end;
    const char *t;

    if (st != FYSS_SINGLE_QUOTED && st != FYSS_DOUBLE_QUOTED)
        return (t = fy_token_get_text(fye->scalar.value, len)) ? t : (*len = 0, "");
    start = start_mark(s, fye);
    end = end_mark(s, fye);
    t = verbatim_text(s, fye, start, end, len);
    return t ? t : quoted_text(s, fye, start, end, pos, 0, len);
}

/* How many bytes libfyaml's iterator reads of block scalar `tok`'s text (of length `len`
 * to fy_token_get_text: reading stops past it), or SIZE_MAX when it cannot. libfyaml
 * 0.7.12 takes a literal block whose first line is no more indented than its key (`run:
 * |` then `? x` under `run`), then formats fewer bytes than it counts, leaving the rest
 * of its buffer uninitialized (the gha fuzzer), and its iterator reads bytes past the
 * text; it formats a fold before a line one space deeper a byte short too. */
static size_t block_text_read(struct fy_token *tok, size_t len)
{
    struct fy_token_iter *it = fy_token_iter_create(tok);
    char buf[4096];
    size_t total = 0;
    ssize_t n;

    if (!it)
        return SIZE_MAX;
    while ((n = fy_token_iter_read(it, buf, sizeof(buf))) > 0 && total <= len)
        total += (size_t)n;
    fy_token_iter_destroy(it);
    return n < 0 ? SIZE_MAX : total;
}

/* Text t (*len bytes) of a block scalar whose last line of text the end of the input cuts,
 * ended as the shape's platform reads it (stream_shape.cut_block_breaks): libfyaml's text
 * ends a clipped one with a break, a kept one (`keep`) without. NULL: out of memory. */
static const char *cut_block_text(struct stream *s, const char *t, size_t *len, bool keep)
{
    bool broken = *len && t[*len - 1] == '\n', own = t == s->text;

    if (!s->shape->cut_block_breaks) {
        *len -= broken;
        return t;
    }
    if (broken || !keep)
        return t;
    if (!text_room(s, *len + 1))
        return NULL;
    memmove(s->text, own ? s->text : t, *len);
    s->text[(*len)++] = '\n';
    return s->text;
}

/* Whether the first line of a block scalar starting at `start` is indented less than
 * `parent_col` (the 1-based column of its key or sequence, 0: unknown), or cannot be
 * seen: then only libfyaml's two readings of it can tell whether it is whole. */
static bool block_suspect(const struct stream *s, const struct fy_mark *start, unsigned parent_col, unsigned *ind)
{
    size_t len = 0;
    const char *c = start->line < 0 ? NULL : source_line(s->src, (unsigned)start->line, start->input_pos, &len);

    *ind = 0;
    if (!parent_col || !c)
        return true;
    while (*ind < parent_col && *ind < len && c[*ind] == ' ')
        ++*ind;
    return *ind < parent_col;
}

/* Whether plain scalar `fye` (over lines start..end, at `pos`) has no line whose spaces,
 * fewer than `least` (its key's or entry's column + 1), are followed by a tab; false:
 * reported. libfyaml 0.7.12 takes such a line as the scalar's (`k: a`, `\tb`: "a b"
 * when the tab is deep enough for it); GitHub's npm yaml (lexer.js continueScalar ends
 * the scalar there, then "Tabs are not allowed as indentation") and Buildkite's
 * gopkg.in/yaml.v3 (scannerc.go yaml_parser_scan_plain_scalar: "found a tab character
 * that violates indentation") refuse it, as YAML 1.2.2 does (6.1: only spaces indent).
 * Then its text, folded from those bytes (*t, *len; libfyaml's text took 8K instructions
 * a scalar); *t NULL: the bytes cannot be had (libfyaml's reading). */
static bool plain_lines_ok(struct stream *s, const struct fy_mark *start, const struct fy_mark *end,
                           unsigned least, struct ypos pos, const char **t, size_t *len)
{
    size_t n = end->input_pos - start->input_pos;
    const char *p, *e, *nl;

    if (!text_room(s, n) || !source_copy_span(s->src, (unsigned)start->line, (unsigned)start->column,
                                              start->input_pos, (unsigned)end->line, (unsigned)end->column,
                                              end->input_pos, s->text))
        return true; /* cannot be seen: libfyaml's reading */
    for (p = s->text, e = p + n; (nl = memchr(p, '\n', (size_t)(e - p))) != NULL;) {
        size_t col = 0;

        pos.line++;
        for (p = nl + 1; col < least && p + col < e && p[col] == ' ';)
            col++;
        if (col < least && p + col < e && p[col] == '\t') {
            pos.col = (unsigned)col + 1;
            report(s, pos, RULE_YAML, "%s", "a plain scalar's line is indented by a tab, not spaces (YAML 1.2.2, "
                   "6.1; GitHub's and Buildkite's readers refuse it)");
            return false;
        }
    }
    *len = yscalar_plain_fold(s->text, n);
    *t = s->text;
    return true;
}

/* The 1-based column of key or sequence `n` (a quoted key's mark is inside its quote);
 * 0 for none. Asked for only where a scalar's lines are looked at (most are one line). */
static unsigned key_column(const struct ynode *n)
{
    return !n ? 0 : n->pos.col - (n->pos.col > 1 && (n->style == YNODE_SINGLE_QUOTED || n->style == YNODE_DOUBLE_QUOTED));
}

static struct fy_parser *parser_create(struct stream *s)
{
    struct fy_parse_cfg pcfg;

    memset(&pcfg, 0, sizeof(pcfg));
    /* A flow collection's closing bracket at its key's indentation (`matrix: [a,\n]`) is
     * taken by GitHub's and Buildkite's YAML readers; libfyaml refuses it unless sloppy
     * (6 real workflows, numpy's and accelerate's among them, failed). */
    pcfg.flags = FYPCF_QUIET | FYPCF_SLOPPY_FLOW_INDENTATION;
    pcfg.diag = s->fydiag;
    return fy_parser_create(&pcfg);
}

/* The input is read again (each time from its start to an empty block scalar) while the
 * reads again go through at most this many bytes more than twice the input read so far:
 * a few times in a large input, dozens in a workflow. */
#define STREAM_REREAD_BYTES (8u << 20)

/* The input read again by a new parser, the `|` or `>` of the empty block scalar
 * s->empty (the stream's last event) handed as `x`: a plain scalar of the same length, so
 * every mark stays where it was, which ends at its line as YAML ends the empty block
 * scalar. The events before it are the ones read already: skipped; the new parser's event
 * there is the stream's last (the old one freed). false, with nothing changed or the read
 * unusable (the caller's error ends the stream), when it cannot be. */
static bool reread_past(struct stream *s)
{
    uint64_t at = s->empty.offset;
    struct source_patch *p;
    struct fy_parser *fyp;
    struct fy_event *e = NULL;
    const struct fy_mark *m = NULL;

    if (s->reread_bytes + at > STREAM_REREAD_BYTES + 2 * at ||
        (s->n_patches && s->patches[s->n_patches - 1].at >= at) ||
        !(p = realloc(s->patches, (s->n_patches + 1) * sizeof(*p))))
        return false;
    s->patches = p;
    p[s->n_patches] = (struct source_patch){at, 'x'};
    if (!(fyp = parser_create(s)))
        return false;
    if (source_attach_patched(s->src, fyp, s->patches, s->n_patches + 1) != 0) {
        fy_parser_destroy(fyp);
        return false;
    }
    s->reread_bytes += at;
    for (;;) {
        e = fy_parser_parse(fyp);
        m = e ? fy_event_start_mark(e) : NULL;
        if (!e || source_failed(s->src) ||
            (m && ((unsigned)m->line > s->empty.line ||
                   ((unsigned)m->line == s->empty.line && (unsigned)m->column >= s->empty.column))))
            break;
        fy_parser_event_free(fyp, e);
    }
    if (!e || source_failed(s->src) || !m || (unsigned)m->line != s->empty.line ||
        (unsigned)m->column != s->empty.column || e->type != FYET_SCALAR ||
        style_of(e) != YNODE_PLAIN) {
        if (e)
            fy_parser_event_free(fyp, e);
        fy_parser_destroy(fyp); /* the old parser's input is gone: the stream ends (the caller) */
        return false;
    }
    s->n_patches++;
    fy_parser_event_free(s->fyp, s->last);
    fy_parser_destroy(s->fyp);
    s->fyp = fyp;
    at_event(s, e);
    return true;
}

/* The empty block scalar s->empty, libfyaml's read of which took a line, read again
 * (reread_past: the stream's last event is then the new parser's): its text (`+` keeps the
 * blank lines before that line) and its position (its indicator's). NULL when it cannot
 * be (the caller reports). Rare: out of scalar_from's way. */
static __attribute__((noinline, cold)) const char *empty_block(struct stream *s, struct ypos *pos, size_t *len)
{
    if (!s->empty.read || !text_room(s, s->empty.at.breaks + 1) || !reread_past(s))
        return NULL;
    memset(s->text, '\n', s->empty.at.breaks);
    *len = s->empty.at.breaks;
    *pos = event_pos(s, s->last);
    return s->text;
}

/* The node of scalar event `fye`, the stream's last. `may_reread`: the input may be read
 * again (empty_block), the stream's last event then another (`fye` freed). */
static struct ynode *scalar_from(struct stream *s, struct ynode_doc *doc, struct fy_event *fye, bool may_reread,
                                 struct ypos pos, const struct ynode *parent, bool in_flow)
{
    size_t len = 0;
    const struct fy_mark *start = start_mark(s, fye), *end = end_mark(s, fye);
    const char *t = verbatim_text(s, fye, start, end, &len);
    int tag = check_tag(s, fye);
    enum ynode_style style = style_of(fye);
    unsigned long long v;
    char num[24], *text;
    struct ynode *n;
    bool cut = false, keep = false;

    if (tag < 0)
        return NULL;
    if (!t && (style == YNODE_SINGLE_QUOTED || style == YNODE_DOUBLE_QUOTED) &&
        !(t = quoted_text(s, fye, start, end, pos, in_flow ? 0 : key_column(parent), &len)))
        return NULL;
    if (!t && style == YNODE_PLAIN && !in_flow && start && end && start->line != end->line &&
        end->input_pos > start->input_pos && key_column(parent) && !plain_lines_ok(s, start, end, key_column(parent), pos, &t, &len))
        return NULL;
    if (!t && (style == YNODE_LITERAL || style == YNODE_FOLDED)) {
        unsigned shallow = 0;

        t = block_text(s, start, end, style == YNODE_FOLDED, &shallow, &cut, &keep, &len);
        if (shallow) {
            if (!may_reread || !(t = empty_block(s, &pos, &len))) {
                pos.col = shallow;
                report(s, pos, RULE_YAML, "%s", "an empty block scalar: the line after it is no deeper than its "
                       "key, which ends it (YAML 1.2.2, 8.1.1.1), but libfyaml 0.7.12 reads that line into it; "
                       "write the empty value as \"\" or indent the line");
                return NULL;
            }
            start = end = NULL; /* the marks were the event's libfyaml misread */
            cut = false;
        }
    }
    if (!t) {
        unsigned ind;
        size_t read;

        t = fy_token_get_text(fye->scalar.value, &len);
        /* libfyaml's text of a block scalar blocktext leaves to it is checked: where it
         * writes less than it counts, the rest is bytes never written */
        if (t && (style == YNODE_LITERAL || style == YNODE_FOLDED) && start &&
            (read = block_text_read(fye->scalar.value, len)) != len) {
            if (block_suspect(s, start, key_column(parent), &ind)) {
                pos.col = ind + 1;
                report(s, pos, RULE_YAML, "%s",
                       "a block scalar's lines must be indented more than its key (YAML 1.2.2, 8.1.1.1)");
                return NULL;
            }
            if (read < len) {
                report(s, pos, RULE_YAML, "%s", "libfyaml 0.7.12 leaves a byte of this block scalar's text "
                       "unwritten (a folded line, a blank line, a line one space deeper); fanout writes that text "
                       "itself when its lines end in LF or CRLF and its header is a key's or a '-''s");
                return NULL;
            }
        }
    }
    if (t && cut && !(t = cut_block_text(s, t, &len, keep))) {
        report_oom(s, pos);
        return NULL;
    }
    if (!t)
        t = "", len = 0;
    if (tag == TAG_STR && style == YNODE_PLAIN)
        style = YNODE_DOUBLE_QUOTED;
    else if (tag != TAG_NONE && tag != TAG_STR)
        style = YNODE_PLAIN;
    if (tag == TAG_INT && based_int(t, len, &v) > 0) {
        n = ynode_new_scalar(doc, num, (size_t)snprintf(num, sizeof(num), "%llu", v), style, pos);
    } else if (tag == TAG_FLOAT && !memchr(t, 'n', len) && !memchr(t, 'N', len)) {
        /* finite (.inf and .nan have an n) */
        n = ynode_new_scalar(doc, t, len, style, pos);
        if (n && (text = ynode_doc_alloc(doc, len + 4)) != NULL) {
            n->u.scalar.text = text;
            n->u.scalar.len = yscalar_float_canonical(t, len, text);
        } else {
            n = NULL;
        }
    } else {
        n = ynode_new_scalar(doc, t, len, style, pos);
        /* libfyaml's marks of a quoted scalar are inside its quotes */
        if (n && start && end && start->line == end->line && end->input_pos - start->input_pos == len)
            n->verbatim = 1;
    }
    if (!n)
        report_oom(s, pos);
    return n;
}

/* The first line in bytes p[0, n) (after each line break in them) that a flow collection
 * of column `least` (1-based) cannot have, as npm yaml, GitHub's reader, reads it
 * (lexer.js): between its tokens (parseFlowCollection), a line whose spaces are fewer
 * than `least` ends the collection ("Flow sequence in block collection must be
 * sufficiently indented"), unless it is blank or a comment, or the outermost
 * collection's closing bracket at `least` - 1 (`closing`: p[n] is that bracket). p[n] is
 * the byte after them, `next` (a token's first). Returns the line (1: the first after
 * p's) and its spaces (*col), 0 for none. (A quoted scalar's lines: quotedtext_shallow.) */
static size_t flow_shallow_line(const char *p, size_t n, char next, unsigned least, bool closing, size_t *col)
{
    const char *end = p + n, *nl;
    size_t line = 0;

    for (const char *q = p; (nl = memchr(q, '\n', (size_t)(end - q))) != NULL;) {
        size_t k = 0;
        const char *c;
        char ch;

        line++;
        q = nl + 1;
        while (q + k < end && q[k] == ' ')
            k++;
        for (c = q + k; c < end && (*c == ' ' || *c == '\t');)
            c++;
        ch = c < end ? *c : next;
        if (ch == '\n' || ch == '\r' || k >= least || ch == '#' ||
            (closing && c == end && k + 1 == least))
            continue;
        *col = k;
        return line;
    }
    return 0;
}

/* flow_shallow_line (quotedtext_shallow for a quoted scalar's bytes, `quoted`) over the
 * input from the scan mark to `to` (and `next`, the byte there), then the mark moved to
 * `to`; false: reported (shallow_line). Bytes that cannot be had (gone from the window)
 * are not looked at: libfyaml's reading. */
static bool flow_scan(struct stream *s, const struct fy_mark *to, char next, bool quoted, bool closing)
{
    size_t n, line, col = 0;
    struct ypos pos;

    if (!to || to->input_pos < s->flow.pos)
        return true;
    n = to->input_pos - s->flow.pos;
    /* no bytes (libfyaml's marks can move a line on without one): no line to look at */
    if (n && to->line != s->flow.line && text_room(s, n) &&
        source_copy_span(s->src, (unsigned)s->flow.line, (unsigned)s->flow.col, s->flow.pos, (unsigned)to->line,
                         (unsigned)to->column, to->input_pos, s->text) &&
        (quoted ? quotedtext_shallow(s->text, n, s->flow.least, &line, &col)
                : (line = flow_shallow_line(s->text, n, next, s->flow.least, closing, &col)) != 0)) {
        pos = (struct ypos){s->file, (unsigned)s->flow.line + 1 + (unsigned)line, (unsigned)col + 1};
        source_position(s->src, &pos.line, &pos.col);
        if (!shallow_line(s, pos, !quoted)) {
            s->flow.on = false;
            return false;
        }
    }
    s->flow.pos = to->input_pos;
    s->flow.line = to->line;
    s->flow.col = to->column;
    return true;
}

/* Within a flow collection of block context whose lines are looked at (s->flow.on):
 * the bytes before event `fye`, then its own (a quoted scalar's by continueScalar's
 * rule). `closing`: the event ends the outermost collection. */
static bool flow_event_ok(struct stream *s, struct fy_event *fye, bool closing)
{
    const struct fy_mark *start = start_mark(s, fye), *end = end_mark(s, fye);
    enum fy_scalar_style st = fye->type == FYET_SCALAR ? fy_token_scalar_style(fye->scalar.value) : FYSS_PLAIN;
    bool quoted = st == FYSS_SINGLE_QUOTED || st == FYSS_DOUBLE_QUOTED;
    char first = fye->type == FYET_SCALAR ? (quoted ? '\'' : 'x') : fye->type == FYET_ALIAS ? '*' : '[';

    if (!start || !end)
        return true;
    if (fye->type == FYET_MAPPING_END || fye->type == FYET_SEQUENCE_END)
        first = ']';
    /* a quoted scalar's marks are inside its quotes: its opening one is before them */
    return flow_scan(s, quoted && start->input_pos > 0 ? &(struct fy_mark){start->input_pos - 1, start->line,
                                                                            start->column - 1} : start,
                     first, false, closing) &&
           flow_scan(s, end, 'x', quoted, false);
}

/* Whether key `fye` of a block mapping is an implicit key whose ':' is more than 1024
 * characters after its start (YAML 1.2.2, 7.4.2 and 8.2.2: an implicit key is at most
 * 1024); true: reported. GitHub's npm yaml (resolve-block-map.js: "The : indicator must
 * be at most 1024 chars after the start of an implicit block mapping key") and
 * Buildkite's gopkg.in/yaml.v3 (scannerc.go yaml_parser_stale_simple_keys: a simple key
 * is no longer possible 1024 characters on, then "mapping values are not allowed in
 * this context") refuse it; libfyaml 0.7.12 took it. Its ':' is found after it on its
 * line (an explicit key's is on a line of its own); columns count characters, as both
 * do. Bytes the window no longer holds, or a line with a wide character or a tab
 * before the key's end, are not looked at (libfyaml's reading). */
static __attribute__((noinline)) bool long_key_refused(struct stream *s, struct fy_event *fye, struct ypos pos,
                                                        const struct fy_mark *start, const struct fy_mark *end)
{
    int q;
    size_t len = 0, i;
    const char *t;

    q = fy_token_scalar_style(fye->scalar.value) == FYSS_SINGLE_QUOTED ||
        fy_token_scalar_style(fye->scalar.value) == FYSS_DOUBLE_QUOTED;
    if (!source_line(s->src, (unsigned)end->line, end->input_pos, &len) || len <= (size_t)end->column ||
        !(t = source_span(s->src, (unsigned)end->line, (unsigned)end->column, end->input_pos,
                          len - (size_t)end->column)))
        return false; /* short, or not to be seen (wide characters before its end) */
    for (i = (size_t)q; i < len - (size_t)end->column && (t[i] == ' ' || t[i] == '\t');)
        i++;
    if (i == len - (size_t)end->column || t[i] != ':' || end->column + (int)i - (start->column - q) <= 1024)
        return false;
    pos.col -= (unsigned)q;
    report(s, pos, RULE_YAML, "%s", "an implicit key longer than 1024 characters (YAML 1.2.2, 7.4.2, 8.2.2; GitHub's "
           "and Buildkite's readers refuse it)");
    return true;
}

/* A key of fewer than 126 characters is not looked at (its ':' 900 spaces on is not):
 * nothing but this compare on the path of every key. */
static inline bool key_too_long(struct stream *s, struct fy_event *fye, struct ypos pos)
{
    const struct fy_mark *start = start_mark(s, fye), *end = end_mark(s, fye);

    return start && end && end->column - start->column >= 126 && start->line == end->line &&
           long_key_refused(s, fye, pos, start, end);
}

/* A flow collection begins at `fye` in block context, as frame `depth`, the value of a
 * key or an entry of a sequence at column `least` (0: not known, not looked at). */
static void flow_begin(struct stream *s, struct fy_event *fye, int depth, unsigned least)
{
    const struct fy_mark *m = end_mark(s, fye);

    if (!least || !m)
        return;
    s->flow.on = true;
    s->flow.depth = depth;
    s->flow.least = least;
    s->flow.pos = m->input_pos;
    s->flow.line = m->line;
    s->flow.col = m->column;
}

/* A block mapping that begins on the line of the key it is the value of (`a: : b`,
 * `a: &x : b`): YAML has none (1.2.2, 8.2.2: an implicit key's block value is on a line
 * of its own; compact mappings are a sequence entry's or an explicit key's), npm yaml
 * (GitHub) says "Nested mappings are not allowed in compact mappings" and yaml.v3
 * (Buildkite) "mapping values are not allowed in this context"; libfyaml 0.7.12 refuses
 * `a: b: c` but reads `a: : b` as {a: {"": b}}. key_line: that key's line, 0 for none. */
static bool mapping_on_key_line(struct stream *s, struct fy_event *fye, struct ypos pos, unsigned key_line)
{
    if (fye->type != FYET_MAPPING_START || !key_line || pos.line != key_line ||
        fy_event_get_node_style(fye) == FYNS_FLOW)
        return false;
    report(s, pos, RULE_YAML, "%s", "a mapping cannot begin on its key's line (YAML 1.2.2, 8.2.2)");
    return true;
}

/* Builds the node that starts with `fye` (consumed) and everything below it; key_line:
 * the line of the key it is the value of (0: none). */
static struct ynode *build(struct stream *s, struct ynode_doc *doc, struct fy_event *fye, unsigned key_line)
{
    struct frame stack[STREAM_MAX_DEPTH];
    int depth = 0;
    struct ynode *done = NULL;

    s->alias_nodes = 0;
    for (;;) {
        struct ynode *node = NULL;
        struct ypos pos = event_pos(s, fye);
        char *anchor = NULL;
        bool finished = true;

        /* An empty value has no mark of its own: it is where its key is. */
        if (!pos.line && depth > 0 && stack[depth - 1].key)
            pos = ynode_pos(stack[depth - 1].key);
        if (s->flow.on && !flow_event_ok(s, fye, (fye->type == FYET_MAPPING_END || fye->type == FYET_SEQUENCE_END) &&
                                                     depth - 1 == s->flow.depth)) {
            fy_parser_event_free(s->fyp, fye);
            goto fail;
        }
        switch (fye->type) {
        case FYET_SCALAR:
            if (depth > 0 && !stack[depth - 1].flow && !stack[depth - 1].key && ynode_is_map(stack[depth - 1].node) &&
                key_too_long(s, fye, pos))
                break;
            node = scalar_from(s, doc, fye, true, pos,
                               depth == 0 ? NULL : frame_parent(&stack[depth - 1]),
                               depth > 0 && stack[depth - 1].flow);
            fye = s->last; /* another when the input was read again (empty_block) */
            anchor = anchor_name(event_anchor(fye));
            break;
        case FYET_ALIAS:
            node = resolve_alias(s, doc, fye);
            break;
        case FYET_MAPPING_START:
        case FYET_SEQUENCE_START:
            if (depth == STREAM_MAX_DEPTH) {
                report(s, pos, RULE_DEPTH, "nesting deeper than %d levels", STREAM_MAX_DEPTH);
                break;
            }
            if (depth > 0)
                key_line = stack[depth - 1].key && !stack[depth - 1].flow ? ynode_pos(stack[depth - 1].key).line : 0;
            if (check_tag(s, fye) < 0 || mapping_on_key_line(s, fye, pos, key_line))
                break;
            node = fye->type == FYET_MAPPING_START ? ynode_new_map(doc, pos) : ynode_new_seq(doc, pos);
            if (!node) {
                report_oom(s, pos);
                break;
            }
            memset(&stack[depth], 0, sizeof(stack[depth]));
            stack[depth].hashes = s->hashes[depth]; /* lent: the frame owns it until its end */
            stack[depth].cap_hashes = s->cap_hashes[depth];
            s->hashes[depth] = NULL;
            stack[depth].node = node;
            stack[depth].flow = fy_event_get_node_style(fye) == FYNS_FLOW;
            stack[depth].anchor = anchor_name(event_anchor(fye));
            if (stack[depth].flow && !s->flow.on)
                flow_begin(s, fye, depth, depth == 0 ? s->root_least : stack[depth - 1].flow ? 0
                                          : key_column(frame_parent(&stack[depth - 1])));
            depth++;
            finished = false;
            break;
        case FYET_MAPPING_END:
        case FYET_SEQUENCE_END:
            depth--;
            if (s->flow.on && depth == s->flow.depth)
                s->flow.on = false;
            node = stack[depth].node;
            anchor = stack[depth].anchor;
            stack[depth].anchor = NULL;
            if (stack[depth].n_merges && apply_merges(s, doc, &stack[depth]) != 0)
                node = NULL;
            s->hashes[depth] = stack[depth].hashes;
            s->cap_hashes[depth] = stack[depth].cap_hashes;
            stack[depth].hashes = NULL;
            frame_release(&stack[depth]);
            break;
        default:
            report(s, pos, RULE_YAML, "%s", "unexpected YAML event");
            break;
        }
        fy_parser_event_free(s->fyp, fye);
        if (!node) {
            free(anchor);
            goto fail;
        }
        if (finished) {
            if (anchor && anchor_define(s, anchor, node, pos) != 0)
                goto fail;
            if (depth == 0) {
                done = node;
                break;
            }
            if (attach(s, doc, &stack[depth - 1], node) != 0)
                goto fail;
        }
        fye = next_event(s);
        if (!fye)
            goto fail;
    }
    return done;
fail:
    s->flow.on = false;
    while (depth > 0)
        frame_release(&stack[--depth]);
    return NULL;
}

/* A new document whose root is `kind` (a one-item sequence for a step, a one-pair
 * mapping for a top-level pair). */
static struct ynode_doc *item_doc(struct stream *s, bool seq, struct ypos pos)
{
    struct ynode_doc *doc = ynode_doc_create();
    struct ynode *root = doc ? (seq ? ynode_new_seq(doc, pos) : ynode_new_map(doc, pos)) : NULL;

    if (!root) {
        ynode_doc_destroy(doc);
        report_oom(s, pos);
        return NULL;
    }
    ynode_doc_set_root(doc, root);
    return doc;
}

/* Builds the step starting at `fye` into a fresh document whose root is a one-item
 * sequence: expansion later replaces that item with the steps it renders to. */
static struct ynode_doc *build_step_doc(struct stream *s, struct fy_event *fye)
{
    struct ypos pos = event_pos(s, fye);
    struct ynode_doc *doc = item_doc(s, true, pos);
    struct ynode *step;

    if (!doc) {
        fy_parser_event_free(s->fyp, fye);
        return NULL;
    }
    step = build(s, doc, fye, 0);
    if (!step || ynode_append(doc, ynode_doc_root(doc), step) != 0) {
        if (step)
            report_oom(s, pos);
        ynode_doc_destroy(doc);
        return NULL;
    }
    return doc;
}

/* A key read here, not by build (a top-level key, a key of the items' mapping) defines
 * its anchor as build's keys do (`&a k: v` then `*a` is "k"): YAML 1.2.2 3.2.2.2, an
 * anchor on any node; npm yaml (compose-node.js composeNode: anchors of every node)
 * and yaml.v3 (decode.go parser.anchor, for each node parserc.go yields) take it. The
 * key node `k` is copied; `fye` is its event. */
static int key_anchor(struct stream *s, struct fy_event *fye, struct ynode *k, struct ypos pos)
{
    char *name = anchor_name(fye->scalar.anchor);

    return name ? anchor_define(s, name, k, pos) : 0;
}

/* key_anchor of a key no node is built for (the items' key, `steps`, `jobs`): one of its
 * own, made to be copied. */
static int items_key_anchor(struct stream *s, struct fy_event *fye, struct ypos pos)
{
    struct ynode_doc *doc;
    struct ynode *k;
    int rc;

    if (!fye->scalar.anchor)
        return 0;
    if (!(doc = ynode_doc_create())) {
        report_oom(s, pos);
        return -1;
    }
    k = scalar_from(s, doc, fye, false, pos, NULL, false);
    rc = k ? key_anchor(s, fye, k, pos) : -1;
    ynode_doc_destroy(doc);
    return rc;
}

/* The shape whose items a top-level key `key` holds, or NULL. */
static const struct stream_shape *items_shape(const struct stream *s, const char *key, size_t len)
{
    for (const struct stream_shape *sh = s->shapes; sh->key; sh++) {
        if (strlen(sh->key) == len && memcmp(sh->key, key, len) == 0)
            return sh;
    }
    return NULL;
}

/* A top-level key `key` seen: 0, or -1 after reporting it a duplicate (one a merge gave
 * said so: the agent lets a later key win over a merged one, which fanout has handed on). */
static int top_key_once(struct stream *s, const char *key, size_t len, struct ypos pos)
{
    int seen = strset_add(s->top_keys, key, len);
    char buf[128];

    if (seen == 0)
        return 0;
    snprintf(buf, sizeof(buf), "%.*s", (int)(len > 100 ? 100 : len), key ? key : "");
    if (seen < 0)
        report(s, pos, RULE_INTERNAL, "%s", "out of memory");
    else if (strset_has(s->merged_keys, key, len))
        report(s, pos, RULE_DUPLICATE_KEY, "'%s' is given by the top-level '<<' merge above too: buildkite-agent "
               "keeps this one, fanout reads the document in order and has the merged one (write it before "
               "the '<<', or leave it out of the merged mapping)", buf);
    else
        report(s, pos, RULE_DUPLICATE_KEY, "duplicate key '%s'", buf);
    return -1;
}

static void queued_clear(struct stream *s)
{
    for (size_t i = s->next_queued; i < s->n_queued; i++)
        ynode_doc_destroy(s->queued[i].doc);
    s->n_queued = s->next_queued = 0;
}

/* A top-level `<<: value` (its one-pair document `doc`, taken) as yaml.v3 and
 * go-pipeline's ordered maps merge it: each pair of the mapping, or of the list's
 * mappings (an earlier one wins), whose key the document has not had yet, queued as a
 * top-level pair of its own where the `<<` is (the agent's order); a key written later
 * is an error (top_key_once). A merged `steps` is refused: a document's steps are read
 * where they are written. 0, or -1 after reporting. */
static int merge_top(struct stream *s, struct ynode_doc *doc)
{
    const struct ynode *value = ynode_value(ynode_doc_root(doc), 0);
    size_t sources = ynode_is_seq(value) ? ynode_len(value) : 1;
    int rc = 0;

    queued_clear(s);
    for (size_t i = 0; rc == 0 && i < sources; i++) {
        const struct ynode *src = ynode_is_seq(value) ? ynode_item(value, i) : value;

        if (!ynode_is_map(src)) {
            report(s, ynode_pos(src), RULE_MERGE, "%s", "'<<' needs a mapping or a list of mappings");
            rc = -1;
        }
        for (size_t j = 0; rc == 0 && ynode_is_map(src) && j < ynode_len(src); j++) {
            const struct ynode *k = ynode_key(src, j);
            struct ypos pos = ynode_pos(k);
            struct stream_item *q;
            struct ynode_doc *one;

            if (strset_has(s->top_keys, k->u.scalar.text, k->u.scalar.len))
                continue;
            if (items_shape(s, k->u.scalar.text, k->u.scalar.len)) {
                report(s, pos, RULE_MERGE, "a top-level '<<' merge that gives '%.*s': fanout reads a document's "
                       "items where they are written (write them there)", (int)k->u.scalar.len, k->u.scalar.text);
                rc = -1;
                break;
            }
            q = s->n_queued & (s->n_queued - 1) ? s->queued
                : realloc(s->queued, (s->n_queued ? 2 * s->n_queued : 1) * sizeof(*q));
            one = q ? item_doc(s, false, pos) : NULL;
            if (q)
                s->queued = q;
            if (!one || strset_add(s->top_keys, k->u.scalar.text, k->u.scalar.len) < 0 ||
                strset_add(s->merged_keys, k->u.scalar.text, k->u.scalar.len) < 0 ||
                ynode_append_pair(one, ynode_doc_root(one), ynode_copy(one, k), ynode_copy(one, ynode_value(src, j))) != 0) {
                ynode_doc_destroy(one);
                if (q)
                    report_oom(s, pos);
                rc = -1;
                break;
            }
            s->queued[s->n_queued++] = (struct stream_item){.kind = STREAM_PAIR, .doc = one, .pos = pos, .merged = true};
        }
    }
    ynode_doc_destroy(doc);
    if (rc != 0)
        queued_clear(s);
    return rc;
}

/* Any other top-level pair: a one-pair mapping document. `fye` is its key. */
static struct ynode_doc *build_pair_doc(struct stream *s, struct fy_event *fye)
{
    struct ypos pos = event_pos(s, fye);
    struct ynode_doc *doc = item_doc(s, false, pos);
    struct ynode *k = doc ? scalar_from(s, doc, fye, false, pos, NULL, false) : NULL;
    struct fy_event *val;
    struct ynode *v;

    if (k && key_anchor(s, fye, k, pos) != 0)
        k = NULL;
    fy_parser_event_free(s->fyp, fye);
    if (!k)
        goto fail;
    val = next_event(s);
    /* in a flow mapping (`{on: [a,` then `b]}`) a value is not held to its key */
    s->root_least = (s->state == ST_STEPS ? s->items_flow : s->top_flow) ? 0 : key_column(k);
    v = val ? build(s, doc, val, pos.line) : NULL;
    s->root_least = 0;
    if (!v)
        goto fail;
    if (!v->pos.line)
        v->pos = pos; /* an empty value: where its key is */
    if (ynode_append_pair(doc, ynode_doc_root(doc), k, v) != 0) {
        report_oom(s, pos);
        goto fail;
    }
    return doc;
fail:
    ynode_doc_destroy(doc);
    return NULL;
}

const struct stream_shape stream_steps_shape[] = {{"steps", false, false, false, false, NULL},
                                                  {NULL, false, false, false, false, NULL}};

struct stream *stream_open(struct source *src, unsigned file, struct diag *d)
{
    return stream_open_shaped(src, file, stream_steps_shape, d);
}

struct stream *stream_open_shaped(struct source *src, unsigned file,
                                  const struct stream_shape *shapes, struct diag *d)
{
    struct stream *s = calloc(1, sizeof(*s));
    struct fy_diag_cfg dcfg;

    if (!s)
        return NULL;
    s->src = src;
    s->file = file;
    s->diag = d;
    s->shapes = shapes;
    s->shape = shapes;
    s->top_keys = strset_create();
    s->merged_keys = strset_create();
    s->item_keys = strset_create();
    if (!s->top_keys || !s->merged_keys || !s->item_keys)
        goto fail;
    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    dcfg.colorize = false;
    dcfg.output_fn = NULL;
    s->fydiag = fy_diag_create(&dcfg);
    if (!s->fydiag)
        goto fail;
    fy_diag_set_collect_errors(s->fydiag, true);
    s->fyp = parser_create(s);
    if (!s->fyp || source_attach(src, s->fyp) != 0)
        goto fail;
    s->state = ST_STREAM;
    return s;
fail:
    diag_report(d, DIAG_ERROR, DIAG_INPUT, source_name(src), 0, 0, RULE_INTERNAL,
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
    for (size_t d = 0; d < STREAM_MAX_DEPTH; d++)
        free(s->hashes[d]);
    free(s->text);
    free(s->patches);
    strset_destroy(s->top_keys);
    strset_destroy(s->merged_keys);
    strset_destroy(s->item_keys);
    queued_clear(s);
    free(s->queued);
    if (s->fyp)
        fy_parser_destroy(s->fyp);
    if (s->fydiag)
        fy_diag_destroy(s->fydiag);
    source_detach(s->src);
    free(s);
}

void stream_reshape(struct stream *s, const struct stream_shape *shapes, struct diag *d)
{
    const char *key = s->shape->key;

    s->shapes = s->shape = shapes;
    for (const struct stream_shape *sh = shapes; sh->key; sh++) {
        if (!strcmp(sh->key, key))
            s->shape = sh;
    }
    s->diag = d;
    if (s->flow_shallow.line && s->shape->flow_lines_indented) {
        report(s, s->flow_shallow, RULE_YAML, "%s",
               s->shallow_in_collection ? FLOW_SHALLOW_MESSAGE : QUOTED_SHALLOW_MESSAGE);
        s->shallow_failed = true;
    }
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

/* Whether a top-level key holds the items: then s->shape is the shape it names. */
static bool is_items_key(struct stream *s, const char *key, size_t len)
{
    const struct stream_shape *sh = items_shape(s, key, len);

    if (sh)
        s->shape = sh;
    return sh != NULL;
}

/* A key of the items' mapping: a scalar, not seen before in it. Frees `fye` on error. */
static int check_item_key(struct stream *s, struct fy_event *fye, struct ypos pos)
{
    size_t len = 0;
    const char *key;
    int seen;

    if (fye->type != FYET_SCALAR) {
        fy_parser_event_free(s->fyp, fye);
        report(s, pos, RULE_PIPELINE_SHAPE, "the keys of '%s' must be scalars", s->shape->key);
        return -1;
    }
    if ((!s->items_flow && key_too_long(s, fye, pos)) || !(key = key_text(s, fye, pos, &len))) {
        fy_parser_event_free(s->fyp, fye);
        return -1;
    }
    if (strset_count(s->item_keys) == STREAM_MAX_MAPPING_PAIRS) {
        fy_parser_event_free(s->fyp, fye);
        report(s, pos, RULE_SIZE, "'%s' has more than %u entries", s->shape->key,
               STREAM_MAX_MAPPING_PAIRS);
        return -1;
    }
    seen = strset_add(s->item_keys, key, len);
    if (seen == 0)
        return 0;
    if (seen < 0)
        report(s, pos, RULE_INTERNAL, "%s", "out of memory");
    else
        report(s, pos, RULE_DUPLICATE_KEY, "duplicate key '%.*s'", (int)(len > 100 ? 100 : len), key);
    fy_parser_event_free(s->fyp, fye);
    return -1;
}

int stream_next(struct stream *s, struct stream_item *item)
{
    memset(item, 0, sizeof(*item));
    if (s->shallow_failed) {
        s->shallow_failed = false;
        return fail(s);
    }
    if (s->pending_steps_start) {
        s->pending_steps_start = false;
        item->kind = STREAM_STEPS_START;
        item->bare = true;
        item->items_key = s->shape->key;
        return 1;
    }
    if (s->next_queued < s->n_queued) {
        *item = s->queued[s->next_queued++];
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
                report(s, pos, RULE_YAML, "%s", "unexpected YAML event");
                return fail(s);
            }
            fy_parser_event_free(s->fyp, fye);
            s->state = ST_ROOT;
            strset_clear(s->top_keys);
            strset_clear(s->merged_keys);
            s->flow_shallow.line = 0;
            continue;
        case ST_ROOT:
            if (check_tag(s, fye) < 0) {
                fy_parser_event_free(s->fyp, fye);
                return fail(s);
            }
            /* DOC_START is reported once the root is known: an empty document (a
             * trailing `---`, a file of comments) yields no items at all. */
            if (fye->type == FYET_MAPPING_START) {
                s->top_flow = fy_event_get_node_style(fye) == FYNS_FLOW;
                fy_parser_event_free(s->fyp, fye);
                s->state = ST_TOP_MAP;
                s->in_doc = true;
                item->kind = STREAM_DOC_START;
                return 1;
            }
            if (fye->type == FYET_SEQUENCE_START && !s->shapes->mapping) {
                fy_parser_event_free(s->fyp, fye);
                s->shape = s->shapes;
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
            if (s->shapes->mapping)
                report(s, pos, RULE_PIPELINE_SHAPE, "must be a mapping with '%s'", s->shapes->key);
            else
                report(s, pos, RULE_PIPELINE_SHAPE, "%s",
                       "a pipeline must be a mapping with 'steps' or a list of steps");
            return fail(s);
        case ST_TOP_MAP: {
            size_t len;
            const char *key;

            if (fye->type == FYET_MAPPING_END) {
                fy_parser_event_free(s->fyp, fye);
                s->state = ST_DOC_TAIL;
                continue;
            }
            if (fye->type != FYET_SCALAR) {
                fy_parser_event_free(s->fyp, fye);
                report(s, pos, RULE_PIPELINE_SHAPE, "%s", "top-level keys must be scalars");
                return fail(s);
            }
            if (check_tag(s, fye) < 0 || (!s->top_flow && key_too_long(s, fye, pos))) {
                fy_parser_event_free(s->fyp, fye);
                return fail(s);
            }
            if (!(key = key_text(s, fye, pos, &len))) {
                fy_parser_event_free(s->fyp, fye);
                return fail(s);
            }
            if (len == 2 && !memcmp(key, "<<", 2) && !s->shape->literal_merge_keys) {
                struct ynode_doc *doc = build_pair_doc(s, fye);

                if (!doc)
                    return fail(s);
                if (!ynode_is_string(ynode_key(ynode_doc_root(doc), 0))) { /* a plain `<<` */
                    if (merge_top(s, doc) != 0)
                        return fail(s);
                    if (s->next_queued == s->n_queued)
                        continue; /* every key it has was written before it */
                    *item = s->queued[s->next_queued++];
                    return 1;
                }
                /* a quoted "<<": a key like any other */
                if (top_key_once(s, "<<", 2, pos) != 0) {
                    ynode_doc_destroy(doc);
                    return fail(s);
                }
                item->doc = doc;
                item->kind = STREAM_PAIR;
                hand_over_flags(s, item);
                return 1;
            }
            if (top_key_once(s, key, len, pos) != 0) {
                fy_parser_event_free(s->fyp, fye);
                return fail(s);
            }
            /* Quoted or not: JSON input writes "steps". */
            if (key && is_items_key(s, key, len)) {
                struct ypos key_pos = event_pos(s, fye);
                struct fy_event *val;

                if (items_key_anchor(s, fye, key_pos) != 0) {
                    fy_parser_event_free(s->fyp, fye);
                    return fail(s);
                }
                fy_parser_event_free(s->fyp, fye);
                val = next_event(s);
                if (!val)
                    return fail(s);
                if (check_tag(s, val) < 0 || mapping_on_key_line(s, val, event_pos(s, val), key_pos.line)) {
                    fy_parser_event_free(s->fyp, val);
                    return fail(s);
                }
                if (val->type != (s->shape->mapping ? FYET_MAPPING_START : FYET_SEQUENCE_START)) {
                    pos = event_pos(s, val);
                    if (!pos.line) /* an empty value (`steps:`) has no mark: at its key */
                        pos = key_pos;
                    fy_parser_event_free(s->fyp, val);
                    report(s, pos, RULE_PIPELINE_SHAPE, "'%s' must be a %s", s->shape->key,
                           s->shape->mapping ? "mapping" : "list");
                    return fail(s);
                }
                strset_clear(s->item_keys);
                s->items_flow = fy_event_get_node_style(val) == FYNS_FLOW;
                item->pos = event_pos(s, val);
                fy_parser_event_free(s->fyp, val);
                s->state = ST_STEPS;
                s->bare = false;
                item->kind = STREAM_STEPS_START;
                item->items_key = s->shape->key;
                return 1;
            }
            /* Any other top-level pair becomes a one-pair mapping document. */
            item->doc = build_pair_doc(s, fye);
            if (!item->doc)
                return fail(s);
            item->kind = STREAM_PAIR;
            hand_over_flags(s, item);
            return 1;
        }
        case ST_STEPS:
            if (fye->type == FYET_SEQUENCE_END || fye->type == FYET_MAPPING_END) {
                fy_parser_event_free(s->fyp, fye);
                s->state = s->bare ? ST_DOC_TAIL : ST_TOP_MAP;
                item->kind = STREAM_STEPS_END;
                return 1;
            }
            if (s->shape->mapping) {
                if (check_item_key(s, fye, pos) != 0)
                    return fail(s);
                item->doc = build_pair_doc(s, fye);
            } else {
                item->doc = build_step_doc(s, fye);
            }
            if (!item->doc)
                return fail(s);
            item->kind = STREAM_STEP;
            hand_over_flags(s, item);
            return 1;
        case ST_DOC_TAIL: {
            enum fy_event_type type = fye->type;

            fy_parser_event_free(s->fyp, fye);
            if (type != FYET_DOCUMENT_END) {
                report(s, pos, RULE_YAML, "%s", "unexpected content after the pipeline");
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

int stream_document(struct stream *s, struct ynode_doc **out)
{
    *out = NULL;
    for (;;) {
        struct fy_event *fye;
        enum fy_event_type type;
        struct ypos pos;

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
        pos = event_pos(s, fye);
        {
            struct ynode_doc *doc = ynode_doc_create();
            struct ynode *root;

            if (!doc) {
                fy_parser_event_free(s->fyp, fye);
                report_oom(s, pos);
                return fail(s);
            }
            if (!(root = build(s, doc, fye, 0))) {
                ynode_doc_destroy(doc);
                return fail(s);
            }
            ynode_doc_set_root(doc, root);
            *out = doc;
        }
    }
}
