/* What the files of the template-schema language share (include/fanout/tmplschema.h is
 * its interface): the compiled definitions and the schema that holds them, and the
 * steps one file hands another. tmplschema_read.c reads a schema file into definitions,
 * tmplschema_contexts.c answers what a key's value is and which contexts it allows (by
 * key path too) and makes the name lists an expression is checked with,
 * tmplschema_keys.c keeps a mapping's keys as GitHub compares them, tmplschema.c is the
 * reader that validates a YAML tree. Nothing here is for the rest of fanout. */
#ifndef FANOUT_TMPLSCHEMA_INTERNAL_H
#define FANOUT_TMPLSCHEMA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fanout/expr.h"
#include "fanout/tmplschema.h"

enum def_kind { D_NULL, D_BOOLEAN, D_NUMBER, D_STRING, D_SEQUENCE, D_MAPPING, D_ONE_OF };

/* tmpl_def.scalars: the scalars a definition matches whatever their text, itself or
 * through nested one-ofs (a null, a boolean, a number; every string, every non-empty
 * one): a scalar's check asks them first, and the string constants only after. */
enum { S_NULL = 1, S_BOOLEAN = 2, S_NUMBER = 4, S_STRING = 8, S_NON_EMPTY = 16 };

struct tmpl_prop {
    const char *name;
    size_t len;
    const char *type_name;
    const struct tmpl_def *type;
    bool required;
    bool background; /* a background step's key (tmpl_background_key) */
};

struct tmpl_keys;

struct tmpl_def {
    const char *name;
    uint8_t kind;    /* enum def_kind */
    uint8_t scalars; /* S_* */
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
    /* props indexed (tmpl_index_props): each slot 0 or a prop's index + 1, at
     * tmpl_prop_slot of its name or the next free slot; unused when not `indexed` (too
     * many props). A scan of the props was most of a pair's check (6,783 lookups in
     * SGLang's workflows, a step's key asked of each of a step's six kinds). */
#define TMPL_PROP_SLOTS 64
#define TMPL_PROPS_INDEXED (TMPL_PROP_SLOTS * 3 / 4) /* at most, three quarters full */
    uint8_t prop_slots[TMPL_PROP_SLOTS];
    bool indexed; /* also: no two props equal in upper case (tmpl_same_key) */
    bool any_required; /* a prop is required */
    const struct tmpl_keys *keys; /* a mapping value's keys (tmpl_make_keys), or NULL */
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
/* The mappings of one one-of (a step has six kinds) */
#define MAX_BRANCHES 16

/* The keys a mapping value of a definition names properties with: the props' names of its
 * mapping definitions (tmpl_defs_of_kind) as one table. A mapping's reader looks a key up
 * once, however many definitions it may be, and keeps the keys it read as bits of their
 * names' indexes (a lookup in each definition, and a set of every key read, were a third
 * of the check of SGLang's workflows). */
struct tmpl_keys {
    const struct tmpl_def *const *maps; /* the mapping definitions, in their order */
    size_t n_maps, n_names;
    /* props[name * n_maps + map]: that definition's prop of the name, or NULL; named[name]:
     * the first of them; has[name]: the definitions with one (bits of their indexes) */
    const struct tmpl_prop *const *props, *const *named;
    uint16_t has[TMPL_PROPS_INDEXED];
    uint8_t slots[TMPL_PROP_SLOTS]; /* by tmpl_prop_slot, as tmpl_def.prop_slots: name + 1 */
};

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
     * in every job of a matrix. Grown from 256 slots to 4,096 (a small run touches few
     * pages: each first touch is a page fault), then emptied when three quarters full. */
    struct checked {
        uint64_t h1, h2, set;
    } *checked;
    size_t n_checked, cap_checked;
    struct diag *diag; /* compiling only */
    bool failed;
    bool prebuilt; /* its definitions and context items are a tmpl_prebuilt's */
};

/* A bundled schema compiled at build time (tools/tmplembed.c writes the tables, from
 * tmplschema_compile's result): its definitions, sorted by name and linked, and its
 * context items. The array ends with a NULL name. */
struct tmpl_prebuilt {
    const char *name;
    struct tmpl_def *const *defs;
    size_t n_defs;
    const struct ctx_item *items;
    size_t n_items;
};
extern const struct tmpl_prebuilt tmpl_prebuilt[];

/* ---- tmplschema_read.c ---- */

/* An empty schema named `name`; NULL when out of memory. */
struct tmplschema *tmpl_schema_new(const char *name);

/* Indexes `d`'s props (tmpl_def.prop_slots), when they are few enough; sets
 * tmpl_def.any_required and each prop's `background`. */
void tmpl_index_props(struct tmpl_def *d);
/* Whether `k` is a well-known key of background steps (`only`: one only they have). */
bool tmpl_background_key(const char *k, size_t len, bool only);
/* `d`'s tmpl_def.keys, allocated (one block), when its mapping definitions are at most
 * MAX_BRANCHES, each indexed, and their props' names at most TMPL_PROPS_INDEXED, no two
 * equal in upper case; else (or out of memory) NULL. */
struct tmpl_keys *tmpl_make_keys(const struct tmpl_def *d);
/* The definition named `name`, or NULL. */
const struct tmpl_def *tmpl_find_def(const struct tmplschema *s, const char *name);
/* Equal in ASCII upper case (GitHub compares context names and constants so). */
bool tmpl_same_upper(const char *a, const char *b);

/* Whether s[0..len) is all ASCII. */
static inline bool tmpl_is_ascii(const char *s, size_t len)
{
    size_t i = 0;
    uint64_t w;

    for (; i + 8 <= len; i += 8) { /* a word at a time: string literals and run: lines are long */
        memcpy(&w, s + i, 8);
        if (w & 0x8080808080808080ull)
            return false;
    }
    for (; i < len; i++) {
        if ((unsigned char)s[i] >= 0x80)
            return false;
    }
    return true;
}

/* The home slot of a name: its length and first and last bytes tell a definition's
 * names apart nearly always. */
static inline size_t tmpl_prop_slot(const char *key, size_t len)
{
    if (!len)
        return 0;
    return (len * 31u ^ (unsigned char)key[0] * 7u ^ (unsigned char)key[len - 1]) & (TMPL_PROP_SLOTS - 1);
}

/* The index of name key[0..len) in `k`, or -1. Inline: a call's register saves were a
 * third of its cost (2,848 lookups in a SGLang render, nearly all found at once). */
static inline int tmpl_keys_find(const struct tmpl_keys *k, const char *key, size_t len)
{
    for (size_t i = tmpl_prop_slot(key, len); k->slots[i]; i = (i + 1) & (TMPL_PROP_SLOTS - 1)) {
        const struct tmpl_prop *p = k->named[k->slots[i] - 1];

        if (p->len == len && !memcmp(p->name, key, len))
            return k->slots[i] - 1;
    }
    return -1;
}

/* ---- tmplschema_contexts.c ---- */

/* The type of a value of definition `d` under a value of type `parent`: the parent's
 * contexts, joined with `d`'s own when it lists any. */
struct tmpl_type tmpl_child_type(struct tmpl_type parent, const struct tmpl_def *d);
/* getDefinitionsOfType: `d` itself, or the members of one-of `d` (one level), of
 * `kind`; at most `cap` into `out`. */
size_t tmpl_defs_of_kind(const struct tmpl_def *d, enum def_kind kind, const struct tmpl_def **out,
                         size_t cap);
/* The property `key` of mapping definition `d`, or NULL. */
const struct tmpl_prop *tmpl_find_prop(const struct tmpl_def *d, const char *key, size_t len);
/* The lists GitHub's parser is given for a set of context items (allowed-context.ts),
 * made once per set and kept by the schema. NULL when out of memory. */
const struct expr_names *tmpl_names_for(const struct tmplschema *s, uint64_t set);

/* ---- tmplschema_keys.c ---- */

/* The keys of one mapping, compared as GitHub does (upper-cased), by two hashes. A
 * streamed mapping outlives its pairs' trees: it keeps copies of its keys' texts. */
#define KEYSET_INLINE 16

struct keyset {
    struct keyslot {
        uint64_t h1, h2;
        const char *text; /* the key as written, or a copy in `texts` */
        size_t len;
        unsigned line;
        bool ascii; /* a list's keys only: a table compares hashes */
        bool literal; /* written as a literal expression (${{ 'k' }}) */
    } *slots, inline_slots[KEYSET_INLINE]; /* most mappings are small: no allocation */
    size_t n, cap; /* cap: a power of two, or 0 */
    bool copies;
    /* the copies' texts, one after another in chunks (newest first), freed with the set:
     * a malloc and a free a key were most of what a streamed `jobs` paid for its copies */
    struct keytexts {
        struct keytexts *prev;
        size_t len, cap;
        char text[];
    } *texts;
};

/* Empties `k` (freeing its copies); it can be used again. */
void tmpl_keyset_free(struct keyset *k);
/* The key added that is equal to `text` in upper case, or NULL. */
const struct keyslot *tmpl_keyset_find(const struct keyset *k, const char *text, size_t len);
/* Whether two keys are equal in upper case (as a keyset compares them). */
bool tmpl_same_key(const char *a, size_t alen, const char *b, size_t blen);
/* Adds key `text` written at `line`, a copy of it when `copies` or `copy` (a text that
 * goes before the set does); when one equal in upper case was there, false with its slot
 * in *seen. *oom set when out of memory. A zeroed keyset is empty. */
bool tmpl_keyset_add(struct keyset *k, const char *text, size_t len, unsigned line, bool copy,
                     const struct keyslot **seen, bool *oom);

/* tmplschema_proofs.c: whether `n` was proven valid under `t` in this item; records
 * that it was (and marks it proven). */
bool tmpl_proofs_has(const struct tmpl_proofs *p, const struct ynode *n, struct tmpl_type t);
void tmpl_proofs_add(struct tmpl_proofs *p, struct ynode *n, struct tmpl_type t);

/* A mapping's keys as a check read them without a problem, and the type each value was
 * read under: a mapping of the same keys under the same type reads its values under
 * the same types without a problem of its own (a matrix's configurations repeat their
 * job's mappings, with other values). */
struct tmpl_shape_pair {
    const char *text; /* the key's */
    size_t len;
    uint8_t style;
    struct tmpl_type vt;
};
#define TMPL_SHAPE_MAX 64 /* pairs; larger mappings are not kept */
/* The pairs kept for a mapping read at `map`'s position under `t` with as many pairs as
 * it has, or NULL; tmpl_shape_same says whether `map`'s keys are theirs. */
const struct tmpl_shape_pair *tmpl_proofs_shape(const struct tmpl_proofs *p, const struct ynode *map,
                                                struct tmpl_type t);
bool tmpl_shape_same(const struct tmpl_shape_pair *pairs, const struct ynode *map);
void tmpl_proofs_shape_add(struct tmpl_proofs *p, const struct ynode *map, struct tmpl_type t,
                           const struct tmpl_shape_pair *pairs);

#endif
