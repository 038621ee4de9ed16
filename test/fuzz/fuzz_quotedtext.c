/* quotedtext: every single-quoted scalar of the input without '' or a CR must be
 * libfyaml 0.7.12's text byte for byte (test/quotedtext_oracle.c), and its text the same
 * written in place; quotedtext never reads or writes outside what it is given. */
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
    /* the input as a body of its own: exactly `size` bytes, so ASan sees any overrun */
    if ((out = malloc(size ? size : 1)) != NULL) {
        if (quotedtext_format((const char *)data, size, out, &n) && n > size)
            abort();
        free(out);
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
