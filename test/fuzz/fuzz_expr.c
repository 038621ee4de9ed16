/* expr: the first byte picks what the rest is (bits 0-2): an expression evaluated for
 * its value (0) or as a condition (1), a template (2), an `if:` value (3), JSON (4+).
 * Besides not crashing, leaking or hanging:
 *   - partial evaluation is exact: with matrix, strategy and inputs known, what stays
 *     (the residual), evaluated with the other contexts too, gives what the whole text
 *     gives with every context known (the same value, or for a condition the same
 *     truthiness; errors on both sides or neither);
 *   - a residual is a fixed point: evaluated again with the same contexts, it gives
 *     itself back (so its text parses, and folding left nothing foldable);
 *   - JSON read, written by toJSON and read again gives the same text. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/expr.h"
#include "fanout/source.h"
#include "fuzz.h"

static struct expr_value *json(const char *text)
{
    char *error = NULL;
    struct expr_value *v = expr_from_json(text, strlen(text), &error);

    if (!v)
        abort();
    return v;
}

/* The contexts fanout knows (`part`) or all of them; built once. The matrix has NaN in
 * an array, which no residual can spell. */
static struct expr_contexts *contexts(bool all)
{
    static struct expr_contexts *c[2];
    static const char *const known[][2] = {
        {"matrix", "{\"os\": \"Ubuntu\", \"node\": 18, \"py\": \"3.10\", \"flag\": true, \"none\": null,"
                   " \"list\": [1, \"two\", null, [3], {\"k\": \"v\"}], \"q\": \"it's ${{ x }}\","
                   " \"obj\": {\"A\": {\"v\": 1}, \"b\": {\"v\": 2, \"w\": [1, 2]}}, \"s\": \"\","
                   " \"json\": \"[1, {\\\"a\\\": 2}]\"}"},
        {"strategy", "{\"job-index\": 1, \"job-total\": 3}"},
        {"inputs", "{\"n\": \"3\", \"on\": false}"},
    };
    static const char *const unknown[][2] = {
        {"github", "{\"ref\": \"refs/heads/main\", \"x\": 0, \"y\": \"\", \"n\": 2.5, \"event\":"
                   " {\"labels\": [{\"name\": \"A\"}, {\"name\": \"b\"}], \"draft\": true}}"},
        {"env", "{\"CI\": \"true\", \"J\": \"{\\\"a\\\": [1]}\", \"E\": \"\"}"},
        {"secrets", "{\"T\": \"s'q\"}"},
        {"steps", "{\"a\": {\"outputs\": {\"v\": \"1\"}, \"outcome\": \"success\"}}"},
        {"needs", "{}"},
        {"vars", "{\"V\": \"1\"}"},
        {"job", "{\"status\": \"success\"}"},
        {"jobs", "{}"},
        {"runner", "{\"os\": \"Linux\"}"},
    };
    struct expr_value *m, *nan;

    if (c[all])
        return c[all];
    c[all] = expr_contexts_create();
    if (!c[all])
        abort();
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (expr_contexts_set(c[all], known[i][0], json(known[i][1])) != 0)
            abort();
    }
    m = expr_contexts_get(c[all], "matrix");
    nan = expr_array();
    if (!nan || expr_array_append(nan, expr_number(NAN)) != 0 ||
        expr_object_set(m, "nan", 3, nan) != 0)
        abort();
    for (size_t i = 0; all && i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        if (expr_contexts_set(c[all], unknown[i][0], json(unknown[i][1])) != 0)
            abort();
    }
    return c[all];
}

/* Evaluates `text` as `mode` says: 0, or -1 with *err set. */
static int run(int mode, const char *text, size_t len, const struct expr_contexts *c,
               struct expr_result *r, struct expr_error *err)
{
    struct expr *e;
    int rc;

    if (mode == 2)
        return expr_template_eval(text, len, c, r, err);
    if (mode == 3)
        return expr_condition_eval(text, len, c, r, err);
    e = expr_parse(text, len, err);
    if (!e)
        return -1;
    expr_uses_context(e, "matrix");
    rc = expr_eval(e, c, mode == 1, r, err);
    expr_free(e);
    return rc;
}

/* Two fully known results agree: the same JSON and kind (truthiness for conditions). */
static bool same(const struct expr_value *a, const struct expr_value *b, bool condition)
{
    char *x, *y;
    bool eq;

    if (condition)
        return expr_truthy(a) == expr_truthy(b);
    x = expr_to_json(a);
    y = expr_to_json(b);
    if (!x || !y)
        abort();
    eq = expr_kind_of(a) == expr_kind_of(b) && strcmp(x, y) == 0;
    free(x);
    free(y);
    return eq;
}

/* Whether the residual's value can be compared: it calls nothing GitHub alone knows, and
 * holds at most one known array or object (two copies of one would lose its identity,
 * which GitHub compares). */
static bool comparable(const struct expr_result *r)
{
    const char *first = strstr(r->residual, "fromJSON('");

    return !r->status && !strstr(r->unknown, "hashFiles") &&
           !(first && strstr(first + 1, "fromJSON('"));
}

static void check_partial(int mode, const char *text, size_t len)
{
    struct expr_result part, whole, rest;
    struct expr_error err;
    const struct expr_contexts *all = contexts(true);
    bool condition = mode == 1 || mode == 3;
    int rc_part = run(mode, text, len, contexts(false), &part, &err), rc_rest;
    bool unwritable = rc_part != 0 && (strstr(err.message, "cannot be written") ||
                                       strstr(err.message, "would be refused"));
    int rc_whole = run(mode, text, len, all, &whole, &err);

    if (unwritable) /* fanout's own refusal (NaN in an array, too long): nothing to compare */
        goto done;
    if (rc_part != 0) {
        if (rc_whole == 0)
            abort(); /* an error fanout reports must be GitHub's too */
        goto done;
    }
    if (part.value) {
        if (rc_whole != 0 || !whole.value || !same(part.value, whole.value, condition))
            abort();
        goto done;
    }
    if (!comparable(&part) || (rc_whole == 0 && whole.residual))
        goto done;
    rc_rest = run(mode == 3 ? 1 : mode, part.residual, strlen(part.residual), all, &rest, &err);
    if ((rc_rest != 0) != (rc_whole != 0))
        abort();
    if (rc_rest == 0) {
        if (!rest.value || !whole.value || !same(rest.value, whole.value, condition))
            abort();
        expr_result_clear(&rest);
    }
done:
    if (rc_part == 0)
        expr_result_clear(&part);
    if (rc_whole == 0)
        expr_result_clear(&whole);
}

static void check_fixed_point(int mode, const char *text, size_t len)
{
    const struct expr_contexts *c = contexts(false);
    struct expr_result r, again;
    struct expr_error err;

    if (run(mode, text, len, c, &r, &err) != 0)
        return;
    if (r.residual) {
        /* An `if:` residual is an expression; a template's is a template. */
        if (run(mode == 3 ? 1 : mode, r.residual, strlen(r.residual), c, &again, &err) != 0 ||
            !again.residual || strcmp(again.residual, r.residual) != 0 ||
            strcmp(again.unknown, r.unknown) != 0 || again.status != r.status)
            abort();
        expr_result_clear(&again);
    }
    expr_result_clear(&r);
}

static void check_json(const char *text, size_t len)
{
    char *error = NULL, *once, *twice;
    struct expr_value *v = expr_from_json(text, len, &error), *again;

    if (!v) {
        free(error);
        return;
    }
    once = expr_to_json(v);
    again = once ? expr_from_json(once, strlen(once), &error) : NULL;
    twice = again ? expr_to_json(again) : NULL;
    if (!twice || strcmp(once, twice) != 0)
        abort();
    free(once);
    free(twice);
    expr_unref(v);
    expr_unref(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data + 1;
    int mode;

    if (size < 1)
        return 0;
    mode = data[0] & 7;
    if (mode >= 4) {
        check_json(text, size - 1);
        return 0;
    }
    /* The oracles hold for UTF-8 text, all any input hands the engine (sources are checked
     * when read, YAML escapes make UTF-8, argv holds no NUL): a literal holding a NUL and
     * bytes that are not UTF-8 has no residual form (fromJSON reads UTF-8 only). Other
     * text is still evaluated, for crashes, leaks and hangs. */
    if (!source_check_utf8(data + 1, size - 1, NULL, NULL, NULL)) {
        struct expr_result r;
        struct expr_error err;

        if (run(mode, text, size - 1, contexts(false), &r, &err) == 0)
            expr_result_clear(&r);
        return 0;
    }
    check_partial(mode, text, size - 1);
    check_fixed_point(mode, text, size - 1);
    return 0;
}
