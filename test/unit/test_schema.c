#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/bundled.h"
#include "fanout/schema.h"
#include "schema/schema_internal.h"
#include "unit.h"

struct collected {
    char text[2048];
    size_t n;
};

static void collect(void *user, const struct schema_error *e)
{
    struct collected *c = user;
    size_t o = strlen(c->text);

    snprintf(c->text + o, sizeof(c->text) - o, "%s: %s [%s]\n", e->path, e->message, rule_name(e->rule));
    c->n++;
}

static struct schema *compile_text(const char *text)
{
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    struct schema *s = schema_load_text("t.json", text, strlen(text), d);

    diag_destroy(d);
    ck_assert_ptr_nonnull(s);
    return s;
}

/* Validates YAML `instance` against `schema`; returns the messages. */
static struct collected check(const char *schema, const char *instance)
{
    struct schema *s = compile_text(schema);
    struct ynode_doc *doc = doc_from(instance);
    struct collected c = {{0}, 0};

    schema_validate(schema_root(s), ynode_doc_root(doc), "", collect, &c);
    ynode_doc_destroy(doc);
    schema_free(s);
    return c;
}

START_TEST(yaml_typing)
{
    /* Plain scalars are typed by YAML 1.2; quoted ones are strings. */
    struct collected c = check("{\"properties\": {\"n\": {\"type\": \"integer\"}, \"s\": {\"type\": \"string\"},"
                               " \"b\": {\"type\": \"boolean\"}, \"z\": {\"type\": \"null\"}}}",
                               "{n: 10, s: 'yes', b: true, z: ~}");

    ck_assert_uint_eq(c.n, 0);
    c = check("{\"properties\": {\"n\": {\"type\": \"integer\"}}}", "{n: '10'}");
    ck_assert_str_eq(c.text, "/n: must be integer, got string '10' [type]\n");
    c = check("{\"properties\": {\"n\": {\"type\": \"integer\"}}}", "{n: 1.0}");
    ck_assert_uint_eq(c.n, 0); /* 1.0 is an integer in draft-07 */
    /* integers as strtod reads them, the short ones read without it */
    c = check("{\"properties\": {\"n\": {\"minimum\": 1}, \"m\": {\"maximum\": 5}, \"k\": {\"minimum\": 1}}}",
              "{n: -0, m: +0007, k: -9007199254740993}");
    ck_assert_str_eq(c.text, "/n: must be >= 1, got -0 [minimum]\n/m: must be <= 5, got 7 [maximum]\n"
                             "/k: must be >= 1, got -9.0072e+15 [minimum]\n");
}
END_TEST

/* A property name with a NUL in it is a name of its own, found by its full length (the
 * compiled name was cut at the NUL). Names are also looked up by binary search: every
 * property of a 40-property schema is found. */
START_TEST(property_names)
{
    struct collected c = check("{\"properties\": {\"a\\u0000b\": {\"type\": \"integer\"}}}",
                               "{\"a\\0b\": x, a: y}");
    char schema[4096] = "{\"properties\": {", instance[2048] = "{";

    ck_assert_str_eq(c.text, "/a\\u0000b: must be integer, got string 'x' [type]\n");
    for (int i = 0; i < 40; i++) {
        size_t o = strlen(schema), p = strlen(instance);

        snprintf(schema + o, sizeof(schema) - o, "%s\"p%d%.*s\": {\"type\": \"integer\"}",
                 i ? ", " : "", i, i % 5, "xxxx");
        snprintf(instance + p, sizeof(instance) - p, "%sp%d%.*s: s", i ? ", " : "", i, i % 5, "xxxx");
    }
    strcat(schema, "}}");
    strcat(instance, "}");
    c = check(schema, instance);
    ck_assert_uint_eq(c.n, 40);
    /* no properties at all: nothing to sort (UBSan flagged qsort(NULL)) */
    c = check("{\"properties\": {}, \"required\": [\"a\"]}", "{b: 1}");
    ck_assert_str_eq(c.text, ": missing required property 'a' [required]\n");
    /* propertyNames reads a name as a string, as JSON has it, plain `1` and `true` too */
    c = check("{\"propertyNames\": {\"type\": \"string\", \"pattern\": \"^[a-z0-9]+$\"}}", "{1: a, true: b, x: c}");
    ck_assert_uint_eq(c.n, 0);
    c = check("{\"propertyNames\": {\"type\": \"string\", \"pattern\": \"^[a-z]+$\"}}", "{1: a}");
    ck_assert_str_eq(c.text, "/1: property name '1' is not allowed [propertyNames]\n");
}
END_TEST

START_TEST(closest_branch)
{
    static const char schema[] =
        "{\"definitions\": {"
        "  \"cmd\": {\"type\": \"object\", \"required\": [\"command\"], \"additionalProperties\": false,"
        "           \"properties\": {\"command\": {\"type\": \"string\"}, \"timeout\": {\"type\": \"integer\"}}},"
        "  \"wait\": {\"type\": \"object\", \"required\": [\"wait\"], \"additionalProperties\": false,"
        "            \"properties\": {\"wait\": {\"type\": \"null\"}}}},"
        " \"items\": {\"anyOf\": [{\"$ref\": \"#/definitions/wait\"}, {\"$ref\": \"#/definitions/cmd\"},"
        "                         {\"enum\": [\"wait\"]}]}}";
    struct collected c = check(schema, "[wait, {command: x, timeout: soon}]");

    /* one message, from the branch the step obviously meant */
    ck_assert_str_eq(c.text, "/1/timeout: must be integer, got string 'soon' [type]\n");
    c = check(schema, "[5]");
    ck_assert_str_eq(c.text, "/0: does not match any of the 3 allowed forms [anyOf]\n");
}
END_TEST

START_TEST(messages)
{
    struct collected c = check("{\"required\": [\"a\"], \"additionalProperties\": false,"
                               " \"properties\": {\"b\": {\"enum\": [1, 2]}, \"c\": {\"minLength\": 3},"
                               " \"d\": {\"pattern\": \"^x\"}, \"e\": false}}",
                               "{b: 3, c: ab, d: y, e: 1, f: 2}");

    ck_assert_uint_eq(c.n, 6);
    ck_assert_ptr_nonnull(strstr(c.text, ": missing required property 'a' [required]\n"));
    ck_assert_ptr_nonnull(strstr(c.text, "/b: must be one of [1, 2], got integer 3 [enum]\n"));
    ck_assert_ptr_nonnull(strstr(c.text, "/c: must be at least 3 characters long, is 2 [minLength]\n"));
    ck_assert_ptr_nonnull(strstr(c.text, "/d: must match the pattern '^x' [pattern]\n"));
    ck_assert_ptr_nonnull(strstr(c.text, "/e: property 'e' is not allowed here [not-allowed]\n"));
    ck_assert_ptr_nonnull(strstr(c.text, "/f: property 'f' is not allowed [additionalProperties]\n"));
    /* most specific first */
    ck_assert_ptr_eq(strstr(c.text, ": missing required"), strstr(c.text, "\n: missing") + 1);
    /* maxLength counts characters, not bytes (counted only past maxLength bytes) */
    c = check("{\"properties\": {\"m\": {\"maxLength\": 2}}}", "{m: \"\u00e9\u00e9\"}");
    ck_assert_uint_eq(c.n, 0);
    c = check("{\"properties\": {\"m\": {\"maxLength\": 2}}}", "{m: \"\u00e9\u00e9\u00e9\"}");
    ck_assert_str_eq(c.text, "/m: must be at most 2 characters long, is 3 [maxLength]\n");
    /* a count past long long's range is one nothing reaches (it was converted to a
     * negative count, which turned the check off, and the conversion is undefined) */
    c = check("{\"properties\": {\"s\": {\"minLength\": 1e62}, \"l\": {\"minItems\": 1e62},"
              " \"m\": {\"maxItems\": 1e62, \"maxLength\": 1e62}}}", "{s: ab, l: [1], m: [2]}");
    ck_assert_uint_eq(c.n, 2);
    ck_assert_ptr_nonnull(strstr(c.text, "/s: must be at least "));
    ck_assert_ptr_nonnull(strstr(c.text, "/l: must have at least "));
}
END_TEST

START_TEST(ecma_patterns)
{
    struct collected c;

    /* $ only at the very end; \\s includes NBSP; \\d is ASCII. */
    c = check("{\"pattern\": \"^a$\"}", "\"a\\n\"");
    ck_assert_uint_eq(c.n, 1);
    c = check("{\"pattern\": \"^\\\\s$\"}", "\"\\u00a0\"");
    ck_assert_uint_eq(c.n, 0);
    c = check("{\"pattern\": \"^\\\\d$\"}", "\"\\u0663\"");
    ck_assert_uint_eq(c.n, 1);
    c = check("{\"pattern\": \"^\\\\u0041$\"}", "A");
    ck_assert_uint_eq(c.n, 0);
    /* a catastrophic pattern stops instead of hanging, and says it did not decide */
    c = check("{\"pattern\": \"^(a+)+$\"}", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab");
    ck_assert_str_eq(c.text, ": not checked against the pattern '^(a+)+$': PCRE2 gave up on the 40-character "
                             "value (match limit exceeded) [pattern]\n");
}
END_TEST

/* A pattern PCRE2 gives up on is not a failed match: inside oneOf it is the one message
 * (it was a false "does not match any of the 2 allowed forms"), in patternProperties too. */
START_TEST(undecided_pattern_is_its_own_message)
{
    struct collected c;

    c = check("{\"oneOf\": [{\"type\": \"object\"}, {\"type\": \"string\", \"pattern\": \"^(a+)+$\"}]}",
              "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab");
    ck_assert_uint_eq(c.n, 1);
    ck_assert_ptr_nonnull(strstr(c.text, ": not checked against the pattern '^(a+)+$'"));
    c = check("{\"patternProperties\": {\"^(a+)+$\": {\"type\": \"integer\"}}, \"additionalProperties\": false}",
              "{aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab: 1}");
    ck_assert_uint_eq(c.n, 1);
    ck_assert_ptr_nonnull(strstr(c.text, "not checked against the pattern"));
}
END_TEST

/* A long value for each pattern of the bundled schemas, built to match: head, `unit`
 * repeated, tail. */
static const struct {
    const char *pattern, *head, *unit, *tail;
} long_values[] = {
    {"^[a-zA-Z0-9_\\-:${}.,]+$", "", "a", ""},
    {"^(0|[1-9][0-9]*)$", "", "1", ""},
    {"^[1-9][0-9]*$", "", "1", ""},
    {"^[a-zA-Z0-9_]+$", "", "a", ""},
    {"^\\$\\{\\{(.|[\r\n])*\\}\\}$", "${{ fromJSON('", "{\"a\": 1},\n", "') }}"},
    {"^.*\\$\\{\\{(.|[\r\n])*\\}\\}.*$", "echo ${{ ", "a }} ${{ b\n", " }} done"},
    {"^[_a-zA-Z][a-zA-Z0-9_-]*$", "", "a", ""},
    {"^\\d+(\\.\\d+|\\*)?$", "", "1", ".2"},
    {"^(in|ex)clude$", "include", "", ""},
    {"^(.+\\/)+(.+)\\.(ya?ml)(@.+)?$", "./", "a/", "x.yml@v1"},
    {"^branches(-ignore)?$", "branches-ignore", "", ""},
};

/* Checks `pattern` (of a bundled schema) against its long value. */
static void check_long_value(const char *pattern)
{
    size_t t = 0;
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    struct ynode_doc *sdoc = ynode_doc_create(), *idoc = ynode_doc_create();
    struct ypos pos = {0, 1, 1};
    struct ynode *root = ynode_new_map(sdoc, pos), *value;
    struct schema *s;
    struct collected c = {{0}, 0};
    size_t want = 900000, o, ulen; /* below SOURCE_MAX_TOKEN, the longest scalar read */
    char *text;

    while (t < sizeof(long_values) / sizeof(long_values[0]) && strcmp(long_values[t].pattern, pattern))
        t++;
    ck_assert_msg(t < sizeof(long_values) / sizeof(long_values[0]),
                  "bundled pattern '%s' has no long value in this test", pattern);
    ck_assert_int_eq(ynode_set(sdoc, root, "pattern", ynode_new_string(sdoc, pattern, strlen(pattern), pos)), 0);
    ynode_doc_set_root(sdoc, root);
    ck_assert_ptr_nonnull(s = schema_compile(sdoc, "long.json", d));
    text = malloc(want + 64);
    o = (size_t)sprintf(text, "%s", long_values[t].head);
    ulen = strlen(long_values[t].unit);
    while (ulen && o + ulen < want) {
        memcpy(text + o, long_values[t].unit, ulen);
        o += ulen;
    }
    o += (size_t)sprintf(text + o, "%s", long_values[t].tail);
    value = ynode_new_string(idoc, text, o, pos);
    schema_validate(schema_root(s), value, "", collect, &c);
    ck_assert_msg(c.n == 0, "'%s' on %zu bytes: %s", pattern, o, c.text);
    free(text);
    ynode_doc_destroy(idoc);
    schema_free(s);
    diag_destroy(d);
}

/* The patterns of a bundled schema's tree: `pattern` values and `patternProperties`
 * keys, wherever a subschema can be (not inside enum, const, default or examples data;
 * under properties and definitions only the values are subschemas). */
static void each_bundled_pattern(const struct ynode *n, size_t *found)
{
    if (ynode_is_seq(n)) {
        for (size_t i = 0; i < ynode_len(n); i++)
            each_bundled_pattern(ynode_item(n, i), found);
        return;
    }
    for (size_t i = 0; ynode_is_map(n) && i < ynode_len(n); i++) {
        const struct ynode *k = ynode_key(n, i), *v = ynode_value(n, i);

        if (ynode_scalar_is(k, "pattern") && ynode_is_scalar(v)) {
            check_long_value(ynode_scalar(v, NULL));
            (*found)++;
        } else if (ynode_scalar_is(k, "properties") || ynode_scalar_is(k, "definitions") ||
                   ynode_scalar_is(k, "patternProperties") || ynode_scalar_is(k, "dependencies")) {
            for (size_t j = 0; ynode_is_map(v) && j < ynode_len(v); j++) {
                if (ynode_scalar_is(k, "patternProperties")) {
                    check_long_value(ynode_scalar(ynode_key(v, j), NULL));
                    (*found)++;
                }
                each_bundled_pattern(ynode_value(v, j), found);
            }
        } else if (!ynode_scalar_is(k, "enum") && !ynode_scalar_is(k, "const") &&
                   !ynode_scalar_is(k, "default") && !ynode_scalar_is(k, "examples")) {
            each_bundled_pattern(v, found);
        }
    }
}

/* No bundled pattern leaves a long real value undecided: SchemaStore's `(.|[\r\n])*`
 * ran out of PCRE2's JIT stack at about 1,000 characters. */
START_TEST(bundled_patterns_decide_long_values)
{
    static const char *const names[] = {"buildkite-rendered", "github-workflow", "testarea",
                                        "json-schema-draft-07"};
    size_t found = 0;

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        each_bundled_pattern(bundled_schema(names[i]), &found);
    ck_assert_uint_ge(found, 16);
}
END_TEST

/* The bundled schemas are compiled lazily at run time (validate_bundled_schema), where
 * a problem would go unsaid: each compiles whole, eagerly, with no problem (no $ref
 * cycle either), and the lazy one answers an instance as the whole one does. */
START_TEST(bundled_schemas_compile_whole)
{
    static const char *const names[] = {"buildkite", "buildkite-rendered", "github-workflow", "testarea",
                                        "rayci", "json-schema-draft-07"};
    static const char *const instance =
        "{steps: [{command: 1, parallelism: x, key: 'a b', depends_on: [{step: 2}]}, {wait: ~, if: 3},"
        " {label: l, trigger: t, build: {env: []}}, {group: g, steps: [{block: b, fields: [{text: 1}]}]}],"
        " jobs: {a: {runs-on: 1, steps: [{uses: 2}]}}, on: push, name: 1, $schema: 1, type: bogus}";

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        struct diag *d = diag_create(stderr, DIAG_TEXT);
        struct schema *whole = schema_compile(ynode_doc_wrap(bundled_schema(names[i])), names[i], d);
        struct schema *lazy = schema_compile_lazily(ynode_doc_wrap(bundled_schema(names[i])), names[i], d);
        struct ynode_doc *doc = doc_from(instance);
        struct collected a = {{0}, 0}, b = {{0}, 0};

        ck_assert_msg(whole != NULL && !diag_has_input_error(d), "bundled schema %s does not compile", names[i]);
        ck_assert_ptr_nonnull(lazy);
        schema_validate(schema_root(whole), ynode_doc_root(doc), "", collect, &a);
        schema_validate(schema_root(lazy), ynode_doc_root(doc), "", collect, &b);
        ck_assert_msg(a.n > 0, "%s: the instance is valid", names[i]);
        ck_assert_str_eq(a.text, b.text);
        ynode_doc_destroy(doc);
        schema_free(whole);
        schema_free(lazy);
        diag_destroy(d);
    }
}
END_TEST

/* A lazily compiled schema (a bundled one's) compiles a node when validation first reaches
 * it; out of memory there left the node half compiled and validation went on with it
 * (missing checks: a wrong answer), and a node made when the schema's list of nodes
 * could not grow had no owner (a crash). Each calloc and realloc of the run made to fail
 * in turn: a failed compile is one error, out of memory, and nothing else. */
START_TEST(lazy_compile_out_of_memory)
{
    char schema[4096] = "{properties: {a: {type: string}, b: {properties: {c: {type: integer}},"
                        " required: [c, d], additionalProperties: false}";
    struct ynode_doc *doc = doc_from("{a: 1, b: {c: x, e: 2}}");

    /* past the 64 nodes the list is made with */
    for (int i = 0; i < 70; i++)
        snprintf(schema + strlen(schema), sizeof(schema) - strlen(schema), ", p%d: {type: string}", i);
    strcat(schema, "}, required: [a]}");
    bool failed_once = false;

    for (long k = 0;; k++) {
        struct diag *d = diag_create(stderr, DIAG_TEXT);
        struct schema *s = schema_compile_lazily(doc_from(schema), "lazy.json", d);
        struct collected c = {{0}, 0};

        ck_assert_ptr_nonnull(s);
        unit_alloc_countdown = k;
        schema_validate(schema_root(s), ynode_doc_root(doc), "", collect, &c);
        if (s->failed) {
            failed_once = true;
            if (c.n != 1 || !strstr(c.text, "out of memory compiling the schema lazy.json [schema]"))
                ck_abort_msg("allocation %ld failing: %s", k, c.text);
        }
        schema_free(s);
        diag_destroy(d);
        if (unit_alloc_countdown >= 0) { /* no allocation left to fail */
            unit_alloc_countdown = -1;
            ck_assert_uint_eq(c.n, 4);
            break;
        }
    }
    ck_assert(failed_once);
    ynode_doc_destroy(doc);
}
END_TEST

/* A pattern the JIT fails on is tried once and then interpreted: PCRE2 keeps no failure,
 * and schema_match compiled it again at every match (a value and a key pattern). */
START_TEST(jit_failure_tried_once)
{
    struct collected c;

    unit_jit_failing = true;
    unit_jit_calls = 0;
    c = check("{type: array, items: {type: string, pattern: '^a+$'}}", "[a, aa, b, aaa, c]");
    ck_assert_uint_eq(c.n, 2);
    ck_assert_uint_eq(unit_jit_calls, 1);
    unit_jit_calls = 0;
    c = check("{patternProperties: {'^x': {type: integer}}}", "{x1: 1, x2: a, y: b, x3: c}");
    ck_assert_uint_eq(c.n, 2);
    ck_assert_uint_eq(unit_jit_calls, 1);
    unit_jit_failing = false;
}
END_TEST

START_TEST(refs_and_ids)
{
    struct collected c = check(
        "{\"$id\": \"http://x.test/root.json\","
        " \"definitions\": {\"a\": {\"$id\": \"sub/a.json\", \"type\": \"integer\"},"
        "                   \"b\": {\"$id\": \"#bee\", \"type\": \"string\"},"
        "                   \"t~/x\": {\"type\": \"boolean\"}},"
        " \"properties\": {\"p\": {\"$ref\": \"sub/a.json\"}, \"q\": {\"$ref\": \"#bee\"},"
        "                  \"r\": {\"$ref\": \"#/definitions/t~0~1x\"},"
        "                  \"m\": {\"$ref\": \"http://json-schema.org/draft-07/schema#\"}}}",
        "{p: 1, q: s, r: true, m: {type: string}}");

    ck_assert_uint_eq(c.n, 0);
    c = check("{\"properties\": {\"m\": {\"$ref\": \"http://json-schema.org/draft-07/schema#\"}}}",
              "{m: {type: 5}}");
    ck_assert_uint_eq(c.n, 1);
}
END_TEST

START_TEST(bad_schemas)
{
    static const char *const bad[] = {
        "{\"$ref\": \"http://example.invalid/remote.json\"}",
        "{\"pattern\": \"(?<=a+)b\"}",
        "{\"type\": \"integr\"}",
        "{\"minLength\": -1}",
        "{\"anyOf\": []}",
        "[1, 2]",
        "{\"type\": \"object\", \"type\": \"string\"}",
        "{\"type\": ",
        /* keywords of the wrong type (issue 14): never ignored, never half-read */
        "{\"required\": [{\"x\": 1}, \"b\"]}",
        "{\"required\": [1, \"b\"]}",
        "{\"required\": \"b\"}",
        "{\"title\": 5}",
        "{\"$ref\": 3}",
        "{\"patternProperties\": []}",
        "{\"definitions\": 1}",
        "{\"dependencies\": {\"a\": [1]}}",
        "{\"dependencies\": true}",
        "{\"enum\": {}}",
        /* $ref cycles that never look into the instance */
        "{\"$ref\": \"#\"}",
        ("{\"definitions\": {\"a\": {\"$ref\": \"#/definitions/b\"}, \"b\": {\"$ref\": \"#/definitions/a\"}},"
         " \"properties\": {\"p\": {\"$ref\": \"#/definitions/a\"}}}"),
        "{\"allOf\": [{\"$ref\": \"#\"}]}",
        "{\"anyOf\": [{\"type\": \"string\"}, {\"not\": {\"$ref\": \"#\"}}]}",
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *msg = NULL;
        size_t len = 0;
        FILE *fp = open_memstream(&msg, &len);
        struct diag *d = diag_create(fp, DIAG_TEXT);
        struct schema *s = schema_load_text("t.json", bad[i], strlen(bad[i]), d);

        fclose(fp);
        ck_assert_msg(s == NULL, "%s compiled", bad[i]);
        /* one line, naming the schema and the line and column */
        ck_assert_msg(strncmp(msg, "t.json:", 7) == 0 && msg[7] >= '1' && msg[7] <= '9' && strstr(msg, "error: ") && !strchr(msg, '\n')[1],
                      "%s: [%s]", bad[i], msg);
        ck_assert_int_eq(diag_exit_code(d, false), 2);
        diag_destroy(d);
        free(msg);
    }
}
END_TEST

/* A recursive schema that descends into the instance is not a cycle. */
START_TEST(recursion_through_properties)
{
    struct collected c;

    c = check("{\"properties\": {\"x\": {\"$ref\": \"#\"}}, \"required\": [\"y\"]}", "{x: {x: {y: 1}, y: 2}, y: 3}");
    ck_assert_uint_eq(c.n, 0);
    c = check("{\"properties\": {\"x\": {\"$ref\": \"#\"}}, \"required\": [\"y\"]}", "{x: {x: {}, y: 2}, y: 3}");
    ck_assert_uint_eq(c.n, 1);
}
END_TEST

START_TEST(streaming_helpers)
{
    struct schema *s = compile_text(
        "{\"type\": \"object\", \"required\": [\"steps\"], \"additionalProperties\": false,"
        " \"properties\": {\"env\": {\"type\": \"object\"},"
        "   \"steps\": {\"$ref\": \"#/definitions/list\"}},"
        " \"definitions\": {\"list\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}}}}");
    bool allowed, simple;
    const struct schema_node *steps = schema_property(schema_root(s), "steps", 5, &allowed, &simple);

    ck_assert(simple && allowed);
    ck_assert_ptr_nonnull(schema_items(steps));
    schema_property(schema_root(s), "nope", 4, &allowed, &simple);
    ck_assert(simple && !allowed);
    ck_assert_str_eq(schema_required(schema_root(s))[0], "steps");
    schema_free(s);
}
END_TEST

START_TEST(uri_resolution)
{
    /* RFC 3986 5.4's examples, normal and abnormal (the parser is strict: "http:g"). */
    static const char *const cases[][2] = {
        {"g:h", "g:h"}, {"g", "http://a/b/c/g"}, {"./g", "http://a/b/c/g"}, {"g/", "http://a/b/c/g/"},
        {"/g", "http://a/g"}, {"//g", "http://g"}, {"?y", "http://a/b/c/d;p?y"}, {"g?y", "http://a/b/c/g?y"},
        {"#s", "http://a/b/c/d;p?q#s"}, {"g#s", "http://a/b/c/g#s"}, {"g?y#s", "http://a/b/c/g?y#s"},
        {";x", "http://a/b/c/;x"}, {"g;x", "http://a/b/c/g;x"}, {"", "http://a/b/c/d;p?q"},
        {".", "http://a/b/c/"}, {"./", "http://a/b/c/"}, {"..", "http://a/b/"}, {"../", "http://a/b/"},
        {"../g", "http://a/b/g"}, {"../..", "http://a/"}, {"../../", "http://a/"}, {"../../g", "http://a/g"},
        {"../../../g", "http://a/g"}, {"../../../../g", "http://a/g"}, {"/./g", "http://a/g"},
        {"/../g", "http://a/g"}, {"g.", "http://a/b/c/g."}, {".g", "http://a/b/c/.g"},
        {"g..", "http://a/b/c/g.."}, {"..g", "http://a/b/c/..g"}, {"./../g", "http://a/b/g"},
        {"./g/.", "http://a/b/c/g/"}, {"g/./h", "http://a/b/c/g/h"}, {"g/../h", "http://a/b/c/h"},
        {"g;x=1/./y", "http://a/b/c/g;x=1/y"}, {"g;x=1/../y", "http://a/b/c/y"},
        {"g?y/./x", "http://a/b/c/g?y/./x"}, {"g?y/../x", "http://a/b/c/g?y/../x"},
        {"g#s/./x", "http://a/b/c/g#s/./x"}, {"g#s/../x", "http://a/b/c/g#s/../x"}, {"http:g", "http:g"},
    };
    char *r;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        r = schema_uri_resolve("http://a/b/c/d;p?q", cases[i][0]);
        ck_assert_msg(r && !strcmp(r, cases[i][1]), "'%s' resolved to '%s', not '%s'", cases[i][0], r, cases[i][1]);
        free(r);
    }
    /* a schema without $id has the empty base: its references stay relative */
    ck_assert_str_eq(r = schema_uri_resolve("", "#/definitions/a"), "#/definitions/a");
    free(r);
    ck_assert_str_eq(r = schema_uri_resolve("", "item.json"), "item.json");
    free(r);
    /* an authority with no path: the merged path starts at the root */
    ck_assert_str_eq(r = schema_uri_resolve("http://x", "a.json"), "http://x/a.json");
    free(r);
    ck_assert_str_eq(r = schema_uri_strip_fragment("http://x/a.json#/b"), "http://x/a.json");
    free(r);
    ck_assert_str_eq(r = schema_uri_strip_fragment("http://x/a.json"), "http://x/a.json");
    free(r);
}
END_TEST

/* The memo of shapes answers as a full check does, instance after instance: a
 * differing scalar that fails, or changes its type by its quotes; one that makes a
 * second oneOf branch pass too; a value compared whole (enum of objects, uniqueItems);
 * a shape that differs. Each instance's answer is checked against schema_is_valid. */
static void memo_agrees(const char *schema, const char *const *instances, const bool *want)
{
    struct schema *s = compile_text(schema);
    struct schema_memo *m = schema_memo_create();

    ck_assert_ptr_nonnull(m);
    for (size_t i = 0; instances[i]; i++) {
        struct ynode_doc *doc = doc_from(instances[i]);
        bool full = schema_is_valid(schema_root(s), ynode_doc_root(doc));

        ck_assert_msg(full == want[i], "%s: schema_is_valid says %d", instances[i], full);
        ck_assert_msg(schema_memo_is_valid(m, schema_root(s), ynode_doc_root(doc)) == full, "%s: memo says %d",
                      instances[i], !full);
        ynode_doc_destroy(doc);
    }
    schema_memo_destroy(m);
    schema_free(s);
}

START_TEST(memo_of_shapes)
{
    static const char *const fields[] = {"{k: abc, n: 1}", "{k: def, n: 2}", "{k: AB, n: 3}", "{k: abc, n: x}",
                                         "{k: abc, n: '1'}", "{k: abc, n: 1, o: 2}", "{k: [abc], n: 1}",
                                         "{k: ghi, n: 4}", NULL};
    static const bool fields_ok[] = {true, true, false, false, false, true, true, true};
    static const char *const one_of[] = {"{a: 1}", "{a: 2}", "{a: y}", "{a: xa}", "{a: 3}", NULL};
    static const bool one_of_ok[] = {true, true, true, false, true};
    static const char *const whole[] = {"{e: {a: 1}, u: [1, 2]}", "{e: {a: 2}, u: [1, 2]}",
                                        "{e: {a: 1}, u: [1, 1]}", "{e: {a: 1}, u: [3, 2]}", NULL};
    static const bool whole_ok[] = {true, false, false, true};
    static const char *const typed[] = {"{l: 'a', m: 'xy'}", "{l: 'bb', m: 'zz'}", "{l: 'c', m: 'xyz'}",
                                        "{l: 3, m: 'xy'}", "{l: ~, m: 'xy'}", "{l: 'd', m: 'ab'}", NULL};
    static const bool typed_ok[] = {true, true, false, false, true, true};
    /* plain scalars of a check's type answer alike; two $refs to one definition are one check */
    static const char *const plain[] = {"{p: abc, r: ab}", "{p: def, r: cd}", "{p: 12, r: ab}", "{p: true, r: ab}",
                                        "{p: 'x', r: ef}", "{p: ~, r: ab}", "{p: ghi, r: abcd}", "{p: jkl, r: 12}",
                                        "{p: mno, r: gh}", NULL};
    static const bool plain_ok[] = {true, true, false, false, true, false, false, false, true};

    memo_agrees("{\"properties\": {\"k\": {\"pattern\": \"^[a-z]+$\"}, \"n\": {\"type\": \"integer\"}}}",
                fields, fields_ok);
    memo_agrees("{\"oneOf\": [{\"properties\": {\"a\": {\"type\": \"string\"}}},"
                " {\"properties\": {\"a\": {\"pattern\": \"^x\"}}}]}",
                one_of, one_of_ok);
    memo_agrees("{\"properties\": {\"e\": {\"enum\": [{\"a\": 1}]}, \"u\": {\"uniqueItems\": true}}}", whole,
                whole_ok);
    /* a string against type-only checks answers alike whatever its text; not a plain one */
    memo_agrees("{\"properties\": {\"l\": {\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"null\"}]},"
                " \"m\": {\"type\": \"string\", \"maxLength\": 2}}}",
                typed, typed_ok);
    memo_agrees("{\"definitions\": {\"r\": {\"type\": \"string\", \"maxLength\": 2}},"
                " \"properties\": {\"p\": {\"anyOf\": [{\"type\": \"array\"}, {\"type\": \"string\"}]}},"
                " \"anyOf\": [{\"properties\": {\"r\": {\"$ref\": \"#/definitions/r\"}}, \"required\": [\"z\"]},"
                " {\"properties\": {\"r\": {\"$ref\": \"#/definitions/r\"}}}]}",
                plain, plain_ok);
}
END_TEST

/* A pattern `^[...]+$` is answered by its class without PCRE2 for an ASCII text: as
 * PCRE2 answers `^(?:[...])+$` (which it runs), ranges, a '-' after a range or last, and
 * escapes as ECMA-262 reads them; a text with a line break or non-ASCII as well. */
START_TEST(simple_class_patterns)
{
    static const char *const classes[] = {"a-c-z", "--/", "a-", "\\\\-a", "a-zA-Z0-9_\\\\-:${}.,", NULL};
    static const char *const texts[] = {"b", "-", "z", "d", ".", "/", "a", "test-0:1", "a b", "\"\\u00e9\"",
                                        "\"a\\n\"", "\"${}.,\"", "A_9", NULL};

    for (size_t i = 0; classes[i]; i++) {
        char fast[160], slow[160];

        snprintf(fast, sizeof(fast), "{\"pattern\": \"^[%s]+$\"}", classes[i]);
        snprintf(slow, sizeof(slow), "{\"pattern\": \"^(?:[%s])+$\"}", classes[i]);
        for (size_t t = 0; texts[t]; t++) {
            struct collected f = check(fast, texts[t]), w = check(slow, texts[t]);

            ck_assert_msg(f.n == w.n, "[%s] %s: %zu errors, PCRE2 %zu", classes[i], texts[t], f.n, w.n);
        }
    }
    ck_assert_uint_eq(check("{\"pattern\": \"^[a-c-z]+$\"}", "d").n, 1);
    ck_assert_uint_eq(check("{\"pattern\": \"^[a-c-z]+$\"}", "-z").n, 0);
}
END_TEST

Suite *schema_suite(void)
{
    Suite *s = suite_create("schema");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, yaml_typing);
    tcase_add_test(tc, bundled_schemas_compile_whole);
    tcase_add_test(tc, property_names);
    tcase_add_test(tc, closest_branch);
    tcase_add_test(tc, messages);
    tcase_add_test(tc, ecma_patterns);
    tcase_add_test(tc, undecided_pattern_is_its_own_message);
    tcase_add_test(tc, bundled_patterns_decide_long_values);
    tcase_add_test(tc, refs_and_ids);
    tcase_add_test(tc, lazy_compile_out_of_memory);
    tcase_add_test(tc, jit_failure_tried_once);
    tcase_add_test(tc, bad_schemas);
    tcase_add_test(tc, recursion_through_properties);
    tcase_add_test(tc, streaming_helpers);
    tcase_add_test(tc, uri_resolution);
    tcase_add_test(tc, memo_of_shapes);
    tcase_add_test(tc, simple_class_patterns);
    suite_add_tcase(s, tc);
    return s;
}
