/* Shared by the fuzz harnesses: inputs as files, and sinks for what fanout writes. */
#ifndef FANOUT_FUZZ_H
#define FANOUT_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A file holding `len` bytes (an in-memory file: the path is /proc/self/fd/N, a regular
 * file as fanout sees it). Closed by fuzz_file_close. */
struct fuzz_file {
    int fd;
    char path[40];
};

int fuzz_file_open(struct fuzz_file *f, const uint8_t *data, size_t len);
void fuzz_file_close(struct fuzz_file *f);

/* The byte that separates two inputs in one fuzz input (it never occurs in UTF-8). */
#define FUZZ_SPLIT 0xFF

/* Splits at the first FUZZ_SPLIT: [data, *a_len) and the rest after it. */
void fuzz_split(const uint8_t *data, size_t size, size_t *a_len, const uint8_t **b, size_t *b_len);

/* /dev/null, opened once. */
FILE *fuzz_null(void);

/* True for an input the libFuzzer build leaves alone: libfyaml 0.7.12 leaks 512-1024
 * bytes formatting a single-quoted scalar with six or more quotes in a row
 * (notes/libraries.md section 5). LSan can only tell that leak by its function name,
 * which needs the slow unwinder on every malloc (five times fewer executions), so the
 * fuzzers skip such inputs; replay.c (built without FUZZ_LIBFUZZER) runs them with the
 * slow unwinder and the suppression, so they are still checked for any other leak. */
bool fuzz_skip(const uint8_t *data, size_t size);

#endif
