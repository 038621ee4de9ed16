/* durations: `diff --durations FILE`, the one input of diff that is not a pipeline: a
 * TSV table, a JSON object or array, or a JUnit XML report (libxml2's reader, loaded
 * with dlopen), chosen by the file's first character as diff chooses it. Besides not
 * crashing, leaking or hanging: a file read has no error said about it, a file refused
 * has one, and every duration read is finite and 0 or more. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/diag.h"
#include "../../src/diff/pipediff_internal.h"
#include "fuzz.h"

/* Each duration the file gives, looked up by every id-like run of the input. */
static void check_minutes(const struct pd_durations *m, const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < size;) {
        size_t j = i;
        double minutes;

        while (j < size && data[j] > ' ' && data[j] != '"' && data[j] != '<' && data[j] != '>' && data[j] != '=')
            j++;
        if (j > i && pd_durations_get(m, (const char *)data + i, j - i, &minutes) &&
            (!isfinite(minutes) || minutes < 0)) {
            fprintf(stderr, "fuzz: a duration read is %g minutes\n", minutes);
            abort();
        }
        i = j + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_file in;
    struct pd_durations *m;
    struct diag *d;

    if (fuzz_skip(data, size))
        return 0;
    fuzz_file_open(&in, data, size);
    d = diag_create(fuzz_null(), DIAG_TEXT);
    m = pd_durations_read(in.path, d);
    if (!m != (diag_errors(d) > 0)) {
        fprintf(stderr, "fuzz: the file was %s, with %u errors said\n", m ? "read" : "refused", diag_errors(d));
        abort();
    }
    if (m)
        check_minutes(m, data, size);
    pd_durations_free(m);
    diag_destroy(d);
    fuzz_file_close(&in);
    return 0;
}
