#include "fanout/strhash.h"

uint64_t strhash_fnv1a(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull; /* the FNV offset basis */

    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}
