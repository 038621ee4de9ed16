/* Replays fuzz inputs (the regressions under test/fuzz/regressions) through one harness
 * without libFuzzer, so that `make test` checks them with the normal compiler and ASan;
 * a harness with the YAML-aware mutator also has each input mutated with a few seeds,
 * so that an input that once hung or crashed the mutator stays a test. Each argument is
 * a file; prints how many ran. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define MUTATION_SEEDS 8

/* Defined by a harness through FUZZ_YAML_MUTATOR only. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed) __attribute__((weak));

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
    (void)data;
    (void)max_size;
    return size;
}

static void mutate(const unsigned char *input, size_t len)
{
    size_t max = len * 2 + 4096;
    unsigned char *buf = malloc(max);

    if (!buf)
        abort();
    for (unsigned seed = 0; seed < MUTATION_SEEDS; seed++) {
        memcpy(buf, input, len);
        LLVMFuzzerCustomMutator(buf, len, max, seed);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    int ran = 0;

    for (int i = 1; i < argc; i++) {
        FILE *fp = fopen(argv[i], "rb");
        unsigned char *buf = NULL;
        size_t len = 0, cap = 0, n;

        if (!fp) {
            perror(argv[i]);
            return 2;
        }
        do {
            if (len == cap && !(buf = realloc(buf, cap = cap * 2 + 4096)))
                abort();
            n = fread(buf + len, 1, cap - len, fp);
            len += n;
        } while (n > 0);
        fclose(fp);
        LLVMFuzzerTestOneInput(buf, len);
        if (LLVMFuzzerCustomMutator)
            mutate(buf, len);
        free(buf);
        ran++;
    }
    printf("replayed %d input%s%s\n", ran, ran == 1 ? "" : "s",
           LLVMFuzzerCustomMutator ? ", each also mutated" : "");
    return 0;
}
