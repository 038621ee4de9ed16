/* strhash: the string hashes shared by shardmap, the duplicate-key check in stream, the
 * key index and the dependency graph. */
#ifndef FANOUT_STRHASH_H
#define FANOUT_STRHASH_H

#include <stddef.h>
#include <stdint.h>

/* 64-bit FNV-1a of `len` bytes. */
uint64_t strhash_fnv1a(const char *s, size_t len);

/* FNV-1a and a multiply-xorshift hash: two unrelated 64-bit hashes of a key, which make
 * a false match of two keys about as likely as 1 in 2^100 for a million keys. */
void strhash_pair(const char *key, size_t len, uint64_t *h1, uint64_t *h2);

#endif
