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

/* A directory of this process, `.github/workflows` under a fresh temporary directory
 * (made once, removed at exit with what was written there), where a workflow's local
 * `uses: ./.github/workflows/X.yml` finds X.yml. */
const char *fuzz_workflows_dir(void);

/* Writes `len` bytes to NAME in fuzz_workflows_dir(); returns its path (a static buffer
 * per name: "a.yml" and "b.yml" may be held together). */
const char *fuzz_write_workflow(const char *name, const uint8_t *data, size_t len);

/* /dev/null, opened once. */
FILE *fuzz_null(void);

/* True for an input the libFuzzer build leaves alone: libfyaml 0.7.12 leaks 512-1024
 * bytes formatting a single-quoted scalar with six or more quotes in a row
 * (notes/libraries.md section 5). LSan can only tell that leak by its function name,
 * which needs the slow unwinder on every malloc (five times fewer executions), so the
 * fuzzers skip such inputs; replay.c (built without FUZZ_LIBFUZZER) runs them with the
 * slow unwinder and the suppression, so they are still checked for any other leak. */
bool fuzz_skip(const uint8_t *data, size_t size);

/* ---- oracles (fuzz_oracle.c): what must hold of every run; each abort()s when it does
 * not, after printing why to stderr, so that libFuzzer keeps the input. ---- */

/* What a run wrote, caught in memory (open_memstream). */
struct fuzz_capture {
    FILE *fp;
    char *buf;
    size_t len;
};

FILE *fuzz_capture_open(struct fuzz_capture *c);
/* Flushes what was written into buf/len (NUL-terminated). */
void fuzz_capture_done(struct fuzz_capture *c);
void fuzz_capture_free(struct fuzz_capture *c);

/* `s` is zero or more strict JSON texts (RFC 8259) separated by white space: the
 * --format json rendering writes one per document, --error-format json one a line. */
void fuzz_check_json(const char *s, size_t len);

/* Every line of `s` is one whole message in `format` (0 text, 1 github, 2 json: enum
 * diag_format) whose rule is registered: text and github lines end with ` [rule]`, a
 * github line starts with `::error`, `::warning` or `::notice`, a json line is a JSON
 * object. A message split over lines, or a line forged by the input, fails. 3 (sarif):
 * `s` is one whole JSON text, a line, whose every ruleId is registered. */
void fuzz_check_messages(const char *s, size_t len, int format);

/* The rendering `out` (YAML, made with `opts`) rendered again with the same dialect and
 * options but no validation must give the same bytes (render_run; NULL paths for the
 * rendering). Declared with the render types in fuzz_oracle.c's callers. */
struct render_opts;
void fuzz_check_fixed_point(const char *out, size_t len, const struct render_opts *opts);

/* render_run with `opts` (its stream and the diag's are caught here) under every oracle
 * above: the messages in `diag_format`, then JSON output parses and YAML output is a
 * fixed point. Returns render_run's exit code. */
int fuzz_render_checked(const char *const *paths, size_t n, const struct render_opts *opts, int diag_format);

/* ---- the YAML-aware mutator (fuzz_mutate.c) ---- */

/* Mutates an input of `skip` option bytes and then YAML documents split at FUZZ_SPLIT:
 * each part is parsed with libfyaml and its tree mutated (keys and values swapped
 * between places and parts, lists emptied, scalars replaced by ${{ }} expressions, odd
 * numbers, {{matrix.x}} and $VAR tokens), then emitted; an input that does not parse,
 * and one time in four, goes to libFuzzer's byte mutator instead. */
size_t fuzz_yaml_mutate(uint8_t *data, size_t size, size_t max_size, unsigned seed, size_t skip);

/* libFuzzer's byte mutator; replay.c has a stand-in that leaves the bytes as they are. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
/* Defines libFuzzer's custom mutator as fuzz_yaml_mutate, for a harness whose inputs
 * start with SKIP option bytes. */
#define FUZZ_YAML_MUTATOR(SKIP)                                                                    \
    size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed);   \
    size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed)    \
    {                                                                                              \
        return fuzz_yaml_mutate(data, size, max_size, seed, SKIP);                                 \
    }

#endif
