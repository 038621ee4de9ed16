/* blocktext: every block scalar of the input it works out must be libfyaml 0.7.12's text
 * byte for byte (test/blocktext_oracle.c); what it declines is libfyaml's anyway. */
#include <stdlib.h>
#include <string.h>

#include "../blocktext_oracle.h"
#include "fanout/source.h"
#include "fuzz.h"

FUZZ_YAML_MUTATOR(0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct blocktext_tally t = {0};

    /* the bytes the source hands libfyaml: strict UTF-8 without NUL (it hangs on others) */
    if (fuzz_skip(data, size) || !source_check_utf8(data, size, NULL, NULL, NULL))
        return 0;
    blocktext_compare((const char *)data, size, &t);
    if (t.differ) {
        fprintf(stderr, "blocktext differs from libfyaml: %s\n", t.first);
        abort();
    }
    return 0;
}
