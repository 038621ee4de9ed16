/* quotedtext: every quoted scalar of the input outside the classes libfyaml 0.7.12 is
 * known to misread must be its text byte for byte (test/quotedtext_oracle.c), a
 * single-quoted text the same written in place; quotedtext never reads or writes outside
 * what it is given. */
#include <stdlib.h>
#include <string.h>

#include "../quotedtext_oracle.h"
#include "fanout/quotedtext.h"
#include "fanout/source.h"
#include "fuzz.h"

FUZZ_YAML_MUTATOR(0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct quotedtext_tally t = {0};
    char *out;
    size_t n;

    if (fuzz_skip(data, size))
        return 0;
    /* the input as a body of its own, either quote: exactly the room promised, so ASan sees
     * any overrun */
    for (int q = 0; q < 2; q++) {
        size_t room = q ? QUOTEDTEXT_ROOM(size) : size;

        if ((out = malloc(room ? room : 1)) != NULL) {
            if (quotedtext_format((const char *)data, size, q ? '"' : '\'', out, &n) && n > room)
                abort();
            free(out);
        }
    }
    /* the bytes the source hands libfyaml: strict UTF-8 without NUL (it hangs on others) */
    if (!source_check_utf8(data, size, NULL, NULL, NULL))
        return 0;
    quotedtext_compare((const char *)data, size, &t);
    if (t.differ) {
        fprintf(stderr, "quotedtext differs from libfyaml: %s\n", t.first);
        abort();
    }
    return 0;
}
