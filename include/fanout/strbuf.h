/* strbuf: a growing string, for text made piece by piece (glob's regular expressions,
 * the expression engine's strings, JSON and canonical text). */
#ifndef FANOUT_STRBUF_H
#define FANOUT_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Zero-initialised it is empty and unbounded. `s` is NUL-terminated once anything is
 * put (NULL before). */
struct strbuf {
    char *s;
    size_t len, cap;
    size_t max;    /* the longest text in bytes; 0: no bound but memory */
    bool oom;      /* an allocation failed or the text would pass `max`: puts are no-ops */
    bool too_long; /* past `max` (oom is set too); kept by strbuf_take */
};

/* Room for `n` more bytes and the NUL (within `max`); false when memory is out or the
 * text would pass `max` (the flags set, as a put would). */
bool strbuf_reserve(struct strbuf *b, size_t n);

void strbuf_put(struct strbuf *b, const char *s, size_t n);

static inline void strbuf_puts(struct strbuf *b, const char *s)
{
    strbuf_put(b, s, strlen(s));
}

/* Not inline: inlined into the expression engine's many putc calls, the code it grew by
 * moved libfyaml's constants so that its strchr cost more than the calls saved. */
void strbuf_putc(struct strbuf *b, char c);

/* Keeps the first `n` bytes. */
void strbuf_cut(struct strbuf *b, size_t n);

/* The text, NUL-terminated and handed over (the buffer is empty again, `max` kept), or
 * NULL when out of memory or too long (the buffer freed, `too_long` kept). */
char *strbuf_take(struct strbuf *b, size_t *len);

/* Frees the text; the buffer is empty again (`max` kept). */
void strbuf_free(struct strbuf *b);

#endif
