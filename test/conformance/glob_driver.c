/* glob_driver: the glob differential's fanout side (test/conformance/glob.sh). Reads
 * lines of JSON-free TSV, `pattern<TAB>path` with \t, \n and \\ escaped, and prints for
 * each `1` (matches), `0` or `E` (the pattern does not compile), for one dialect:
 * glob_driver picomatch|github|buildkite < cases.tsv */
#include "fanout/glob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../glob/tsv_unescape.h"

int main(int argc, char **argv)
{
    enum glob_dialect d;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;

    if (argc != 2)
        return 2;
    if (!strcmp(argv[1], "picomatch"))
        d = GLOB_PICOMATCH;
    else if (!strcmp(argv[1], "github"))
        d = GLOB_GITHUB;
    else if (!strcmp(argv[1], "buildkite"))
        d = GLOB_BUILDKITE;
    else
        return 2;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        char *tab = memchr(line, '\t', (size_t)n);
        if (!tab)
            return 2;
        size_t plen = tsv_unescape(line, (size_t)(tab - line));
        size_t len = tsv_unescape(tab + 1, (size_t)(line + n - tab - 1));
        struct glob_error err;
        struct glob *g = glob_compile(d, line, plen, &err);
        putchar(!g ? 'E' : glob_match(g, tab + 1, len) ? '1' : '0');
        putchar('\n');
        glob_free(g);
    }
    free(line);
    return 0;
}
