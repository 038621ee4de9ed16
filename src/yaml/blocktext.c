#define _GNU_SOURCE /* memrchr */
#include "fanout/blocktext.h"

#include <stdint.h>
#include <string.h>

#include "fanout/yscalar.h"

/* What libfyaml 0.7.12 makes of a block scalar's lines, transcribed from its line iterator
 * (pantoniou/libfyaml v0.7.12, src/lib/fy-atom.c: fy_atom_iter_line_analyze,
 * fy_atom_iter_line, fy_atom_iter_format) and its scanner (src/lib/fy-parse.c:
 * fy_fetch_block_scalar), for lines of spaces, text and LF, CRLF or CR line ends (a tab
 * only past the indentation, where it is text). It is YAML 1.2.2's section 8.1
 * (literal and folded content, chomping) but for a last line cut by the end of the input,
 * which clipping ends with a break all the same. Every other case (a tab in a line's
 * indentation, NEL, LS and PS, a header whose key or sequence entry it cannot
 * read, content no deeper than its key, an empty scalar, blank lines at the end of the
 * input) is libfyaml's: test_blocktext and the blocktext fuzz target hold it to libfyaml's
 * text. Where libfyaml is broken the text departs from it for YAML: a folded line, blank lines, then a line
 * one space deeper, where 0.7.12 counts the blank line's break but does not write it (its
 * text ends in a byte it never wrote); it is the text YAML 1.2.2 gives (8.1.3, example
 * 8.10: the breaks around a more-indented line are kept), which is libfyaml's length; so
 * is a folded line, blank lines, then a line whose text begins with a tab, and blank lines,
 * then a first line of white space with a tab (`run: |`, ``, `    \t`: "\n\t\n", npm yaml's
 * and PyYAML's; 0.7.12 gives "\t\n" and a byte it never wrote). */

enum chomp { CHOMP_CLIP, CHOMP_STRIP, CHOMP_KEEP };

/* The header's line h[0, i) without its line end and comment, read from its end (a comment
 * could hold anything: header_commented says where it starts): `|` or `>` (at
 * *indicator), a chomping indicator and an indentation indicator
 * in either order (YAML 1.2.2, 8.1.1), the node's properties (an anchor, a tag), then
 * what the scalar is the value of, whose column is the indentation n its lines are deeper
 * than (libfyaml's fyp->indent): a key (`run: |`, `- key: |`: the key's column) or a
 * sequence's entry (`- |`, `- - |`: its `-`'s). Anything else (`? |`, `: |`, an alias as
 * the key, the indicator below its key) is libfyaml's: with the indicator below its key
 * (`k:`, `  |`), 0.7.12 indents from the indicator (a "generated indent") and loses the
 * break of a last line indented deeper (`  a`, `   b`: "a\n b"). Inlined into its two
 * callers: a call of its own was 5K instructions of SGLang's render. */
static inline __attribute__((always_inline)) bool header_fields(const char *h, size_t i, bool folded,
                                                                enum chomp *chomp, unsigned *indent, size_t *n,
                                                                size_t *indicator)
{
    size_t k = 0;

    while (i > 0 && h[i - 1] == ' ')
        i--;
    *chomp = CHOMP_CLIP;
    *indent = 0;
    for (int j = 0; j < 2 && i > 0; j++, i--) {
        char c = h[i - 1];

        if ((c == '-' || c == '+') && *chomp == CHOMP_CLIP)
            *chomp = c == '-' ? CHOMP_STRIP : CHOMP_KEEP;
        else if (c >= '1' && c <= '9' && !*indent)
            *indent = (unsigned)(c - '0');
        else
            break;
    }
    if (i < 3 || h[i - 1] != (folded ? '>' : '|') || h[i - 2] != ' ')
        return false;
    *indicator = i - 1;
    for (i -= 2;;) { /* the properties */
        size_t word;

        while (i > 0 && h[i - 1] == ' ')
            i--;
        for (word = i; word > 0 && h[word - 1] != ' ';)
            word--;
        if (word == i || (h[word] != '&' && h[word] != '!'))
            break;
        i = word;
    }
    /* the sequences' entries the line begins with: n is the last one's column */
    for (*n = SIZE_MAX;; *n = k++) {
        while (k < i && h[k] == ' ')
            k++;
        if (k >= i || h[k] != '-' || (k + 1 < i && h[k + 1] != ' '))
            break;
    }
    if (k == i) /* `- |` */
        return *n != SIZE_MAX;
    *n = k; /* `key: |`; not `key: : |`, a mapping libfyaml begins at the second `:` (YAML
             * and both platforms refuse it: stream.c) */
    if (h[i - 1] != ':' || k >= i - 1 || strchr("-?:,[]{}#&*!|>%@`", h[k]))
        return false;
    for (const char *c = h + k; (c = memchr(c, ':', (size_t)(h + i - 1 - c))) != NULL; c++) {
        if (c[1] == ' ')
            return false;
    }
    return true;
}

/* header_fields of h[0, len) but its trailing white space, which holds no tab. */
static bool header_line(const char *h, size_t len, bool folded, enum chomp *chomp, unsigned *indent, size_t *n,
                        size_t *indicator)
{
    while (len > 0 && (h[len - 1] == ' ' || h[len - 1] == '\t'))
        len--;
    return !memchr(h, '\t', len) && header_fields(h, len, folded, chomp, indent, n, indicator);
}

/* The header of `b` (header_fields) with a comment or tabs on its line: the line ends at
 * the first `#` after white space that leaves a header (a quoted key may hold ` #` too). */
static __attribute__((noinline)) bool header_commented(const struct blocktext *b, enum chomp *chomp,
                                                       unsigned *indent, size_t *n, size_t *indicator)
{
    const char *h = b->header;
    size_t len = b->header_len;
    bool read;

    if (len > 0 && h[len - 1] == '\r')
        len--;
    if (memchr(h, '\r', len))
        return false;
    read = !memchr(h, '#', len) && header_line(h, len, b->folded, chomp, indent, n, indicator);
    for (const char *c = h; !read && (c = memchr(c, '#', (size_t)(h + len - c))) != NULL; c++)
        read = c > h && (c[-1] == ' ' || c[-1] == '\t') &&
               header_line(h, (size_t)(c - h), b->folded, chomp, indent, n, indicator);
    return read;
}

/* The header of `b` (header_fields). */
static bool header_read(const struct blocktext *b, enum chomp *chomp, unsigned *indent, size_t *n)
{
    const char *h = b->header;
    size_t i = b->header_len, indicator;

    if (i > 0 && h[i - 1] == '\r') /* a CRLF line end */
        i--;
    if (memchr(h, '#', i) || memchr(h, '\t', i) || memchr(h, '\r', i))
        return header_commented(b, chomp, indent, n, &indicator);
    return header_fields(h, i, b->folded, chomp, indent, n, &indicator);
}

/* Whether every line break of p[0..n) is a LF, a CRLF or a CR (YAML 1.2.2 5.4: each is
 * one break, read as a LF) and no tab stands in a line's indentation: *tab_spaces is the
 * fewest spaces a line has before a tab that comes before its text (SIZE_MAX: none), which
 * must be the indentation at least (8.1.2, 8.1.3: past it a tab is text, or white space
 * that makes a folded line more indented; within it the line is libfyaml's to refuse).
 * NEL, LS and PS are breaks to YAML 1.1 only. `plain`: none of them is there. */
static bool plain_lines(const char *p, size_t n, bool plain, size_t *tab_spaces)
{
    const char *end = p + n;

    *tab_spaces = SIZE_MAX;
    for (const char *q = p; (q = memchr(q, '\t', (size_t)(end - q))) != NULL; q++) {
        const char *c = q;

        while (c > p && c[-1] == ' ')
            c--;
        if (c > p && c[-1] != '\n' && c[-1] != '\r')
            continue; /* after the line's first other character (text) or a tab already seen */
        if ((size_t)(q - c) < *tab_spaces)
            *tab_spaces = (size_t)(q - c);
    }
    return plain || !yscalar_has_yaml11_break(p, n);
}

struct line {
    const char *p;
    size_t len;    /* without its break */
    size_t spaces; /* leading */
    bool lb;       /* ended by a break (else by the body's end) */
    const char *next; /* past its break */
};

/* The line at p; `cr`: the body has a CR (a CRLF or a CR is a break too, each one). */
static struct line line_at(const char *p, const char *end, bool cr)
{
    const char *lb = memchr(p, '\n', (size_t)(end - p)), *r;
    struct line l = {p, (size_t)((lb ? lb : end) - p), 0, lb != NULL, lb ? lb + 1 : end};

    if (cr && (r = memchr(p, '\r', l.len)) != NULL) {
        l.len = (size_t)(r - p);
        l.lb = true;
        l.next = r + 1 < end && r[1] == '\n' ? r + 2 : r + 1;
    }
    /* the indentation, 8 bytes at a time where the byte order lets the first non-space
     * be told by its bit (a byte at a time was most of the formatting's own work) */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (uint64_t w; l.spaces + 8 <= l.len; l.spaces += 8) {
        memcpy(&w, p + l.spaces, 8);
        if ((w ^= 0x2020202020202020ull) != 0) {
            l.spaces += (size_t)__builtin_ctzll(w) / 8;
            return l;
        }
    }
#endif
    while (l.spaces < l.len && p[l.spaces] == ' ')
        l.spaces++;
    return l;
}

static bool line_blank(const struct line *l)
{
    return l->spaces == l->len;
}

/* Whether folded line `l` is more indented (8.1.3: s-nb-spaced-text, white space past the
 * indentation: its breaks are kept, not folded). */
static bool line_spaced(const struct line *l, size_t ind)
{
    return l->spaces > ind || (l->spaces == ind && l->len > ind && l->p[ind] == '\t');
}

/* libfyaml's trailing_breaks_ws of a folded line followed by blank lines, the first at `p`:
 * whether a blank line has more spaces than the indentation or the next text line is more
 * indented (its breaks are kept, not folded); *departs when that line is exactly one space
 * deeper, which libfyaml 0.7.12 formats a byte short. */
static bool spaced_after(const char *p, const char *end, size_t ind, bool cr, bool *departs)
{
    for (;;) {
        struct line l = line_at(p, end, cr);

        if (!line_blank(&l)) {
            *departs = *departs || l.spaces == ind + 1 || (l.spaces == ind && l.p[ind] == '\t');
            return line_spaced(&l, ind);
        }
        if (l.len > ind)
            return true;
        if (!l.lb)
            return false;
        p = l.next;
    }
}

/* Appends line `l` past the indentation (a blank line shorter than it: nothing). */
static char *put_line(char *o, const struct line *l, size_t ind)
{
    if (l->len > ind) {
        memcpy(o, l->p + ind, l->len - ind);
        o += l->len - ind;
    }
    return o;
}

/* The most spaces a line of p[0..end) holds (lines of spaces only). */
static size_t longest_spaces(const char *p, const char *end)
{
    size_t most = 0, run = 0;

    for (; p < end; p++) {
        run = *p == ' ' ? run + 1 : 0;
        if (run > most)
            most = run;
    }
    return most;
}

bool blocktext_cut(const struct blocktext *b, bool *keep)
{
    const char *p = b->body, *end = p + b->body_len, *line = end;
    enum chomp chomp;
    unsigned indent;
    size_t n;

    *keep = false;
    /* a NEL (C2 85), LS or PS (E2 80 A8/A9) at the end is a break to yaml.v3 */
    if (!b->at_eof || !b->body_len || end[-1] == '\n' || end[-1] == '\r' ||
        (b->body_len >= 2 && (unsigned char)end[-2] == 0xC2 && (unsigned char)end[-1] == 0x85) ||
        (b->body_len >= 3 && (unsigned char)end[-3] == 0xE2 && (unsigned char)end[-2] == 0x80 &&
         ((unsigned char)end[-1] == 0xA8 || (unsigned char)end[-1] == 0xA9)))
        return false;
    while (line > p && line[-1] != '\n' && line[-1] != '\r')
        line--;
    while (line < end && (*line == ' ' || *line == '\t'))
        line++;
    if (line == end)
        return false;
    *keep = header_read(b, &chomp, &indent, &n) && chomp == CHOMP_KEEP;
    return true;
}

bool blocktext_format(struct blocktext *b, char *out, size_t *len)
{
    const char *p = b->body, *end = p + b->body_len, *q = end, *z;
    enum chomp chomp;
    unsigned explicit_ind;
    size_t ind, n, tab_spaces;
    struct line l, next, first, top;
    char *o = out;
    unsigned pending;
    bool cr = !b->plain && memchr(p, '\r', b->body_len) != NULL;

    b->departs = false;
    b->shallow = 0;
    if (!header_read(b, &chomp, &explicit_ind, &n) || !plain_lines(p, b->body_len, b->plain, &tab_spaces))
        return false;
    /* z: the last line with text; none: an empty scalar (8.1.1.2: clipped and stripped,
     * nothing; the breaks `+` keeps are libfyaml's). 0.7.12 often gives one byte it never
     * wrote then (`k: |` at the end of the input, `k: >2`, a line of spaces without a
     * break: the yamlprobe, class E2), and sometimes nothing, so it departs. */
    while (q > p && (q[-1] == ' ' || q[-1] == '\n' || q[-1] == '\r'))
        q--;
    if (q == p) {
        if (chomp == CHOMP_KEEP || (explicit_ind && longest_spaces(p, end) > n + explicit_ind))
            return false; /* spaces past a given indentation are text (8.1.2) */
        b->departs = true;
        *len = 0;
        return true;
    }
    z = q - 1;
    if (!cr) { /* a search back (a byte at a time, it was a sixth of the formatting) */
        const char *lb = memrchr(p, '\n', (size_t)(z - p));

        z = lb ? lb + 1 : p;
    }
    while (z > p && z[-1] != '\n' && z[-1] != '\r')
        z--;
    /* the first line with text: its indentation is the scalar's, unless the header says */
    top = line_at(p, end, cr); /* the first line, read once for both walks */
    for (first = top; line_blank(&first); first = line_at(first.next, end, cr))
        ;
    ind = explicit_ind ? n + explicit_ind : first.spaces;
    if (tab_spaces < ind || tab_spaces <= n)
        return false; /* a tab in the indentation */
    /* blank lines, then a line of white space with a tab past the indentation: 0.7.12
     * loses a break and gives a byte it never wrote (`|`, ``, `  \t`: "\t\n\0", YAML "\n\t\n") */
    if (first.p != top.p) {
        size_t w = first.spaces;

        while (w < first.len && (first.p[w] == '\t' || first.p[w] == ' '))
            w++;
        b->departs = w == first.len;
    }
    /* libfyaml 0.7.12 takes text no deeper than its key (block_text_read, stream.c) */
    if (first.spaces <= n) {
        b->shallow = explicit_ind ? 0 : first.spaces + 1;
        return false;
    }
    for (l = top; l.p != z; l = next) {
        bool spaced = false;

        next = line_at(l.next, end, cr);
        if (!line_blank(&l) ? l.spaces < ind : !explicit_ind && l.p < first.p && l.len > ind)
            return false; /* not as libfyaml scanned it */
        o = put_line(o, &l, ind);
        if (b->folded && !line_blank(&l) && line_blank(&next))
            spaced = spaced_after(next.p, end, ind, cr, &b->departs);
        if (!b->folded || line_blank(&l) || line_spaced(&l, ind) || line_spaced(&next, ind) || spaced)
            *o++ = '\n';
        else if (!line_blank(&next))
            *o++ = ' '; /* folded */
    }
    /* l is the line at z, where the walk stopped */
    if (l.spaces < ind || (!b->at_eof && !l.lb))
        return false;
    o = put_line(o, &l, ind);
    /* chomping: what follows the last text line is blank lines, then at most the spaces
     * before the next line's text (fewer than the indentation) */
    pending = 1;
    if (chomp == CHOMP_KEEP && l.lb)
        *o++ = '\n';
    while (l.lb) {
        l = line_at(l.next, end, cr);
        if (!l.lb) {
            if (l.len > ind)
                return false;
            break;
        }
        if (chomp == CHOMP_KEEP) {
            o = put_line(o, &l, ind);
            *o++ = '\n';
        } else if (l.len > ind) {
            /* spaces past the indentation are text: the breaks before them are kept */
            memset(o, '\n', pending);
            o = put_line(o + pending, &l, ind);
            pending = 1;
        } else {
            pending++;
        }
    }
    if (chomp == CHOMP_CLIP)
        *o++ = '\n';
    *len = (size_t)(o - out);
    return true;
}

bool blocktext_shallow(const struct blocktext *b, struct blocktext_shallow *out)
{
    const char *p = b->body, *end = p + b->body_len;
    size_t n = 0, blanks = 0;
    enum chomp chomp = CHOMP_CLIP;
    unsigned indent = 0;

    if (!header_commented(b, &chomp, &indent, &n, &out->indicator) || indent)
        return false; /* with an indentation indicator libfyaml ends the scalar as YAML does */
    for (;;) {
        const char *q = p;

        while (q < end && *q == ' ')
            q++;
        if (q < end && *q == '\r' && q + 1 < end && q[1] == '\n')
            q++;
        if (q == end || *q == '\t' || *q == '\r')
            return false;
        if (*q != '\n')
            break;
        blanks++;
        p = q + 1;
    }
    for (out->col = 1; *p == ' '; p++)
        out->col++;
    out->breaks = chomp == CHOMP_KEEP ? blanks : 0;
    return out->col <= n + 1;
}
