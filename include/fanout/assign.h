/* assign: which shard runs which test, decided exactly as each test runner decides
 * (docs/shards.md; the sources are cited there). Two kinds of algorithm:
 * - per-test ones decide from the node id alone (pytest-shard's hashes, and nothing
 *   else), so a list of any length streams through assign_shard_of;
 * - whole-list ones (durations, sorting, contiguous chunks) need every test at once:
 *   assign_run. */
#ifndef FANOUT_ASSIGN_H
#define FANOUT_ASSIGN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum assign_algo {
    ASSIGN_PYTEST_SHARD_012, /* "pytest-shard@0.1.2": SHA-256 of the UTF-8 node id, read
                                little-endian, mod N (the version vLLM pins) */
    ASSIGN_PYTEST_SHARD_011, /* "pytest-shard@0.1.1": MD5, read big-endian, mod N */
    ASSIGN_SPLIT_LEAST,      /* "pytest-split@least_duration": LPT, ties by short name */
    ASSIGN_SPLIT_CHUNKS,     /* "pytest-split@duration_based_chunks": contiguous chunks */
    ASSIGN_LPT_LEGACY,       /* "sglang-lpt@legacy": test/srt/run_suite.py, ties by index */
    ASSIGN_LPT_REGISTRY,     /* "sglang-lpt@registry": test/run_suite.py, ties by path */
    ASSIGN_CONTIGUOUS,       /* "ci-infra-contiguous": vLLM's runtime sharding
                                (ci-infra buildkite/pipeline_generator/runtime_shard.py) */
    ASSIGN_ROUND_ROBIN,      /* "round-robin": sorted by bytes, i mod N (bktec's fallback) */
    ASSIGN_N_ALGOS
};

struct assign_algo_info {
    const char *name;        /* as --algo names it */
    const char *runner;      /* what it reproduces, for help and docs */
    bool per_test;           /* decided from the id alone: assign_shard_of */
    bool uses_durations;     /* the assignment depends on durations */
    unsigned first_index;    /* how the runner numbers shards: 0, or 1 (pytest-split) */
};

/* NULL for a value out of range. */
const struct assign_algo_info *assign_algo_info(enum assign_algo a);

/* By name; -1 when there is none. */
int assign_algo_find(const char *name);

/* The shard of a test that runs nowhere: sglang-lpt@legacy asked for more shards than
 * it has tests gives every shard nothing. */
#define ASSIGN_NOWHERE UINT_MAX

/* For per_test algorithms: the 0-based shard of a node id (its UTF-8 bytes) among
 * `shards` (>= 1). ASSIGN_NOWHERE for another algorithm, for 0 shards, or when OpenSSL
 * cannot digest (MD5 in FIPS mode). */
unsigned assign_shard_of(enum assign_algo a, const char *id, size_t len, unsigned shards);

/* The same, and 128 bits of the id's digest in `key`: a key that tells ids apart, for
 * free. */
unsigned assign_shard_keyed(enum assign_algo a, const char *id, size_t len, unsigned shards,
                            uint64_t key[2]);

/* The most shards assign_run takes (a pytest-shard count below 2^29 lets a digest be
 * reduced with one division). */
#define ASSIGN_MAX_SHARDS ((1u << 29) - 1)

/* One collected test. The caller fills id/len, seconds (>= 0; a test without a known
 * duration gets what the caller decided, e.g. the mean) and order (its collection index);
 * assign_run fills shard and seq. */
struct assign_test {
    const char *id;
    size_t len;
    double seconds;
    size_t order;
    unsigned shard; /* 0-based; ASSIGN_NOWHERE: runs in no shard (seq is then 0) */
    size_t seq;     /* its place in its shard's run order (0 first) */
};

/* Assigns `tests` (in collection order; the array may be reordered) to `shards` shards,
 * as the algorithm's runner does, and says the order each shard runs its tests in
 * (collection order for pytest-shard, pytest-split and ci-infra-contiguous, assignment
 * order for SGLang's LPT, sorted order for round-robin). Other algorithms ignore the
 * budget.
 *
 * ci-infra-contiguous chooses the count itself: as few contiguous shards as fit in
 * `budget` seconds (its MAX_SHARD_SECONDS; 0 or less: its default, 1080), but at most
 * `shards` (its MAX_NUMBER_OF_SHARDS; 0: its default, 6), evened out by bisection, and
 * possibly fewer. Its units are files: a run of consecutive tests whose ids agree before
 * the first "::" (an id without "::" is a file of one test), timed at the sum of its
 * tests' seconds. A unit over the budget with more than one test is cut as the runner
 * cuts a file it has per-test times for: a test function's run of cases (ids equal
 * before the first '[') stays together unless together they are over the budget. The
 * runner's other inputs are the caller's: one pytest command's tests at a time, a file's
 * unknown time, and what it does with no timings at all (equal file counts in at most
 * 4 shards).
 *
 * Returns the number of shards (>= 1; for ci-infra-contiguous, 1 with no tests), or -1
 * when out of memory, when `shards` is 0 or over ASSIGN_MAX_SHARDS for another
 * algorithm, or when OpenSSL cannot digest. */
long assign_run(enum assign_algo a, struct assign_test *tests, size_t n, unsigned shards,
                double budget);

/* The same in two steps, for trying many counts on one list (a budget search): what the
 * assignment does not need the count for (the sort, the digests) is done once by
 * assign_prepare, then each assign_prep_run fills shard and seq for one count. The tests
 * stay the caller's and must not move in between. assign_prepare returns NULL when out
 * of memory, when OpenSSL cannot digest, and for ci-infra-contiguous (it chooses its own
 * count: assign_run). */
struct assign_prep;
struct assign_prep *assign_prepare(enum assign_algo a, struct assign_test *tests, size_t n);
long assign_prep_run(struct assign_prep *p, unsigned shards);
void assign_prep_free(struct assign_prep *p);

#endif
