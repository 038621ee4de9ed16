/* interpolate: the test table of the agent's interpolation package, transcribed whole,
 * then fanout's own cases (errors and their offsets, limits, partial interpolation).
 *
 * Transcribed from github.com/buildkite/interpolate at v0.1.5 (commit
 * 74a2a5fbad373a8668d658c528626ef3b3b7a702, the version buildkite/agent's go.mod asks for):
 *   interpolate_test.go: ExampleInterpolate, TestBasicInterpolation,
 *     TestNestedInterpolation, TestIgnoresParentheses,
 *     TestMissingParameterValuesReturnEmptyStrings, TestSubstringsWithOffsets,
 *     TestInterpolateIsntGreedy, TestDefaultValues, TestRequiredVariables,
 *     TestEscapingVariables: every case, with its env, as a row of `agent_cases`.
 *   parser_test.go, TestParser: every input. The C API has no parse tree, so each case is
 *     checked through what its tree expands to, under two environments (`parser_cases`:
 *     HELLO_WORLD and TEST3 set, and nothing set).
 *   TestExtractingIdentifiers is not transcribed: fanout has no Identifiers() (the agent
 *     uses it for secret redaction, not for the pipeline it uploads).
 *   BenchmarkBasicInterpolate is a benchmark, not a case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect/buildkite/interpolate.h"
#include "unit.h"

/* An environment: "NAME=VALUE" strings, NULL-terminated (Go's NewSliceEnv); a name not
 * in it is unset, or unknown when the environment is marked partial (but for the names
 * `unset` lists). */
struct env {
    const char *const *vars;
    bool partial;
    int lookups;
    const char *const *unset;
};

static enum interp_var lookup(void *user, const char *name, size_t len, const char **value,
                              size_t *value_len)
{
    struct env *e = user;

    e->lookups++;
    for (size_t i = 0; e->vars && e->vars[i]; i++) {
        const char *eq = strchr(e->vars[i], '=');

        if ((size_t)(eq - e->vars[i]) == len && !memcmp(e->vars[i], name, len)) {
            *value = eq + 1;
            *value_len = strlen(eq + 1);
            return INTERP_SET;
        }
    }
    for (size_t i = 0; e->unset && e->unset[i]; i++) {
        if (strlen(e->unset[i]) == len && !memcmp(e->unset[i], name, len))
            return INTERP_UNSET;
    }
    return e->partial ? INTERP_UNKNOWN : INTERP_UNSET;
}

static const char *const tests_env[] = {"TEST1=A test", "TEST2=Another", "TEST3=Llamas",
                                        "TEST4=Only one level of $TEST3 interpolation", NULL};
static const char *const commit_env[] = {"BUILDKITE_COMMIT=1adf998e39f647b4b25842f107c6ed9d30a3a7c7", NULL};
static const char *const greedy_env[] = {"BUILDKITE_COMMIT=cfeeee3fa7fa1a6311723f5cbff95b738ec6e683",
                                         "BUILDKITE_PARALLEL_JOB=456", NULL};
static const char *const days_env[] = {"DAY=Blarghday", "EMPTY_DAY=", NULL};
static const char *const crab_env[] = {"HELLO_WORLD=🦀", NULL};

/* `want` the output, or with `error` set the error's message. */
static const struct {
    const char *const *env;
    const char *in, *want;
    bool error;
} agent_cases[] = {
    /* ExampleInterpolate */
    {crab_env, "Buildkite... ${HELLO_WORLD} ${ANOTHER_VAR:-🏖}", "Buildkite... 🦀 🏖", false},
    /* TestBasicInterpolation */
    {tests_env, "", "", false},
    {tests_env, "foo", "foo", false},
    {tests_env, "test1", "test1", false},
    {tests_env, "TEST1", "TEST1", false},
    {tests_env, "$TEST1", "A test", false},
    {tests_env, "${TEST1}", "A test", false},
    {tests_env, "$TEST1, $TEST2, $TEST3", "A test, Another, Llamas", false},
    {tests_env, "$Test1, $Test2, $TeST3", ", , ", false},
    {tests_env, "${TEST1}, ${Test2}, ${tEST3}", "A test, , ", false},
    {tests_env, "my$TEST1", "myA test", false},
    {tests_env, "$TEST4", "Only one level of $TEST3 interpolation", false},
    {tests_env, "${TEST4}", "Only one level of $TEST3 interpolation", false},
    /* TestNestedInterpolation */
    {tests_env, "${TEST5:-${TEST6:-$TEST1}}", "A test", false},
    {tests_env, "${TEST5:-${TEST2:-$TEST1}}", "Another", false},
    {tests_env, "${TEST5:-Some text ${TEST2:-$TEST1} with $TEST3}", "Some text Another with Llamas", false},
    /* TestIgnoresParentheses (env nil) */
    {NULL, "$(echo hello world)", "$(echo hello world)", false},
    {NULL, "testing $(echo hello world)", "testing $(echo hello world)", false},
    {NULL, "$(", "$(", false},
    /* TestMissingParameterValuesReturnEmptyStrings (env nil) */
    {NULL, "$BUILDKITE_COMMIT", "", false},
    {NULL, "${BUILDKITE_COMMIT}", "", false},
    {NULL, "${BUILDKITE_COMMIT:0:7}", "", false},
    {NULL, "${BUILDKITE_COMMIT:7}", "", false},
    {NULL, "${BUILDKITE_COMMIT:0:7}", "", false},
    {NULL, "${BUILDKITE_COMMIT:7:14}", "", false},
    /* TestSubstringsWithOffsets */
    {commit_env, "${BUILDKITE_COMMIT:0}", "1adf998e39f647b4b25842f107c6ed9d30a3a7c7", false},
    {commit_env, "${BUILDKITE_COMMIT:7}", "e39f647b4b25842f107c6ed9d30a3a7c7", false},
    {commit_env, "${BUILDKITE_COMMIT: -7}", "0a3a7c7", false},
    {commit_env, "${BUILDKITE_COMMIT: -128}", "1adf998e39f647b4b25842f107c6ed9d30a3a7c7", false},
    {commit_env, "${BUILDKITE_COMMIT:128}", "", false},
    {commit_env, "${BUILDKITE_COMMIT:0:7}", "1adf998", false},
    {commit_env, "${BUILDKITE_COMMIT:7:7}", "e39f647", false},
    {commit_env, "${BUILDKITE_COMMIT:7:-7}", "e39f647b4b25842f107c6ed9d3", false},
    {commit_env, "${BUILDKITE_COMMIT:0:0}", "", false},
    {commit_env, "${BUILDKITE_COMMIT:7:0}", "", false},
    {commit_env, "${BUILDKITE_COMMIT:0:128}", "1adf998e39f647b4b25842f107c6ed9d30a3a7c7", false},
    {commit_env, "${BUILDKITE_COMMIT:7:128}", "e39f647b4b25842f107c6ed9d30a3a7c7", false},
    {commit_env, "${BUILDKITE_COMMIT:0:-128}", "", false},
    {commit_env, "${BUILDKITE_COMMIT:7:-128}", "", false},
    /* TestInterpolateIsntGreedy */
    {greedy_env, "echo \"ENV_1=test_$BUILDKITE_COMMIT_$BUILDKITE_PARALLEL_JOB\"", "echo \"ENV_1=test_456\"", false},
    {greedy_env, "echo \"ENV_1=test-$BUILDKITE_COMMIT-$BUILDKITE_PARALLEL_JOB\"",
     "echo \"ENV_1=test-cfeeee3fa7fa1a6311723f5cbff95b738ec6e683-456\"", false},
    {greedy_env, "echo \"ENV_1=test_${BUILDKITE_COMMIT}_${BUILDKITE_PARALLEL_JOB}\"",
     "echo \"ENV_1=test_cfeeee3fa7fa1a6311723f5cbff95b738ec6e683_456\"", false},
    /* TestDefaultValues */
    {days_env, "Today is ${TODAY-Tuesday}", "Today is Tuesday", false},
    {days_env, "Tomorrow is ${TOMORROW-Wednesday}", "Tomorrow is Wednesday", false},
    {days_env, "Today is ${DAY-Wednesday}", "Today is Blarghday", false},
    {days_env, "Today is ${EMPTY_DAY-Wednesday}", "Today is ", false},
    {days_env, "Today is ${EMPTY_DAY:-Wednesday}", "Today is Wednesday", false},
    {days_env, "${EMPTY_DAY:--:{}}", "-:{}", false},
    {days_env, "${EMPTY:-${LLAMAS-test}}", "test", false},
    {days_env, "${EMPTY:-127}", "127", false},
    /* TestRequiredVariables (env nil) */
    {NULL, "Hello ${REQUIRED_VAR?}", "$REQUIRED_VAR: not set", true},
    {NULL, "Hello ${REQUIRED_VAR?y u no set me? :-{}", "$REQUIRED_VAR: y u no set me? :-{", true},
    {NULL, "Hello ${REQUIRED_VAR?{}}", "$REQUIRED_VAR: {", true},
    /* TestEscapingVariables (env nil) */
    {NULL, "Do this $$ESCAPE_PARTY", "Do this $ESCAPE_PARTY", false},
    {NULL, "Do this \\$ESCAPE_PARTY", "Do this $ESCAPE_PARTY", false},
    {NULL, "Do this $${SUCH_ESCAPE}", "Do this ${SUCH_ESCAPE}", false},
    {NULL, "Do this \\${SUCH_ESCAPE}", "Do this ${SUCH_ESCAPE}", false},
    {NULL, "Do this $${SUCH_ESCAPE:-$OTHERWISE}", "Do this ${SUCH_ESCAPE:-}", false},
    {NULL, "Do this \\${SUCH_ESCAPE:-$OTHERWISE}", "Do this ${SUCH_ESCAPE:-}", false},
    {NULL, "Do this $${SUCH_ESCAPE:-$$OTHERWISE}", "Do this ${SUCH_ESCAPE:-$OTHERWISE}", false},
    {NULL, "Do this \\${SUCH_ESCAPE:-\\$OTHERWISE}", "Do this ${SUCH_ESCAPE:-$OTHERWISE}", false},
    {NULL, "echo \"my favourite mountain is cotopaxi\" | grep 'xi$$'",
     "echo \"my favourite mountain is cotopaxi\" | grep 'xi$'", false},
};

/* Expands `in` under `vars`: its output (malloc'd), or NULL with *err filled. */
static char *expand(const char *const *vars, const char *in, struct interp_error *err)
{
    struct env e = {vars, false, 0, NULL};
    char *out = NULL;
    size_t len = 0;
    int rc = interp_expand(in, strlen(in), lookup, &e, &out, &len, err);

    ck_assert_int_ne(rc, INTERP_NOMEM);
    if (rc != INTERP_OK)
        return NULL;
    ck_assert_uint_eq(len, strlen(out));
    return out;
}

START_TEST(agent_table)
{
    struct interp_error err;
    char *out = expand(agent_cases[_i].env, agent_cases[_i].in, &err);

    if (agent_cases[_i].error) {
        ck_assert_msg(!out, "%s: expected an error", agent_cases[_i].in);
        ck_assert_str_eq(err.message, agent_cases[_i].want);
        return;
    }
    ck_assert_msg(out != NULL, "%s: %s", agent_cases[_i].in, err.message);
    ck_assert_str_eq(out, agent_cases[_i].want);
    free(out);
}
END_TEST

static const char *const hello_env[] = {"HELLO_WORLD=hello world!", "TEST3=three", NULL};

/* Each TestParser input, what its tree expands to with hello_env and with nothing set
 * (NULL: RequiredExpansion fails). */
static const struct {
    const char *in, *set, *unset;
} parser_cases[] = {
    /* text, VariableExpansion, text, EmptyValueExpansion{ANOTHER_VAR, "🏖"} */
    {"Buildkite... ${HELLO_WORLD} ${ANOTHER_VAR:-🏖}", "Buildkite... hello world! 🏖", "Buildkite...  🏖"},
    /* EmptyValueExpansion{TEST1, [" ", EmptyValueExpansion{TEST2, [TEST3]}]} */
    {"${TEST1:- ${TEST2:-$TEST3}}", " three", " "},
    /* UnsetValueExpansion{HELLO_WORLD, "blah"} */
    {"${HELLO_WORLD-blah}", "hello world!", "blah"},
    /* text `\\`, UnsetValueExpansion */
    {"\\\\${HELLO_WORLD-blah}", "\\\\hello world!", "\\\\blah"},
    /* EscapedExpansion, text "{HELLO_WORLD-blah}" */
    {"\\${HELLO_WORLD-blah}", "${HELLO_WORLD-blah}", "${HELLO_WORLD-blah}"},
    /* text "Test ", text `\\`, EscapedExpansion, text */
    {"Test \\\\\\${HELLO_WORLD-blah}", "Test \\\\${HELLO_WORLD-blah}", "Test \\\\${HELLO_WORLD-blah}"},
    /* SubstringExpansion{Offset 1} */
    {"${HELLO_WORLD:1}", "ello world!", ""},
    /* SubstringExpansion{Offset -1} */
    {"${HELLO_WORLD: -1}", "!", ""},
    /* EmptyValueExpansion{HELLO_WORLD, "1"}: `:-` is a default, not an offset */
    {"${HELLO_WORLD:-1}", "hello world!", "1"},
    /* SubstringExpansion{1, 7} */
    {"${HELLO_WORLD:1:7}", "ello wo", ""},
    /* SubstringExpansion{1, -7} */
    {"${HELLO_WORLD:1:-7}", "ello", ""},
    /* RequiredExpansion{HELLO_WORLD, "Required"} */
    {"${HELLO_WORLD?Required}", "hello world!", NULL},
    /* EscapedExpansion, text */
    {"$${not actually a brace expression", "${not actually a brace expression", "${not actually a brace expression"},
    {"$", "$", "$"},
    {"\\", "\\", "\\"},
    /* text "$(", text */
    {"$(echo hello world)", "$(echo hello world)", "$(echo hello world)"},
    /* EscapedExpansion{MOUNTAIN}, text "MOUNTAIN" */
    {"$$MOUNTAIN", "$MOUNTAIN", "$MOUNTAIN"},
    {"this is a regex! /^start.*end$$/", "this is a regex! /^start.*end$/", "this is a regex! /^start.*end$/"},
    {"this is a more different regex! /^start.*end\\$/", "this is a more different regex! /^start.*end$/",
     "this is a more different regex! /^start.*end$/"},
};

START_TEST(parser_table)
{
    struct interp_error err;
    char *set = expand(hello_env, parser_cases[_i].in, &err);
    char *unset = expand(NULL, parser_cases[_i].in, &err);

    ck_assert_msg(set != NULL, "%s: %s", parser_cases[_i].in, err.message);
    ck_assert_str_eq(set, parser_cases[_i].set);
    if (parser_cases[_i].unset) {
        ck_assert_msg(unset != NULL, "%s: %s", parser_cases[_i].in, err.message);
        ck_assert_str_eq(unset, parser_cases[_i].unset);
    }
    else {
        ck_assert_ptr_null(unset);
        ck_assert_str_eq(err.message, "$HELLO_WORLD: Required");
    }
    free(set);
    free(unset);
}
END_TEST

/* ---- fanout's own cases ---- */

/* Errors the agent reports too, with the offset of the bad token. */
static const struct {
    const char *in;
    size_t offset;
    const char *says;
} errors[] = {
    {"echo ${", 5, "unterminated '${'"},
    {"a ${FOO", 2, "unterminated '${FOO'"},
    {"a ${FOO:-bar", 2, "no closing '}'"},
    {"${A:-${B:-x}", 0, "no closing '}'"},
    {"x ${1}", 2, "'1', not a variable name"},
    {"${_X}", 0, "'_', not a variable name"},
    {"${}", 0, "'}', not a variable name"},
    {"ok ${FOO/a/b}", 3, "'/'"},
    {"${FOO:?message}", 0, "'?message' is not a substring offset"},
    {"${FOO:1:x}", 0, "'x' is not a substring length"},
    {"${FOO: }", 0, "is not a substring offset"},
    {"${FOO:3_0}", 0, "'3_0' is not a substring offset"},
    {"${FOO:99999999999999999999}", 0, "is not a substring offset"},
    {"${FOO:1:9223372036854775807}", 0, "overflows"},
    /* a parse error in a default never used still fails, and wins over ${VAR?} */
    {"${SET:-${BAD:x}}", 7, "'x' is not a substring offset"},
    {"${UNSET?} ${", 10, "unterminated '${'"},
};

START_TEST(parse_errors)
{
    static const char *const set[] = {"SET=1", "FOO=abcdef", NULL};
    struct interp_error err;
    char *out = expand(set, errors[_i].in, &err);

    ck_assert_msg(!out, "%s: expected an error", errors[_i].in);
    ck_assert_uint_eq(err.offset, errors[_i].offset);
    ck_assert_msg(strstr(err.message, errors[_i].says), "%s: %s", errors[_i].in, err.message);
}
END_TEST

/* What is literal text and what is an expansion, beyond the agent's table. */
static const struct {
    const char *in, *want;
} literal[] = {
    {"$_X $1 $- $ $@ $}", "$_X $1 $- $ $@ $}"},  /* `$` before anything but a letter or `{` */
    {"${Z:-$}y", "$y"},                          /* a `$` before the brace's `}` */
    {"\\a \\\\$X \\", "\\a \\\\x \\"},         /* `\\` is kept whole, and a lone `\` */
    {"a}b", "a}b"},
    {"${X: 0 : 1 }", "x"},                       /* offsets are trimmed */
    {"${X:+0}", "x"},                            /* and take a sign */
    {"${ÉTÉ}-$ÉTÉ²_x-$日本", "summer-summer-japan"}, /* letters and numbers are Unicode's */
    {"${X:-a}${X-b}${Y:-c}${Y-d}${E:-e}${E-f}", "xxcde"},
    {"${Y:-${Y:-${Y:-deep}}}", "deep"},
    {"bad \xff byte", "bad \xEF\xBF\xBD byte"},  /* Go writes U+FFFD for a byte not UTF-8 */
    {"${X:1\xff" "2}", ""},                       /* and takes any rune for the second ':' */
};

START_TEST(literal_text)
{
    static const char *const env[] = {"X=x", "E=", "ÉTÉ=summer", "ÉTÉ²_x=summer", "日本=japan", NULL};
    struct interp_error err;
    char *out = expand(env, literal[_i].in, &err);

    ck_assert_msg(out != NULL, "%s: %s", literal[_i].in, err.message);
    ck_assert_str_eq(out, literal[_i].want);
    free(out);
}
END_TEST

/* `${A:-${A:-...}}` past INTERP_MAX_DEPTH is an error, not a stack overflow. */
START_TEST(nesting_limit)
{
    size_t depth = 100000, len = depth * 6 + 1 + depth;
    char *s = malloc(len + 1), *p = s;
    struct interp_error err;
    char *out;

    ck_assert_ptr_nonnull(s);
    for (size_t i = 0; i < depth; i++, p += 6)
        memcpy(p, "${A:-x", 6);
    *p++ = 'y';
    memset(p, '}', depth);
    s[len] = '\0';
    ck_assert_int_eq(interp_expand(s, len, lookup, &(struct env){0}, &out, &depth, &err), INTERP_LIMIT);
    ck_assert_msg(strstr(err.message, "nested more than 64 deep"), "%s", err.message);
    ck_assert_uint_eq(err.offset, 64 * 6);
    /* at the limit it works: each level's default adds its "x" */
    s[64 * 6] = 'y';
    memset(s + 64 * 6 + 1, '}', 64);
    s[64 * 7 + 1] = '\0';
    out = expand(NULL, s, &err);
    ck_assert_msg(out != NULL, "%s", err.message);
    ck_assert_uint_eq(strlen(out), 65);
    ck_assert_str_eq(out + 63, "xy");
    free(out);
    free(s);
}
END_TEST

/* A value repeated past INTERP_MAX_OUTPUT is an error, not an allocation of gigabytes. */
START_TEST(output_limit)
{
    size_t value = 1u << 20, refs = 1000;
    char *big = malloc(value + 3), *s = malloc(refs * 2 + 1);
    const char *env[] = {big, NULL};
    struct interp_error err;
    char *out;

    ck_assert_ptr_nonnull(big);
    ck_assert_ptr_nonnull(s);
    memcpy(big, "A=", 2);
    memset(big + 2, 'a', value);
    big[value + 2] = '\0';
    for (size_t i = 0; i < refs; i++)
        memcpy(s + 2 * i, "$A", 2);
    s[refs * 2] = '\0';
    ck_assert_int_eq(interp_expand(s, refs * 2, lookup, &(struct env){env, false, 0, NULL}, &out, &value, &err),
                     INTERP_LIMIT);
    ck_assert_msg(strstr(err.message, "more than 4194304 bytes"), "%s", err.message);
    s[8] = '\0'; /* four of them fit */
    out = expand(env, s, &err);
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(strlen(out), 4 * value);
    free(out);
    free(s);
    free(big);
}
END_TEST

/* ---- partial interpolation: what a rendering keeps for the agent ---- */

struct seen {
    char names[8][32];
    size_t at[8], len[8];
    int n;
};

static void on_unknown(void *user, const char *name, size_t name_len, size_t at, size_t len)
{
    struct seen *s = user;

    ck_assert_int_lt(s->n, 8);
    snprintf(s->names[s->n], sizeof(s->names[0]), "%.*s", (int)name_len, name);
    s->at[s->n] = at;
    s->len[s->n++] = len;
}

static struct env *partial_env;

static enum interp_var partial_lookup(void *user, const char *name, size_t len, const char **value,
                                      size_t *value_len)
{
    (void)user;
    return lookup(partial_env, name, len, value, value_len);
}

/* `want` NULL: unchanged. `unknown`: the names told, space-separated. */
static const struct {
    const char *in, *want, *unknown;
} partial[] = {
    {"plain text", NULL, ""},
    {"$$ESCAPED \\$TOO $${X} $(date)", NULL, ""},
    {"echo $X and ${X}", "echo x and x", ""},
    {"${TPU_VERSION:-tpu6e}_test", NULL, "TPU_VERSION"},
    {"$X ${NOPE:-$X} $NOPE2", "x ${NOPE:-$X} $NOPE2", "NOPE NOPE2"},
    {"${E:-$NOPE}", NULL, "NOPE"},                  /* E is empty: the default is needed */
    {"${X:-$NOPE}", "x", ""},                       /* X is set: the default is not */
    {"${U-u}${U:-v}${E-e}", "uv", ""},              /* U unset, E empty */
    {"$DOLLAR", "a$$b", ""},                        /* a `$` in a value is doubled */
    {"${DOLLAR}$$DOLLAR", "a$$b$$DOLLAR", ""},
    {"$SLASHDOLLAR", NULL, ""},                     /* `\$` cannot be written for the agent */
    {"$ENDSLASH$$", NULL, ""},                      /* nor a `\` before a `$` */
    {"$ENDSLASH$X", "a\\x", ""},
    {"$EVENSLASH", "\\\\$$", ""},                   /* `\\` before `$` can */
    {"$NOPE${X}", NULL, "NOPE"},                    /* `$NOPEx` would be another variable */
    {"${NOPE}${X}", "${NOPE}x", "NOPE"},
    {"${DAYS:0:3}", "Mon", ""},
};

START_TEST(partial_table)
{
    static const char *const vars[] = {"X=x", "E=", "DOLLAR=a$b", "SLASHDOLLAR=a\\$b", "ENDSLASH=a\\",
                                       "EVENSLASH=\\\\$", "DAYS=Monday", NULL};
    static const char *const unset[] = {"U", NULL};
    struct env e = {vars, true, 0, unset};
    struct seen seen = {0};
    struct interp_error err;
    char *out = NULL, names[256] = "";
    size_t len = 0;
    int rc;

    partial_env = &e;
    rc = interp_partial(partial[_i].in, strlen(partial[_i].in), partial_lookup, on_unknown, &seen, &out,
                        &len, &err);
    ck_assert_msg(rc == INTERP_OK, "%s: %s", partial[_i].in, err.message);
    if (!partial[_i].want)
        ck_assert_msg(out == NULL, "%s: changed to %s", partial[_i].in, out);
    else {
        ck_assert_ptr_nonnull(out);
        ck_assert_str_eq(out, partial[_i].want);
    }
    for (int i = 0; i < seen.n; i++) {
        char slice[64];

        /* told where the kept expansion is: it starts with its `$` and holds the variable */
        ck_assert_int_eq(partial[_i].in[seen.at[i]], '$');
        snprintf(slice, sizeof(slice), "%.*s", (int)seen.len[i], partial[_i].in + seen.at[i]);
        ck_assert_ptr_nonnull(strstr(slice, seen.names[i]));
        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? " " : "", seen.names[i]);
    }
    ck_assert_str_eq(names, partial[_i].unknown);
    free(out);
}
END_TEST

/* The agent's interpolation of the partial result is its interpolation of the text, for
 * every case above with its unknown variables then set to a value. */
START_TEST(partial_round_trip)
{
    static const char *const given[] = {"X=x", "E=", "DOLLAR=a$b", "SLASHDOLLAR=a\\$b", "ENDSLASH=a\\",
                                        "EVENSLASH=\\\\$", "DAYS=Monday", NULL};
    static const char *const later[] = {"X=x", "E=", "DOLLAR=a$b", "SLASHDOLLAR=a\\$b", "ENDSLASH=a\\",
                                        "EVENSLASH=\\\\$", "DAYS=Monday", "NOPE=n$o", "NOPE2=2",
                                        "TPU_VERSION=tpu7x", NULL};
    static const char *const unset[] = {"U", NULL};
    struct env e = {given, true, 0, unset};
    struct interp_error err;
    char *out = NULL, *direct, *again;
    size_t len = 0;

    partial_env = &e;
    ck_assert_int_eq(interp_partial(partial[_i].in, strlen(partial[_i].in), partial_lookup, NULL, NULL,
                                    &out, &len, &err), INTERP_OK);
    direct = expand(later, partial[_i].in, &err);
    again = expand(later, out ? out : partial[_i].in, &err);
    ck_assert_ptr_nonnull(direct);
    ck_assert_ptr_nonnull(again);
    ck_assert_str_eq(again, direct);
    free(out);
    free(direct);
    free(again);
}
END_TEST

/* The same on random texts over the grammar's characters: partial interpolation fails
 * exactly when the agent would, and otherwise gives the agent nothing new to do. */
START_TEST(partial_random)
{
    static const char alphabet[] = "$${}}:-?\\AB_x1 (";
    static const char *const given[] = {"A=a$", "B=", "x=q\\", NULL};
    static const char *const later[] = {"A=a$", "B=", "x=q\\", "AB=\\$", "x1=$x", NULL};
    unsigned long seed = 12345;

    for (int round = 0; round < 20000; round++) {
        char text[24], *out = NULL, *direct, *again;
        size_t n = 1 + (size_t)round % 20, len;
        struct env e = {given, true, 0, NULL};
        struct interp_error err;
        int rc;

        for (size_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ul + 1442695040888963407ul;
            text[i] = alphabet[(seed >> 33) % (sizeof(alphabet) - 1)];
        }
        text[n] = '\0';
        partial_env = &e;
        rc = interp_partial(text, n, partial_lookup, NULL, NULL, &out, &len, &err);
        /* interp_needed's shortcut: no expansion, nothing to change, nothing to fail */
        ck_assert_msg(interp_needed(text, n) || (rc == INTERP_OK && !out), "%s: needed", text);
        direct = expand(later, text, &err);
        /* an unknown variable may be the one a ${VAR?} needs: only then may they differ */
        if (rc != INTERP_OK) {
            ck_assert_msg(!direct || strchr(text, '?'), "%s: partial failed, the agent did not", text);
            free(direct);
            continue;
        }
        again = expand(later, out ? out : text, &err);
        ck_assert_msg((direct == NULL) == (again == NULL), "%s: errors differ", text);
        if (direct)
            ck_assert_msg(!strcmp(direct, again), "%s -> %s: %s vs %s", text, out ? out : text, direct, again);
        free(out);
        free(direct);
        free(again);
    }
}
END_TEST

/* A default that is not needed is not looked up (the rendering notes only what it needs). */
START_TEST(lazy_lookups)
{
    static const char *const vars[] = {"A=a", NULL};
    struct env e = {vars, false, 0, NULL};
    struct interp_error err;
    char *out;
    size_t len;

    ck_assert_int_eq(interp_expand("${A:-${B}${C}}", 14, lookup, &e, &out, &len, &err), INTERP_OK);
    ck_assert_str_eq(out, "a");
    ck_assert_int_eq(e.lookups, 1);
    free(out);
}
END_TEST

START_TEST(globs)
{
    char *g = interp_glob("${TPU_VERSION:-tpu6e}_tests", 27);

    ck_assert_str_eq(g, "*_tests");
    free(g);
    g = interp_glob("a*b-$$X-$V", 10);
    ck_assert_str_eq(g, "a\\*b-$$X-*");
    free(g);
    ck_assert_ptr_null(interp_glob("no expansion $$X", 16));
    ck_assert_ptr_null(interp_glob("bad ${", 6));
    /* an expansion, or only escapes and text (nothing to do, nothing can fail) */
    ck_assert(interp_needed("a$B", 3));
    ck_assert(interp_needed("${", 2));
    ck_assert(interp_needed("\\\\$B", 4));
    ck_assert(interp_needed("$é", 3));
    ck_assert(!interp_needed("a$", 2));
    ck_assert(!interp_needed("a\\b", 3));
    ck_assert(!interp_needed("$$B \\$B $(b) $1 $_ $\\$B", 24));
}
END_TEST

Suite *interpolate_suite(void)
{
    Suite *s = suite_create("interpolate");
    TCase *tc = tcase_create("core");

    tcase_add_loop_test(tc, agent_table, 0, sizeof(agent_cases) / sizeof(agent_cases[0]));
    tcase_add_loop_test(tc, parser_table, 0, sizeof(parser_cases) / sizeof(parser_cases[0]));
    tcase_add_loop_test(tc, parse_errors, 0, sizeof(errors) / sizeof(errors[0]));
    tcase_add_loop_test(tc, literal_text, 0, sizeof(literal) / sizeof(literal[0]));
    tcase_add_test(tc, nesting_limit);
    tcase_add_test(tc, output_limit);
    tcase_add_loop_test(tc, partial_table, 0, sizeof(partial) / sizeof(partial[0]));
    tcase_add_loop_test(tc, partial_round_trip, 0, sizeof(partial) / sizeof(partial[0]));
    tcase_add_test(tc, partial_random);
    tcase_add_test(tc, lazy_lookups);
    tcase_add_test(tc, globs);
    suite_add_tcase(s, tc);
    return s;
}
