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
    unsigned line, col; /* position of the next byte, 1-based */
    unsigned need;      /* continuation bytes still expected */
    unsigned char lo, hi; /* allowed range of the next continuation byte */
};

struct source {
    char *name;
    FILE *fp;
    struct diag *diag;
    struct utf8_state st;
    bool failed;
};

static void utf8_reset(struct utf8_state *st)
{
    st->line = 1;
    st->col = 1;
    st->need = 0;
    st->lo = 0x80;
    st->hi = 0xBF;
}

/* Returns false at the first byte that cannot continue a valid stream. */
static bool utf8_step(struct utf8_state *st, unsigned char c)
{
    if (st->need) {
        if (c < st->lo || c > st->hi)
            return false;
        st->lo = 0x80;
        st->hi = 0xBF;
        if (--st->need == 0)
            st->col++;
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
    } else if (c >= 0xE0 && c <= 0xEF) {
        st->need = 2;
        if (c == 0xE0)
            st->lo = 0xA0; /* overlong */
        else if (c == 0xED)
            st->hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        st->need = 3;
        if (c == 0xF0)
            st->lo = 0x90; /* overlong */
        else if (c == 0xF4)
            st->hi = 0x8F; /* above U+10FFFF */
    } else {
        return false;
    }
    return true;
}

bool source_check_utf8(const unsigned char *buf, size_t len, size_t *bad, unsigned *line,
                       unsigned *col)
{
    struct utf8_state st;
    size_t i;

    utf8_reset(&st);
    for (i = 0; i < len; i++) {
        if (!utf8_step(&st, buf[i]))
            break;
    }
    if (bad)
        *bad = i;
    if (line)
        *line = st.line;
    if (col)
        *col = st.col;
    return i == len && st.need == 0;
}

static void report_bad_byte(struct source *src, unsigned char c, bool at_eof)
{
    src->failed = true;
    if (at_eof)
        diag_report(src->diag, DIAG_ERROR, DIAG_INPUT, src->name, src->st.line, src->st.col,
                    "utf8", "truncated UTF-8 sequence at end of input");
    else if (c == 0)
        diag_report(src->diag, DIAG_ERROR, DIAG_INPUT, src->name, src->st.line, src->st.col,
                    "utf8", "NUL byte in input");
    else
        diag_report(src->diag, DIAG_ERROR, DIAG_INPUT, src->name, src->st.line, src->st.col,
                    "utf8", "invalid UTF-8 byte 0x%02X", c);
}

static ssize_t read_checked(void *user, void *buf, size_t count)
{
    struct source *src = user;
    unsigned char *p = buf;
    size_t n, i;

    if (src->failed)
        return 0;
    n = fread(buf, 1, count, src->fp);
    if (n == 0) {
        if (ferror(src->fp)) {
            src->failed = true;
            diag_report(src->diag, DIAG_ERROR, DIAG_INPUT, src->name, 0, 0, "io",
                        "read error: %s", strerror(errno));
        } else if (src->st.need) {
            report_bad_byte(src, 0, true);
        }
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (!utf8_step(&src->st, p[i])) {
            report_bad_byte(src, p[i], false);
            return (ssize_t)i;
        }
    }
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

void source_close(struct source *src)
{
    if (!src)
        return;
    if (src->fp)
        fclose(src->fp);
    free(src->name);
    free(src);
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
    return buf;
}
