#include "blocktext_oracle.h"

#include <libfyaml.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/blocktext.h"

/* Whether p[0..n) holds no CR, NEL, LS or PS: blocktext may be told so (its `plain`). */
static bool plain_body(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] == '\r' || (i + 1 < n && !memcmp(p + i, "\xC2\x85", 2)) ||
            (i + 2 < n && (!memcmp(p + i, "\xE2\x80\xA8", 3) || !memcmp(p + i, "\xE2\x80\xA9", 3))))
            return false;
    return true;
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
                           st == FYSS_FOLDED, em->input_pos == len, false, false};
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

void blocktext_compare(const char *yaml, size_t len, struct blocktext_tally *t)
{
    struct fy_diag_cfg dcfg;
    struct fy_diag *fyd;
    struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_SLOPPY_FLOW_INDENTATION};
    struct fy_parser *fyp;
    struct fy_event *fye;
    char *out = malloc(2 * (len + 2)); /* the text, then the text told plain */

    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    fyd = fy_diag_create(&dcfg);
    cfg.diag = fyd;
    fyp = fy_parser_create(&cfg);
    if (!fyp || !out || fy_parser_set_string(fyp, yaml, len) != 0)
        abort();
    while ((fye = fy_parser_parse(fyp)) != NULL) {
        if (fye->type == FYET_SCALAR)
            compare_one(yaml, len, fye, out, t);
        fy_parser_event_free(fyp, fye);
    }
    fy_parser_destroy(fyp);
    fy_diag_destroy(fyd);
    free(out);
}
