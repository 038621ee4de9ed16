#include "fanout/quotedtext.h"

#include <string.h>

#include "fanout/yscalar.h"

static bool is_white(char c)
{
    return c == ' ' || c == '\t';
}

/* Line l's text, its escapes read, written at `w`: returns the end of what was written,
 * NULL on a lone quote. */
static char *unescape(const char *p, const char *end, char *w)
{
    while (p < end) {
        const char *q = memchr(p, '\'', (size_t)(end - p));
        size_t n = (size_t)((q ? q : end) - p);

        memmove(w, p, n);
        w += n;
        if (!q)
            break;
        if (q + 1 >= end || q[1] != '\'')
            return NULL;
        *w++ = '\'';
        p = q + 2;
    }
    return w;
}

/* Whether p[0..n) holds a CR that does not end a line, NEL, LS or PS. */
static bool odd_breaks(const char *p, size_t n)
{
    const char *end = p + n;

    for (const char *q = p; (q = memchr(q, '\r', (size_t)(end - q))) != NULL; q++)
        if (q + 1 == end || q[1] != '\n')
            return true;
    return yscalar_has_yaml11_break(p, n);
}

/* The first line keeps its leading white space, the last its trailing white space (up to
 * the quote); every other edge of a line is trimmed. A break between two lines is folded
 * to a space; a break followed by k lines of white space only gives k line feeds. The
 * last line is never one of those k: it ends at the quote, not at a break. */
bool quotedtext_format(const char *body, size_t len, char *out, size_t *out_len)
{
    const char *p = body, *end = body + len;
    char *w = out;
    unsigned empty = 0;

    if (odd_breaks(body, len))
        return false;
    for (bool first = true;; first = false) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;

        if (!first)
            while (p < le && is_white(*p))
                p++;
        if (nl) {
            if (le > p && le[-1] == '\r')
                le--;
            while (le > p && is_white(le[-1]))
                le--;
        }
        if (!first && nl && p == le) { /* an empty line */
            empty++;
            p = nl + 1;
            continue;
        }
        if (!first) {
            if (empty)
                memset(w, '\n', empty);
            else
                *w = ' ';
            w += empty ? empty : 1;
            empty = 0;
        }
        if (!(w = unescape(p, le, w)))
            return false;
        if (!nl)
            break;
        p = nl + 1;
    }
    *out_len = (size_t)(w - out);
    return true;
}
