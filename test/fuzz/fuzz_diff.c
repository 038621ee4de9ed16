/* diff: a report format (first byte), then BASE, 0xFF, HEAD. */
#include <string.h>

#include "fanout/diag.h"
#include "fanout/pipediff.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_file base, head;
    struct render_opts opts;
    const uint8_t *rest;
    size_t base_len, rest_len;
    struct diag *d;

    if (size < 1 || fuzz_skip(data, size))
        return 0;
    memset(&opts, 0, sizeof(opts));
    opts.validate = true;
    fuzz_split(data + 1, size - 1, &base_len, &rest, &rest_len);
    fuzz_file_open(&base, data + 1, base_len);
    fuzz_file_open(&head, rest, rest_len);
    d = diag_create(fuzz_null(), DIAG_TEXT);
    pipediff_run(base.path, head.path, &opts, &opts, &(struct pd_opts){.format = (enum pd_format)(data[0] % 4)},
                 fuzz_null(), d);
    diag_destroy(d);
    fuzz_file_close(&base);
    fuzz_file_close(&head);
    return 0;
}
