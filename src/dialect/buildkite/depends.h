/* depends: the `depends_on` of steps in all its forms (a key, a list of keys, a list of
 * {step: key, allow_failure: bool}, a single {step: key}), read and rewritten so that a
 * dependency on a step expanded into N shards becomes a dependency on all N shards. */
#ifndef FANOUT_DEPENDS_H
#define FANOUT_DEPENDS_H

#include <stdbool.h>

#include "fanout/dialect.h"

/* Visits the depends_on keys of every step in `steps` (group children included).
 * Malformed depends_on values are reported to `d` as input errors; returns -1 then. */
int depends_each(const struct ynode *steps, struct diag *d, const char *const *files,
                 dialect_visit_fn visit, void *user);

/* Writes every single `{step: key}` depends_on as a one-item list, the form Buildkite's
 * schema takes (the others are kept). 0 or -1 (OOM). */
int depends_normalize(struct ynode_doc *doc, struct ynode *steps);

/* Rewrites the depends_on of every step in `steps` (group children included). 0 or -1 (OOM). */
int depends_rewrite(struct ynode_doc *doc, struct ynode *steps, dialect_shards_fn shards_of,
                    void *user);

/* The edges of `steps` as written (before expansion: a sharded step is one node): each
 * depends_on entry, from the step's key (a keyless step in a group speaks for its group;
 * other keyless steps cannot be waited for and have none); a keyed child also waits for
 * its group's dependencies, and the group for the child. *local_cycle is set when a step
 * depends on itself or a child on its own group: the cycles that need no reference to a
 * later step. 0, or what `fn` returned. */
int depends_edges(const struct ynode *steps, dialect_edge_fn fn, void *user, bool *local_cycle);

#endif
