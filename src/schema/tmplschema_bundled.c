/* tmplschema_bundled: the bundled template schemas (github-workflow-v1), compiled at
 * build time (tools/tmplembed.c writes build/tmplbundled.c from tmplschema_compile's
 * result): a run only makes the schema that holds their tables and its own notes. */
#include "tmplschema_internal.h"

#include <stdlib.h>
#include <string.h>

const struct tmplschema *tmplschema_bundled(const char *name, struct diag *d)
{
    /* Once a thread: validation keeps notes in it (expressions checked, name lists);
     * the definitions are shared, never written. */
    static _Thread_local struct {
        const char *name;
        struct tmplschema *schema;
    } cache[4];
    static _Thread_local size_t cached;
    const struct tmpl_prebuilt *p = tmpl_prebuilt;
    struct tmplschema *s;

    for (size_t i = 0; i < cached; i++) {
        if (!strcmp(cache[i].name, name))
            return cache[i].schema;
    }
    while (p->name && strcmp(p->name, name) != 0)
        p++;
    if (!p->name || cached == sizeof(cache) / sizeof(cache[0]))
        return NULL;
    if (!(s = tmpl_schema_new(name))) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, name, 0, 0, RULE_INTERNAL, "out of memory");
        return NULL;
    }
    s->prebuilt = true;
    s->defs = (struct tmpl_def **)p->defs;
    s->n_defs = p->n_defs;
    memcpy(s->items, p->items, p->n_items * sizeof(*s->items));
    s->n_items = p->n_items;
    cache[cached].name = p->name;
    cache[cached].schema = s;
    return cache[cached++].schema;
}
