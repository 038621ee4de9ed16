#include "fanout/source.h"

#include <errno.h>
#include <libfyaml.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Incremental UTF-8 checker; the state survives between reads. */
struct utf8_state {
    unsigned line, col;   /* position of the current character, 1-based */
    unsigned need;        /* continuation bytes still expected */
    unsigned char lo, hi; /* allowed range of the next continuation byte */
    uint32_t cp;          /* the code point being decoded */
    uint64_t offset;      /* bytes accepted so far */
    bool bom;             /* the last failure was a misplaced byte order mark */
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
    char buf[READ_BUFFER];
    size_t pos, ready, end;
    uint64_t digest; /* FNV-1a of the bytes handed on since the last attach */
    size_t unbroken; /* bytes handed on since the parser last made progress */
    unsigned progress_line, progress_col; /* where it was then */
    bool failed;
};

static void utf8_reset(struct utf8_state *st)
{
    memset(st, 0, sizeof(*st));
    st->line = 1;
    st->col = 1;
    st->lo = 0x80;
    st->hi = 0xBF;
}

/* A finished character: counts its column. U+FEFF is a byte order mark only as the
 * very first character (which takes no column); anywhere else it is refused, so that
 * a doubled BOM cannot turn `steps:` into another key. */
static bool utf8_char_done(struct utf8_state *st, unsigned len)
{
    if (st->cp == 0xFEFF) {
        if (st->offset != len) {
            st->bom = true;
            return false;
        }
        return true;
    }
    st->col++;
    return true;
}

/* Returns false at the first byte that cannot continue a valid stream. */
static bool utf8_step(struct utf8_state *st, unsigned char c)
{
    st->offset++;
    if (st->need) {
        if (c < st->lo || c > st->hi)
            return false;
        st->lo = 0x80;
        st->hi = 0xBF;
        st->cp = (st->cp << 6) | (c & 0x3Fu);
        if (--st->need == 0)
            return utf8_char_done(st, st->cp >= 0x10000 ? 4 : st->cp >= 0x800 ? 3 : 2);
        return true;
    }
    if (c == 0)
        return false;
    if (c < 0x80) {
        if (c == '\n') {
            st->line++;
            st->col = 1;
        } else {
            st->col++;
        }
        return true;
    }
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
        return false;
    }
    return true;
}

/* Runs the checker over a whole buffer; the index of the first bad byte, or `len`
 * (then st->need tells whether the last sequence was cut off). *start: where the
 * character holding that byte starts. */
static size_t utf8_scan(struct utf8_state *st, const unsigned char *buf, size_t len,
                        size_t *start)
{
    size_t i;

    utf8_reset(st);
    *start = 0;
    for (i = 0; i < len; i++) {
        if (!st->need)
            *start = i;
        if (!utf8_step(st, buf[i]))
            break;
    }
    return i;
}

bool source_check_utf8(const unsigned char *buf, size_t len, size_t *bad, unsigned *line,
                       unsigned *col)
{
    struct utf8_state st;
    size_t start, i = utf8_scan(&st, buf, len, &start);

    if (bad)
        *bad = st.bom ? start : i;
    if (line)
        *line = st.line;
    if (col)
        *col = st.col;
    return i == len && st.need == 0;
}

/* One message for the first bad byte `c` of an input (at_eof: a sequence cut off). */
static void report_utf8(struct diag *d, const char *name, const struct utf8_state *st,
                        unsigned char c, bool at_eof)
{
    const char *what = at_eof      ? "truncated UTF-8 sequence at end of input"
                       : st->bom   ? "a byte order mark (U+FEFF) is only allowed at the start of the input"
                       : c == 0    ? "NUL byte in input"
                                   : NULL;

    if (what)
        diag_report(d, DIAG_ERROR, DIAG_INPUT, name, st->line, st->col, "utf8", "%s", what);
    else
        diag_report(d, DIAG_ERROR, DIAG_INPUT, name, st->line, st->col, "utf8",
                    "invalid UTF-8 byte 0x%02X", c);
}

static void report_bad_byte(struct source *src, unsigned char c, bool at_eof)
{
    src->failed = true;
    report_utf8(src->diag, src->name, &src->st, c, at_eof);
}

static void digest_add(struct source *src, const unsigned char *p, size_t n)
{
    uint64_t h = src->digest;

    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    src->digest = h;
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
        size_t n = fread(src->buf + src->end, 1, sizeof(src->buf) - src->end, src->fp);

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
        for (size_t i = src->end; i < src->end + n; i++) {
            if (!utf8_step(&src->st, (unsigned char)src->buf[i])) {
                report_bad_byte(src, (unsigned char)src->buf[i], false);
                src->end = src->ready; /* hand on what came before the bad character */
                return src->ready > 0;
            }
            if (!src->st.need)
                src->ready = i + 1;
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
    digest_add(src, (const unsigned char *)buf, n);
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
    free(src->name);
    free(src);
}

void source_progress(struct source *src, unsigned line, unsigned col)
{
    src->unbroken = 0;
    src->progress_line = line;
    src->progress_col = col;
}

uint64_t source_digest(const struct source *src)
{
    return src->digest;
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
    src->digest = 0xcbf29ce484222325ULL;
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
        size_t start, i = utf8_scan(&st, (const unsigned char *)buf, *len, &start);

        if (i < *len || st.need) {
            report_utf8(d, path, &st, i < *len ? (unsigned char)buf[i] : 0, i == *len);
            free(buf);
            return NULL;
        }
    }
    return buf;
}
