#include "fanout/quotedtext.h"

#include <string.h>

#include "fanout/yscalar.h"

static bool is_white(char c)
{
    return c == ' ' || c == '\t';
}

/* A single-quoted line's text, its '' escapes read, written at `w` (`more`: a line break
 * follows, so its trailing white space goes): the end of what was written, NULL on a lone
 * quote. */
static char *unescape_single(const char *p, const char *end, char *w, bool more)
{
    char *start = w;

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
    while (more && w > start && is_white(w[-1]))
        w--;
    return w;
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Code point `c` as UTF-8 at `w`: the end, NULL for a surrogate or past U+10FFFF. */
static char *put_utf8(char *w, unsigned long c)
{
    if (c < 0x80) {
        *w++ = (char)c;
    } else if (c < 0x800) {
        *w++ = (char)(0xC0 | c >> 6);
        *w++ = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        if (c >= 0xD800 && c <= 0xDFFF)
            return NULL;
        *w++ = (char)(0xE0 | c >> 12);
        *w++ = (char)(0x80 | (c >> 6 & 0x3F));
        *w++ = (char)(0x80 | (c & 0x3F));
    } else if (c <= 0x10FFFF) {
        *w++ = (char)(0xF0 | c >> 18);
        *w++ = (char)(0x80 | (c >> 12 & 0x3F));
        *w++ = (char)(0x80 | (c >> 6 & 0x3F));
        *w++ = (char)(0x80 | (c & 0x3F));
    } else {
        return NULL;
    }
    return w;
}

/* The escape after the backslash at p[-1] (YAML 1.2.2, 5.7) written at *w: the byte after
 * it, NULL for what is not one. */
static const char *escape(const char *p, const char *end, char **w)
{
    static const char simple[] = "0\0a\ab\bt\t\t\tn\nv\vf\fr\re\x1b \x20\"\"//\\\\";
    unsigned digits = *p == 'x' ? 2 : *p == 'u' ? 4 : *p == 'U' ? 8 : 0;
    unsigned long c = 0;

    if (!digits) {
        for (size_t i = 0; i < sizeof(simple) - 1; i += 2)
            if (*p == simple[i]) {
                *(*w)++ = simple[i + 1];
                return p + 1;
            }
        c = *p == 'N' ? 0x85 : *p == '_' ? 0xA0 : *p == 'L' ? 0x2028 : *p == 'P' ? 0x2029 : 0;
        return c && (*w = put_utf8(*w, c)) ? p + 1 : NULL;
    }
    if ((size_t)(end - p) <= digits)
        return NULL;
    for (unsigned i = 1; i <= digits; i++) {
        int v = hex_value(p[i]);

        if (v < 0)
            return NULL;
        c = c << 4 | (unsigned)v;
    }
    return (*w = put_utf8(*w, c)) ? p + 1 + digits : NULL;
}

/* A double-quoted line's text, its escapes read, written at `w` (`more`: a line break
 * follows, so its trailing white space goes, but not an escaped one): the end of what was
 * written, NULL on a lone quote or a bad escape. *joined: it ended in an escaped break. */
static char *unescape_double(const char *p, const char *end, char *w, bool more, bool *joined)
{
    char *solid = w; /* the end of its text that a break does not trim */

    while (p < end) {
        const char *q = memchr(p, '\\', (size_t)(end - p)), *e = q ? q : end;
        size_t n = (size_t)(e - p);

        if (memchr(p, '"', n))
            return NULL;
        memcpy(w, p, n);
        w += n;
        while (e > p && is_white(e[-1]))
            e--;
        if (e > p)
            solid = w - (size_t)((q ? q : end) - e);
        if (!q)
            break;
        if (q + 1 == end) { /* an escaped break keeps the white space before it */
            if (!more)
                return NULL;
            *joined = true;
            return w;
        }
        if (!(p = escape(q + 1, end, &w)))
            return NULL;
        solid = w;
    }
    return more ? solid : w;
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
 * to a space (nothing after an escaped break); a break followed by k lines of white space
 * only gives k line feeds. The last line is never one of those k: it ends at the quote,
 * not at a break. */
bool quotedtext_format(const char *body, size_t len, char quote, char *out, size_t *out_len)
{
    const char *p = body, *end = body + len;
    char *w = out;
    unsigned empty = 0;
    bool joined = false;

    if (odd_breaks(body, len))
        return false;
    for (bool first = true;; first = false) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;

        if (nl && le > p && le[-1] == '\r')
            le--;
        if (!first)
            while (p < le && is_white(*p))
                p++;
        if (!first && nl && p == le) { /* an empty line */
            empty++;
            p = nl + 1;
            continue;
        }
        if (!first) {
            if (empty)
                memset(w, '\n', empty);
            else if (!joined)
                *w = ' ';
            w += empty ? empty : !joined;
            empty = 0;
            joined = false;
        }
        w = quote == '"' ? unescape_double(p, le, w, nl != NULL, &joined) : unescape_single(p, le, w, nl != NULL);
        if (!w)
            return false;
        if (!nl)
            break;
        p = nl + 1;
    }
    *out_len = (size_t)(w - out);
    return true;
}

bool quotedtext_shallow(const char *body, size_t len, size_t least, size_t *line, size_t *col)
{
    const char *p = body, *end = body + len, *nl;

    for (*line = 1; (nl = memchr(p, '\n', (size_t)(end - p))) != NULL; ++*line) {
        for (p = nl + 1, *col = 0; *col < least && p + *col < end && p[*col] == ' ';)
            ++*col;
        if (*col < least && (p + *col == end || (p[*col] != '\n' && p[*col] != '\r')))
            return true; /* not an empty line (l-empty: spaces, then a break) */
    }
    return false;
}
