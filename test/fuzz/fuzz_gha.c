/* gha: a GitHub workflow that may call another: an options byte, then the caller and,
 * after FUZZ_SPLIT, the callee, written as .github/workflows/a.yml and b.yml so that
 * `uses: ./.github/workflows/b.yml` finds it. Options: bit 0 JSON output, 1 no
 * validation, 2-3 the message format (text, github, json, text), 4 strict, 5 the callee
 * not among the inputs (found where GitHub looks). Rendered under fuzz_render_checked's
 * oracles; the YAML-aware mutator keeps the options byte. */
#include <string.h>

#include "fanout/diag.h"
#include "fanout/render.h"
#include "fuzz.h"

FUZZ_YAML_MUTATOR(1)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int formats[] = {DIAG_TEXT, DIAG_GITHUB, DIAG_JSON, DIAG_SARIF};
    struct render_opts opts;
    const char *paths[2];
    const uint8_t *callee;
    size_t caller_len, callee_len;
    uint8_t bits;

    if (size < 1 || fuzz_skip(data, size))
        return 0;
    bits = data[0];
    fuzz_split(data + 1, size - 1, &caller_len, &callee, &callee_len);
    paths[0] = fuzz_write_workflow("a.yml", data + 1, caller_len);
    paths[1] = fuzz_write_workflow("b.yml", callee, callee_len);
    memset(&opts, 0, sizeof(opts));
    opts.dialect = &dialect_gha;
    opts.format = bits & 1 ? EMIT_JSON : EMIT_YAML;
    opts.validate = !(bits & 2);
    opts.strict = bits & 16;
    fuzz_render_checked(paths, bits & 32 ? 1 : 2, &opts, formats[(bits >> 2) & 3]);
    return 0;
}
