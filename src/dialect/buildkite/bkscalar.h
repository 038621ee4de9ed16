/* bkscalar: the string Buildkite's agent makes of a scalar where it wants one (a matrix
 * value: buildkite/go-pipeline step_command_matrix.go and ordered/unmarshal.go at
 * fd45720551e8): gopkg.in/yaml.v3's reading of a plain scalar (resolve.go: the spellings of
 * true, false and null, integers as Go's strconv.ParseInt(s, 0, 64) reads them once `_` is
 * dropped, so `010` is 8 and `0x10` 16, floats, timestamps), then fmt.Sprint of the value
 * (a float in Go's shortest %v: `3.10` is "3.1", `1e6` "1e+06"). */
#ifndef FANOUT_BKSCALAR_H
#define FANOUT_BKSCALAR_H

#include <stdbool.h>
#include <stddef.h>

#include "fanout/ynode.h"

enum bk_scalar {
    BK_SCALAR_STRING,    /* a string, or a plain scalar yaml.v3 keeps as one */
    BK_SCALAR_BOOL,      /* "true" or "false" */
    BK_SCALAR_INT,       /* in decimal */
    BK_SCALAR_FLOAT,     /* in Go's %v */
    BK_SCALAR_NULL,      /* none of these the agent takes as a string: */
    BK_SCALAR_UINT,      /* past int64 (a uint64, which ordered.Unmarshal refuses) */
    BK_SCALAR_TIMESTAMP, /* a time.Time */
    BK_SCALAR_OTHER,     /* a mapping or a list */
};

#define BK_SCALAR_BUF 32

/* What the agent makes of `n`: *text (n's own, or `buf`'s) and *len, for the kinds up to
 * BK_SCALAR_FLOAT and for BK_SCALAR_UINT (a uint64 in decimal). */
enum bk_scalar bk_scalar_text(const struct ynode *n, char buf[BK_SCALAR_BUF], const char **text, size_t *len);

/* The integer the agent sends for `n` (a count: `parallelism`): an int as yaml.v3 reads it
 * (`010` is 8, `0x2` 2, `+4` 4), or a float that is one (`2.0`: go-pipeline passes the
 * field on as yaml.v3 read it, and JSON writes 2.0 as 2). */
bool bk_scalar_int(const struct ynode *n, long long *out);

#endif
