/* validate: checks a stream of pipeline items against a compiled schema and reports
 * each violation as `file:line:col: error: <instance path>: <what is wrong> [keyword]`.
 * When the schema's root is a plain object schema whose items' container (`steps` with
 * one items schema, or `jobs` whose members' schemas come from their names) can be
 * checked member by member (Buildkite, rendered, test-area and workflow schemas), each
 * top-level value and each item is checked as it arrives, so memory stays bounded; any
 * other schema gets each document assembled and checked whole. */
#ifndef FANOUT_VALIDATE_H
#define FANOUT_VALIDATE_H

#include "fanout/diag.h"
#include "fanout/schema.h"
#include "fanout/stream.h"

struct validator;

/* Violations are reported with class `cls` (a finding, normally). `shape`: where the
 * documents keep their items (NULL: Buildkite's steps list). */
struct validator *validator_create(const struct schema *s, const struct stream_shape *shape,
                                   struct diag *d, const char *const *files, enum diag_class cls);
void validator_destroy(struct validator *v);

/* Feeds one item; for STREAM_STEP the document's root is a list of steps. */
void validator_item(struct validator *v, const struct stream_item *item);

unsigned validator_errors(const struct validator *v);
/* `rendering` checks the rendering of each item `input` has just been fed, skipping what
 * `input` proved of it, when both read a template schema (tmplvalidate_prove); a no-op
 * for JSON Schema. `input` must be destroyed after `rendering`. */
void validator_prove(struct validator *input, struct validator *rendering);

/* A bundled JSON Schema (schemas/<name>.json: "buildkite-rendered", "testarea",
 * "github-workflow", "json-schema-draft-07"), compiled once per process and kept. NULL
 * after reporting. */
const struct schema *validate_bundled_schema(const char *name, struct diag *d);

/* A schema by file path, or by the name of a bundled one. A schema read from a file is
 * also put in *owned, for the caller to free. NULL after reporting. */
const struct schema *validate_load_schema(const char *spec, struct diag *d, struct schema **owned);

/* A validator for the schema `spec` names: a file, or a bundled schema of either language
 * (JSON Schema, or GitHub's template schema "github-workflow-v1", tmplvalidate.h); only a
 * bundled one when `bundled` (a dialect's schema: a file of that name in the current
 * directory must not stand in for it). Problems of the schema go to `d`, violations to
 * `out`; a schema read from a file is put in *owned for the caller to free after the
 * validator. NULL after reporting. */
struct validator *validator_open(const char *spec, bool bundled, const struct stream_shape *shape,
                                 struct diag *d, struct diag *out, const char *const *files,
                                 enum diag_class cls, struct schema **owned);

struct dialect;

/* `fanout validate`: checks every document of `paths` ("-" = stdin), read in `dialect`
 * (NULL: detected from the first), against `schema` (NULL: the dialect's input schema).
 * Returns the exit code: 0 valid, 1 violations, 2 unreadable input or schema. */
int validate_run(const char *const *paths, size_t n, const char *schema,
                 const struct dialect *dialect, struct diag *d);

/* Memory for the findings a validate_along holds: past it they are dropped, and
 * validate_along_finish reads the inputs again instead. */
#define VALIDATE_ALONG_BUDGET (1u << 20)

/* validate_run of files in `dialect` against its input schema, fed the items of another
 * read of them (render's pass 1, through render_opts.observe) instead of a read of its
 * own: their findings are held, within VALIDATE_ALONG_BUDGET, until that read's own
 * findings have been said. NULL when out of memory. */
struct validate_along;
struct validate_along *validate_along_open(const struct dialect *dialect, const char *const *paths,
                                           struct diag *d);
void validate_along_item(void *user, const struct stream_item *item); /* a dialect_observe_fn */
/* Reports the held findings into `d` as validate_run would have (or runs it, when they
 * were dropped or the read did not finish) and frees `a`; returns validate_run's exit
 * code. With `report` false, only frees `a` (the read found an input error). */
int validate_along_finish(struct validate_along *a, const char *const *paths, size_t n, bool report,
                          struct diag *d);

#endif
