#include "blocktext_oracle.h"

#include <libfyaml.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/blocktext.h"

/* The parent column stream.c gives a scalar: its pending key's, else its container's. */
struct parent {
    unsigned col, key_col;
    bool map, has_key;
};

static void compare_one(const char *yaml, size_t len, struct fy_event *fye, const struct fy_mark *sm,
                        const struct fy_mark *em, const struct parent *up, char *out, struct blocktext_tally *t)
{
    enum fy_scalar_style st = fy_token_scalar_style(fye->scalar.value);
    const char *body = yaml + sm->input_pos, *header = body - 1, *want;
    size_t n = 0, blen;
    struct blocktext b;

    if (st != FYSS_LITERAL && st != FYSS_FOLDED)
        return;
    while (header > yaml && header[-1] != '\n')
        header--;
    b = (struct blocktext){header, (size_t)(body - 1 - header), body, em->input_pos - sm->input_pos,
                           st == FYSS_FOLDED, up ? (up->has_key ? up->key_col : up->col) : 0,
                           em->input_pos == len};
    want = fy_token_get_text(fye->scalar.value, &blen);
    if (!blocktext_format(&b, out, &n)) {
        t->declined++;
        return;
    }
    t->compared++;
    if ((!want || n != blen || memcmp(out, want, n) != 0) && !t->differ++)
        snprintf(t->first, sizeof(t->first), "input [%.*s] libfyaml %zu [%.*s] blocktext %zu [%.*s]",
                 (int)(len > 300 ? 300 : len), yaml, blen, (int)blen, want ? want : "", n, (int)n, out);
}

void blocktext_compare(const char *yaml, size_t len, struct blocktext_tally *t)
{
    struct fy_diag_cfg dcfg;
    struct fy_diag *fyd;
    struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_SLOPPY_FLOW_INDENTATION};
    struct fy_parser *fyp;
    struct fy_event *fye;
    struct parent stack[256];
    int depth = 0;
    char *out = malloc(len + 2);

    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    fyd = fy_diag_create(&dcfg);
    cfg.diag = fyd;
    fyp = fy_parser_create(&cfg);
    if (!fyp || !out || fy_parser_set_string(fyp, yaml, len) != 0)
        abort();
    while ((fye = fy_parser_parse(fyp)) != NULL) {
        const struct fy_mark *sm = fy_event_start_mark(fye), *em = fy_event_end_mark(fye);
        unsigned col = sm ? (unsigned)sm->column + 1 : 0;
        bool finished = fye->type == FYET_SCALAR || fye->type == FYET_ALIAS;

        if (fye->type == FYET_SCALAR && sm && em && sm->line > 0)
            compare_one(yaml, len, fye, sm, em, depth > 0 ? &stack[depth - 1] : NULL, out, t);
        if (fye->type == FYET_MAPPING_START || fye->type == FYET_SEQUENCE_START) {
            if (depth == 256)
                break;
            stack[depth++] = (struct parent){col, 0, fye->type == FYET_MAPPING_START, false};
        } else if (fye->type == FYET_MAPPING_END || fye->type == FYET_SEQUENCE_END) {
            col = stack[--depth].col;
            finished = true;
        }
        /* a mapping's child in key place gives its value the key's column */
        if (finished && depth > 0 && stack[depth - 1].map) {
            stack[depth - 1].key_col = col;
            stack[depth - 1].has_key = !stack[depth - 1].has_key;
        }
        fy_parser_event_free(fyp, fye);
    }
    fy_parser_destroy(fyp);
    fy_diag_destroy(fyd);
    free(out);
}
