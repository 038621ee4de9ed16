/* bkmatrix: a Buildkite command step's `matrix` (docs/buildkite.md, "Build matrix"):
 * read and checked against Buildkite's rules and limits, its combinations in a fixed
 * order (the cross product, first dimension varying slowest, then the combinations the
 * adjustments add, in their order), and the matrix tokens `{{matrix}}` and
 * `{{matrix.<dimension>}}` found, checked and filled. A rendered matrix job keeps a
 * matrix of its one combination, which bkm_row reads back. */
#ifndef FANOUT_BKMATRIX_H
#define FANOUT_BKMATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "fanout/ynode.h"

/* Buildkite's limits per matrix step (https://buildkite.com/docs/platform/limits). The
 * jobs of one step are a quota, 50 by default, which organisations raise (elastic runs
 * 54-72 jobs a step): more is a job-limit warning, and BKM_MAX_COMBINATIONS is fanout's
 * own bound on the work (25^6 would be 244 million). */
#define BKM_MAX_DIMENSIONS 6
#define BKM_MAX_ELEMENTS 25
#define BKM_MAX_ELEMENT_BYTES 128
#define BKM_MAX_ADJUSTMENTS 12
#define BKM_DEFAULT_JOBS 50
#define BKM_MAX_COMBINATIONS 10000

/* What is wrong and where: `at` (NULL when out of memory), and for a token inside a
 * scalar the byte offset of the token in its text (else 0). */
struct bkm_error {
    const struct ynode *at;
    size_t offset;
    char msg[320];
};

struct bkm_matrix;

/* One combination: its value of each dimension (in bkm_dimension order) and what an
 * adjustment set on it (NULL: nothing). `added`: an adjustment added it. */
struct bkm_combination {
    const struct ynode **values;
    const struct ynode *skip, *soft_fail;
    bool added, skipped;
};

/* Reads the `matrix` value of a command step. NULL after an error (described in *err). */
struct bkm_matrix *bkm_read(const struct ynode *matrix, struct bkm_error *err);
void bkm_destroy(struct bkm_matrix *m);

/* Its dimensions; a single-dimension matrix (`matrix: [...]`, `setup: [...]`) has one,
 * named "matrix" and referred to as `{{matrix}}`. */
size_t bkm_dimensions(const struct bkm_matrix *m);
bool bkm_single(const struct bkm_matrix *m);

/* Every combination, skipped ones included, and how many are not skipped (the jobs). */
size_t bkm_combinations(const struct bkm_matrix *m);
const struct bkm_combination *bkm_combination(const struct bkm_matrix *m, size_t i);
size_t bkm_jobs(const struct bkm_matrix *m);

/* Checks the matrix tokens of a command step: in the fields Buildkite fills (label,
 * command(s), env values, agents, plugins, secrets, cache, checkout, fields it does not
 * know) each names a dimension of `m`; in any other field, or a mapping key, a token is
 * an error, since Buildkite leaves it as written. 0, or -1 with *err set. */
int bkm_check_tokens(const struct bkm_matrix *m, const struct ynode *step, struct bkm_error *err);

/* Whether `field` of a command step is one Buildkite fills tokens in. */
bool bkm_fills_field(const char *field, size_t len);

/* `n` with the tokens filled with combination `i`'s values: `n` itself when it has
 * none, else a copy in `doc` that shares what did not change (mapping keys are kept).
 * NULL when out of memory. */
struct ynode *bkm_fill(const struct bkm_matrix *m, size_t i, struct ynode_doc *doc, struct ynode *n);

/* The matrix a rendered job of combination `i` keeps: `[v]` for a single dimension,
 * else `{setup: {dim: [v], ...}}`. NULL when out of memory. */
struct ynode *bkm_job_matrix(const struct bkm_matrix *m, size_t i, struct ynode_doc *doc, struct ypos pos);

/* The combination of a matrix of exactly one combination and no adjustments (what a
 * rendered matrix job keeps), as (dimension name, value) pairs into `pairs`: their
 * number, or 0 when `matrix` is anything else. The pairs point into `matrix` (and at a
 * static "matrix" name for a single dimension). */
size_t bkm_row(const struct ynode *matrix, struct ynode_pair pairs[BKM_MAX_DIMENSIONS]);

/* The values of a row as a label shows them ("linux, amd64"), into buf; their length
 * (at most cap - 1: truncated). */
size_t bkm_row_text(const struct ynode_pair *pairs, size_t n, char *buf, size_t cap);

/* The row of combination `i`, as bkm_row gives it; the number of pairs. */
size_t bkm_combination_row(const struct bkm_matrix *m, size_t i, struct ynode_pair pairs[BKM_MAX_DIMENSIONS]);

#endif
