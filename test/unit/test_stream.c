/* stream (items from a file), buildkite (step kinds) and validate (streaming checks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libfyaml.h>

#include "dialect/buildkite/steps.h"
#include "fanout/schema.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/validate.h"
#include "unit.h"

struct opened {
    char path[32];
    char *messages;
    size_t len;
    FILE *err;
    struct diag *d;
    struct source *src;
    struct stream *s;
};

static void open_text_shaped(struct opened *o, const char *yaml, const struct stream_shape *shapes)
{
    int fd;

    strcpy(o->path, "/tmp/fanout-st-XXXXXX");
    fd = mkstemp(o->path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
    close(fd);
    o->messages = NULL;
    o->err = open_memstream(&o->messages, &o->len);
    o->d = diag_create(o->err, DIAG_TEXT);
    o->src = source_open(o->path, o->d);
    ck_assert_ptr_nonnull(o->src);
    o->s = stream_open_shaped(o->src, 0, shapes, o->d);
    ck_assert_ptr_nonnull(o->s);
}

static void open_text(struct opened *o, const char *yaml)
{
    open_text_shaped(o, yaml, stream_steps_shape);
}

static void close_text(struct opened *o)
{
    stream_close(o->s);
    source_close(o->src);
    diag_destroy(o->d);
    fclose(o->err);
    free(o->messages);
    unlink(o->path);
}

/* The kinds of all items, as letters: D d P S ( ) for doc start/end, pair, step, steps. */
static void kinds(const char *yaml, char *out, int *last)
{
    static const char letters[] = "DP(S)d";
    struct opened o;
    struct stream_item item;
    int rc;

    open_text(&o, yaml);
    while ((rc = stream_next(o.s, &item)) > 0) {
        *out++ = letters[item.kind];
        if (item.doc)
            ynode_doc_destroy(item.doc);
    }
    *out = '\0';
    *last = rc;
    close_text(&o);
}

START_TEST(item_sequence)
{
    char k[64];
    int last;

    kinds("env: {A: b}\nsteps:\n  - command: x\n  - wait\nagents: {q: 1}\n", k, &last);
    ck_assert_str_eq(k, "DP(SS)Pd");
    ck_assert_int_eq(last, 0);
    kinds("- wait\n- command: x\n---\n---\nsteps: []\n", k, &last);
    ck_assert_str_eq(k, "D(SS)dD()d"); /* the empty document in between yields nothing */
    kinds("# only a comment\n", k, &last);
    ck_assert_str_eq(k, "");
    kinds("steps:\n  - command: [\n", k, &last);
    ck_assert_int_eq(last, -1);
}
END_TEST

START_TEST(merges_and_aliases)
{
    struct opened o;
    struct stream_item item;
    char *out = NULL;

    open_text(&o, "base: &b {agents: {q: gpu}, timeout_in_minutes: 5}\n"
                  "steps:\n  - <<: *b\n    timeout_in_minutes: 9\n    command: &c run\n"
                  "  - command: *c\n");
    while (stream_next(o.s, &item) > 0) {
        if (item.kind == STREAM_STEP && !out)
            out = emit_to_string(ynode_doc_root(item.doc), 0);
        if (item.doc)
            ynode_doc_destroy(item.doc);
    }
    /* explicit keys win over merged ones; merged keys follow; anchors are gone */
    ck_assert_str_eq(out, "- timeout_in_minutes: 9\n  command: run\n  agents:\n    q: gpu\n");
    free(out);
    close_text(&o);
}
END_TEST

/* A top-level `<<` is merged as yaml.v3 and go-pipeline merge it: each key the document
 * has not had, a pair of its own where the `<<` is (an earlier mapping of a list wins, a
 * key written before the `<<` too), marked merged; a key written after it that the merge
 * gave, and a merged `steps`, are errors; a quoted "<<" is a key. */
START_TEST(top_level_merge)
{
    char k[64];
    int last;
    struct opened o;
    struct stream_item item;
    char pairs[256] = "";

    open_text(&o, "b: &b {env: {A: 1}, agents: {q: b}}\nx: &x {agents: {q: x}, priority: 3}\nagents: {q: e}\n"
                  "<<: [*b, *x]\nsteps:\n  - command: y\n");
    while (stream_next(o.s, &item) > 0) {
        if (item.kind == STREAM_PAIR) {
            char *text = emit_to_string(ynode_doc_root(item.doc), 0);

            snprintf(pairs + strlen(pairs), sizeof(pairs) - strlen(pairs), "%s%s", item.merged ? "merged " : "",
                     text);
            free(text);
        }
        if (item.doc)
            ynode_doc_destroy(item.doc);
    }
    ck_assert_str_eq(pairs, "b:\n  env:\n    A: 1\n  agents:\n    q: b\nx:\n  agents:\n    q: x\n  priority: 3\n"
                            "agents:\n  q: e\nmerged env:\n  A: 1\nmerged priority: 3\n");
    close_text(&o);
    kinds("b: &b {env: {A: 1}}\n<<: *b\nenv: {A: 2}\nsteps: []\n", k, &last);
    ck_assert_int_eq(last, -1);
    kinds("b: &b {steps: []}\n<<: *b\n", k, &last);
    ck_assert_int_eq(last, -1);
    kinds("b: &b {env: {A: 1}}\nenv: {A: 2}\n<<: *b\nsteps: []\n", k, &last);
    ck_assert_str_eq(k, "DPP()d"); /* everything the merge has was written before it */
    kinds("\"<<\": {a: 1}\nsteps: []\n", k, &last);
    ck_assert_str_eq(k, "DP()d");
}
END_TEST

/* Keys far apart: libfyaml's input buffer moves between them, and the check must
 * neither read freed text nor miss the repeat. */
START_TEST(duplicate_keys_far_apart)
{
    size_t cap = 400000, n = 0;
    char *yaml = malloc(cap);
    char k[64];
    int last;

    n += (size_t)sprintf(yaml + n, "steps:\n  - command: x\n    env:\n      FIRST: 1\n");
    for (int i = 0; i < 10000; i++)
        n += (size_t)sprintf(yaml + n, "      K%05d: %d\n", i, i);
    strcpy(yaml + n, "      LAST: 2\n");
    kinds(yaml, k, &last);
    ck_assert_int_eq(last, 0); /* 10002 distinct keys */
    strcpy(yaml + n, "      FIRST: 2\n");
    kinds(yaml, k, &last);
    ck_assert_int_eq(last, -1);
    free(yaml);
}
END_TEST

/* A shape whose platform keeps a key given twice (last_key_wins) has it in its first place
 * with its last value, and a warning; plain and quoted alike stay an error (an integer
 * and a string to some readers), as every key given twice is without it. */
START_TEST(duplicate_key_last_wins)
{
    static const struct stream_shape last_wins[] = {{"steps", false, false, false, false, "the reader"},
                                                   {NULL, false, false, false, false, NULL}};
    static const struct {
        const char *yaml;
        const struct stream_shape *shape;
        unsigned warnings;
        const char *env; /* the step's env, keys and values; NULL: an error */
    } cases[] = {
        {"steps:\n  - env: {A: 1, B: 2, A: 3}\n", last_wins, 1, "A3B2"},
        {"steps:\n  - env: {'A': 1, \"A\": 3}\n", last_wins, 1, "A3"},
        {"steps:\n  - env: {A: 1, A: 2, A: 3, B: 4}\n", last_wins, 2, "A3B4"},
        {"steps:\n  - env: {A: 1, B: 2, A: 3}\n", stream_steps_shape, 0, NULL},
        {"steps:\n  - env: {A: 1, \"A\": 3}\n", last_wins, 0, NULL},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct opened o;
        struct stream_item item;
        const struct ynode *env = NULL;
        char text[32] = "";
        int rc;

        open_text_shaped(&o, cases[i].yaml, cases[i].shape);
        while ((rc = stream_next(o.s, &item)) > 0) {
            if (item.kind == STREAM_STEP) {
                ck_assert(item.key_replaced == (cases[i].warnings > 0));
                env = ynode_get(ynode_item(ynode_doc_root(item.doc), 0), "env");
                for (size_t k = 0; k < ynode_len(env); k++) {
                    strcat(text, ynode_scalar(ynode_key(env, k), NULL));
                    strcat(text, ynode_scalar(ynode_value(env, k), NULL));
                }
                ynode_doc_destroy(item.doc);
            }
        }
        ck_assert_int_eq(rc, cases[i].env ? 0 : -1);
        ck_assert_uint_eq(diag_warnings(o.d), cases[i].warnings);
        if (cases[i].env)
            ck_assert_str_eq(text, cases[i].env);
        close_text(&o);
    }
}
END_TEST

START_TEST(step_kinds)
{
    static const struct {
        const char *yaml;
        enum bk_kind kind;
    } cases[] = {
        {"wait", BK_WAIT},          {"{command: x}", BK_COMMAND}, {"{plugins: []}", BK_COMMAND},
        {"{wait: ~}", BK_WAIT},     {"{block: b}", BK_BLOCK},     {"{input: i}", BK_INPUT},
        {"{trigger: t}", BK_TRIGGER}, {"{group: g}", BK_GROUP},   {"{label: l}", BK_UNKNOWN},
        {"{type: script, label: x}", BK_COMMAND}, {"nope", BK_INVALID}, {"[wait]", BK_INVALID},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ynode_doc *fyd = doc_from(cases[i].yaml);

        ck_assert_msg(bk_step_kind(ynode_doc_root(fyd)) == cases[i].kind, "%s", cases[i].yaml);
        ynode_doc_destroy(fyd);
    }
    ck_assert(bk_known_key(BK_COMMAND, "timeout_in_minutes", 18));
    ck_assert(!bk_known_key(BK_WAIT, "command", 7));
}
END_TEST

/* The same violations whether the schema lets the validator stream or not. */
static unsigned violations(const char *schema, const char *yaml, char **messages)
{
    struct opened o;
    struct stream_item item;
    struct diag *d;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    const char *files[1];
    struct schema *s;
    struct validator *v;
    unsigned n;

    open_text(&o, yaml);
    files[0] = "t.yml";
    d = diag_create(fp, DIAG_TEXT);
    s = schema_load_text("s.json", schema, strlen(schema), d);
    ck_assert_ptr_nonnull(s);
    v = validator_create(s, NULL, d, files, DIAG_FINDING);
    while (stream_next(o.s, &item) > 0) {
        validator_item(v, &item);
        if (item.doc)
            ynode_doc_destroy(item.doc);
    }
    n = validator_errors(v);
    validator_destroy(v);
    schema_free(s);
    diag_destroy(d);
    fclose(fp);
    close_text(&o);
    *messages = buf;
    return n;
}

START_TEST(validator_stream_and_whole)
{
    static const char streaming[] =
        "{\"type\": \"object\", \"required\": [\"steps\", \"env\"], \"additionalProperties\": false,"
        " \"properties\": {\"env\": {\"type\": \"object\"},"
        "  \"steps\": {\"type\": \"array\", \"items\": {\"required\": [\"command\"]}}}}";
    static const char whole[] =
        "{\"allOf\": [{\"type\": \"object\", \"required\": [\"steps\", \"env\"],"
        " \"additionalProperties\": false, \"properties\": {\"env\": {\"type\": \"object\"},"
        "  \"steps\": {\"type\": \"array\", \"items\": {\"required\": [\"command\"]}}}}]}";
    static const char yaml[] = "steps:\n  - command: a\n  - label: b\nextra: 1\n";
    char *m1, *m2;

    ck_assert_uint_eq(violations(streaming, yaml, &m1), 3);
    ck_assert_uint_eq(violations(whole, yaml, &m2), 3);
    ck_assert_ptr_nonnull(strstr(m1, "t.yml:3:5: error: /steps/1: missing required property 'command' [required]"));
    ck_assert_ptr_nonnull(strstr(m1, "t.yml:4:1: error: /extra: property 'extra' is not allowed [additionalProperties]"));
    ck_assert_ptr_nonnull(strstr(m1, "(root): missing required property 'env' [required]"));
    ck_assert_ptr_nonnull(strstr(m2, "t.yml:3:5: error: /steps/1: missing required property 'command' [required]"));
    ck_assert_ptr_nonnull(strstr(m2, "t.yml:4:1: error: /extra: property 'extra' is not allowed [additionalProperties]"));
    free(m1);
    free(m2);
}
END_TEST

/* Where the text `what` (first found) of key `key`'s value is written, through the input
 * itself (raw from the line ynode_raw_line gives); "line:col". */
static char *pos_through_input(const char *yaml, const char *key, const char *what)
{
    struct ynode_doc *doc = doc_from(yaml);
    const struct ynode *n = ynode_get(ynode_doc_root(doc), key), *text_node;
    const char *text, *raw = yaml, *found;
    struct ypos p;
    char *out = malloc(32);

    if (ynode_is_seq(n)) /* a sequence: its first entry's `run` */
        n = ynode_get(ynode_item(n, 0), "run");
    text_node = n;
    ck_assert_ptr_nonnull(text = ynode_scalar(text_node, NULL));
    ck_assert_ptr_nonnull(found = strstr(text, what));
    for (unsigned line = 1; line < ynode_raw_line(n); line++)
        raw = strchr(raw, '\n') + 1;
    p = ynode_text_pos_raw(n, (size_t)(found - text), raw, strlen(raw));
    snprintf(out, 32, "%u:%u", p.line, p.col);
    ynode_doc_destroy(doc);
    return out;
}

static void expect_pos(const char *yaml, const char *key, const char *what, const char *want)
{
    char *got = pos_through_input(yaml, key, what);

    ck_assert_msg(!strcmp(got, want), "%s in %s: %s, want %s", what, yaml, got, want);
    free(got);
}

/* A byte of a scalar's text is found where the input wrote it, in every style: block
 * scalars by their indentation (found, or given), folded lines, quotes, escapes. */
/* Every scalar's text under `n` in document order, each after a "|". */
static void put_texts(const struct ynode *n, FILE *f)
{
    if (ynode_is_map(n)) {
        for (size_t i = 0; i < ynode_len(n); i++) {
            put_texts(ynode_key(n, i), f);
            put_texts(ynode_value(n, i), f);
        }
    } else if (ynode_is_seq(n)) {
        for (size_t i = 0; i < ynode_len(n); i++)
            put_texts(ynode_item(n, i), f);
    } else if (n) {
        size_t l;
        const char *t = ynode_scalar(n, &l);

        fputc('|', f);
        fwrite(t ? t : "", 1, t ? l : 0, f);
    }
}

/* The same from libfyaml's own events and fy_token_get_text. */
static char *libfyaml_texts(const char *yaml)
{
    struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_SLOPPY_FLOW_INDENTATION};
    struct fy_parser *fyp = fy_parser_create(&cfg);
    struct fy_event *fye;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);

    ck_assert_int_eq(fy_parser_set_string(fyp, yaml, strlen(yaml)), 0);
    while ((fye = fy_parser_parse(fyp)) != NULL) {
        if (fye->type == FYET_SCALAR) {
            size_t l;
            const char *t = fy_token_get_text(fye->scalar.value, &l);

            fputc('|', f);
            fwrite(t, 1, l, f);
        }
        fy_parser_event_free(fyp, fye);
    }
    fy_parser_destroy(fyp);
    fclose(f);
    return out;
}

static char *stream_texts(const char *yaml)
{
    struct opened o;
    struct stream_item item;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);

    open_text(&o, yaml);
    while (stream_next(o.s, &item) > 0) {
        if (item.doc) {
            put_texts(ynode_doc_root(item.doc), f);
            ynode_doc_destroy(item.doc);
        }
    }
    close_text(&o);
    fclose(f);
    return out;
}

/* A scalar the stream takes from the input's bytes as they stand (the source's window)
 * has the text libfyaml formats: quotes, escapes, tabs, wide characters before it on
 * its line, other line breaks, a byte order mark, lines longer than the window. */
static const char *const text_cases[] = {
    "a: b c\nd: 'e f'\ng: \"h i\"\n'j k': \"l\\tm\"\nn: 'it''s'\no: \"q\\\"r\"\n",
    "a:\tb c\nx: [p q, 'r s', \"t u\"]\n\"v\": {w x: y z}\n",
    "\xc3\xa9t\xc3\xa9: deux mots\nk: 'caf\xc3\xa9 au lait'\nl: \xe2\x80\x94 dash here\n",
    "a: b c\r\nd: e f\r\n",
    "a: b c\rd: e f\r",
    "a: b\rc: d e\nf: g h\n",
    "%YAML 1.1\n---\na: b\xc2\x85" "c: d e\nf: g h\n",
    "a: b c\nd: e \xc2\x85 f g\nh: i j\n",
    "\xef\xbb\xbf" "a b: c d\n",
    "{a: b c, d: \"e f\"}\n",
    "a: multi\n  line plain\nb: \"multi\n  line\"\nc: |\n  block text\nd: >\n  folded text\n",
    "a: b c   # comment\nd: 'e f'   \n",
    "!!str a b: &x c d\ne: !!str f g\n",
    /* block scalars: their lines' breaks are looked for in them only when the window
     * saw a CR (or a NEL, LS, PS: then it is off) */
    "c: |\r\n  one\r\n  two\r\nd: >\r\n  three\r\n  four\r\n\r\n  five\r\n",
    "c: |\n  one\n  two\nd: >-\n  three\n  four\ne: x\r\n",
    "c: |\n  a \xe2\x80\xa8 b\n  c\nd: >\n  e \xc2\x85 f\n  g\n",
};

START_TEST(scalar_texts_as_libfyaml_reads_them)
{
    const char *const *cases = text_cases;
    char *big = malloc(700000);
    size_t n = 0;

    for (size_t i = 0; i < sizeof(text_cases) / sizeof(text_cases[0]); i++) {
        char *want = libfyaml_texts(cases[i]), *got = stream_texts(cases[i]);

        ck_assert_msg(!strcmp(want, got), "case %zu: %s vs %s", i, want, got);
        free(want);
        free(got);
    }
    /* the window wraps around, loses lines, and holds no line longer than itself */
    for (int i = 0; i < 12000; i++)
        n += (size_t)sprintf(big + n, "k%d: value number %d\n", i, i);
    n += (size_t)sprintf(big + n, "long: x");
    memset(big + n, 'y', 300000);
    n += 300000;
    strcpy(big + n, " z\nafter: a b\n");
    {
        char *want = libfyaml_texts(big), *got = stream_texts(big);

        ck_assert(!strcmp(want, got));
        free(want);
        free(got);
    }
    free(big);
}
END_TEST

/* The texts the stream reads of `quoted` (`len` bytes: more than the window, so that it
 * wraps) are those of `plain`, which libfyaml reads right; frees both. */
static void same_texts(char *quoted, size_t len, char *plain)
{
    char *want = stream_texts(plain), *got = stream_texts(quoted);
    size_t at = 0;

    ck_assert_uint_gt(len, 300000);
    ck_assert(strlen(want) > 100000);
    while (want[at] && want[at] == got[at])
        at++;
    ck_assert_msg(!strcmp(want, got), "at %zu: %.200s vs %.200s", at, want + (at > 100 ? at - 100 : 0),
                  got + (at > 100 ? at - 100 : 0));
    free(want);
    free(got);
    free(quoted);
    free(plain);
}

/* Single-quoted scalars with '' escapes in a row and line breaks are read from their
 * bytes (quotedtext), also across the end of the window's ring and placed by either end
 * (a wide character before the other): the texts are those of the same scalars written on
 * one line double-quoted, which libfyaml reads right. */
START_TEST(single_quoted_texts_from_the_bytes)
{
    char *quoted = malloc(1200000), *plain = malloc(1200000);
    size_t q = 0, p = 0;

    for (int i = 0; i < 9000; i++) {
        int pad = 1 + i % 37;

        /* placed by its end (a wide character before its start), then by its start */
        q += (size_t)sprintf(quoted + q, "\xc3\xa9%d: 'v''''%d %.*s\n    x'' y'\nk%d: 'a''''\n    \xc3\xa9'\n", i, i,
                             pad, "-----------------------------------------", i);
        p += (size_t)sprintf(plain + p, "\xc3\xa9%d: \"v''%d %.*s x' y\"\nk%d: \"a'' \xc3\xa9\"\n", i, i, pad,
                             "-----------------------------------------", i);
    }
    same_texts(quoted, q, plain);
}
END_TEST

/* The same for double-quoted scalars: escapes, an escaped break, one line with wide
 * characters (with an escape and without), against the same texts single-quoted. */
START_TEST(double_quoted_texts_from_the_bytes)
{
    char *quoted = malloc(1600000), *plain = malloc(1600000);
    size_t q = 0, p = 0;

    for (int i = 0; i < 9000; i++) {
        int pad = 1 + i % 37;

        q += (size_t)sprintf(quoted + q, "\xc3\xa9%d: \"v\\x41%d %.*s\\ \n    x\\\" y\"\nk%d: \"a\\u00e9 \\\n    \xc3\xa9\"\n"
                             "w%d: \"\xc3\xa9\\t%d\"\nz%d: \"\xc3\xa9 %d\"\n", i, i, pad,
                             "-----------------------------------------", i, i, i, i, i);
        p += (size_t)sprintf(plain + p, "\xc3\xa9%d: 'vA%d %.*s  x\" y'\nk%d: 'a\xc3\xa9 \xc3\xa9'\nw%d: '\xc3\xa9\t%d'\n"
                             "z%d: '\xc3\xa9 %d'\n", i, i, pad, "-----------------------------------------", i, i, i,
                             i, i);
    }
    same_texts(quoted, q, plain);
}
END_TEST

/* A CRLF split between two of libfyaml's reads is one break, not a CR alone: one turned
 * the window off for the rest of a streamed input (over 64 KiB), and libfyaml's texts were
 * taken, misread ("a<CRLF>  " gave "a\n"; single-quoted with '' an error). The lines'
 * lengths vary, so that reads end between a CR and its LF; the texts are those with LFs. */
START_TEST(crlf_split_between_reads)
{
    char *crlf = malloc(700000), *lf = malloc(700000);
    size_t c = 0, l = 0;

    for (int i = 0; i < 9000; i++) {
        int pad = 1 + i % 37;

        c += (size_t)sprintf(crlf + c, "k%d: \"a%.*s\r\n  \"\r\nq%d: 'b''''c'\r\n", i, pad,
                             "-----------------------------------------", i);
        l += (size_t)sprintf(lf + l, "k%d: \"a%.*s\n  \"\nq%d: 'b''''c'\n", i, pad,
                             "-----------------------------------------", i);
    }
    same_texts(crlf, c, lf);
}
END_TEST

/* Wide characters before both quotes of a scalar on their lines: its bytes are placed by
 * the characters before an end (libfyaml counts a column a character), not left to
 * libfyaml, which misread "a\ <LF> b" as "ab" and two bytes it never wrote. */
START_TEST(quoted_texts_after_wide_characters)
{
    char *quoted = malloc(1200000), *plain = malloc(1200000);
    size_t q = 0, p = 0;

    for (int i = 0; i < 9000; i++) {
        int pad = 1 + i % 37;

        q += (size_t)sprintf(quoted + q, "\xc3\xa9%d: \"a\\ \n  %.*s\xe4\xb8\xad b\"\n\xf0\x9f\x98\x80%d: 'a''''\n"
                             " \xc3\xa9\xc3\xa9'\n", i, pad, "-----------------------------------------", i);
        p += (size_t)sprintf(plain + p, "\xc3\xa9%d: 'a  %.*s\xe4\xb8\xad b'\n\xf0\x9f\x98\x80%d: \"a'' \xc3\xa9\xc3\xa9\"\n",
                             i, pad, "-----------------------------------------", i);
    }
    same_texts(quoted, q, plain);
}
END_TEST

/* An input within the read buffer is handed to libfyaml whole, a larger one through its
 * callback: the same text read either way (here made larger by a comment after it)
 * gives the same scalars. */
START_TEST(whole_and_streamed_inputs_read_alike)
{
    size_t pad = 70000;

    for (size_t i = 0; i < sizeof(text_cases) / sizeof(text_cases[0]); i++) {
        size_t len = strlen(text_cases[i]);
        char *padded = malloc(len + pad + 5); /* "\n# ", the padding, "\n" and its NUL */
        char *whole, *streamed;

        memcpy(padded, text_cases[i], len);
        memcpy(padded + len, "\n# ", 3);
        memset(padded + len + 3, 'x', pad);
        strcpy(padded + len + 3 + pad, "\n");
        whole = stream_texts(text_cases[i]);
        streamed = stream_texts(padded);
        ck_assert_msg(!strcmp(whole, streamed), "case %zu: %s vs %s", i, whole, streamed);
        free(whole);
        free(streamed);
        free(padded);
    }
}
END_TEST

START_TEST(text_positions_through_the_input)
{
    /* literal: line for line, less the indentation */
    expect_pos("a: 1\nrun: |\n  one\n\n    two X\n  end\n", "run", "X", "5:9");
    /* a literal block's first line empty */
    expect_pos("run: |-\n\n   X\n", "run", "X", "3:4");
    /* an indentation indicator, in a mapping and as a sequence entry's mapping value */
    expect_pos("run: |2\n    x\n  X\n", "run", "X", "3:3");
    expect_pos("k:\n  - run: |1\n       x\n     X\n", "k", "X", "4:6");
    /* folded: a single line break is a space, an empty line a \n, more indented lines
     * keep theirs */
    expect_pos("run: >\n  one\n  two\n\n  three\n    more X\n", "run", "X", "6:10");
    expect_pos("run: >-\n  one two\n  X\n", "run", "X", "3:3");
    /* plain over lines: a break and the next line's indentation are one space */
    expect_pos("if: a &&   \n    b &&\n\n    X\n", "if", "X", "4:5");
    /* single quotes: '' is one quote; double quotes: escapes and an escaped break */
    expect_pos("run: 'it''s\n   X'\n", "run", "X", "2:4");
    expect_pos("run: \"\\u00e9\\t\\x41\\\\ X\"\n", "run", "X", "1:22");
    expect_pos("run: \"a \\\n      b X\"\n", "run", "X", "2:9");
    /* columns count characters; CR LF is one break */
    expect_pos("run: \"\xc3\xa9\xc3\xa9 X\"\n", "run", "X", "1:10");
    expect_pos("run: |\r\n  one\r\n  two X\r\n", "run", "X", "3:7");
}
END_TEST

/* Input that does not hold the text as parsed (the file changed since): the scalar's own
 * position, never a guess. */
START_TEST(text_positions_need_the_same_input)
{
    struct ynode_doc *doc = doc_from("run: |\n  one\n  two X\n");
    const struct ynode *n = ynode_get(ynode_doc_root(doc), "run");
    static const char other[] = "run: |\n  one\n  tw0 X\n";
    struct ypos p = ynode_text_pos_raw(n, 8, other, strlen(other));

    ck_assert_uint_eq(p.line, ynode_pos(n).line);
    ck_assert_uint_eq(p.col, ynode_pos(n).col);
    ynode_doc_destroy(doc);
}
END_TEST

Suite *stream_suite(void)
{
    Suite *s = suite_create("stream");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, item_sequence);
    tcase_add_test(tc, merges_and_aliases);
    tcase_add_test(tc, top_level_merge);
    tcase_add_test(tc, duplicate_keys_far_apart);
    tcase_add_test(tc, duplicate_key_last_wins);
    tcase_add_test(tc, step_kinds);
    tcase_add_test(tc, validator_stream_and_whole);
    tcase_add_test(tc, scalar_texts_as_libfyaml_reads_them);
    tcase_add_test(tc, single_quoted_texts_from_the_bytes);
    tcase_add_test(tc, double_quoted_texts_from_the_bytes);
    tcase_add_test(tc, crlf_split_between_reads);
    tcase_add_test(tc, quoted_texts_after_wide_characters);
    tcase_add_test(tc, whole_and_streamed_inputs_read_alike);
    tcase_add_test(tc, text_positions_through_the_input);
    tcase_add_test(tc, text_positions_need_the_same_input);
    suite_add_tcase(s, tc);
    return s;
}
