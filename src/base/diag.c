#include "fanout/diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct diag {
    FILE *out;
    bool buffered; /* `out` is a memstream over buf */
    char *buf;
    size_t buf_len;
    enum diag_format format;
    bool muted;
    const char *only_rule; /* findings of other rules are dropped */
    const struct diag_policy *policy; /* NULL: everything shown, plainly */
    unsigned snippets;      /* shown so far (each reads its file up to the line) */
    unsigned errors;
    unsigned warnings;
    bool input_error;
};

struct diag *diag_create(FILE *out, enum diag_format format)
{
    struct diag *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    d->out = out;
    d->format = format;
    return d;
}

struct diag *diag_create_buffered_like(const struct diag *like)
{
    struct diag *d = diag_create_buffered(like->format);

    if (d)
        d->policy = like->policy;
    return d;
}

struct diag *diag_create_buffered(enum diag_format format)
{
    struct diag *d = calloc(1, sizeof(*d));

    if (!d)
        return NULL;
    d->format = format;
    d->buffered = true;
    d->out = open_memstream(&d->buf, &d->buf_len);
    if (!d->out) {
        free(d);
        return NULL;
    }
    return d;
}

void diag_flush_into(struct diag *from, struct diag *to)
{
    if (!from->buffered || fflush(from->out) != 0)
        return;
    if (!to->muted) {
        fwrite(from->buf, 1, from->buf_len, to->out);
        to->errors += from->errors;
        to->warnings += from->warnings;
        to->input_error = to->input_error || from->input_error;
    }
    /* start over empty */
    rewind(from->out);
    from->buf_len = 0;
    from->errors = from->warnings = 0;
    from->input_error = false;
}

void diag_destroy(struct diag *d)
{
    if (!d)
        return;
    if (d->buffered) {
        fclose(d->out);
        free(d->buf);
    }
    free(d);
}

void diag_keep_only(struct diag *d, const char *rule)
{
    d->only_rule = rule;
}

void diag_set_policy(struct diag *d, const struct diag_policy *p)
{
    d->policy = p;
}

void diag_set_muted(struct diag *d, bool muted)
{
    d->muted = muted;
}

void diag_write_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    while (*s) {
        size_t plain = 0; /* written as they are, in one piece (a million ids per report) */
        unsigned char c;

        while ((c = (unsigned char)s[plain]) >= 0x20 && c != '"' && c != '\\')
            plain++;
        fwrite(s, 1, plain, out);
        s += plain;
        if (!(c = (unsigned char)*s))
            break;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else
            fprintf(out, "\\u%04x", c);
        s++;
    }
    fputc('"', out);
}

/* GitHub workflow commands end the message at a newline and treat % specially. */
void diag_write_github_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '%')
            fputs("%25", out);
        else if (*s == '\n')
            fputs("%0A", out);
        else if (*s == '\r')
            fputs("%0D", out);
        else
            fputc(*s, out);
    }
}

void diag_report(struct diag *d, enum diag_severity sev, enum diag_class cls,
                 const char *file, unsigned line, unsigned col, const char *rule,
                 const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    diag_vreport(d, sev, cls, file, line, col, rule, fmt, ap);
    va_end(ap);
}

/* The level the policy gives `rule`'s findings. */
static enum diag_level level_of(const struct diag_policy *p, const char *rule)
{
    for (size_t i = 0; p && rule && i < p->n_levels; i++) {
        if (!strcmp(p->levels[i].rule, rule))
            return p->levels[i].level;
    }
    return DIAG_LEVEL_DEFAULT;
}

/* Whether s[0..n) starts with a well-formed UTF-8 character (ASCII included); *i is
 * moved to its last byte. */
static bool utf8_ok(const char *s, size_t n, ssize_t *i)
{
    unsigned char c = (unsigned char)s[0];
    size_t more = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 4;

    if (more == 4 || more >= n || (c >= 0x80 && c < 0xc2))
        return more == 0;
    for (size_t k = 1; k <= more; k++) {
        if (((unsigned char)s[k] & 0xc0) != 0x80)
            return false;
    }
    *i += (ssize_t)more;
    return true;
}

/* At most this many snippets a run: each reads its file from the start. */
#define DIAG_MAX_SNIPPETS 100
#define SNIPPET_WIDTH 160

/* The source line under a text message, with a caret under the column: from the file
 * itself (so not for stdin, and not past the first 100 messages). */
static void write_snippet(struct diag *d, const char *file, unsigned line, unsigned col)
{
    FILE *f;
    char *text = NULL;
    size_t cap = 0;
    ssize_t len = -1;
    size_t from = 0;

    if (!line || !strcmp(file, "-") || !strcmp(file, "<stdin>") || d->snippets >= DIAG_MAX_SNIPPETS ||
        !(f = fopen(file, "r")))
        return;
    d->snippets++;
    for (unsigned n = 0; n < line && (len = getline(&text, &cap, f)) >= 0; n++)
        ;
    fclose(f);
    if (len < 0) {
        free(text);
        return;
    }
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        len--;
    /* a line that is not clean text (the bytes an error is about) is not echoed */
    for (ssize_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];

        if ((c < 0x20 && c != '\t') || c == 0x7f || !utf8_ok(text + i, (size_t)(len - i), &i)) {
            free(text);
            return;
        }
    }
    if (col > SNIPPET_WIDTH)
        from = col - SNIPPET_WIDTH / 2;
    if ((size_t)len > from + SNIPPET_WIDTH)
        len = (ssize_t)(from + SNIPPET_WIDTH);
    fprintf(d->out, "  %.*s\n  ", (int)((size_t)len - from), text + from);
    /* tabs kept, so the caret lines up however they are shown */
    for (size_t i = from; col && i + 1 < col && i < (size_t)len; i++)
        fputc(text[i] == '\t' ? '\t' : ' ', d->out);
    fputs(d->policy->color ? "\033[1;32m^\033[0m\n" : "^\n", d->out);
    free(text);
}

void diag_vreport(struct diag *d, enum diag_severity sev, enum diag_class cls,
                  const char *file, unsigned line, unsigned col, const char *rule,
                  const char *fmt, va_list ap)
{
    static const char *const colors[] = {"\033[1;31m", "\033[1;35m", "\033[1;36m"};
    const struct diag_policy *p = d->policy;
    enum diag_level level = cls == DIAG_FINDING ? level_of(p, rule) : DIAG_LEVEL_DEFAULT;
    bool color = p && p->color && d->format == DIAG_TEXT;
    char msg[1024];
    const char *word;

    if (d->muted || (d->only_rule && cls == DIAG_FINDING && (!rule || strcmp(rule, d->only_rule))))
        return;
    if (level == DIAG_LEVEL_OFF)
        return;
    if (level == DIAG_LEVEL_ERROR)
        sev = DIAG_ERROR;
    else if (level == DIAG_LEVEL_WARNING)
        sev = DIAG_WARNING;
    if (p && p->quiet && sev != DIAG_ERROR)
        return;
    word = sev == DIAG_ERROR ? "error" : sev == DIAG_WARNING ? "warning" : "note";
    if (sev == DIAG_ERROR) {
        d->errors++;
        if (cls == DIAG_INPUT)
            d->input_error = true;
    } else if (sev == DIAG_WARNING) {
        d->warnings++;
    }

    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (!file)
        file = "<input>";

    switch (d->format) {
    case DIAG_GITHUB:
        fprintf(d->out, "::%s file=%s", sev == DIAG_NOTE ? "notice" : word, file);
        if (line)
            fprintf(d->out, ",line=%u,col=%u", line, col);
        fputs("::", d->out);
        diag_write_github_escaped(d->out, msg);
        if (rule)
            fprintf(d->out, " [%s]", rule);
        fputc('\n', d->out);
        break;
    case DIAG_JSON:
        fputs("{\"file\":", d->out);
        diag_write_json_string(d->out, file);
        fprintf(d->out, ",\"line\":%u,\"col\":%u,\"severity\":\"%s\",\"rule\":", line, col, word);
        diag_write_json_string(d->out, rule ? rule : "");
        fputs(",\"message\":", d->out);
        diag_write_json_string(d->out, msg);
        fputs("}\n", d->out);
        break;
    case DIAG_TEXT:
        fprintf(d->out, "%s", color ? "\033[1m" : "");
        if (line)
            fprintf(d->out, "%s:%u:%u: ", file, line, col);
        else
            fprintf(d->out, "%s: ", file);
        fprintf(d->out, "%s%s:%s %s", color ? colors[sev] : "", word, color ? "\033[0m" : "", msg);
        if (rule)
            fprintf(d->out, color ? " \033[2m[%s]\033[0m" : " [%s]", rule);
        fputc('\n', d->out);
        if (p && p->snippets)
            write_snippet(d, file, line, col);
        break;
    }
}

unsigned diag_errors(const struct diag *d)
{
    return d->errors;
}

unsigned diag_warnings(const struct diag *d)
{
    return d->warnings;
}

bool diag_has_input_error(const struct diag *d)
{
    return d->input_error;
}

int diag_exit_code(const struct diag *d, bool strict)
{
    if (d->input_error)
        return DIAG_INPUT;
    if (d->errors || (strict && d->warnings))
        return DIAG_FINDING;
    return 0;
}
