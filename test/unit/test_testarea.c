#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/bundled.h"
#include "fanout/change.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "dialect/testarea/testarea.h"
#include "unit.h"

struct result {
    int rc;
    char *group;    /* rendering of the file's group, or NULL */
    char *amd;      /* rendering of the AMD group, or NULL */
    char *messages;
};

static char *render_doc(struct ynode_doc *fyd)
{
    char *out;

    if (!fyd)
        return NULL;
    out = emit_to_string(ynode_doc_root(fyd), 0);
    ynode_doc_destroy(fyd);
    return out;
}

/* Runs one test-area file through testarea_file with `opts`. */
static struct result run_with(const char *yaml, const struct ta_options *opts)
{
    char path[] = "/tmp/fanout-ta-XXXXXX";
    int fd = mkstemp(path);
    size_t msg_len = 0;
    FILE *err;
    struct result r = {0};
    const char *files[] = {"t.yaml"};
    struct diag *d;
    struct source *src;
    struct stream *s;
    struct testarea *ta;
    struct ynode_doc *doc = NULL;

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
    close(fd);
    err = open_memstream(&r.messages, &msg_len);
    d = diag_create(err, DIAG_TEXT);
    src = source_open(path, d);
    ck_assert_ptr_nonnull(src);
    s = stream_open(src, 0, d);
    ta = testarea_create(d, files, opts);
    r.rc = testarea_file(ta, s, &doc);
    r.group = render_doc(doc);
    r.amd = render_doc(testarea_take_amd_group(ta));
    testarea_destroy(ta);
    stream_close(s);
    source_close(src);
    diag_destroy(d);
    fclose(err);
    unlink(path);
    return r;
}

static struct result run(const char *yaml, enum ta_platform platform)
{
    return run_with(yaml, &(struct ta_options){.platform = platform, .mirror_parallelism = TA_MIRROR_OWN});
}

static void result_free(struct result *r)
{
    free(r->group);
    free(r->amd);
    free(r->messages);
}

/* What the not-run hook was told, one "ID: WHY@LINE" a line. */
static int record_not_run(void *user, const char *id, size_t len, const char *why, struct ypos pos)
{
    FILE *out = user;

    fprintf(out, "%.*s: %s@%u\n", (int)len, id, why, pos.line);
    return 0;
}

/* A step the change does not run is told to the hook (it, and its AMD mirror), with a
 * block step before it; kept as it is (keep_not_run), only told. */
START_TEST(not_run_hook)
{
    static const char yaml[] = "group: G\n"
                               "steps:\n"
                               "  - label: Docs\n"
                               "    key: docs\n"
                               "    source_file_dependencies: [docs/]\n"
                               "    commands: [mkdocs build]\n"
                               "    mirror:\n"
                               "      amd:\n"
                               "        device: mi300_1\n"
                               "  - label: Core\n"
                               "    key: core\n"
                               "    source_file_dependencies: [vllm/]\n"
                               "    commands: [pytest]\n";
    struct change *c = change_of("vllm/a.py\n");
    for (int keep = 0; keep < 2; keep++) {
        char *told = NULL;
        size_t told_len = 0;
        FILE *out = open_memstream(&told, &told_len);
        struct ta_options opts = {.change = c, .on_not_run = record_not_run, .not_run_user = out, .keep_not_run = keep};
        struct result r = run_with(yaml, &opts);

        fclose(out);
        ck_assert_int_eq(r.rc, 0);
        ck_assert_str_eq(told, "amd-docs: no changed file is under its source_file_dependencies; block step "
                               "'block-amd-docs' waits before it@3\n"
                               "docs: no changed file is under its source_file_dependencies; block step "
                               "'block-docs' waits before it@3\n");
        ck_assert_int_eq(strstr(r.group, "block-docs") != NULL, !keep);
        ck_assert_int_eq(strstr(r.amd, "block-amd-docs") != NULL, !keep);
        ck_assert_ptr_null(strstr(r.group, "block-core"));
        free(told);
        result_free(&r);
    }
    change_destroy(c);
}
END_TEST

START_TEST(mirror_rules)
{
    struct result r = run("group: G\n"
                          "depends_on: [image-build]\n"
                          "steps:\n"
                          "  - label: T\n"
                          "    key: t\n"
                          "    device: h100\n"
                          "    parallelism: 4\n"
                          "    timeout_in_minutes: 30\n"
                          "    env: {A: p, B: p}\n"
                          "    commands: [run]\n"
                          "    mirror:\n"
                          "      amd:\n"
                          "        device: mi300_1\n"
                          "        parallelism: 2\n"
                          "        timeout_in_minutes: 500\n"
                          "        env: {B: m}\n",
                          TA_ALL);

    ck_assert_int_eq(r.rc, 0);
    /* emit_node keeps the nodes' order: the step's own, then what testarea added. */
    ck_assert_str_eq(r.group, "- group: G\n"
                              "  steps:\n"
                              "    - label: T\n"
                              "      key: t\n"
                              "      device: h100\n"
                              "      parallelism: 4\n"
                              "      timeout_in_minutes: 30\n"
                              "      env:\n"
                              "        A: p\n"
                              "        B: p\n"
                              "      commands:\n"
                              "        - run\n"
                              "      depends_on:\n"
                              "        - image-build\n"
                              "      working_dir: /vllm-workspace/tests\n"
                              "      source_file_dependencies:\n"
                              "        - .buildkite/test_areas/t.yaml\n");
    ck_assert_str_eq(r.amd, "- group: Hardware-AMD Tests\n"
                            "  steps:\n"
                            "    - label: \"AMD: T (mi300_1)\"\n"
                            "      key: amd-t\n"
                            "      device: mi300_1\n"
                            "      parallelism: 2\n"
                            "      timeout_in_minutes: 180\n"
                            "      env:\n"
                            "        A: p\n"
                            "        B: m\n"
                            "      commands:\n"
                            "        - run\n"
                            "      depends_on:\n"
                            "        - image-build-amd\n"
                            "      working_dir: /vllm-workspace/tests\n"
                            "      source_file_dependencies:\n"
                            "        - .buildkite/test_areas/t.yaml\n"
                            "      dind: true\n");
    result_free(&r);
}
END_TEST

START_TEST(platform_filter)
{
    static const char yaml[] = "group: G\n"
                               "steps:\n"
                               "  - {label: N, commands: [a], mirror: {amd: {device: mi300_1}}}\n"
                               "  - {label: M, device: mi355_1, commands: [b]}\n";
    struct result nv = run(yaml, TA_NVIDIA), amd = run(yaml, TA_AMD);

    ck_assert_int_eq(nv.rc, 0);
    ck_assert_ptr_null(nv.amd);
    ck_assert_ptr_nonnull(strstr(nv.group, "label: N"));
    ck_assert_ptr_null(strstr(nv.group, "label: M"));
    ck_assert_int_eq(amd.rc, 0);
    /* a step on an AMD GPU goes to the AMD group, like the mirrors: N's group is empty */
    ck_assert_ptr_null(amd.group);
    ck_assert_ptr_nonnull(strstr(amd.amd, "AMD: N (mi300_1)"));
    ck_assert_ptr_nonnull(strstr(amd.amd, "AMD: M (mi355_1)"));
    result_free(&nv);
    result_free(&amd);
}
END_TEST

static const struct {
    const char *yaml, *message;
} bad[] = {
    {"group: G\nsteps:\n  - {label: a, mirror: {intel: {}}}\n", "mirror platform 'intel' is not supported (only amd)"},
    {"group: G\nsteps:\n  - {label: a, mirror: {amd: x}}\n", "mirror.amd must be a mapping of overrides"},
    {"group: G\nsteps:\n  - {label: a, mirror: {amd: {parallelism: 0}}}\n", "mirror.amd.parallelism must be an integer from 1 to 1000, or null for one job, got '0'"},
    {"group: G\nsteps:\n  - {label: a, optional: maybe}\n", "optional must be true or false, got 'maybe'"},
    {"group: G\nsteps:\n  - {label: a, source_file_dependencies: vllm/}\n", "source_file_dependencies must be a list of strings"},
    {"group: G\nsteps:\n  - {commands: [x]}\n", "a test-area step needs a label"},
    {"steps:\n  - {label: a}\n", "a test-area file needs 'group'"},
    {"group: [G]\nsteps: []\n", "group must be a string"},
};

START_TEST(bad_files)
{
    struct result r = run(bad[_i].yaml, TA_ALL);

    ck_assert_int_eq(r.rc, -1);
    ck_assert_msg(strstr(r.messages, bad[_i].message) != NULL, "%s: got [%s]", bad[_i].yaml, r.messages);
    ck_assert_ptr_null(r.group);
    result_free(&r);
}
END_TEST

/* An unknown field is a finding, as an unknown key is in every dialect: the file is
 * still read, the field dropped as the generator drops it. */
static const struct {
    const char *yaml, *message;
} typos[] = {
    {"group: G\nsteps:\n  - {label: a, commands: [x], comands: [y]}\n",
     "t.yaml:3:31: error: unknown field 'comands' in a test-area step, did you mean 'commands'? [unknown-key]"},
    {"group: G\nowner: me\nsteps:\n  - {label: a, commands: [x]}\n", "unknown top-level field 'owner' in a test-area file (group, depends_on, steps) [unknown-key]"},
    {"group: G\ngroop: H\nsteps:\n  - {label: a, commands: [x]}\n", "unknown top-level field 'groop' in a test-area file (group, depends_on, steps), did you mean 'group'?"},
    {"group: G\nsteps:\n  - {label: a, commands: [x], mirror: {amd: {queue: q}}}\n", "unknown field 'queue' in mirror.amd [unknown-key]"},
};

START_TEST(typo_fields)
{
    struct result r = run(typos[_i].yaml, TA_ALL);

    ck_assert_int_eq(r.rc, 0);
    ck_assert_msg(strstr(r.messages, typos[_i].message) != NULL, "%s: got [%s]", typos[_i].yaml, r.messages);
    ck_assert_ptr_nonnull(r.group);
    result_free(&r);
}
END_TEST

/* Labels and the keys ci-infra's own tests expect of _generate_step_key (test_step.py,
 * test_amd_mirror.py @4fa2abcf) or the function gives when run. */
static const struct {
    const char *label, *key;
} derived[] = {
    {":nvidia: (H200) Rust Frontend OpenAI Coverage", "-nvidia--h200-rust-frontend-openai-coverage"},
    {":nvidia: (H200) Rust Frontend Tool Use", "-nvidia--h200-rust-frontend-tool-use"},
    {"Multi-Modal Models (Standard) 3: llava + qwen2_vl", "multi-modal-models-standard-3--llava---qwen2_vl"},
    {"Kernels Attention Test %N", "kernels-attention-test-n"},
    {":amd: (MI355) LoRA Test", "-amd--mi355-lora-test"},
    {"a/b.c,d", "a-b-c-d"},
};

START_TEST(derived_keys)
{
    size_t len;
    char *key = testarea_derived_key(derived[_i].label, strlen(derived[_i].label), &len);

    ck_assert_str_eq(key, derived[_i].key);
    ck_assert_uint_eq(len, strlen(derived[_i].key));
    free(key);
}
END_TEST

/* amd.py AMD_DEVICE_CONFIGS: 16 exact names; amd_cpu and look-alikes are not AMD GPUs. */
START_TEST(amd_gpu_devices)
{
    static const char *const yes[] = {"mi250_1", "mi300_2", "mi325_4", "mi355_8"};
    static const char *const no[] = {"mi300_3", "mi300", "amd_cpu", "MI300_1", "mi300_10", "mi100_1", ""};

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        ck_assert_msg(testarea_amd_gpu_device(yes[i], strlen(yes[i])), "%s", yes[i]);
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        ck_assert_msg(!testarea_amd_gpu_device(no[i], strlen(no[i])), "%s", no[i]);
}
END_TEST

/* A definition's properties in schemas/testarea.json. */
static const struct ynode *schema_properties(const char *def)
{
    return ynode_get(ynode_get(ynode_get(bundled_schema("testarea"), "definitions"), def), "properties");
}

/* The type a property's value is written as: its own `type`, else its definition's; of a
 * list of types, the first (the others are the spellings vLLM's generator reads as it, and
 * null where the model's field is Optional). */
static const char *schema_type(const struct ynode *prop)
{
    const char *ref = ynode_scalar(ynode_get(prop, "$ref"), NULL);
    const struct ynode *type;

    if (ref && !strncmp(ref, "#/definitions/", 14))
        prop = ynode_get(ynode_get(bundled_schema("testarea"), "definitions"), ref + 14);
    type = ynode_get(prop, "type");
    return ynode_scalar(ynode_is_seq(type) ? ynode_item(type, 0) : type, NULL);
}

/* The C field tables and schemas/testarea.json name the same fields with the same types:
 * one source of truth, checked both ways. */
static void tables_match(const struct ta_field_info *fields, const char *def)
{
    const struct ynode *props = schema_properties(def);
    size_t n = 0;

    ck_assert_ptr_nonnull(props);
    for (; fields[n].name; n++) {
        const struct ynode *prop = ynode_get(props, fields[n].name);

        ck_assert_msg(prop != NULL, "%s: '%s' is not in schemas/testarea.json", def, fields[n].name);
        if (fields[n].type)
            ck_assert_msg(schema_type(prop) && !strcmp(schema_type(prop), fields[n].type),
                          "%s.%s: the schema says %s, the C table %s", def, fields[n].name,
                          schema_type(prop) ? schema_type(prop) : "several types", fields[n].type);
    }
    ck_assert_msg(ynode_len(props) == n, "%s: the schema has %zu fields, the C table %zu", def,
                  ynode_len(props), n);
}

START_TEST(fields_match_schema)
{
    tables_match(testarea_step_fields(), "step");
    tables_match(testarea_mirror_fields(), "amdMirror");
}
END_TEST

Suite *testarea_suite(void)
{
    Suite *s = suite_create("testarea");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, mirror_rules);
    tcase_add_test(tc, fields_match_schema);
    tcase_add_loop_test(tc, derived_keys, 0, sizeof(derived) / sizeof(derived[0]));
    tcase_add_test(tc, amd_gpu_devices);
    tcase_add_test(tc, platform_filter);
    tcase_add_test(tc, not_run_hook);
    tcase_add_loop_test(tc, bad_files, 0, sizeof(bad) / sizeof(bad[0]));
    tcase_add_loop_test(tc, typo_fields, 0, sizeof(typos) / sizeof(typos[0]));
    suite_add_tcase(s, tc);
    return s;
}
