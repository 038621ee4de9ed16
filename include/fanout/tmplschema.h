/* tmplschema: GitHub's template-schema language, the one workflow-v1.0.json is written
 * in, and a reader that validates YAML trees against it as GitHub's workflow parser does.
 *
 * Implemented from reading @actions/workflow-parser 0.3.61, actions/languageservices
 * commit b71ac284fc6a7382c22ecbf3e0009a6ae216823b: workflow-parser/src/templates/
 * schema/ (template-schema.ts, definition-info.ts and the definition types),
 * templates/template-reader.ts (TemplateReader: readValue, the two mapping readers,
 * validate, parseScalar), templates/allowed-context.ts, templates/tokens/
 * expression-token.ts and workflows/yaml-object-reader.ts; no code is copied.
 *
 * A schema is a set of named definitions: null, boolean, number, string (`constant`,
 * `ignore-case`, `require-non-empty`), sequence (`item-type`), mapping (`properties`,
 * each optionally `required`, and `loose-key-type`/`loose-value-type`), one-of (and
 * `allowed-values`, a one-of of string constants). A definition may list `context`:
 * the named-values and functions (`hashFiles(1,255)`) its expressions may use, joined
 * with those of the definitions above it. Where a definition allows any context, a
 * whole `${{ }}` value stands for a value of any type.
 *
 * Types are small values (a definition and its contexts), so that a caller (the GitHub
 * dialect) can walk a workflow and ask, key by key, what GitHub allows there. */
#ifndef FANOUT_TMPLSCHEMA_H
#define FANOUT_TMPLSCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fanout/diag.h"
#include "fanout/ynode.h"

struct tmplschema;
struct tmpl_def;

/* Where a value sits: its definition and the contexts allowed there (DefinitionInfo). */
struct tmpl_type {
    const struct tmpl_def *def;
    uint64_t contexts; /* a set over the schema's context items */
};

/* Compiles the schema rooted at `root` (not copied: it must outlive the schema).
 * Problems are reported to `d` as `schema` input errors at the offending node; NULL. */
struct tmplschema *tmplschema_compile(const struct ynode *root, const char *name, struct diag *d);
void tmplschema_free(struct tmplschema *s);

/* True when `root` is written in this language (a mapping of `version` and
 * `definitions`) rather than JSON Schema. */
bool tmplschema_is_template(const struct ynode *root);

/* A bundled schema in this language (schemas/<name>.json: "github-workflow-v1"),
 * compiled at build time (a problem fails the build), made on first use and kept for
 * the process (a thread); NULL when it is no template schema (or, after reporting, out
 * of memory). */
const struct tmplschema *tmplschema_bundled(const char *name, struct diag *d);

/* The type of definition `name` at the top (no contexts from above); false when the
 * schema has no such definition. */
bool tmplschema_type(const struct tmplschema *s, const char *name, struct tmpl_type *out);

/* The type of the value under `key` of a mapping of type `parent` (a property of one of
 * its mapping definitions, else its loose value type), with the contexts joined as the
 * reader joins them. False when no mapping or no such key is allowed there. */
bool tmpl_type_child(struct tmpl_type parent, const char *key, size_t len, struct tmpl_type *out);

/* The type of an item of a sequence of type `parent`; false when no sequence is allowed. */
bool tmpl_type_item(struct tmpl_type parent, struct tmpl_type *out);

/* The type at `path` below `from`: mapping keys, NULL for an item of a sequence; e.g.
 * {"jobs", "build", "steps", NULL, "shell"} from workflow-root-strict. */
bool tmpl_type_at(struct tmpl_type from, const char *const *path, size_t n, struct tmpl_type *out);

/* Whether an expression there may use named-value `name` (`matrix`) or call function
 * `name` (`hashFiles`), case-insensitively. */
bool tmpl_type_allows(const struct tmplschema *s, struct tmpl_type t, const char *name);

/* ---- validation ---- */

enum tmpl_problem {
    TMPL_KEY,        /* a key not allowed there */
    TMPL_REQUIRED,   /* a required key missing, or not enough keys to pick a one-of's mapping */
    TMPL_VALUE,      /* a value of a type or content not allowed there */
    TMPL_CONTEXT,    /* an expression where none may be, or naming a context or function
                        GitHub has but not there */
    TMPL_EXPRESSION, /* an expression that does not parse (or names what GitHub has nowhere) */
    TMPL_DUPLICATE,  /* a key twice, compared case-insensitively */
    /* not an error: a plain number where only a string is taken, which GitHub makes a
     * string of with other text than written (`python-version: 3.10` is "3.1") */
    TMPL_NUMBER_TEXT,
};

struct tmpl_error {
    enum tmpl_problem problem;
    const struct ynode *at; /* the node (a key for TMPL_KEY and TMPL_DUPLICATE) */
    size_t offset;          /* byte offset into `at`'s text, or SIZE_MAX: the node itself */
    const char *message;
};

typedef void (*tmpl_error_fn)(void *user, const struct tmpl_error *e);

/* Validates `n` as a value of type `t`, whose path (a JSON pointer, "" for the root)
 * messages begin with; calls `fn` for each problem. Returns how many. */
size_t tmpl_validate(const struct tmplschema *s, struct tmpl_type t, const struct ynode *n,
                     const char *path, tmpl_error_fn fn, void *user);

/* A mapping validated a pair at a time (a workflow's top level and its `jobs`, which
 * arrive one item at a time): begun with the mapping's type and node (for the position
 * of its messages; its pairs are not read), fed pairs, ended once. */
struct tmpl_mapping;

/* NULL when out of memory; reports "a mapping was not expected" when `t` has none.
 * `path` (its messages' JSON pointer) is read until the mapping ends. */
struct tmpl_mapping *tmpl_mapping_begin(const struct tmplschema *s, struct tmpl_type t,
                                        const struct ynode *at, const char *path, tmpl_error_fn fn,
                                        void *user);
/* One pair; `value` NULL: only the key is checked, and the type its value must have
 * is put in *value_type (false: no value is to be read, the key was refused). */
bool tmpl_mapping_pair(struct tmpl_mapping *m, const struct ynode *key, const struct ynode *value,
                       struct tmpl_type *value_type);
/* The checks that need every key (required keys); frees `m`. Returns the problems found
 * since begin. */
size_t tmpl_mapping_end(struct tmpl_mapping *m);
/* Frees `m` without those checks. */
void tmpl_mapping_drop(struct tmpl_mapping *m);

/* ---- proofs ----
 * What the check of an input item proved, for the check of the item's rendering (a
 * workflow's jobs after expansion, render's pass 1): a value the first check read under
 * a type without a problem in its tree is not read again under that type while its tree
 * is as it was (ynode.proven: changes clear it, copies keep it). Reading a value reports
 * problems only, and what it reports follows from the value's tree and its type alone
 * (its definition and contexts; the path is only words of a message), so the second
 * check reports what it would have read; only what expansion changed or made is read
 * (a substituted scalar, the mappings and lists holding it, a job's new name, a called
 * workflow's inlined jobs), and what a matrix job's configurations share of it
 * (ynode.h's YNODE_SHARED) once. The proofs are of one item: cleared before the next. */
struct tmpl_proofs;
struct tmpl_proofs *tmpl_proofs_create(void);
void tmpl_proofs_free(struct tmpl_proofs *p);
void tmpl_proofs_clear(struct tmpl_proofs *p);
/* The values `m` reads are recorded in `p` when found valid (`use` false, the input's
 * check, which marks them proven), or skipped when `p` proves them (`use` true). */
void tmpl_mapping_prove(struct tmpl_mapping *m, struct tmpl_proofs *p, bool use);

#endif
