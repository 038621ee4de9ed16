/* The oracle of quotedtext, for its unit test and its fuzz harness: libfyaml 0.7.12's own
 * text of every single-quoted scalar of an input, compared with what quotedtext works out
 * from the bytes between its quotes, except where libfyaml is known wrong: a body with a ''
 * escape or a CR (quotedtext.h), whose cases test/conformance/quotedtext/cases.txt holds. */
#ifndef FANOUT_TEST_QUOTEDTEXT_ORACLE_H
#define FANOUT_TEST_QUOTEDTEXT_ORACLE_H

#include <stddef.h>

struct quotedtext_tally {
    size_t compared, declined, differ;
    size_t not_compared; /* '' or a CR in the body: libfyaml's text is not compared */
    char first[1024]; /* the first difference, for the message */
};

/* Compares quotedtext with libfyaml's text for every single-quoted scalar of
 * yaml[0..len) (valid UTF-8 without NUL), parsed as stream.c parses; adds to *t. Also
 * checks that quotedtext writes the same text in place. An input libfyaml refuses is
 * compared up to its error. */
void quotedtext_compare(const char *yaml, size_t len, struct quotedtext_tally *t);

#endif
