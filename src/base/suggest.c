#include "fanout/suggest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORD 64

unsigned suggest_distance(const char *a, size_t la, const char *b, size_t lb, unsigned limit)
{
    /* three rows of the optimal-string-alignment table */
    unsigned rows[3][MAX_WORD + 1], *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

    if (la > MAX_WORD || lb > MAX_WORD || (la > lb ? la - lb : lb - la) > limit)
        return limit + 1;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned best = cur[0] = (unsigned)i;
        unsigned *t;

        for (size_t j = 1; j <= lb; j++) {
            unsigned v = prev[j - 1] + (a[i - 1] != b[j - 1]);

            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
                v = prev2[j - 2] + 1;
            cur[j] = v;
            if (v < best)
                best = v;
        }
        if (best > limit)
            return limit + 1;
        t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb] > limit ? limit + 1 : prev[lb];
}

const char *suggest_closest(const char *word, size_t len, const char *const *candidates, unsigned limit)
{
    const char *best = NULL;
    unsigned best_d = limit + 1;

    for (size_t i = 0; candidates[i]; i++) {
        unsigned d = suggest_distance(word, len, candidates[i], strlen(candidates[i]), limit);

        if (d < best_d && d > 0) {
            best = candidates[i];
            best_d = d;
        }
    }
    return best;
}

const char *suggest_phrase(const char *near, char *buf)
{
    if (!near)
        return "";
    snprintf(buf, SUGGEST_PHRASE_MAX, ", did you mean '%s'?", near);
    return buf;
}

unsigned suggest_limit(size_t len)
{
    return len < 5 ? 1 : 2;
}
