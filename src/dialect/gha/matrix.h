/* matrix: a GitHub Actions `strategy.matrix` expanded into its configurations, exactly as
 * the runner's MatrixBuilder does (docs/gha.md; ../shared/notes §2.1): the cross product
 * of the vectors with the first varying slowest, `exclude` entries matched partially,
 * `include` entries split into a filter (keys that are vectors) and extras matched
 * against the product's original values, unmatched includes appended in order. Values
 * compare with the expression engine's loose `==`. */
#ifndef FANOUT_MATRIX_H
#define FANOUT_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "fanout/expr.h"

/* GitHub's limit on the jobs one matrix generates (after exclude and include). */
#define MATRIX_MAX_JOBS 256

/* The most combinations of the vectors before exclude: GitHub's MatrixBuilder counts
 * them in a checked 32-bit integer, so more fail there. */
#define MATRIX_MAX_PRODUCT 2147483647

/* fanout's bound on the work of applying exclude (value tests of exclude keys): a
 * product whose combinations are mostly excluded one by one, deep in the walk, stops
 * there (about 0.1 s). */
#define MATRIX_MAX_STEPS (1 << 24)

/* One configuration: `values` (an object: the job's `matrix` context) and `shown`, the
 * values its job name lists (`<job> (<v1>, <v2>)`: the product's leaves before include
 * extras; every value of an appended include), as the name shows them. */
struct matrix_row {
    struct expr_value *values;
    char **shown;
    size_t n_shown;
};

/* What was wrong and where: `key` names the vector, or "include"/"exclude" with `index`
 * the entry (-1: the key itself); key NULL: the matrix as a whole. */
struct matrix_error {
    char message[256];
    const char *key;
    long index;
};

struct matrix {
    struct matrix_row *rows;
    size_t n;
};

/* The longest display name: JobNameBuilder.Build cuts a longer one (counted in UTF-16
 * code units) to 97 and "...". */
#define MATRIX_NAME_MAX 100

/* `name` (UTF-8, len bytes, NUL-terminated room for MATRIX_NAME_MAX * 3 + 1 bytes at
 * least) cut as JobNameBuilder.Build cuts it; its new length. */
size_t matrix_name_cut(char *name, size_t len);

/* Expands `m` (an object). 0 with *out filled (free with matrix_free), or -1 with *err
 * set (a malformed matrix, too many jobs, out of memory). */
int matrix_expand(const struct expr_value *m, struct matrix *out, struct matrix_error *err);
void matrix_free(struct matrix *m);
/* Whether JobNameBuilder would list any of `values`' leaves after a job's name (it skips
 * null and empty strings): whether GitHub extends a literal name of a job whose matrix
 * is `values`. */
bool matrix_names_values(const struct expr_value *values);

#endif
