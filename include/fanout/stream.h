/* stream: the input as a sequence of top-level items, one step at a time.
 * Each step (and each other top-level pair) is built from parser events into its own
 * small ynode document, which the caller owns and destroys: memory stays bounded by the
 * largest step. Aliases are resolved into copies (with a node budget), `<<` merge keys
 * are applied, anchors are dropped, YAML core-schema tags are applied to the types of
 * the nodes they tag (others are refused, rule `tag`), so callers see plain trees. */
#ifndef FANOUT_STREAM_H
#define FANOUT_STREAM_H

#include "fanout/diag.h"
#include "fanout/source.h"
#include "fanout/ynode.h"

enum stream_kind {
    STREAM_DOC_START,   /* a YAML document begins */
    STREAM_PAIR,        /* a top-level pair other than the items': doc root = one-pair mapping */
    STREAM_STEPS_START, /* the items' container (`steps:`, a bare list of steps, `jobs:`) begins */
    STREAM_STEP,        /* one item: doc root = a sequence holding just that step, or for a
                           mapping of items (`jobs:`) a one-pair mapping */
    STREAM_STEPS_END,
    STREAM_DOC_END,
};

struct stream_item {
    enum stream_kind kind;
    struct ynode_doc *doc;   /* PAIR and STEP only; owned by the caller */
    struct ypos pos;         /* where the item starts */
    bool bare;               /* STEPS_START: the document is a bare list */
    const char *items_key;   /* STEPS_START: the container's key ("steps", "jobs") */
    bool merged;             /* PAIR and STEP: a `<<` merge was applied in it */
    bool key_replaced;       /* PAIR and STEP: a key given twice kept its last value (a
                                shape's last_key_wins) */
};

/* Where a document keeps its items: Buildkite's `steps` list (a document may also be a
 * bare list of steps) or a workflow's `jobs` mapping. A stream is given a list of shapes
 * ending with {NULL}: the first top-level key of the list holds a document's items, and
 * STEPS_START names it; a bare list is taken when the first shape is a list. */
struct stream_shape {
    const char *key;
    bool mapping;
    /* The platform's reader refuses a quoted scalar, or a flow collection in block
     * context, with a line no deeper than its key or entry (quotedtext_shallow,
     * stream.c's flow_shallow_line; YAML 1.2.2 does too), which libfyaml takes: it is an
     * error in a document of this shape, found where detection read it too (a document
     * read before its shape is known is told at stream_reshape). */
    bool flow_lines_indented;
    /* A block scalar whose last line of text the end of the input cuts (no line break
     * after it) ends, clipped or kept, with a break all the same: GitHub's npm yaml reads
     * it so (`run: |`, `  x` EOF: "x\n"); Buildkite's gopkg.in/yaml.v3 gives no break
     * there ("x"), as YAML 1.2.2 does (8.1.1.2: a final break is kept where there is one). */
    bool cut_block_breaks;
    /* `<<` is a key like any other, not a merge: GitHub's reader (npm yaml, YAML 1.2's core
     * schema, which has none) keeps it, and the workflow is refused ("Unexpected value
     * '<<'": @actions/workflow-parser; GitHub staff, actions/runner#1182: merge keys are not
     * supported); Buildkite's gopkg.in/yaml.v3 merges, as YAML 1.1 did. */
    bool literal_merge_keys;
    /* A key given twice in one mapping: NULL, an error (`duplicate-key`, exit 2: GitHub's
     * parser refuses it, "'k' is already defined"; so does gopkg.in/yaml.v3 decoding into
     * a struct, as rayci does); else the name of the platform's reader, which keeps the
     * key in its first place with its last value and says nothing (go-pipeline's
     * ordered.Map.Set for buildkite-agent; a Python dict for vLLM's generator, PyYAML's
     * safe_load): a warning naming it, and the rendering has what that reader has. The
     * top-level keys of a document are read in order, so a top-level one is an error
     * all the same (its first value has been handed on). */
    const char *last_key_wins;
};

/* {{"steps", false, false, false, false, NULL}, {NULL}}: a list of steps, a key given
 * twice an error. */
extern const struct stream_shape stream_steps_shape[];

/* Limits that keep hostile input cheap. */
#define STREAM_MAX_DEPTH 64
#define STREAM_ALIAS_NODE_BUDGET 100000u
#define STREAM_ANCHOR_NODE_BUDGET 1000000u
/* Duplicate keys are found by a scan of the mapping: keep mappings to a sane size. */
#define STREAM_MAX_MAPPING_PAIRS 20000u

struct stream;

/* Reads `src` from its start; its nodes carry file number `file` in their positions.
 * Errors are reported to `d` with the source's name. */
struct stream *stream_open(struct source *src, unsigned file, struct diag *d);
/* The same for items kept as `shapes` say (stream_open: stream_steps_shape). */
struct stream *stream_open_shaped(struct source *src, unsigned file,
                                  const struct stream_shape *shapes, struct diag *d);
void stream_close(struct stream *s);

/* Reads on with `shapes` and reports to `d`, as a stream opened with them would from here:
 * for a stream whose document took the items of a key that `shapes` has too, with the
 * same form (dialect detection's, handed to the dialect it found). */
void stream_reshape(struct stream *s, const struct stream_shape *shapes, struct diag *d);

/* 1: *item filled; 0: end of input; -1: error (reported; the stream is finished). */
int stream_next(struct stream *s, struct stream_item *item);

/* The next YAML document whole, whatever its root (for schemas and config files), with
 * the same checks as the items: 1 with *out set (the caller destroys it), 0 at the end
 * of the input, -1 after an error. Not to be mixed with stream_next on one stream. */
int stream_document(struct stream *s, struct ynode_doc **out);

#endif
