/* diag, output, inputs, strset, arrays and strbuf: the small modules around the pipeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fanout/arrays.h"
#include "fanout/diag.h"
#include "fanout/inputs.h"
#include "fanout/memo.h"
#include "fanout/output.h"
#include "fanout/strbuf.h"
#include "fanout/strhash.h"
#include "fanout/strset.h"
#include "unit.h"

static char *report_with(enum diag_format format)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct diag *d = diag_create(fp, format);

    diag_report(d, DIAG_ERROR, DIAG_FINDING, "p.yml", 3, 7, RULE_DEPENDS_ON, "bad \"%s\" 100%%", "v");
    ck_assert_int_eq(diag_exit_code(d, false), 1);
    diag_destroy(d);
    fclose(fp);
    return buf;
}

START_TEST(diag_formats)
{
    char *t = report_with(DIAG_TEXT), *g = report_with(DIAG_GITHUB), *j = report_with(DIAG_JSON);

    ck_assert_str_eq(t, "p.yml:3:7: error: bad \"v\" 100% [depends-on]\n");
    ck_assert_str_eq(g, "::error file=p.yml,line=3,col=7::bad \"v\" 100%25 [depends-on]\n");
    ck_assert_str_eq(j, "{\"file\":\"p.yml\",\"line\":3,\"col\":7,\"severity\":\"error\","
                        "\"rule\":\"depends-on\",\"message\":\"bad \\\"v\\\" 100%\"}\n");
    free(t);
    free(g);
    free(j);
}
END_TEST

/* SARIF: one log, whatever the diags: a held finding is written when flushed (its rule
 * named then), dropped with its diag otherwise; a message about no file is a
 * notification; the log ends whole with the exit code. */
START_TEST(diag_sarif_log)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct diag *d = diag_create(fp, DIAG_SARIF), *held = diag_create_buffered_like(d),
                *dropped = diag_create_buffered_like(d);

    diag_sarif_driver("9.9", NULL);
    diag_report(dropped, DIAG_ERROR, DIAG_FINDING, "p.yml", 1, 1, RULE_KEY_COLLISION, "never said");
    diag_destroy(dropped);
    diag_report(held, DIAG_WARNING, DIAG_FINDING, "dir/a b.yml", 0, 0, RULE_KW_REQUIRED, "held");
    diag_report(d, DIAG_ERROR, DIAG_INPUT, "p.yml", 3, 7, RULE_YAML, "bad \"%s\"\n", "v");
    diag_flush_into(held, d);
    diag_report(d, DIAG_NOTE, DIAG_FINDING, "<stdin>", 2, 1, RULE_INTERPOLATION, "kept");
    ck_assert_int_eq(diag_exit_code(d, false), 2);
    diag_destroy(held);
    diag_destroy(d);
    diag_sarif_end(2);
    diag_sarif_end(2); /* ended: nothing more */
    fclose(fp);
    ck_assert_str_eq(
        buf,
        "{\"$schema\":\"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json\","
        "\"version\":\"2.1.0\",\"runs\":[{\"columnKind\":\"unicodeCodePoints\",\"results\":[\n"
        "{\"ruleId\":\"yaml\",\"level\":\"error\",\"message\":{\"text\":\"bad \\\"v\\\"\\n\"},\"locations\":[{"
        "\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"p.yml\"},\"region\":{\"startLine\":3,\"startColumn\":7}}}]},\n"
        "{\"ruleId\":\"required\",\"level\":\"warning\",\"message\":{\"text\":\"held\"},\"locations\":[{"
        "\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"dir/a%20b.yml\"}}}]}\n"
        "],\"tool\":{\"driver\":{\"name\":\"fanout\",\"version\":\"9.9\",\"rules\":[\n"
        "{\"id\":\"yaml\",\"shortDescription\":{\"text\":\"input that is not YAML (or JSON)\"}},\n"
        "{\"id\":\"interpolation\",\"shortDescription\":{\"text\":\"Buildkite: upload-time interpolation that "
        "fails, or a variable not given\"}},\n"
        "{\"id\":\"required\",\"shortDescription\":{\"text\":\"a schema violation: the JSON Schema keyword "
        "required failed\"}}]}},"
        "\"invocations\":[{\"executionSuccessful\":false,\"exitCode\":2,\"toolExecutionNotifications\":[\n"
        "{\"level\":\"note\",\"message\":{\"text\":\"<stdin>:2:1: kept\"},\"associatedRule\":{\"id\":\"interpolation\"}}\n"
        "]}]}]}\n");
    free(buf);
}
END_TEST

/* diag_at names the file of a position by its number in the run's names. */
START_TEST(diag_at_position)
{
    static const char *const files[] = {"a.yml", "b.yml"};
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct diag *d = diag_create(fp, DIAG_TEXT);

    diag_at(d, DIAG_WARNING, DIAG_FINDING, files, (struct ypos){1, 3, 7}, RULE_NONE, "w %d", 1);
    diag_destroy(d);
    fclose(fp);
    ck_assert_str_eq(buf, "b.yml:3:7: warning: w 1\n");
    free(buf);
}
END_TEST

START_TEST(diag_exit_codes)
{
    struct diag *d = diag_create(stderr, DIAG_TEXT);

    diag_set_muted(d, true);
    diag_report(d, DIAG_ERROR, DIAG_INPUT, "x", 1, 1, RULE_NONE, "muted");
    ck_assert_int_eq(diag_exit_code(d, true), 0);
    diag_set_muted(d, false);
    ck_assert_int_eq(diag_exit_code(d, false), 0);
    diag_destroy(d);

    d = diag_create(fopen("/dev/null", "w"), DIAG_TEXT);
    diag_report(d, DIAG_WARNING, DIAG_FINDING, "x", 1, 1, RULE_NONE, "w");
    ck_assert_int_eq(diag_exit_code(d, false), 0);
    ck_assert_int_eq(diag_exit_code(d, true), 1);
    diag_report(d, DIAG_ERROR, DIAG_INPUT, "x", 1, 1, RULE_NONE, "e");
    ck_assert_int_eq(diag_exit_code(d, false), 2);
    diag_destroy(d);
}
END_TEST

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "r");
    static char buf[256];
    size_t n;

    ck_assert_ptr_nonnull(fp);
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

START_TEST(output_atomic)
{
    char dir[] = "/tmp/fanout-out-XXXXXX";
    char path[64];
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    struct output *o;
    struct stat sb;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/r.yml", dir);
    o = output_open(path, d);
    fputs("one\n", output_stream(o));
    ck_assert_int_eq(access(path, F_OK), -1); /* nothing visible before commit */
    ck_assert_int_eq(output_commit(o), 0);
    ck_assert_str_eq(slurp(path), "one\n");
    chmod(path, 0600);
    o = output_open(path, d);
    fputs("two\n", output_stream(o));
    output_abort(o);
    ck_assert_str_eq(slurp(path), "one\n"); /* untouched */
    o = output_open(path, d);
    fputs("three\n", output_stream(o));
    ck_assert_int_eq(output_commit(o), 0);
    ck_assert_str_eq(slurp(path), "three\n");
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_eq(sb.st_mode & 0777, 0600); /* mode kept */
    unlink(path);
    ck_assert_int_eq(rmdir(dir), 0); /* no temporary file left */
    diag_destroy(d);
}
END_TEST

static void touch(const char *dir, const char *name)
{
    char path[128];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fclose(fp);
}

START_TEST(inputs_walk)
{
    char dir[] = "/tmp/fanout-in-XXXXXX";
    static const char *const made[] = {"b.yaml", "a.yml", "z.txt", ".hidden.yaml", "m/c.yaml",
                                       "m/e", "m"};
    char sub[64], empty[64], path[128];
    FILE *devnull = fopen("/dev/null", "w");
    struct diag *d = diag_create(devnull, DIAG_TEXT);
    struct inputs in;
    const char *args[2];

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(sub, sizeof(sub), "%s/m", dir);
    mkdir(sub, 0755);
    touch(dir, "b.yaml");
    touch(dir, "a.yml");
    touch(dir, "z.txt");
    touch(dir, ".hidden.yaml");
    touch(sub, "c.yaml");
    args[0] = dir;
    args[1] = "-";
    ck_assert_int_eq(inputs_expand(args, 2, d, &in), 0);
    ck_assert_uint_eq(in.n, 4);
    ck_assert_ptr_nonnull(strstr(in.paths[0], "/a.yml"));
    ck_assert_ptr_nonnull(strstr(in.paths[1], "/b.yaml"));
    ck_assert_ptr_nonnull(strstr(in.paths[2], "/m/c.yaml"));
    ck_assert_str_eq(in.paths[3], "-");
    inputs_free(&in);
    snprintf(empty, sizeof(empty), "%s/m/e", dir);
    mkdir(empty, 0755);
    args[0] = empty;
    ck_assert_int_eq(inputs_expand(args, 1, d, &in), -1);
    ck_assert_int_eq(diag_exit_code(d, false), 2);
    diag_destroy(d);
    fclose(devnull);
    for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, made[i]);
        ck_assert_int_eq(remove(path), 0);
    }
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* The published FNV-1a 64-bit test vectors. */
START_TEST(strhash_vectors)
{
    ck_assert_uint_eq(strhash_fnv1a("", 0), 0xcbf29ce484222325ull);
    ck_assert_uint_eq(strhash_fnv1a("a", 1), 0xaf63dc4c8601ec8cull);
    ck_assert_uint_eq(strhash_fnv1a("foobar", 6), 0x85944171f73967e8ull);
}
END_TEST

/* A table's word hash: the same for a key wherever it lies, other for any one byte
 * changed at any place (a full word's or the last short one's), and for each length. */
START_TEST(strhash_words_keys)
{
    char buf[40], key[] = "scoped\x1fjob-name-19";
    size_t len = sizeof(key) - 1;
    uint64_t h = strhash_words(key, len);

    for (size_t at = 0; at < 8; at++) {
        memcpy(buf + at, key, len);
        ck_assert_uint_eq(strhash_words(buf + at, len), h);
    }
    for (size_t i = 0; i < len; i++) {
        for (unsigned c = 0; c < 256; c++) {
            memcpy(buf, key, len);
            buf[i] = (char)c;
            if (c != (unsigned char)key[i])
                ck_assert_uint_ne(strhash_words(buf, len), h);
        }
        ck_assert_uint_ne(strhash_words(key, i), h);
    }
    memset(buf, 0, sizeof(buf)); /* a zero byte is not the zero fill of a short word */
    ck_assert_uint_ne(strhash_words(buf, 3), strhash_words(buf, 4));
}
END_TEST

/* The stream digest does not depend on how the bytes are cut into pieces. */
START_TEST(strhash_stream_cuts)
{
    char text[100];
    struct strhash_stream whole, cut;

    for (int i = 0; i < 100; i++)
        text[i] = (char)(i * 7 + 3);
    strhash_stream_init(&whole);
    strhash_stream_add(&whole, text, sizeof(text));
    /* the value the word-at-a-time loop gave before it kept its state in locals */
    ck_assert_uint_eq(strhash_stream_digest(&whole), 0xda42e769bc20a25full);
    for (size_t step = 1; step < 20; step++) {
        strhash_stream_init(&cut);
        for (size_t o = 0; o < sizeof(text); o += step)
            strhash_stream_add(&cut, text + o, o + step <= sizeof(text) ? step : sizeof(text) - o);
        ck_assert_uint_eq(strhash_stream_digest(&cut), strhash_stream_digest(&whole));
    }
    strhash_stream_add(&whole, "", 0);
    ck_assert_uint_eq(strhash_stream_digest(&cut), strhash_stream_digest(&whole));
}
END_TEST

START_TEST(strset_basics)
{
    struct strset *s = strset_create();

    ck_assert_int_eq(strset_add(s, "a", 1), 0);
    ck_assert_int_eq(strset_add(s, "ab", 2), 0);
    ck_assert_int_eq(strset_add(s, "a", 1), 1);
    for (int i = 0; i < 100; i++) {
        char k[8];
        int n = snprintf(k, sizeof(k), "k%d", i);

        ck_assert_int_eq(strset_add(s, k, (size_t)n), 0);
    }
    ck_assert_int_eq(strset_add(s, "k7", 2), 1);
    ck_assert(strset_has(s, "k99", 3));
    ck_assert(!strset_has(s, "k100", 4));
    ck_assert_uint_eq(strset_count(s), 102);
    ck_assert_str_eq(strset_items(s)[2], "k0");
    strset_clear(s);
    ck_assert(!strset_has(s, "k7", 2));
    ck_assert_int_eq(strset_add(s, "a", 1), 0);
    strset_destroy(s);
}
END_TEST

/* A mapping of jobs may have 20,000 keys, each checked against the others: 300,000
 * strings take a blink hashed, and minutes (past the test's timeout) by a scan. */
START_TEST(strset_many)
{
    struct strset *s = strset_create();
    char k[16];

    for (int i = 0; i < 300000; i++) {
        int n = snprintf(k, sizeof(k), "job-%d", i);

        /* not ck_assert: in fork mode each passing one writes to Check's pipe */
        if (strset_add(s, k, (size_t)n) != 0)
            ck_abort_msg("%s refused", k);
    }
    for (int i = 0; i < 300000; i += 997) {
        int n = snprintf(k, sizeof(k), "job-%d", i);

        ck_assert_int_eq(strset_add(s, k, (size_t)n), 1);
    }
    ck_assert(!strset_has(s, "job-300000", 10));
    ck_assert_str_eq(strset_items(s)[299999], "job-299999");
    strset_destroy(s);
}
END_TEST

/* Kept by address and tag, empty bytes too; kept through the table's growth; forgotten
 * at a reset (a new address may be an old one's); nothing kept past the bound. */
START_TEST(memo_by_address)
{
    struct memo *m = memo_create(64);
    int nodes[600];
    const void *data;
    size_t len;

    memo_keep(m, &nodes[0], 1, "", 0); /* before any bytes: still found at a pointer */
    ck_assert(memo_find(m, &nodes[0], 1, &data, &len) && data != NULL && len == 0);
    memo_keep(m, &nodes[0], 0, "abc", 3);
    ck_assert(memo_find(m, &nodes[0], 0, &data, &len));
    ck_assert_uint_eq(len, 3);
    ck_assert(!memcmp(data, "abc", 3));
    ck_assert(memo_find(m, &nodes[0], 1, &data, &len));
    ck_assert_uint_eq(len, 0);
    ck_assert(!memo_find(m, &nodes[0], 2, &data, &len));
    ck_assert(!memo_find(m, &nodes[1], 0, &data, &len));
    for (int i = 1; i < 600; i++) /* past 256 slots, at most half full: grown twice */
        memo_keep(m, &nodes[i], 0, "", 0);
    ck_assert(memo_find(m, &nodes[0], 0, &data, &len) && len == 3 && !memcmp(data, "abc", 3));
    ck_assert(memo_find(m, &nodes[599], 0, &data, &len) && len == 0);
    memo_keep(m, &nodes[1], 1, "01234567890123456789012345678901234567890123456789012345678901", 62);
    ck_assert(!memo_find(m, &nodes[1], 1, &data, &len)); /* 3 + 62 bytes: past 64 */
    memo_keep(m, &nodes[1], 1, "01234567890123456789012345678901234567890123456789012345678901", 61);
    ck_assert(memo_find(m, &nodes[1], 1, &data, &len) && len == 61); /* 64: not past it */
    memo_reset(m);
    ck_assert(!memo_find(m, &nodes[0], 0, &data, &len));
    ck_assert(!memo_find(m, &nodes[599], 0, &data, &len));
    memo_keep(m, &nodes[0], 0, "xy", 2);
    ck_assert(memo_find(m, &nodes[0], 0, &data, &len) && len == 2 && !memcmp(data, "xy", 2));
    memo_destroy(m);
}
END_TEST

/* A later rule's finding at the place of an earlier rule's is dropped; elsewhere, or of
 * another rule, it is said. */
START_TEST(diag_shadowed_finding)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct diag *d = diag_create(fp, DIAG_TEXT);

    diag_shadow(d, RULE_UNKNOWN_KEY, RULE_KW_ADDITIONAL_PROPERTIES);
    diag_report(d, DIAG_ERROR, DIAG_FINDING, "p.yml", 3, 5, RULE_UNKNOWN_KEY, "unknown key 'x'");
    diag_report(d, DIAG_ERROR, DIAG_FINDING, "p.yml", 3, 5, RULE_KW_ADDITIONAL_PROPERTIES, "not allowed");
    diag_report(d, DIAG_ERROR, DIAG_FINDING, "q.yml", 3, 5, RULE_KW_ADDITIONAL_PROPERTIES, "in q");
    diag_report(d, DIAG_ERROR, DIAG_FINDING, "p.yml", 3, 5, RULE_TYPE, "a type");
    ck_assert_uint_eq(diag_errors(d), 3);
    diag_destroy(d);
    fclose(fp);
    ck_assert_str_eq(buf, "p.yml:3:5: error: unknown key 'x' [unknown-key]\n"
                          "q.yml:3:5: error: in q [additionalProperties]\n"
                          "p.yml:3:5: error: a type [type]\n");
    free(buf);
}
END_TEST

/* A run's diag writing text into memory, shadowing as cli.c sets it (a dialect's unknown
 * key over a schema's additionalProperties), and a buffered diag like it whose messages
 * are held until a flush: the held-message tests' set-up. */
struct held_run {
    char *buf;
    size_t len;
    FILE *fp;
    struct diag *d, *held;
};

static void held_run_open(struct held_run *r)
{
    r->buf = NULL;
    r->len = 0;
    r->fp = open_memstream(&r->buf, &r->len);
    r->d = diag_create(r->fp, DIAG_TEXT);
    diag_shadow(r->d, RULE_UNKNOWN_KEY, RULE_KW_ADDITIONAL_PROPERTIES);
    r->held = diag_create_buffered_like(r->d);
}

/* Ends both diags; r->buf is what the run said (the caller frees it). */
static void held_run_close(struct held_run *r)
{
    diag_destroy(r->held);
    diag_destroy(r->d);
    fclose(r->fp);
}

/* An input error of a rule at a place where one of that rule was said is the same problem
 * a second check saw (validate's schema check and render's, of one expression): said and
 * counted once, direct or held and flushed; another rule there, or another place, is said. */
START_TEST(diag_input_error_once)
{
    struct held_run r;

    held_run_open(&r);
    diag_report(r.d, DIAG_ERROR, DIAG_INPUT, "p.yml", 8, 16, RULE_EXPRESSION, "/a: not closed");
    diag_report(r.d, DIAG_ERROR, DIAG_INPUT, "p.yml", 8, 16, RULE_EXPRESSION, "The expression is not closed");
    diag_report(r.held, DIAG_ERROR, DIAG_INPUT, "p.yml", 8, 16, RULE_EXPRESSION, "held, not closed");
    diag_report(r.held, DIAG_ERROR, DIAG_INPUT, "p.yml", 9, 16, RULE_EXPRESSION, "elsewhere");
    diag_report(r.d, DIAG_ERROR, DIAG_INPUT, "p.yml", 8, 16, RULE_YAML, "another rule");
    diag_report(r.d, DIAG_ERROR, DIAG_FINDING, "p.yml", 8, 16, RULE_EXPRESSION, "a finding");
    diag_flush_into(r.held, r.d);
    ck_assert_uint_eq(diag_errors(r.d), 4);
    held_run_close(&r);
    ck_assert_str_eq(r.buf, "p.yml:8:16: error: /a: not closed [expression]\n"
                          "p.yml:8:16: error: another rule [yaml]\n"
                          "p.yml:8:16: error: a finding [expression]\n"
                          "p.yml:9:16: error: elsewhere [expression]\n");
    free(r.buf);
}
END_TEST

/* A capturing diag (diff's sides): its findings, direct or held and flushed, go to the
 * sink and are counted there, shadowed as the run's diag would; its input errors are
 * printed and counted in the run's diag. */
static char captured[256];

static void capture_finding(void *user, enum diag_severity sev, const char *file, unsigned line, unsigned col,
                            enum rule_id rule, const char *msg)
{
    (void)user;
    snprintf(captured + strlen(captured), sizeof(captured) - strlen(captured), "%d %s:%u:%u %s %s;", (int)sev,
             file, line, col, rule_name(rule), msg);
}

START_TEST(diag_capture)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct diag *d = diag_create(fp, DIAG_TEXT), *cap, *held;
    const struct diag_sink sink = {capture_finding, NULL};

    captured[0] = '\0';
    diag_shadow(d, RULE_UNKNOWN_KEY, RULE_KW_ADDITIONAL_PROPERTIES);
    cap = diag_create_capture(d, &sink);
    held = diag_create_buffered_like(cap);
    diag_report(held, DIAG_ERROR, DIAG_FINDING, "p.yml", 4, 1, RULE_KW_ENUM, "held");
    diag_report(cap, DIAG_WARNING, DIAG_FINDING, "p.yml", 2, 5, RULE_UNKNOWN_KEY, "typo");
    diag_report(cap, DIAG_ERROR, DIAG_FINDING, "p.yml", 2, 5, RULE_KW_ADDITIONAL_PROPERTIES, "shadowed");
    diag_flush_into(held, cap);
    diag_report(cap, DIAG_ERROR, DIAG_INPUT, "p.yml", 1, 1, RULE_YAML, "bad");
    ck_assert_str_eq(captured, "1 p.yml:2:5 unknown-key typo;0 p.yml:4:1 enum held;");
    ck_assert_uint_eq(diag_errors(cap), 2);
    ck_assert_uint_eq(diag_warnings(cap), 1);
    ck_assert_uint_eq(diag_errors(d), 1);
    ck_assert_uint_eq(diag_warnings(d), 0);
    ck_assert(diag_has_input_error(d));
    diag_destroy(held);
    diag_destroy(cap);
    diag_destroy(d);
    fclose(fp);
    ck_assert_str_eq(buf, "p.yml:1:1: error: bad [yaml]\n");
    free(buf);
}
END_TEST

/* Held findings (a schema's, flushed after the dialect's) are shadowed as if reported
 * then: held in either order, the schema's error at the typo's place is dropped and not
 * counted; a held warning there, and a held error elsewhere, are said. */
START_TEST(diag_shadowed_held_finding)
{
    struct held_run r;

    held_run_open(&r);
    diag_report(r.held, DIAG_ERROR, DIAG_FINDING, "p.yml", 2, 5, RULE_KW_ENUM, "must be one of");
    diag_report(r.held, DIAG_WARNING, DIAG_FINDING, "p.yml", 2, 5, RULE_KW_ENUM, "a warning");
    diag_report(r.held, DIAG_ERROR, DIAG_FINDING, "p.yml", 9, 5, RULE_KW_ENUM, "elsewhere");
    diag_report(r.d, DIAG_ERROR, DIAG_FINDING, "p.yml", 2, 5, RULE_UNKNOWN_KEY, "unknown key 'comand'");
    diag_flush_into(r.held, r.d);
    ck_assert_uint_eq(diag_errors(r.d), 2);
    ck_assert_uint_eq(diag_warnings(r.d), 1);
    held_run_close(&r);
    ck_assert_str_eq(r.buf, "p.yml:2:5: error: unknown key 'comand' [unknown-key]\n"
                          "p.yml:2:5: warning: a warning [enum]\n"
                          "p.yml:9:5: error: elsewhere [enum]\n");
    free(r.buf);
}
END_TEST

/* A covered place (a key warned once per file, seen again) shadows as a report would,
 * direct, held and flushed, or through a capturing diag, and says and counts nothing. */
START_TEST(diag_covered_place)
{
    static const char *const files[] = {"p.yml"};
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct diag *d = diag_create(fp, DIAG_TEXT), *held, *cap;
    const struct diag_sink sink = {capture_finding, NULL};

    captured[0] = '\0';
    diag_shadow(d, RULE_UNKNOWN_KEY, RULE_KW_ADDITIONAL_PROPERTIES);
    diag_cover(d, files, (struct ypos){0, 3, 5}, RULE_UNKNOWN_KEY);
    diag_report(d, DIAG_ERROR, DIAG_FINDING, "p.yml", 3, 5, RULE_KW_ADDITIONAL_PROPERTIES, "direct");
    held = diag_create_buffered_like(d);
    diag_cover(held, files, (struct ypos){0, 7, 5}, RULE_UNKNOWN_KEY);
    diag_report(held, DIAG_ERROR, DIAG_FINDING, "p.yml", 7, 5, RULE_KW_ADDITIONAL_PROPERTIES, "held");
    diag_flush_into(held, d);
    diag_report(d, DIAG_ERROR, DIAG_FINDING, "p.yml", 7, 5, RULE_KW_ADDITIONAL_PROPERTIES, "after held");
    cap = diag_create_capture(d, &sink);
    diag_cover(cap, files, (struct ypos){0, 9, 5}, RULE_UNKNOWN_KEY);
    diag_report(cap, DIAG_ERROR, DIAG_FINDING, "p.yml", 9, 5, RULE_KW_ADDITIONAL_PROPERTIES, "captured");
    diag_report(d, DIAG_ERROR, DIAG_FINDING, "p.yml", 8, 5, RULE_KW_ADDITIONAL_PROPERTIES, "uncovered");
    ck_assert_str_eq(captured, "");
    ck_assert_uint_eq(diag_errors(cap), 0);
    ck_assert_uint_eq(diag_errors(d), 1);
    ck_assert_uint_eq(diag_warnings(d), 0);
    diag_destroy(cap);
    diag_destroy(held);
    diag_destroy(d);
    fclose(fp);
    ck_assert_str_eq(buf, "p.yml:8:5: error: uncovered [additionalProperties]\n");
    free(buf);
}
END_TEST

/* -q changes what is printed, not what is counted: --strict -q fails on a warning. */
/* A message longer than diag's buffer keeps its end (the reason, after a long path)
 * around "...", and no cut splits a UTF-8 sequence (each 'é' is two bytes). */
START_TEST(diag_long_message_keeps_tail)
{
    char *buf = NULL, path[3001];
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct diag *d = diag_create(fp, DIAG_TEXT);
    const char *dots, *tail = ": No space left on device [io]\n";

    for (size_t i = 0; i + 2 < sizeof(path); i += 2)
        memcpy(path + i, "\xc3\xa9", 2);
    path[sizeof(path) - 1] = '\0';
    diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_IO, "cannot create a temporary file in %s: %s",
                path, "No space left on device");
    diag_destroy(d);
    fclose(fp);
    ck_assert_ptr_nonnull(dots = strstr(buf, "..."));
    ck_assert_uint_lt(strlen(buf), 1100);
    ck_assert_str_eq(buf + strlen(buf) - strlen(tail), tail);
    ck_assert_int_eq(memcmp(dots - 2, "\xc3\xa9", 2), 0);
    ck_assert_int_eq(memcmp(dots + 3, "\xc3\xa9", 2), 0);
    free(buf);
}
END_TEST

START_TEST(diag_quiet_still_counts)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct diag *d = diag_create(fp, DIAG_TEXT);
    struct diag_policy p = {.quiet = true};

    diag_set_policy(d, &p);
    diag_report(d, DIAG_WARNING, DIAG_FINDING, "p.yml", 1, 1, RULE_DANGLING_DEPENDS_ON, "dangling");
    ck_assert_uint_eq(diag_warnings(d), 1);
    ck_assert_int_eq(diag_exit_code(d, true), 1);
    ck_assert_int_eq(diag_exit_code(d, false), 0);
    diag_destroy(d);
    fclose(fp);
    ck_assert_str_eq(buf, "");
    free(buf);
}
END_TEST

START_TEST(array_grow_doubles)
{
    size_t cap = 0;
    int *v = array_grow(NULL, &cap, 1, 16, sizeof(*v)), *same;

    ck_assert_ptr_nonnull(v);
    ck_assert_uint_eq(cap, 16);
    v[15] = 7;
    ck_assert_ptr_eq(array_grow(v, &cap, 16, 16, sizeof(*v)), v); /* fits: no realloc */
    ck_assert_ptr_nonnull(v = array_grow(v, &cap, 17, 16, sizeof(*v)));
    ck_assert_uint_eq(cap, 32);
    ck_assert_int_eq(v[15], 7);
    ck_assert_ptr_nonnull(v = array_grow(v, &cap, 200, 16, sizeof(*v))); /* doubled until it fits */
    ck_assert_uint_eq(cap, 256);
    /* a byte count past SIZE_MAX, or a capacity that cannot double: NULL, v and cap kept */
    ck_assert_ptr_null(array_grow(v, &cap, SIZE_MAX / 2, 16, sizeof(*v)));
    ck_assert_uint_eq(cap, 256);
    same = v;
    cap = SIZE_MAX / 2 + 1;
    ck_assert_ptr_null(array_grow(v, &cap, SIZE_MAX, 16, 1));
    ck_assert_uint_eq(cap, SIZE_MAX / 2 + 1);
    ck_assert_ptr_eq(v, same);
    ck_assert_int_eq(v[15], 7);
    free(v);
}
END_TEST

START_TEST(strbuf_bounded)
{
    struct strbuf b = {0}, small = {.max = 4};
    char *s;
    size_t len;

    strbuf_putc(&b, 'a');
    strbuf_puts(&b, "bc");
    strbuf_put(&b, "dx", 1);
    ck_assert_str_eq(b.s, "abcd");
    strbuf_cut(&b, 2);
    ck_assert_str_eq(b.s, "ab");
    for (int i = 0; i < 300; i++) /* past the first 256 bytes: grown */
        strbuf_putc(&b, 'z');
    ck_assert_uint_eq(b.len, 302);
    ck_assert_uint_eq(strlen(b.s), 302);
    ck_assert_ptr_nonnull(s = strbuf_take(&b, &len));
    ck_assert_uint_eq(len, 302);
    ck_assert_ptr_null(b.s);
    free(s);
    ck_assert_ptr_nonnull(s = strbuf_take(&b, &len)); /* an empty text is "" */
    ck_assert_str_eq(s, "");
    free(s);
    /* a bound: the put that would pass it puts nothing, and every later one neither */
    strbuf_puts(&small, "abc");
    strbuf_putc(&small, 'd');
    ck_assert_str_eq(small.s, "abcd");
    ck_assert(!small.oom);
    strbuf_putc(&small, 'e');
    ck_assert(small.oom && small.too_long);
    strbuf_free(&small);
    ck_assert(!small.oom && !small.too_long && small.max == 4);
    strbuf_puts(&small, "abcde");
    ck_assert_ptr_null(strbuf_take(&small, NULL));
    ck_assert(small.too_long);
    /* room made ahead (interpolation sizes its buffers so), within the bound */
    ck_assert(strbuf_reserve(&small, 4));
    ck_assert_uint_ge(small.cap, 5);
    ck_assert_uint_eq(small.len, 0);
    ck_assert(!strbuf_reserve(&small, 5));
    ck_assert(small.oom && small.too_long);
    strbuf_free(&small);
}
END_TEST

Suite *support_suite(void)
{
    Suite *s = suite_create("support");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, diag_formats);
    tcase_add_test(tc, diag_sarif_log);
    tcase_add_test(tc, diag_at_position);
    tcase_add_test(tc, diag_exit_codes);
    tcase_add_test(tc, diag_shadowed_finding);
    tcase_add_test(tc, diag_input_error_once);
    tcase_add_test(tc, diag_capture);
    tcase_add_test(tc, diag_shadowed_held_finding);
    tcase_add_test(tc, diag_covered_place);
    tcase_add_test(tc, diag_quiet_still_counts);
    tcase_add_test(tc, diag_long_message_keeps_tail);
    tcase_add_test(tc, output_atomic);
    tcase_add_test(tc, inputs_walk);
    tcase_add_test(tc, strhash_vectors);
    tcase_add_test(tc, strhash_words_keys);
    tcase_add_test(tc, strhash_stream_cuts);
    tcase_add_test(tc, strset_basics);
    tcase_add_test(tc, strset_many);
    tcase_add_test(tc, memo_by_address);
    tcase_add_test(tc, array_grow_doubles);
    tcase_add_test(tc, strbuf_bounded);
    suite_add_tcase(s, tc);
    return s;
}
