#include "fanout/scratch.h"
#include "fanout/source.h"

#include <errno.h>
#include <fcntl.h>
#include <libfyaml.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fanout/output.h"
#include "fanout/strhash.h"
#include "fanout/yscalar.h"

/* Incremental UTF-8 checker; the state survives between reads. Positions are not
 * counted as bytes go by (that was a tenth of a render): an error's line and column are
 * worked out afterwards from its offset. */
struct utf8_state {
    uint64_t offset;     /* bytes accepted so far */
    uint64_t char_start; /* offset of the character being decoded (or refused) */
    unsigned need;       /* continuation bytes still expected */
    unsigned char lo, hi; /* allowed range of the next continuation byte */
    uint32_t cp;         /* the code point being decoded */
    bool bom;            /* the last failure was a misplaced byte order mark */
    bool lead_bom;       /* the input begins with a byte order mark */
    unsigned char last;  /* the last byte accepted */
    unsigned char before; /* the byte before the character being decoded (0: none) */
    /* where the first NEL, LS, PS or BOM begins (UINT64_MAX: none yet), which turn the
     * window off (struct window): noted as characters are decoded, where a search of
     * each handed piece for their four byte sequences cost four scans of the input */
    uint64_t spoiler;
};

/* Bytes are checked a buffer ahead of the parser, so that it is only ever handed bytes
 * followed by the rest of their character: libfyaml 0.7.12 loops forever on some
 * incomplete sequences at the end of its input (`%` followed by 0xC3, upstream #101). */
#define READ_BUFFER 65536

/* What the parser was handed last (source_span): a scalar that is its input's bytes as
 * they stand is read from here rather than formatted into a copy by libfyaml
 * (fy_token_get_text, a tenth of a render). Lines are numbered here as libfyaml numbers
 * them only while every line break is a LF or a CRLF, and columns count bytes only after
 * a byte order mark is gone: a CR alone, NEL, LS, PS or BOM handed turns the window off.
 * A whole input handed at once is found by libfyaml's byte offsets, which count from its
 * start then (from a chunk's, in a callback's input): no table of line starts (a memchr
 * a line) and no check of a scalar's columns, 0.56M of SGLang's 39.4M instructions. */
#define WINDOW_BYTES (1u << 18)
#define WINDOW_LINES (1u << 13)
struct window {
    char *bytes;          /* a ring: the byte handed at offset o is bytes[o % WINDOW_BYTES] */
    uint64_t *line_start; /* a ring: where line l (0-based) starts, at [l % WINDOW_LINES]; not
                           * kept when `borrowed` */
    uint64_t handed;      /* bytes handed since the attach */
    uint64_t lines;       /* the last line begun */
    bool off;
    bool borrowed; /* bytes is the source's buffer, which holds the whole input */
    bool cr;       /* a CR has been handed (of a CRLF: a CR alone turns the window off) */
    bool cr_last;  /* the last byte handed is a CR: a CRLF's if the next is a LF */
};

/* What there is of an input to read again, from any offset: a regular file, the spool
 * of one that is not (as far as it was read), or a text in memory. */
struct stored {
    int fd;           /* -1: `text` */
    const char *text;
    uint64_t size;    /* how much there is; UINT64_MAX: up to the file's own end */
};

/* Where the parser is handed `--- ` first (see decide_prefix). */
enum prefix { PREFIX_UNDECIDED, PREFIX_NONE, PREFIX_PENDING, PREFIX_HANDED };

struct source {
    char *name;
    struct stored bytes;
    FILE *spool;       /* a non-seekable input's temporary file; NULL: none */
    int raw;           /* a non-seekable input, until its end is read; -1: none (any more) */
    bool own_fd, own_raw; /* bytes.fd, raw are ours to close (not stdin's) */
    uint64_t spool_limit;
    uint64_t next;     /* the offset of the next byte fetched */
    struct diag *diag;
    struct utf8_state st;
    /* buf[pos, ready): checked, not yet handed on; buf[ready, end): the start of a
     * character whose other bytes are not read yet */
    char *buf; /* READ_BUFFER bytes, allocated by the first attach */
    size_t pos, ready, end;
    struct strhash_stream digest; /* of the bytes handed on since the last attach */
    uint64_t handed;              /* how many */
    /* What every read must agree on: the first `seen` bytes the longest read so far
     * handed on, and their digest; `whole`: a read found the end after them. */
    uint64_t seen, seen_digest;
    bool whole, at_end;
    bool changed; /* two reads disagreed */
    size_t unbroken; /* bytes handed on since the parser last made progress */
    unsigned progress_line, progress_col; /* where it was then */
    bool failed;
    enum prefix prefix;
    size_t prefix_at;        /* in buf: where `--- ` goes */
    unsigned prefixed_line;  /* the line it went on (its columns are 4 more to libfyaml); 0: none */
    unsigned mark_line;      /* the excerpt last taken: its line, and where that begins */
    uint64_t mark_offset;
    struct window win; /* while attached */
    /* bytes the attached parser is handed changed (source_attach_patched): the patches, the
     * next one to hand, the offset of the parser's next byte, a whole input's patched copy */
    const struct source_patch *patches;
    size_t n_patches, next_patch;
    uint64_t fed;
    char *patched;
    struct source *older, *newer; /* the open sources, newest first (`live`) */
};

/* Every open source, newest first: a message's excerpt is read from what was read.
 * Per thread: a thread's messages are about the sources it reads. */
static _Thread_local struct source *live;

static void utf8_reset(struct utf8_state *st)
{
    memset(st, 0, sizeof(*st));
    st->lo = 0x80;
    st->hi = 0xBF;
    st->spoiler = UINT64_MAX;
}

#define HIGH_BITS 0x8080808080808080ull
#define LOW_BITS 0x0101010101010101ull

/* Checks p[0..n) on from `st`. Returns how many bytes are good (n, or the index of the
 * first bad one); *complete: how many of those end on a character boundary. A U+FEFF is
 * a byte order mark at offset 0; at the start of any other line (or after that mark) it
 * is refused: Buildkite's gopkg.in/yaml.v3 skips it there (scannerc.go
 * yaml_parser_scan_to_next_token: a BOM at column 0), where libfyaml and GitHub's npm yaml
 * read it as text, so a doubled BOM would make `steps:` another key to one of them.
 * Elsewhere (inside a quoted scalar, YAML 1.2.2 5.2; a plain one, a comment) all of them
 * read it as text, yaml.v3's reader taking it as printable (readerc.go
 * yaml_parser_update_buffer: #xE000-#xFFFD). */
static size_t utf8_run(struct utf8_state *st, const unsigned char *p, size_t n, size_t *complete)
{
    size_t i = 0;

    *complete = st->need ? 0 : n;
    while (i < n) {
        unsigned char c;

        if (!st->need) {
            /* ASCII without NUL, a word at a time */
            while (i + 8 <= n) {
                uint64_t w;

                memcpy(&w, p + i, 8);
                if ((w & HIGH_BITS) || ((w - LOW_BITS) & ~w & HIGH_BITS))
                    break;
                i += 8;
            }
            while (i < n && p[i] && p[i] < 0x80)
                i++;
            if (i == n)
                break;
            c = p[i];
            st->char_start = st->offset + i;
            /* kept now: the character may end in the next run, which starts past it */
            st->before = i ? p[i - 1] : st->last;
            *complete = i;
            if (c >= 0xC2 && c <= 0xDF) {
                st->need = 1;
                st->cp = c & 0x1Fu;
            } else if (c >= 0xE0 && c <= 0xEF) {
                st->need = 2;
                st->cp = c & 0x0Fu;
                if (c == 0xE0)
                    st->lo = 0xA0; /* overlong */
                else if (c == 0xED)
                    st->hi = 0x9F; /* surrogates */
            } else if (c >= 0xF0 && c <= 0xF4) {
                st->need = 3;
                st->cp = c & 0x07u;
                if (c == 0xF0)
                    st->lo = 0x90; /* overlong */
                else if (c == 0xF4)
                    st->hi = 0x8F; /* above U+10FFFF */
            } else {
                break; /* NUL, a stray continuation byte, 0xC0, 0xC1, 0xF5.. */
            }
            i++;
            continue;
        }
        c = p[i];
        if (c < st->lo || c > st->hi)
            break;
        st->lo = 0x80;
        st->hi = 0xBF;
        st->cp = (st->cp << 6) | (c & 0x3Fu);
        i++;
        if (--st->need || (st->cp != 0x85 && st->cp != 0x2028 && st->cp != 0x2029 && st->cp != 0xFEFF))
            continue; /* more to come, or a character that changes nothing */
        if (st->spoiler == UINT64_MAX)
            st->spoiler = st->char_start;
        if (st->cp == 0xFEFF && st->char_start == 0)
            st->lead_bom = true;
        else if (st->cp == 0xFEFF &&
                 ((st->char_start == 3 && st->lead_bom) || st->before == '\n' || st->before == '\r')) {
            st->bom = true;
            /* the character is refused whole (it may have begun in an earlier run) */
            i = st->char_start > st->offset ? (size_t)(st->char_start - st->offset) : 0;
            break;
        }
    }
    if (!st->need)
        *complete = i;
    if (i)
        st->last = p[i - 1];
    st->offset += i;
    return i;
}

/* Up to `cap` bytes at `off` of what there is of the input: 0 at its end, -1 on a read
 * error (errno set). */
static ssize_t stored_read(const struct stored *s, void *buf, size_t cap, uint64_t off)
{
    ssize_t n;

    if (off >= s->size)
        return 0;
    if (cap > s->size - off)
        cap = (size_t)(s->size - off);
    if (s->fd < 0) {
        memcpy(buf, s->text + off, cap);
        return (ssize_t)cap;
    }
    do
        n = pread(s->fd, buf, cap, (off_t)off);
    while (n < 0 && errno == EINTR);
    return n;
}

/* Reads on from an offset, for position_of. */
struct cursor {
    const struct stored *s;
    uint64_t off;
};

static size_t next_from_stored(void *user, unsigned char *buf, size_t cap)
{
    struct cursor *c = user;
    ssize_t n = stored_read(c->s, buf, cap, c->off);

    if (n <= 0)
        return 0;
    c->off += (uint64_t)n;
    return (size_t)n;
}

/* YAML 1.2's line breaks as libfyaml counts lines (whose positions fanout's own must
 * match): LF, CR LF, or a CR alone. True when byte `c` ends a line; *after_cr carries a
 * CR across buffers, since the LF of a CR LF is not a second break. */
static bool ends_line(unsigned char c, bool *after_cr)
{
    bool lf_of_crlf = c == '\n' && *after_cr;

    *after_cr = c == '\r';
    return (c == '\n' || c == '\r') && !lf_of_crlf;
}

/* Line and column (1-based, in characters; a BOM at the start takes none) of `offset`
 * in what `s` holds. */
static void position_of(uint64_t offset, const struct stored *s, unsigned *line, unsigned *col)
{
    struct cursor c = {s, 0};
    unsigned char buf[8192];
    uint64_t at = 0;
    size_t n;
    bool after_cr = false;

    *line = 1;
    *col = 1;
    while (at < offset && (n = next_from_stored(&c, buf, sizeof(buf))) > 0) {
        for (size_t i = 0; i < n && at < offset; i++, at++) {
            if (ends_line(buf[i], &after_cr)) {
                (*line)++;
                *col = 1;
            } else if (buf[i] != '\n' && (buf[i] & 0xC0) != 0x80 && !(at == 0 && buf[i] == 0xEF)) {
                (*col)++;
            }
        }
    }
}

/* Runs the checker over a whole buffer. True when clean; else *at is the offset where
 * the bad character starts and *bad_byte its bad byte (0 when cut off at the end). */
static bool check_buffer(struct utf8_state *st, const unsigned char *buf, size_t len, size_t *bad,
                         uint64_t *at)
{
    size_t complete, good;

    utf8_reset(st);
    good = utf8_run(st, buf, len, &complete);
    *bad = good;
    *at = st->need || good < len ? st->char_start : len;
    return good == len && !st->need;
}

bool source_check_utf8(const unsigned char *buf, size_t len, size_t *bad, unsigned *line,
                       unsigned *col)
{
    struct utf8_state st;
    struct stored m = {-1, (const char *)buf, len};
    size_t good;
    uint64_t at;
    bool ok = check_buffer(&st, buf, len, &good, &at);
    unsigned l, c;

    if (line || col) /* a second walk over the buffer: only when asked */
        position_of(at, &m, &l, &c);
    if (bad)
        *bad = st.bom ? (size_t)at : good;
    if (line)
        *line = l;
    if (col)
        *col = c;
    return ok;
}

/* One message for the first bad byte `c` of an input (at_eof: a sequence cut off), at
 * line:col. */
static void report_utf8(struct diag *d, const char *name, const struct utf8_state *st,
                        unsigned line, unsigned col, unsigned char c, bool at_eof)
{
    const char *what = at_eof      ? "truncated UTF-8 sequence at end of input"
                       : st->bom   ? "a byte order mark (U+FEFF) is only allowed at the start of the input and "
                                     "within a line (at a line's start Buildkite's reader skips it, GitHub's "
                                     "reads it as text)"
                       : c == 0    ? "NUL byte in input"
                                   : NULL;

    if (what)
        diag_report(d, DIAG_ERROR, DIAG_INPUT, name, line, col, RULE_UTF8, "%s", what);
    else
        diag_report(d, DIAG_ERROR, DIAG_INPUT, name, line, col, RULE_UTF8, "invalid UTF-8 byte 0x%02X", c);
}

/* Reports the bad character that starts at src->st.char_start: its position is found by
 * reading the input again from the start (errors are rare, reading is cheap; a spooled
 * input holds the bad byte already). */
static void report_bad_byte(struct source *src, unsigned char c, bool at_eof)
{
    unsigned line, col;

    src->failed = true;
    position_of(src->st.char_start, &src->bytes, &line, &col);
    report_utf8(src->diag, src->name, &src->st, line, col, c, at_eof);
}

static void fail_io(struct source *src, const char *what)
{
    src->failed = true;
    diag_report(src->diag, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, RULE_IO, "%s: %s", what, strerror(errno));
}

/* Appends n bytes to the spool of a non-seekable input, within its limit. */
static int spool_append(struct source *src, const char *p, size_t n)
{
    int fd = fileno(src->spool);

    if (src->bytes.size + n > src->spool_limit) {
        src->failed = true;
        diag_report(src->diag, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, RULE_SIZE,
                    "more than %llu MiB from a pipe or device: such input is kept in a temporary file "
                    "while it is read (to be read twice), up to that much",
                    (unsigned long long)(src->spool_limit >> 20));
        return -1;
    }
    for (size_t done = 0; done < n;) {
        ssize_t w = pwrite(fd, p + done, n - done, (off_t)(src->bytes.size + done));

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            fail_io(src, "cannot write a temporary file");
            return -1;
        }
        done += (size_t)w;
    }
    src->bytes.size += n;
    return 0;
}

/* Up to `cap` more bytes of the input, from src->next: what is stored, and past that
 * (a non-seekable input read for the first time) from the input itself, spooled as it
 * comes, so that every check runs while it is read. A regular file is read on from its
 * offset (rewound by source_rewind), which shows how far a read got. 0 at the end, -1
 * after reporting. */
static ssize_t fetch(struct source *src, char *buf, size_t cap)
{
    ssize_t n;

    if (src->own_fd) {
        do
            n = read(src->bytes.fd, buf, cap);
        while (n < 0 && errno == EINTR);
    } else if (src->raw < 0 || src->next < src->bytes.size) {
        n = stored_read(&src->bytes, buf, cap, src->next);
    } else {
        do
            n = read(src->raw, buf, cap);
        while (n < 0 && errno == EINTR);
        if (n == 0 && src->own_raw)
            close(src->raw);
        if (n == 0)
            src->raw = -1;
        if (n > 0 && spool_append(src, buf, (size_t)n) != 0)
            return -1;
    }
    if (n < 0) {
        fail_io(src, "read error");
        return -1;
    }
    src->next += (uint64_t)n;
    return n;
}

/* Reads more of the input into src->buf after `end` and checks it: `ready` moves to the
 * end of the last whole character. True when bytes were read; false at the end of the
 * input or after an error or a bad character (reported; `ready` then ends before it). */
static bool read_more(struct source *src)
{
    ssize_t got = fetch(src, src->buf + src->end, READ_BUFFER - src->end);
    size_t n, good, complete;

    if (got <= 0) {
        if (got == 0 && src->st.need)
            report_bad_byte(src, 0, true);
        return false;
    }
    n = (size_t)got;
    uint64_t base = src->st.offset - src->end; /* stream offset of buf[0] */

    good = utf8_run(&src->st, (const unsigned char *)src->buf + src->end, n, &complete);
    src->ready = src->end + complete;
    if (good < n || src->st.bom) {
        unsigned char c = good < n ? (unsigned char)src->buf[src->end + good] : 0;

        /* hand on what came before the bad character, which may have begun in the
         * bytes held back from the last read */
        src->ready = (size_t)(src->st.char_start - base);
        src->end = src->ready;
        report_bad_byte(src, c, false);
        return false;
    }
    src->end += n;
    return true;
}

/* Refills src->buf with checked bytes that end on a character boundary (an incomplete
 * last character stays in the buffer for the next refill). False at the end of the
 * input or after an error (reported). */
static bool refill(struct source *src)
{
    size_t keep = src->end - src->ready; /* the start of an incomplete character */

    memmove(src->buf, src->buf + src->ready, keep);
    src->pos = 0;
    src->ready = 0;
    src->end = keep;
    while (src->ready == 0) {
        if (!read_more(src))
            return src->ready > 0;
    }
    return true;
}

/* Whether there are checked bytes to hand on (false: the end, or an error reported). */
static bool have_bytes(struct source *src)
{
    return src->pos < src->ready || (!src->failed && refill(src));
}

size_t source_read(struct source *src, char *buf, size_t cap)
{
    size_t n;

    if (!have_bytes(src))
        return 0;
    n = src->ready - src->pos;
    if (n > cap)
        n = cap;
    memcpy(buf, src->buf + src->pos, n);
    src->pos += n;
    return n;
}

/* libfyaml 0.7.12 takes a flow collection that begins a line of block context (a JSON
 * document's `{`) for a possible key of a block mapping, and reads up to the end of the
 * line to know: a one-line JSON document is held whole, tokens and all (150 MB for
 * 2.6 MB). After `--- ` on the same line no key can begin, and it streams. So when the
 * first thing in the input (after a BOM, blank lines and comments, within the first
 * read) is `{` or `[`, the parser is handed `--- ` at the start of its line, which means
 * the same document; that line's columns are given back 4 less (source_position). */
static void decide_prefix(struct source *src)
{
    const char *p = src->buf;
    size_t i = 0, line_start = 0;
    unsigned line = 1;
    bool after_cr = false;

    src->prefix = PREFIX_NONE;
    if (src->ready >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        i = line_start = 3;
    while (i < src->ready) {
        if (p[i] == '\n' || p[i] == '\r') {
            line += ends_line((unsigned char)p[i], &after_cr);
            line_start = ++i;
        } else if (p[i] == ' ' || p[i] == '\t') {
            i++;
        } else if (p[i] == '#') {
            while (i < src->ready && p[i] != '\n' && p[i] != '\r')
                i++;
        } else {
            if (p[i] == '{' || p[i] == '[') {
                src->prefix = PREFIX_PENDING;
                src->prefix_at = line_start;
                src->prefixed_line = line;
            }
            return;
        }
    }
}

/* The bytes handed on, hashed; where they reach what an earlier read saw, the two
 * digests must agree, and a read that found the end saw them all. */
static void digest_add(struct source *src, const char *p, size_t n)
{
    if (src->handed < src->seen && src->handed + n >= src->seen) {
        size_t head = (size_t)(src->seen - src->handed);

        strhash_stream_add(&src->digest, p, head);
        src->changed |= strhash_stream_digest(&src->digest) != src->seen_digest;
        p += head;
        n -= head;
        src->handed += head;
    }
    strhash_stream_add(&src->digest, p, n);
    src->handed += n;
    src->changed |= src->whole && src->handed > src->seen;
}

/* Keeps this read's digest when it saw more than the earlier ones. */
static void remember_read(struct source *src)
{
    if (src->handed > src->seen) {
        src->seen = src->handed;
        src->seen_digest = strhash_stream_digest(&src->digest);
    }
}

/* The buffers of the last source detached, for the next attach: a run reads each input
 * two or three times (detection, pass 1, pass 2), and a buffer new each time was new
 * pages each time, every one a page fault (a fifth of a small render's). One a thread:
 * the sources of a thread are read one at a time. */
static _Thread_local struct {
    void *buf, *bytes, *line_start;
} spare;

/* p into the spare slot when it is empty, else freed */
static void spare_keep(void **slot, void *p)
{
    if (!*slot)
        *slot = p;
    else
        free(p);
}

/* The spare slot's buffer (emptied), else a new one of `size` bytes */
static void *spare_take(void **slot, size_t size)
{
    void *p = *slot;

    *slot = NULL;
    return p ? p : malloc(size);
}

static void window_free(struct window *w)
{
    if (!w->borrowed)
        spare_keep(&spare.bytes, w->bytes);
    spare_keep(&spare.line_start, w->line_start);
    memset(w, 0, sizeof(*w));
}

/* Whether `b`, handed after what w was, holds a line break other than LF or CRLF (one
 * break to libfyaml, as a LF is: the lines are numbered alike); a read hands whole
 * characters, but a CRLF may be split between two reads (a CR last in `b` is left to the
 * next, or to the input's end: read_ended). The other breaks and a byte order mark are
 * the UTF-8 check's (utf8_state.spoiler). */
static bool lone_cr(struct window *w, const char *b, size_t n)
{
    const char *end = b + n;

    if (w->cr_last && n > 0 && b[0] != '\n')
        return true;
    w->cr_last = w->cr_last && n == 0;
    for (const char *p = b; (p = memchr(p, '\r', (size_t)(end - p))) != NULL; p++) {
        w->cr = true;
        if (p + 1 == end)
            w->cr_last = true;
        else if (p[1] != '\n')
            return true;
    }
    return false;
}

/* `spoiled`: a NEL, LS, PS or BOM has been handed (see struct window) */
static void window_add(struct window *w, const char *b, size_t n, bool spoiled)
{
    const char *end = b + n;

    if (!w->bytes || w->off || (w->off = spoiled || lone_cr(w, b, n)))
        return;
    for (size_t done = w->borrowed ? n : n > WINDOW_BYTES ? n - WINDOW_BYTES : 0; done < n;) {
        size_t at = (size_t)((w->handed + done) % WINDOW_BYTES), k = WINDOW_BYTES - at;

        k = k < n - done ? k : n - done;
        memcpy(w->bytes + at, b + done, k);
        done += k;
    }
    for (const char *p = b; !w->borrowed && (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        w->line_start[++w->lines % WINDOW_LINES] = w->handed + (uint64_t)(p - b) + 1;
    w->handed += n;
}

/* Where 0-based line `line` begins, the byte at offset `pos` (libfyaml's) being on it,
 * into *start; false when it was not handed lately. Of a whole input, by the LF before
 * `pos`: no other byte breaks a line while the window is on. */
static inline bool line_begin(const struct window *w, unsigned line, uint64_t pos, uint64_t *start)
{
    if (!w->bytes || w->off)
        return false;
    if (w->borrowed) {
        if (pos > w->handed)
            return false;
        while (pos > 0 && w->bytes[pos - 1] != '\n')
            pos--;
        *start = pos;
        return true;
    }
    if (line > w->lines || w->lines - line >= WINDOW_LINES)
        return false;
    *start = w->line_start[line % WINDOW_LINES];
    return true;
}

/* Where that line ends (its LF, or what was handed of it). */
static inline uint64_t line_end(const struct window *w, unsigned line, uint64_t start)
{
    const char *nl;

    if (w->borrowed)
        return (nl = memchr(w->bytes + start, '\n', (size_t)(w->handed - start))) != NULL
                   ? (uint64_t)(nl - w->bytes) : w->handed;
    return line < w->lines ? w->line_start[(line + 1) % WINDOW_LINES] - 1 : w->handed;
}

const char *source_span(const struct source *src, unsigned line, unsigned col, uint64_t pos, size_t len)
{
    const struct window *w = &src->win;
    const unsigned char *p;
    uint64_t start;

    if (w->borrowed)
        return w->bytes && !w->off && pos <= w->handed && len <= w->handed - pos ? w->bytes + pos : NULL;
    if (!line_begin(w, line, pos, &start))
        return NULL;
    if (w->handed - start > WINDOW_BYTES || start + col + len > w->handed ||
        (start % WINDOW_BYTES) + col + len > WINDOW_BYTES)
        return NULL; /* gone, not yet handed, or around the ring's end */
    if (start + col + len > line_end(w, line, start))
        return NULL; /* not on the line */
    p = (const unsigned char *)w->bytes + start % WINDOW_BYTES;
    if (!yscalar_printable((const char *)p, col))
        return NULL; /* a column that is not a byte (a tab, a wide character) */
    return (const char *)p + col;
}

const char *source_line(const struct source *src, unsigned line, uint64_t pos, size_t *len)
{
    const struct window *w = &src->win;
    uint64_t start, end;

    if (!line_begin(w, line, pos, &start) || w->handed - start > WINDOW_BYTES)
        return NULL;
    end = line_end(w, line, start);
    if ((start % WINDOW_BYTES) + (end - start) > WINDOW_BYTES)
        end = start + (WINDOW_BYTES - start % WINDOW_BYTES); /* up to the ring's end */
    *len = (size_t)(end - start);
    return w->bytes + start % WINDOW_BYTES;
}

/* The offset past `col` characters from `start` on a line ending at `end`: libfyaml counts
 * a column a character (a code point, wide or not); false at a tab or another control
 * byte, whose columns it may count otherwise. The window holds only checked UTF-8. */
static bool column_offset(const struct window *w, uint64_t start, uint64_t end, unsigned col, uint64_t *at)
{
    for (; col > 0; col--) {
        unsigned char b;

        if (start >= end)
            return false;
        b = (unsigned char)w->bytes[start % WINDOW_BYTES];
        if (b < 0x20 || b == 0x7F || (b >= 0x80 && b < 0xC2))
            return false;
        start += b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    }
    *at = start;
    return start <= end;
}

/* The input offset of line:col (byte `pos` as libfyaml counts it) into *at: `pos` itself
 * in a whole input; in a callback's, libfyaml counts from a chunk's start, so from the
 * line's start, by its characters before `col` (wherever the ring wraps among them):
 * wide characters there made both ends of a quoted scalar unplaceable, and libfyaml's
 * misread text was taken. */
static bool offset_of(const struct window *w, unsigned line, unsigned col, uint64_t pos, uint64_t *at)
{
    uint64_t start, end;
    size_t ring, first;

    if (w->borrowed) {
        *at = pos;
        return w->bytes && !w->off && pos <= w->handed;
    }
    if (!line_begin(w, line, pos, &start) || w->handed - start > WINDOW_BYTES ||
        start + col > (end = line_end(w, line, start)))
        return false;
    ring = (size_t)(start % WINDOW_BYTES);
    first = ring + col <= WINDOW_BYTES ? col : WINDOW_BYTES - ring;
    if (yscalar_printable(w->bytes + ring, first) && yscalar_printable(w->bytes, col - first)) {
        *at = start + col; /* a byte a column: most lines */
        return true;
    }
    return column_offset(w, start, end, col, at);
}

bool source_line_start(const struct source *src, unsigned line, uint64_t pos, uint64_t *offset)
{
    return line_begin(&src->win, line, pos, offset);
}

const char *source_lines_to(const struct source *src, unsigned line, uint64_t pos, unsigned end_line,
                            unsigned end_col, uint64_t end_pos, size_t *len, bool *more, bool *plain)
{
    const struct window *w = &src->win;
    uint64_t start, end;

    if (!line_begin(w, line, pos, &start) || !offset_of(w, end_line, end_col, end_pos, &end))
        return NULL;
    if (end < start || end > w->handed || w->handed - start > WINDOW_BYTES ||
        (start % WINDOW_BYTES) + (end - start) > WINDOW_BYTES)
        return NULL; /* gone, not yet handed, or around the ring's end */
    *len = (size_t)(end - start);
    *more = end < w->handed;
    *plain = !w->cr; /* and no NEL, LS or PS: the window is on */
    return w->bytes + start % WINDOW_BYTES;
}

bool source_copy_span(const struct source *src, unsigned line, unsigned col, uint64_t pos, unsigned end_line,
                      unsigned end_col, uint64_t end_pos, char *out)
{
    const struct window *w = &src->win;
    uint64_t len = end_pos - pos, start, at;
    size_t ring, first;

    if (end_pos < pos)
        return false;
    if (offset_of(w, end_line, end_col, end_pos, &at) && at >= len)
        start = at - len;
    else if (!offset_of(w, line, col, pos, &start))
        return false;
    if (start + len > w->handed || (!w->borrowed && w->handed - start > WINDOW_BYTES))
        return false; /* not yet handed, or gone */
    ring = w->borrowed ? (size_t)start : (size_t)(start % WINDOW_BYTES);
    first = w->borrowed || ring + len <= WINDOW_BYTES ? (size_t)len : WINDOW_BYTES - ring;
    memcpy(out, w->bytes + ring, first);
    memcpy(out + first, w->bytes, (size_t)len - first); /* past the ring's end */
    return true;
}

/* The read has handed on the whole input. */
static void read_ended(struct source *src)
{
    src->win.off |= src->win.cr_last; /* a CR alone ends the input */
    if (src->at_end)
        return;
    src->at_end = true;
    src->changed |= src->handed < src->seen; /* shorter than an earlier read */
    remember_read(src);
    src->whole = true;
}

/* buf[0, n), the parser's next bytes, with the patches that fall in them. */
static void hand_patched(struct source *src, char *buf, size_t n)
{
    for (; src->next_patch < src->n_patches && src->patches[src->next_patch].at < src->fed + n; src->next_patch++) {
        if (src->patches[src->next_patch].at >= src->fed)
            buf[src->patches[src->next_patch].at - src->fed] = src->patches[src->next_patch].byte;
    }
    src->fed += n;
}

/* libfyaml's input callback. Returns 0 at the end of the input and after a bad byte
 * (reported), which libfyaml takes as the end. */
static ssize_t read_checked(void *user, void *buf, size_t count)
{
    static const char prefix[] = "--- ";
    struct source *src = user;
    size_t n;

    if (!have_bytes(src)) {
        if (!src->failed)
            read_ended(src);
        return 0;
    }
    if (src->prefix == PREFIX_UNDECIDED)
        decide_prefix(src);
    if (src->prefix == PREFIX_PENDING && src->pos == src->prefix_at && count >= sizeof(prefix) - 1) {
        src->prefix = PREFIX_HANDED;
        memcpy(buf, prefix, sizeof(prefix) - 1);
        window_add(&src->win, prefix, sizeof(prefix) - 1, false);
        src->fed += sizeof(prefix) - 1;
        return sizeof(prefix) - 1;
    }
    if (src->prefix == PREFIX_PENDING && count > src->prefix_at - src->pos)
        count = src->prefix_at - src->pos;
    n = src->ready - src->pos < count ? src->ready - src->pos : count;
    if (src->unbroken + n > SOURCE_MAX_TOKEN) {
        src->failed = true;
        diag_report(src->diag, DIAG_ERROR, DIAG_INPUT, src->name, src->progress_line,
                    src->progress_col, RULE_SIZE,
                    "more than %u MiB of input without a YAML event: one scalar, comment or blank run "
                    "that long, or a flow collection on one line inside a block collection (libfyaml "
                    "reads such a line whole)", SOURCE_MAX_TOKEN >> 20);
        return 0;
    }
    src->unbroken += n;
    source_read(src, buf, n);
    digest_add(src, buf, n);
    window_add(&src->win, buf, n, src->st.spoiler < src->handed);
    hand_patched(src, buf, n);
    return (ssize_t)n;
}

static struct source *source_new(const char *name, struct diag *d)
{
    struct source *src = calloc(1, sizeof(*src));

    if (!src || !(src->name = strdup(name))) {
        free(src);
        diag_report(d, DIAG_ERROR, DIAG_INPUT, name, 0, 0, RULE_INTERNAL, "out of memory");
        return NULL;
    }
    src->diag = d;
    src->bytes.fd = src->raw = -1;
    src->spool_limit = SOURCE_MAX_SPOOL;
    src->older = live;
    if (live)
        live->newer = src;
    live = src;
    return src;
}

struct source *source_open(const char *path, struct diag *d)
{
    return source_open_as(path, NULL, d);
}

struct source *source_open_as(const char *path, const char *name, struct diag *d)
{
    bool is_stdin = strcmp(path, "-") == 0;
    struct source *src = source_new(name ? name : is_stdin ? "<stdin>" : path, d);
    int fd = -1;
    struct stat sb;

    if (!src)
        return NULL;
    fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, RULE_IO, "cannot open: %s", strerror(errno));
        goto fail;
    }
    if (fstat(fd, &sb) != 0) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, RULE_IO, "cannot stat: %s", strerror(errno));
        goto fail;
    }
    if (S_ISDIR(sb.st_mode)) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, RULE_IO, "is a directory");
        goto fail;
    }
    if (output_check_input(fd, src->name, d) != 0)
        goto fail;
    if (S_ISREG(sb.st_mode) && !is_stdin) {
        src->bytes.fd = fd;
        src->bytes.size = UINT64_MAX;
        src->own_fd = true;
        return src;
    }
    /* a pipe, stdin, a device: kept in a temporary file as it is read */
    if (!(src->spool = scratch_file())) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, RULE_IO, "cannot create a temporary file in %s: %s",
                    scratch_dir(), strerror(errno));
        goto fail;
    }
    src->bytes.fd = fileno(src->spool);
    src->raw = fd;
    src->own_raw = !is_stdin;
    return src;
fail:
    if (fd >= 0 && !is_stdin)
        close(fd);
    source_close(src);
    return NULL;
}

struct source *source_open_text(const char *name, const char *text, size_t len, struct diag *d)
{
    struct source *src = source_new(name, d);

    if (src) {
        src->bytes.text = text;
        src->bytes.size = len;
    }
    return src;
}

void source_close(struct source *src)
{
    if (!src)
        return;
    if (src->older)
        src->older->newer = src->newer;
    if (src->newer)
        src->newer->older = src->older;
    else
        live = src->older;
    if (src->own_fd)
        close(src->bytes.fd);
    if (src->raw >= 0 && src->own_raw)
        close(src->raw);
    if (src->spool)
        fclose(src->spool);
    spare_keep(&spare.buf, src->buf);
    window_free(&src->win);
    free(src->patched);
    free(src->name);
    free(src);
}

void source_detach(struct source *src)
{
    remember_read(src);
    spare_keep(&spare.buf, src->buf);
    src->buf = NULL;
    window_free(&src->win);
    free(src->patched);
    src->patched = NULL;
    src->n_patches = 0;
}

void source_progress(struct source *src, unsigned line, unsigned col)
{
    source_position(src, &line, &col);
    src->unbroken = 0;
    src->progress_line = line;
    src->progress_col = col;
}

void source_position(const struct source *src, unsigned *line, unsigned *col)
{
    if (src->prefix == PREFIX_HANDED && *line == src->prefixed_line)
        *col = *col > 4 ? *col - 4 : 1;
}

bool source_changed(const struct source *src)
{
    return src->changed;
}

char *source_lines(struct source *src, unsigned line, size_t max, size_t *len)
{
    char *buf = line ? malloc(max + 1) : NULL;
    uint64_t at = 0, start = UINT64_MAX;
    ssize_t n = 0;
    bool after_cr = false;

    *len = 0;
    /* stored_read: what was read, from any offset; a read in progress goes on as it was */
    while (buf && start == UINT64_MAX && (n = stored_read(&src->bytes, buf, max, at)) > 0) {
        for (ssize_t i = 0; i < n && start == UINT64_MAX; i++) {
            if (line == 1 && !(buf[i] == '\n' && after_cr))
                start = at + (uint64_t)i;
            else if (ends_line((unsigned char)buf[i], &after_cr))
                line--;
        }
        at += (uint64_t)n;
    }
    if (buf && start != UINT64_MAX && (n = stored_read(&src->bytes, buf, max, start)) > 0) {
        *len = (size_t)n;
        buf[n] = '\0';
        return buf;
    }
    free(buf);
    return NULL;
}

const char *source_name(const struct source *src)
{
    return src->name;
}

uint64_t source_size_read(const struct source *src)
{
    return src->whole ? src->seen : UINT64_MAX;
}

uint64_t source_bytes_seen(const struct source *src)
{
    return src->handed > src->seen ? src->handed : src->seen; /* a read under way counts */
}

bool source_failed(const struct source *src)
{
    return src->failed;
}

void source_set_spool_limit(struct source *src, uint64_t bytes)
{
    src->spool_limit = bytes;
}

int source_rewind(struct source *src)
{
    /* Not zeroed, and only while read: a render opens all of its inputs at once. */
    if (!src->buf && !(src->buf = spare_take(&spare.buf, READ_BUFFER))) {
        diag_report(src->diag, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, RULE_INTERNAL, "out of memory");
        return -1;
    }
    if (src->own_fd && lseek(src->bytes.fd, 0, SEEK_SET) != 0) {
        diag_report(src->diag, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, RULE_IO, "cannot rewind: %s",
                    strerror(errno));
        return -1;
    }
    src->next = 0;
    utf8_reset(&src->st);
    src->pos = src->ready = src->end = 0;
    src->unbroken = 0;
    src->progress_line = src->progress_col = 1;
    remember_read(src);
    strhash_stream_init(&src->digest);
    src->handed = 0;
    src->at_end = false;
    src->failed = false;
    src->prefix = PREFIX_UNDECIDED;
    return 0;
}

/* Whether the input fits in the read buffer, read to its end (or to a bad byte, reported)
 * and checked: then libfyaml is handed it whole, as a string. Its callback input copies
 * what it is handed into a buffer of its own, grown a page at a time by realloc
 * (libfyaml 0.7.12, src/lib/fy-input.c, fy_reader_input_try_pull), which moved it
 * again and again: a tenth of a small workflow's render time and of its page faults. A
 * bad byte is reported before the parser starts either way, since the callback reads a
 * buffer ahead. Not when the first line is handed `--- ` first (decide_prefix). */
static bool fits_whole(struct source *src)
{
    if (!have_bytes(src))
        return false;
    decide_prefix(src);
    if (src->prefix != PREFIX_NONE)
        return false;
    while (!src->failed && src->end < READ_BUFFER && read_more(src))
        ;
    return src->failed || src->end < READ_BUFFER; /* else the end is not known yet */
}

_Static_assert(READ_BUFFER <= WINDOW_BYTES, "a whole input's buffer is its window");

int source_attach(struct source *src, struct fy_parser *fyp)
{
    return source_attach_patched(src, fyp, NULL, 0);
}

int source_attach_patched(struct source *src, struct fy_parser *fyp, const struct source_patch *patches,
                          size_t n_patches)
{
    bool whole;

    free(src->patched);
    src->patched = NULL;
    src->patches = patches;
    src->n_patches = n_patches;
    src->next_patch = 0;
    src->fed = 0;
    if (source_rewind(src) != 0)
        return -1;
    whole = fits_whole(src);
    /* without a window (out of memory), every scalar is libfyaml's copy */
    window_free(&src->win);
    /* A whole input's window is its buffer. line_start is not zeroed: source_span reads
     * only the lines begun, and line 0 begins at 0. */
    src->win.borrowed = whole;
    if (!(src->win.bytes = whole ? src->buf : spare_take(&spare.bytes, WINDOW_BYTES)) ||
        !(src->win.line_start = spare_take(&spare.line_start, WINDOW_LINES * sizeof(uint64_t))))
        window_free(&src->win);
    else
        src->win.line_start[0] = 0;
    if (whole) {
        size_t n = src->ready;

        src->pos = n;
        digest_add(src, src->buf, n);
        window_add(&src->win, src->buf, n, src->st.spoiler < src->handed);
        if (!src->failed)
            read_ended(src);
        if (!n_patches)
            return fy_parser_set_string(fyp, src->buf, n);
        /* the window, the input's bytes, is the buffer: the parser reads a copy */
        if (!(src->patched = malloc(n ? n : 1))) {
            diag_report(src->diag, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, RULE_INTERNAL, "out of memory");
            return -1;
        }
        memcpy(src->patched, src->buf, n);
        hand_patched(src, src->patched, n);
        return fy_parser_set_string(fyp, src->patched, n);
    }
    return fy_parser_set_input_callback(fyp, src, read_checked);
}

/* ---- excerpts: the line under a message, from what was read ---- */

/* The excerpt of line:col from `s`, starting the search at the line and offset that
 * *mark says (updated). Reads at most the line's first col + DIAG_EXCERPT_CHARS
 * characters, a buffer at a time: a 150 MB line costs no memory. */
static bool excerpt_from(const struct stored *s, unsigned line, unsigned col, unsigned *mark_line,
                         uint64_t *mark_offset, struct diag_excerpt *out)
{
    char buf[16384];
    uint64_t off = 0;
    unsigned at_line = 1, first = col > DIAG_EXCERPT_CHARS ? col - DIAG_EXCERPT_CHARS / 2 : 1, k = 0;
    size_t len = 0;
    ssize_t n = 0;
    bool done = false, after_cr = false;

    if (*mark_line && *mark_line <= line) {
        at_line = *mark_line;
        off = *mark_offset;
    }
    while (at_line < line) {
        ssize_t i = 0;
        const char *q = buf;

        if ((n = stored_read(s, buf, sizeof(buf), off)) <= 0)
            return false;
        if (!after_cr && !memchr(buf, '\r', (size_t)n)) {
            /* LF breaks only: a memchr a line (a byte at a time, 8 excerpts were a
             * hundredth of rendering SGLang's workflows) */
            while (at_line < line && (q = memchr(q, '\n', (size_t)(buf + n - q))) != NULL) {
                q++;
                at_line++;
            }
            i = q ? q - buf : n;
        } else {
            while (at_line < line && i < n)
                at_line += ends_line((unsigned char)buf[i++], &after_cr);
        }
        off += (uint64_t)i;
    }
    /* the line begins after its break's LF too (a mark is always such a start) */
    if (after_cr && stored_read(s, buf, 1, off) == 1 && buf[0] == '\n')
        off++;
    *mark_line = line;
    *mark_offset = off;
    if (off == 0 && stored_read(s, buf, 3, 0) == 3 && !memcmp(buf, "\xEF\xBB\xBF", 3))
        off = 3; /* a BOM takes no column */
    out->caret = SIZE_MAX;
    while (!done && (n = stored_read(s, buf, sizeof(buf), off)) > 0) {
        for (ssize_t i = 0; i < n && !done; i++) {
            unsigned char c = (unsigned char)buf[i];

            if ((c & 0xC0) != 0x80 && ++k == col)
                out->caret = len;
            done = c == '\n' || c == '\r' || c == '\0' || k >= first + DIAG_EXCERPT_CHARS || len == sizeof(out->text) - 1;
            if (k >= first && !done)
                out->text[len++] = (char)c;
        }
        off += (uint64_t)n;
    }
    out->text[len] = '\0';
    if (out->caret > len)
        out->caret = col ? len : 0;
    return n >= 0;
}

bool source_excerpt(const char *file, unsigned line, unsigned col, struct diag_excerpt *out)
{
    struct stat sb;
    struct stored s = {-1, NULL, UINT64_MAX};
    unsigned mark_line = 0;
    uint64_t mark_offset = 0;
    bool ok;

    for (struct source *src = live; src; src = src->older) {
        if (!strcmp(src->name, file))
            return excerpt_from(&src->bytes, line, col, &src->mark_line, &src->mark_offset, out);
    }
    /* A file read some other way (a tests list): only a regular file, which cannot
     * block, and only its first excerpts cost a read from the start. */
    if ((s.fd = open(file, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
        return false;
    ok = fstat(s.fd, &sb) == 0 && S_ISREG(sb.st_mode) && excerpt_from(&s, line, col, &mark_line, &mark_offset, out);
    close(s.fd);
    return ok;
}

#define SLURP_MAX (64u << 20)

char *source_slurp(const char *path, size_t *len, bool *missing, struct diag *d)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n;

    *len = 0;
    if (missing)
        *missing = false;
    if (!fp) {
        if (errno == ENOENT && missing) {
            *missing = true;
            return strdup("");
        }
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, RULE_IO, "cannot open: %s", strerror(errno));
        return NULL;
    }
    do {
        if (*len + 65537 > cap) {
            char *grown = realloc(buf, cap = cap * 2 + 65537);

            if (!grown) {
                free(buf);
                fclose(fp);
                diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, RULE_INTERNAL, "out of memory");
                return NULL;
            }
            buf = grown;
        }
        n = fread(buf + *len, 1, cap - *len - 1, fp);
        *len += n;
        /* an endless input (/dev/zero) stops at its first NUL, checked below, or at
         * the bound: this reads small files */
        if (memchr(buf + *len - n, '\0', n))
            break;
        if (*len > SLURP_MAX) {
            free(buf);
            fclose(fp);
            diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, RULE_SIZE, "larger than 64 MiB: not read");
            return NULL;
        }
    } while (n > 0);
    if (ferror(fp)) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, RULE_IO, "cannot read: %s", strerror(errno));
        free(buf);
        fclose(fp);
        return NULL;
    }
    fclose(fp);
    buf[*len] = '\0';
    {
        struct utf8_state st;
        size_t good;
        uint64_t at;

        if (!check_buffer(&st, (const unsigned char *)buf, *len, &good, &at)) {
            struct stored m = {-1, buf, *len};
            unsigned line, col;

            position_of(at, &m, &line, &col);
            report_utf8(d, path, &st, line, col, good < *len ? (unsigned char)buf[good] : 0,
                        good == *len);
            free(buf);
            return NULL;
        }
    }
    return buf;
}
