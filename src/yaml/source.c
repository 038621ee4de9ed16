#include "fanout/source.h"

#include <errno.h>
#include <libfyaml.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fanout/strhash.h"

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
};

/* Bytes are checked a buffer ahead of the parser, so that it is only ever handed bytes
 * followed by the rest of their character: libfyaml 0.7.12 loops forever on some
 * incomplete sequences at the end of its input (`%` followed by 0xC3, upstream #101). */
#define READ_BUFFER 65536

struct source {
    char *name;
    FILE *fp;
    struct diag *diag;
    struct utf8_state st;
    /* buf[pos, ready): checked, not yet handed on; buf[ready, end): the start of a
     * character whose other bytes are not read yet */
    char *buf; /* READ_BUFFER bytes, allocated by the first attach */
    size_t pos, ready, end;
    struct strhash_stream digest; /* of the bytes handed on since the last attach */
    size_t unbroken; /* bytes handed on since the parser last made progress */
    unsigned progress_line, progress_col; /* where it was then */
    bool failed;
};

static void utf8_reset(struct utf8_state *st)
{
    memset(st, 0, sizeof(*st));
    st->lo = 0x80;
    st->hi = 0xBF;
}

#define HIGH_BITS 0x8080808080808080ull
#define LOW_BITS 0x0101010101010101ull

/* Checks p[0..n) on from `st`. Returns how many bytes are good (n, or the index of the
 * first bad one); *complete: how many of those end on a character boundary. A U+FEFF is
 * a byte order mark only at offset 0; anywhere else it is refused, so that a doubled BOM
 * cannot turn `steps:` into another key. */
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
        if (--st->need == 0 && st->cp == 0xFEFF && st->char_start != 0) {
            st->bom = true;
            /* the character is refused whole (it may have begun in an earlier run) */
            i = st->char_start > st->offset ? (size_t)(st->char_start - st->offset) : 0;
            break;
        }
    }
    if (!st->need)
        *complete = i;
    st->offset += i;
    return i;
}

/* Line and column (1-based, in characters; a BOM at the start takes none) of `offset`
 * in the bytes that next(user, buf, cap) hands out from the start of the input. */
static void position_of(uint64_t offset, size_t (*next)(void *, unsigned char *, size_t),
                        void *user, unsigned *line, unsigned *col)
{
    unsigned char buf[8192];
    uint64_t at = 0;
    size_t n;

    *line = 1;
    *col = 1;
    while (at < offset && (n = next(user, buf, sizeof(buf))) > 0) {
        for (size_t i = 0; i < n && at < offset; i++, at++) {
            if (buf[i] == '\n') {
                (*line)++;
                *col = 1;
            } else if ((buf[i] & 0xC0) != 0x80 && !(at == 0 && buf[i] == 0xEF)) {
                (*col)++;
            }
        }
    }
}

struct memory_bytes {
    const unsigned char *p;
    size_t left;
};

static size_t next_from_memory(void *user, unsigned char *buf, size_t cap)
{
    struct memory_bytes *m = user;
    size_t n = m->left < cap ? m->left : cap;

    memcpy(buf, m->p, n);
    m->p += n;
    m->left -= n;
    return n;
}

static size_t next_from_file(void *user, unsigned char *buf, size_t cap)
{
    return fread(buf, 1, cap, user);
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
    struct memory_bytes m = {buf, len};
    size_t good;
    uint64_t at;
    bool ok = check_buffer(&st, buf, len, &good, &at);
    unsigned l, c;

    if (line || col) /* a second walk over the buffer: only when asked */
        position_of(at, next_from_memory, &m, &l, &c);
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
                       : st->bom   ? "a byte order mark (U+FEFF) is only allowed at the start of the input"
                       : c == 0    ? "NUL byte in input"
                                   : NULL;

    if (what)
        diag_report(d, DIAG_ERROR, DIAG_INPUT, name, line, col, "utf8", "%s", what);
    else
        diag_report(d, DIAG_ERROR, DIAG_INPUT, name, line, col, "utf8", "invalid UTF-8 byte 0x%02X", c);
}

/* Reports the bad character that starts at src->st.char_start: its position is found by
 * reading the input again from the start (errors are rare, reading is cheap). */
static void report_bad_byte(struct source *src, unsigned char c, bool at_eof)
{
    unsigned line = 0, col = 0;
    long back = ftell(src->fp);

    src->failed = true;
    if (fseek(src->fp, 0, SEEK_SET) == 0)
        position_of(src->st.char_start, next_from_file, src->fp, &line, &col);
    if (back >= 0)
        fseek(src->fp, back, SEEK_SET);
    report_utf8(src->diag, src->name, &src->st, line, col, c, at_eof);
}

/* Refills src->buf with checked bytes that end on a character boundary (an incomplete
 * last character stays in the buffer for the next refill). False at the end of the
 * input or after a bad byte (reported). */
static bool refill(struct source *src)
{
    size_t keep = src->end - src->ready; /* the start of an incomplete character */

    memmove(src->buf, src->buf + src->ready, keep);
    src->pos = 0;
    src->ready = 0;
    src->end = keep;
    while (src->ready == 0) {
        size_t n = fread(src->buf + src->end, 1, READ_BUFFER - src->end, src->fp), good, complete;

        if (n == 0) {
            if (ferror(src->fp)) {
                src->failed = true;
                diag_report(src->diag, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, "io",
                            "read error: %s", strerror(errno));
            } else if (src->st.need) {
                report_bad_byte(src, 0, true);
            }
            return false;
        }
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
            return src->ready > 0;
        }
        src->end += n;
    }
    return true;
}

/* libfyaml's input callback. Returns 0 at the end of the input and after a bad byte
 * (reported), which libfyaml takes as the end. */
static ssize_t read_checked(void *user, void *buf, size_t count)
{
    struct source *src = user;
    size_t n;

    if (src->pos == src->ready && (src->failed || !refill(src)))
        return 0;
    n = src->ready - src->pos;
    if (n > count)
        n = count;
    if (src->unbroken + n > SOURCE_MAX_TOKEN) {
        src->failed = true;
        diag_report(src->diag, DIAG_ERROR, DIAG_INPUT, src->name, src->progress_line,
                    src->progress_col, "size",
                    "more than %u MiB of input without a YAML token boundary (a scalar, comment "
                    "or blank run that long)", SOURCE_MAX_TOKEN >> 20);
        return 0;
    }
    src->unbroken += n;
    memcpy(buf, src->buf + src->pos, n);
    strhash_stream_add(&src->digest, buf, n);
    src->pos += n;
    return (ssize_t)n;
}

/* Copies a non-seekable stream into an unlinked temporary file. */
static FILE *spool(FILE *in, const char *name, struct diag *d)
{
    char buf[65536];
    size_t n;
    FILE *tmp = tmpfile();

    if (!tmp) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, name, 0, 0, "io",
                    "cannot create a temporary file: %s", strerror(errno));
        return NULL;
    }
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
        if (fwrite(buf, 1, n, tmp) != n)
            goto fail;
    }
    if (ferror(in) || fflush(tmp) != 0)
        goto fail;
    return tmp;
fail:
    diag_report(d, DIAG_ERROR, DIAG_INPUT, name, 0, 0, "io", "cannot read input: %s",
                strerror(errno));
    fclose(tmp);
    return NULL;
}

struct source *source_open(const char *path, struct diag *d)
{
    struct source *src = calloc(1, sizeof(*src));
    struct stat sb;
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *raw = NULL;

    if (!src)
        return NULL;
    src->diag = d;
    src->name = strdup(is_stdin ? "<stdin>" : path);
    if (!src->name)
        goto fail;
    raw = is_stdin ? stdin : fopen(path, "rb");
    if (!raw) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, "io", "cannot open: %s",
                    strerror(errno));
        goto fail;
    }
    if (fstat(fileno(raw), &sb) != 0) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, "io", "cannot stat: %s",
                    strerror(errno));
        goto fail;
    }
    if (S_ISDIR(sb.st_mode)) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, "io", "is a directory");
        goto fail;
    }
    if (S_ISREG(sb.st_mode) && !is_stdin) {
        src->fp = raw;
    } else {
        src->fp = spool(raw, src->name, d);
        if (!is_stdin)
            fclose(raw);
        if (!src->fp)
            goto fail_no_raw;
    }
    return src;
fail:
    if (raw && !is_stdin)
        fclose(raw);
fail_no_raw:
    free(src->name);
    free(src);
    return NULL;
}

struct source *source_open_text(const char *name, const char *text, size_t len, struct diag *d)
{
    struct source *src = calloc(1, sizeof(*src));

    /* fmemopen refuses an empty buffer */
    if (!src || !(src->name = strdup(name)) ||
        !(src->fp = len ? fmemopen((void *)text, len, "rb") : fopen("/dev/null", "rb"))) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, name, 0, 0, "internal", "out of memory");
        if (src)
            free(src->name);
        free(src);
        return NULL;
    }
    src->diag = d;
    return src;
}

void source_close(struct source *src)
{
    if (!src)
        return;
    if (src->fp)
        fclose(src->fp);
    free(src->buf);
    free(src->name);
    free(src);
}

void source_detach(struct source *src)
{
    free(src->buf);
    src->buf = NULL;
}

void source_progress(struct source *src, unsigned line, unsigned col)
{
    src->unbroken = 0;
    src->progress_line = line;
    src->progress_col = col;
}

uint64_t source_digest(const struct source *src)
{
    return strhash_stream_digest(&src->digest);
}

const char *source_name(const struct source *src)
{
    return src->name;
}

bool source_failed(const struct source *src)
{
    return src->failed;
}

int source_attach(struct source *src, struct fy_parser *fyp)
{
    /* Not zeroed, and only while read: a render opens all of its inputs at once. */
    if (!src->buf && !(src->buf = malloc(READ_BUFFER))) {
        diag_report(src->diag, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, "internal", "out of memory");
        return -1;
    }
    if (fseek(src->fp, 0, SEEK_SET) != 0) {
        diag_report(src->diag, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, "io",
                    "cannot rewind: %s", strerror(errno));
        return -1;
    }
    clearerr(src->fp);
    utf8_reset(&src->st);
    src->pos = src->ready = src->end = 0;
    src->unbroken = 0;
    src->progress_line = src->progress_col = 1;
    strhash_stream_init(&src->digest);
    src->failed = false;
    return fy_parser_set_input_callback(fyp, src, read_checked);
}

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
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, "io", "cannot open: %s", strerror(errno));
        return NULL;
    }
    do {
        if (*len + 65537 > cap) {
            char *grown = realloc(buf, cap = cap * 2 + 65537);

            if (!grown) {
                free(buf);
                fclose(fp);
                diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, "internal", "out of memory");
                return NULL;
            }
            buf = grown;
        }
        n = fread(buf + *len, 1, cap - *len - 1, fp);
        *len += n;
    } while (n > 0);
    if (ferror(fp)) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, "io", "cannot read: %s", strerror(errno));
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
            struct memory_bytes m = {(const unsigned char *)buf, *len};
            unsigned line, col;

            position_of(at, next_from_memory, &m, &line, &col);
            report_utf8(d, path, &st, line, col, good < *len ? (unsigned char)buf[good] : 0,
                        good == *len);
            free(buf);
            return NULL;
        }
    }
    return buf;
}
