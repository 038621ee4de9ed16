/* The oracle of quotedtext, for its unit test and its fuzz harness: libfyaml 0.7.12's own
 * text of every quoted scalar of an input, compared with what quotedtext works out from the
 * bytes between its quotes, except where libfyaml is known wrong (quotedtext.h): a
 * single-quoted body with a '' escape or a CR, a double-quoted one with an escaped space
 * right before a break or a CR, whose cases test/conformance/quotedtext/ holds. */
#ifndef FANOUT_TEST_QUOTEDTEXT_ORACLE_H
#define FANOUT_TEST_QUOTEDTEXT_ORACLE_H

#include <stddef.h>

struct quotedtext_tally {
    size_t compared, declined, differ;
    size_t compared_double; /* of `compared`, double-quoted */
    size_t not_compared; /* where libfyaml is known wrong: its text is not compared */
    char first[1024]; /* the first difference, for the message */
};

/* Compares quotedtext with libfyaml's text for every quoted scalar of
 * yaml[0..len) (valid UTF-8 without NUL), parsed as stream.c parses; adds to *t. Also
 * checks that quotedtext writes a single-quoted text the same in place. An input libfyaml refuses is
 * compared up to its error. */
void quotedtext_compare(const char *yaml, size_t len, struct quotedtext_tally *t);

#endif
