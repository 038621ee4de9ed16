/* pipediff: the moves (longest increasing subsequence), renames, the entry codec's round
 * trip, and what the dialects' diff tables decide (defaults, shard variables, own items,
 * a derived job named by its parent). */
#define _GNU_SOURCE /* fopencookie, open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff/pipediff_internal.h"
#include "fanout/emit.h"
#include "fanout/strhash.h"
#include "unit.h"

/* ---- findings ---- */

/* Findings tied on everything a reader orders by keep the order they were made in (their
 * spool offset): the sort under them is not stable. */
START_TEST(test_finding_order_total)
{
    struct finding_rec first = {0, 1, 2, 3, 4, 10, 100}, later = first;

    later.off = 200;
    ck_assert_int_lt(pd_finding_cmp(&first, &later), 0);
    ck_assert_int_gt(pd_finding_cmp(&later, &first), 0);
    ck_assert_int_eq(pd_finding_cmp(&first, &first), 0);
    later.sub = 3;
    ck_assert_int_gt(pd_finding_cmp(&first, &later), 0);
}
END_TEST

/* ---- moves ---- */

START_TEST(test_lis_tables)
{
    static const struct {
        uint32_t ranks[8];
        size_t n;
        const char *keep; /* '1' for each element kept in order */
        long len;
    } cases[] = {
        {{0}, 0, "", 0},
        {{5}, 1, "1", 1},
        {{0, 1, 2, 3}, 4, "1111", 4},
        {{0, 2, 1, 3}, 4, "1011", 3},   /* of two runs as long, the one ending lowest */
        {{1, 2, 3, 0}, 4, "1110", 3},   /* the first step moved to the end */
        {{3, 0, 1, 2}, 4, "0111", 3},   /* the last moved to the front */
        {{2, 1, 0}, 3, "001", 1},       /* reversed: all but one moved */
        {{4, 0, 5, 1, 6, 2, 7, 3}, 8, "01010101", 4},
        /* a BASE step not matched is none: the others as if it were not there */
        {{UINT32_MAX, 0, UINT32_MAX, 2, 1, UINT32_MAX, 3}, 7, "0100101", 3},
        {{UINT32_MAX, UINT32_MAX}, 2, "00", 0},
    };

    for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
        bool keep[8];
        char got[9] = "";

        ck_assert_int_eq(pd_longest_increasing(cases[c].ranks, cases[c].n, keep), cases[c].len);
        for (size_t i = 0; i < cases[c].n; i++)
            got[i] = keep[i] ? '1' : '0';
        ck_assert_msg(!strcmp(got, cases[c].keep), "case %zu: kept %s, want %s", c, got, cases[c].keep);
    }
}
END_TEST

/* ---- renames ---- */

START_TEST(test_similarity)
{
    struct field_digest a[] = {{1, 10}, {2, 20}, {3, 30}, {4, 40}, {5, 50}};
    struct field_digest b[] = {{1, 10}, {2, 20}, {3, 30}, {4, 40}, {5, 51}};
    struct field_digest c[] = {{2, 20}, {6, 60}};
    struct candidate ca = {.fields = a, .n = 5}, cb = {.fields = b, .n = 5}, cc = {.fields = c, .n = 2}, none = {0};

    ck_assert_uint_eq(pd_similarity(&ca, &ca), 100);
    ck_assert_uint_eq(pd_similarity(&ca, &cb), 80); /* 4 of 5: a rename, just */
    ck_assert_uint_ge(pd_similarity(&ca, &cb), RENAME_PERCENT);
    /* fields only one has count against: 1 alike of 6 */
    ck_assert_uint_eq(pd_similarity(&ca, &cc), 16);
    ck_assert_uint_eq(pd_similarity(&cc, &ca), 16);
    ck_assert_uint_eq(pd_similarity(&none, &none), 0);
}
END_TEST

/* ---- the codec, through a dialect's table ---- */

struct codec {
    struct side s;
    struct pd_opts pd;
    struct ynode_doc *doc;
    struct entries es;
    struct blob packed;
    uint64_t digest;
};

/* Serializes the job `yaml` as `dialect` says, and reads its entries back. */
static void codec_run(struct codec *c, const struct dialect *dialect, const char *yaml)
{
    static const cookie_io_functions_t to_json = {NULL, pd_json_write, NULL, NULL};
    FILE *spool = tmpfile();

    memset(c, 0, sizeof(*c));
    c->s.dialect = dialect;
    c->s.pd = &c->pd;
    ck_assert_ptr_nonnull(c->s.json_file = fopencookie(&c->s, "w", to_json));
    ck_assert_ptr_nonnull(c->s.json_em = emit_create(c->s.json_file, EMIT_JSON, NULL));
    ck_assert_ptr_nonnull(c->doc = doc_from(yaml));
    ck_assert_int_eq(pd_serialize(&c->s, ynode_doc_root(c->doc), &c->digest, &c->packed), 0);
    ck_assert_ptr_nonnull(spool);
    ck_assert_uint_eq(fwrite(c->packed.buf, 1, c->packed.len, spool), c->packed.len);
    ck_assert_int_eq(fflush(spool), 0);
    c->s.spool = spool;
    ck_assert_int_eq(pd_entries_read(&c->s, 0, (uint32_t)c->packed.len, &c->es), 0);
    c->s.spool = NULL;
    fclose(spool);
}

static void codec_free(struct codec *c)
{
    pd_entries_free(&c->es);
    emit_destroy(c->s.json_em);
    fclose(c->s.json_file);
    free(c->s.blob.buf);
    free(c->packed.buf);
    free(c->s.window);
    free(c->s.json.buf);
    ynode_doc_destroy(c->doc);
}

/* The value (as shown, and as JSON when `json` is set) of the entry `type` `name`. */
static void expect_entry(const struct codec *c, enum entry_type type, const char *name, const char *value,
                         const char *json)
{
    const struct entry *e = pd_entry_find(&c->es, type, name);

    ck_assert_msg(e != NULL, "no entry %d %s", type, name);
    ck_assert_str_eq(e->value, value);
    if (json)
        ck_assert_str_eq(e->json, json);
}

START_TEST(test_codec_round_trip)
{
    struct codec c;

    codec_run(&c, &dialect_buildkite,
              "{key: a, label: \"Unit\", soft_fail: false, command: [make, \"make test\"], "
              "env: {A: '1', BUILDKITE_PARALLEL_JOB: '0', BUILDKITE_PARALLEL_JOB_COUNT: '2'}, agents: {queue: big}}");
    expect_entry(&c, E_FIELD, "key", "a", "\"a\"");
    expect_entry(&c, E_FIELD, "label", "Unit", "\"Unit\"");
    expect_entry(&c, E_QUIET, "soft_fail", "false", "false"); /* at its default: kept, not compared */
    ck_assert_ptr_null(pd_entry_find(&c.es, E_FIELD, "soft_fail"));
    expect_entry(&c, E_FIELD, "command", "[make, make test]", "[\"make\", \"make test\"]");
    expect_entry(&c, E_FIELD, "agents", "{queue: big}", NULL);
    expect_entry(&c, E_ENV, "A", "\"1\"", "\"1\"");
    /* the shard variables show up as a re-sharding, not as an env change */
    ck_assert_ptr_null(pd_entry_find(&c.es, E_ENV, "BUILDKITE_PARALLEL_JOB"));
    ck_assert_ptr_null(pd_entry_find(&c.es, E_ENV, "BUILDKITE_PARALLEL_JOB_COUNT"));
    /* what it runs, a command a line, named as the table says */
    ck_assert_uint_eq(c.es.n, 9);
    ck_assert_int_eq(c.es.v[4].type, E_COMMAND);
    ck_assert_str_eq(c.es.v[4].name, "command");
    ck_assert_str_eq(c.es.v[4].value, "make");
    ck_assert_str_eq(c.es.v[5].value, "make test");
    codec_free(&c);
}
END_TEST

/* The job is spooled packed and made into entries when read back: positions (a literal
 * block's first line too), styles and a null survive; a packed job cut short is an error,
 * not entries made up. */
START_TEST(test_codec_packed)
{
    struct codec c;
    struct entries cut;
    FILE *spool;
    const struct entry *e;

    codec_run(&c, &dialect_buildkite,
              "key: a\nlabel: 'Unit'\ncommand: |\n  make\n  make test\nsoft_fail:\nenv:\n  A: \"1\"\n");
    ck_assert_ptr_nonnull(e = pd_entry_find(&c.es, E_FIELD, "command"));
    ck_assert_uint_eq(e->line, 3);
    ck_assert_uint_eq(e->body, 4); /* the block's lines are the value's, from line 4 on */
    ck_assert_str_eq(e->json, "\"make\\nmake test\\n\"");
    ck_assert_ptr_nonnull(e = pd_entry_find(&c.es, E_FIELD, "soft_fail"));
    ck_assert_str_eq(e->json, "null");
    ck_assert_uint_eq(e->line, 6);
    expect_entry(&c, E_FIELD, "label", "Unit", "\"Unit\"");
    expect_entry(&c, E_ENV, "A", "\"1\"", "\"1\"");
    /* packed again after the first packing (a spool's jobs follow one another), one byte
     * short */
    ck_assert_int_eq(pd_serialize(&c.s, ynode_doc_root(c.doc), &c.digest, &c.packed), 0);
    ck_assert_uint_eq(c.packed.len % 2, 0);
    ck_assert_ptr_nonnull(spool = tmpfile());
    ck_assert_uint_eq(fwrite(c.packed.buf, 1, c.packed.len - 1, spool), c.packed.len - 1);
    ck_assert_int_eq(fflush(spool), 0);
    c.s.spool = spool;
    c.s.window_len = 0; /* what was read of the other spool */
    ck_assert_int_eq(pd_entries_read(&c.s, c.packed.len / 2, (uint32_t)c.packed.len / 2 - 1, &cut), -1);
    ck_assert_int_eq(memcmp(c.packed.buf, c.packed.buf + c.packed.len / 2, c.packed.len / 2), 0);
    pd_entries_free(&cut);
    c.s.spool = NULL;
    fclose(spool);
    codec_free(&c);
}
END_TEST

/* The digest of the job `yaml` as `dialect` compares it. */
static uint64_t digest_of(const struct dialect *dialect, const char *yaml)
{
    struct codec c;
    uint64_t h;

    codec_run(&c, dialect, yaml);
    h = c.digest;
    codec_free(&c);
    return h;
}

/* A side's spool read back through its window: nothing, within it, past it, longer than
 * it, and past the end. */
START_TEST(test_spool_read)
{
    struct side s;
    static char text[3 * SPOOL_CHUNK], buf[2 * SPOOL_CHUNK];

    memset(&s, 0, sizeof(s));
    for (size_t i = 0; i < sizeof(text); i++)
        text[i] = (char)(i * 7 % 251);
    ck_assert_ptr_nonnull(s.spool = tmpfile());
    ck_assert_uint_eq(fwrite(text, 1, sizeof(text), s.spool), sizeof(text));
    ck_assert_int_eq(fflush(s.spool), 0);
    ck_assert_int_eq(pd_spool_read(&s, 0, buf, 0), 0); /* nothing, before any window */
    ck_assert_int_eq(pd_spool_read(&s, 10, buf, 100), 0);
    ck_assert_int_eq(memcmp(buf, text + 10, 100), 0);
    ck_assert_int_eq(pd_spool_read(&s, 200, buf, 50), 0); /* from the window */
    ck_assert_int_eq(memcmp(buf, text + 200, 50), 0);
    ck_assert_int_eq(pd_spool_read(&s, SPOOL_CHUNK, buf, 30), 0); /* past it */
    ck_assert_int_eq(memcmp(buf, text + SPOOL_CHUNK, 30), 0);
    ck_assert_int_eq(pd_spool_read(&s, 5, buf, sizeof(buf)), 0); /* longer than it */
    ck_assert_int_eq(memcmp(buf, text + 5, sizeof(buf)), 0);
    ck_assert_int_eq(pd_spool_read(&s, sizeof(text) - 10, buf, 20), -1);
    ck_assert_int_eq(pd_spool_read(&s, sizeof(text) - 10, buf, 10), 0);
    ck_assert_int_eq(memcmp(buf, text + sizeof(text) - 10, 10), 0);
    fclose(s.spool);
    free(s.window);
}
END_TEST

START_TEST(test_codec_digest)
{
    uint64_t plain = digest_of(&dialect_buildkite, "{key: a, label: L, command: make}");

    /* the identity, a default and the shard variables do not count; a value does (a
     * field's place counts too: a rendering writes its fields in one order) */
    ck_assert_uint_eq(digest_of(&dialect_buildkite, "{key: other, label: L, command: make}"), plain);
    ck_assert_uint_eq(digest_of(&dialect_buildkite, "{key: a, label: L, command: make, soft_fail: false}"), plain);
    ck_assert_uint_eq(digest_of(&dialect_buildkite, "{label: L, command: make, env: {BUILDKITE_PARALLEL_JOB: '3'}}"),
                      digest_of(&dialect_buildkite, "{label: L, command: make, env: {}}"));
    ck_assert_uint_ne(digest_of(&dialect_buildkite, "{key: a, label: L, command: make all}"), plain);
    ck_assert_uint_ne(digest_of(&dialect_buildkite, "{key: a, label: L, command: make, soft_fail: true}"), plain);
    /* a quoted "false" is a string, not the default */
    ck_assert_uint_ne(digest_of(&dialect_buildkite, "{key: a, label: L, command: make, soft_fail: \"false\"}"),
                      plain);
    /* GitHub's defaults are its own: soft_fail is no field of a workflow job */
    ck_assert_uint_eq(digest_of(&dialect_gha, "{name: L, continue-on-error: false}"),
                      digest_of(&dialect_gha, "{name: L}"));
    ck_assert_uint_ne(digest_of(&dialect_gha, "{name: L, soft_fail: false}"), digest_of(&dialect_gha, "{name: L}"));
    ck_assert_uint_ne(digest_of(&dialect_buildkite, "{label: L, continue-on-error: false}"),
                      digest_of(&dialect_buildkite, "{label: L}"));
}
END_TEST

START_TEST(test_codec_items)
{
    struct codec c;

    codec_run(&c, &dialect_gha,
              "{name: Test, runs-on: x, steps: [{name: Build, run: \"make\\nmake check\"}, {uses: actions/checkout@v4},"
              " {run: echo}, {name: Build, run: again}]}");
    /* each step by its name (quoted), else its action or script, a repeat numbered */
    expect_entry(&c, E_SUB, "\"Build\"", "{name: Build, run: \"make\\nmake check\"}", NULL);
    expect_entry(&c, E_SUB, "actions/checkout@v4", "{uses: actions/checkout@v4}", NULL);
    expect_entry(&c, E_SUB, "echo", "{run: echo}", NULL);
    expect_entry(&c, E_SUB, "\"Build\" #2", "{name: Build, run: again}", NULL);
    expect_entry(&c, E_SUBFIELD, "\"Build\"\x1frun", "make\nmake check", "\"make\\nmake check\"");
    expect_entry(&c, E_COMMAND, "run", "make ...", NULL);
    expect_entry(&c, E_COMMAND, "uses", "actions/checkout@v4", NULL);
    codec_free(&c);
    /* Buildkite steps have no own items: `steps` is a field like another */
    codec_run(&c, &dialect_buildkite, "{label: L, steps: [{run: x}]}");
    ck_assert_ptr_null(pd_entry_find(&c.es, E_SUB, "x"));
    expect_entry(&c, E_FIELD, "steps", "[{run: x}]", NULL);
    codec_free(&c);
}
END_TEST

/* ---- derived jobs ---- */

START_TEST(test_derived_parent)
{
    const struct dialect_derived *mirror = dialect_testarea.diff->derived;

    ck_assert_ptr_nonnull(mirror);
    ck_assert_ptr_eq(dialect_buildkite.diff->derived, mirror); /* a test-area rendering read back */
    ck_assert_ptr_null(dialect_gha.diff->derived);
    ck_assert_str_eq(pd_parent_of(mirror, "amd-pooling"), "pooling");
    ck_assert_ptr_null(pd_parent_of(mirror, "pooling"));
    ck_assert_ptr_null(pd_parent_of(NULL, "amd-pooling"));
}
END_TEST

/* Writes `text` to `path`. */
static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* fanout diff base/p.yml head/p.yml, written from `base` and `head` in a directory of
 * their own: its text output. */
static char *diff_text(const char *base, const char *head)
{
    char dir[] = "/tmp/fanout-pipediff-XXXXXX", cwd[4096], *text = NULL;
    size_t len;
    FILE *out = open_memstream(&text, &len), *err = fopen("/dev/null", "w");
    struct render_opts opts = {0};
    struct pd_opts pd = {.format = PD_TEXT};
    struct diag *d = diag_create(err, DIAG_TEXT);

    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chdir(dir), 0);
    ck_assert_int_eq(mkdir("base", 0700), 0);
    ck_assert_int_eq(mkdir("head", 0700), 0);
    write_file("base/p.yml", base);
    write_file("head/p.yml", head);
    pipediff_run("base/p.yml", "head/p.yml", &opts, &opts, &pd, out, d);
    fclose(out);
    diag_destroy(d);
    fclose(err);
    unlink("base/p.yml");
    unlink("head/p.yml");
    rmdir("base");
    rmdir("head");
    ck_assert_int_eq(chdir(cwd), 0);
    rmdir(dir);
    return text;
}

START_TEST(test_mirror_by_parent)
{
    /* a rendered pipeline: the mirror's shards, named after its parent, read as the
     * mirror's fan-out of the parent */
    static const char base[] = "steps:\n"
                               "  - {key: pool, label: Pool, command: t}\n"
                               "  - {key: amd-pool, label: AMD Pool, command: t, parallelism: 4}\n";
    static const char head[] = "steps:\n"
                               "  - {key: pool, label: Pool, command: t}\n"
                               "  - {key: amd-pool, label: AMD Pool, command: t, parallelism: 2}\n";
    char *text = diff_text(base, head);

    ck_assert_msg(!strncmp(text, "pool [head/p.yml:3 \"AMD Pool\"]: mirror amd: 4 -> 2 (shards 2-3 removed)\n", 71),
                  "%s", text);
    free(text);
    /* no parent: the fan-out is its own */
    text = diff_text("steps:\n  - {key: amd-pool, command: t, parallelism: 4}\n",
                     "steps:\n  - {key: amd-pool, command: t, parallelism: 2}\n");
    ck_assert_msg(strstr(text, "amd-pool [head/p.yml:2]: parallelism 4 -> 2 (shards 2-3 removed)"), "%s", text);
    free(text);
}
END_TEST

START_TEST(test_rename_through_table)
{
    /* the identity and the labels are what a rename changes: the rest is alike */
    char *text = diff_text("steps:\n  - {key: a, label: A, command: make test, agents: {queue: q}}\n",
                           "steps:\n  - {key: b, label: B, command: make test, agents: {queue: q}}\n");

    ck_assert_msg(!strncmp(text, "~ a -> b [head/p.yml:2 \"B\"]: renamed\n", 36), "%s", text);
    ck_assert_msg(strstr(text, "0 added, 0 removed, 1 renamed"), "%s", text);
    free(text);
}
END_TEST

/* A long value is shown around its first difference, from a word's start near 40
 * characters before it; short ones whole. */
START_TEST(test_window)
{
    char a[400], b[400], *w;
    bool cut;

    w = pd_window("make test", "make all", &cut);
    ck_assert_str_eq(w, "make test");
    ck_assert(!cut);
    free(w);
    memset(a, 'x', 300);
    strcpy(a + 300, " --size 12 --id 3");
    strcpy(b, a);
    b[308] = '3';
    w = pd_window(a, b, &cut);
    ck_assert(cut);
    ck_assert_str_eq(w, "...xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx --size 12 --id 3");
    free(w);
    /* no word's start near: from 40 characters before it, mid-word, to 40 after it */
    memset(a, 'y', 250);
    strcpy(b, a);
    b[200] = 'z';
    w = pd_window(b, a, &cut);
    ck_assert_uint_eq(strlen(w), 3 + 81 + 3);
    ck_assert(!strncmp(w, "...yyyy", 7) && w[3 + 40] == 'z' && !strcmp(w + 84, "..."));
    free(w);
}
END_TEST

/* The three forms of a changed value, from the values' JSON. */
START_TEST(test_value_forms)
{
    struct pd_value a = {"[a, b, c]", "[\"a\", \"b\", \"c\"]", false, false},
                    b = {"[a, c, d]", "[\"a\", \"c\", \"d\"]", false, false};
    struct pd_value s1 = {"\"x\\ny\\nz\\n\"", "\"x\\ny\\nz\\n\"", false, false},
                    s2 = {"\"x\\nY\\nz\\n\"", "\"x\\nY\\nz\\n\"", false, false};
    struct change ch;

    ck_assert_int_eq(pd_value_change(&ch, "needs", false, &a, &b), 0);
    ck_assert_str_eq(ch.detail, "needs: + d, - b");
    ck_assert_str_eq(ch.items_json, "\"items\": {\"added\": [\"d\"], \"removed\": [\"b\"]}");
    ck_assert_ptr_null(ch.hunks);
    pd_change_free(&ch);
    /* a command list is lines, not a set */
    ck_assert_int_eq(pd_value_change(&ch, "commands", true, &a, &b), 0);
    ck_assert_str_eq(ch.detail, "commands: 1 line removed, 1 added");
    ck_assert_str_eq(ch.hunks, "@@ -1,3 +1,3 @@\n a\n-b\n c\n+d");
    pd_change_free(&ch);
    ck_assert_int_eq(pd_value_change(&ch, "run", false, &s1, &s2), 0);
    ck_assert_str_eq(ch.detail, "run: 1 line removed, 1 added");
    ck_assert_str_eq(ch.hunks, "@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z");
    pd_change_free(&ch);
    /* reordered: no item added or removed, the values */
    b.shown = "[c, b, a]";
    b.json = "[\"c\", \"b\", \"a\"]";
    ck_assert_int_eq(pd_value_change(&ch, "needs", false, &a, &b), 0);
    ck_assert_str_eq(ch.detail, "needs: [a, b, c] -> [c, b, a]");
    pd_change_free(&ch);
}
END_TEST

/* A list of mappings of scalars (Buildkite's `depends_on: [{step: KEY, allow_failure:
 * true}]`) reads as items too, each mapping one; a nested one is a value. */
START_TEST(test_value_mapping_items)
{
    struct pd_value a = {"[{step: build}, lint]", "[{\"step\": \"build\"}, \"lint\"]", false, false},
                    b = {"[{step: build}, {step: unit, allow_failure: true}, lint]",
                         "[{\"step\": \"build\"}, {\"step\": \"unit\", \"allow_failure\": true}, \"lint\"]", false,
                         false},
                    n = {"[{a: {b: 1}}]", "[{\"a\": {\"b\": 1}}]", false, false};
    struct change ch;

    ck_assert_int_eq(pd_value_change(&ch, "depends_on", false, &a, &b), 0);
    ck_assert_str_eq(ch.detail, "depends_on: + {step: unit, allow_failure: true}");
    ck_assert_str_eq(ch.items_json,
                     "\"items\": {\"added\": [{\"step\": \"unit\", \"allow_failure\": true}], \"removed\": []}");
    pd_change_free(&ch);
    ck_assert_int_eq(pd_value_change(&ch, "plugins", false, &a, &n), 0);
    ck_assert_ptr_null(ch.items_json);
    pd_change_free(&ch);
}
END_TEST

/* A skip that passes over the items beginning with "build-": a list whose other items
 * agree is no change (1), and the others read as before. */
static bool skip_build(void *user, const struct ynode *a, const struct ynode *b, const struct ynode *item,
                       unsigned side)
{
    (void)user, (void)a, (void)b, (void)side;
    return !strncmp(ynode_scalar(item, NULL), "build-", 6);
}

START_TEST(test_value_skip)
{
    struct pd_value a = {"[build-0, build-1, lint]", "[\"build-0\", \"build-1\", \"lint\"]", false, false},
                    b = {"[build-0, build-1, build-2, lint]", "[\"build-0\", \"build-1\", \"build-2\", \"lint\"]",
                         false, false},
                    c = {"[build-0, unit]", "[\"build-0\", \"unit\"]", false, false};
    struct pd_skip skip = {skip_build, NULL};
    struct change ch;

    ck_assert_int_eq(pd_value_change_skip(&ch, "depends_on", false, &a, &b, &skip), 1);
    ck_assert_ptr_null(ch.detail);
    ck_assert_int_eq(pd_value_change_skip(&ch, "depends_on", false, &a, &c, &skip), 0);
    ck_assert_str_eq(ch.detail, "depends_on: + unit, - lint");
    pd_change_free(&ch);
    ck_assert_int_eq(pd_value_change_skip(&ch, "depends_on", false, &a, &b, NULL), 0);
    ck_assert_str_eq(ch.detail, "depends_on: + build-2");
    pd_change_free(&ch);
}
END_TEST

/* A vector added: each BASE configuration with the HEAD ones that extend it; removed:
 * the other way; none: nothing paired. */
START_TEST(test_match_vectors)
{
    char *b0[] = {"os=linux\x1e", "os=mac\x1e"};
    char *h0[] = {"os=linux\x1esize=1\x1e", "os=linux\x1esize=4\x1e", "os=mac\x1esize=1\x1e",
                  "os=mac\x1esize=4\x1e", "os=win\x1esize=1\x1e"};
    char **rows[2] = {b0, h0};
    unsigned n[2] = {2, 5}, pairs[6][2], matched;
    bool eb[2] = {true, true}, eh[5] = {true, true, true, true, true}, *extra[2] = {eb, eh};
    char *phrase = NULL;

    ck_assert_int_eq(pd_match_vectors(rows, n, extra, pairs, &matched, &phrase), 1);
    ck_assert_str_eq(phrase, "vector size added (2 values)");
    ck_assert_uint_eq(matched, 4);
    ck_assert_uint_eq(pairs[1][0], 0);
    ck_assert_uint_eq(pairs[1][1], 1);
    ck_assert_uint_eq(pairs[3][0], 1);
    ck_assert(!eb[0] && !eb[1] && !eh[3] && eh[4]); /* os=win extends none */
    free(phrase);
    /* removed: HEAD's configurations each with the first BASE one; all BASE's explained */
    rows[0] = h0;
    rows[1] = b0;
    n[0] = 4;
    n[1] = 2;
    memset(eb, 1, sizeof(eb));
    memset(eh, 1, sizeof(eh));
    extra[0] = eh;
    extra[1] = eb;
    ck_assert_int_eq(pd_match_vectors(rows, n, extra, pairs, &matched, &phrase), 1);
    ck_assert_str_eq(phrase, "vector size removed (2 values)");
    ck_assert_uint_eq(matched, 2);
    ck_assert(!eh[0] && !eh[1] && !eh[2] && !eh[3]);
    free(phrase);
    rows[1] = h0;
    ck_assert_int_eq(pd_match_vectors(rows, n, extra, pairs, &matched, &phrase), 0);
    ck_assert_uint_eq(matched, 0);
    free(phrase);
}
END_TEST

/* GitHub's names fold with the event a workflow's on makes clear: a pull request's run has
 * no inputs; a name that still depends on a run is none. */
START_TEST(test_label_event)
{
    const struct dialect_diff *dd = dialect_gha.diff;
    struct ynode_doc *pr = doc_from("on: {pull_request: {}, workflow_dispatch: {}}\n"),
                     *two = doc_from("on: [schedule, workflow_dispatch]\n"), *one = doc_from("on: push\n");
    const char *name = "${{ format('a ({0})', inputs.arch || (github.event_name == 'pull_request' && 'x' || 'y')) }}";
    char *note = dd->label_note(ynode_doc_root(pr)), *v;

    ck_assert_str_eq(note, "pull_request");
    v = dd->label_value(note, name, strlen(name));
    ck_assert_str_eq(v, "a (x)");
    free(v);
    free(note);
    ck_assert_ptr_null(dd->label_note(ynode_doc_root(two)));
    ck_assert_ptr_null(dd->label_value(NULL, name, strlen(name)));
    note = dd->label_note(ynode_doc_root(one));
    ck_assert_str_eq(note, "push");
    v = dd->label_value(note, name, strlen(name));
    ck_assert_str_eq(v, "a (y)");
    free(v);
    free(note);
    v = dd->label_value(NULL, "plain", 5);
    ck_assert_str_eq(v, "plain");
    free(v);
    ynode_doc_destroy(pr);
    ynode_doc_destroy(two);
    ynode_doc_destroy(one);
}
END_TEST

/* Builds are one across the sides through the files they share, named by BASE's first
 * file: BASE {a, c} {b}, HEAD {0, a} {b, c} {d} (HEAD's new 0.yml joins a's build, c
 * moves to b's, d is new) are one build named a.yml, and d.yml's own. */
START_TEST(test_builds_match)
{
    static const char *const bp[] = {"B/a.yml", "B/b.yml", "B/c.yml"}, *const hp[] = {"H/0.yml", "H/a.yml",
                                                                                      "H/b.yml", "H/c.yml", "H/d.yml"};
    static const unsigned bf[] = {0, 1, 0}, hf[] = {0, 0, 2, 2, 4};
    struct pd_builds_side side[2] = {{"B", bp, 3, bf}, {"H", hp, 5, hf}};
    struct hkey *scope[2], a, d;

    ck_assert_int_eq(pd_builds_match(side, scope), 0);
    strhash_pair("a.yml", 5, &a.h1, &a.h2);
    strhash_pair("d.yml", 5, &d.h1, &d.h2);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pd_hkey_cmp(&scope[0][i], &a), 0);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pd_hkey_cmp(&scope[1][i], &a), 0);
    ck_assert_int_eq(pd_hkey_cmp(&scope[1][4], &d), 0);
    free(scope[0]);
    free(scope[1]);
    /* HEAD one build (no split told), BASE two: BASE's b.yml is its own, HEAD's all a's */
    side[0] = (struct pd_builds_side){"B", bp, 2, (const unsigned[]){0, 1}};
    side[1] = (struct pd_builds_side){"H", hp + 1, 1, NULL};
    ck_assert_int_eq(pd_builds_match(side, scope), 0);
    ck_assert_int_eq(pd_hkey_cmp(&scope[0][0], &a), 0);
    ck_assert_int_ne(pd_hkey_cmp(&scope[0][1], &a), 0);
    ck_assert_int_eq(pd_hkey_cmp(&scope[1][0], &a), 0);
    free(scope[0]);
    free(scope[1]);
}
END_TEST

Suite *pipediff_suite(void)
{
    Suite *s = suite_create("pipediff");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_finding_order_total);
    tcase_add_test(tc, test_lis_tables);
    tcase_add_test(tc, test_builds_match);
    tcase_add_test(tc, test_similarity);
    tcase_add_test(tc, test_codec_round_trip);
    tcase_add_test(tc, test_codec_packed);
    tcase_add_test(tc, test_spool_read);
    tcase_add_test(tc, test_codec_digest);
    tcase_add_test(tc, test_codec_items);
    tcase_add_test(tc, test_value_mapping_items);
    tcase_add_test(tc, test_derived_parent);
    tcase_add_test(tc, test_mirror_by_parent);
    tcase_add_test(tc, test_rename_through_table);
    tcase_add_test(tc, test_window);
    tcase_add_test(tc, test_value_forms);
    tcase_add_test(tc, test_value_skip);
    tcase_add_test(tc, test_match_vectors);
    tcase_add_test(tc, test_label_event);
    suite_add_tcase(s, tc);
    return s;
}
