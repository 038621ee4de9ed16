/* conditional: Buildkite's conditional expression language (a step's `if:`), decided
 * over what a run is told of its build (--build KEY=VALUE) as buildkite/conditional
 * (af63d27; the reference implementation of the server's `if`) parses, type-checks and
 * evaluates it; a value not given is unknown, and so is whatever depends on it. */
#ifndef FANOUT_BK_CONDITIONAL_H
#define FANOUT_BK_CONDITIONAL_H

#include <stddef.h>

enum bkc_verdict {
    BKC_FALSE,   /* false whatever the values not given */
    BKC_TRUE,    /* true whatever the values not given */
    BKC_UNKNOWN, /* it depends on a value not given (or on a regex fanout does not decide) */
    BKC_INVALID, /* Buildkite refuses it (a parse, type or evaluation error) */
};

/* The build's value of `key` (`branch`, `pull_request.id`, `env.NAME`, `pipeline.slug`:
 * a variable without its `build.` root), or NULL when not given. An empty value is null. */
typedef const char *(*bkc_lookup_fn)(void *user, const char *key);

/* What `text` (`len` bytes) evaluates to; for BKC_INVALID, why in `why` (`size`
 * bytes, may be 0). */
enum bkc_verdict bkc_decide(const char *text, size_t len, bkc_lookup_fn lookup, void *user, char *why,
                            size_t size);

#endif
