/* GitHub Actions expressions: lexer, parser, evaluation with GitHub's coercions, partial
 * evaluation and its canonical text, templates, `if:` values, limits and errors. The
 * bulk comparison with GitHub's own evaluator is test/conformance/expr.sh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/expr.h"
#include "fanout/ynode.h"
#include "unit.h"

/* A value in one line: strings quoted '...', numbers as GitHub turns them into text,
 * arrays and objects as [a,b] and {k:v}. */
static void dump(char *out, size_t size, const struct expr_value *v)
{
    size_t n = strlen(out);
    char *s;

    switch (expr_kind_of(v)) {
    case EXPR_NULL:
        snprintf(out + n, size - n, "null");
        break;
    case EXPR_BOOL:
        snprintf(out + n, size - n, "%s", expr_bool_value(v) ? "true" : "false");
        break;
    case EXPR_NUMBER:
        s = expr_to_string(v);
        snprintf(out + n, size - n, "%s", s);
        free(s);
        break;
    case EXPR_STRING:
        snprintf(out + n, size - n, "'%s'", expr_string_value(v, NULL));
        break;
    case EXPR_ARRAY:
    case EXPR_OBJECT:
        snprintf(out + n, size - n, expr_kind_of(v) == EXPR_ARRAY ? "[" : "{");
        for (size_t i = 0; i < expr_len(v); i++) {
            n = strlen(out);
            if (i)
                snprintf(out + n, size - n, ",");
            if (expr_kind_of(v) == EXPR_OBJECT) {
                n = strlen(out);
                snprintf(out + n, size - n, "%s:", expr_key(v, i, NULL));
            }
            dump(out, size, expr_kind_of(v) == EXPR_ARRAY ? expr_item(v, i) : expr_member(v, i));
        }
        n = strlen(out);
        snprintf(out + n, size - n, expr_kind_of(v) == EXPR_ARRAY ? "]" : "}");
        break;
    }
}

/* "V value", "R residual | unknown | status" or "E offset: message". */
static char result_text[4096];

static const char *show(int rc, const struct expr_result *r, const struct expr_error *err)
{
    result_text[0] = '\0';
    if (rc != 0) {
        snprintf(result_text, sizeof(result_text), "E %zu: %s", err->offset, err->message);
    } else if (r->value) {
        ck_assert_ptr_null(r->residual);
        snprintf(result_text, sizeof(result_text), "V ");
        dump(result_text, sizeof(result_text), r->value);
    } else {
        ck_assert_ptr_nonnull(r->residual);
        snprintf(result_text, sizeof(result_text), "R %s | %s | %s", r->residual, r->unknown,
                 r->status ? "status" : "-");
    }
    return result_text;
}

static struct expr_contexts *ctx;

/* The contexts of every test: matrix, strategy, inputs, env known; github, secrets,
 * steps, needs... unknown. */
static void setup(void)
{
    static const char *const json[][2] = {
        {"matrix", "{\"os\": \"Ubuntu\", \"node\": 18, \"part\": 0, \"py\": \"3.10\", \"flag\": true,"
                   " \"list\": [1, \"two\", null], \"obj\": {\"A\": {\"v\": 1}, \"b\": {\"v\": 2}},"
                   " \"q\": \"it's\", \"none\": null, \"nan\": [1], \"inj\": \"${{ secrets.X }}\","
                   " \"empty\": \"\"}"},
        {"strategy", "{\"job-index\": 2, \"job-total\": 4}"},
        {"inputs", "{\"name\": \"World\", \"count\": \"3\"}"},
        {"env", "{\"JSON\": \"{\\\"a\\\": [1, 2]}\", \"BAD\": \"{a: 1}\"}"},
    };

    ctx = expr_contexts_create();
    ck_assert_ptr_nonnull(ctx);
    for (size_t i = 0; i < sizeof(json) / sizeof(json[0]); i++) {
        char *error = NULL;
        struct expr_value *v = expr_from_json(json[i][1], strlen(json[i][1]), &error);

        ck_assert_msg(v != NULL, "%s: %s", json[i][0], error);
        ck_assert_int_eq(expr_contexts_set(ctx, json[i][0], v), 0);
    }
}

static void teardown(void)
{
    expr_contexts_destroy(ctx);
}

static const char *eval_as(const char *text, bool condition)
{
    struct expr_error err = {0};
    struct expr_result r;
    struct expr *e = expr_parse(text, strlen(text), &err);
    int rc = -1;

    memset(&r, 0, sizeof(r));
    if (e)
        rc = expr_eval(e, ctx, condition, &r, &err);
    show(rc, &r, &err);
    expr_result_clear(&r);
    expr_free(e);
    return result_text;
}

static const char *value_of(const char *text)
{
    return eval_as(text, false);
}

static const char *condition_of(const char *text)
{
    return eval_as(text, true);
}

typedef int (*text_eval_fn)(const char *text, size_t len, const struct expr_contexts *c,
                            struct expr_result *out, struct expr_error *err);

static const char *evaluated_by(text_eval_fn fn, const char *text)
{
    struct expr_error err = {0};
    struct expr_result r;
    int rc = fn(text, strlen(text), ctx, &r, &err);

    show(rc, &r, &err);
    expr_result_clear(&r);
    return result_text;
}

static const char *template_of(const char *text)
{
    return evaluated_by(expr_template_eval, text);
}

static const char *string_of(const char *text)
{
    return evaluated_by(expr_template_string, text);
}

static const char *if_of(const char *text)
{
    return evaluated_by(expr_condition_eval, text);
}

#define VALUE(text, want) ck_assert_str_eq(value_of(text), (want))
#define CONDITION(text, want) ck_assert_str_eq(condition_of(text), (want))
#define TEMPLATE(text, want) ck_assert_str_eq(template_of(text), (want))
#define STRING(text, want) ck_assert_str_eq(string_of(text), (want))
#define IF(text, want) ck_assert_str_eq(if_of(text), (want))

/* ---- lexer ---- */

START_TEST(lexer_literals)
{
    VALUE("null", "V null");
    VALUE("true", "V true");
    VALUE("0xff", "V 255");
    VALUE("0XFF", "V 255");
    VALUE("0b101", "V 5");
    VALUE("0o17", "V 15");
    VALUE("1e3", "V 1000");
    VALUE("-2.5E-1", "V -0.25");
    VALUE(".5", "V 0.5");
    VALUE("+1", "V 1");
    VALUE("5.", "V 5");
    VALUE("007", "V 7");
    VALUE("Infinity", "V Infinity");
    VALUE("-Infinity", "V -Infinity");
    VALUE("NaN", "V NaN");
    VALUE("1e400", "V Infinity");
    VALUE("'it''s'", "V 'it's'");
    VALUE("'a''b''c'", "V 'a'b'c'"); /* every '' (the npm package unescapes only the first) */
    VALUE("''", "V ''");
    VALUE("'line\nbreak'", "V 'line\nbreak'");
    VALUE(" \t\r\n1\n", "V 1");
}
END_TEST

START_TEST(lexer_errors)
{
    VALUE("\"x\"", "E 0: Unexpected symbol: '\"x\"'");
    VALUE("1 = 1", "E 2: Unexpected symbol: '='");
    VALUE("1 & 1", "E 2: Unexpected symbol: '&'");
    VALUE("1 | 1", "E 2: Unexpected symbol: '|'");
    VALUE("matrix.os == 'x", "E 13: Unexpected symbol: ''x'");
    VALUE("1_000", "E 0: Unexpected symbol: '1_000'");
    VALUE("-0x10", "E 0: Unexpected symbol: '-0x10'");
    VALUE("1.2.3", "E 0: Unexpected symbol: '1.2.3'");
    VALUE("- 1", "E 0: Unexpected symbol: '-'");
    VALUE("'a'.b", "E 3: Unexpected symbol: '.b'");
    VALUE("matrix\xc2\xa0.os", "E 6: Unexpected symbol: '\xc2\xa0'");
    VALUE("matrix.\xc3\xa9", "E 7: Unexpected symbol: '\xc3\xa9'");
    VALUE("'a\xff'", "E 2: invalid UTF-8");
    VALUE("", "E 0: An expression was expected");
    VALUE("  ", "E 0: An expression was expected");
}
END_TEST

/* ---- parser ---- */

START_TEST(parser_precedence)
{
    VALUE("true || false && false", "V true");
    VALUE("(true || false) && false", "V false");
    VALUE("!1 == false", "V true");
    VALUE("1 < 2 == 2 > 1", "V true");
    VALUE("1 == 1 == 1", "V true"); /* (1 == 1) == 1 */
    VALUE("2 > 1 > 0", "V true");   /* (2 > 1) > 0: true > 0 */
    VALUE("3 > 2 > 1", "V false");  /* true > 1 is 1 > 1 */
    VALUE("(matrix).os", "V 'Ubuntu'");
    VALUE("contains('a', 'A',)", "V true"); /* the package allows a trailing comma */
}
END_TEST

START_TEST(parser_errors)
{
    VALUE("1 2", "E 2: Unexpected symbol: '2'");
    VALUE("(1", "E 1: Unexpected end of expression: '1'");
    VALUE("1)", "E 1: Unexpected symbol: ')'");
    VALUE("1 ==", "E 2: Unexpected end of expression: '=='");
    VALUE("'a'[0]", "E 3: Unexpected symbol: '['");
    VALUE("matrix.", "E 7: Unexpected symbol: 'EOF'");
    VALUE("matrix.0", "E 7: Unexpected symbol: '0'");
    VALUE("foo.bar", "E 0: Unrecognized named-value: 'foo'");
    VALUE("nope(1)", "E 0: Unrecognized function: 'nope'");
    VALUE("contains('a')", "E 0: Too few parameters supplied: 'contains'");
    VALUE("toJSON(1, 2)", "E 0: Too many parameters supplied: 'toJSON'");
    VALUE("case(true, 1, 2, 3)",
          "E 0: Even number of parameters supplied, requires an odd number of parameters: 'case'");
    VALUE("success(1)", "E 0: Too many parameters supplied: 'success'");
    VALUE("hashFiles()", "E 0: Too few parameters supplied: 'hashFiles'");
    VALUE("format('{0}', 1,, 2)", "E 16: Unexpected symbol: ','");
}
END_TEST

/* A place's own argument counts (a job's if: lets failure() and success() name jobs),
 * and only the names it allows. */
START_TEST(parser_names)
{
    static const char *const contexts[] = {"needs"};
    static const struct expr_function functions[] = {{"failure", 0, UINT32_MAX}, {"always", 0, 0}};
    static const struct expr_names names = {contexts, 1, functions, 2};
    struct expr_error err;
    struct expr *e = expr_parse_in("failure('a', 'b') && needs.a.result", 35, &names, &err);

    ck_assert_ptr_nonnull(e);
    expr_free(e);
    ck_assert_ptr_null(expr_parse("failure('a')", 12, &err));
    ck_assert_str_eq(err.message, "Too many parameters supplied: 'failure'");
    ck_assert_ptr_null(expr_parse_in("always(1)", 9, &names, &err));
    ck_assert_str_eq(err.message, "Too many parameters supplied: 'always'");
    ck_assert_ptr_null(expr_parse_in("success()", 9, &names, &err));
    ck_assert_str_eq(err.message, "Unrecognized function: 'success'");
    ck_assert_ptr_null(expr_parse_in("github.sha", 10, &names, &err));
    ck_assert_str_eq(err.message, "Unrecognized named-value: 'github'");
}
END_TEST

/* A tree expr_parse made and kept is checked against a place's names: each context it
 * names anywhere (in any case), each function a place must allow with its count. */
START_TEST(parser_names_shared)
{
    static const char *const contexts[] = {"needs", "Github"};
    static const struct expr_function functions[] = {{"failure", 0, UINT32_MAX}};
    static const struct expr_names names = {contexts, 2, functions, 1};
    static const char deep[] = "needs.a.result == 'x' || (GITHUB.sha && toJSON(inputs.v[needs.b]))";
    static const char call[] = "needs.a && (github.x || contains(github.y, always()))";
    static const char fine[] = "failure() && GitHub.ref == needs.a.outputs.ref";
    struct expr_error err;
    bool not_here;
    struct expr *kept[3];

    kept[0] = expr_parse(deep, strlen(deep), &err);
    kept[1] = expr_parse(call, strlen(call), &err);
    kept[2] = expr_parse(fine, strlen(fine), &err);
    for (int i = 0; i < 3; i++)
        ck_assert_ptr_nonnull(kept[i]);
    ck_assert_int_eq(expr_check(deep, strlen(deep), &names, &not_here, &err), -1);
    ck_assert(not_here);
    ck_assert_str_eq(err.message, "Unrecognized named-value: 'inputs'");
    ck_assert_int_eq(expr_check(call, strlen(call), &names, &not_here, &err), -1);
    ck_assert(not_here);
    ck_assert_str_eq(err.message, "Unrecognized function: 'always'");
    ck_assert_int_eq(expr_check(fine, strlen(fine), &names, &not_here, &err), 0);
    ck_assert(!not_here);
    ck_assert_ptr_eq(expr_parse_in(fine, strlen(fine), &names, &err), kept[2]);
    {
        static const struct expr_function one[] = {{"hashFiles", 1, 1}};
        static const struct expr_names narrow = {contexts, 2, one, 1};
        static const char files[] = "hashFiles('a') && hashFiles('b', 'c') && needs.x";
        struct expr *e = expr_parse(files, strlen(files), &err);

        ck_assert_ptr_nonnull(e);
        ck_assert_ptr_null(expr_parse_in(files, strlen(files), &narrow, &err));
        ck_assert_str_eq(err.message, "Too many parameters supplied: 'hashFiles'");
        ck_assert_ptr_null(expr_parse_in(files, 14, &names, &err)); /* hashFiles('a') */
        ck_assert_str_eq(err.message, "Unrecognized function: 'hashFiles'");
        expr_free(e);
        e = expr_parse(files, 14, &err);
        ck_assert_ptr_nonnull(e);
        ck_assert_ptr_eq(expr_parse_in(files, 14, &narrow, &err), e); /* one argument: taken */
        expr_free(e);
        expr_free(e);
    }
    expr_free(kept[2]);
    for (int i = 0; i < 3; i++)
        expr_free(kept[i]);
}
END_TEST

/* Property names and string literals are shared between trees: a value taken from one
 * outlives it, and a tree freed leaves the others' values whole (texts past 1,024 bytes,
 * which expr_parse does not keep: their trees are freed). */
static struct expr *parse_padded(const char *text)
{
    char padded[1200];
    struct expr_error err;
    struct expr *e;

    snprintf(padded, sizeof(padded), "%-1100s", text);
    e = expr_parse(padded, strlen(padded), &err);
    ck_assert_ptr_nonnull(e);
    return e;
}

START_TEST(parser_shared_strings)
{
    struct expr_error err;
    struct expr_result r = {0}, s = {0};
    struct expr *a = parse_padded("'ubuntu'"), *b = parse_padded("matrix.os == 'ubuntu' && 'ubuntu'");
    char text[48];

    ck_assert_int_eq(expr_eval(a, ctx, false, &r, &err), 0);
    expr_free(a);
    for (int i = 0; i < 2000; i++) { /* more names than are kept */
        snprintf(text, sizeof(text), "github.name%d == 'v%d'", i, i);
        expr_free(parse_padded(text));
    }
    ck_assert_int_eq(expr_eval(b, ctx, false, &s, &err), 0);
    expr_free(b);
    ck_assert_str_eq(expr_string_value(r.value, NULL), "ubuntu");
    ck_assert_str_eq(expr_string_value(s.value, NULL), "ubuntu");
    expr_result_clear(&r);
    expr_result_clear(&s);
}
END_TEST

/* A text of `n` copies of `unit` around `middle`, closed by `n` copies of `close`. */
static char *nested(const char *unit, const char *middle, const char *close, int n)
{
    size_t len = (strlen(unit) + strlen(close)) * (size_t)n + strlen(middle) + 1;
    char *s = malloc(len);

    ck_assert_ptr_nonnull(s);
    s[0] = '\0';
    for (int i = 0; i < n; i++)
        strcat(s, unit);
    strcat(s, middle);
    for (int i = 0; i < n; i++)
        strcat(s, close);
    return s;
}

START_TEST(parser_depth)
{
    /* @actions/expressions counts 1 for the expression, 1 per !, per grouping, per
     * function argument, per index, and 1 per run of && or ||: 50 at most. */
    char *s = nested("!", "true", "", 49);

    VALUE(s, "V false");
    free(s);
    s = nested("!", "true", "", 50);
    VALUE(s, "E 50: Exceeded max expression depth 50: 'true'");
    free(s);
    s = nested("(", "1", ")", 49);
    VALUE(s, "V 1");
    free(s);
    s = nested("(", "1", ")", 50);
    VALUE(s, "E 50: Exceeded max expression depth 50: '1'");
    free(s);
    s = nested("", "matrix", ".obj", 49);
    VALUE(s, "V null");
    free(s);
    s = nested("", "matrix", ".obj", 50);
    ck_assert_int_eq(strncmp(value_of(s), "E ", 2), 0);
    free(s);
    s = nested("toJSON(", "1", ")", 49);
    ck_assert_int_eq(strncmp(value_of(s), "E ", 2), 0);
    free(s);
    s = nested("toJSON(", "1", ")", 10);
    ck_assert_int_eq(strncmp(value_of(s), "V '", 3), 0);
    free(s);
}
END_TEST

START_TEST(parser_long_runs)
{
    /* A run of comparisons is not counted by the package: 7,000 of them parse, and
     * evaluate without recursion. */
    char *s = nested("1 == ", "1", "", 4000);
    char *t = nested("true && ", "1", "", 2000);

    VALUE(s, "V true");
    VALUE(t, "V 1");
    free(s);
    free(t);
}
END_TEST

START_TEST(parser_length)
{
    char *s = malloc(21004);

    ck_assert_ptr_nonnull(s);
    memset(s, 'a', 21003);
    s[0] = s[20999] = '\'';
    s[21000] = '\0';
    ck_assert_int_eq(strncmp(value_of(s), "V 'aaa", 6), 0);
    s[20999] = 'a';
    s[21000] = '\'';
    s[21001] = '\0';
    VALUE(s, "E 0: Exceeded max expression length 21000");
    free(s);
}
END_TEST

/* ---- evaluation ---- */

START_TEST(eval_equality)
{
    VALUE("'ABC' == 'abc'", "V true");
    VALUE("'16' == 16", "V true");
    VALUE("'0x10' == 16", "V true");
    VALUE("' 1 ' == 1", "V true");
    VALUE("'' == 0", "V true");
    VALUE("'' == null", "V true"); /* null -> 0, '' -> 0 */
    VALUE("null == 0", "V true");
    VALUE("true == 1", "V true");
    VALUE("'true' == true", "V false"); /* 'true' -> NaN */
    VALUE("NaN == NaN", "V false");
    VALUE("matrix.list == matrix.list", "V true");
    VALUE("fromJSON('[]') == fromJSON('[]')", "V false");
    VALUE("matrix.list == 'Array'", "V false");
    VALUE("matrix.obj.* == matrix.obj.*", "V false"); /* a new filter each time */
    VALUE("'\xc3\xa9' == '\xc3\x89'", "V true");
    VALUE("'\xc4\xb1' == 'I'", "V false"); /* dotless i keeps its case */
    VALUE("'\xc5\xbf' == 's'", "V false"); /* long s keeps its case (OrdinalIgnoreCase) */
}
END_TEST

/* Every case-insensitive comparison is the runner's OrdinalIgnoreCase: each character's
 * simple upper case. @actions/expressions lower-cases for contains and keys, and
 * upper-cases fully elsewhere, so it answers otherwise on these. */
START_TEST(eval_case_runtime)
{
    /* final sigma, sigma, capital sigma: one upper case */
    VALUE("contains('\xcf\x82', '\xcf\x83')", "V true");
    VALUE("'\xcf\x82' == '\xcf\x83'", "V true");
    VALUE("startsWith('\xcf\x82x', '\xce\xa3')", "V true");
    VALUE("endsWith('x\xcf\x82', '\xcf\x83')", "V true");
    VALUE("contains(fromJSON('[\"\xcf\x82\"]'), '\xcf\x83')", "V true");
    VALUE("fromJSON('{\"\xcf\x82\": 1}')['\xcf\x83']", "V 1");
    /* micro sign and mu */
    VALUE("contains('\xc2\xb5', '\xce\xbc')", "V true");
    /* long s and dotless i map to no ASCII letter */
    VALUE("contains('\xc5\xbf', 's')", "V false");
    VALUE("endsWith('x\xc5\xbf', 'S')", "V false");
    VALUE("'\xc5\xbf' > 's'", "V true"); /* U+017F after S */
    VALUE("contains('\xc4\xb1', 'i')", "V false");
    /* Kelvin sign is its own upper case: not k */
    VALUE("contains('\xe2\x84\xaa', 'k')", "V false");
    VALUE("fromJSON('{\"k\": 1}')['\xe2\x84\xaa']", "V null");
    /* sharp s has no one-character upper case; dotted I's lower case is two */
    VALUE("'\xc3\x9f' == 'SS'", "V false");
    VALUE("contains('\xc4\xb0', 'i')", "V false");
    /* simple mappings where the full one is two characters: alpha with ypogegrammeni */
    VALUE("'\xe1\xbe\x80' == '\xe1\xbe\x88'", "V true");
    /* a surrogate pair (Deseret) */
    VALUE("contains('\xf0\x90\x90\xa8', '\xf0\x90\x90\x80')", "V true");
}
END_TEST

START_TEST(eval_comparison)
{
    VALUE("'a' < 'B'", "V true");
    VALUE("'B' <= 'b'", "V true");
    VALUE("null >= 0", "V true");
    VALUE("null > null", "V false");
    VALUE("true > false", "V true");
    VALUE("'10' > 9", "V true");
    VALUE("'abc' > 1", "V false");
    VALUE("matrix.list > 0", "V false");
    VALUE("'\xef\xbd\x81' > '\xf0\x9f\x98\x80'", "V true"); /* UTF-16 order: U+FF41 > U+1F600 */
}
END_TEST

START_TEST(eval_logic)
{
    VALUE("1 && 'x'", "V 'x'");
    VALUE("0 && 'x'", "V 0");
    VALUE("'' || null", "V null");
    VALUE("'' || 'b' || 'c'", "V 'b'");
    VALUE("!''", "V true");
    VALUE("!'0'", "V false");
    VALUE("!NaN", "V true");
    VALUE("!matrix.list", "V false");
    VALUE("false && fromJSON('x')", "V false"); /* never evaluated */
}
END_TEST

START_TEST(eval_index)
{
    VALUE("matrix.OS", "V 'Ubuntu'");
    VALUE("MATRIX['os']", "V 'Ubuntu'");
    VALUE("matrix.list[1]", "V 'two'");
    VALUE("matrix.list['1']", "V 'two'");
    VALUE("matrix.list[1.9]", "V 'two'");
    VALUE("matrix.list['']", "V 1"); /* Number('') is 0 */
    VALUE("matrix.list[true]", "V 'two'");
    VALUE("matrix.list[-1]", "V null");
    VALUE("matrix.list[9]", "V null");
    VALUE("matrix.list.x", "V null");
    VALUE("matrix.os.x", "V null");
    VALUE("matrix.obj.*.v", "V [1,2]");
    VALUE("matrix.obj.*", "V [{v:1},{v:2}]");
    VALUE("matrix.obj[*].v", "V [1,2]");
    VALUE("(matrix.obj.*).v", "V [1,2]");
    VALUE("matrix.list.*[0]", "V []");
    VALUE("matrix.os.*", "V []");
    VALUE("matrix.obj.a.v", "V 1");
    VALUE("strategy.job-index", "V 2");
}
END_TEST

/* A member known in part deeper than a context's own members (`needs.<job>.result` of a
 * job that may run, whose outputs are known): reading it stays unknown, the rest folds. */
START_TEST(eval_unknown_nested)
{
    struct expr_contexts *c = expr_contexts_create();
    struct expr_value *needs = expr_object(), *job = expr_object(), *outputs = expr_object();
    struct expr_result res = {0};
    struct expr_error err;
    static const char both[] = "needs.a.result == 'success' && needs.a.outputs.x == 'true'";
    static const char one[] = "needs.a.result == 'success'";
    static const char known[] = "needs.a.outputs.x";
    struct expr *e = expr_parse("always() && true", 16, &err);

    ck_assert(expr_calls_status(e));
    expr_free(e);
    e = expr_parse(one, strlen(one), &err);
    ck_assert(!expr_calls_status(e));
    expr_free(e);
    ck_assert_int_eq(expr_object_set(outputs, "x", 1, expr_string("false", 5)), 0);
    ck_assert_int_eq(expr_object_set(job, "result", 6, expr_unknown()), 0);
    ck_assert_int_eq(expr_object_set(job, "outputs", 7, outputs), 0);
    ck_assert_int_eq(expr_object_set(needs, "a", 1, job), 0);
    ck_assert_int_eq(expr_contexts_set(c, "needs", needs), 0);
    ck_assert_int_eq(expr_condition_eval(both, strlen(both), c, &res, &err), 0);
    ck_assert_ptr_nonnull(res.value);
    ck_assert(!expr_truthy(res.value));
    expr_result_clear(&res);
    ck_assert_int_eq(expr_condition_eval(one, strlen(one), c, &res, &err), 0);
    ck_assert_ptr_null(res.value);
    ck_assert_str_eq(res.residual, "needs.a.result == 'success'");
    expr_result_clear(&res);
    ck_assert_int_eq(expr_condition_eval(known, strlen(known), c, &res, &err), 0);
    ck_assert_ptr_nonnull(res.value);
    expr_result_clear(&res);
    expr_contexts_destroy(c);
}
END_TEST

START_TEST(eval_functions)
{
    VALUE("contains('Hello', 'ELL')", "V true");
    VALUE("contains(matrix.list, 'TWO')", "V true");
    VALUE("contains(matrix.list, null)", "V true");
    VALUE("contains(matrix.obj, 'A')", "V false");
    VALUE("startsWith('Hello', 'he')", "V true");
    VALUE("endsWith(matrix.py, '.10')", "V true");
    VALUE("endsWith(matrix.list, 'o')", "V false");
    VALUE("format('{0}-{1}', 'a', 3.5)", "V 'a-3.5'");
    VALUE("format('{{{0}}}', 1)", "V '{1}'");
    VALUE("format('}}{{')", "V '}{'");
    VALUE("format('{0:x}', 1)", "V '1'");
    VALUE("format('{1 {0}', 'a', 'b')", "V 'b'"); /* {1 ... } reads as {1} */
    VALUE("format('{0}', matrix.list, 1)", "V 'Array'");
    VALUE("format('{1}', 1)",
          "E 0: The following format string references more arguments than were supplied: {1}");
    VALUE("format('{', 1)", "E 0: The following format string is invalid: {");
    VALUE("format('}', 1)", "E 0: The following format string is invalid: }");
    VALUE("join(matrix.list)", "V '1,two,'");
    VALUE("join(matrix.list, ' + ')", "V '1 + two + '");
    VALUE("join(matrix.list, matrix.list)", "V '1,two,'");
    VALUE("join('abc', '-')", "V 'abc'");
    VALUE("join(matrix.obj)", "V ''");
    VALUE("toJSON(matrix.obj)", "V '{\n  \"A\": {\n    \"v\": 1\n  },\n  \"b\": {\n    \"v\": 2\n  }\n}'");
    VALUE("toJSON(fromJSON('[]'))", "V '[]'");
    VALUE("toJSON('a\"\\\x01')", "V '\"a\\\"\\\\\\u0001\"'");
    VALUE("toJSON(1e21)", "V '1e+21'");
    VALUE("toJSON(NaN)", "V 'null'");
    VALUE("fromJSON(env.JSON).a[1]", "V 2");
    VALUE("fromJSON('{\"a\": 1, \"A\": 2, \"a\": 3}')", "V {a:3}");
    VALUE("fromJSON(' ')", "E 0: fromJSON: empty input");
    VALUE("fromJSON('[1,]')",
          "E 0: Error parsing JSON when evaluating fromJSON: Unexpected token at position 3");
    VALUE("fromJSON('[1] [2]')", "E 0: Error parsing JSON when evaluating fromJSON: Unexpected "
                                 "non-whitespace character after JSON at position 4");
    VALUE("case(false, 1, true, 2, 3)", "V 2");
    VALUE("case(false, 1, 3)", "V 3");
    VALUE("case('yes', 1, 3)", "E 0: case predicate must evaluate to a boolean value");
    VALUE("CONTAINS('a', 'a')", "V true");
}
END_TEST

START_TEST(eval_long_message)
{
    /* A message cut at 200 bytes does not end inside a character. */
    char text[400] = "format('{";
    const char *msg;
    size_t n;

    for (int i = 0; i < 150; i++)
        strcat(text, "\xc3\xa9");
    strcat(text, "', 1)");
    msg = value_of(text);
    n = strlen(msg);
    ck_assert_int_eq(strncmp(msg, "E 0: The following format string is invalid: {\xc3\xa9", 48), 0);
    ck_assert_uint_lt(n, 205);
    ck_assert_int_eq((unsigned char)msg[n - 1], 0xa9);
}
END_TEST

START_TEST(eval_numbers_as_text)
{
    VALUE("format('{0}', 0.30000000000000004)", "V '0.3'");
    VALUE("format('{0}', 0.3333333333333333)", "V '0.333333333333333'");
    VALUE("format('{0}', 0.0000152587890625)", "V '0.000015258789063'"); /* a tie: away from 0 */
    VALUE("format('{0}', 1e21)", "V '1e+21'");
    VALUE("format('{0}', 1e-7)", "V '1e-7'");
    VALUE("format('{0}', 123456789012345680000)", "V '123456789012345680000'");
    VALUE("format('{0}', -0)", "V '0'");
    VALUE("format('{0}', matrix.py)", "V '3.10'");
    VALUE("toJSON(0.30000000000000004)", "V '0.30000000000000004'");
    VALUE("toJSON(5e-324)", "V '5e-324'");
}
END_TEST

/* .NET's G15, as GitHub's runtime prints numbers: ties away from zero, E+XX. */
START_TEST(numbers_g15)
{
    static const struct {
        double d;
        const char *want;
    } cases[] = {
        {0.1, "0.1"}, {1e-7, "1E-07"}, {1e-5, "1E-05"}, {0.0001, "0.0001"}, {1e15, "1E+15"},
        {123456789012345, "123456789012345"}, {1234567890123445, "1.23456789012345E+15"},
        {0.30000000000000004, "0.3"}, {999999999999999.9, "1E+15"}, {-2.5, "-2.5"},
        {1.5e300, "1.5E+300"}, {5e-324, "4.94065645841247E-324"}, {-0.0, "-0"},
        {NAN, "NaN"}, {INFINITY, "Infinity"}, {-INFINITY, "-Infinity"},
        /* integers below 1E+15 are their digits */
        {7, "7"}, {-42, "-42"}, {999999999999999, "999999999999999"}, {-999999999999999, "-999999999999999"},
    };
    char buf[EXPR_NUMBUF];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_uint_eq(expr_g15_number(cases[i].d, buf), strlen(cases[i].want));
        ck_assert_str_eq(buf, cases[i].want);
    }
}
END_TEST

/* A text parsed again shares the tree parsed before (expr_parse keeps them): each
 * parse is still freed on its own, and stays whole however many texts come after. */
START_TEST(parser_shared)
{
    static const char text[] = "matrix.os == 'ubuntu'";
    struct expr_error err;
    struct expr_result r = {0};
    struct expr *a = expr_parse(text, strlen(text), &err), *b = expr_parse(text, strlen(text), &err);
    char other[32];

    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_eq(a, b);
    expr_free(a);
    for (int i = 0; i < 5000; i++) { /* more texts than are kept */
        snprintf(other, sizeof(other), "matrix.part == %d", i);
        expr_free(expr_parse(other, strlen(other), &err));
    }
    ck_assert_int_eq(expr_eval(b, ctx, false, &r, &err), 0);
    ck_assert(expr_truthy(r.value));
    expr_result_clear(&r);
    expr_free(b);
}
END_TEST

/* A template split before (kept with its format() check) evaluates anew: other
 * contexts, other values; a template whose format() GitHub refuses is refused again. */
START_TEST(template_again)
{
    static const char json[] = "{\"os\": \"macOS\", \"node\": 20}";
    struct expr_value *m = expr_from_json(json, strlen(json), NULL);
    char many[4096] = "";

    TEMPLATE("on ${{ matrix.os }} node ${{ matrix.node }}", "V 'on Ubuntu node 18'");
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(expr_contexts_set(ctx, "matrix", m), 0);
    TEMPLATE("on ${{ matrix.os }} node ${{ matrix.node }}", "V 'on macOS node 20'");
    for (int i = 0; i < 255; i++)
        strcat(many, "${{ 1 }}-");
    TEMPLATE(many, "E 0: Too many parameters supplied: 'format'");
    TEMPLATE(many, "E 0: Too many parameters supplied: 'format'");
}
END_TEST

START_TEST(eval_string_cap)
{
    /* toJSON of toJSON doubles its length each time: refused past the runner's 1 MiB,
     * where each piece toJSON writes costs 26 bytes and a character two. */
    char *s = nested("toJSON(", "'\"'", ")", 30);
    struct expr_value *m = expr_object(), *big = expr_array();
    char *text = malloc(524274);

    ck_assert_str_eq(value_of(s), "E 84: The maximum allowed memory size was exceeded while "
                                  "evaluating toJSON (GitHub's runner allows 1048576 bytes, a "
                                  "character counting two)");
    free(s);
    /* "..." of 524,273 characters: 26 + 2 * 524,275 bytes, the most allowed */
    ck_assert_ptr_nonnull(text);
    memset(text, 'x', 524274);
    ck_assert_int_eq(expr_object_set(m, "fits", 4, expr_string(text, 524273)), 0);
    ck_assert_int_eq(expr_object_set(m, "over", 4, expr_string(text, 524274)), 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(expr_array_append(big, expr_string(text, 524274)), 0);
    ck_assert_int_eq(expr_object_set(m, "big", 3, big), 0);
    free(text);
    ck_assert_int_eq(expr_contexts_set(ctx, "matrix", m), 0);
    VALUE("toJSON(matrix.fits) == ''", "V false");
    ck_assert_str_eq(value_of("toJSON(matrix.over)"),
                     "E 0: The maximum allowed memory size was exceeded while evaluating toJSON "
                     "(GitHub's runner allows 1048576 bytes, a character counting two)");
    /* a residual far past GitHub's length is that error, not out of memory */
    ck_assert_str_eq(value_of("matrix.big == github.x"),
                     "E 0: the expression left to GitHub would be refused: Exceeded max "
                     "expression length 21000");
}
END_TEST

/* ---- partial evaluation ---- */

START_TEST(partial_brief)
{
    CONDITION("matrix.part == 0 && (success() || failure())",
              "R success() || failure() | success, failure | status");
    char *error = NULL;

    ck_assert_int_eq(expr_contexts_set(ctx, "matrix", expr_from_json("{\"part\": 1}", 11, &error)), 0);
    CONDITION("matrix.part == 0 && (success() || failure())", "V false");
}
END_TEST

START_TEST(partial_logic)
{
    VALUE("true && github.x", "R github.x | github | -");
    VALUE("false && github.x", "V false");
    VALUE("'' || github.x", "R github.x | github | -");
    VALUE("'a' || github.x", "V 'a'");
    VALUE("github.x && true", "R github.x && true | github | -");
    CONDITION("github.x && true", "R github.x | github | -");
    VALUE("github.x || ''", "R github.x || '' | github | -");
    CONDITION("github.x || ''", "R github.x | github | -");
    VALUE("github.x && true && github.y", "R github.x && github.y | github | -");
    VALUE("github.x && 0 && github.y", "R github.x && 0 | github | -");
    CONDITION("github.x && 0 && github.y", "V 0");
    CONDITION("success() && matrix.os == 'windows'", "V false");
    CONDITION("!(github.x && false)", "V true");
    /* It could fail at run time, so it stays. */
    CONDITION("fromJSON(github.x) && false", "R fromJSON(github.x) && false | github | -");
    /* A parenthesised run of the same operator folds as part of the run (fuzz finding:
     * the group kept `|| null`, the flat residual then dropped it). */
    VALUE("(github.x || matrix.none) || ''", "R github.x || '' | github | -");
    VALUE("(github.x || 'a') || github.y", "R github.x || 'a' | github | -");
    VALUE("github.x && (true && (github.y && 1))", "R github.x && github.y && 1 | github | -");
}
END_TEST

START_TEST(partial_status)
{
    /* A status function folded away is replaced: GitHub adds success() otherwise. */
    CONDITION("failure() || true", "R always() | always | status");
    CONDITION("(true || always()) && github.x == 'a'",
              "R always() && github.x == 'a' | always, github | status");
    CONDITION("always() && false", "V false");
    CONDITION("matrix.os == 'Ubuntu'", "V true");
    VALUE("success()", "R success() | success | status");
    VALUE("hashFiles('**/*.lock', matrix.os)", "R hashFiles('**/*.lock', 'Ubuntu') | hashFiles | -");
}
END_TEST

START_TEST(partial_errors)
{
    /* fromJSON fails only if GitHub reaches it. */
    VALUE("github.x || fromJSON(env.BAD)", "R github.x || fromJSON('{a: 1}') | github | -");
    VALUE("fromJSON(env.BAD) || github.x",
          "E 0: Error parsing JSON when evaluating fromJSON: Expected property name at position 1");
    VALUE("github.x == fromJSON(env.BAD)",
          "E 12: Error parsing JSON when evaluating fromJSON: Expected property name at position 1");
}
END_TEST

/* A residual that is its tree as parsed is kept with the (shared) tree; one that folded
 * something is written anew, and does not replace it. */
START_TEST(partial_kept)
{
    static const char text[] = "github.a == matrix.os && contains(github.b, 'x') || always()";
    struct expr_contexts *none = expr_contexts_create();

    ck_assert_ptr_nonnull(none);
    for (int i = 0; i < 2; i++) {
        struct expr_contexts *c = i ? ctx : none;
        const char *residual = i ? "github.a == 'Ubuntu' && contains(github.b, 'x') || always()" : text;
        const char *unknown = i ? "github, always" : "github, matrix, always";

        for (int again = 0; again < 2; again++) {
            struct expr_error err = {0};
            struct expr_result r;
            struct expr *e = expr_parse(text, strlen(text), &err);

            ck_assert_ptr_nonnull(e);
            ck_assert_int_eq(expr_eval(e, c, again, &r, &err), 0);
            ck_assert_str_eq(r.residual, residual);
            ck_assert_str_eq(r.unknown, unknown);
            ck_assert(r.status);
            expr_result_clear(&r);
            expr_free(e);
        }
    }
    expr_contexts_destroy(none);
}
END_TEST

START_TEST(partial_canonical)
{
    VALUE("GITHUB.Event.Action", "R github.Event.Action | github | -");
    VALUE("github['a b']['c']", "R github['a b'].c | github | -");
    VALUE("github[matrix.os]", "R github.Ubuntu | github | -");
    VALUE("github[matrix.node]", "R github[18] | github | -");
    VALUE("github.x[*]", "R github.x.* | github | -");
    VALUE("STARTSWITH(github.ref , 'refs/' )", "R startsWith(github.ref, 'refs/') | github | -");
    VALUE("(github.a || github.b) && github.c", "R (github.a || github.b) && github.c | github | -");
    VALUE("github.a || (github.b || github.c)", "R github.a || github.b || github.c | github | -");
    VALUE("github.a == (github.b == 1)", "R github.a == (github.b == 1) | github | -");
    VALUE("(github.a == github.b) == 1", "R github.a == github.b == 1 | github | -");
    VALUE("!(github.a < 1)", "R !(github.a < 1) | github | -");
    VALUE("(!github.a) < 1", "R !github.a < 1 | github | -");
    VALUE("1 == 2 == github.a", "R false == github.a | github | -");
    VALUE("github.a == 1 == 2", "R github.a == 1 == 2 | github | -");
    VALUE("contains(matrix.list, github.x)",
          "R contains(fromJSON('[1,\"two\",null]'), github.x) | github | -");
    VALUE("contains(matrix.obj.*, github.x)",
          "R contains(fromJSON('[{\"v\":1},{\"v\":2}]').*, github.x) | github | -");
    VALUE("matrix.q == github.x", "R 'it''s' == github.x | github | -");
    VALUE("matrix.obj[github.x]",
          "R fromJSON('{\"A\":{\"v\":1},\"b\":{\"v\":2}}')[github.x] | github | -");
    VALUE("fromJSON(toJSON(matrix.q))[github.x]", "R ('it''s')[github.x] | github | -");
    VALUE("format('{0} {1}', 1e21, secrets.token)", "R format('{0} {1}', 1e+21, secrets.token) | secrets | -");
    VALUE("-1 < github.a", "R -1 < github.a | github | -");
    VALUE("NaN == github.a", "R NaN == github.a | github | -");
    VALUE("github.a && 0.1", "R github.a && 0.1 | github | -");
}
END_TEST

START_TEST(partial_unwritable)
{
    struct expr_value *m = expr_object(), *a = expr_array(), *s;
    char *long_text = malloc(30001);

    /* NaN inside an array has no JSON spelling for fromJSON('...'). */
    ck_assert_ptr_nonnull(long_text);
    ck_assert_int_eq(expr_array_append(a, expr_number(NAN)), 0);
    ck_assert_int_eq(expr_object_set(m, "a", 1, a), 0);
    memset(long_text, 'x', 30000);
    s = expr_string(long_text, 30000);
    free(long_text);
    ck_assert_int_eq(expr_object_set(m, "long", 4, s), 0);
    ck_assert_int_eq(expr_contexts_set(ctx, "matrix", m), 0);
    VALUE("contains(matrix.a, github.x)",
          "E 0: a known value cannot be written into the expression: NaN inside an array or "
          "object (JSON has no NaN)");
    /* ±Infinity has one: a number past a double's range, read back as ±Infinity. */
    VALUE("github.x || fromJSON('[1e999, {\"a\": -1e999}]')",
          "R github.x || fromJSON('[1e400,{\"a\":-1e400}]') | github | -");
    VALUE("fromJSON('[1e400]') == github.x", "R fromJSON('[1e400]') == github.x | github | -");
    VALUE("matrix.a[0] == github.x", "R NaN == github.x | github | -");
    /* Nor can a residual longer than GitHub allows. */
    ck_assert_int_eq(strncmp(value_of("matrix.long == github.x"),
                             "E 0: the expression left to GitHub would be refused: Exceeded max "
                             "expression length 21000",
                             90),
                     0);
}
END_TEST

/* A residual deeper than GitHub's parser goes is refused, though what was written was
 * not: a known object is written fromJSON('...'), its argument a level deeper than the
 * context it replaces. write_residual parses a residual again only when its tokens could
 * reach the limit; this one's do. */
START_TEST(partial_too_deep)
{
    char *s = nested("!", "(strategy == github)", "", 48);

    VALUE(s, "E 0: the expression left to GitHub would be refused: Exceeded max expression depth 50: "
             "\'\'{\"job-index\":2,\"job-total\":4}\'\'");
    free(s);
    s = nested("!", "(strategy == github)", "", 47);
    ck_assert_int_eq(strncmp(value_of(s), "R !!!", 5), 0);
    free(s);
    /* a run of && far past 48 tokens that raise a level, which the parser takes */
    s = nested("github.a && ", "github.b", "", 60);
    ck_assert_int_eq(strncmp(value_of(s), "R github.a && github.a && ", 26), 0);
    free(s);
}
END_TEST

/* A context known in part (a workflow's inputs, one declared without a default and not
 * given): its known members fold, the unknown one stays as written, the whole is unknown. */
START_TEST(partial_unknown_member)
{
    struct expr_value *in = expr_object();

    ck_assert_int_eq(expr_object_set(in, "size", 4, expr_number(1200)), 0);
    ck_assert_int_eq(expr_object_set(in, "timeout", 7, expr_unknown()), 0);
    ck_assert(expr_holds_unknown(in));
    ck_assert_int_eq(expr_contexts_set(ctx, "inputs", in), 0);
    VALUE("inputs.size", "V 1200");
    VALUE("inputs['SIZE'] == 1200", "V true");
    VALUE("inputs.timeout", "R inputs.timeout | inputs | -");
    VALUE("inputs.timeout || inputs.size", "R inputs.timeout || 1200 | inputs | -");
    VALUE("inputs.missing", "V null");
    VALUE("toJSON(inputs)", "R toJSON(inputs) | inputs | -");
    TEMPLATE("--timeout ${{ inputs.timeout }} --size ${{ inputs.size }}",
             "R --timeout ${{ inputs.timeout }} --size 1200 | inputs | -");
}
END_TEST

START_TEST(partial_uses_context)
{
    struct expr_error err;
    struct expr *e = expr_parse("MATRIX.os || github['x']", 24, &err);

    ck_assert_ptr_nonnull(e);
    ck_assert(expr_uses_context(e, "matrix"));
    ck_assert(expr_uses_context(e, "GitHub"));
    ck_assert(!expr_uses_context(e, "secrets"));
    ck_assert(!expr_uses_context(e, "matri"));
    expr_free(e);
}
END_TEST

/* ---- templates and if: ---- */

START_TEST(template_values)
{
    TEMPLATE("plain text", "V 'plain text'");
    TEMPLATE("", "V ''");
    TEMPLATE("${{ matrix.node }}", "V 18");
    TEMPLATE("${{ matrix.list }}", "V [1,'two',null]");
    TEMPLATE(" ${{ matrix.node }}", "V ' 18'"); /* text around: a string */
    TEMPLATE("node-${{ matrix.node }}/${{ matrix.list }}", "V 'node-18/Array'");
    TEMPLATE("${{ 'a}}b' }}", "V 'a}}b'");
    TEMPLATE("${{ 'it''s}}' }}!", "V 'it's}}!'");
    TEMPLATE("$${{ matrix.os }}", "V '$Ubuntu'");
    TEMPLATE("{{ x }} ${{ 1 }}", "V '{{ x }} 1'");
    TEMPLATE("${{ matrix.os }}}", "V 'Ubuntu}'");
}
END_TEST

/* Where GitHub's runtime makes a string: numbers in G15 (-0 is 0 around text), null
 * empty; an array or object alone is handed back. */
START_TEST(template_strings)
{
    STRING("x ${{ 1e-7 }} ${{ -0 }} ${{ null }}", "V 'x 1E-07 0 '");
    STRING("${{ 12345678901234567 }}", "V '1.23456789012346E+16'");
    STRING("${{ -0 }}", "V '-0'");
    STRING("${{ true }}", "V 'true'");
    STRING("${{ null }}", "V ''");
    STRING("${{ matrix.list }}", "V [1,'two',null]");
    STRING("${{ github.ref }}", "R ${{ github.ref }} | github | -");
}
END_TEST

START_TEST(template_residuals)
{
    TEMPLATE("${{ github.ref }}", "R ${{ github.ref }} | github | -");
    TEMPLATE("run ${{ matrix.os }} on ${{ github.ref }}!",
             "R run Ubuntu on ${{ github.ref }}! | github | -");
    TEMPLATE("${{ matrix.empty }}${{ github.ref }}",
             "R ${{ format('{0}', github.ref) }} | github | -");
    TEMPLATE("${{ matrix.inj }} ${{ github.ref }}",
             "R ${{ '${{ secrets.X }} ' }}${{ github.ref }} | github | -");
    TEMPLATE("$${{ '{{ secrets.X }}' }}${{ github.ref }}",
             "R ${{ '${{ secrets.X }}' }}${{ github.ref }} | github | -");
    TEMPLATE("${{ secrets.A }}-${{ github.B }}-${{ secrets.C }}",
             "R ${{ secrets.A }}-${{ github.B }}-${{ secrets.C }} | secrets, github | -");
}
END_TEST

START_TEST(template_errors)
{
    TEMPLATE("a ${{ matrix.os", "E 2: The expression is not closed. An unescaped ${{ sequence "
                                "was found, but the closing }} sequence was not found.");
    TEMPLATE("a ${{ 'x }}' ", "E 2: The expression is not closed. An unescaped ${{ sequence was "
                              "found, but the closing }} sequence was not found.");
    TEMPLATE("ab ${{  }}", "E 3: An expression was expected");
    TEMPLATE("ab ${{ 1 = 1 }}", "E 9: Unexpected symbol: '='");
    TEMPLATE("x ${{ fromJSON('') }}", "E 6: fromJSON: empty input");
}
END_TEST

START_TEST(template_format_limits)
{
    /* Several parts make format('...', a, b...): at most 254 expressions, and one level
     * deeper than each expression alone. */
    char *s = nested("${{ 1 }}", "", "", 254), *bangs = nested("!", "true", "", 49);
    char one[100], two[128];
    struct expr_result r;
    struct expr_error err;

    ck_assert_int_eq(strncmp(template_of(s), "V '1111", 7), 0);
    free(s);
    s = nested("${{ 1 }}", "", "", 255);
    TEMPLATE(s, "E 0: Too many parameters supplied: 'format'");
    free(s);
    snprintf(one, sizeof(one), "${{ %s }}", bangs);
    snprintf(two, sizeof(two), "x %s", one);
    free(bangs);
    TEMPLATE(one, "V false");
    TEMPLATE(two, "E 0: Exceeded max expression depth 50: 'true'");
    /* one level less fits (told without parsing the format() call: format_fits) */
    bangs = nested("!", "true", "", 48);
    snprintf(two, sizeof(two), "x ${{ %s }}", bangs);
    free(bangs);
    TEMPLATE(two, "V 'x true'");
    /* the format() text's length: its quotes and braces doubled */
    s = malloc(21000);
    memset(s, '{', 10500);
    strcpy(s + 10500, "${{ 1 }}");
    TEMPLATE(s, "E 0: Exceeded max expression length 21000");
    strcpy(s + 10480, "${{ 1 }}");
    ck_assert_int_eq(expr_template_eval(s, strlen(s), ctx, &r, &err), 0);
    ck_assert_uint_eq(strlen(expr_string_value(r.value, NULL)), 10481);
    expr_result_clear(&r);
    free(s);
}
END_TEST

START_TEST(condition_forms)
{
    IF("matrix.part == 0", "V true");
    IF("${{ matrix.part == 1 }}", "V false");
    IF("  ", "R success() | success | status");
    IF("${{ 'success()' }}", "R success() | success | status"); /* a string is read again */
    IF("true && ${{ false }}", "V 'true && false'");
    IF("${{ github.x }} == 1", "R format('{0} == 1', github.x) | github | -");
    IF("github.event_name == 'push' && matrix.os == 'Ubuntu'",
       "R github.event_name == 'push' | github | -");
    IF("matrix.os == 'Ubuntu' || github.x", "V true");
    IF("!cancelled() && matrix.part == 0", "R !cancelled() | cancelled | status");
    IF("x == 1", "E 0: Unrecognized named-value: 'x'");
    IF("  ${{ 1 == }}", "E 8: Unexpected end of expression: '=='");
}
END_TEST

/* The expression GitHub's converter makes of an if: value (if-condition.js), as text, with
 * where it stands in the value ("@N", "@-" when not written there) and "F" when it is a
 * format() string; or "E offset: message". */
static const char *condition_text_of(const char *text, const struct expr_names *names)
{
    static char out[512];
    struct expr_error err;
    size_t len, base;
    bool formatted;
    char *c = expr_condition_text(text, strlen(text), names, &len, &base, &formatted, &err);

    if (!c)
        snprintf(out, sizeof(out), "E %zu: %s", err.offset, err.message);
    else if (base == SIZE_MAX)
        snprintf(out, sizeof(out), "%s @-%s", c, formatted ? " F" : "");
    else
        snprintf(out, sizeof(out), "%s @%zu", c, base);
    ck_assert(!c || strlen(c) == len);
    free(c);
    return out;
}

START_TEST(condition_texts)
{
    static const char *const contexts[] = {"github"};
    static const struct expr_function functions[] = {{"failure", 0, 9}};
    static const struct expr_names job_if = {contexts, 1, functions, 1};

    ck_assert_str_eq(condition_text_of("  github.x == 1 ", NULL), "github.x == 1 @2");
    ck_assert_str_eq(condition_text_of("${{ github.x }}", NULL), "github.x @4");
    ck_assert_str_eq(condition_text_of("", NULL), "success() @-");
    ck_assert_str_eq(condition_text_of(" \n", NULL), "success() @-");
    ck_assert_str_eq(condition_text_of("${{ ' success() ' }}", NULL), "success() @-");
    ck_assert_str_eq(condition_text_of("${{ github.x }} == 'a'", NULL), "format('{0} == ''a''', github.x) @- F");
    ck_assert_str_eq(condition_text_of("${{ github.x }}\n", NULL), "format('{0}\n', github.x) @- F");
    /* the parts parse as the place allows: a job's failure() may name jobs */
    ck_assert_str_eq(condition_text_of("${{ failure('a') }} x", &job_if), "format('{0} x', failure('a')) @- F");
    ck_assert_str_eq(condition_text_of("${{ failure('a') }} x", NULL), "E 4: Too many parameters supplied: 'failure'");
    ck_assert_str_eq(condition_text_of("${{ github.x", NULL),
                     "E 0: The expression is not closed. An unescaped ${{ sequence was found, but the closing }} "
                     "sequence was not found.");
}
END_TEST

/* ---- values ---- */

START_TEST(values_objects)
{
    struct expr_value *o = expr_object();
    char key[16];

    ck_assert_ptr_nonnull(o);
    ck_assert_int_eq(expr_object_set(o, "Key", 3, expr_number(1)), 0);
    ck_assert_int_eq(expr_object_set(o, "KEY", 3, expr_number(2)), 0);
    ck_assert_uint_eq(expr_len(o), 1);
    ck_assert_str_eq(expr_key(o, 0, NULL), "Key");
    ck_assert(expr_number_value(expr_get(o, "key", 3)) == 2);
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        ck_assert_int_eq(expr_object_set(o, key, strlen(key), expr_number(i)), 0);
    }
    ck_assert_uint_eq(expr_len(o), 1001);
    ck_assert(expr_number_value(expr_get(o, "K777", 4)) == 777);
    ck_assert_str_eq(expr_key(o, 778, NULL), "k777");
    ck_assert_ptr_null(expr_get(o, "k1000", 5));
    ck_assert_int_eq(expr_array_append(o, expr_null()), -1); /* not an array */
    /* added without a look (a key it lacks): found as one set is, the index kept */
    ck_assert_int_eq(expr_object_add(o, "added", 5, expr_number(-1)), 0);
    ck_assert_uint_eq(expr_len(o), 1002);
    ck_assert(expr_number_value(expr_get(o, "ADDED", 5)) == -1);
    ck_assert_str_eq(expr_key(o, 1001, NULL), "added");
    expr_unref(o);
    o = expr_array();
    ck_assert_int_eq(expr_object_add(o, "x", 1, expr_null()), -1); /* not an object */
    expr_unref(o);
}
END_TEST

/* A deep copy: the same JSON, its own instances (an unknown member stays unknown). */
START_TEST(values_copy)
{
    struct expr_value *o = expr_object(), *a = expr_array(), *c;
    char *want, *got;

    ck_assert_int_eq(expr_array_append(a, expr_string("x\0y", 3)), 0);
    ck_assert_int_eq(expr_array_append(a, expr_bool(true)), 0);
    ck_assert_int_eq(expr_object_set(o, "list", 4, a), 0);
    ck_assert_int_eq(expr_object_set(o, "n", 1, expr_number(2.5)), 0);
    ck_assert_int_eq(expr_object_set(o, "none", 4, expr_null()), 0);
    ck_assert_int_eq(expr_object_set(o, "later", 5, expr_unknown()), 0);
    c = expr_copy(o);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_ne(expr_get(c, "list", 4), a);
    ck_assert(expr_holds_unknown(c));
    ck_assert_int_eq(expr_object_set(o, "later", 5, expr_null()), 0);
    ck_assert(!expr_holds_unknown(o));
    ck_assert_int_eq(expr_object_set(c, "later", 5, expr_null()), 0);
    want = expr_to_json(o);
    got = expr_to_json(c);
    ck_assert_str_eq(got, want);
    free(want);
    free(got);
    ck_assert_ptr_null(expr_copy(NULL));
    expr_unref(o);
    expr_unref(c);
}
END_TEST

/* null, false and true are constants, shared: released any number of times they stay
 * (a free would be of memory malloc never gave), and an unknown member is a null of its
 * own. */
START_TEST(values_constants)
{
    struct expr_value *u = expr_unknown(), *t = expr_copy(expr_bool(true));

    for (int i = 0; i < 3; i++) {
        expr_unref(expr_ref(expr_null()));
        expr_unref(expr_null());
        expr_unref(expr_bool(i & 1));
    }
    ck_assert_int_eq(expr_kind_of(expr_null()), EXPR_NULL);
    ck_assert(expr_bool_value(expr_bool(true)) && !expr_bool_value(expr_bool(false)));
    ck_assert(expr_bool_value(t));
    ck_assert_ptr_ne(u, expr_null());
    expr_unref(t);
    expr_unref(u);
}
END_TEST

START_TEST(values_json)
{
    static const char *const bad[] = {
        "[1,]", "{\"a\":1,}", "{'a':1}", "[NaN]", "[01]", "[.5]", "[1.]", "\"\\x\"", "\"a\tb\"",
        "[1] [2]", "", " ", "tru", "{\"a\" 1}", "[-]", "1e", "// c\n1", "[Infinity]", "\"\\u12\"",
    };
    char *error = NULL, deep[2100];
    const char *text;
    char *json;
    struct expr_value *v;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = expr_from_json(bad[i], strlen(bad[i]), &error);
        ck_assert_msg(v == NULL, "accepted %s", bad[i]);
        ck_assert_ptr_nonnull(error);
        free(error);
        error = NULL;
    }
    text = "{\"b\":[1,{\"c\":null}],\"a\":\"\\u00e9\\ud83d\\ude00\\ud800\",\"e\":{},\"f\":[]}";
    v = expr_from_json(text, strlen(text), &error);
    ck_assert_ptr_nonnull(v);
    json = expr_to_json(v);
    ck_assert_str_eq(json, "{\n  \"b\": [\n    1,\n    {\n      \"c\": null\n    }\n  ],\n  \"a\": "
                           "\"\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbd\",\n  \"e\": {},\n  \"f\": []\n}");
    free(json);
    expr_unref(v);
    memset(deep, '[', 1000);
    memset(deep + 1000, ']', 1000);
    v = expr_from_json(deep, 2000, &error);
    ck_assert_ptr_nonnull(v);
    expr_unref(v);
    memset(deep, '[', 1001);
    memset(deep + 1001, ']', 1001);
    v = expr_from_json(deep, 2002, &error);
    ck_assert_ptr_null(v);
    ck_assert_str_eq(error, "Nested too deeply at position 1001");
    free(error);
}
END_TEST

START_TEST(values_ynode)
{
    struct ypos at = {0, 1, 1};
    struct ynode_doc *doc = ynode_doc_create();
    struct ynode *map = ynode_new_map(doc, at), *seq = ynode_new_seq(doc, at);
    /* hex and octal as GitHub's YamlObjectReader reads them: Int32, two's complement */
    static const char *const plain[] = {"3.10", "true", "~", "0x1F", "0o17", "-.inf", "yes", "",
                                        "0xFFFFFFFF", "0x80000000", "0o37777777777", "0x7fffffff"};
    struct expr_value *v;
    char out[512] = "";

    ck_assert_ptr_nonnull(map);
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        ck_assert_int_eq(ynode_append(doc, seq, ynode_new_plain(doc, plain[i], at)), 0);
    ck_assert_int_eq(ynode_append(doc, seq, ynode_new_scalar(doc, "10", 2, YNODE_SINGLE_QUOTED, at)), 0);
    ck_assert_int_eq(ynode_set(doc, map, "v", seq), 0);
    ck_assert_int_eq(ynode_set(doc, map, "Name", ynode_new_string(doc, "x", 1, at)), 0);
    v = expr_from_ynode(map);
    ck_assert_ptr_nonnull(v);
    dump(out, sizeof(out), v);
    ck_assert_str_eq(out, "{v:[3.1,true,null,31,15,-Infinity,'yes',null,-1,-2147483648,-1,2147483647,'10'],Name:'x'}");
    ck_assert_ptr_nonnull(expr_get(v, "name", 4));
    expr_unref(v);
    ynode_doc_destroy(doc);
}
END_TEST

/* ---- what an expression reads ---- */

/* expr_text_paths' paths as "context.name.name@offset" lines. */
static int collect_path(void *user, const struct expr_path *p)
{
    char *out = user;
    size_t o = strlen(out);

    o += (size_t)snprintf(out + o, 512 - o, "%s", p->context);
    for (size_t i = 0; i < p->n; i++)
        o += (size_t)snprintf(out + o, 512 - o, ".%.*s", (int)p->props[i].len, p->props[i].name);
    snprintf(out + o, 512 - o, "@%zu;", p->offset);
    return 0;
}

static const char *paths_read(const char *text, bool condition)
{
    static char out[512];

    out[0] = '\0';
    ck_assert_int_eq(expr_text_paths(text, strlen(text), condition, collect_path, out), 0);
    return out;
}

/* A context and the literal names after it (`.x`, `['x']`, up to three), at the context's
 * offset in the whole text; a computed index or `*` ends the path, and what it holds is
 * read on its own; a condition reads bare text, and a quoted one's paths are at its
 * `${{`; text that does not parse reads nothing. */
START_TEST(text_paths)
{
    ck_assert_str_eq(paths_read("a ${{ matrix.os }} b", false), "matrix.os@6;");
    ck_assert_str_eq(paths_read("${{ steps['build'].outputs.x.y }}", false), "steps.build.outputs.x@4;");
    ck_assert_str_eq(paths_read("${{ matrix[inputs.k].x }} ${{ steps.*.outcome }}", false),
                     "matrix@4;inputs.k@11;steps@30;");
    ck_assert_str_eq(paths_read("${{ fromJSON(needs.a.outputs.m).b }}", false), "needs.a.outputs.m@13;");
    ck_assert_str_eq(paths_read("${{ github.event.inputs.V == 1 && MATRIX.Os }}", false),
                     "github.event.inputs.V@4;matrix.Os@34;");
    ck_assert_str_eq(paths_read("matrix.os", false), "");
    ck_assert_str_eq(paths_read("  matrix.os == 1", true), "matrix.os@2;");
    ck_assert_str_eq(paths_read("${{ matrix.a }} and ${{ inputs.b }}", true), "matrix.a@4;inputs.b@24;");
    ck_assert_str_eq(paths_read("x ${{ 'matrix.os' }}", true), "");
    ck_assert_str_eq(paths_read("${{ 'matrix.os == 1' }}", true), "matrix.os@0;");
    ck_assert_str_eq(paths_read(" ${{ 'matrix.os == 1' }}", true), ""); /* text: a string */
    ck_assert_str_eq(paths_read("${{ matrix.a }} ${{ bad( }}", false), "");
    ck_assert_str_eq(paths_read("bad(", true), "");
}
END_TEST

Suite *expr_suite(void)
{
    Suite *s = suite_create("expr");
    TCase *lex = tcase_create("lexer"), *parse = tcase_create("parser");
    TCase *eval = tcase_create("eval"), *partial = tcase_create("partial");
    TCase *tmpl = tcase_create("template"), *values = tcase_create("values");
    TCase *all[] = {lex, parse, eval, partial, tmpl, values};

    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        tcase_add_checked_fixture(all[i], setup, teardown);
        suite_add_tcase(s, all[i]);
    }
    tcase_add_test(lex, lexer_literals);
    tcase_add_test(lex, lexer_errors);
    tcase_add_test(parse, parser_precedence);
    tcase_add_test(parse, parser_errors);
    tcase_add_test(parse, parser_names);
    tcase_add_test(parse, parser_names_shared);
    tcase_add_test(parse, parser_shared_strings);
    tcase_add_test(parse, parser_depth);
    tcase_add_test(parse, parser_long_runs);
    tcase_add_test(parse, parser_length);
    tcase_add_test(parse, parser_shared);
    tcase_add_test(eval, eval_equality);
    tcase_add_test(eval, eval_case_runtime);
    tcase_add_test(eval, eval_comparison);
    tcase_add_test(eval, eval_logic);
    tcase_add_test(eval, eval_index);
    tcase_add_test(eval, eval_unknown_nested);
    tcase_add_test(eval, eval_functions);
    tcase_add_test(eval, eval_long_message);
    tcase_add_test(eval, eval_numbers_as_text);
    tcase_add_test(eval, eval_string_cap);
    tcase_add_test(eval, numbers_g15);
    tcase_add_test(partial, partial_brief);
    tcase_add_test(partial, partial_logic);
    tcase_add_test(partial, partial_status);
    tcase_add_test(partial, partial_errors);
    tcase_add_test(partial, partial_canonical);
    tcase_add_test(partial, partial_kept);
    tcase_add_test(partial, partial_unwritable);
    tcase_add_test(partial, partial_too_deep);
    tcase_add_test(partial, partial_uses_context);
    tcase_add_test(partial, partial_unknown_member);
    tcase_add_test(tmpl, template_values);
    tcase_add_test(tmpl, template_again);
    tcase_add_test(tmpl, template_strings);
    tcase_add_test(tmpl, template_residuals);
    tcase_add_test(tmpl, template_errors);
    tcase_add_test(tmpl, template_format_limits);
    tcase_add_test(tmpl, condition_forms);
    tcase_add_test(tmpl, condition_texts);
    tcase_add_test(tmpl, text_paths);
    tcase_add_test(values, values_objects);
    tcase_add_test(values, values_copy);
    tcase_add_test(values, values_constants);
    tcase_add_test(values, values_json);
    tcase_add_test(values, values_ynode);
    return s;
}
