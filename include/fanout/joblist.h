/* joblist: `fanout jobs`, one line per job a rendering holds, from the rendering itself.
 * Each input group is rendered by render_run with the list as its sink, so a job is what
 * render makes of it (matrix, parallelism, mirrors, calls expanded) and every finding is
 * render's; the jobs are told by the dialect's each_job, their name and where they run
 * by its diff table (labels, prompts, machine). The lines go to a temporary file as they
 * come: memory holds one fan-out at a time (its jobs' count is only known at its end)
 * and the runners' totals, never the whole list. docs/reference.md, `fanout jobs`. */
#ifndef FANOUT_JOBLIST_H
#define FANOUT_JOBLIST_H

#include <stddef.h>
#include <stdio.h>

#include "fanout/diag.h"
#include "fanout/render.h"

enum joblist_format { JOBLIST_TEXT, JOBLIST_JSON, JOBLIST_MARKDOWN, JOBLIST_TSV };

struct joblist;

/* NULL when out of memory or temporary space (reported to `d`). */
struct joblist *joblist_create(struct diag *d);
void joblist_destroy(struct joblist *l);

/* Renders `paths` (inputs of one dialect, or opts->dialect's) as render would and keeps
 * their jobs when render would have written the rendering (exit code 0). Render's exit
 * code. */
int joblist_render(struct joblist *l, const char *const *paths, size_t n, const struct render_opts *opts,
                   struct diag *d);

/* Every job kept, in order, then (but for TSV) the jobs per runner and their total.
 * 0, or -1 when the temporary file failed (reported). */
int joblist_write(struct joblist *l, enum joblist_format format, FILE *out);

#endif
