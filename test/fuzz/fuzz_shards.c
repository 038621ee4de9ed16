/* shards: `shards assign` on hostile tests lists and durations. The first byte chooses
 * (bits 0-2) the algorithm, (3) whether the input is the tests list or the durations,
 * (4-5) the format, (6) a budget instead of a count, (7) an overhead. */
#include <string.h>

#include "fanout/assign.h"
#include "fanout/diag.h"
#include "fanout/shardplan.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct assign_opts o;
    struct fuzz_file in;
    struct diag *d;
    uint8_t bits;

    if (size < 1)
        return 0;
    bits = data[0];
    memset(&o, 0, sizeof(o));
    o.algo = bits & 7;
    fuzz_file_open(&in, data + 1, size - 1);
    if (bits & 8)
        o.durations = in.path;
    else
        o.tests = in.path;
    if (bits & 64)
        o.budget = 600;
    else
        o.count = 1 + (bits >> 4 & 3) * 3;
    o.overhead = bits & 128 ? 30 : 0;
    d = diag_create(fuzz_null(), DIAG_TEXT);
    shardplan_assign(&o, (enum shardplan_format)((bits >> 4) % 3), fuzz_null(), d);
    diag_destroy(d);
    fuzz_file_close(&in);
    return 0;
}
