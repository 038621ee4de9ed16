/* strhash: the string hashes shared by shardmap, strset, the duplicate-key check in
 * stream, the key index and the dependency graph; and a digest of byte streams (source,
 * diff). */
#ifndef FANOUT_STRHASH_H
#define FANOUT_STRHASH_H

#include <stddef.h>
#include <stdint.h>

/* 64-bit FNV-1a of `len` bytes. */
uint64_t strhash_fnv1a(const char *s, size_t len);

/* A 64-bit hash of `len` bytes for a table's lookups, read a word at a time: keys of
 * one length never share it (each word's mix is a bijection of the state). Its values
 * are for this process's tables only, never stored or ordered by. */
uint64_t strhash_words(const char *s, size_t len);

/* The last n (fewer than 8) bytes of s as one word, zero-filled, in little-endian order
 * (as a whole word is read here): a word-at-a-time hash's last step (strhash_words, the
 * template check's keys). */
static inline uint64_t strhash_tail_word(const char *s, size_t n)
{
    uint64_t w = 0;

    for (size_t k = 0; k < n; k++)
        w |= (uint64_t)(unsigned char)s[k] << 8 * k;
    return w;
}

/* FNV-1a and a multiply-xorshift hash: two unrelated 64-bit hashes of a key, which make
 * a false match of two keys about as likely as 1 in 2^100 for a million keys. */
void strhash_pair(const char *key, size_t len, uint64_t *h1, uint64_t *h2);

/* A 64-bit digest of a byte stream that does not depend on how the stream is cut into
 * pieces: bytes are gathered into 8-byte words, each mixed in whole; the last partial
 * word and the length are mixed in by strhash_stream_digest. Not cryptographic: it tells
 * whether a file or a rendering changed, against accidents, not adversaries. */
struct strhash_stream {
    uint64_t h, len;
    unsigned char pending[8]; /* the bytes of a word not yet complete */
};

void strhash_stream_init(struct strhash_stream *s);
void strhash_stream_add(struct strhash_stream *s, const void *data, size_t n);
uint64_t strhash_stream_digest(const struct strhash_stream *s);

#endif
