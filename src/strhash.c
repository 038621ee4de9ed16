#include "fanout/strhash.h"

uint64_t strhash_fnv1a(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull; /* the FNV offset basis */

    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

void strhash_pair(const char *key, size_t len, uint64_t *h1, uint64_t *h2)
{
    uint64_t b = 0x243F6A8885A308D3ull ^ len;

    for (size_t i = 0; i < len; i++) {
        b = (b ^ (unsigned char)key[i]) * 0x9E3779B97F4A7C15ull;
        b ^= b >> 29;
    }
    b ^= b >> 32;
    b *= 0xD6E8FEB86659FD93ull;
    b ^= b >> 32;
    *h1 = strhash_fnv1a(key, len);
    *h2 = b;
}
