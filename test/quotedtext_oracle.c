#define _GNU_SOURCE /* memmem */
#include "quotedtext_oracle.h"

#include <libfyaml.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/quotedtext.h"
#include "yaml_events.h"

/* Whether a line break (LF, or the CR of CRLF) is at p, past white space. */
static bool white_to_break(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p < end && (*p == '\n' || *p == '\r');
}

/* Whether libfyaml 0.7.12 is known to misread double-quoted body[0..len), each class found
 * by a random run and PyYAML read as quotedtext does: a CR (a CRLF before a last line of
 * white space gives a line feed for a space); an escaped space or backslash, then white
 * space, then a break (`\ ` gives "ab" and bytes it never wrote, `\\` keeps the white
 * space); an escaped backslash right before an escaped break (folded to a space); an
 * escaped break then two or more empty lines (a line feed short, or the rest lost). */
static bool double_known_wrong(const char *body, size_t len)
{
    const char *end = body + len;

    if (memchr(body, '\r', len))
        return true;
    for (const char *p = body; p + 1 < end; p++) {
        if (*p != '\\')
            continue;
        if ((p[1] == ' ' || p[1] == '\\') && white_to_break(p + 2, end))
            return true;
        if (p[1] == '\\' && p + 3 < end && p[2] == '\\' && p[3] == '\n')
            return true;
        if (p[1] == '\n') {
            unsigned empty = 0;

            for (const char *q = p + 2; q < end && white_to_break(q, end) && (q = memchr(q, '\n', (size_t)(end - q)));
                 q++)
                empty++;
            if (empty >= 2)
                return true;
        }
        p++;
    }
    return false;
}

/* One scalar event: a quoted scalar's text from quotedtext (from the bytes between its
 * quotes, as stream.c hands them over) against libfyaml's; single-quoted, written in place
 * too. */
static void compare_one(const char *yaml, struct fy_event *fye, char *out, struct quotedtext_tally *t)
{
    const struct fy_mark *sm = fy_event_start_mark(fye), *em = fy_event_end_mark(fye);
    enum fy_scalar_style st = fy_token_scalar_style(fye->scalar.value);
    char quote = st == FYSS_SINGLE_QUOTED ? '\'' : '"';
    const char *body, *want;
    size_t n = 0, in_place_n = 0, blen, len;
    bool ok, in_place;

    if ((st != FYSS_SINGLE_QUOTED && st != FYSS_DOUBLE_QUOTED) || !sm || !em || em->input_pos < sm->input_pos)
        return;
    body = yaml + sm->input_pos;
    len = em->input_pos - sm->input_pos;
    if (sm->input_pos < 1 || body[-1] != quote || body[len] != quote) {
        if (!t->differ++)
            snprintf(t->first, sizeof(t->first), "line %d: the marks are not inside the quotes", sm->line + 1);
        return;
    }
    ok = quotedtext_format(body, len, quote, out, &n);
    if (quote == '\'') {
        memcpy(out + len, body, len);
        in_place = quotedtext_format(out + len, len, quote, out + len, &in_place_n);
        if ((in_place != ok || (ok && (in_place_n != n || memcmp(out, out + len, n) != 0))) && !t->differ++)
            snprintf(t->first, sizeof(t->first), "line %d: in place, quotedtext differs", sm->line + 1);
    }
    if (!ok) {
        t->declined++;
        return;
    }
    if (quote == '\'' ? memmem(body, len, "''", 2) || memchr(body, '\r', len) : double_known_wrong(body, len)) {
        t->not_compared++;
        return;
    }
    t->compared++;
    if (quote == '"')
        t->compared_double++;
    want = fy_token_get_text(fye->scalar.value, &blen);
    if ((!want || n != blen || memcmp(out, want, n) != 0) && !t->differ++)
        snprintf(t->first, sizeof(t->first), "line %d [%c%.*s%c]: libfyaml %zu [%.*s] quotedtext %zu [%.*s]",
                 sm->line + 1, quote, (int)len, body, quote, blen, (int)blen, want ? want : "", n, (int)n, out);
}

struct compare_ctx {
    const char *yaml;
    char *out;
    struct quotedtext_tally *t;
};

static void compare_event(struct fy_event *fye, void *ctx)
{
    struct compare_ctx *c = ctx;

    compare_one(c->yaml, fye, c->out, c->t);
}

void quotedtext_compare(const char *yaml, size_t len, struct quotedtext_tally *t)
{
    struct compare_ctx c = {yaml, malloc(2 * len + 1), t}; /* the text, then the body written over in place */

    if (!c.out)
        abort();
    yaml_each_scalar(yaml, len, compare_event, &c);
    free(c.out);
}
