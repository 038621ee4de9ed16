/* tmplembed NAME...: writes a C file holding the bundled schemas among NAME... that are
 * written in GitHub's template-schema language (schemas/<name>.json, as bundled.c holds
 * them) compiled at build time by tmplschema_compile: their definitions, linked, and
 * their context items, as static tables (struct tmpl_prebuilt). Compiling
 * github-workflow-v1 at run time was a third of a one-workflow render; a problem in a
 * bundled schema now fails the build. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/bundled.h"
#include "literal.h"
#include "schema/tmplschema_internal.h"

/* A text, NUL-terminated, as a C string literal; NULL as NULL. */
static void put_text(const char *s)
{
    if (s)
        put_literal(s, strlen(s));
    else
        printf("NULL");
}

/* `d` as an element of the definitions' array of schema `k` ("NULL" when none). */
static void put_def(int k, const struct tmplschema *s, const struct tmpl_def *d)
{
    size_t i = 0;

    if (!d) {
        printf("NULL");
        return;
    }
    while (s->defs[i] != d)
        i++;
    printf("&d%d[%zu]", k, i);
}

/* `pr` as an element of the props' array of schema `k` ("NULL" when none). */
static void put_prop(int k, const struct tmplschema *s, const struct tmpl_prop *pr)
{
    size_t at = 0;

    if (!pr) {
        printf("NULL");
        return;
    }
    for (size_t i = 0; i < s->n_defs; i++) {
        const struct tmpl_def *d = s->defs[i];

        if (pr >= d->props && pr < d->props + d->n_props) {
            printf("p%d + %zu", k, at + (size_t)(pr - d->props));
            return;
        }
        at += d->n_props;
    }
}

/* Definition i's key table (tmpl_def.keys) as k<k>_<i>, with its arrays. */
static void put_keys(int k, const struct tmplschema *s, size_t i)
{
    const struct tmpl_keys *t = s->defs[i]->keys;

    printf("static const struct tmpl_def *const km%d_%zu[] = {", k, i);
    for (size_t m = 0; m < t->n_maps; m++) {
        printf("%s", m ? ", " : "");
        put_def(k, s, t->maps[m]);
    }
    printf("};\nstatic const struct tmpl_prop *const kp%d_%zu[] = {\n    ", k, i);
    for (size_t j = 0; j < t->n_names * (t->n_maps + 1); j++) {
        printf("%s", j ? (j % 8 ? ", " : ",\n    ") : "");
        put_prop(k, s, j < t->n_names ? t->named[j] : t->props[j - t->n_names]);
    }
    printf("};\nstatic const struct tmpl_keys k%d_%zu = {.maps = km%d_%zu, .n_maps = %zu, .n_names = %zu,\n"
           "    .named = kp%d_%zu, .props = kp%d_%zu + %zu,\n    .has = {",
           k, i, k, i, t->n_maps, t->n_names, k, i, k, i, t->n_names);
    for (size_t j = 0; j < t->n_names; j++)
        printf("%s%u", j ? "," : "", t->has[j]);
    printf("},\n    .slots = {");
    for (size_t j = 0; j < TMPL_PROP_SLOTS; j++)
        printf("%s%u", j ? "," : "", t->slots[j]);
    printf("}};\n");
}

static void put_schema(int k, const char *name, const struct tmplschema *s)
{
    size_t props = 0, one_of = 0;

    printf("\n/* %s */\nstatic struct tmpl_def d%d[%zu];\n", name, k, s->n_defs);
    printf("static struct tmpl_prop p%d[] = {\n", k);
    for (size_t i = 0; i < s->n_defs; i++) {
        for (size_t p = 0; p < s->defs[i]->n_props; p++) {
            const struct tmpl_prop *pr = &s->defs[i]->props[p];

            printf("    {");
            put_literal(pr->name, pr->len);
            printf(", %zu, ", pr->len);
            put_text(pr->type_name);
            printf(", ");
            put_def(k, s, pr->type);
            printf(", %s, %s},\n", pr->required ? "true" : "false", pr->background ? "true" : "false");
        }
    }
    printf("    {NULL, 0, NULL, NULL, false, false}};\n");
    printf("static const struct tmpl_def *o%d[] = {\n", k);
    for (size_t i = 0; i < s->n_defs; i++) {
        for (size_t j = 0; j < s->defs[i]->n_one_of; j++) {
            printf("    ");
            put_def(k, s, s->defs[i]->one_of[j]);
            printf(",\n");
        }
    }
    printf("    NULL};\n");
    printf("static const char *n%d[] = {\n", k);
    for (size_t i = 0; i < s->n_defs; i++) {
        for (size_t j = 0; j < s->defs[i]->n_one_of; j++) {
            printf("    ");
            put_text(s->defs[i]->one_of_names[j]);
            printf(",\n");
        }
    }
    printf("    NULL};\n");
    for (size_t i = 0; i < s->n_defs; i++) {
        if (s->defs[i]->keys)
            put_keys(k, s, i);
    }
    printf("static struct tmpl_def d%d[%zu] = {\n", k, s->n_defs);
    for (size_t i = 0; i < s->n_defs; i++) {
        const struct tmpl_def *d = s->defs[i];

        printf("    {.name = ");
        put_text(d->name);
        printf(", .kind = %u, .scalars = %u,\n     .contexts = UINT64_C(0x%" PRIx64 "), .shadows = UINT64_C(0x%" PRIx64
               "), .constant = ",
               d->kind, d->scalars, d->contexts, d->shadows);
        put_text(d->constant);
        printf(", .constant_len = %zu, .ignore_case = %d, .require_non_empty = %d,\n     .item_name = ", d->constant_len,
               d->ignore_case, d->require_non_empty);
        put_text(d->item_name);
        printf(", .loose_key_name = ");
        put_text(d->loose_key_name);
        printf(", .loose_value_name = ");
        put_text(d->loose_value_name);
        printf(",\n     .item = ");
        put_def(k, s, d->item);
        printf(", .loose_key = ");
        put_def(k, s, d->loose_key);
        printf(", .loose_value = ");
        put_def(k, s, d->loose_value);
        if (d->n_props)
            printf(", .props = p%d + %zu, .n_props = %zu", k, props, d->n_props);
        if (d->any_required)
            printf(", .any_required = true");
        if (d->keys)
            printf(", .keys = &k%d_%zu", k, i);
        if (d->indexed) {
            printf(",\n     .indexed = true, .prop_slots = {");
            for (size_t j = 0; j < TMPL_PROP_SLOTS; j++)
                printf("%s%u", j ? "," : "", d->prop_slots[j]);
            printf("}");
        }
        if (d->n_one_of)
            printf(", .one_of_names = n%d + %zu, .one_of = o%d + %zu, .n_one_of = %zu", k, one_of, k, one_of,
                   d->n_one_of);
        printf("},\n");
        props += d->n_props;
        one_of += d->n_one_of;
    }
    printf("};\nstatic struct tmpl_def *s%d[] = {\n", k);
    for (size_t i = 0; i < s->n_defs; i++)
        printf("    &d%d[%zu],\n", k, i);
    printf("};\nstatic struct ctx_item c%d[] = {\n", k);
    for (size_t i = 0; i < s->n_items; i++) {
        printf("    {");
        put_text(s->items[i].text);
        printf(", ");
        put_text(s->items[i].name);
        printf(", %s, %u, %u},\n", s->items[i].function ? "true" : "false", s->items[i].min, s->items[i].max);
    }
    printf("    {NULL, NULL, false, 0, 0}};\n");
}

int main(int argc, char **argv)
{
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    int k = 0;

    printf("/* Generated by tools/tmplembed.c from schemas/; do not edit. */\n");
    printf("#include \"schema/tmplschema_internal.h\"\n\n#include <stddef.h>\n");
    for (int a = 1; a < argc; a++) {
        const struct ynode *root = bundled_schema(argv[a]);
        struct tmplschema *s;

        if (!root || !tmplschema_is_template(root))
            continue;
        if (!(s = tmplschema_compile(root, argv[a], d))) {
            fprintf(stderr, "tmplembed: %s does not compile\n", argv[a]);
            return 2;
        }
        put_schema(++k, argv[a], s);
        tmplschema_free(s);
    }
    printf("\nconst struct tmpl_prebuilt tmpl_prebuilt[] = {\n");
    for (int a = 1, i = 0; a < argc; a++) {
        const struct ynode *root = bundled_schema(argv[a]);

        if (root && tmplschema_is_template(root)) {
            i++;
            printf("    {\"%s\", s%d, sizeof(s%d) / sizeof(s%d[0]), c%d, sizeof(c%d) / sizeof(c%d[0]) - 1},\n", argv[a],
                   i, i, i, i, i, i);
        }
    }
    printf("    {NULL, NULL, 0, NULL, 0}};\n");
    diag_destroy(d);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 2;
}
