#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/emit.h"
#include "unit.h"

struct fy_document *doc_from(const char *yaml)
{
    struct fy_document *fyd = fy_document_build_from_string(NULL, yaml, strlen(yaml));

    ck_assert_msg(fyd != NULL, "test input does not parse: %s", yaml);
    return fyd;
}

char *emit_to_string(struct fy_node *node, int json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct emitter *e = emit_create(fp, json ? EMIT_JSON : EMIT_YAML);

    emit_node(e, node);
    ck_assert_int_eq(emit_error(e), 0);
    emit_destroy(e);
    fclose(fp);
    return buf;
}
