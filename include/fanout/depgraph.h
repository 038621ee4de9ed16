/* depgraph: the "waits for" graph of a build, to find depends_on cycles (Buildkite
 * cannot run them). Edges are recorded as the steps stream by (an external sort, so the
 * record costs no memory past its budget); the graph is only loaded and searched when a
 * cycle is possible at all. Without a reference to a later step (or the step itself, or
 * its own group, which depends_edges reports as an edge to itself) every path goes
 * strictly backwards through the input and no cycle can exist. */
#ifndef FANOUT_DEPGRAPH_H
#define FANOUT_DEPGRAPH_H

#include <stddef.h>

#include "fanout/keyindex.h"
#include "fanout/ynode.h"

/* Edges loaded at most for the search; past that the search is skipped (and said so). */
#define DEPGRAPH_MAX_EDGES 1000000u

struct depgraph;

struct depgraph *depgraph_create(size_t mem_budget);
void depgraph_destroy(struct depgraph *g);

/* `from` (a step key) cannot finish before `to` does; `pos` is the reference's. 0 or -1
 * on an I/O or memory failure. */
int depgraph_add(struct depgraph *g, const char *from, size_t flen, const char *to, size_t tlen,
                 struct ypos pos);

/* Called once per cycle found: its keys in order (the first again at the end, n >= 2)
 * and the position of the reference that closes it. */
typedef void (*depgraph_cycle_fn)(void *user, const char *const *keys, size_t n, struct ypos at);

/* Searches the graph. Returns the number of cycles reported (at most `max`), or -1 when
 * the graph is larger than DEPGRAPH_MAX_EDGES or memory ran out (nothing reported). */
long depgraph_cycles(struct depgraph *g, size_t max, depgraph_cycle_fn fn, void *user);

#endif
