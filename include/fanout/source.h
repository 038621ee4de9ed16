/* source: one input (a file, a pipe or stdin) that can be read more than once.
 * Non-seekable inputs are spooled to an unlinked temporary file. Every byte handed to
 * the YAML parser is checked first: strict UTF-8, no NUL, a byte order mark only at the
 * start, and only whole characters, because libfyaml 0.7.12 silently stops at such
 * bytes and hangs on some of them. Every file fanout reads goes through these checks. */
#ifndef FANOUT_SOURCE_H
#define FANOUT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fanout/diag.h"

struct source;
struct fy_parser;

/* Opens `path` ("-" is stdin). Reports open/read errors to `d` and returns NULL. */
struct source *source_open(const char *path, struct diag *d);
void source_close(struct source *src);

/* A source over `len` bytes of `text` (which must outlive it), named `name`. */
struct source *source_open_text(const char *name, const char *text, size_t len, struct diag *d);

/* The name used in messages: the path as given, or "<stdin>". */
const char *source_name(const struct source *src);

/* Rewinds the input and makes it the parser's input. 0 on success. */
int source_attach(struct source *src, struct fy_parser *fyp);

/* The most input the parser may take in without producing an event: libfyaml keeps a
 * token in a buffer that grows 4 KiB at a time, which costs quadratic time where
 * realloc copies (under ASan: 30 s for a 10 MB scalar). Past it, the input is refused. */
#define SOURCE_MAX_TOKEN (1u << 20)

/* The parser produced an event that ends at line:col (1-based): the count towards
 * SOURCE_MAX_TOKEN starts again, and a token too long is reported from there. */
void source_progress(struct source *src, unsigned line, unsigned col);

/* Whether two reads of the input disagreed: every read is hashed, and where it reaches
 * what an earlier read handed to the parser, the two hashes must agree (a read that
 * stopped early is compared as far as it went; a read that found the end must see no
 * more and no less). What was checked must be what is rendered. */
bool source_changed(const struct source *src);

/* The input again from the start of line `line` (1-based), at most `max` bytes, without
 * disturbing a read in progress: for a message's exact position inside a scalar.
 * Malloc'd (NUL-terminated, *len bytes); NULL when the input has no such line or cannot
 * be read again this way (text in memory). */
char *source_lines(struct source *src, unsigned line, size_t max, size_t *len);

/* The parser is done with the input: its read buffer goes (the next attach makes one). */
void source_detach(struct source *src);

/* True once a bad byte was seen (and reported) since the last attach. */
bool source_failed(const struct source *src);

/* The whole file at `path` in a malloc'd buffer (*len bytes, NUL-terminated). When it
 * does not exist and `missing` is not NULL, *missing is set and "" returned; other
 * failures are reported to `d` and give NULL. For small files (schemas, renderings). */
char *source_slurp(const char *path, size_t *len, bool *missing, struct diag *d);

/* Checks a whole buffer the same way. True when clean; otherwise `*bad` is the offset of
 * the first bad byte (`len` for a sequence cut off at the end) and `*line`/`*col` its
 * 1-based position. Any out-pointer may be NULL. */
bool source_check_utf8(const unsigned char *buf, size_t len, size_t *bad, unsigned *line,
                       unsigned *col);

#endif
