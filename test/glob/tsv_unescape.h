/* The escapes of the test tables (the .tsv files in test/glob and test/conditional) and of
 * the glob differential's cases: \\, \t and \n are a backslash, a tab and a newline.
 * Shared by the unit tests that read the tables and the differential's driver. */
#ifndef FANOUT_TEST_GLOB_TSV_UNESCAPE_H
#define FANOUT_TEST_GLOB_TSV_UNESCAPE_H

#include <stddef.h>

/* Undoes the escapes in place; the new length. */
static inline size_t tsv_unescape(char *s, size_t n)
{
    size_t o = 0;

    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            i++;
            s[o++] = s[i] == 't' ? '\t' : s[i] == 'n' ? '\n' : s[i];
        } else {
            s[o++] = s[i];
        }
    }
    return o;
}

#endif
