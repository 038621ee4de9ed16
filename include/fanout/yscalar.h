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

/* A finite core-schema float (or integer) s[0..len) written the one way every YAML 1.1
 * and 1.2 reader and JSON read as the same float: [-]D+.D+(e[-+]D+)? (`3` -> `3.0`, `.5` ->
 * `0.5`, `+1e3` -> `1.0e+3`). Writes at most len + 3 bytes and a NUL to out; its length. */
size_t yscalar_float_canonical(const char *s, size_t len, char *out);

/* True when a plain scalar with this text would not be read back as this string by a
 * YAML 1.1 or 1.2 reader (a null, bool, number, date, merge key ...). */
bool yscalar_misread(const char *s, size_t len);

/* Whether s[0..n) is printable ASCII (0x20-0x7E), a byte a column: checked a word at a
 * time. Inline: a call was a sixth of source_span's cost. */
static inline bool yscalar_printable(const char *s, size_t n)
{
    const uint64_t spaces = 0x2020202020202020ull, dels = 0x7F7F7F7F7F7F7F7Full;
    const uint64_t high = 0x8080808080808080ull, low = 0x0101010101010101ull;
    size_t i = 0;

    for (; i + 8 <= n; i += 8) {
        uint64_t w, d;

        memcpy(&w, s + i, 8);
        d = w ^ dels; /* a zero byte where w has a DEL */
        /* a byte below 0x20 borrows into its high bit; one from 0x80 has it */
        if ((((w - spaces) | w) & high) || ((d - low) & ~d & high))
            return false;
    }
    for (; i < n; i++)
        if ((unsigned char)(s[i] - 0x20) > 0x7E - 0x20)
            return false;
    return true;
}

enum yscalar_style { YS_PLAIN, YS_LITERAL, YS_DOUBLE_QUOTED };

/* The canonical way to write the string s[0..len): plain when every reader gets the
 * same string back, a literal block for multi-line text (not for keys), else quoted. */
enum yscalar_style yscalar_style(const char *s, size_t len, bool is_key);

#endif
