/* bkread: keys and values as Buildkite's agent reads them. The keys' table is the oracle's: each
 * spelling written as a step's env key and read by buildkite/go-pipeline's ordered package
 * (ordered.DecodeYAML at fd45720551e8, built against Debian's gopkg.in/yaml.v3 3.0.1 with
 * Go 1.19), printed as JSON: the key it kept, or NULL where it refused the pipeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect/buildkite/bkread.h"
#include "unit.h"

static const struct {
    const char *written, *agent;
} cases[] = {
        {"true", "true"},
        {"True", "true"},
        {"TRUE", "true"},
        {"tRue", "tRue"},
        {"false", "false"},
        {"FALSE", "false"},
        {"yes", "yes"},
        {"on", "on"},
        {"n", "n"},
        {"null", NULL},
        {"Null", NULL},
        {"NULL", NULL},
        {"~", NULL},
        {"0", "0"},
        {"-0", "0"},
        {"+0", "0"},
        {"010", "8"},
        {"0o10", "8"},
        {"0x1F", "31"},
        {"0x_1F", "31"},
        {"0b101", "5"},
        {"1_000", "1000"},
        {"1__0", "10"},
        {"_1", "_1"},
        {"+12", "12"},
        {"-12", "-12"},
        {"9223372036854775807", "9223372036854775807"},
        {"9223372036854775808", "9223372036854775808"},
        {"18446744073709551615", "18446744073709551615"},
        {"18446744073709551616", "1.844674e+19"},
        {"0xFFFFFFFFFFFFFFFF", "18446744073709551615"},
        {"-9223372036854775809", "-9.223372e+18"},
        {"1.0", "1.000000e+00"},
        {"1.", "1.000000e+00"},
        {"1.5", "1.500000e+00"},
        {"-1.5", "-1.500000e+00"},
        {".5", "5.000000e-01"},
        {"1e3", "1.000000e+03"},
        {"1e-3", "1.000000e-03"},
        {"3.10", "3.100000e+00"},
        {"1e400", "1e400"},
        {"-1e400", "-1e400"},
        {"1e-400", "0.000000e+00"},
        {"4.9e-324", "4.940656e-324"},
        {".inf", "+Inf"},
        {"-.Inf", "-Inf"},
        {".NaN", "NaN"},
        {"+.inf", "+Inf"},
        {".iNf", ".iNf"},
        {"2001-12-14", "2001-12-14"},
        {"2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"},
        {"2002-1-1", "2002-1-1"},
        {"12:30", "12:30"},
        {"08", "8.000000e+00"},
        {"09.5", "9.500000e+00"},
        {"0x", "0x"},
        {"0o8", "0o8"},
        {"1e", "1e"},
        {"0.0.1", "0.0.1"},
        {"abc", "abc"},
        {"tru", "tru"},
        {"T", "T"},
        {"12abc", "12abc"},
};

/* The key of a step's env written `written`, after bkread (a copy); NULL after an error. */
static char *key_of(const char *written, unsigned *errors)
{
    char yaml[128];
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct bkread *k = bkread_create();
    struct stream_item item = {.kind = STREAM_STEP};
    const struct ynode *env;
    char *key = NULL;

    snprintf(yaml, sizeof(yaml), "- command: make\n  env:\n    %s: v\n", written);
    item.doc = doc_from(yaml);
    bkread_begin(k, d, (const char *const[]){"<test>"});
    if (bkread_item(k, &item) == 0) {
        env = ynode_get(ynode_item(ynode_doc_root(item.doc), 0), "env");
        key = strdup(ynode_key(env, 0)->u.scalar.text);
        ck_assert_msg(ynode_is_string(ynode_key(env, 0)) || !strcmp(key, written), "%s: not a string", written);
    }
    *errors = diag_errors(d);
    bkread_destroy(k);
    ynode_doc_destroy(item.doc);
    diag_destroy(d);
    return key;
}

START_TEST(as_go_pipeline_reads_them)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unsigned errors;
        char *key = key_of(cases[i].written, &errors);

        if (!cases[i].agent)
            ck_assert_msg(!key && errors == 1, "%s: taken as '%s'", cases[i].written, key ? key : "");
        else
            ck_assert_msg(key && !strcmp(key, cases[i].agent), "%s: '%s', not '%s'", cases[i].written,
                          key ? key : "(refused)", cases[i].agent);
        free(key);
    }
}
END_TEST

/* Two keys the agent reads as one are one key to it, in the first one's place with the
 * last one's value (go-pipeline's ordered.Map.Set): a duplicate-key warning, and the
 * rendering has what the agent has; alike, in separate mappings, they are not. */
START_TEST(one_key_to_the_agent)
{
    static const struct {
        const char *yaml;
        unsigned warnings;
        const char *env; /* the step's env as the agent has it */
    } docs[] = {
        {"- env: {16: a, 0x10: b}\n", 1, "{\"16\": \"b\"}"},
        {"- env: {true: a, x: c, TRUE: b}\n", 1, "{\"true\": \"b\",\"x\": \"c\"}"},
        {"- env: {1.0: a, 1.: b}\n", 1, "{\"1.000000e+00\": \"b\"}"},
        {"- env: {5: a, 0b101: b, 0x5: c}\n", 2, "{\"5\": \"c\"}"},
        {"- env: {16: a}\n  agents: {0x10: b}\n", 0, "{\"16\": \"a\"}"},
        {"- env: {a: {0x10: x, 16: y}}\n", 1, "{\"a\": {\"16\": \"y\"}}"},
        {"- env: {0x10: a, 17: b}\n", 0, "{\"16\": \"a\",\"17\": \"b\"}"},
        /* the value the agent does not keep is not read: a timestamp is no string */
        {"- env: {TRUE: 2001-12-14, true: x}\n", 1, "{\"true\": \"x\"}"},
    };

    for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
        struct diag *d = diag_create_buffered(DIAG_TEXT);
        struct bkread *k = bkread_create();
        struct stream_item item = {.kind = STREAM_STEP, .doc = doc_from(docs[i].yaml)};
        char *env;

        bkread_begin(k, d, (const char *const[]){"<test>"});
        ck_assert_msg(bkread_item(k, &item) == 0, "%s", docs[i].yaml);
        ck_assert_uint_eq(diag_errors(d), 0);
        ck_assert_msg(diag_warnings(d) == docs[i].warnings, "%s: %u warnings", docs[i].yaml, diag_warnings(d));
        env = emit_to_string(ynode_get(ynode_item(ynode_doc_root(item.doc), 0), "env"), 1);
        for (char *from = env, *to = env;; from++) { /* on one line */
            if (*from == '\n')
                while (from[1] == ' ')
                    from++;
            else if (!(*to++ = *from))
                break;
        }
        ck_assert_str_eq(env, docs[i].env);
        free(env);
        bkread_destroy(k);
        ynode_doc_destroy(item.doc);
        diag_destroy(d);
    }
}
END_TEST

/* Values. `as_string`: fmt.Sprint of the value gopkg.in/yaml.v3 v3.0.1 reads (printed by
 * Go 1.19 itself), which a field go-pipeline's step types keep as a string gets (an env
 * value); `own`: the value written as yaml.v3 reads it, where the field keeps its type
 * (timeout_in_minutes, in RemainingFields); NULL: kept as written; "!": an error. A
 * leading '"' marks a string node. */
static const struct {
    const char *written, *as_string, *own;
} values[] = {
    {"3.10", "\"3.1", "3.1"},     {"11.00", "\"11", "11"},      {"0123", "\"83", "83"},
    {"0x10", "\"16", "16"},       {"True", "\"true", "true"},   {"FALSE", "\"false", "false"},
    {"1_000", "\"1000", "1000"},  {"+4", "\"4", "4"},           {"-0", "\"0", "0"},
    {"1e3", "\"1000", "1000"},    {"1.50", "\"1.5", "1.5"},     {".5", "\"0.5", "0.5"},
    {"1e400", "\"1e400", "\"1e400"}, {"12", "\"12", NULL},       {"yes", NULL, NULL},
    {"~", "\"", NULL},            {"2001-12-14", NULL, NULL},  {"0b101", "\"5", "5"},
    {"08", "\"8", "8"},           {".inf", "\"+Inf", "!"},     {".NaN", "\"NaN", "!"},
    {"9223372036854775808", NULL, NULL}, {"make", NULL, NULL},  {"\"010\"", "\"010", "\"010"},
};

/* The env value and the timeout of a command step with `written` for both, after
 * bkread; *errors counts what it reported. */
static struct ynode_doc *read_values_of(const char *written, unsigned *errors)
{
    char yaml[160];
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct bkread *k = bkread_create();
    struct stream_item item = {.kind = STREAM_STEP};

    snprintf(yaml, sizeof(yaml), "- command: make\n  env:\n    E: %s\n  timeout_in_minutes: %s\n", written,
             written);
    item.doc = doc_from(yaml);
    bkread_begin(k, d, (const char *const[]){"<test>"});
    bkread_item(k, &item);
    *errors = diag_errors(d);
    bkread_destroy(k);
    diag_destroy(d);
    return item.doc;
}

static void expect(const char *written, const struct ynode *n, const char *want)
{
    const char *text = want && *want == '"' ? want + 1 : want ? want : written;
    bool string = want ? *want == '"' : ynode_is_string(n);

    ck_assert_msg(ynode_is_scalar(n) && !strcmp(n->u.scalar.text, text) && ynode_is_string(n) == string,
                  "%s: '%s'%s, not '%s'%s", written, n->u.scalar.text, ynode_is_string(n) ? " (a string)" : "",
                  text, string ? " (a string)" : "");
}

START_TEST(values_as_go_pipeline_reads_them)
{
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        unsigned errors;
        struct ynode_doc *doc = read_values_of(values[i].written, &errors);
        const struct ynode *step = ynode_item(ynode_doc_root(doc), 0);

        if (values[i].own && !strcmp(values[i].own, "!")) {
            ck_assert_msg(errors == 1, "%s: taken", values[i].written);
        } else {
            ck_assert_msg(errors == 0, "%s: refused", values[i].written);
            expect(values[i].written, ynode_value(ynode_get(step, "env"), 0), values[i].as_string);
            expect(values[i].written, ynode_get(step, "timeout_in_minutes"), values[i].own);
        }
        ynode_doc_destroy(doc);
    }
}
END_TEST

Suite *bkread_suite(void)
{
    Suite *s = suite_create("bkread");
    TCase *tc = tcase_create("agent");

    tcase_add_test(tc, as_go_pipeline_reads_them);
    tcase_add_test(tc, one_key_to_the_agent);
    tcase_add_test(tc, values_as_go_pipeline_reads_them);
    suite_add_tcase(s, tc);
    return s;
}
