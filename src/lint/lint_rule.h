/* lint_rule: what a rule over the rendering's jobs implements (lint.c runs the rules, in
 * the order of its list; one file a rule). A rule sees the run, each job as the
 * dialect's each_job describes it, the end of each document and the end of the jobs;
 * it reports its findings itself, under its own rule. */
#ifndef FANOUT_LINT_RULE_H
#define FANOUT_LINT_RULE_H

#include "fanout/lint.h"

/* The run as the rules see it: the setup, and the jobs counted so far. */
struct lint_run {
    struct lint_setup setup;
    size_t document_jobs; /* of the document being read */
    size_t jobs;          /* of every document */
    size_t *build_jobs;   /* setup.builds: of each build, by its number; else NULL */
};

struct lint_rule {
    enum rule_id rule; /* what its findings are named (rules.def) */
    /* Starts the rule: *self is its state (NULL: it keeps none). 0; 1 when the run does
     * not ask for it (it is not run); -1 when out of memory. NULL: it always runs, with
     * no state. */
    int (*begin)(const struct lint_run *run, void **self);
    /* Each job, in order. 0, or -1 after reporting. NULL: the counts are all it needs
     * (then no job is described to it, which costs nothing when no rule asks). */
    int (*job)(void *self, const struct lint_run *run, const struct dialect_job *job);
    /* The item's jobs have all been seen, and its tree goes: what the rule keeps of its
     * nodes must go too. NULL: it keeps nothing of them. */
    void (*item_end)(void *self);
    /* The document that started at `at` has ended (run->document_jobs: its jobs). */
    void (*document)(void *self, const struct lint_run *run, struct ypos at);
    /* Every job has been seen. 0, or -1 after reporting. */
    int (*finish)(void *self, const struct lint_run *run);
    /* Frees `self`. */
    void (*end)(void *self);
};

extern const struct lint_rule lint_shard_coverage, lint_job_limit;

#endif
