/* What the files of the JSON Schema validator share (include/fanout/schema.h is its
 * interface): the compiled node, the schema document with its registry of $ids and
 * bases, and the functions one step hands the next. schema.c is the entry (compile,
 * load, free, the streaming queries), schema_uri.c resolves URI references,
 * schema_ref.c registers $ids and resolves $refs (and finds the $ref cycles that never
 * reach the instance), schema_compile.c compiles the keywords of a node, schema_check.c
 * validates an instance node, schema_memo.c answers quiet checks of instances shaped
 * like one that passed. Nothing here is for the rest of fanout. */
#ifndef FANOUT_SCHEMA_INTERNAL_H
#define FANOUT_SCHEMA_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fanout/diag.h"
#include "fanout/schema.h"
#include "fanout/ynode.h"

#define METASCHEMA_URI "http://json-schema.org/draft-07/schema"

/* JSON types, as a set (numbers: T_NUMBER, plus T_INTEGER when whole). */
enum {
    T_NULL = 1, T_BOOLEAN = 2, T_OBJECT = 4, T_ARRAY = 8, T_NUMBER = 16, T_STRING = 32,
    T_INTEGER = 64,
};

struct prop {
    char *name;
    size_t len;
    struct schema_node *schema;
};

struct pattern_prop {
    pcre2_code *re;
    pcre2_match_data *md;
    bool jit_tried; /* schema_match's */
    const char *src; /* the key that holds the pattern, for messages */
    struct schema_node *schema;
};

struct dependency {
    char *name;
    size_t len;
    struct ynode *names;      /* a list of property names, or NULL */
    struct schema_node *schema; /* or a schema */
};

/* A `pattern`'s answers for short values, kept across instances: a rendering's jobs
 * repeat the same few shard numbers (BUILDKITE_PARALLEL_JOB "0", "1", ...) thousands of
 * times, and a match costs some 500 instructions. A slot by the text's length and ends. */
#define PROP_LENGTHS 32
#define PATTERN_MEMO 8
#define PATTERN_MEMO_TEXT 15
struct pattern_memo {
    unsigned char len; /* 0: empty slot (an empty text is matched, not remembered) */
    char text[PATTERN_MEMO_TEXT];
    int m;
};

struct schema_node {
    struct ynode *src;
    size_t index; /* in schema.all */
    /* Its keywords not compiled yet (a lazily compiled schema's): schema_node_ready
     * compiles them, as every reader of a node's fields asks first. */
    bool pending;
    struct schema *owner;
    bool is_bool, bool_value;
    struct schema_node *ref;
    unsigned types;
    struct ynode *enum_values, *const_value;
    struct prop *props; /* sorted by prop_order */
    size_t n_props;
    /* Where the names of each length start in props: those of length L < PROP_LENGTHS
     * are props[by_length[L] .. by_length[L + 1]), the longer ones from
     * by_length[PROP_LENGTHS]; NULL without props. A lookup compares only the names of
     * its length, and a key of a length no name has (most keys against most step types'
     * properties) none. */
    unsigned *by_length;
    struct pattern_prop *pprops;
    size_t n_pprops;
    struct schema_node *additional_props, *property_names;
    struct ynode *required; /* a list of names */
    const char **required_names;
    struct schema_node *items, *additional_items, *contains;
    struct schema_node **item_list;
    size_t n_item_list;
    bool items_is_list;
    long long min_items, max_items, min_length, max_length, min_props, max_props;
    bool has_min, has_max, has_xmin, has_xmax, has_multiple;
    double minimum, maximum, xminimum, xmaximum, multiple_of;
    bool unique_items;
    struct schema_node **all_of, **any_of, **one_of;
    size_t n_all_of, n_any_of, n_one_of;
    struct schema_node *not_, *if_, *then_, *else_;
    struct dependency *deps;
    size_t n_deps;
    pcre2_code *pattern;
    pcre2_match_data *pattern_md; /* made once, reused by every match */
    bool pattern_jit_tried;       /* schema_match's */
    struct pattern_memo *pattern_memo; /* PATTERN_MEMO slots, with pattern_md */
    /* A pattern `^[...]+$` of ASCII characters and ranges (Buildkite's key): its class,
     * 256 flags by byte, which answer an ASCII text without PCRE2; else NULL. */
    bool *pattern_class;
    char *pattern_src;
    bool needs_scalar_type; /* `type` or a number/string keyword is here */
};

/* A map from a node to a value (a compiled node, a base URI). */
struct ptrmap {
    const void **keys;
    void **vals;
    size_t cap, n;
};

struct doc {
    struct ynode_doc *fyd;
    char *uri; /* without fragment; "" when the schema has no $id */
};

struct anchor {
    char *uri; /* absolute, with or without a fragment */
    struct ynode *node;
};

struct schema {
    char *name;
    struct diag *diag;
    struct doc *docs;
    size_t n_docs;
    struct anchor *anchors;
    size_t n_anchors, cap_anchors;
    struct ptrmap compiled; /* ynode -> schema_node */
    struct ptrmap bases;    /* ynode -> base URI (char *, one of base_texts or a doc's uri) */
    char **base_texts;      /* the base URIs the $ids made, owned */
    size_t n_base_texts;
    struct schema_node **all;
    size_t n_all, cap_all;
    unsigned depth; /* of compile() calls */
    bool failed;
    bool lazy; /* a subschema reached is registered, its keywords compiled when read */
};

/* ---- schema.c: small helpers ---- */

/* 0, or -1 when out of memory. */
int schema_ptrmap_put(struct ptrmap *m, const void *key, void *val);
void *schema_ptrmap_get(const struct ptrmap *m, const void *key);

/* A scalar's text, malloc'd; NULL for no scalar (or out of memory). */
char *schema_text_of(struct ynode *n);

/* ---- schema_uri.c (RFC 3986 reference resolution, enough for $id and $ref) ---- */

/* The absolute form of `ref` against `base`; malloc'd, NULL when out of memory. */
char *schema_uri_resolve(const char *base, const char *ref);
/* `uri` without its fragment; malloc'd. */
char *schema_uri_strip_fragment(const char *uri);

/* ---- schema_ref.c ---- */

/* Adds a schema document (the schema takes it); its root's base is `uri` (or its own
 * $id), and every $id under it is registered. 0, or -1 when out of memory. */
int schema_add_doc(struct schema *s, struct ynode_doc *fyd, const char *uri);
/* The node `ref` (a $ref's text, written at `at`) names, loading the bundled draft-07
 * metaschema when it is the one named; NULL when it names nothing known. */
struct ynode *schema_resolve_ref(struct schema *s, struct ynode *at, const char *ref);
/* Reports the first cycle of subschemas applied in place (never looking into the
 * instance, so that validation could not end) as a compile error. */
void schema_check_ref_cycles(struct schema *s);

/* ---- schema_compile.c ---- */

/* The compiled node of schema node `n` (compiled once, however often reached; only
 * registered, pending, in a lazy schema). */
struct schema_node *schema_compile_node(struct schema *s, struct ynode *n);
/* The keywords of pending node `sn` compiled. */
void schema_compile_pending(struct schema_node *sn);

/* `sn` with its keywords compiled (a lazy schema's nodes are compiled when first read). */
static inline const struct schema_node *schema_node_ready(const struct schema_node *sn)
{
    if (sn && sn->pending)
        schema_compile_pending((struct schema_node *)sn);
    return sn;
}
/* A keyword a pass over schema nodes reads (schema_keywords_read's table). */
struct schema_keyword {
    const char *text;
    size_t len;
};
#define SCHEMA_KEYWORD(text) {text, sizeof(text) - 1}
/* The values of keywords table[0..count) (count <= 64) in mapping `n`, value[i] for
 * table[i] (NULL: absent, or written without one), from one pass over its keys (a lookup
 * of each was most of a node's compile and prewalk); a key written twice gives its first,
 * as a lookup finds. Returns which are present: bit i for table[i]. */
uint64_t schema_keywords_read(const struct ynode *n, const struct schema_keyword *table, size_t count,
                              struct ynode **value);
/* Reports a problem of the schema at `at` (the first only) and marks it failed. */
void schema_compile_error(struct schema *s, struct ynode *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- schema_check.c ---- */

/* The JSON type of an instance node (a set of one T_*, T_NUMBER with T_INTEGER for a
 * whole number); its number in *num (when not NULL). */
unsigned schema_type_of(struct ynode *n, double *num);
/* Told of every check of a scalar a quiet check makes (schema_memo.c records them). */
struct schema_recorder {
    /* scalar `n` against `sn`, the check begun at recursion depth `nesting`: `ok` */
    void (*checked)(struct schema_recorder *r, const struct schema_node *sn, struct ynode *n, unsigned nesting,
                    bool ok);
    bool tainted; /* a keyword compared a container's scalars (enum, const, uniqueItems) */
};

/* schema_is_valid, begun at recursion depth `nesting`, telling `rec` (or NULL). */
bool schema_check_quietly(const struct schema_node *sn, struct ynode *instance, unsigned nesting,
                          struct schema_recorder *rec);
/* The property `key` of a node's `properties` (among the names of its length); NULL
 * when none. */
const struct prop *schema_find_prop(const struct schema_node *sn, const char *key, size_t len);
/* 1: `s` matches, 0: it does not, else PCRE2's error (a limit, out of memory): not a
 * failed match. `jit_tried`: the pattern's, set by its first match. */
int schema_match(pcre2_code *re, pcre2_match_data *md, bool *jit_tried, const char *s, size_t len);

/* Properties are kept sorted by length, then bytes (a Buildkite step's schema has 40). */
static inline int prop_order(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen != blen)
        return alen < blen ? -1 : 1;
    return memcmp(a, b, alen);
}

/* The node behind a chain of $refs (bounded: a $ref cycle is reported at compile time,
 * this only must not loop). */
static inline const struct schema_node *deref(const struct schema_node *sn)
{
    for (int i = 0; schema_node_ready(sn) && sn->ref && i < 64; i++)
        sn = sn->ref;
    return schema_node_ready(sn);
}

#endif
