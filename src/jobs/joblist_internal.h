/* joblist's parts (joblist.c: the records from the rendering and their spool;
 * joblist_write.c: the listing and the totals). */
#ifndef FANOUT_JOBLIST_INTERNAL_H
#define FANOUT_JOBLIST_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "fanout/dialect.h"
#include "fanout/joblist.h"

/* A job as listed. */
struct rec {
    char *id, *name, *runs_on, *file; /* name, runs_on: NULL when the job has none */
    unsigned part, parts, line;       /* part: from 0 */
    bool parallel;
    size_t n_values; /* a matrix configuration's values by vector name, else 0 */
    char **names, **values;
};

/* The jobs per runner, for the totals: a hash table of runners (open addressing). */
struct tally {
    char *runs_on;
    size_t jobs;
};

struct joblist {
    struct diag *diag;
    FILE *spool;   /* the records kept, one after the other */
    long kept;     /* the spool's length before the group being rendered */
    bool failed;   /* out of memory or temporary space, reported */
    const struct dialect *dialect;
    const char *const *paths; /* of the group being rendered, by file number */
    size_t n_paths;
    struct rec *fan; /* the fan-out being read: its count is known at its end */
    size_t n_fan, cap_fan;
    struct tally *tally;
    size_t n_tally, cap_tally, no_runner, total;
};

void joblist_rec_clear(struct rec *r);

/* Reports that the list failed (once); -1. */
int joblist_fail(struct joblist *l);

/* The next record of the spool into *r: 1, 0 at its end, -1 on a read error. */
int joblist_get_rec(FILE *f, struct rec *r);

#endif
