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

void diag_vreport(struct diag *d, enum diag_severity sev, enum diag_class cls,
                  const char *file, unsigned line, unsigned col, const char *rule,
                  const char *fmt, va_list ap)
{
    char msg[1024];
    const char *word = sev == DIAG_ERROR ? "error" : sev == DIAG_WARNING ? "warning" : "note";

    if (d->muted || (d->only_rule && cls == DIAG_FINDING && (!rule || strcmp(rule, d->only_rule))))
        return;
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
        if (line)
            fprintf(d->out, "%s:%u:%u: %s: %s", file, line, col, word, msg);
        else
            fprintf(d->out, "%s: %s: %s", file, word, msg);
        if (rule)
            fprintf(d->out, " [%s]", rule);
        fputc('\n', d->out);
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
