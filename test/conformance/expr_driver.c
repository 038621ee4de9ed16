/* The C side of the expression differential test (test/conformance/expr.sh): evaluates
 * each expression of a file (one JSON string a line) against fully known contexts and
 * prints one line per expression, in the form test/conformance/expr/oracle.js prints
 * @actions/expressions' results:
 *
 *   OK <value>\t<coerceString as JSON>   value: JSON-like, numbers as JavaScript prints
 *                                         them (NaN, Infinity, -0 kept), keys in order
 *   PARSE_ERROR | EVAL_ERROR | RESIDUAL <text>
 *
 * Usage: expr_driver CONTEXTS.json EXPRESSIONS.jsonl [--bench N | --unknown NAME]
 * --bench parses and evaluates the whole set N times and prints expressions per second.
 * --unknown evaluates in two stages, as a rendering and then GitHub do: first with the
 * context NAME unknown, then the residual left (if any) with every context known; the
 * result must be GitHub's for the whole expression. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/expr/expr_internal.h"

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *s = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (s = malloc((size_t)n + 1)) && fread(s, 1, (size_t)n, f) == (size_t)n) {
        s[n] = '\0';
        *len = (size_t)n;
    } else {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

static void dump(struct strbuf *b, const struct expr_value *v)
{
    char num[EXPR_NUMBUF];

    switch (expr_kind_of(v)) {
    case EXPR_NULL:
        strbuf_puts(b, "null");
        break;
    case EXPR_BOOL:
        strbuf_puts(b, expr_bool_value(v) ? "true" : "false");
        break;
    case EXPR_NUMBER:
        if (expr_number_value(v) == 0 && signbit(expr_number_value(v)))
            strbuf_puts(b, "-0");
        else
            strbuf_put(b, num, expr_js_number(expr_number_value(v), num));
        break;
    case EXPR_STRING:
        expr_buf_json_string(b, v->u.str.s, v->u.str.len, false);
        break;
    case EXPR_ARRAY:
        strbuf_putc(b, '[');
        for (size_t i = 0; i < expr_len(v); i++) {
            if (i)
                strbuf_putc(b, ',');
            dump(b, expr_item(v, i));
        }
        strbuf_putc(b, ']');
        break;
    default:
        strbuf_putc(b, '{');
        for (size_t i = 0; i < expr_len(v); i++) {
            size_t len;
            const char *k = expr_key(v, i, &len);

            if (i)
                strbuf_putc(b, ',');
            expr_buf_json_string(b, k, len, false);
            strbuf_putc(b, ':');
            dump(b, expr_member(v, i));
        }
        strbuf_putc(b, '}');
        break;
    }
}

struct set {
    struct expr_value **texts; /* the expressions, as strings */
    size_t n;
};

static int load_set(const char *path, struct set *set)
{
    size_t len, cap = 0;
    char *text = read_file(path, &len), *line, *end;

    if (!text)
        return -1;
    for (line = text; line < text + len; line = end + 1) {
        char *error = NULL;
        struct expr_value *v;

        end = strchr(line, '\n');
        if (!end)
            end = text + len;
        if (end == line)
            continue;
        v = expr_from_json(line, (size_t)(end - line), &error);
        if (!v || expr_kind_of(v) != EXPR_STRING) {
            fprintf(stderr, "%s: bad line: %s\n", path, error ? error : "not a string");
            free(error);
            expr_unref(v);
            free(text);
            return -1;
        }
        if (set->n == cap) {
            cap = cap ? cap * 2 : 1024;
            set->texts = realloc(set->texts, cap * sizeof(*set->texts));
            if (!set->texts)
                return -1;
        }
        set->texts[set->n++] = v;
    }
    free(text);
    return 0;
}

/* One expression's line; the buffer is reset first. With `first`, the expression is
 * evaluated against it, and a residual again against `c`. */
static void run(const struct expr_value *text, const struct expr_contexts *first,
                const struct expr_contexts *c, struct strbuf *b)
{
    struct expr_error err;
    struct expr_result r;
    struct expr *e = expr_parse(text->u.str.s, text->u.str.len, &err);
    int rc;

    b->len = 0;
    if (!e) {
        strbuf_puts(b, "PARSE_ERROR");
        return;
    }
    rc = expr_eval(e, first ? first : c, false, &r, &err);
    if (rc == 0 && first && r.residual) {
        struct expr *again = expr_parse(r.residual, strlen(r.residual), &err);

        expr_result_clear(&r);
        expr_free(e);
        e = again;
        rc = e ? expr_eval(e, c, false, &r, &err) : -1;
    }
    if (rc != 0) {
        strbuf_puts(b, "EVAL_ERROR");
    } else if (r.residual) {
        strbuf_puts(b, "RESIDUAL ");
        strbuf_puts(b, r.residual);
    } else {
        struct strbuf s = {.max = EXPR_MAX_STRING};

        expr_buf_coerce(&s, r.value); /* not expr_to_string: the text may hold NULs */
        strbuf_puts(b, "OK ");
        dump(b, r.value);
        strbuf_putc(b, '\t');
        expr_buf_json_string(b, s.s ? s.s : "", s.len, false);
        strbuf_free(&s);
    }
    expr_result_clear(&r);
    expr_free(e);
}

int main(int argc, char **argv)
{
    struct expr_contexts *c = expr_contexts_create(), *first = NULL;
    struct expr_value *all;
    const char *unknown = NULL;
    struct set set = {0};
    struct strbuf b = {.max = EXPR_MAX_STRING};
    char *text, *error = NULL;
    size_t len;
    long rounds = 0;

    if (argc == 5 && strcmp(argv[3], "--bench") == 0)
        rounds = strtol(argv[4], NULL, 10);
    else if (argc == 5 && strcmp(argv[3], "--unknown") == 0)
        unknown = argv[4];
    else if (argc != 3) {
        fprintf(stderr, "usage: expr_driver CONTEXTS.json EXPRESSIONS.jsonl "
                        "[--bench N | --unknown NAME]\n");
        return 2;
    }
    text = read_file(argv[1], &len);
    all = text ? expr_from_json(text, len, &error) : NULL;
    free(text);
    if (!c || !all || expr_kind_of(all) != EXPR_OBJECT || load_set(argv[2], &set) != 0) {
        fprintf(stderr, "expr_driver: cannot read the inputs%s%s\n", error ? ": " : "",
                error ? error : "");
        return 2;
    }
    if (unknown && !(first = expr_contexts_create()))
        return 2;
    for (size_t i = 0; i < expr_len(all); i++) {
        const char *name = expr_key(all, i, NULL);

        expr_contexts_set(c, name, expr_ref(expr_member(all, i)));
        if (first && strcmp(name, unknown) != 0)
            expr_contexts_set(first, name, expr_ref(expr_member(all, i)));
    }
    if (rounds > 0) {
        struct timespec t0, t1;
        double s;

        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (long k = 0; k < rounds; k++) {
            for (size_t i = 0; i < set.n; i++)
                run(set.texts[i], NULL, c, &b);
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        printf("%zu expressions x %ld rounds in %.3f s: %.0f expressions/s (parse + eval)\n",
               set.n, rounds, s, (double)set.n * (double)rounds / s);
    } else {
        for (size_t i = 0; i < set.n; i++) {
            run(set.texts[i], first, c, &b);
            printf("%s\n", b.s);
        }
    }
    for (size_t i = 0; i < set.n; i++)
        expr_unref(set.texts[i]);
    free(set.texts);
    strbuf_free(&b);
    expr_unref(all);
    expr_contexts_destroy(c);
    expr_contexts_destroy(first);
    return 0;
}
