#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/bundled.h"
#include "fanout/tmplschema.h"
#include "schema/tmplschema_internal.h"
#include "unit.h"

struct collected {
    char text[4096];
    size_t n;
};

static const char *const problem_names[] = {"key",        "required",  "value",      "context",
                                            "expression", "duplicate", "number-text"};

static void collect(void *user, const struct tmpl_error *e)
{
    struct collected *c = user;
    size_t o = strlen(c->text);
    struct ypos p = e->offset == SIZE_MAX ? ynode_pos(e->at) : ynode_text_pos(e->at, e->offset);

    snprintf(c->text + o, sizeof(c->text) - o, "%u:%u %s [%s]\n", p.line, p.col, e->message,
             problem_names[e->problem]);
    c->n++;
}

static const struct tmplschema *workflow_schema(void)
{
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    const struct tmplschema *s = tmplschema_bundled("github-workflow-v1", d);

    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(diag_errors(d), 0);
    diag_destroy(d);
    return s;
}

/* Whether two texts are the same (both NULL, or equal). */
static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* The name of a linked definition, or NULL. */
static const char *def_name(const struct tmpl_def *d)
{
    return d ? d->name : NULL;
}

/* Two props the same: both NULL, or of the same name and type. */
static bool same_prop(const struct tmpl_prop *a, const struct tmpl_prop *b)
{
    return a == b || (a && b && a->len == b->len && !memcmp(a->name, b->name, a->len) &&
                      same_text(def_name(a->type), def_name(b->type)) && a->required == b->required);
}

/* Two key tables (tmpl_def.keys) the same. */
static bool same_keys(const struct tmpl_keys *a, const struct tmpl_keys *b)
{
    bool same = a == b || (a && b && a->n_maps == b->n_maps && a->n_names == b->n_names &&
                           !memcmp(a->has, b->has, sizeof(a->has)) && !memcmp(a->slots, b->slots, sizeof(a->slots)));

    for (size_t i = 0; same && a && i < a->n_maps; i++)
        same = !strcmp(a->maps[i]->name, b->maps[i]->name);
    for (size_t i = 0; same && a && i < a->n_names * (a->n_maps + 1); i++)
        same = i < a->n_names ? same_prop(a->named[i], b->named[i])
                              : same_prop(a->props[i - a->n_names], b->props[i - a->n_names]);
    return same;
}

/* The bundled schema's tables, written at build time (tools/tmplembed.c), are what
 * tmplschema_compile makes of schemas/github-workflow-v1.json now. */
START_TEST(bundled_tables_are_compiled_schema)
{
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    const struct tmplschema *b = workflow_schema();
    struct tmplschema *s = tmplschema_compile(bundled_schema("github-workflow-v1"), "github-workflow-v1", d);

    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(b->n_defs, s->n_defs);
    ck_assert_uint_eq(b->n_items, s->n_items);
    for (size_t i = 0; i < s->n_items; i++) {
        ck_assert_str_eq(b->items[i].text, s->items[i].text);
        ck_assert_str_eq(b->items[i].name, s->items[i].name);
        ck_assert(b->items[i].function == s->items[i].function && b->items[i].min == s->items[i].min &&
                  b->items[i].max == s->items[i].max);
    }
    for (size_t i = 0; i < s->n_defs; i++) {
        const struct tmpl_def *x = b->defs[i], *y = s->defs[i];
        bool same = !strcmp(x->name, y->name) && x->kind == y->kind && x->scalars == y->scalars &&
                    x->contexts == y->contexts &&
                    x->shadows == y->shadows && same_text(x->constant, y->constant) &&
                    x->constant_len == y->constant_len && x->ignore_case == y->ignore_case &&
                    x->require_non_empty == y->require_non_empty && same_text(x->item_name, y->item_name) &&
                    same_text(x->loose_key_name, y->loose_key_name) &&
                    same_text(x->loose_value_name, y->loose_value_name) &&
                    same_text(def_name(x->item), def_name(y->item)) &&
                    same_text(def_name(x->loose_key), def_name(y->loose_key)) &&
                    same_text(def_name(x->loose_value), def_name(y->loose_value)) && x->n_props == y->n_props &&
                    x->n_one_of == y->n_one_of && x->indexed == y->indexed && x->any_required == y->any_required &&
                    !memcmp(x->prop_slots, y->prop_slots, sizeof(x->prop_slots)) && same_keys(x->keys, y->keys);

        for (size_t p = 0; same && p < y->n_props; p++)
            same = x->props[p].len == y->props[p].len && !memcmp(x->props[p].name, y->props[p].name, y->props[p].len) &&
                   same_text(x->props[p].type_name, y->props[p].type_name) &&
                   same_text(def_name(x->props[p].type), def_name(y->props[p].type)) &&
                   x->props[p].required == y->props[p].required && x->props[p].background == y->props[p].background;
        for (size_t j = 0; same && j < y->n_one_of; j++)
            same = same_text(x->one_of_names[j], y->one_of_names[j]) &&
                   same_text(def_name(x->one_of[j]), def_name(y->one_of[j]));
        if (!same)
            ck_abort_msg("definition '%s' differs from its bundled table", y->name);
    }
    tmplschema_free(s);
    diag_destroy(d);
}
END_TEST

/* The property a scan of d's props finds first, or NULL: what the index must find. */
static const struct tmpl_prop *scan_prop(const struct tmpl_def *d, const char *key, size_t len)
{
    for (size_t i = 0; i < d->n_props; i++) {
        if (d->props[i].len == len && !memcmp(d->props[i].name, key, len))
            return &d->props[i];
    }
    return NULL;
}

/* tmpl_find_prop by the index finds what a scan of the props finds: every bundled
 * property, nothing for a name in other case or cut short; the first of two equal
 * names; with too many props to index, by the scan. */
START_TEST(props_found_by_index)
{
    const struct tmplschema *b = workflow_schema();
    struct tmpl_prop many[60];
    struct tmpl_def d = {.name = "t", .kind = D_MAPPING, .props = many};
    char names[60][8];
    size_t indexed = 0;

    for (size_t i = 0; i < b->n_defs; i++) {
        const struct tmpl_def *x = b->defs[i];

        indexed += x->indexed;
        for (size_t p = 0; p < x->n_props; p++) {
            char other[128];
            size_t len = x->props[p].len;

            ck_assert_ptr_eq(tmpl_find_prop(x, x->props[p].name, len), scan_prop(x, x->props[p].name, len));
            ck_assert_uint_lt(len, sizeof(other));
            memcpy(other, x->props[p].name, len);
            other[0] = other[0] >= 'a' && other[0] <= 'z' ? (char)(other[0] - 32) : other[0];
            ck_assert_ptr_eq(tmpl_find_prop(x, other, len), scan_prop(x, other, len));
            ck_assert_ptr_eq(tmpl_find_prop(x, x->props[p].name, len - 1), scan_prop(x, x->props[p].name, len - 1));
        }
        ck_assert_ptr_null(tmpl_find_prop(x, "no-such-key", 11));
    }
    ck_assert_uint_gt(indexed, 0);
    for (size_t i = 0; i < 60; i++) {
        snprintf(names[i], sizeof(names[i]), "k%zu", i % 50); /* k0..k9 twice */
        many[i] = (struct tmpl_prop){names[i], strlen(names[i]), NULL, NULL, false, false};
    }
    for (size_t n = 10; n <= 60; n += 50) {
        d.n_props = n;
        tmpl_index_props(&d);
        ck_assert(d.indexed == (n == 10));
        for (size_t i = 0; i < n; i++)
            ck_assert_ptr_eq(tmpl_find_prop(&d, names[i], strlen(names[i])), &many[i % 50]);
        ck_assert_ptr_null(tmpl_find_prop(&d, "k", 1));
    }
    /* two equal names: not indexed (a reader keeps keys as bits of distinct names), the
     * first found by the scan */
    snprintf(names[9], sizeof(names[9]), "k3");
    many[9].len = 2;
    d.n_props = 10;
    tmpl_index_props(&d);
    ck_assert(!d.indexed);
    ck_assert_ptr_eq(tmpl_find_prop(&d, "k3", 2), &many[3]);
}
END_TEST

/* Validates YAML `text` as definition `type` of schema `s`. */
static struct collected check_as(const struct tmplschema *s, const char *type, const char *text)
{
    struct ynode_doc *doc = doc_from(text);
    struct collected c = {{0}, 0};
    struct tmpl_type t;

    ck_assert(tmplschema_type(s, type, &t));
    ck_assert_uint_eq(tmpl_validate(s, t, ynode_doc_root(doc), "", collect, &c), c.n);
    ynode_doc_destroy(doc);
    return c;
}

static struct collected check(const char *workflow)
{
    return check_as(workflow_schema(), "workflow-root-strict", workflow);
}

/* A schema from YAML text, which it points into (*doc, freed by the caller after the
 * schema); NULL with the compile errors in `errors`. */
static struct tmplschema *compile(const char *text, struct ynode_doc **doc, char *errors, size_t cap)
{
    FILE *out = fmemopen(errors, cap, "w");
    struct diag *d = diag_create(out, DIAG_TEXT);
    struct diag_policy quiet = {.snippets = false};
    struct tmplschema *s;

    *doc = doc_from(text);
    diag_set_policy(d, &quiet);
    s = tmplschema_compile(ynode_doc_root(*doc), "t.json", d);
    diag_destroy(d);
    fclose(out);
    return s;
}

/* Where GitHub allows matrix, strategy and the rest (workflow-v1.0.json's `context`
 * lists joined down the keys): the table the GitHub dialect substitutes by. */
START_TEST(contexts_by_key)
{
    static const struct {
        const char *path; /* keys; [] for a sequence item */
        const char *name;
        bool allowed;
    } cases[] = {
        {"jobs/j/runs-on", "matrix", true},
        {"jobs/j/runs-on/group", "matrix", true},
        {"jobs/j/outputs/o", "matrix", true},
        {"jobs/j/defaults/run/shell", "matrix", true},
        {"jobs/j/defaults/run/working-directory", "strategy", true},
        {"jobs/j/steps/[]/shell", "matrix", false},
        {"jobs/j/steps/[]/uses", "matrix", false},
        {"jobs/j/steps/[]/id", "matrix", false},
        {"jobs/j/steps/[]/run", "matrix", true},
        {"jobs/j/steps/[]/working-directory", "matrix", true},
        {"jobs/j/steps/[]/env/E", "matrix", true},
        {"jobs/j/steps/[]/with/w", "strategy", true},
        {"jobs/j/steps/[]/if", "matrix", true},
        {"jobs/j/steps/[]/if", "secrets", false},
        {"jobs/j/steps/[]/if", "hashFiles", true},
        {"jobs/j/steps/[]/name", "matrix", true},
        {"jobs/j/steps/[]/timeout-minutes", "matrix", true},
        {"jobs/j/steps/[]/continue-on-error", "matrix", true},
        {"jobs/j/strategy/fail-fast", "matrix", false},
        {"jobs/j/strategy/max-parallel", "matrix", false},
        {"jobs/j/strategy/max-parallel", "needs", true},
        {"jobs/j/strategy/matrix/v/[]", "matrix", false},
        {"jobs/j/if", "matrix", false},
        {"jobs/j/if", "failure", true},
        {"jobs/j/name", "matrix", true},
        {"jobs/j/timeout-minutes", "strategy", true},
        {"jobs/j/continue-on-error", "matrix", true},
        {"jobs/j/env/E", "matrix", true},
        {"jobs/j/env/E", "secrets", true},
        {"jobs/j/env/E", "steps", false},
        {"jobs/j/container/image", "matrix", true},
        {"jobs/j/container/credentials/password", "secrets", true},
        {"jobs/j/container/credentials/password", "matrix", true},
        {"jobs/j/services/db/image", "matrix", true},
        {"jobs/j/environment/url", "steps", true},
        {"jobs/j/environment/url", "secrets", false},
        {"jobs/j/concurrency/group", "matrix", true},
        {"jobs/j/uses", "matrix", false},
        {"jobs/j/with/w", "matrix", true},
        {"jobs/j/secrets/s", "secrets", true},
        {"jobs/j/needs", "needs", false},
        {"run-name", "matrix", false},
        {"run-name", "inputs", true},
        {"env/E", "matrix", false},
        {"env/E", "secrets", true},
        {"concurrency", "matrix", false},
        {"defaults/run/shell", "matrix", false},
        {"name", "github", false},
        {"on/workflow_call/outputs/o/value", "jobs", true},
    };
    const struct tmplschema *s = workflow_schema();
    struct tmpl_type root, t;

    ck_assert(tmplschema_type(s, "workflow-root-strict", &root));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char copy[128], *keys[8], *save = NULL;
        size_t n = 0;

        snprintf(copy, sizeof(copy), "%s", cases[i].path);
        for (char *k = strtok_r(copy, "/", &save); k && n < 8; k = strtok_r(NULL, "/", &save))
            keys[n++] = strcmp(k, "[]") ? k : NULL;
        ck_assert_msg(tmpl_type_at(root, (const char *const *)keys, n, &t), "%s: no such key path", cases[i].path);
        ck_assert_msg(tmpl_type_allows(s, t, cases[i].name) == cases[i].allowed, "%s: %s", cases[i].path,
                      cases[i].name);
    }
    /* keys GitHub does not have, and a sequence where a mapping is */
    ck_assert(!tmpl_type_at(root, (const char *const[]){"jobs", "j", "runs_on"}, 3, &t));
    ck_assert(!tmpl_type_at(root, (const char *const[]){"env", NULL}, 2, &t));
}
END_TEST

START_TEST(messages)
{
    struct collected c;

    c = check("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - runn: echo\n");
    ck_assert_str_eq(c.text, "6:9 /jobs/a/steps/0: unexpected key 'runn', did you mean 'run'? [key]\n");
    c = check("on: push\njobs:\n  a:\n    steps: []\n");
    ck_assert_str_eq(c.text, "4:5 /jobs/a: missing required key 'runs-on' [required]\n");
    c = check("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - name: x\n");
    ck_assert_str_eq(c.text, "6:9 /jobs/a/steps/0: not enough keys to tell which kind of 'steps-item' this is: "
                             "add one of run, uses [required]\n");
    c = check("on: push\npermissions: {contents: wirte}\njobs: {}\n");
    ck_assert_str_eq(c.text, "2:25 /permissions/contents: expected one of: 'read', 'write', 'none', got string "
                             "'wirte', did you mean 'write'? [value]\n");
    c = check("on: push\njobs:\n  a:\n    runs-on: x\n    timeout-minutes: 5m\n    steps: []\n");
    ck_assert_str_eq(c.text, "5:22 /jobs/a/timeout-minutes: expected a number (or a ${{ }} expression), got "
                             "string '5m' [value]\n");
    c = check("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: x\n        shell: ${{ matrix.s }}\n");
    ck_assert_str_eq(c.text, "7:20 /jobs/a/steps/0/shell: context 'matrix' is not available in this key "
                             "(it has none) [context]\n");
    c = check("on: push\nenv: {A: 1, a: 2}\njobs: {}\n");
    ck_assert_str_eq(c.text, "2:13 /env: 'a' is already defined (as 'A' at line 2; GitHub compares keys without "
                             "regard to case) [duplicate]\n");
    /* past 16 keys the set is a table; keys beyond ASCII compare as expr_upper writes them */
    c = check("on: push\nenv: {K0: 0, K1: 1, K2: 2, K3: 3, K4: 4, K5: 5, K6: 6, K7: 7, K8: 8, K9: 9, K10: 0, "
              "K11: 1, K12: 2, K13: 3, K14: 4, K15: 5, k3: 6, K16: 7, k16: 8}\njobs: {}\n");
    ck_assert_str_eq(c.text, "2:125 /env: 'k3' is already defined (as 'K3' at line 2; GitHub compares keys without "
                             "regard to case) [duplicate]\n"
                             "2:140 /env: 'k16' is already defined (as 'K16' at line 2; GitHub compares keys "
                             "without regard to case) [duplicate]\n");
    /* a key as a literal expression makes its own text, kept as long as the set */
    c = check("on: push\nenv: {\"${{ 'K' }}\": 1, X: 2, k: 3}\njobs: {}\n");
    ck_assert_str_eq(c.text, "2:30 /env: 'k' is already defined (as 'K' at line 2; GitHub compares keys without "
                             "regard to case) [duplicate]\n");
    /* a key that names a property, a key of other case that does not: before and after */
    c = check("on: push\njobs:\n  a:\n    Runs-On: x\n    runs-on: y\n    steps:\n      - run: a\n        Name: b\n"
              "        name: c\n        NAME: d\n");
    ck_assert_str_eq(c.text, "4:5 /jobs/a: unexpected key 'Runs-On', did you mean 'runs-on'? [key]\n"
                             "5:5 /jobs/a: 'runs-on' is already defined (as 'Runs-On' at line 4; GitHub compares "
                             "keys without regard to case) [duplicate]\n"
                             "8:9 /jobs/a/steps/0: unexpected key 'Name', did you mean 'name'? [key]\n"
                             "9:9 /jobs/a/steps/0: 'name' is already defined (as 'Name' at line 8; GitHub compares "
                             "keys without regard to case) [duplicate]\n"
                             "10:9 /jobs/a/steps/0: 'NAME' is already defined (as 'Name' at line 8; GitHub compares "
                             "keys without regard to case) [duplicate]\n");
    c = check("on: push\njobs:\n  a:\n    runs-on: y\n    RUNS-ON: x\n    steps: [{name: a, uses: b, Uses: c}]\n");
    ck_assert_str_eq(c.text, "5:5 /jobs/a: 'RUNS-ON' is already defined (as 'runs-on' at line 4; GitHub compares "
                             "keys without regard to case) [duplicate]\n"
                             "6:32 /jobs/a/steps/0: 'Uses' is already defined (as 'uses' at line 6; GitHub compares "
                             "keys without regard to case) [duplicate]\n");
    c = check("on: push\nenv: {\u00e9t\u00e9: 1, X: 2, \u00c9T\u00c9: 3}\njobs: {}\n");
    ck_assert_ptr_nonnull(strstr(c.text, "'\u00c9T\u00c9' is already defined (as '\u00e9t\u00e9' at line 2;"));
    c = check("on: push\njobs:\n  a:\n    runs-on: ${{ x }\n    steps: []\n");
    ck_assert_str_eq(c.text, "4:14 /jobs/a/runs-on: the expression is not closed: '${{' without a closing '}}' "
                             "[expression]\n");
    /* one line per problem: the expression's, not the type error it would cause */
    c = check("on: push\njobs:\n  a:\n    runs-on: x\n    strategy: {max-parallel: '${{ matrix.n }}'}\n"
              "    steps: []\n");
    ck_assert_uint_eq(c.n, 1);
    ck_assert_ptr_nonnull(strstr(c.text, "context 'matrix' is not available"));
}
END_TEST

/* How a scalar reads: typed by YAML 1.2, a literal read as a string where one is
 * expected, `${{ 'x' }}` alone the string x, a whole expression any value. */
START_TEST(scalars)
{
    struct collected c;

    c = check("on: push\njobs:\n  a:\n    runs-on: 5\n    name: true\n    timeout-minutes: 0x1F\n"
              "    continue-on-error: ${{ 'true' }}\n    strategy: ${{ fromJSON(inputs.s) }}\n    steps: []\n");
    ck_assert_str_eq(c.text, "7:24 /jobs/a/continue-on-error: expected a boolean (or a ${{ }} expression), got "
                             "string 'true' [value]\n");
    c = check("on: push\njobs:\n  a:\n    runs-on:\n    name:\n    steps: []\n");
    ck_assert_uint_eq(c.n, 1);
    ck_assert_ptr_nonnull(strstr(c.text, "/jobs/a/runs-on: expected one of: a non-empty string, a sequence, a "
                                         "mapping (or a ${{ }} expression), got null"));
    c = check("on: push\njobs:\n  a:\n    runs-on: x\n    continue-on-error: yes\n    steps: []\n");
    ck_assert_ptr_nonnull(strstr(c.text, "got string 'yes'"));
    c = check("on: {create: {x: 1}}\njobs: {}\n");
    ck_assert_str_eq(c.text, "1:14 /on/create: expected null, got a mapping [value]\n");
    c = check("on: push\njobs:\n  a:\n    runs-on: x\n    env: ${{ insert }}\n    steps: []\n");
    ck_assert_ptr_nonnull(strstr(c.text, "'${{ insert }}' is only allowed as a key [expression]"));
    c = check("on: push\njobs:\n  a:\n    runs-on: x\n    env:\n      ${{ insert }}: ${{ vars.E }}\n"
              "      ${{ github.x }}: y\n    steps: []\n");
    ck_assert_uint_eq(c.n, 0);
    /* an expression ends at the first `}}` outside its string literals */
    c = check("on: push\njobs:\n  a:\n    runs-on: x\n    name: \"${{ format('}}{0}', 'a''}}') }}}\"\n"
              "    steps: []\n");
    ck_assert_str_eq(c.text, "");
    c = check("on: push\njobs:\n  a:\n    runs-on: x\n    name: ${{ 'a }}\n    steps: []\n");
    ck_assert_str_eq(c.text, "5:11 /jobs/a/name: the expression is not closed: '${{' without a closing '}}' "
                             "[expression]\n");
}
END_TEST

/* A plain number where only a string is taken is its text to GitHub's reader ("Not a
 * string, convert": `${num}`, the runner's G15): a warning where that text is not the
 * written one, which is no error; a number where a number is taken, or whose text is
 * kept, says nothing. */
START_TEST(number_text)
{
    struct ynode_doc *doc = doc_from("on: push\njobs:\n  a:\n    runs-on: 5\n    timeout-minutes: 0x1F\n"
                                     "    env: {A: 3.10, B: 12, C: '3.10', D: 1e3, E: true}\n"
                                     "    steps:\n      - uses: a/b@v1\n        with: {python-version: 3.10}\n");
    const struct tmplschema *s = workflow_schema();
    struct collected c = {{0}, 0};
    struct tmpl_type t;

    ck_assert(tmplschema_type(s, "workflow-root-strict", &t));
    ck_assert_uint_eq(tmpl_validate(s, t, ynode_doc_root(doc), "", collect, &c), 0);
    ck_assert_str_eq(c.text, "6:14 /jobs/a/env/A: 3.10 is the number 3.1 to GitHub's workflow reader, which makes "
                             "the string \"3.1\" of it here: quote it to keep 3.10 [number-text]\n"
                             "6:41 /jobs/a/env/D: 1e3 is the number 1000 to GitHub's workflow reader, which makes "
                             "the string \"1000\" of it here: quote it to keep 1e3 [number-text]\n"
                             "9:32 /jobs/a/steps/0/with/python-version: 3.10 is the number 3.1 to GitHub's workflow "
                             "reader, which makes the string \"3.1\" of it here: quote it to keep 3.10 "
                             "[number-text]\n");
    ynode_doc_destroy(doc);
}
END_TEST

/* An expression found valid is known again when only its ASCII string literals' texts
 * differ (at the same length): a matrix's rendered names are format('...') each. */
START_TEST(expressions_known_without_literals)
{
    const struct tmplschema *s = workflow_schema();
    const char *const valid[] = {
        "format('one {0}', github.ref)", "format('two {0}', github.ref)",  /* known again */
        "format('three {0}', github.ref)",                                  /* longer: checked */
        "format('\u00e9 {0}', github.ref)", "format('ab {0}', github.ref)", /* beyond ASCII: kept */
        "format('it''s', github.ref)", "format('do''t', github.ref)",       /* '' in a literal */
    };
    const size_t added[] = {1, 0, 1, 1, 1, 1, 0};
    char text[256];
    struct collected c;

    for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
        size_t before = s->n_checked;

        snprintf(text, sizeof(text), "on: push\njobs:\n  a:\n    runs-on: x\n    name: ${{ %s }}\n    steps: []\n",
                 valid[i]);
        c = check(text);
        ck_assert_msg(c.n == 0, "%s: %s", valid[i], c.text);
        ck_assert_msg(s->n_checked - before == added[i], "%s: %zu added", valid[i], s->n_checked - before);
    }
    /* the same texts around a literal not closed, or a quote in a refused token, are errors */
    c = check("on: push\njobs:\n  a:\n    runs-on: x\n    name: ${{ format('one {0}, github.ref) }}\n"
              "    steps: []\n");
    ck_assert_uint_eq(c.n, 1);
    c = check("on: push\njobs:\n  a:\n    runs-on: x\n    name: ${{ format(a'one {0}', github.ref) }}\n"
              "    steps: []\n");
    ck_assert_uint_eq(c.n, 1);
}
END_TEST

/* A schema that does not compile names its problem at the node. */
START_TEST(bad_schemas)
{
    static const struct {
        const char *schema, *error;
    } cases[] = {
        {"{version: v, definitions: {a: {mapping: {properties: {x: nope}}}}}",
         "schema definition 'nope' not found (used by 'a')"},
        {"{version: v, definitions: {a: {context: [x, X], string: {}}}}", "duplicate context item 'X'"},
        {"{version: v, definitions: {s1: {sequence: {item-type: string}}, s2: {sequence: {item-type: string}},"
         " a: {one-of: [s1, s2]}}}",
         "'a' refers to more than one definition of type 'sequence'"},
        {"{version: v, definitions: {a: {string: {constant: x, require-non-empty: true}}}}",
         "'a': 'constant' and 'require-non-empty' cannot both be set"},
        {"{version: v, definitions: {a: {mapping: {loose-key-type: string}}}}",
         "'loose-key-type' is defined but 'loose-value-type' is not on 'a'"},
        {"{version: v, definitions: {a: {strng: {}}}}", "unexpected key 'strng' in definition 'a'"},
        {"{version: v, definitions: {a: {mapping: {properties: {x: {required: true}}}}}}",
         "type not specified for the property 'x' on 'a'"},
        {"{version: v, definitions: {c: {context: [x], string: {}}, a: {one-of: [c, 'null']}}}",
         "'a' is a one-of definition and references 'c', which defines context"},
        {"{version: v, definitions: {'1a': {string: {}}}}", "invalid definition name '1a'"},
        {"{version: v, definitions: {a: {string: {}}, b: {one-of: [a, string]}}}",
         "'b' refers to more than one string, but some do not set 'constant'"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char errors[1024] = "";
        struct ynode_doc *doc;

        ck_assert_msg(!compile(cases[i].schema, &doc, errors, sizeof(errors)), "case %zu compiled", i);
        ynode_doc_destroy(doc);
        ck_assert_msg(strstr(errors, cases[i].error) && strstr(errors, "[schema]"), "case %zu: %s", i, errors);
    }
}
END_TEST

/* A key's contexts join its parent's; a function it lists again with other argument
 * counts replaces the parent's (GitHub's parser keeps the last of a name). Constants
 * with ignore-case, allowed-values and loose keys. */
START_TEST(small_schema)
{
    char errors[1024] = "";
    struct ynode_doc *doc;
    struct tmplschema *s = compile("{version: v, definitions: {"
                                   " root: {context: [github, 'hashFiles(0,0)'], mapping: {properties: {"
                                   "   x: {type: x, required: true}, y: string, k: kind, l: level, m: loose}}},"
                                   " x: {context: [vars, 'hashfiles(1,MAX)'], string: {}},"
                                   " kind: {string: {constant: Fast, ignore-case: true}},"
                                   " level: {allowed-values: [low, high]},"
                                   " loose: {mapping: {loose-key-type: non-empty-string, loose-value-type: number}},"
                                   " non-empty-string: {string: {require-non-empty: true}}}}",
                                   &doc, errors, sizeof(errors));
    struct tmpl_type root, x, y;
    struct collected c;

    ck_assert_msg(s != NULL, "%s", errors);
    ck_assert(tmplschema_type(s, "root", &root));
    ck_assert(tmpl_type_child(root, "x", 1, &x) && tmpl_type_child(root, "y", 1, &y));
    ck_assert(tmpl_type_allows(s, x, "github") && tmpl_type_allows(s, x, "VARS") &&
              tmpl_type_allows(s, x, "hashFiles"));
    ck_assert(tmpl_type_allows(s, y, "github") && !tmpl_type_allows(s, y, "vars"));
    c = check_as(s, "root", "{x: '${{ hashFiles(1, 2) && github && vars }}', y: '${{ hashFiles() }}', k: FAST,"
                            " l: high, m: {n: 1}}");
    ck_assert_msg(c.n == 0, "%s", c.text);
    c = check_as(s, "root", "{x: '${{ hashFiles() }}', y: '${{ hashFiles(1) }}', k: slow, l: mid, m: {'': 1, n: x}}");
    ck_assert_str_eq(c.text, "1:10 /x: Too few parameters supplied: 'hashFiles' [expression]\n"
                             "1:35 /y: Too many parameters supplied: 'hashFiles' [expression]\n"
                             "1:56 /k: expected 'Fast' (or a ${{ }} expression), got string 'slow' [value]\n"
                             "1:65 /l: expected one of: 'low', 'high' (or a ${{ }} expression), got string "
                             "'mid' [value]\n"
                             "1:75 /m/: expected a non-empty string (or a ${{ }} expression), got string '' "
                             "[value]\n"
                             "1:84 /m/n: expected a number (or a ${{ }} expression), got string 'x' [value]\n");
    c = check_as(s, "root", "{x: '${{ github }}', y: '${{ vars }}'}");
    ck_assert_str_eq(c.text, "1:30 /y: context 'vars' is not available in this key (it has github, hashFiles()) "
                             "[context]\n");
    c = check_as(s, "root", "{y: z}");
    ck_assert_str_eq(c.text, "1:1 (root): missing required key 'x' [required]\n");
    tmplschema_free(s);
    ynode_doc_destroy(doc);
}
END_TEST

/* A definition's scalars are its nested one-ofs' too: what a scalar's check asks first. */
START_TEST(nested_scalars)
{
    char errors[1024] = "";
    struct ynode_doc *doc;
    struct tmplschema *s = compile("{version: v, definitions: {"
                                   " root: {mapping: {properties: {d: outer}}},"
                                   " outer: {one-of: ['null', inner]},"
                                   " inner: {one-of: ['boolean', non-empty-string]},"
                                   " non-empty-string: {string: {require-non-empty: true}}}}",
                                   &doc, errors, sizeof(errors));
    struct collected c;

    ck_assert_msg(s != NULL, "%s", errors);
    ck_assert_uint_eq(tmpl_find_def(s, "outer")->scalars, S_NULL | S_BOOLEAN | S_NON_EMPTY);
    ck_assert_uint_eq(tmpl_find_def(s, "inner")->scalars, S_BOOLEAN | S_NON_EMPTY);
    c = check_as(s, "root", "{d: ~}");
    ck_assert_msg(c.n == 0, "%s", c.text);
    c = check_as(s, "root", "{d: 5}");
    ck_assert_msg(c.n == 0, "%s", c.text);
    c = check_as(s, "root", "{d: ''}");
    ck_assert_str_eq(c.text, "1:6 /d: expected one of: null, a boolean, a non-empty string, got string '' [value]\n");
    tmplschema_free(s);
    ynode_doc_destroy(doc);
}
END_TEST

/* A mapping read a pair at a time says what the whole tree does, each pair's tree gone
 * before the next arrives (as the stream hands them over: the mapping keeps what it
 * needs of earlier keys, such as the text and line a duplicate is told by). */
START_TEST(streaming)
{
    static const char *const pairs[] = {"on: push\n", "\nenv: {A: 1}\n", "\n\nEnv: {}\n"};
    static const char *const job = "\n\n\n\n  a:\n    runs_on: x\n    steps: []\n";
    const struct tmplschema *s = workflow_schema();
    struct collected whole = check("on: push\nenv: {A: 1}\nEnv: {}\njobs:\n  a:\n    runs_on: x\n    steps: []\n");
    struct collected streamed = {{0}, 0};
    struct tmpl_type t, jobs_type;
    struct tmpl_mapping *m, *jobs;
    struct ynode at = {.kind = YNODE_MAP, .pos = {0, 1, 1}}, jobs_key = at, jobs_at = at;
    struct ynode_doc *doc;

    ck_assert(tmplschema_type(s, "workflow-root-strict", &t));
    m = tmpl_mapping_begin(s, t, &at, "", collect, &streamed);
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        doc = doc_from(pairs[i]);
        tmpl_mapping_pair(m, ynode_key(ynode_doc_root(doc), 0), ynode_value(ynode_doc_root(doc), 0), NULL);
        ynode_doc_destroy(doc);
    }
    jobs_key.kind = YNODE_SCALAR;
    jobs_key.u.scalar.text = "jobs";
    jobs_key.u.scalar.len = 4;
    ck_assert(tmpl_mapping_pair(m, &jobs_key, NULL, &jobs_type));
    jobs = tmpl_mapping_begin(s, jobs_type, &jobs_at, "/jobs", collect, &streamed);
    doc = doc_from(job);
    tmpl_mapping_pair(jobs, ynode_key(ynode_doc_root(doc), 0), ynode_value(ynode_doc_root(doc), 0), NULL);
    ynode_doc_destroy(doc);
    ck_assert_uint_eq(tmpl_mapping_end(jobs), 1);
    ck_assert_uint_eq(tmpl_mapping_end(m), 1);
    ck_assert_str_eq(streamed.text, whole.text);
    ck_assert_ptr_nonnull(strstr(streamed.text, "3:1 (root): 'Env' is already defined (as 'env' at line 2;"));
}
END_TEST

START_TEST(keys_without_regard_to_case)
{
    /* A mapping's keys as GitHub compares them: upper-cased (JavaScript's toUpperCase,
     * beyond ASCII too), past the inline slots, with copies when the set outlives them. */
    struct keyset k = {0};
    const struct keyslot *seen = NULL;
    bool oom = false;
    char names[40][8], name[16]; /* without copies, the texts outlive the set */

    ck_assert(!tmpl_keyset_find(&k, "a", 1));
    for (unsigned i = 0; i < 40; i++) {
        snprintf(names[i], sizeof(names[i]), "key%u", i);
        ck_assert(tmpl_keyset_add(&k, names[i], strlen(names[i]), i + 1, false, &seen, &oom));
    }
    ck_assert_uint_eq(k.n, 40);
    ck_assert_uint_gt(k.cap, KEYSET_INLINE);
    ck_assert(tmpl_keyset_find(&k, "KEY39", 5));
    ck_assert(!tmpl_keyset_find(&k, "key40", 5));
    ck_assert(!tmpl_keyset_add(&k, "Key7", 4, 99, false, &seen, &oom));
    ck_assert(!oom);
    ck_assert_uint_eq(seen->line, 8);
    ck_assert_uint_eq(seen->len, 4);
    ck_assert(!memcmp(seen->text, "key7", 4));
    tmpl_keyset_free(&k);
    ck_assert(!tmpl_keyset_find(&k, "key7", 4));

    k.copies = true;
    strcpy(name, "\xc3\xa9t\xc3\xa9");
    ck_assert(tmpl_keyset_add(&k, name, strlen(name), 1, false, &seen, &oom));
    name[0] = 'x'; /* the set kept its own copy */
    ck_assert(!tmpl_keyset_add(&k, "\xc3\x89T\xc3\x89", 5, 2, false, &seen, &oom));
    ck_assert(seen->len == 5 && !memcmp(seen->text, "\xc3\xa9t\xc3\xa9", 5));
    tmpl_keyset_free(&k);
}
END_TEST

/* A table's keys hashed a word at a time, upper-cased eight bytes at once: every byte
 * value at each place of a first word and of a last, short one is its own key but for a
 * lower-case ASCII letter, which is its upper-case one's. */
START_TEST(keyset_word_hash_upper)
{
    struct keyset k = {.copies = true};
    const struct keyslot *seen = NULL;
    bool oom = false;
    char key[11];

    for (unsigned at = 0; at < sizeof(key); at++) {
        memset(key, '#', sizeof(key));
        ck_assert(tmpl_keyset_add(&k, key, sizeof(key), 0, false, &seen, &oom));
        for (unsigned i = 0; i < 20; i++) { /* past the inline slots: a table */
            snprintf(key, sizeof(key), "filler%u", i);
            ck_assert(tmpl_keyset_add(&k, key, strlen(key), 1, false, &seen, &oom));
        }
        for (unsigned c = 0; c < 256; c++) {
            memset(key, '#', sizeof(key));
            key[at] = (char)c;
            if (c == '#' || (c >= 'A' && c <= 'Z'))
                continue;
            ck_assert_msg(tmpl_keyset_add(&k, key, sizeof(key), c, false, &seen, &oom), "byte %u at %u", c, at);
        }
        for (unsigned c = 0; c < 256; c++) {
            const struct keyslot *found;

            memset(key, '#', sizeof(key));
            key[at] = (char)c;
            found = tmpl_keyset_find(&k, key, sizeof(key));
            ck_assert_msg(found, "byte %u at %u", c, at);
            ck_assert_uint_eq(found->line, c == '#' ? 0 : c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        tmpl_keyset_free(&k);
    }
    /* beyond ASCII, as expr_upper writes it */
    for (unsigned i = 0; i < 20; i++) {
        snprintf(key, sizeof(key), "filler%u", i);
        ck_assert(tmpl_keyset_add(&k, key, strlen(key), 1, false, &seen, &oom));
    }
    ck_assert(tmpl_keyset_add(&k, "caf\xc3\xa9-table", 11, 7, false, &seen, &oom));
    ck_assert(!tmpl_keyset_add(&k, "CAF\xc3\x89-TABLE", 11, 8, false, &seen, &oom) && seen && seen->line == 7);
    ck_assert(!oom);
    tmpl_keyset_free(&k);
}
END_TEST

/* A streamed mapping's copies of its keys, many (a table past three quarters full grows)
 * and long. */
START_TEST(keyset_copies)
{
    struct keyset k = {.copies = true};
    const struct keyslot *seen = NULL;
    char name[6000];
    bool oom = false;

    for (unsigned i = 0; i < 3000; i++) {
        snprintf(name, sizeof(name), "job-%u", i);
        ck_assert(tmpl_keyset_add(&k, name, strlen(name), i + 1, false, &seen, &oom));
    }
    memset(name, 'a', 5000);
    name[5000] = '\0';
    ck_assert(tmpl_keyset_add(&k, name, 5000, 9999, false, &seen, &oom));
    ck_assert(tmpl_keyset_add(&k, "after", 5, 10000, false, &seen, &oom));
    name[0] = 'A';
    ck_assert(!tmpl_keyset_add(&k, name, 5000, 10001, false, &seen, &oom) && !oom);
    ck_assert(seen->len == 5000 && seen->text[0] == 'a' && seen->text[4999] == 'a' && !seen->text[5000]);
    ck_assert(!tmpl_keyset_add(&k, "JOB-2999", 8, 10002, false, &seen, &oom));
    ck_assert(seen->line == 3000 && !strcmp(seen->text, "job-2999"));
    ck_assert(tmpl_keyset_find(&k, "AFTER", 5) && tmpl_keyset_find(&k, "job-0", 5));
    tmpl_keyset_free(&k);
    ck_assert(!tmpl_keyset_find(&k, "job-0", 5));
}
END_TEST

/* The jobs of `doc` (a mapping of one job) read as a workflow's `jobs`, with proofs
 * recorded (`use` false) or used. */
static struct collected check_jobs(const struct tmplschema *s, struct ynode *jobs, struct tmpl_proofs *p, bool use)
{
    static const char *const path[] = {"jobs"};
    struct collected c = {{0}, 0};
    struct tmpl_type root, t;
    struct tmpl_mapping *m;

    ck_assert(tmplschema_type(s, "workflow-root-strict", &root));
    ck_assert(tmpl_type_at(root, path, 1, &t));
    ck_assert_ptr_nonnull(m = tmpl_mapping_begin(s, t, jobs, "/jobs", collect, &c));
    tmpl_mapping_prove(m, p, use);
    for (size_t i = 0; i < ynode_len(jobs); i++)
        tmpl_mapping_pair(m, ynode_key(jobs, i), ynode_value(jobs, i), NULL);
    tmpl_mapping_end(m);
    return c;
}

/* What the input's check proved is not read again while it is as it was; what changed
 * since is (the rendering's check of render's pass 1). */
START_TEST(proofs)
{
    const struct tmplschema *s = workflow_schema();
    struct tmpl_proofs *p = tmpl_proofs_create();
    struct ynode_doc *doc = doc_from("build:\n  runs-on: ubuntu-latest\n  steps:\n    - run: make ${{ matrix.x }}\n"
                                     "    - run: make test\n");
    struct ynode *jobs = ynode_doc_root(doc), *job = ynode_value(jobs, 0), *steps = ynode_get(job, "steps");
    struct ynode *copy;
    struct collected c;

    ck_assert_uint_eq(check_jobs(s, jobs, p, false).n, 0);
    ck_assert(job->proven && steps->proven && ynode_item(steps, 0)->proven);

    /* a changed value is read again (and its mapping), the rest is not */
    ck_assert_int_eq(ynode_set(doc, job, "timeout-minutes", ynode_new_plain(doc, "soon", ynode_pos(job))), 0);
    ck_assert(!job->proven);
    ck_assert(!ynode_proven_settle(jobs) && !(job->proven & YNODE_PROVEN) && (steps->proven & YNODE_PROVEN));
    c = check_jobs(s, jobs, p, true);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_ptr_nonnull(strstr(c.text, "timeout-minutes"));

    /* skipped: a proven tree whose text were changed behind ynode's back would not be
     * seen (nothing may change a node but ynode's changing functions) */
    ynode_remove(job, "timeout-minutes");
    ynode_item(steps, 1)->u.map.pairs[0].key->u.scalar.text = "ru";
    ynode_proven_settle(jobs);
    ck_assert_uint_eq(check_jobs(s, jobs, p, true).n, 0);

    /* a copy keeps the marks; a substitution that left a text as it was too */
    copy = ynode_copy_in(doc, steps);
    ck_assert(copy->proven && ynode_item(copy, 1)->proven);
    ck_assert(ynode_new_string_of(doc, ynode_item(steps, 0))->proven & YNODE_PROVEN);
    ynode_append(doc, copy, ynode_new_plain(doc, "x", ynode_pos(copy)));
    ck_assert(!copy->proven);

    /* the next item's proofs start empty */
    tmpl_proofs_clear(p);
    ck_assert_uint_eq(check_jobs(s, jobs, p, true).n, 1);
    ynode_doc_destroy(doc);
    tmpl_proofs_free(p);
}
END_TEST

/* The input's check notes the scalars without `${{` (substitution does not search them
 * again): a copy, a string made of one and a settled tree keep the note; a check of a
 * rendering (its proofs used) and a check without proofs note nothing. */
START_TEST(no_expr_mark)
{
    const struct tmplschema *s = workflow_schema();
    struct tmpl_proofs *p = tmpl_proofs_create();
    struct ynode_doc *doc = doc_from("build:\n  runs-on: ubuntu-latest\n  steps:\n    - run: make ${{ matrix.x }}\n"
                                     "    - run: make test\n");
    struct ynode *jobs = ynode_doc_root(doc), *steps = ynode_get(ynode_value(jobs, 0), "steps");
    struct ynode *with = ynode_get(ynode_item(steps, 0), "run"), *without = ynode_get(ynode_item(steps, 1), "run");

    ck_assert_uint_eq(check_jobs(s, jobs, NULL, false).n, 0);
    ck_assert(!(without->proven & YNODE_NO_EXPR));
    ck_assert_uint_eq(check_jobs(s, jobs, p, true).n, 0);
    ck_assert(!(without->proven & YNODE_NO_EXPR));
    ck_assert_uint_eq(check_jobs(s, jobs, p, false).n, 0);
    ck_assert(!(with->proven & YNODE_NO_EXPR) && (without->proven & YNODE_NO_EXPR));
    ck_assert(without->proven & YNODE_PROVEN);

    ck_assert(ynode_get(ynode_item(ynode_copy_in(doc, steps), 1), "run")->proven & YNODE_NO_EXPR);
    ck_assert(ynode_new_string_of(doc, without)->proven & YNODE_NO_EXPR);
    ynode_proven_settle(jobs);
    ck_assert(without->proven & YNODE_NO_EXPR);
    ck_assert(!(ynode_new_string(doc, "make test", 9, ynode_pos(without))->proven & YNODE_NO_EXPR));
    ynode_doc_destroy(doc);
    tmpl_proofs_free(p);
}
END_TEST

/* A mapping of the keys and type of one read before in the item without a problem has
 * only its values read again (a matrix configuration's, whose keys are its job's): a
 * value wrong in a later copy is found at its path, a key that differs is read in full. */
START_TEST(shapes)
{
    const struct tmplschema *s = workflow_schema();
    struct tmpl_proofs *p = tmpl_proofs_create();
    struct ynode_doc *doc = doc_from("build:\n  runs-on: ubuntu-latest\n  timeout-minutes: 5\n"
                                     "  steps:\n    - run: make\n      shell: bash\n");
    struct ynode *jobs = ynode_doc_root(doc), *job = ynode_value(jobs, 0);
    static const char *const path[] = {"jobs"};
    struct ynode *step, *copy;
    struct tmpl_type root, t, vt;
    struct tmpl_mapping *m;
    struct collected c = {{0}, 0};

    ck_assert_uint_eq(check_jobs(s, jobs, p, false).n, 0);
    /* three configurations: as written, a value wrong, a key unknown (same length) */
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(ynode_append_pair(doc, jobs, ynode_new_plain(doc, i ? "build-2" : "build-1", ynode_pos(job)),
                                           copy = ynode_copy_in(doc, job)), 0);
    copy = ynode_value(jobs, 1);
    ck_assert_int_eq(ynode_set(doc, copy, "timeout-minutes", ynode_new_plain(doc, "soon", ynode_pos(copy))), 0);
    step = ynode_item(ynode_get(ynode_value(jobs, 2), "steps"), 0);
    ynode_set(doc, step, "run", ynode_new_plain(doc, "make check", ynode_pos(step)));
    step->u.map.pairs[1].key = ynode_new_plain(doc, "shelf", ynode_pos(step->u.map.pairs[1].key));
    ynode_set(doc, job, "timeout-minutes", ynode_new_plain(doc, "6", ynode_pos(job)));
    ynode_proven_settle(jobs);

    ck_assert(tmplschema_type(s, "workflow-root-strict", &root));
    ck_assert(tmpl_type_at(root, path, 1, &t));
    ck_assert_ptr_nonnull(m = tmpl_mapping_begin(s, t, jobs, "/jobs", collect, &c));
    tmpl_mapping_prove(m, p, true);
    for (size_t i = 0; i < ynode_len(jobs); i++)
        tmpl_mapping_pair(m, ynode_key(jobs, i), ynode_value(jobs, i), &vt);
    tmpl_mapping_end(m);
    ck_assert_uint_eq(c.n, 2);
    ck_assert_ptr_nonnull(strstr(c.text, "/jobs/build-1/timeout-minutes: expected a number"));
    ck_assert_ptr_nonnull(strstr(c.text, "/jobs/build-2/steps/0: unexpected key 'shelf'"));
    /* the job's shape was kept by the first, and is not the step's that changed a key */
    ck_assert_ptr_nonnull(tmpl_proofs_shape(p, job, vt));
    ck_assert(tmpl_shape_same(tmpl_proofs_shape(p, job, vt), ynode_value(jobs, 1)));
    ynode_doc_destroy(doc);
    tmpl_proofs_free(p);
}
END_TEST

Suite *tmplschema_suite(void)
{
    Suite *s = suite_create("tmplschema");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, bundled_tables_are_compiled_schema);
    tcase_add_test(tc, contexts_by_key);
    tcase_add_test(tc, messages);
    tcase_add_test(tc, scalars);
    tcase_add_test(tc, number_text);
    tcase_add_test(tc, expressions_known_without_literals);
    tcase_add_test(tc, bad_schemas);
    tcase_add_test(tc, small_schema);
    tcase_add_test(tc, nested_scalars);
    tcase_add_test(tc, streaming);
    tcase_add_test(tc, keys_without_regard_to_case);
    tcase_add_test(tc, proofs);
    tcase_add_test(tc, no_expr_mark);
    tcase_add_test(tc, props_found_by_index);
    tcase_add_test(tc, shapes);
    tcase_add_test(tc, keyset_copies);
    tcase_add_test(tc, keyset_word_hash_upper);
    suite_add_tcase(s, tc);
    return s;
}
