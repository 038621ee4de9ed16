#define _GNU_SOURCE /* memmem */
#include "quotedtext_oracle.h"

#include <libfyaml.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/quotedtext.h"
#include "yaml_events.h"

/* One scalar event: a single-quoted scalar's text from quotedtext (from the bytes between
 * its quotes, as stream.c hands them over) against libfyaml's, and written in place. */
static void compare_one(const char *yaml, struct fy_event *fye, char *out, struct quotedtext_tally *t)
{
    const struct fy_mark *sm = fy_event_start_mark(fye), *em = fy_event_end_mark(fye);
    const char *body, *want;
    size_t n = 0, in_place_n = 0, blen, len;
    bool ok, in_place;

    if (fy_token_scalar_style(fye->scalar.value) != FYSS_SINGLE_QUOTED || !sm || !em ||
        em->input_pos < sm->input_pos)
        return;
    body = yaml + sm->input_pos;
    len = em->input_pos - sm->input_pos;
    if (sm->input_pos < 1 || body[-1] != '\'' || body[len] != '\'') {
        if (!t->differ++)
            snprintf(t->first, sizeof(t->first), "line %d: the marks are not inside the quotes", sm->line + 1);
        return;
    }
    ok = quotedtext_format(body, len, out, &n);
    memcpy(out + len, body, len);
    in_place = quotedtext_format(out + len, len, out + len, &in_place_n);
    if ((in_place != ok || (ok && (in_place_n != n || memcmp(out, out + len, n) != 0))) && !t->differ++)
        snprintf(t->first, sizeof(t->first), "line %d: in place, quotedtext differs", sm->line + 1);
    if (!ok) {
        t->declined++;
        return;
    }
    if (memmem(body, len, "''", 2) || memchr(body, '\r', len)) {
        t->not_compared++;
        return;
    }
    t->compared++;
    want = fy_token_get_text(fye->scalar.value, &blen);
    if ((!want || n != blen || memcmp(out, want, n) != 0) && !t->differ++)
        snprintf(t->first, sizeof(t->first), "line %d ['%.*s']: libfyaml %zu [%.*s] quotedtext %zu [%.*s]",
                 sm->line + 1, (int)len, body, blen, (int)blen, want ? want : "", n, (int)n, out);
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
