#include "yaml_events.h"

#include <libfyaml.h>
#include <stdlib.h>

void yaml_each_scalar(const char *yaml, size_t len, void (*fn)(struct fy_event *fye, void *ctx), void *ctx)
{
    struct fy_diag_cfg dcfg;
    struct fy_diag *fyd;
    struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_SLOPPY_FLOW_INDENTATION};
    struct fy_parser *fyp;
    struct fy_event *fye;

    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    fyd = fy_diag_create(&dcfg);
    cfg.diag = fyd;
    fyp = fy_parser_create(&cfg);
    if (!fyp || fy_parser_set_string(fyp, yaml, len) != 0)
        abort();
    while ((fye = fy_parser_parse(fyp)) != NULL) {
        if (fye->type == FYET_SCALAR)
            fn(fye, ctx);
        fy_parser_event_free(fyp, fye);
    }
    fy_parser_destroy(fyp);
    fy_diag_destroy(fyd);
}
