#define _GNU_SOURCE /* vasprintf */
#include "fanout/diag.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/strhash.h"

#include "diag_internal.h"

/* A message a buffered diag holds until a flush, so that the flush can shadow it and
 * count what it writes: its text in buf from `start` (a message -q drops has none), and
 * its parts (SARIF goes only into the log; a capturing diag takes findings by parts). */
struct held {
    long start;
    uint64_t place; /* 0: no place (not a finding, or no file) */
    enum rule_id rule;
    enum diag_severity sev;
    bool input, shown; /* shown: -q did not drop it */
    char *file, *msg;  /* copies (NULL when out of memory) */
    unsigned line, col;
    bool silent; /* diag_cover's: a place that shadows, no message */
};

struct diag {
    FILE *out;
    bool buffered; /* `out` is a memstream over buf, opened at the first message */
    char *buf;
    size_t buf_len;
    enum diag_format format;
    bool muted;
    enum rule_id only_rule; /* findings of other rules are dropped (RULE_NONE: none) */
    const struct diag_policy *policy; /* NULL: everything shown, plainly */
    enum rule_id shadow_earlier, shadow_later; /* diag_shadow's rules */
    struct places *shadowing;                  /* where `shadow_earlier` findings were */
    unsigned snippets;      /* shown so far (each reads its file up to the line) */
    unsigned errors;
    unsigned warnings;
    bool input_error;
    struct held *held; /* a buffered diag's messages */
    size_t n_held, held_cap;
    unsigned lost_errors, lost_warnings; /* held when out of memory: counted only */
    bool lost_input;
    const struct diag_sink *sink; /* a capturing diag's: where its findings go */
    struct diag *to;              /* and its other messages */
    /* A message to stderr is written into this (opened at the first, kept for the next:
     * opening one a message was a third of a small run's messages), then in one write. */
    FILE *line;
    char *line_buf;
    size_t line_len;
};

/* A set of places, each kept as a 64-bit hash of file, line and column (open
 * addressing, 0 free): a false match of two places is as likely as a 64-bit collision. */
struct places {
    uint64_t *slots;
    size_t cap, count; /* cap a power of two, count below three quarters of it */
};

static uint64_t place_hash(const char *file, unsigned line, unsigned col)
{
    uint64_t h = strhash_fnv1a(file, strlen(file)) ^ ((uint64_t)line << 32 | col) * 0x9e3779b97f4a7c15u;

    return h ? h : 1;
}

/* The place of an input error of `rule`: a second one there is the same problem a second
 * check saw (`validate`'s schema check and render's both read a workflow's expressions),
 * said once. Apart from place_hash's places, which findings shadow by. */
static uint64_t input_place(const char *file, unsigned line, unsigned col, enum rule_id rule)
{
    uint64_t h = place_hash(file, line, col) ^ ((uint64_t)rule + 1) * 0xc2b2ae3d27d4eb4fu;

    return h ? h : 1;
}

static bool places_has(const struct places *p, uint64_t h)
{
    for (size_t i = h & (p->cap - 1); p->cap && p->slots[i]; i = (i + 1) & (p->cap - 1)) {
        if (p->slots[i] == h)
            return true;
    }
    return false;
}

static void places_put(struct places *p, uint64_t *slots, size_t cap, uint64_t h)
{
    size_t i = h & (cap - 1);

    while (slots[i] && slots[i] != h)
        i = (i + 1) & (cap - 1);
    p->count += !slots[i];
    slots[i] = h;
}

/* Out of memory drops the place: a finding is then said twice, never lost. */
static void places_add(struct places *p, uint64_t h)
{
    if ((p->count + 1) * 4 > p->cap * 3) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        uint64_t *slots = calloc(cap, sizeof(*slots)), *old = p->slots;

        if (!slots)
            return;
        p->count = 0;
        for (size_t i = 0; i < p->cap; i++) {
            if (old[i])
                places_put(p, slots, cap, old[i]);
        }
        free(old);
        p->slots = slots;
        p->cap = cap;
    }
    places_put(p, p->slots, p->cap, h);
}

struct diag *diag_create(FILE *out, enum diag_format format)
{
    struct diag *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    d->out = out;
    diag_set_format(d, format);
    return d;
}

void diag_set_format(struct diag *d, enum diag_format format)
{
    d->format = format;
    if (format == DIAG_SARIF && !d->buffered)
        sarif_begin(d->out);
}

struct diag *diag_create_buffered_like(const struct diag *like)
{
    struct diag *d = diag_create_buffered(like->format);

    if (d)
        d->policy = like->policy;
    return d;
}

struct diag *diag_create_buffered_for(const struct diag *like)
{
    struct diag *d = diag_create_buffered_like(like);

    if (d && like->shadowing)
        diag_shadow(d, like->shadow_earlier, like->shadow_later);
    if (d && like->shadowing && !d->shadowing) {
        diag_destroy(d);
        return NULL;
    }
    return d;
}

struct diag *diag_create_buffered(enum diag_format format)
{
    struct diag *d = calloc(1, sizeof(*d));

    if (!d)
        return NULL;
    d->format = format;
    d->buffered = true;
    return d;
}

/* A buffered diag's memstream, opened when first needed: most hold nothing, and each
 * stream's first buffer was two pages touched (a one-step render made two). */
static bool buffer_open(struct diag *d)
{
    return d->out || (d->out = open_memstream(&d->buf, &d->buf_len)) != NULL;
}

struct diag *diag_create_capture(struct diag *to, const struct diag_sink *sink)
{
    struct diag *d;

    /* a buffered diag opens its stream at its first message: the capture writes into it */
    if (to->buffered && !buffer_open(to))
        return NULL;
    if (!(d = diag_create(to->out, to->format == DIAG_SARIF ? DIAG_TEXT : to->format)))
        return NULL;
    d->format = to->format; /* the log is begun by `to`, which its messages go into */
    d->policy = to->policy;
    d->sink = sink;
    d->to = to;
    if (to->shadowing)
        diag_shadow(d, to->shadow_earlier, to->shadow_later);
    return d;
}

/* A SARIF message written into the log, unless a buffered diag holds it (hold() kept its
 * parts). */
static void sarif_message(struct diag *d, enum diag_severity sev, const char *file, unsigned line,
                          unsigned col, enum rule_id rule, const char *msg)
{
    if (!d->buffered)
        sarif_write(sev, file, line, col, rule, msg);
}

static struct held *lost(struct diag *d, enum diag_severity sev, enum diag_class cls)
{
    d->lost_errors += sev == DIAG_ERROR;
    d->lost_warnings += sev == DIAG_WARNING;
    d->lost_input = d->lost_input || (sev == DIAG_ERROR && cls == DIAG_INPUT);
    return NULL;
}

/* Keeps where a buffered diag's next message starts and what it is, its parts copied
 * (out of memory loses the text, not its count). */
static struct held *hold(struct diag *d, enum diag_severity sev, enum diag_class cls, const char *file,
                         unsigned line, unsigned col, enum rule_id rule, const char *msg, bool shown)
{
    /* out of memory: its text goes with the one before (or nowhere: no stream); its count
     * is kept */
    if (!buffer_open(d))
        return lost(d, sev, cls);
    if (d->n_held == d->held_cap) {
        struct held *grown = array_grow(d->held, &d->held_cap, d->n_held + 1, 16, sizeof(*grown));

        if (!grown)
            return lost(d, sev, cls);
        d->held = grown;
    }
    d->held[d->n_held++] = (struct held){
        ftell(d->out),
        !file || rule == RULE_NONE ? 0
        : cls == DIAG_FINDING      ? place_hash(file, line, col)
        : line                     ? input_place(file, line, col, rule)
                                   : 0,
        rule, sev, cls == DIAG_INPUT, shown, file ? strdup(file) : NULL, strdup(msg), line, col, false};
    return &d->held[d->n_held - 1];
}

/* Drops the held messages, after writing into `to` (unless NULL) those it would not have
 * shadowed, had they been reported into it, and counting them there. */
static void release_held(struct diag *from, struct diag *to)
{
    for (size_t i = 0; i < from->n_held; i++) {
        struct held *h = &from->held[i];
        size_t end = i + 1 < from->n_held ? (size_t)from->held[i + 1].start : from->buf_len;
        bool said = to != NULL && !h->silent;

        if (h->silent && to && to->shadowing && h->rule == to->shadow_earlier)
            places_add(to->shadowing, h->place);
        if (said && to->shadowing && h->place && (h->rule == to->shadow_later || h->sev == DIAG_ERROR) &&
            places_has(to->shadowing, h->place))
            said = false;
        if (said && to->shadowing && h->place && (h->input || h->rule == to->shadow_earlier))
            places_add(to->shadowing, h->place);
        if (said && to->sink && !h->input && h->msg)
            to->sink->finding(to->sink->user, h->sev, h->file, h->line, h->col, h->rule, h->msg);
        else if (said && from->format == DIAG_SARIF && h->shown && h->msg)
            sarif_message(to, h->sev, h->file, h->line, h->col, h->rule, h->msg);
        else if (said && from->format != DIAG_SARIF)
            fwrite(from->buf + h->start, 1, end - (size_t)h->start, to->out);
        if (said && h->sev == DIAG_ERROR) {
            to->errors++;
            to->input_error = to->input_error || h->input;
        } else if (said && h->sev == DIAG_WARNING) {
            to->warnings++;
        }
        free(h->file);
        free(h->msg);
    }
    if (to) {
        to->errors += from->lost_errors;
        to->warnings += from->lost_warnings;
        to->input_error = to->input_error || from->lost_input;
    }
    from->n_held = 0;
    from->lost_errors = from->lost_warnings = 0;
    from->lost_input = false;
}

void diag_flush_into(struct diag *from, struct diag *to)
{
    if (!from->buffered || (from->out && fflush(from->out) != 0))
        return;
    release_held(from, to->muted ? NULL : to);
    /* start over empty */
    if (from->out)
        rewind(from->out);
    from->buf_len = 0;
    from->errors = from->warnings = 0;
    from->input_error = false;
}

void diag_destroy(struct diag *d)
{
    if (!d)
        return;
    if (d->shadowing) {
        free(d->shadowing->slots);
        free(d->shadowing);
    }
    if (d->buffered) {
        if (d->out)
            fclose(d->out);
        free(d->buf);
    }
    release_held(d, NULL);
    free(d->held);
    if (d->line)
        fclose(d->line);
    free(d->line_buf);
    free(d);
}

void diag_keep_only(struct diag *d, enum rule_id rule)
{
    d->only_rule = rule;
}

void diag_shadow(struct diag *d, enum rule_id earlier, enum rule_id later)
{
    d->shadow_earlier = earlier;
    d->shadow_later = later;
    if (!d->shadowing)
        d->shadowing = calloc(1, sizeof(*d->shadowing));
}

void diag_set_policy(struct diag *d, const struct diag_policy *p)
{
    d->policy = p;
}

void diag_set_muted(struct diag *d, bool muted)
{
    d->muted = muted;
}

/* The well-formed UTF-8 character at s (NUL-terminated): its length and code point; 0
 * when the bytes there are not one (a NUL continuation byte stops the look). */
static size_t utf8_char(const unsigned char *s, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    uint32_t v = n == 1 ? c : n == 2 ? c & 0x1fu : n == 3 ? c & 0x0fu : c & 0x07u;

    for (size_t k = 1; k < n; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (s[k] & 0x3fu);
    }
    if ((n == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) || (n == 4 && (v < 0x10000 || v > 0x10ffff)))
        return 0;
    *cp = v;
    return n;
}

/* What a terminal or a log viewer would act on rather than show: C0 controls, DEL, C1
 * controls (U+009B is a CSI), the line and paragraph separators (a new line to some
 * viewers) and the bidirectional overrides and isolates (text shown in another order). */
static bool is_control(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* How a message's text is written, one character at a time. */
enum escape_mode {
    ESC_TEXT,            /* \n \r \t \xNN (a byte that is not UTF-8 too), \uNNNN */
    ESC_JSON,            /* a JSON string's body; bytes that are not UTF-8 as U+FFFD */
    ESC_GITHUB_DATA,     /* GitHub's escapeData: % CR LF; other controls as in text */
    ESC_GITHUB_PROPERTY, /* escapeProperty: also : and , */
};

/* Writes the character at s (one byte when it is not UTF-8) as `mode` wants it; returns
 * its length. The escapes of workflow commands are those of actions/toolkit's
 * packages/core/src/command.ts (escapeData, escapeProperty), which the runner undoes. */
static size_t write_char(FILE *out, const char *s, enum escape_mode mode)
{
    unsigned char c = (unsigned char)*s;
    uint32_t cp;
    size_t n = utf8_char((const unsigned char *)s, &cp);

    if (mode >= ESC_GITHUB_DATA && (c == '%' || c == '\r' || c == '\n' ||
                                   (mode == ESC_GITHUB_PROPERTY && (c == ':' || c == ','))))
        fprintf(out, "%%%02X", c);
    else if (mode == ESC_JSON && (c == '"' || c == '\\'))
        fprintf(out, "\\%c", c);
    else if (n == 0)
        fprintf(out, mode == ESC_JSON ? "\\ufffd" : "\\x%02X", c);
    else if (!is_control(cp))
        fwrite(s, 1, n, out);
    else if (c == '\n' || c == '\r' || c == '\t')
        fprintf(out, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
    else if (cp < 0x80 && mode != ESC_JSON)
        fprintf(out, "\\x%02X", c);
    else
        fprintf(out, "\\u%04x", (unsigned)cp);
    return n ? n : 1;
}

/* The GitHub runner takes a line for a workflow command when it starts with `::` after
 * white space (actions/runner ActionCommand.TryParseV2, .NET's TrimStart), or when it
 * holds `##[` anywhere (the legacy form, TryParse): the length of the white space at s
 * (ASCII and Unicode spaces alike), and whether `::` follows it. */
static size_t leading_space(const char *s, bool *command)
{
    size_t at = 0, n;
    uint32_t cp;

    while ((n = utf8_char((const unsigned char *)s + at, &cp)) > 0 &&
           (cp == ' ' || cp == 0x85 || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
            cp == 0x202f || cp == 0x205f || cp == 0x3000))
        at += n;
    *command = s[at] == ':' && s[at + 1] == ':';
    return at;
}

/* `s` in `mode`, with no character a terminal or the runner acts on. `line_start`: `s`
 * begins a line (text), where a `::` after white space would be a workflow command. */
static void write_escaped(FILE *out, const char *s, enum escape_mode mode, bool line_start)
{
    bool command = false;

    if (line_start) {
        size_t space = leading_space(s, &command);

        fwrite(s, 1, space, out);
        s += space;
        if (command) {
            fputs("\\x3A", out);
            s++;
        }
    }
    while (*s) {
        size_t plain = 0; /* written as they are, in one piece (a million ids per report) */
        unsigned char c;

        while ((c = (unsigned char)s[plain]) >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '%' &&
               c != ':' && c != ',' && c != '#')
            plain++;
        fwrite(s, 1, plain, out);
        s += plain;
        if (!*s)
            break;
        if (s[0] == '#' && s[1] == '#' && s[2] == '[' && mode <= ESC_JSON) {
            fputs(mode == ESC_JSON ? "##\\u005b" : "##\\x5B", out);
            s += 3;
            continue;
        }
        s += write_char(out, s, mode);
    }
}

void diag_write_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    write_escaped(out, s, ESC_JSON, false);
    fputc('"', out);
}

void diag_write_github_escaped(FILE *out, const char *s)
{
    write_escaped(out, s, ESC_GITHUB_DATA, false);
}

void diag_write_github_property(FILE *out, const char *s)
{
    write_escaped(out, s, ESC_GITHUB_PROPERTY, false);
}

void diag_write_text(FILE *out, const char *s, bool line_start)
{
    write_escaped(out, s, ESC_TEXT, line_start);
}

void diag_report(struct diag *d, enum diag_severity sev, enum diag_class cls,
                 const char *file, unsigned line, unsigned col, enum rule_id rule,
                 const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    diag_vreport(d, sev, cls, file, line, col, rule, fmt, ap);
    va_end(ap);
}

void diag_at(struct diag *d, enum diag_severity sev, enum diag_class cls, const char *const *files,
             struct ypos at, enum rule_id rule, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    diag_vat(d, sev, cls, files, at, rule, fmt, ap);
    va_end(ap);
}

void diag_vat(struct diag *d, enum diag_severity sev, enum diag_class cls, const char *const *files,
              struct ypos at, enum rule_id rule, const char *fmt, va_list ap)
{
    diag_vreport(d, sev, cls, files[at.file], at.line, at.col, rule, fmt, ap);
}

/* The level the policy gives `rule`'s findings. */
static enum diag_level level_of(const struct diag_policy *p, enum rule_id rule)
{
    for (size_t i = 0; p && rule != RULE_NONE && i < p->n_levels; i++) {
        if (p->levels[i].rule == rule)
            return p->levels[i].level;
    }
    return DIAG_LEVEL_DEFAULT;
}

/* At most this many snippets a run: each may read its file from the start. */
#define DIAG_MAX_SNIPPETS 100

/* How many characters the first `to` bytes of `text` take once escaped: where the caret
 * goes. */
static size_t shown_width(const char *text, size_t to)
{
    char *shown = NULL, *prefix = strndup(text, to);
    size_t len = 0, width = 0;
    FILE *m = open_memstream(&shown, &len);

    if (m && prefix)
        diag_write_text(m, prefix, true);
    if (m && fclose(m) == 0) {
        for (size_t i = 0; i < len; i++)
            width += ((unsigned char)shown[i] & 0xc0) != 0x80;
    }
    free(prefix);
    free(shown);
    return width;
}

/* The source line under a text message, escaped, with a caret under the column. */
static void write_snippet(struct diag *d, const char *file, unsigned line, unsigned col)
{
    struct diag_excerpt ex;

    if (!line || d->snippets >= DIAG_MAX_SNIPPETS || !d->policy->excerpt ||
        !d->policy->excerpt(file, line, col, &ex))
        return;
    d->snippets++;
    fputs("  ", d->out);
    diag_write_text(d->out, ex.text, true);
    fprintf(d->out, "\n  %*s", (int)shown_width(ex.text, ex.caret), "");
    fputs(d->policy->color ? "\033[1;32m^\033[0m\n" : "^\n", d->out);
}

/* Whether a message of `rule` is dropped before anything is made of it: muted, another
 * rule kept only, or the rule turned off. */
static bool dropped(const struct diag *d, enum diag_class cls, enum rule_id rule)
{
    return d->muted || (d->only_rule != RULE_NONE && cls == DIAG_FINDING && rule != d->only_rule) ||
           (cls == DIAG_FINDING && level_of(d->policy, rule) == DIAG_LEVEL_OFF);
}

void diag_cover(struct diag *d, const char *const *files, struct ypos at, enum rule_id rule)
{
    const char *file = files[at.file];

    if (dropped(d, DIAG_FINDING, rule) || !file)
        return;
    if (d->shadowing && rule == d->shadow_earlier)
        places_add(d->shadowing, place_hash(file, at.line, at.col));
    if (d->to) {
        diag_cover(d->to, files, at, rule);
    } else if (d->buffered) {
        struct held *h = hold(d, DIAG_NOTE, DIAG_FINDING, file, at.line, at.col, rule, "", false);

        if (h)
            h->silent = true;
    }
}

/* A message longer than the buffer keeps its head and its tail around "...": the tail
 * holds what went wrong (strerror after a long TMPDIR, a reason after a long value),
 * which plain truncation cut off. Neither cut splits a UTF-8 sequence. */
static void format_message(char *msg, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void format_message(char *msg, size_t size, const char *fmt, va_list ap)
{
    va_list again;
    char *full;
    int n;
    size_t head, from;

    va_copy(again, ap);
    n = vsnprintf(msg, size, fmt, ap);
    if (n >= 0 && (size_t)n >= size && vasprintf(&full, fmt, again) >= 0) {
        for (head = (size - 4) / 2; head && (full[head] & 0xc0) == 0x80; head--)
            ;
        for (from = (size_t)n - (size - 4 - head); from < (size_t)n && (full[from] & 0xc0) == 0x80; from++)
            ;
        memcpy(msg, full, head);
        memcpy(msg + head, "...", 3);
        memcpy(msg + head + 3, full + from, (size_t)n - from + 1);
        free(full);
    }
    va_end(again);
}

void diag_vreport(struct diag *d, enum diag_severity sev, enum diag_class cls,
                  const char *file, unsigned line, unsigned col, enum rule_id rule,
                  const char *fmt, va_list ap)
{
    static const char *const colors[] = {"\033[1;31m", "\033[1;35m", "\033[1;36m"};
    const struct diag_policy *p = d->policy;
    enum diag_level level = cls == DIAG_FINDING ? level_of(p, rule) : DIAG_LEVEL_DEFAULT;
    bool color = p && p->color && d->format == DIAG_TEXT;
    char msg[1024];
    FILE *out;
    const char *word;

    if (dropped(d, cls, rule))
        return;
    if (d->shadowing && file && cls == DIAG_FINDING && rule != RULE_NONE) {
        if (rule == d->shadow_later && places_has(d->shadowing, place_hash(file, line, col)))
            return;
        if (rule == d->shadow_earlier)
            places_add(d->shadowing, place_hash(file, line, col));
    }
    if (d->shadowing && file && line && cls == DIAG_INPUT && rule != RULE_NONE) {
        uint64_t h = input_place(file, line, col, rule);

        if (places_has(d->shadowing, h))
            return;
        places_add(d->shadowing, h);
    }
    if (level == DIAG_LEVEL_ERROR)
        sev = DIAG_ERROR;
    else if (level == DIAG_LEVEL_WARNING)
        sev = DIAG_WARNING;
    /* counted before -q drops it: -q changes what is printed, never the exit code */
    if (sev == DIAG_ERROR) {
        d->errors++;
        if (cls == DIAG_INPUT)
            d->input_error = true;
    } else if (sev == DIAG_WARNING) {
        d->warnings++;
    }
    format_message(msg, sizeof(msg), fmt, ap);
    if (d->sink && cls == DIAG_FINDING) {
        d->sink->finding(d->sink->user, sev, file, line, col, rule, msg);
        return;
    }
    if (d->to) {
        diag_report(d->to, sev, cls, file, line, col, rule, "%s", msg);
        return;
    }
    if (d->buffered && !hold(d, sev, cls, file, line, col, rule, msg, !(p && p->quiet && sev != DIAG_ERROR)) &&
        !d->out)
        return; /* no stream to write it into: counted only */
    if (p && p->quiet && sev != DIAG_ERROR)
        return;
    word = sev == DIAG_ERROR ? "error" : sev == DIAG_WARNING ? "warning" : "note";

    if (d->format == DIAG_SARIF) {
        sarif_message(d, sev, file, line, col, rule, msg);
        return;
    }
    if (!file)
        file = "<input>";
    out = d->out;
    /* stderr is unbuffered: a message written a piece at a time was 16 write calls */
    if (out == stderr && (d->line ? fseeko(d->line, 0, SEEK_SET) == 0
                                  : (d->line = open_memstream(&d->line_buf, &d->line_len)) != NULL))
        d->out = d->line;

    switch (d->format) {
    case DIAG_SARIF: /* above */
        break;
    case DIAG_GITHUB:
        fprintf(d->out, "::%s file=", sev == DIAG_NOTE ? "notice" : word);
        diag_write_github_property(d->out, file);
        if (line)
            fprintf(d->out, ",line=%u,col=%u", line, col);
        fputs("::", d->out);
        diag_write_github_escaped(d->out, msg);
        if (rule != RULE_NONE)
            fprintf(d->out, " [%s]", rule_name(rule));
        fputc('\n', d->out);
        break;
    case DIAG_JSON:
        fputs("{\"file\":", d->out);
        diag_write_json_string(d->out, file);
        fprintf(d->out, ",\"line\":%u,\"col\":%u,\"severity\":\"%s\",\"rule\":", line, col, word);
        diag_write_json_string(d->out, rule_name(rule));
        fputs(",\"message\":", d->out);
        diag_write_json_string(d->out, msg);
        fputs("}\n", d->out);
        break;
    case DIAG_TEXT:
        fprintf(d->out, "%s", color ? "\033[1m" : "");
        /* an empty name ('' on the command line) would start the line with ':' */
        diag_write_text(d->out, *file ? file : "''", true);
        if (line)
            fprintf(d->out, ":%u:%u", line, col);
        fprintf(d->out, ": %s%s:%s ", color ? colors[sev] : "", word, color ? "\033[0m" : "");
        diag_write_text(d->out, msg, false);
        if (rule != RULE_NONE)
            fprintf(d->out, color ? " \033[2m[%s]\033[0m" : " [%s]", rule_name(rule));
        fputc('\n', d->out);
        if (p && p->snippets)
            write_snippet(d, file, line, col);
        break;
    }
    if (d->out != out) {
        d->out = out;
        if (fflush(d->line) == 0) /* line_len: the message's end, where the stream is */
            fwrite(d->line_buf, 1, d->line_len, out);
    }
}

void diag_say(struct diag *d, const char *what, const char *arg)
{
    char msg[1024];

    if (d->format == DIAG_SARIF) {
        snprintf(msg, sizeof(msg), "%s %s", what, arg);
        sarif_message(d, DIAG_NOTE, NULL, 0, 0, RULE_NONE, msg);
        return;
    }
    if (d->buffered && !buffer_open(d))
        return;
    fprintf(d->out, "fanout: %s ", what);
    diag_write_text(d->out, arg, false);
    fputc('\n', d->out);
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
