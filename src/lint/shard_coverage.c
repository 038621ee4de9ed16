/* shard_coverage: the rule shard-coverage over the rendering's jobs, when the run names
 * the runners whose flags it proves; the proof is src/shards/coverage.c's. */
#include "fanout/coverage.h"

#include "lint_rule.h"

static int begin(const struct lint_run *run, void **self)
{
    const struct lint_setup *s = &run->setup;

    if (!s->shards)
        return 1;
    return (*self = coverage_create(s->shards, s->dialect, s->diag, s->files)) ? 0 : -1;
}

static int job(void *self, const struct lint_run *run, const struct dialect_job *j)
{
    (void)run;
    return coverage_job(self, j);
}

static void item_end(void *self)
{
    coverage_item_end(self);
}

static int finish(void *self, const struct lint_run *run)
{
    (void)run;
    return coverage_finish(self);
}

static void end(void *self)
{
    coverage_destroy(self);
}

const struct lint_rule lint_shard_coverage = {
    .rule = RULE_SHARD_COVERAGE,
    .begin = begin,
    .job = job,
    .item_end = item_end,
    .finish = finish,
    .end = end,
};
