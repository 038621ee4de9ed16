#include "blocktext_oracle.h"

#include <libfyaml.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/blocktext.h"
#include "fanout/yscalar.h"
#include "yaml_events.h"

/* Whether p[0..n) holds no CR, NEL, LS or PS: blocktext may be told so (its `plain`). */
static bool plain_body(const char *p, size_t n)
{
    return !memchr(p, '\r', n) && !yscalar_has_yaml11_break(p, n);
}

/* One scalar event: a block scalar's text from blocktext (from the input's bytes, as
 * stream.c hands them over: the header's line, then the scalar's lines) against
 * libfyaml's; where the body is plain, told so too, which must not change it. */
static void compare_one(const char *yaml, size_t len, struct fy_event *fye, char *out,
                        struct blocktext_tally *t)
{
    const struct fy_mark *sm = fy_event_start_mark(fye), *em = fy_event_end_mark(fye);
    enum fy_scalar_style st = fy_token_scalar_style(fye->scalar.value);
    const char *body, *header, *want;
    size_t n = 0, blen, pn = 0;
    struct blocktext b, told;
    bool ok;

    if ((st != FYSS_LITERAL && st != FYSS_FOLDED) || !sm || !em || sm->line < 1 || sm->column != 0)
        return;
    body = yaml + sm->input_pos;
    for (header = body - 1; header > yaml && header[-1] != '\n';)
        header--;
    b = (struct blocktext){header, (size_t)(body - 1 - header), body, em->input_pos - sm->input_pos,
                           st == FYSS_FOLDED, em->input_pos == len, false, false, 0};
    want = fy_token_get_text(fye->scalar.value, &blen);
    ok = blocktext_format(&b, out, &n);
    told = b;
    told.plain = true;
    if (plain_body(body, b.body_len) &&
        (blocktext_format(&told, out + len + 2, &pn) != ok || (ok && (pn != n || told.departs != b.departs ||
                                                                      memcmp(out, out + len + 2, n) != 0))) &&
        !t->differ++)
        snprintf(t->first, sizeof(t->first), "line %d: told plain, blocktext differs", sm->line + 1);
    if (!ok) {
        t->declined++;
        return;
    }
    if (b.departs) {
        t->departed++;
        return;
    }
    t->compared++;
    if ((!want || n != blen || memcmp(out, want, n) != 0) && !t->differ++)
        snprintf(t->first, sizeof(t->first), "line %d [%.*s]: libfyaml %zu [%.*s] blocktext %zu [%.*s]",
                 sm->line + 1, (int)(b.header_len + b.body_len + 1), header, blen, (int)blen,
                 want ? want : "", n, (int)n, out);
}

struct compare_ctx {
    const char *yaml;
    size_t len;
    char *out;
    struct blocktext_tally *t;
};

static void compare_event(struct fy_event *fye, void *ctx)
{
    struct compare_ctx *c = ctx;

    compare_one(c->yaml, c->len, fye, c->out, c->t);
}

void blocktext_compare(const char *yaml, size_t len, struct blocktext_tally *t)
{
    struct compare_ctx c = {yaml, len, malloc(2 * (len + 2)), t}; /* the text, then the text told plain */

    if (!c.out)
        abort();
    yaml_each_scalar(yaml, len, compare_event, &c);
    free(c.out);
}
