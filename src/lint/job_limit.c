/* job_limit: the rule job-limit: more jobs than the platform accepts in one upload or
 * in one build (the dialect's max_jobs_per_document and max_jobs_total, Buildkite's
 * default quotas), or than the config's `limits` (an organisation's own). Each document
 * is uploaded on its own, so the first limit is a document's. */
#include "lint_rule.h"

static void document(void *self, const struct lint_run *run, struct ypos at)
{
    const struct dialect *dl = run->setup.dialect;
    unsigned own = run->setup.limits ? run->setup.limits->jobs_per_upload : 0;

    (void)self;
    if (own && run->document_jobs > own)
        diag_at(run->setup.diag, DIAG_WARNING, DIAG_FINDING, run->setup.files, at, RULE_JOB_LIMIT,
                "this document renders %zu jobs; the config's limits.jobs_per_upload is %u",
                run->document_jobs, own);
    else if (!own && dl->max_jobs_per_document && run->document_jobs > dl->max_jobs_per_document)
        diag_at(run->setup.diag, DIAG_WARNING, DIAG_FINDING, run->setup.files, at, RULE_JOB_LIMIT,
                "this document renders %zu jobs; %s accepts at most %u "
                "per pipeline upload", run->document_jobs, dl->platform, dl->max_jobs_per_document);
}

static int finish(void *self, const struct lint_run *run)
{
    const struct dialect *dl = run->setup.dialect;
    unsigned own = run->setup.limits ? run->setup.limits->jobs_per_build : 0;

    (void)self;
    if (own && run->jobs > own)
        diag_report(run->setup.diag, DIAG_WARNING, DIAG_FINDING, "fanout", 0, 0, RULE_JOB_LIMIT,
                    "renders %zu jobs; the config's limits.jobs_per_build is %u", run->jobs, own);
    else if (!own && dl->max_jobs_total && run->jobs > dl->max_jobs_total)
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
