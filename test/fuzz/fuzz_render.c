/* render: every dialect and the main options, chosen by the first byte of the input
 * (bits 0-1 dialect: detected, buildkite, testarea, gha; 2 upload, 3 JSON output, 4 no
 * validation, 5-6 platform, 7 strict), with the shard-coverage rule as render runs it. */
#include <string.h>

#include "fanout/diag.h"
#include "fanout/dialect.h"
#include "fanout/render.h"
#include "fuzz.h"

/* The dialect options that render test-area input for `platform` (all, nvidia, amd),
 * made once. */
static const struct dialect_options *platform_options(unsigned platform)
{
    static const char *const names[] = {"all", "nvidia", "amd"};
    static struct dialect_options *made[3];

    if (!made[platform] && (made[platform] = dialect_options_create()))
        dialect_options_parse(made[platform], dialect_option_find("platform"), names[platform], 0, NULL);
    return made[platform];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct dialect *const dialects[] = {NULL, &dialect_buildkite, &dialect_testarea,
                                                     &dialect_gha};
    static const unsigned platforms[] = {0, 1, 2, 0};
    static struct shardflags *flags;
    struct render_opts opts;
    struct fuzz_file in;
    struct diag *d;
    const char *path;
    uint8_t bits;

    if (size < 1 || fuzz_skip(data, size))
        return 0;
    bits = data[0];
    memset(&opts, 0, sizeof(opts));
    opts.dialect = dialects[bits & 3];
    opts.upload = bits & 4;
    opts.format = bits & 8 ? EMIT_JSON : EMIT_YAML;
    opts.validate = !(bits & 16);
    opts.dialect_options = platform_options(platforms[(bits >> 5) & 3]);
    opts.strict = bits & 128;
    opts.stream = fuzz_null();
    if (!flags)
        flags = shardflags_create(); /* once: the built-in runners, as the CLI has them */
    opts.shards = flags;
    fuzz_file_open(&in, data + 1, size - 1);
    path = in.path;
    d = diag_create(fuzz_null(), DIAG_TEXT);
    render_run(&path, 1, &opts, d);
    diag_destroy(d);
    fuzz_file_close(&in);
    return 0;
}
