/* source: one input (a file, a pipe or stdin) that can be read more than once.
 * Non-seekable inputs are kept in an unlinked temporary file as they are read (the
 * first read checks them as it goes; later reads come from the file), up to
 * SOURCE_MAX_SPOOL. Every byte handed on is checked first: strict UTF-8, no NUL, a byte
 * order mark only at the start, and only whole characters, because libfyaml 0.7.12
 * silently stops at such bytes and hangs on some of them. Every file fanout reads goes
 * through these checks. What was read is where a message's excerpt comes from
 * (source_excerpt): an input is never opened twice. */
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
/* source_open, named `name` in messages (NULL: as source_open names it): a file read
 * from where it was put for the run (diff --base's revision) named where it comes from. */
struct source *source_open_as(const char *path, const char *name, struct diag *d);
void source_close(struct source *src);

/* A source over `len` bytes of `text` (which must outlive it), named `name`. */
struct source *source_open_text(const char *name, const char *text, size_t len, struct diag *d);

/* The name used in messages: the path as given, or "<stdin>". */
const char *source_name(const struct source *src);

/* How many bytes the input holds, once a read has reached its end; UINT64_MAX before. */
uint64_t source_size_read(const struct source *src);

/* How many bytes the longest read so far (the one under way included) has reached. */
uint64_t source_bytes_seen(const struct source *src);

/* Rewinds the input and makes it the parser's input. 0 on success. */
int source_attach(struct source *src, struct fy_parser *fyp);

/* A byte the parser is handed in place of the input's, at offset `at` of what it is
 * handed since the attach (source_line_start; not libfyaml's input_pos, which starts again
 * every 128 KiB of a callback input). */
struct source_patch {
    uint64_t at;
    char byte;
};

/* source_attach, with the parser handed each patch's byte (`patches` sorted by offset,
 * the caller's until the next attach or detach). Everything else (the digests, the
 * window the scalars' texts are read from, excerpts) keeps the input's bytes. */
int source_attach_patched(struct source *src, struct fy_parser *fyp, const struct source_patch *patches,
                          size_t n_patches);

/* Reading without the parser (a list of lines): source_rewind starts from the first
 * byte (0 on success); source_read gives up to `cap` checked bytes, ending on a
 * character boundary, and 0 at the end of the input or after an error (reported;
 * source_failed tells which). Not to be mixed with an attached parser. */
int source_rewind(struct source *src);
size_t source_read(struct source *src, char *buf, size_t cap);

/* The most of a non-seekable input (a pipe, stdin, a device) kept to be read again:
 * past it the input is refused (`size`), so that endless input (`yes | fanout render
 * -`) ends. A regular file has no such limit. source_set_spool_limit changes it for
 * one source (a reader that needs less). */
#define SOURCE_MAX_SPOOL (1ull << 30)
void source_set_spool_limit(struct source *src, uint64_t bytes);

/* The most input the parser may take in without producing an event: libfyaml keeps a
 * token in a buffer that grows 4 KiB at a time, which costs quadratic time where
 * realloc copies (under ASan: 30 s for a 10 MB scalar). Past it, the input is refused. */
#define SOURCE_MAX_TOKEN (1u << 20)

/* The parser produced an event that ends at line:col (1-based, as the parser counts):
 * the count towards SOURCE_MAX_TOKEN starts again, and a token too long is reported
 * from there. */
void source_progress(struct source *src, unsigned line, unsigned col);

/* A position as the parser counts it (1-based) made the input's own: the parser may be
 * handed a `--- ` the input does not hold, before a document that begins with `{` or
 * `[`, so that libfyaml streams it instead of holding its line whole. */
void source_position(const struct source *src, unsigned *line, unsigned *col);

/* The excerpt of `file` (a source's name) around line:col, from what an open source of
 * that name read (a spooled pipe included), else from a regular file of that name,
 * never blocking; false when there is none. A diag_policy's `excerpt`. */
bool source_excerpt(const char *file, unsigned line, unsigned col, struct diag_excerpt *out);

/* Whether two reads of the input disagreed: every read is hashed, and where it reaches
 * what an earlier read handed to the parser, the two hashes must agree (a read that
 * stopped early is compared as far as it went; a read that found the end must see no
 * more and no less). What was checked must be what is rendered. */
bool source_changed(const struct source *src);

/* What was read of the input again from the start of line `line` (1-based), at most
 * `max` bytes, without disturbing a read in progress: for a message's exact position
 * inside a scalar. Malloc'd (NUL-terminated, *len bytes); NULL when the input has no
 * such line. */
char *source_lines(struct source *src, unsigned line, size_t max, size_t *len);

/* Where 0-based line `line` (the byte at libfyaml's offset `pos` on it) starts in what
 * the parser was handed since the attach (source_patch's offsets); false when it was not
 * handed lately. */
bool source_line_start(const struct source *src, unsigned line, uint64_t pos, uint64_t *offset);

/* The `len` bytes the attached parser was handed at line:col (0-based, as libfyaml counts
 * them: after a `--- ` it was handed), at byte `pos` as libfyaml counts it (its mark's
 * input_pos), when they were handed lately, on that line, and everything before them on
 * it is one byte a column (printable ASCII); else NULL. Valid until the parser reads on. */
const char *source_span(const struct source *src, unsigned line, unsigned col, uint64_t pos, size_t len);
/* Line `line` (its byte `pos` as libfyaml counts it) as far as it was handed lately, in
 * one piece, without its line break: *len bytes. NULL when it was not. */
const char *source_line(const struct source *src, unsigned line, uint64_t pos, size_t *len);
/* The bytes the attached parser was handed from the start of 0-based line `line` (its
 * byte `pos`, as source_line's) to end_line:end_col (byte `end_pos`, as libfyaml counts
 * it): a block scalar's lines, from its header's, when they were handed lately, in one
 * piece; else NULL. *more: whether it was handed bytes after them (the parser looks
 * past the end of a block scalar unless the input ends there). *plain: whether they hold
 * no CR, NEL, LS or PS (none was handed yet). Valid until the parser reads on. */
const char *source_lines_to(const struct source *src, unsigned line, uint64_t pos, unsigned end_line,
                            unsigned end_col, uint64_t end_pos, size_t *len, bool *more, bool *plain);
/* Copies to `out` the end_pos - pos bytes the attached parser was handed from line:col
 * (byte `pos`) to end_line:end_col (byte `end_pos`), as libfyaml counts them (0-based):
 * a token's bytes, which libfyaml counts in one piece, so either end places them (one
 * whose line holds only one-byte characters before it), wherever the window's ring
 * wraps. False when neither end can be placed or they are no longer all in the window. */
bool source_copy_span(const struct source *src, unsigned line, unsigned col, uint64_t pos, unsigned end_line,
                      unsigned end_col, uint64_t end_pos, char *out);
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
