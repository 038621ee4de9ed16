#include "fanout/text.h"

#include <string.h>

size_t text_append(char *buf, size_t cap, size_t len, const char *s)
{
    size_t n = strlen(s), room = cap - len;

    if (len >= cap)
        return len;
    if (n >= room) {
        memcpy(buf + len, s, room - 1);
        buf[cap - 1] = '\0';
        return cap;
    }
    memcpy(buf + len, s, n);
    buf[len + n] = '\0';
    return len + n;
}

size_t text_decimal(char *out, uint64_t u)
{
    char tmp[TEXT_DECIMAL_MAX];
    size_t n = 0, k = 0;

    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n)
        out[k++] = tmp[--n];
    out[k] = '\0';
    return k;
}

size_t text_utf8_cut(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    return max;
}

size_t text_shown(char *out, const char *s, size_t len, size_t max)
{
    size_t keep = text_utf8_cut(s, len, max);

    memcpy(out, s, keep);
    if (keep == len)
        return len;
    memcpy(out + keep, "...", 3);
    return keep + 3;
}
