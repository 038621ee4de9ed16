/* tmplvalidate: checks a stream of workflow items against a template schema
 * (tmplschema.h: GitHub's workflow-v1.0.json) as GitHub's workflow parser reads the
 * file, and reports each problem as `file:line:col: error: <path>: <what> [rule]`.
 * The top-level mapping and the items' mapping (`jobs`) are read a pair at a time, so
 * memory stays bounded by the largest job. */
#ifndef FANOUT_TMPLVALIDATE_H
#define FANOUT_TMPLVALIDATE_H

#include "fanout/diag.h"
#include "fanout/stream.h"
#include "fanout/tmplschema.h"

struct tmplvalidate;

/* The definition the documents of bundled template schema `name` are read as
 * ("github-workflow-v1": workflow-root-strict), or NULL when `name` is no such schema. */
const char *tmplvalidate_root(const char *name);

/* Violations are reported with class `cls` (a finding, normally); expression syntax and
 * case-insensitive duplicate keys are input errors (`expression`, `duplicate-key`), as
 * the dialect reports them. `shape`: where the documents keep their items. NULL when out
 * of memory. */
struct tmplvalidate *tmplvalidate_create(const struct tmplschema *s, const char *root,
                                         const struct stream_shape *shape, struct diag *d,
                                         const char *const *files, enum diag_class cls);
void tmplvalidate_destroy(struct tmplvalidate *v);
void tmplvalidate_item(struct tmplvalidate *v, const struct stream_item *item);
unsigned tmplvalidate_errors(const struct tmplvalidate *v);
/* `rendering` checks the rendering of each item `input` has just checked, and skips
 * what `input` proved (tmplschema.h, proofs); `input` is destroyed after `rendering`.
 * -1 when out of memory (then each reads all). */
int tmplvalidate_prove(struct tmplvalidate *input, struct tmplvalidate *rendering);

#endif
