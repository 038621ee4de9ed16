/* shardplan: `fanout shards assign` and `fanout shards plan`. Reads the collected tests
 * (node ids one per line, or `pytest --collect-only -q` output) and their durations
 * (pytest-split's .test_durations JSON, its legacy list, or a TSV), assigns them with
 * assign.h's algorithms, proves the assignment (pairwise disjoint, union = collected),
 * predicts each shard's time, answers "how many shards fit a budget", and writes the
 * report (a table with bars, JSON, or Markdown with a mermaid chart) or an LPT plan in
 * the shape of SGLang's partition plans. docs/shards.md. */
#ifndef FANOUT_SHARDPLAN_H
#define FANOUT_SHARDPLAN_H

#include <stdbool.h>
#include <stdio.h>

#include "fanout/diag.h"

enum shardplan_format { SHARDPLAN_TEXT, SHARDPLAN_JSON, SHARDPLAN_MARKDOWN };

/* The most shards a command takes (-n) or plans for a budget. */
#define SHARDPLAN_MAX_SHARDS 100000u

struct assign_opts {
    const char *tests;     /* the collected node ids; NULL: the durations' tests, in order */
    const char *durations; /* NULL: none */
    const char *suite;     /* a TSV with a `suite` column: only this suite's rows */
    const char *prefix;    /* prepended to every collected node id (rootdir differences) */
    int algo;              /* enum assign_algo; -1: pytest-shard@0.1.2 */
    unsigned count;        /* shards; 0: the budget decides (or 1) */
    double overhead;       /* seconds each shard spends before its tests */
    double budget;         /* seconds a shard may take (overhead included); 0: none */
    bool color;            /* bars in colour */
};

/* The options are the caller's to check: tests or durations given, a suite only with
 * durations, and a count or a budget (ci-infra-contiguous and `plan` with a budget
 * choose their own count). */

/* `shards assign`: the report. Returns the exit code (0; 1 when the budget cannot be met
 * or the assignment does not cover the tests; 2 on input errors, reported). */
int shardplan_assign(const struct assign_opts *o, enum shardplan_format format, FILE *out,
                     struct diag *d);

/* `shards plan`: a balanced LPT plan as JSON ({"partition_count", "partitions": [{"part",
 * "items", "estimated_time"}]}), usable as a `fromJson` matrix. Same exit codes. */
int shardplan_plan(const struct assign_opts *o, FILE *out, struct diag *d);

#endif
