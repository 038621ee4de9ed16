/* text: text written by hand into a bounded buffer, where snprintf costs too much (a
 * label or a key for every job, a number for every expression result). */
#ifndef FANOUT_TEXT_H
#define FANOUT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most bytes text_decimal writes: 20 digits and the NUL. */
#define TEXT_DECIMAL_MAX 21

/* `s` appended to buf[0..len) (cap bytes), NUL-terminated, cut to fit: the new length,
 * or cap when cut (a later append adds nothing). */
size_t text_append(char *buf, size_t cap, size_t len, const char *s);
/* `u` in decimal into `out` (TEXT_DECIMAL_MAX bytes), NUL-terminated: its length. */
size_t text_decimal(char *out, uint64_t u);
/* The length, at most `max`, of the start of s[0..len) that ends between two UTF-8
 * characters: a text cut for a message stays UTF-8. */
size_t text_utf8_cut(const char *s, size_t len, size_t max);
/* s[0..len) as a message shows it into `out` (max + 3 bytes): whole, or cut by
 * text_utf8_cut with "..." after it. Its length (not NUL-terminated). */
size_t text_shown(char *out, const char *s, size_t len, size_t max);

/* Whether the NUL-terminated `name` is the `len` bytes at `s`: compared inline, a name
 * being a few letters (a strcmp is a call, whose cost also goes with where the linker
 * put the names). */
static inline bool text_is(const char *name, const char *s, size_t len)
{
    size_t i = 0;

    /* not past name's end: s may hold a NUL (a key "label\0") */
    while (i < len && name[i] && name[i] == s[i])
        i++;
    return i == len && name[i] == '\0';
}

#endif
