/* lint: the rules that run over a rendering's finished jobs (the jobs the dialect expanded
 * an item into, as its each_job describes them), one file a rule under src/lint/ behind
 * one small interface (lint_rule.h), the way actionlint has a rule a file: job-limit and
 * shard-coverage. Render hands the runner each expanded item, the end of each document
 * and the end of its first pass; the rules report as they go. The rules of a Buildkite
 * step as written run in its dialect, before expansion (src/dialect/buildkite/steplint.h
 * says why). */
#ifndef FANOUT_LINT_H
#define FANOUT_LINT_H

#include "fanout/dialect.h"
#include "fanout/diag.h"
#include "fanout/shardflags.h"
#include "fanout/ynode.h"

struct lint;

/* What the rules are run for. */
struct lint_setup {
    const struct dialect *dialect; /* the rendering's: its words for jobs, its limits */
    struct diag *diag;
    const char *const *files;      /* names by file number, for the findings' positions */
    struct shardflags *shards;     /* the runners shard-coverage proves; NULL: not run */
    const struct dialect_limits *limits; /* the config's job limits; NULL: the dialect's */
    const unsigned *builds;        /* each file's build (render's, at most n_files); NULL: one */
    size_t n_files;
};

/* Begins every rule the setup asks for. NULL when out of memory (reported). */
struct lint *lint_begin(const struct lint_setup *setup);

/* The jobs of one expanded item of file `file` (`items`: what the dialect's each_job
 * walks), in order. 0, or -1 when a rule failed (reported). */
int lint_item(struct lint *l, unsigned file, const struct ynode *items);

/* The document (one upload of the platform) that started at `at` has ended. */
void lint_document(struct lint *l, struct ypos at);

/* Every job has been seen. 0, or -1 when a rule failed (reported). */
int lint_finish(struct lint *l);

/* Frees the rules' state (l may be NULL). */
void lint_end(struct lint *l);

#endif
