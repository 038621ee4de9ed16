#include "fanout/strhash.h"

#include <string.h>

#define FNV_BASIS 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

uint64_t strhash_fnv1a(const char *s, size_t len)
{
    uint64_t h = FNV_BASIS;

    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * FNV_PRIME;
    return h;
}

void strhash_pair(const char *key, size_t len, uint64_t *h1, uint64_t *h2)
{
    uint64_t a = FNV_BASIS, b = 0x243F6A8885A308D3ull ^ len;

    /* both hashes in one pass over the key (strhash_fnv1a's, then this one, were two
     * loops: a third more instructions a byte) */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)key[i];

        a = (a ^ c) * FNV_PRIME;
        b = (b ^ c) * 0x9E3779B97F4A7C15ull;
        b ^= b >> 29;
    }
    b ^= b >> 32;
    b *= 0xD6E8FEB86659FD93ull;
    b ^= b >> 32;
    *h1 = a;
    *h2 = b;
}

static uint64_t mix_word(uint64_t h, uint64_t w)
{
    h = (h ^ w) * FNV_PRIME;
    return h ^ (h >> 31);
}

/* A word at a time (the last zero-filled, the length mixed in first): a byte at a time,
 * FNV-1a was some 6 instructions a byte of every key a table looked up. */
uint64_t strhash_words(const char *s, size_t len)
{
    uint64_t h = FNV_BASIS ^ len, w;
    size_t i = 0;

    for (; i + 8 <= len; i += 8) {
        memcpy(&w, s + i, 8);
        h = mix_word(h, w);
    }
    if (i < len)
        h = mix_word(h, strhash_tail_word(s + i, len - i));
    h *= 0x9E3779B97F4A7C15ull; /* the low bits, a table's index, from all of them */
    return h ^ (h >> 32);
}

void strhash_stream_init(struct strhash_stream *s)
{
    s->h = FNV_BASIS;
    s->len = 0;
}

/* Words are read in the machine's byte order, whole or gathered from pieces alike: the
 * digest is only ever compared with one made by the same process. */
void strhash_stream_add(struct strhash_stream *s, const void *data, size_t n)
{
    const unsigned char *p = data;
    size_t i = 0;
    uint64_t w, h;
    size_t from;

    while (i < n && s->len % 8) {
        s->pending[s->len++ % 8] = p[i++];
        if (s->len % 8 == 0) {
            memcpy(&w, s->pending, 8);
            s->h = mix_word(s->h, w);
        }
    }
    if (i == n)
        return;
    /* In locals, two words a turn: the bytes may alias *s, so s->h and s->len were
     * stored and loaded again for every word (an input's digest was 1.5 instructions a
     * byte). s->len is a multiple of 8 here. */
    h = s->h;
    from = i;
    for (; i + 16 <= n; i += 16) {
        uint64_t w2;

        memcpy(&w, p + i, 8);
        memcpy(&w2, p + i + 8, 8);
        h = mix_word(mix_word(h, w), w2);
    }
    if (i + 8 <= n) {
        memcpy(&w, p + i, 8);
        h = mix_word(h, w);
        i += 8;
    }
    s->h = h;
    memcpy(s->pending, p + i, n - i);
    s->len += n - from;
}

uint64_t strhash_stream_digest(const struct strhash_stream *s)
{
    uint64_t w = 0;

    memcpy(&w, s->pending, s->len % 8);
    return mix_word(mix_word(s->h, w), s->len);
}
