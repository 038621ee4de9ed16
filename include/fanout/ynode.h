/* ynode: fanout's own YAML tree. A document (struct ynode_doc) owns an arena from which
 * its nodes, their texts and their child arrays are allocated; destroying the document
 * frees them all at once. Nodes carry their position in the input and how a scalar was
 * written, which decides its type: plain scalars are typed by YAML's rules, quoted and
 * block scalars and the strings fanout makes are strings. (The stream applies a YAML
 * core-schema tag as it reads a scalar: `!!str 1` is quoted, `!!int "3"` plain.)
 *
 * The stream builds one small document per step straight from parser events; expansion
 * edits it in place (a shard is a shallow copy sharing the fields it does not change);
 * the emitter and the validator read it. Read nodes through the accessors below; a node
 * belongs to one document and may be shared only within it. */
#ifndef FANOUT_YNODE_H
#define FANOUT_YNODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A node's position is a struct ypos (diag.h): 1-based, line 0 = unknown; `file`
 * numbers the input file (the caller's list of names), so nodes moved between files
 * still point home. */
#include "fanout/diag.h"

enum ynode_kind { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP };

enum { YNODE_PROVEN = 1, YNODE_SETTLED = 2, YNODE_NO_EXPR = 4, YNODE_SHARED = 8 };

/* How a scalar was written. MADE: a string fanout generated. */
enum ynode_style {
    YNODE_PLAIN,
    YNODE_SINGLE_QUOTED,
    YNODE_DOUBLE_QUOTED,
    YNODE_LITERAL,
    YNODE_FOLDED,
    YNODE_MADE,
};

struct ynode;

struct ynode_pair {
    struct ynode *key; /* a scalar */
    struct ynode *value;
};

struct ynode {
    uint8_t kind;  /* enum ynode_kind */
    uint8_t style; /* enum ynode_style, scalars only */
    /* Scalars: the text is the input's bytes from `pos` on, on one line (no escape, no
     * folding), so a byte offset in it is a column offset (ynode_text_pos). */
    uint8_t verbatim;
    /* YNODE_PROVEN: set by a check that found the node valid (tmplschema's proofs), kept
     * by copies, cleared by every change below: what a rendering did not change need not
     * be checked again. YNODE_SETTLED: ynode_proven_settle has been through it.
     * YNODE_NO_EXPR: a scalar whose text holds no `${{` (noted by the template-schema
     * check's search, kept with the text): substitution need not search it again.
     * YNODE_SHARED: what expansion made that a matrix job's configurations share (a
     * substitution recalled, a row's value): the rendering's check proves it, for the
     * configurations after. */
    uint8_t proven;
    struct ypos pos;
    union {
        struct {
            const char *text; /* NUL-terminated; len excludes the NUL */
            size_t len;
        } scalar;
        struct {
            struct ynode **items;
            size_t n, cap;
        } seq;
        struct {
            struct ynode_pair *pairs;
            size_t n, cap;
        } map;
    } u;
};

struct ynode_doc;

struct ynode_doc *ynode_doc_create(void);
/* A document rooted at nodes it does not own (static data such as the bundled schemas):
 * destroying it leaves them alone. Nothing may be allocated in it. */
struct ynode_doc *ynode_doc_wrap(struct ynode *root);
void ynode_doc_destroy(struct ynode_doc *doc);

/* Takes `other`'s memory into `doc` (and frees `other`): nodes of `other` may then be
 * linked into `doc`'s tree, and live as long as `doc` does. */
void ynode_doc_adopt(struct ynode_doc *doc, struct ynode_doc *other);

struct ynode *ynode_doc_root(const struct ynode_doc *doc);
void ynode_doc_set_root(struct ynode_doc *doc, struct ynode *root);

/* `size` bytes from the document's arena (8-byte aligned), or NULL. */
void *ynode_doc_alloc(struct ynode_doc *doc, size_t size);

/* ---- reading ---- */

static inline struct ypos ynode_pos(const struct ynode *n)
{
    struct ypos none = {0, 0, 0};

    return n ? n->pos : none;
}

static inline bool ynode_is_scalar(const struct ynode *n) { return n && n->kind == YNODE_SCALAR; }
static inline bool ynode_is_seq(const struct ynode *n) { return n && n->kind == YNODE_SEQ; }
static inline bool ynode_is_map(const struct ynode *n) { return n && n->kind == YNODE_MAP; }

/* Items of a sequence, pairs of a mapping; 0 for anything else. */
static inline size_t ynode_len(const struct ynode *n)
{
    if (ynode_is_seq(n))
        return n->u.seq.n;
    return ynode_is_map(n) ? n->u.map.n : 0;
}

static inline struct ynode *ynode_item(const struct ynode *seq, size_t i) { return seq->u.seq.items[i]; }
static inline struct ynode *ynode_key(const struct ynode *map, size_t i) { return map->u.map.pairs[i].key; }
static inline struct ynode *ynode_value(const struct ynode *map, size_t i) { return map->u.map.pairs[i].value; }

/* Text of a scalar (NUL-terminated), or NULL for anything else. */
const char *ynode_scalar(const struct ynode *n, size_t *len);

/* True when `n` is a scalar whose text is exactly s[0..len). */
bool ynode_scalar_is_n(const struct ynode *n, const char *s, size_t len);

/* The same for a NUL-terminated `s` (inline: a literal's length is known at compile time). */
static inline bool ynode_scalar_is(const struct ynode *n, const char *s)
{
    return ynode_scalar_is_n(n, s, strlen(s));
}

/* True for a scalar that must be typed as a string: quoted or block in the input, or
 * made by fanout. Plain input scalars are resolved by YAML's rules instead. Inline: the
 * emitter asks it of every key and value. */
static inline bool ynode_is_string(const struct ynode *n)
{
    return ynode_is_scalar(n) && n->style != YNODE_PLAIN;
}

/* A missing node or a plain null (`~`, `null`, empty). */
bool ynode_is_null(const struct ynode *n);

/* Parses a plain decimal integer scalar written one way only: an optional '-', no '+'
 * and no leading zero (010 is 8 to a YAML 1.1 reader and 10 to a YAML 1.2 one).
 * False for anything else. */
bool ynode_int(const struct ynode *n, long long *out);

/* The index of `key` in mapping `map` (compared by text), or -1 when absent or when
 * `map` is not a mapping. */
long ynode_find(const struct ynode *map, const char *key, size_t len);

/* Value of `key` in mapping `map`, or NULL. */
static inline struct ynode *ynode_get(const struct ynode *map, const char *key)
{
    long i = ynode_find(map, key, strlen(key));

    return i < 0 ? NULL : map->u.map.pairs[i].value;
}

/* True when `map` has `key`. */
static inline bool ynode_has(const struct ynode *map, const char *key)
{
    return ynode_find(map, key, strlen(key)) >= 0;
}

/* The first key of `keys` (a NULL-terminated list) present in `map`; its value in *value. */
const char *ynode_get_any(const struct ynode *map, const char *const *keys, struct ynode **value);

/* Where byte `offset` of scalar `n`'s text is written: exact for a verbatim scalar,
 * the scalar's own position for anything else. */
struct ypos ynode_text_pos(const struct ynode *n, size_t offset);

/* The same for any scalar the input wrote, followed through the input's bytes `raw`
 * (`len` of them, from the start of line ynode_raw_line(n)): YAML's line folding,
 * escapes, `''`, and a block scalar's indentation (from its first line with content,
 * or its indentation indicator counted from its header line's indentation). The
 * scalar's own position when `raw` does not hold the text as parsed (the file changed,
 * a scalar fanout made). */
struct ypos ynode_text_pos_raw(const struct ynode *n, size_t offset, const char *raw, size_t len);

/* The line ynode_text_pos_raw's `raw` starts at: a block scalar's header line (the line
 * before its position), else the scalar's own line. */
static inline unsigned ynode_raw_line(const struct ynode *n)
{
    return n->pos.line - (n->style == YNODE_LITERAL || n->style == YNODE_FOLDED);
}

/* Number of nodes in the tree under `n` (n included). */
size_t ynode_tree_size(const struct ynode *n);

/* The same, counted only as far as `budget`: a count above it says there are more. */
size_t ynode_tree_size_within(const struct ynode *n, size_t budget);

/* ---- making ---- (every function returns NULL when the arena is out of memory) */

struct ynode *ynode_new_map(struct ynode_doc *doc, struct ypos pos);
struct ynode *ynode_new_seq(struct ynode_doc *doc, struct ypos pos);

/* A scalar with a copy of s[0..len), written in `style`. */
struct ynode *ynode_new_scalar(struct ynode_doc *doc, const char *s, size_t len,
                               enum ynode_style style, struct ypos pos);

/* A string scalar made by fanout (typed as a string whatever its text). */
struct ynode *ynode_new_string(struct ynode_doc *doc, const char *s, size_t len, struct ypos pos);

/* A plain scalar, typed by YAML's rules (`true`, `180`). */
struct ynode *ynode_new_plain(struct ynode_doc *doc, const char *text, struct ypos pos);

/* A string made by fanout whose text is scalar `n`'s own (shared: texts never change):
 * what a substitution that left the text as it was makes. It keeps `n`'s proven mark:
 * `n`, a plain scalar only when it holds `${{` (of which substitution makes strings), is
 * typed a string too, so a check reads the two alike. */
struct ynode *ynode_new_string_of(struct ynode_doc *doc, const struct ynode *n);
/* Deep copy of `src` (from any document) into `doc`, positions and styles kept. */
struct ynode *ynode_copy(struct ynode_doc *doc, const struct ynode *src);
/* A copy of `src`, a node of `doc` itself (or of something that outlives it), whose
 * scalars share src's texts, which never change: a matrix job's configurations share
 * their scripts' text instead of each copying it. */
struct ynode *ynode_copy_in(struct ynode_doc *doc, const struct ynode *src);

/* A new container with the same children as `src` (a scalar is returned as it is): for
 * changing a few fields of a mapping that `doc` shares with other nodes. */
struct ynode *ynode_copy_shallow(struct ynode_doc *doc, const struct ynode *src);

/* What ynode_rewrite_scalars does to one scalar: the scalar itself (unchanged), a new
 * node for it, or NULL when out of memory. */
typedef struct ynode *(*ynode_scalar_fn)(void *user, struct ynode_doc *doc, struct ynode *scalar);

/* `n` with `fn` applied to every scalar under it (mapping keys are kept): `n` itself when
 * nothing changed, else a copy in `doc` that shares every child that did not. NULL when
 * out of memory. */
struct ynode *ynode_rewrite_scalars(struct ynode_doc *doc, struct ynode *n, ynode_scalar_fn fn, void *user);

/* Whether the tree under `n` is as a check found it (ynode.proven): a container that
 * holds a changed node loses its mark here, and every node of the tree is marked
 * settled, so that a second check settles each tree it meets once, and skips the trees
 * still marked proven. */
bool ynode_proven_settle(struct ynode *n);

/* ---- changing ---- (0, or -1 when the arena is out of memory; each clears the changed
 * container's proven mark) */

int ynode_append(struct ynode_doc *doc, struct ynode *seq, struct ynode *item);

/* Inserts `item` before index `at` (at == length appends). */
int ynode_insert(struct ynode_doc *doc, struct ynode *seq, size_t at, struct ynode *item);

/* Removes item `at` of a sequence, or pair `at` of a mapping. */
void ynode_remove_at(struct ynode *n, size_t at);

/* Replaces item `i` of a sequence. */
void ynode_set_item(struct ynode *seq, size_t i, struct ynode *item);
/* Replaces the value of pair `i` of a mapping. */
void ynode_set_value(struct ynode *map, size_t i, struct ynode *value);
/* Replaces child `i` (an item, or a pair's value) with ynode_new_string_of it: the
 * container keeps its proven mark. */
void ynode_replace_equal(struct ynode *n, size_t i, struct ynode *value);
/* `dst` takes the pairs (or items) of `src`, a container of the same kind. */
void ynode_take_children(struct ynode *dst, const struct ynode *src);

/* Appends a pair (no check for an existing key). */
int ynode_append_pair(struct ynode_doc *doc, struct ynode *map, struct ynode *key,
                      struct ynode *value);

/* Sets `key` to `value`: the old value is replaced in place, or the pair is appended
 * with a key made at value's position. */
int ynode_set(struct ynode_doc *doc, struct ynode *map, const char *key, struct ynode *value);

/* Removes `key` from `map`; a no-op when absent. */
void ynode_remove(struct ynode *map, const char *key);

#endif
