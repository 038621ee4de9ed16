/* branches: Buildkite's step-level branch patterns. The documented examples are the
 * specification (test/unit/test_branches.c holds each of them): "When combining positive
 * and negative patterns, any positive pattern must match, and every negative pattern must
 * not match"; `features/` then a star matches "any branch that starts with `features/`",
 * so a star crosses slashes; only the star and `!` are special. */
#include "branches.h"

#include <string.h>

/* Whether `s` (`n` bytes) matches `p` (`m` bytes) whole, `*` matching any run: the
 * classic one-star backtrack, linear in practice and never worse than n * m. */
static bool star_match(const char *p, size_t m, const char *s, size_t n)
{
    size_t i = 0, j = 0, star = (size_t)-1, resume = 0;

    while (j < n) {
        if (i < m && p[i] == '*') {
            star = i++;
            resume = j;
        } else if (i < m && p[i] == s[j]) {
            i++;
            j++;
        } else if (star != (size_t)-1) {
            i = star + 1;
            j = ++resume;
        } else {
            return false;
        }
    }
    while (i < m && p[i] == '*')
        i++;
    return i == m;
}

bool bk_branches_match(const char *patterns, size_t len, const char *branch)
{
    size_t n = strlen(branch);
    bool any_positive = false, positive_matched = false;

    for (size_t i = 0; i < len;) {
        size_t start, end;

        while (i < len && (patterns[i] == ' ' || patterns[i] == '\t' || patterns[i] == '\n'))
            i++;
        start = i;
        while (i < len && patterns[i] != ' ' && patterns[i] != '\t' && patterns[i] != '\n')
            i++;
        end = i;
        if (start == end)
            continue;
        if (patterns[start] == '!') {
            if (star_match(patterns + start + 1, end - start - 1, branch, n))
                return false;
        } else {
            any_positive = true;
            positive_matched |= star_match(patterns + start, end - start, branch, n);
        }
    }
    return !any_positive || positive_matched;
}
