#include "placeholder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long ph_label_find(const char *label, size_t len)
{
    for (size_t i = 0; i + 1 < len; i++) {
        if (label[i] != '%')
            continue;
        if (strchr("nNtT", label[i + 1]) && label[i + 1] != '\0')
            return (long)i;
        if (label[i + 1] == '%')
            i++;
    }
    return -1;
}

/* An output buffer: out->room first, then malloc'd; `failed` sticks after an
 * allocation failure. */
struct buf {
    struct ph_out *out;
    size_t cap;
    bool failed;
};

static void buf_init(struct buf *b, struct ph_out *out)
{
    out->text = out->room;
    out->len = 0;
    out->room[0] = '\0';
    *b = (struct buf){out, sizeof(out->room), false};
}

static void buf_add(struct buf *b, const char *s, size_t n)
{
    struct ph_out *o = b->out;

    if (b->failed)
        return;
    if (o->len + n + 1 > b->cap) {
        size_t cap = (o->len + n + 1) * 2;
        char *d = o->text == o->room ? malloc(cap) : realloc(o->text, cap);

        if (!d) {
            b->failed = true;
            return;
        }
        if (o->text == o->room)
            memcpy(d, o->room, o->len);
        o->text = d;
        b->cap = cap;
    }
    memcpy(o->text + o->len, s, n);
    o->len += n;
    o->text[o->len] = '\0';
}

void ph_out_free(struct ph_out *out)
{
    if (out->text != out->room)
        free(out->text);
    out->text = out->room;
}

size_t ph_number(unsigned v, char out[PH_NUMBER_MAX])
{
    char rev[PH_NUMBER_MAX];
    size_t n = 0, len;

    do {
        rev[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (len = 0; len < n; len++)
        out[len] = rev[n - 1 - len];
    out[len] = '\0';
    return len;
}

static void buf_add_uint(struct buf *b, unsigned v)
{
    char num[PH_NUMBER_MAX];

    buf_add(b, num, ph_number(v, num));
}

static char *buf_finish(struct buf *b)
{
    if (b->failed) {
        ph_out_free(b->out);
        errno = ENOMEM;
        return NULL;
    }
    return b->out->text;
}

char *ph_label_fill(const char *label, size_t len, unsigned index, unsigned count, struct ph_out *out)
{
    struct buf b;
    size_t i = 0;

    buf_init(&b, out);
    while (i < len) {
        const char *pct = memchr(label + i, '%', len - i);
        size_t run = pct ? (size_t)(pct - label) - i : len - i;

        if (run) { /* the text up to the next %, whole */
            buf_add(&b, label + i, run);
            i += run;
            continue;
        }
        if (i + 1 < len) {
            switch (label[i + 1]) {
            case 'n':
                buf_add_uint(&b, index);
                i += 2;
                continue;
            case 'N':
                buf_add_uint(&b, index + 1);
                i += 2;
                continue;
            case 't':
            case 'T':
                buf_add_uint(&b, count);
                i += 2;
                continue;
            case '%':
                buf_add(&b, "%", 1);
                i += 2;
                continue;
            default:
                break;
            }
        }
        buf_add(&b, label + i, 1);
        i++;
    }
    return buf_finish(&b);
}

static const char JOB[] = "BUILDKITE_PARALLEL_JOB";
static const char COUNT[] = "BUILDKITE_PARALLEL_JOB_COUNT";

static bool is_ident(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* Length of the shard variable name at s[0..len) (whole identifier only), else 0.
 * *is_count tells which of the two it is. JOB starts COUNT: both are compared in place,
 * not after measuring the identifier (a tenth of expansion's cost). */
static size_t var_name(const char *s, size_t len, bool *is_count)
{
    const size_t job = sizeof(JOB) - 1, count = sizeof(COUNT) - 1;

    if (len < job || memcmp(s, JOB, job) != 0)
        return 0;
    if (len >= count && memcmp(s + job, COUNT + job, count - job) == 0 &&
        (len == count || !is_ident(s[count]))) {
        *is_count = true;
        return count;
    }
    if (len == job || !is_ident(s[job])) {
        *is_count = false;
        return job;
    }
    return 0;
}

/* Length of a reference starting at the first '$' of cmd[i..] (after any escape), or 0.
 * Accepts NAME, {NAME}, {NAME:-word} and {NAME-word}; a word holds no braces. */
static size_t reference(const char *cmd, size_t len, size_t i, bool *is_count)
{
    size_t n;

    if (i < len && cmd[i] == '{') {
        size_t j = i + 1;

        n = var_name(cmd + j, len - j, is_count);
        if (!n)
            return 0;
        j += n;
        if (j < len && cmd[j] == '}')
            return j + 1 - i;
        if (j < len && (cmd[j] == '-' || (cmd[j] == ':' && j + 1 < len && cmd[j + 1] == '-'))) {
            while (j < len && cmd[j] != '}' && cmd[j] != '{')
                j++;
            if (j < len && cmd[j] == '}')
                return j + 1 - i;
        }
        return 0;
    }
    return var_name(cmd + i, len - i, is_count);
}

/* Walks cmd and calls back on each reference; shared by find and fill. */
static bool scan(const char *cmd, size_t len, struct buf *out, unsigned index, unsigned count)
{
    bool found = false;
    size_t i = 0, copied = 0;

    while (i < len) {
        const char *dollar = memchr(cmd + i, '$', len - i);
        size_t start, ref;
        bool is_count = false;

        if (!dollar)
            break;
        /* the bytes before the $ are no reference: only \$ may start at the one before it */
        start = (size_t)(dollar - cmd);
        if (start > i && cmd[start - 1] == '\\') { /* \$ */
            i = start + 1;
            start--;
        } else if (start + 1 < len && cmd[start + 1] == '$')
            i = start + 2; /* $$ : escaped for upload, expanded by the job's shell */
        else
            i = start + 1;
        ref = reference(cmd, len, i, &is_count);
        if (!ref)
            continue;
        found = true;
        if (!out)
            return true;
        buf_add(out, cmd + copied, start - copied);
        buf_add_uint(out, is_count ? count : index);
        i += ref;
        copied = i;
    }
    if (out && found)
        buf_add(out, cmd + copied, len - copied);
    return found;
}

bool ph_vars_find(const char *cmd, size_t len)
{
    return scan(cmd, len, NULL, 0, 0);
}

char *ph_vars_fill(const char *cmd, size_t len, unsigned index, unsigned count, struct ph_out *out)
{
    struct buf b;

    errno = 0;
    buf_init(&b, out);
    if (!scan(cmd, len, &b, index, count))
        return NULL;
    return buf_finish(&b);
}

char *ph_shard_key(const char *key, size_t len, unsigned index, struct ph_out *out)
{
    struct buf b;

    buf_init(&b, out);
    buf_add(&b, key, len);
    buf_add(&b, "-", 1);
    buf_add_uint(&b, index);
    return buf_finish(&b);
}
