#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfyaml.h>

#include "fanout/dialect.h"
#include "fanout/emit.h"
#include "fanout/stream.h"
#include "fanout/ynode.h"
#include "fanout/yscalar.h"
#include "unit.h"

/* Strings that break naive YAML writers (from notes/libraries.md, plus more). */
static const char *const tricky[] = {
    "#x", "!x", "|", "- a", "-", "? x", "?", "> x", "%N", "@x", "`x", "'x", "\"x", " lead",
    "trail ", " ", "", "yes", "no", "on", "off", "y", "n", "Yes", "ON", "true", "False", "null",
    "Null", "~", "0123", "0o17", "0x1F", "1_000", "12:30", "1:20:30", "+1", ".5", "1e3", ".inf",
    ".NaN", "2001-12-14", "=", "<<", "a: b", "a #b", "a:", "---", "...", "&x", "*x", "[a]",
    "{a}", "a,b", "multi\nline\n", "no trailing\nnewline", "two trailing\n\n", "\n\nlead",
    "  indented\nfirst", "tab\there", "ctrl\x01", "del\x7f", "nel\xc2\x85x", "ls\xe2\x80\xa8x",
    "bom\xef\xbb\xbfx", "quote\"back\\slash", "\xc3\xa9t\xc3\xa9", "a\r\nb", "trailing \nspace",
    "x\n \ny", "$$BUILDKITE_PARALLEL_JOB", ":nvidia: (H200) Shard 1/4", "k: v # c",
};

/* Emits {k: s} and parses it back: the value must come back as the same string. */
START_TEST(strings_round_trip)
{
    const char *s = tricky[_i];
    struct ynode_doc *doc = ynode_doc_create();
    struct ynode *map = ynode_new_map(doc, (struct ypos){0, 1, 1});
    struct fy_document *back;
    struct fy_node *v;
    const char *t;
    size_t len;
    char *out;

    ck_assert_int_eq(ynode_set(doc, map, "k", ynode_new_string(doc, s, strlen(s), (struct ypos){0, 1, 1})), 0);
    out = emit_to_string(map, 0);
    /* read back by libfyaml's own document loader: a reader that is not ours */
    back = fy_document_build_from_string(NULL, out, strlen(out));
    ck_assert_msg(back != NULL, "output does not parse: [%s]", out);
    v = fy_node_mapping_lookup_by_string(fy_document_root(back), "k", 1);
    ck_assert_ptr_nonnull(v);
    t = fy_node_get_scalar(v, &len);
    ck_assert_msg(len == strlen(s) && memcmp(t, s, len) == 0, "[%s] came back as [%.*s] via [%s]",
                  s, (int)len, t, out);
    if (fy_node_get_style(v) == FYNS_PLAIN)
        ck_assert_msg(!yscalar_misread(t, len), "[%s] written plain but typed", s);
    fy_document_destroy(back);
    free(out);
    ynode_doc_destroy(doc);
}
END_TEST

static void check_emit(const char *yaml, int json, const char *want)
{
    struct ynode_doc *doc = doc_from(yaml);
    char *out = emit_to_string(ynode_doc_root(doc), json);

    ck_assert_str_eq(out, want);
    free(out);
    ynode_doc_destroy(doc);
}

START_TEST(block_layout)
{
    check_emit("{a: {b: [1, {c: d, e: []}], f: {}}, g: 'yes', h: \"plain\", i: x\n}", 0,
               "a:\n"
               "  b:\n"
               "    - 1\n"
               "    - c: d\n"
               "      e: []\n"
               "  f: {}\n"
               "g: \"yes\"\n"
               "h: plain\n"
               "i: x\n");
    check_emit("[[a, b], [], c]", 0, "- - a\n  - b\n- []\n- c\n");
    check_emit("cmd: \"make\\nmake test\\n\"", 0, "cmd: |\n  make\n  make test\n");
    check_emit("cmd: \"a\\n\\nb\"", 0, "cmd: |-\n  a\n\n  b\n");
    check_emit("cmd: \"  x\\ny\"", 0, "cmd: |2-\n    x\n  y\n");
    check_emit("k:\nn: ~", 0, "k:\nn: ~\n");
}
END_TEST

START_TEST(json_types)
{
    check_emit("{a: 10, b: '10', c: true, d: yes, e: ~, f: 1.5, g: 0x1F, h: [], i: {}, j: \"q\\\"\"}", 1,
               "{\n"
               "  \"a\": 10,\n"
               "  \"b\": \"10\",\n"
               "  \"c\": true,\n"
               "  \"d\": \"yes\",\n"
               "  \"e\": null,\n"
               "  \"f\": 1.5,\n"
               "  \"g\": \"0x1F\",\n"
               "  \"h\": [],\n"
               "  \"i\": {},\n"
               "  \"j\": \"q\\\"\"\n"
               "}\n");
}
END_TEST

/* Steps get their keys in the canonical order, wherever they were written. */
START_TEST(step_key_order)
{
    struct ynode_doc *doc = doc_from(
        "{agents: {q: 1}, timeout_in_minutes: 5, command: x, env: {A: b}, key: k, label: L,"
        " depends_on: d, soft_fail: true}");
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct emitter *e = emit_create(fp, EMIT_YAML, &dialect_buildkite_layout);

    emit_doc_start(e);
    emit_step(e, ynode_doc_root(doc));
    emit_doc_end(e);
    emit_destroy(e);
    fclose(fp);
    ck_assert_str_eq(buf, "steps:\n"
                          "  - label: L\n"
                          "    key: k\n"
                          "    depends_on: d\n"
                          "    command: x\n"
                          "    env:\n"
                          "      A: b\n"
                          "    agents:\n"
                          "      q: 1\n"
                          "    timeout_in_minutes: 5\n"
                          "    soft_fail: true\n");
    free(buf);
    ynode_doc_destroy(doc);
}
END_TEST

START_TEST(empty_document_has_steps)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct emitter *e = emit_create(fp, EMIT_YAML, &dialect_buildkite_layout);

    emit_doc_start(e);
    emit_doc_end(e);
    emit_doc_start(e);
    emit_doc_end(e);
    emit_destroy(e);
    fclose(fp);
    ck_assert_str_eq(buf, "steps: []\n---\nsteps: []\n");
    free(buf);
}
END_TEST

/* Multi-line texts of a size to fill the emitter's 64 KiB buffer: each a literal block
 * (written in the scan that finds it can be one: with a flush first when the buffer has
 * no room for it, and the old two passes for one larger than the buffer), and one that
 * cannot be, whose block is taken back for a quoted string, with the buffer nearly full;
 * each read back as it was, in the style chosen. */
START_TEST(long_multiline_texts)
{
    static const struct {
        size_t lines;
        bool literal;
    } texts[] = {{1500, true}, {1500, true}, {1500, false}, {6000, true}, {3, true}};
    const size_t n = sizeof(texts) / sizeof(texts[0]);
    struct ynode_doc *doc = ynode_doc_create();
    struct ynode *map = ynode_new_map(doc, (struct ypos){0, 1, 1});
    char *text[sizeof(texts) / sizeof(texts[0])], *out, key[2] = "a";
    struct fy_document *back;

    for (size_t i = 0; i < n; i++) {
        size_t len = 0;

        text[i] = malloc(texts[i].lines * 24 + 8);
        for (size_t l = 0; l < texts[i].lines; l++)
            len += (size_t)sprintf(text[i] + len, "echo line %zu of %zu\n", l, i);
        if (!texts[i].literal) /* a line of only spaces: read back as an empty one */
            len += (size_t)sprintf(text[i] + len, "   \nx");
        key[0] = (char)('a' + i);
        ck_assert_int_eq(ynode_set(doc, map, key, ynode_new_string(doc, text[i], len, (struct ypos){0, 1, 1})), 0);
    }
    out = emit_to_string(map, 0);
    back = fy_document_build_from_string(NULL, out, strlen(out));
    ck_assert_ptr_nonnull(back);
    for (size_t i = 0; i < n; i++) {
        struct fy_node *v;
        const char *t;
        size_t len;

        key[0] = (char)('a' + i);
        v = fy_node_mapping_lookup_by_string(fy_document_root(back), key, 1);
        ck_assert_ptr_nonnull(v);
        t = fy_node_get_scalar(v, &len);
        ck_assert_msg(len == strlen(text[i]) && !memcmp(t, text[i], len), "text %zu not read back", i);
        ck_assert_int_eq(fy_node_get_style(v), texts[i].literal ? FYNS_LITERAL : FYNS_DOUBLE_QUOTED);
        free(text[i]);
    }
    fy_document_destroy(back);
    free(out);
    ynode_doc_destroy(doc);
}
END_TEST

static char *emit_jobs(struct ynode_doc *doc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct emitter *e = emit_create(fp, EMIT_YAML, dialect_gha.layout);
    struct stream_item item = {.kind = STREAM_STEP, .doc = doc};

    emit_doc_start(e);
    emit_item(e, &item);
    emit_doc_end(e);
    emit_destroy(e);
    fclose(fp);
    return buf;
}

/* An item of several jobs sharing nodes (a matrix job's configurations share what
 * substitution left alike) is written as the same jobs with copies: a node written again
 * at another column or place is not the text kept from the first (emitmemo.h). */
START_TEST(shared_nodes_written_alike)
{
    static const char jobs[] = "a: {env: {A: '1'}, steps: [{run: x, with: {k: v}}, {uses: y}]}\n"
                               "b: {env: {A: '1'}, steps: [{run: x, with: {k: v}}, {uses: y}]}\n"
                               "c: {env: {A: '1'}, steps: [{run: x, with: {A: '1'}}, {uses: y}], x: [{run: x, with: {k: v}}]}\n";
    struct ynode_doc *copies = doc_from(jobs), *shared = doc_from(jobs);
    struct ynode *r = ynode_doc_root(shared);
    struct ynode *env = ynode_get(ynode_get(r, "a"), "env");
    struct ynode *step = ynode_item(ynode_get(ynode_get(r, "a"), "steps"), 0);
    char *want = emit_jobs(copies), *got;

    ynode_set_value(ynode_get(r, "b"), 0, env);
    ynode_set_item(ynode_get(ynode_get(r, "b"), "steps"), 0, step);
    ynode_set_value(ynode_item(ynode_get(ynode_get(r, "c"), "steps"), 0), 1, env);
    ynode_set_item(ynode_get(ynode_get(r, "c"), "x"), 0, step);
    got = emit_jobs(shared);
    ck_assert_str_eq(got, want);
    free(want);
    free(got);
    ynode_doc_destroy(copies);
    ynode_doc_destroy(shared);
}
END_TEST

Suite *emit_suite(void)
{
    Suite *s = suite_create("emit");
    TCase *tc = tcase_create("core");

    tcase_add_loop_test(tc, strings_round_trip, 0, sizeof(tricky) / sizeof(tricky[0]));
    tcase_add_test(tc, block_layout);
    tcase_add_test(tc, json_types);
    tcase_add_test(tc, step_key_order);
    tcase_add_test(tc, empty_document_has_steps);
    tcase_add_test(tc, long_multiline_texts);
    tcase_add_test(tc, shared_nodes_written_alike);
    suite_add_tcase(s, tc);
    return s;
}
