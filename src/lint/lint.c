/* lint: the runner of the rules over a rendering's jobs (include/fanout/lint.h). */
#include "fanout/lint.h"

#include <stdlib.h>

#include "lint_rule.h"

/* In the order their findings come at one moment (the end of the jobs: the last
 * fan-out's coverage, then the build's job count). */
static const struct lint_rule *const rules[] = {&lint_shard_coverage, &lint_job_limit};
#define N_RULES (sizeof(rules) / sizeof(rules[0]))

struct lint {
    struct lint_run run;
    bool on[N_RULES];
    void *self[N_RULES];
    bool describe_jobs; /* a rule that is on takes each job */
};

static void out_of_memory(struct diag *d)
{
    diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_INTERNAL, "out of memory");
}

struct lint *lint_begin(const struct lint_setup *setup)
{
    struct lint *l = calloc(1, sizeof(*l));

    if (!l) {
        out_of_memory(setup->diag);
        return NULL;
    }
    l->run.setup = *setup;
    if (setup->builds && !(l->run.build_jobs = calloc(setup->n_files + 1, sizeof(size_t)))) {
        free(l);
        out_of_memory(setup->diag);
        return NULL;
    }
    for (size_t i = 0; i < N_RULES; i++) {
        int rc = rules[i]->begin ? rules[i]->begin(&l->run, &l->self[i]) : 0;

        if (rc < 0) {
            lint_end(l);
            out_of_memory(setup->diag);
            return NULL;
        }
        l->on[i] = rc == 0;
        l->describe_jobs |= l->on[i] && rules[i]->job;
    }
    return l;
}

static int each_job(void *user, const struct dialect_job *job)
{
    struct lint *l = user;

    for (size_t i = 0; i < N_RULES; i++)
        if (l->on[i] && rules[i]->job && rules[i]->job(l->self[i], &l->run, job) != 0)
            return -1;
    return 0;
}

int lint_item(struct lint *l, unsigned file, const struct ynode *items)
{
    long n = l->run.setup.dialect->each_job(items, l->describe_jobs ? each_job : NULL, l);

    for (size_t i = 0; i < N_RULES; i++)
        if (l->on[i] && rules[i]->item_end)
            rules[i]->item_end(l->self[i]);
    if (n < 0)
        return -1;
    l->run.document_jobs += (size_t)n;
    l->run.jobs += (size_t)n;
    if (l->run.build_jobs && file < l->run.setup.n_files && l->run.setup.builds[file] <= l->run.setup.n_files)
        l->run.build_jobs[l->run.setup.builds[file]] += (size_t)n;
    return 0;
}

void lint_document(struct lint *l, struct ypos at)
{
    for (size_t i = 0; i < N_RULES; i++)
        if (l->on[i] && rules[i]->document)
            rules[i]->document(l->self[i], &l->run, at);
    l->run.document_jobs = 0;
}

int lint_finish(struct lint *l)
{
    for (size_t i = 0; i < N_RULES; i++)
        if (l->on[i] && rules[i]->finish && rules[i]->finish(l->self[i], &l->run) != 0)
            return -1;
    return 0;
}

void lint_end(struct lint *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < N_RULES; i++)
        if (l->self[i])
            rules[i]->end(l->self[i]);
    free(l->run.build_jobs);
    free(l);
}
