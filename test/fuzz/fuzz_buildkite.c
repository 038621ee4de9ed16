/* buildkite: a Buildkite pipeline (matrix and adjustments, parallelism, depends_on,
 * interpolation) after an options byte: bit 0 JSON output, 1 no validation, 2-3 the
 * message format (text, github, json, text), 4 --upload, 5 --allow-placeholders, 6
 * --no-interpolation, 7 --env X=1 for the interpolation to find. Rendered under
 * fuzz_render_checked's oracles; the YAML-aware mutator keeps the options byte. */
#include <string.h>

#include "fanout/diag.h"
#include "fanout/dialect.h"
#include "fanout/render.h"
#include "fuzz.h"

FUZZ_YAML_MUTATOR(1)

/* The dialect options of bits 5-7, made once for each of the eight choices. */
static const struct dialect_options *options_for(unsigned which)
{
    static struct dialect_options *made[8];

    if (!made[which] && (made[which] = dialect_options_create())) {
        if (which & 1)
            dialect_options_parse(made[which], dialect_option_find("allow-placeholders"), NULL, 0, NULL);
        if (which & 2)
            dialect_options_parse(made[which], dialect_option_find("no-interpolation"), NULL, 0, NULL);
        if (which & 4)
            dialect_options_parse(made[which], dialect_option_find("env"), "X=1", 0, NULL);
    }
    return made[which];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int formats[] = {DIAG_TEXT, DIAG_GITHUB, DIAG_JSON, DIAG_SARIF};
    struct render_opts opts;
    struct fuzz_file in;
    const char *path;
    uint8_t bits;

    if (size < 1 || fuzz_skip(data, size))
        return 0;
    bits = data[0];
    memset(&opts, 0, sizeof(opts));
    opts.dialect = &dialect_buildkite;
    opts.format = bits & 1 ? EMIT_JSON : EMIT_YAML;
    opts.validate = !(bits & 2);
    opts.upload = bits & 16;
    opts.dialect_options = options_for(bits >> 5);
    fuzz_file_open(&in, data + 1, size - 1);
    path = in.path;
    fuzz_render_checked(&path, 1, &opts, formats[(bits >> 2) & 3]);
    fuzz_file_close(&in);
    return 0;
}
