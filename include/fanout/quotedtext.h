/* quotedtext: the text of a YAML single- or double-quoted scalar worked out from its source
 * bytes (YAML 1.2.2, 7.3.2 single-quoted style, 7.3.1 double-quoted style, 5.7 escapes, 6.5
 * line folding). libfyaml 0.7.12 misreads
 * some: two or more '' escapes in a row (`'a''''b c'` gives "a'''b ", `'a''''''b c'` a
 * byte it never wrote, and it leaks its iterator's memory doing so), a line of '' after
 * an empty first line (a line feed for the space between), a CRLF before a last line of
 * white space (a line feed for a space); its token iterator is no better. So fanout reads
 * a single-quoted scalar with an escape or a line break itself. */
#ifndef FANOUT_QUOTEDTEXT_H
#define FANOUT_QUOTEDTEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Room for the text of a body of `len` bytes: a single-quoted text is never longer than its
 * body, a double-quoted one at most half as long again (\L and \P: 2 bytes for 3). */
#define QUOTEDTEXT_ROOM(len) ((len) + (len) / 2)

/* Writes the text of the scalar quoted with `quote` (' or ") whose `len` bytes between its
 * quotes are `body` to `out` (room for QUOTEDTEXT_ROOM(len) bytes; single-quoted, `out`
 * may be `body`; double-quoted, it must not overlap it) and sets *out_len. Line breaks are
 * LF or CRLF. False, with nothing promised of `out`, for what is not such a body: a lone
 * quote, a bad escape (a surrogate, past U+10FFFF, a letter 5.7 does not name), a CR alone,
 * NEL, LS or PS (line breaks to YAML 1.1, whose readers disagree on them). */
bool quotedtext_format(const char *body, size_t len, char quote, char *out, size_t *out_len);

/* Whether a line after the first of the quoted scalar whose `len` bytes between its quotes
 * are `body` has text (or the closing quote) indented by fewer than `least` spaces: then
 * *line is its number after the first (1: the second line) and *col its spaces. YAML 1.2.2
 * (7.3.1, 7.3.2, 6.1: s-flow-line-prefix; yaml-test-suite QB6E) and npm yaml refuse it
 * (lexer.js continueScalar: a line less indented than its key's column + 1 that is not
 * empty ends the scalar, an unclosed quote); libfyaml 0.7.12, sloppy, and libyaml's
 * descendants (PyYAML, gopkg.in/yaml.v3: scannerc.go yaml_parser_scan_flow_scalar checks
 * no indentation) take it. */
bool quotedtext_shallow(const char *body, size_t len, size_t least, size_t *line, size_t *col);

#endif
