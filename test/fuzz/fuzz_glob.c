/* glob: the pattern compilers on hostile patterns. The first byte picks the dialect
 * (picomatch, GitHub, Buildkite, by its value modulo 3); the rest is a pattern, then
 * after a 0xFF byte a path to match. Besides not crashing, leaking or hanging (picomatch's
 * own endless loops are errors, zzglob's nesting is bounded, PCRE2 has a match limit):
 *   - a picomatch pattern that compiles matches a path equal to it (picomatch.test);
 *   - a refused pattern says where, within the pattern. */
#include <stdlib.h>

#include "fanout/glob.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const enum glob_dialect dialects[] = {GLOB_PICOMATCH, GLOB_GITHUB, GLOB_BUILDKITE};
    const uint8_t *path;
    size_t plen, len;
    struct glob_error err;
    struct glob *g;

    if (size < 1)
        return 0;
    fuzz_split(data + 1, size - 1, &plen, &path, &len);
    g = glob_compile(dialects[data[0] % 3], (const char *)data + 1, plen, &err);
    if (!g) {
        if (err.offset > plen)
            abort();
        return 0;
    }
    glob_match(g, (const char *)path, len);
    if (data[0] % 3 == 0 && plen && !glob_match(g, (const char *)data + 1, plen))
        abort();
    glob_free(g);
    return 0;
}
