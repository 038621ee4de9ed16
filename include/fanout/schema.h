/* schema: a JSON Schema (draft-07) validator over ynode trees.
 * A schema (JSON or YAML) is compiled once; validation then walks instance nodes and
 * reports each violation with its instance path (a JSON pointer), what is wrong, the
 * schema keyword and the instance node (whose position fanout's nodes carry).
 * Supported: type enum const properties required additionalProperties patternProperties
 * propertyNames items additionalItems contains min/maxItems min/maxLength
 * min/maxProperties minimum maximum exclusiveMinimum exclusiveMaximum multipleOf
 * uniqueItems allOf anyOf oneOf not if/then/else dependencies definitions $ref ($id
 * based and JSON-pointer, within the schema and the bundled draft-07 metaschema) and
 * boolean schemas. `format` is an annotation; unknown keywords are ignored. Remote
 * references are not fetched. */
#ifndef FANOUT_SCHEMA_H
#define FANOUT_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "fanout/diag.h"
#include "fanout/ynode.h"

struct schema;       /* a compiled schema document */
struct schema_node;  /* one compiled (sub)schema */

/* Compiles the schema rooted at `doc`'s root; takes ownership of `doc`. `name` is used
 * in messages. Problems (an unresolvable $ref, a bad pattern, a keyword of the wrong
 * type) are reported to `d` as input errors and NULL is returned. */
struct schema *schema_compile(struct ynode_doc *doc, const char *name, struct diag *d);

/* schema_compile of a schema known to compile without a problem (a bundled one: the unit
 * tests compile each with schema_compile), each subschema compiled when first reached:
 * a run checks a few of its definitions. NULL when out of memory. */
struct schema *schema_compile_lazily(struct ynode_doc *doc, const char *name, struct diag *d);

/* Loads a JSON or YAML schema file, or text. */
struct schema *schema_load_file(const char *path, struct diag *d);
struct schema *schema_load_text(const char *name, const char *text, size_t len, struct diag *d);

void schema_free(struct schema *s);

const struct schema_node *schema_root(const struct schema *s);

/* The subschema that validates the value of property `key` of objects valid against
 * `sn` when `sn` is a plain object schema (only type/properties/patternProperties/
 * additionalProperties/required, behind any $refs); NULL when `sn` is not that simple.
 * Lets callers validate a document one top-level value at a time. *allowed is false
 * when the key is not allowed at all. */
const struct schema_node *schema_property(const struct schema_node *sn, const char *key,
                                          size_t len, bool *allowed, bool *simple);

/* The items schema of an array schema reached through $refs (NULL when not a single
 * items schema with no other array keyword). */
const struct schema_node *schema_items(const struct schema_node *sn);

/* For validating an object one member at a time (a workflow's jobs): the subschema member
 * `key` must satisfy (its property, else the one patternProperties entry matching it,
 * else additionalProperties; NULL for none). *streamable is false when `sn` needs the
 * whole object (anything but type/properties/patternProperties/additionalProperties/
 * required/min-maxProperties, or two schemas for one member); *allowed false when no
 * member of that name may be there. */
const struct schema_node *schema_member(const struct schema_node *sn, const char *key, size_t len,
                                        bool *allowed, bool *streamable);

/* minProperties and maxProperties of `sn` (-1: not set), for a caller streaming members. */
void schema_property_counts(const struct schema_node *sn, long long *min, long long *max);

/* Required property names of a simple object schema, NULL-terminated (or NULL). */
const char *const *schema_required(const struct schema_node *sn);

struct schema_error {
    const char *path;    /* instance path, a JSON pointer ("" for the instance itself) */
    enum rule_id rule;   /* the schema keyword that failed */
    const char *message;
    const struct ynode *at; /* the instance node (for a property: its key node) */
    unsigned depth;      /* path segments */
};

typedef void (*schema_error_fn)(void *user, const struct schema_error *e);

/* Validates `instance` against `sn`; `path` is the instance's own path (e.g. "/steps/3").
 * Calls `fn` for each violation, most specific first, and returns how many there were. */
size_t schema_validate(const struct schema_node *sn, struct ynode *instance, const char *path,
                       schema_error_fn fn, void *user);

/* Just valid or not. */
bool schema_is_valid(const struct schema_node *sn, struct ynode *instance);

/* Quiet checks that remember the shapes of the instances that passed, so that one of a
 * kept shape only has its differing scalars checked (src/schema/schema_memo.c): a
 * rendering's jobs differ from each other in a few scalars. One memo serves one thread. */
struct schema_memo;
struct schema_memo *schema_memo_create(void);
void schema_memo_destroy(struct schema_memo *m);
/* schema_is_valid(sn, instance), from the memo when it can. */
bool schema_memo_is_valid(struct schema_memo *m, const struct schema_node *sn, struct ynode *instance);

#endif
