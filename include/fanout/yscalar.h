/* yscalar: what a YAML scalar means and how to write one back.
 * Typing follows the YAML 1.2 core schema (what JSON output and schema validation use);
 * quoting protects against YAML 1.1 readers too (yes/no/on/off, 0123, 1:20, dates). */
#ifndef FANOUT_YSCALAR_H
#define FANOUT_YSCALAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum yscalar_type { YS_NULL, YS_BOOL, YS_INT, YS_FLOAT, YS_STRING };

/* The core-schema type of a plain scalar with this text. */
enum yscalar_type yscalar_type(const char *s, size_t len);

/* Whether `s` is an integer in its canonical decimal (digits, no leading 0 but in "0"),
 * which every reader's number prints back as written up to 15 digits: inline, the
 * number checks' quick answer for most numbers. */
static inline bool yscalar_canonical_decimal(const char *s, size_t len)
{
    size_t i = 0;

    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++;
    return i == len && len && len <= 15 && (len == 1 || s[0] != '0');
}

/* Whether a plain scalar with this text is a core-schema null (yscalar_type's YS_NULL):
 * inline, for a caller that asks nothing else (a key `name` was a call and a table walk). */
static inline bool yscalar_null(const char *s, size_t len)
{
    return len == 0 || (len == 1 && s[0] == '~') ||
           (len == 4 && (!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) || !memcmp(s, "NULL", 4)));
}

/* A finite core-schema float (or integer) s[0..len) written the one way every YAML 1.1
 * and 1.2 reader and JSON read as the same float: [-]D+.D+(e[-+]D+)? (`3` -> `3.0`, `.5` ->
 * `0.5`, `+1e3` -> `1.0e+3`). Writes at most len + 3 bytes and a NUL to out; its length. */
size_t yscalar_float_canonical(const char *s, size_t len, char *out);

/* True when a plain scalar with this text would not be read back as this string by a
 * YAML 1.1 or 1.2 reader (a null, bool, number, date, merge key ...). */
bool yscalar_misread(const char *s, size_t len);

/* A mask with the high bit of each byte of the word w that is not printable ASCII
 * (0x20-0x7E): a byte below 0x20 borrows into its own high bit, one from 0x7F on has it
 * or carries into it; a borrow or carry only reaches the bytes above one already marked,
 * so the lowest bit set is the first such byte's, and the mask is 0 only for text. */
static inline uint64_t yscalar_unprintable_bytes(uint64_t w)
{
    const uint64_t spaces = 0x2020202020202020ull, low = 0x0101010101010101ull;

    return ((w - spaces) | (w + low) | w) & 0x8080808080808080ull;
}

/* A multi-line plain scalar's text from its bytes p[0..n) (its first character to its last,
 * line breaks LF or CRLF), folded in place (YAML 1.2.2, 7.3.3 and 6.5): white space around
 * each break dropped, a break between two lines a space, the breaks of n empty lines n
 * line feeds. Returns the text's length. */
size_t yscalar_plain_fold(char *p, size_t n);

/* Whether s[0..n) holds NEL (C2 85), LS or PS (E2 80 A8/A9): line breaks to YAML 1.1, text
 * to YAML 1.2, so readers disagree on them. */
bool yscalar_has_yaml11_break(const char *s, size_t n);

/* Whether s[0..n) is printable ASCII (0x20-0x7E), a byte a column: checked a word at a
 * time, the last word overlapping the one before (its bytes one at a time were half of
 * source_span's cost). Inline: a call was a sixth of source_span's cost. */
static inline bool yscalar_printable(const char *s, size_t n)
{
    uint64_t w, bad = 0;

    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)(s[i] - 0x20) > 0x7E - 0x20)
                return false;
        return true;
    }
    for (size_t i = 0; i + 8 < n; i += 8) {
        memcpy(&w, s + i, 8);
        bad |= yscalar_unprintable_bytes(w);
    }
    memcpy(&w, s + n - 8, 8);
    return !(bad | yscalar_unprintable_bytes(w));
}

enum yscalar_style { YS_PLAIN, YS_LITERAL, YS_DOUBLE_QUOTED };

/* The canonical way to write the string s[0..len): plain when every reader gets the
 * same string back, a literal block for multi-line text (not for keys), else quoted. */
enum yscalar_style yscalar_style(const char *s, size_t len, bool is_key);

/* A line of a literal block's text, without its line break (`nl`: it had one). */
typedef void yscalar_line_fn(void *user, const char *line, size_t len, bool nl);
/* Whether s[0..len), text with a line break, is written as a literal block (yscalar_style's
 * YS_LITERAL), found in the one pass that gives `line` (unless NULL) its lines: a writer
 * puts them as they come and takes them back when the answer is false (lines up to the
 * one that decided are given). */
bool yscalar_literal_lines(const char *s, size_t len, yscalar_line_fn *line, void *user);

#endif
