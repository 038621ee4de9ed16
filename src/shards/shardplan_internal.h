/* shardplan_internal: what the files of `shards assign` and `plan` share: the tests and
 * durations as read (shardplan_read.c), an assignment's result (shardplan.c), the budget
 * search (shardplan_budget.c) and the reports (shardplan_report.c). */
#ifndef FANOUT_SHARDPLAN_INTERNAL_H
#define FANOUT_SHARDPLAN_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fanout/assign.h"
#include "fanout/diag.h"
#include "fanout/shardplan.h"

#define MAX_ID (64u << 10) /* a node id longer than this is not one */
/* The duration-based algorithms hold the list in memory: at most this many tests (or
 * durations) and bytes of ids. */
#define MAX_TESTS 4000000u
#define MAX_TEXT (512u << 20)
#define UNSTABLE_SHOWN 3

/* ---- the inputs, read (shardplan_read.c) ---- */

/* durations: node id -> seconds, by two 64-bit hashes of the id */
struct dslot {
    uint64_t h1, h2;
    double seconds;
    bool used;
};

struct durations {
    struct dslot *slots;
    size_t cap, n;
};

/* the collected tests, in memory */
struct tests {
    struct assign_test *t;
    uint64_t (*keys)[2]; /* each id's two hashes (strhash_pair), taken once: its duration's
                            slot and its proof record */
    size_t n, cap;
    char *text; /* the ids, NUL-separated */
    size_t len, text_cap;
};

struct inputs {
    struct durations dur;
    struct tests ts;
    bool have_durations;
};

/* An input error at `line` of `file` (0: none); returns -1. */
int sp_input_error(struct diag *d, const char *file, unsigned line, const char *msg);
/* A list past what is held in memory; returns -1. */
int sp_too_many(struct diag *d, const char *file, unsigned line);
/* The slot of the id whose two hashes are `key`: used when it has a duration. */
struct dslot *sp_dur_find(const struct durations *m, const uint64_t key[2]);

typedef int (*test_fn)(void *user, const char *id, size_t len, unsigned line);
/* Each node id of the collected tests at `path` ("-": stdin), as read. */
int sp_each_test(const char *path, test_fn fn, void *user, struct diag *d);
/* The durations, and the tests when they are wanted in memory (the --tests list, else
 * the durations' own tests in their order). 0, or -1 after an error (reported). */
int sp_read_inputs(const struct assign_opts *o, struct inputs *in, bool tests_in_memory, struct diag *d);
void sp_inputs_free(struct inputs *in);

/* ---- an assignment and what is said about it (shardplan.c) ---- */

struct list_rec { /* one test of a shard's list, for the JSON report */
    uint32_t shard;
    uint64_t seq, off;
    uint32_t len;
};

struct shard_sum {
    size_t tests, untimed;
    double seconds; /* of the tests with a known duration */
};

struct result {
    enum assign_algo algo;
    unsigned count;
    struct shard_sum *shards;
    size_t collected, covered, overlaps, duplicates;
    bool timed;       /* durations were given */
    double mean_fill; /* what a test without a duration counts */
    double overhead, total, longest;
    struct xsort *lists; /* list_rec, when the report lists the tests */
    const char *text;    /* their ids, when the tests are in memory (list_rec.off is in it) */
    FILE *spool;         /* else their ids, written as they come */
    uint64_t spool_len;
    char *window;        /* a piece of the spool read back: a shard's ids come in file order */
    uint64_t window_off;
    size_t window_len;
    struct xsort *proof;
    pcre2_code *unstable_re;
    pcre2_match_data *unstable_md;
    size_t unstable;
    char *unstable_shown[UNSTABLE_SHOWN];
    /* --budget */
    double budget;
    double least;         /* ceil(total / (budget - overhead)): no fewer shards fit */
    unsigned searched_to; /* the largest count the search tried (0: no search) */
    long need, need_lpt;  /* shards that fit (0: none up to searched_to) */
    const char *too_long; /* a test longer than the budget on its own */
};

/* Shard `s`'s predicted time (its overhead, and the mean for a test without a
 * duration), and the largest of them. */
double sp_shard_time(const struct result *r, unsigned s);
double sp_makespan(const struct result *r);

/* ---- the budget (shardplan_budget.c) ---- */

/* Why the budget is not met, into `buf`; false when it is (or there is none). */
bool sp_budget_unmet(const struct result *r, char *buf, size_t cap);
/* The budget's answers (r->least, r->need, r->need_lpt) and the count to report at:
 * -n, else the fewest that fit, else the bound (at most one shard per test). `p` is the
 * chosen algorithm prepared on the tests (NULL for ci-infra-contiguous). */
int sp_answer_budget(const struct assign_opts *o, struct result *r, struct tests *ts, struct assign_prep *p,
                     unsigned *count);

/* ---- the reports (shardplan_report.c) ---- */

int sp_write_json(struct result *r, FILE *out);
void sp_write_text(const struct result *r, FILE *out, bool color);
void sp_write_markdown(const struct result *r, FILE *out);
/* `shards plan`'s JSON. -1 when the tests cannot be read back. */
int sp_write_plan(struct result *r, FILE *out);
/* The budget's finding, after the report. */
void sp_report_budget(const struct result *r, const struct assign_opts *o, struct diag *d);

#endif
