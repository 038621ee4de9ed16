/* literal.h: a text as a C string literal, for the tools that write C at build time
 * (embed.c, tmplembed.c). */
#ifndef FANOUT_TOOLS_LITERAL_H
#define FANOUT_TOOLS_LITERAL_H

#include <stdio.h>

/* s[0..len) as a C string literal on stdout. */
static inline void put_literal(const char *s, size_t len)
{
    putchar('"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c >= 0x20 && c < 0x7F && c != '?') /* '?': no trigraphs */
            putchar(c);
        else
            printf("\\%03o", c);
    }
    putchar('"');
}

#endif
