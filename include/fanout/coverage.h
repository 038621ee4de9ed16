/* coverage: the rule `shard-coverage`. For every job of a rendering that fans out
 * (Buildkite parallelism, test-area shards and mirrors, GitHub matrix configurations)
 * and every job that carries a runner's shard flags (shardflags.h), proves from the
 * rendered commands that the jobs run each shard of the runner exactly once: every job
 * carries both flags, all agree on the count, the count is the number of jobs, and the
 * indices are the runner's 0..N-1 (or 1..N) once each. A matrix with other vectors
 * beside the one the index comes from is checked per combination of the others.
 * A value only known at run time is the platform's shard variable (consistent by
 * construction) or unverifiable (a note, never guessed). docs/shards.md. */
#ifndef FANOUT_COVERAGE_H
#define FANOUT_COVERAGE_H

#include "fanout/dialect.h"
#include "fanout/diag.h"
#include "fanout/shardflags.h"
#include "fanout/ynode.h"

struct coverage;

/* Reports to `d` at each fanned-out job's position (`files` by file number); NULL when
 * out of memory. */
struct coverage *coverage_create(struct shardflags *flags, const struct dialect *dl,
                                 struct diag *d, const char *const *files);
void coverage_destroy(struct coverage *c);

/* The rendering's jobs one at a time, in order, as the dialect's each_job describes
 * them (the lint rule shard-coverage hands them over). A fan-out is checked when its
 * last job has been seen: at the next job that does not continue it (a later item's
 * job too), or coverage_finish. 0, or -1 when out of memory or a pattern failed
 * (reported). */
int coverage_job(struct coverage *c, const struct dialect_job *job);
/* The jobs given so far were an item's, whose tree goes: what was found in its texts is
 * forgotten (a matrix job's configurations share texts, scanned once an item). */
void coverage_item_end(struct coverage *c);
int coverage_finish(struct coverage *c);

#endif
