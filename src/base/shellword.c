#include "fanout/shellword.h"

#include <stdbool.h>
#include <string.h>

static bool safe(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("_./-+:@%=,", c));
}

size_t shell_word(const char *word, size_t len, char *out)
{
    bool plain = len > 0;
    size_t o = 0;

    for (size_t i = 0; plain && i < len; i++)
        plain = safe(word[i]);
    if (plain) {
        memcpy(out, word, len);
        return len;
    }
    out[o++] = '\'';
    for (size_t i = 0; i < len; i++) {
        if (word[i] == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            out[o++] = word[i];
        }
    }
    out[o++] = '\'';
    return o;
}
