/* The oracle of blocktext, for its unit test and its fuzz harness: libfyaml 0.7.12's own
 * text of every block scalar of an input, compared with what blocktext works out from the
 * same bytes. */
#ifndef FANOUT_TEST_BLOCKTEXT_ORACLE_H
#define FANOUT_TEST_BLOCKTEXT_ORACLE_H

#include <stddef.h>

struct blocktext_tally {
    size_t compared, declined, differ;
    size_t departed; /* YAML's text where libfyaml's is broken (blocktext.h's departs) */
    char first[1024]; /* the first difference, for the message */
};

/* Compares blocktext with libfyaml's text for every block scalar of yaml[0..len) (valid
 * UTF-8 without NUL), parsed as stream.c parses; adds to *t. An input libfyaml refuses is
 * compared up to its error. */
void blocktext_compare(const char *yaml, size_t len, struct blocktext_tally *t);

#endif
