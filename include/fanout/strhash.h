/* strhash: the string hash shared by shardmap, the duplicate-key check in stream and
 * the key index (its first of two hashes). */
#ifndef FANOUT_STRHASH_H
#define FANOUT_STRHASH_H

#include <stddef.h>
#include <stdint.h>

/* 64-bit FNV-1a of `len` bytes. */
uint64_t strhash_fnv1a(const char *s, size_t len);

#endif
