/* strbuf: a growing string (include/fanout/strbuf.h). */
#include "fanout/strbuf.h"

#include <stdint.h>
#include <stdlib.h>

#include "fanout/arrays.h"

bool strbuf_reserve(struct strbuf *b, size_t n)
{
    if (b->oom)
        return false;
    if (n > (b->max ? b->max : SIZE_MAX) - b->len) {
        b->oom = b->too_long = true;
        return false;
    }
    if (b->cap - b->len <= n) {
        /* 256 to begin with: an expression's residual or a part of a template is most
         * often longer than 64 bytes, and each realloc copied it (SGLang's render made 977) */
        char *p = array_grow(b->s, &b->cap, b->len + n + 1, 256, 1);

        if (!p) {
            b->oom = true;
            return false;
        }
        b->s = p;
    }
    return true;
}

void strbuf_put(struct strbuf *b, const char *s, size_t n)
{
    if (!strbuf_reserve(b, n))
        return;
    if (n)
        memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void strbuf_putc(struct strbuf *b, char c)
{
    if (!b->oom && b->cap - b->len > 1 && b->len < (b->max ? b->max : SIZE_MAX)) {
        b->s[b->len++] = c; /* the common case, without strbuf_put's checks */
        b->s[b->len] = '\0';
        return;
    }
    strbuf_put(b, &c, 1);
}

void strbuf_cut(struct strbuf *b, size_t n)
{
    if (n < b->len) {
        b->len = n;
        b->s[n] = '\0';
    }
}

char *strbuf_take(struct strbuf *b, size_t *len)
{
    char *s;

    strbuf_put(b, "", 0); /* an empty text still gets its NUL */
    if (b->oom) {
        bool too_long = b->too_long;

        strbuf_free(b);
        b->too_long = too_long;
        return NULL;
    }
    s = b->s;
    if (len)
        *len = b->len;
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

void strbuf_free(struct strbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
    b->oom = b->too_long = false;
}
