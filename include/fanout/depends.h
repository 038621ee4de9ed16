/* depends: the `depends_on` of steps in all its forms (a key, a list of keys, a list of
 * {step: key, allow_failure: bool}, a single {step: key}), read and rewritten so that a
 * dependency on a step expanded into N shards becomes a dependency on all N shards. */
#ifndef FANOUT_DEPENDS_H
#define FANOUT_DEPENDS_H

#include <stdbool.h>

#include "fanout/diag.h"
#include "fanout/ynode.h"

/* Called for each key a depends_on names. Return non-zero to stop. */
typedef int (*depends_visit_fn)(void *user, const char *key, size_t len, struct ypos pos);

/* How many shards `key` was expanded into; 0 leaves the reference as it is. Asked once
 * per depends_on entry, in the same order depends_each visits them. */
typedef unsigned (*depends_shards_fn)(void *user, const char *key, size_t len);

/* Visits the depends_on keys of every step in `steps` (group children included).
 * Malformed depends_on values are reported to `d` as input errors; returns -1 then. */
int depends_each(const struct ynode *steps, struct diag *d, const char *const *files,
                 depends_visit_fn visit, void *user);

/* Writes every single `{step: key}` depends_on as a one-item list, the form Buildkite's
 * schema takes (the others are kept). 0 or -1 (OOM). */
int depends_normalize(struct ynode_doc *doc, struct ynode *steps);

/* Rewrites the depends_on of every step in `steps` (group children included). 0 or -1 (OOM). */
int depends_rewrite(struct ynode_doc *doc, struct ynode *steps, depends_shards_fn shards_of,
                    void *user);

/* An edge of the "waits for" graph: the step keyed `from` cannot finish before the step
 * keyed `to` has (pos: where `to` is named). Return non-zero to stop. */
typedef int (*depends_edge_fn)(void *user, const char *from, size_t flen, const char *to,
                               size_t tlen, struct ypos pos);

/* The edges of `steps` as written (before expansion: a sharded step is one node): each
 * depends_on entry, from the step's key (a keyless step in a group speaks for its group;
 * other keyless steps cannot be waited for and have none); a keyed child also waits for
 * its group's dependencies, and the group for the child. *local_cycle is set when a step
 * depends on itself or a child on its own group: the cycles that need no reference to a
 * later step. 0, or what `fn` returned. */
int depends_edges(const struct ynode *steps, depends_edge_fn fn, void *user, bool *local_cycle);

#endif
