/* job_limit: the rule job-limit: more jobs than the platform accepts in one upload or
 * in one build (the dialect's max_jobs_per_document and max_jobs_total, Buildkite's
 * default quotas), or than the config's `limits` (an organisation's own). Each document
 * is uploaded on its own, so the first limit is a document's; the second is each build's
 * (a directory's pipelines are builds of their own: render's builds). */
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

/* `jobs` of one build (`first`: the name of its first file; NULL when the run is one
 * build) against the config's limit, else the dialect's. */
static void build_check(const struct lint_run *run, size_t jobs, const char *first)
{
    const struct dialect *dl = run->setup.dialect;
    unsigned own = run->setup.limits ? run->setup.limits->jobs_per_build : 0;
    unsigned limit = own ? own : dl->max_jobs_total;

    if (!limit || jobs <= limit)
        return;
    if (own)
        diag_report(run->setup.diag, DIAG_WARNING, DIAG_FINDING, "fanout", 0, 0, RULE_JOB_LIMIT,
                    "renders %zu jobs%s%s; the config's limits.jobs_per_build is %u", jobs,
                    first ? " in the build of " : "", first ? first : "", own);
    else
        diag_report(run->setup.diag, DIAG_WARNING, DIAG_FINDING, "fanout", 0, 0, RULE_JOB_LIMIT,
                    "renders %zu jobs%s%s; %s allows at most %u per build", jobs,
                    first ? " in the build of " : "", first ? first : "", dl->platform, limit);
}

/* Each build is counted on its own (keys and limits are a build's: render's builds). */
static int finish(void *self, const struct lint_run *run)
{
    (void)self;
    if (!run->build_jobs) {
        build_check(run, run->jobs, NULL);
        return 0;
    }
    for (size_t b = 0; b <= run->setup.n_files; b++) {
        size_t first = 0;

        while (first < run->setup.n_files && run->setup.builds[first] != b)
            first++;
        if (first < run->setup.n_files)
            build_check(run, run->build_jobs[b], run->setup.files[first]);
    }
    return 0;
}

const struct lint_rule lint_job_limit = {
    .rule = RULE_JOB_LIMIT,
    .document = document,
    .finish = finish,
};
