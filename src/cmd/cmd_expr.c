/* fanout expr: one GitHub Actions expression evaluated with what is known, to debug a
 * condition or a matrix locally. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/cmd.h"
#include "fanout/dialect.h"
#include "fanout/expr.h"
#include "options.h"

#define EXPR_FILE "<expr>"

static struct expr_contexts *contexts_of(const struct expr_value *known)
{
    struct expr_contexts *c = expr_contexts_create();

    for (size_t i = 0; c && i < expr_len(known); i++) {
        size_t len;
        const char *key = expr_key(known, i, &len);
        char name[64];

        snprintf(name, sizeof(name), "%.*s", (int)len, key);
        if (expr_contexts_set(c, name, expr_ref(expr_member(known, i))) != 0) {
            expr_contexts_destroy(c);
            return NULL;
        }
    }
    return c;
}

/* A text with `${{` is a template (as a workflow field holds it); without, an expression. */
static int evaluate(const char *text, const struct expr_contexts *c, struct expr_result *res,
                    struct expr_error *err)
{
    struct expr *e;
    int rc;

    if (strstr(text, "${{"))
        return expr_template_eval(text, strlen(text), c, res, err);
    if (!(e = expr_parse(text, strlen(text), err)))
        return -1;
    rc = expr_eval(e, c, false, res, err);
    expr_free(e);
    return rc;
}

static int exec_expr(struct cli *c, char **operands, int n, struct diag *d)
{
    struct expr_contexts *contexts = contexts_of(dialect_options_contexts(c->dialect_options));
    struct expr_result res = {0};
    struct expr_error err;
    char *out = NULL;
    int rc = 0;

    (void)n;
    if (!contexts) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, EXPR_FILE, 0, 0, RULE_INTERNAL, "out of memory");
        return DIAG_INPUT;
    }
    if (evaluate(operands[0], contexts, &res, &err) != 0) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, EXPR_FILE, 1, (unsigned)err.offset + 1, RULE_EXPRESSION,
                    "%s", err.message);
        rc = DIAG_INPUT;
    } else if (res.value && c->format != 1 && expr_kind_of(res.value) == EXPR_STRING) {
        size_t len;
        const char *s = expr_string_value(res.value, &len);

        /* every byte: a string may hold a NUL (fromJSON('"\u0000"')) */
        fwrite(s, 1, len, stdout);
        putchar('\n');
    } else if (res.value) {
        out = c->format == 1 ? expr_to_json(res.value) : expr_to_string(res.value);
        if (out)
            printf("%s\n", out);
        else
            diag_report(d, DIAG_ERROR, DIAG_INPUT, EXPR_FILE, 0, 0, RULE_INTERNAL, "out of memory");
    } else {
        printf("%s\n", res.residual);
        diag_report(d, DIAG_NOTE, DIAG_FINDING, EXPR_FILE, 0, 0, RULE_EXPRESSION,
                    "not fully known: depends on %s", res.unknown && *res.unknown ? res.unknown : "run-time values");
    }
    free(out);
    expr_result_clear(&res);
    expr_contexts_destroy(contexts);
    return rc ? rc : diag_exit_code(d, false);
}

static const struct opt *const options[] = {&opt_format, &opt_dialects_expressions, CMD_MESSAGE_OPTIONS,
                                            NULL};
static const char *const formats[] = {"text", "json", NULL};

const struct cmd_entry cmd_expr_entry = {
    .name = "expr",
    .synopsis = "expr [options] 'EXPRESSION'",
    .help = "Evaluates a GitHub Actions expression (or a text with ${{ }} parts) with GitHub's\n"
            "semantics. Contexts given by the options are known; what depends on others is\n"
            "printed back as an expression, in canonical form. text prints the value as GitHub\n"
            "turns it into a string, json as JSON.\n"
            "\n",
    .options = options,
    .formats = formats,
    .min_operands = 1,
    .max_operands = 1,
    .operands = "one operand: the EXPRESSION",
    .exec = exec_expr,
};
