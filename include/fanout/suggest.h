/* suggest: "did you mean" for a mistyped word (a key, an option, a rule, a config key):
 * the closest candidate by edit distance (insertions, deletions, substitutions and
 * swaps of two neighbours), when it is close enough to be a typo. */
#ifndef FANOUT_SUGGEST_H
#define FANOUT_SUGGEST_H

#include <stddef.h>

/* The edit distance of a[0..la) and b[0..lb), or `limit` + 1 when it is over `limit`. */
unsigned suggest_distance(const char *a, size_t la, const char *b, size_t lb, unsigned limit);

/* The candidate (of a NULL-terminated list) closest to word[0..len) within `limit`
 * edits, the first of equals; NULL when none is. */
const char *suggest_closest(const char *word, size_t len, const char *const *candidates, unsigned limit);

/* What a message appends for a suggestion: ", did you mean 'near'?" into buf (at
 * least SUGGEST_PHRASE_MAX bytes), or "" when there is none (near NULL). */
#define SUGGEST_PHRASE_MAX 96
const char *suggest_phrase(const char *near, char *buf);

/* A typo's limit for a word of `len` bytes: 1 for short words, 2 from 5 bytes on. */
unsigned suggest_limit(size_t len);

#endif
