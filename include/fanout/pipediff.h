/* pipediff: what changed between two renderings, step by step. Steps are matched by
 * key (by label when they have none); shards of one step are taken together, so a
 * reviewer reads "parallelism 1 -> 4 (shards 0-3 added)" instead of four new steps, and
 * their jobs are compared one by one, a change several jobs made each their own way read
 * as one line ("shards 1-3: --shard-id=0 (was --shard-id=1..3)"). Reports steps added
 * (what they run), removed, renamed (a removed and an added step alike enough), changed
 * (which fields, old and new values), re-sharded and moved, each at the file:line of the
 * step with its label, as text, JSON (docs/diff.schema.json), GitHub annotations or
 * markdown (docs/reference.md). */
#ifndef FANOUT_PIPEDIFF_H
#define FANOUT_PIPEDIFF_H

#include <stdio.h>

#include "fanout/diag.h"
#include "fanout/render.h"

enum pd_format { PD_TEXT, PD_JSON, PD_GITHUB, PD_MARKDOWN, PD_SARIF };

/* Which of HEAD's rule findings diff reports (--findings): those BASE does not have, all,
 * or none. */
enum pd_findings { PD_FINDINGS_NEW, PD_FINDINGS_ALL, PD_FINDINGS_NONE };

/* How diff reports. */
struct pd_opts {
    enum pd_format format;
    const char *const *ignore_fields; /* fields left out of the comparison (--ignore-field) */
    size_t n_ignore_fields;
    bool exit_zero;                   /* "different" exits 0 (errors keep 2) */
    /* --durations: job id -> minutes, for the runners' minutes; given twice, BASE's then
     * HEAD's */
    const char *durations[2];
    size_t n_durations;
    enum pd_findings findings;
};

/* Renders `base` and `head` (a file, a directory or "-"; sources or renderings alike,
 * since rendering a rendering gives it back) with `base_opts` and `head_opts` (alike,
 * but for what is compared: test-area mirror parallelism), and writes their differences
 * to `out`. Returns 0 when they are the same, 1 when they differ, 2 on an error. The
 * sides render at once, HEAD in a second thread: head_opts->shards (a scan writes into
 * it) is not base_opts->shards (shardflags_clone). */
int pipediff_run(const char *base, const char *head, const struct render_opts *base_opts,
                 const struct render_opts *head_opts, const struct pd_opts *pd, FILE *out,
                 struct diag *d);

#endif
