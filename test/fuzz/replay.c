/* Replays fuzz inputs (the regressions under test/fuzz/regressions) through one harness
 * without libFuzzer, so that `make test` checks them with the normal compiler and ASan.
 * Each argument is a file; prints how many ran. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

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
        free(buf);
        ran++;
    }
    printf("replayed %d input%s\n", ran, ran == 1 ? "" : "s");
    return 0;
}
