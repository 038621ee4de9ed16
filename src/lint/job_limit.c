/* job_limit: the rule job-limit: more jobs than the platform accepts in one upload or
 * in one build (the dialect's max_jobs_per_document and max_jobs_total). Each document
 * is uploaded on its own, so the first limit is a document's. */
#include "lint_rule.h"

static void document(void *self, const struct lint_run *run, struct ypos at)
{
    const struct dialect *dl = run->setup.dialect;
    unsigned limit = dl->max_jobs_per_document;

    (void)self;
    if (limit && run->document_jobs > limit)
        diag_at(run->setup.diag, DIAG_WARNING, DIAG_FINDING, run->setup.files, at, RULE_JOB_LIMIT,
                "this document renders %zu jobs; %s accepts at most %u "
                "per pipeline upload", run->document_jobs, dl->platform, limit);
}

static int finish(void *self, const struct lint_run *run)
{
    const struct dialect *dl = run->setup.dialect;

    (void)self;
    if (dl->max_jobs_total && run->jobs > dl->max_jobs_total)
        diag_report(run->setup.diag, DIAG_WARNING, DIAG_FINDING, "fanout", 0, 0, RULE_JOB_LIMIT,
                    "renders %zu jobs; %s allows at most %u per build", run->jobs, dl->platform,
                    dl->max_jobs_total);
    return 0;
}

const struct lint_rule lint_job_limit = {
    .rule = RULE_JOB_LIMIT,
    .document = document,
    .finish = finish,
};
