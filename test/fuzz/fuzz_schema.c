/* schema compile + validate: a schema, 0xFF, then an instance document (a pipeline),
 * through `fanout validate --schema`, files and all. */
#include "fanout/diag.h"
#include "fanout/validate.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_file schema, instance;
    const uint8_t *rest;
    size_t schema_len, rest_len;
    const char *path;
    struct diag *d;

    if (fuzz_skip(data, size))
        return 0;
    fuzz_split(data, size, &schema_len, &rest, &rest_len);
    fuzz_file_open(&schema, data, schema_len);
    fuzz_file_open(&instance, rest, rest_len);
    path = instance.path;
    d = diag_create(fuzz_null(), DIAG_TEXT);
    validate_run(&path, 1, schema.path, NULL, d);
    diag_destroy(d);
    fuzz_file_close(&schema);
    fuzz_file_close(&instance);
    return 0;
}
