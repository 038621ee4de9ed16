/* Workflow strings with ${{ }} parts, and `if:` values, read as GitHub's template reader
 * does (@actions/workflow-parser: TemplateReader.parseScalar, convertToIfCondition).
 *
 * An expression runs from `${{` to the first `}}` outside a single-quoted string (each
 * quote toggles; '' toggles twice). A value that is exactly one `${{ }}` is that
 * expression's value, of any type; anything else becomes one string, which GitHub
 * computes as format('text{0}text', expr...): so the combined call must also stay
 * within GitHub's limits (255 arguments, 21,000 characters, depth 50), checked by
 * parsing it. */
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/strhash.h"

#include "expr_internal.h"

struct segment {
    size_t start, end; /* text, or the trimmed expression */
    size_t open;       /* expressions: offset of `${{` */
    struct expr *e;
};

struct template {
    struct segment *seg;
    size_t n, cap;
    struct split_memo *memo; /* where split keeps it, or NULL */
    bool borrowed;           /* seg is the memo's own (template_free leaves it) */
};

/* Texts already split, with their trees (shared) and whether their format() call was
 * parsed: a workflow's strings are split again in every matrix configuration and by
 * every check, and the format() text of a long `run:` costs more than its evaluation.
 * Direct-mapped like expr_parse's trees, texts of at most SPLIT_MAX_TEXT bytes, one a
 * thread. */
#define SPLIT_SLOTS 512
#define SPLIT_MAX_TEXT 16384

struct split_memo {
    char *text;
    size_t len;
    struct segment *seg;
    size_t n;
    bool formats; /* combined() parsed its format() call */
};

/* The memo a text was last split into, by the text's address: a text is most often
 * split again where it is (a job's fields in each matrix configuration share their
 * texts), and its address finds its memo without hashing it (the memo's copy is still
 * compared); hashing was most of a lookup. */
#define SEEN_SLOTS 1024

struct split_seen {
    const char *at;
    size_t memo;
};

/* On the heap at the first split: as a thread-local array, its 20 KiB were zeroed in
 * every thread's TLS block at start-up, whether the run reads a workflow or not. */
static _Thread_local struct split_tables {
    struct split_memo memos[SPLIT_SLOTS];
    struct split_seen seen[SEEN_SLOTS];
} *tables;

/* The memo slot of text s[0..len): where its address last found it, else by its hash. */
static struct split_memo *memo_slot(const char *s, size_t len, struct split_seen **seen)
{
    struct split_memo *m;

    *seen = &tables->seen[((uintptr_t)s >> 3) * 0x9E3779B97F4A7C15u >> 54 & (SEEN_SLOTS - 1)];
    m = &tables->memos[(*seen)->memo];
    if ((*seen)->at == s && m->text && m->len == len && memcmp(m->text, s, len) == 0)
        return m;
    return &tables->memos[strhash_words(s, len) & (SPLIT_SLOTS - 1)];
}

/* The segments of `from` into `to`, each tree shared. 0, or -1 when out of memory. */
static int copy_segments(struct segment **to, const struct segment *from, size_t n)
{
    if (!(*to = malloc((n ? n : 1) * sizeof(**to))))
        return -1;
    memcpy(*to, from, n * sizeof(**to));
    for (size_t i = 0; i < n; i++) {
        if (from[i].e)
            from[i].e->shared++;
    }
    return 0;
}

static void memo_clear(struct split_memo *m)
{
    for (size_t i = 0; i < m->n; i++)
        expr_free(m->seg[i].e);
    free(m->seg);
    free(m->text);
    memset(m, 0, sizeof(*m));
}

/* A text split before (t filled, 1), or 0. With `borrow`, t uses the memo's segments
 * (no copy, no share count to raise and drop again: a tenth of a matrix job's template
 * evaluation), for a caller that splits no other text before template_free. */
static int memo_find(const char *s, size_t len, struct split_memo *m, struct template *t, bool borrow)
{
    if (!m || !m->text || m->len != len || memcmp(m->text, s, len) != 0)
        return 0;
    if (borrow)
        t->seg = m->seg;
    else if (copy_segments(&t->seg, m->seg, m->n) != 0)
        return 0;
    t->borrowed = borrow;
    t->n = t->cap = m->n;
    t->memo = m;
    return 1;
}

/* Keeps the split of text s in `m` (nothing when out of memory or too long). */
static void memo_keep(const char *s, size_t len, struct split_memo *m, struct template *t)
{
    struct split_memo keep = {0};

    if (!m || len > SPLIT_MAX_TEXT || !(keep.text = malloc(len ? len : 1)))
        return;
    if (copy_segments(&keep.seg, t->seg, t->n) != 0) {
        free(keep.text);
        return;
    }
    memcpy(keep.text, s, len);
    keep.len = len;
    keep.n = t->n;
    memo_clear(m);
    *m = keep;
    t->memo = m;
}

static void template_free(struct template *t)
{
    if (t->borrowed)
        return;
    for (size_t i = 0; i < t->n; i++)
        expr_free(t->seg[i].e);
    free(t->seg);
}

/* memchr finds the candidates: a `run:` script is long and mostly without `$`. */
size_t expr_template_open(const char *s, size_t len)
{
    for (const char *p = s, *end = s + len; len >= 3 && (p = memchr(p, '$', (size_t)(end - p - 2)));
         p++) {
        if (p[1] == '{' && p[2] == '{')
            return (size_t)(p - s);
    }
    return SIZE_MAX;
}

/* By memchr, a run outside quotes at a time (a `}}` is never split by a quote): a long
 * `if:` condition was read a character at a time. */
size_t expr_template_close(const char *s, size_t len, size_t at)
{
    size_t j = at + 3;

    for (;;) {
        const char *q = memchr(s + j, '\'', len - j), *c;
        size_t stop = q ? (size_t)(q - s) : len;

        for (size_t k = j; (c = memchr(s + k, '}', stop - k)) != NULL; k = (size_t)(c - s) + 1) {
            if (c + 1 < s + stop && c[1] == '}')
                return (size_t)(c - s) + 1;
        }
        if (!q || !(q = memchr(q + 1, '\'', len - stop - 1)))
            return 0;
        j = (size_t)(q - s) + 1;
    }
}

static size_t find_open(const char *s, size_t len, size_t from)
{
    size_t at = from < len ? expr_template_open(s + from, len - from) : SIZE_MAX;

    return at == SIZE_MAX ? at : from + at;
}

/* Splits text into segments and parses each expression (`borrow`: see memo_find). 0, or
 * -1 with *err set. */
static int split_in(const char *s, size_t len, struct template *t, bool borrow, const struct expr_names *names,
                    struct expr_error *err)
{
    struct split_memo *m = NULL;
    struct split_seen *seen = NULL;
    size_t i = 0, open;

    if (!tables)
        tables = calloc(1, sizeof(*tables)); /* none: nothing is kept */
    if (tables && !names) /* the memo keeps texts parsed as expr_parse parses */
        m = memo_slot(s, len, &seen);

    memset(t, 0, sizeof(*t));
    if (memo_find(s, len, m, t, borrow)) {
        *seen = (struct split_seen){s, (size_t)(m - tables->memos)};
        return 0;
    }
    open = find_open(s, len, 0);
    while (i < len) {
        struct segment *g;

        if (t->n == t->cap) {
            struct segment *seg = array_grow(t->seg, &t->cap, t->n + 1, 8, sizeof(*seg));

            if (!seg)
                return expr_fail(err, 0, "out of memory");
            t->seg = seg;
        }
        g = &t->seg[t->n];
        memset(g, 0, sizeof(*g));

        if (i == open) {
            size_t end = expr_template_close(s, len, open), start = open + 3, stop;

            if (!end)
                return expr_fail(err, open,
                                 "The expression is not closed. An unescaped ${{ sequence was "
                                 "found, but the closing }} sequence was not found.");
            stop = end - 1;
            expr_js_trim(s, &start, &stop);
            if (start == stop)
                return expr_fail(err, open, "An expression was expected");
            g->start = start;
            g->end = stop;
            g->open = open;
            g->e = names ? expr_parse_in(s + start, stop - start, names, err) : expr_parse(s + start, stop - start, err);
            t->n++;
            if (!g->e) {
                err->offset += start;
                return -1;
            }
            i = end + 1;
            open = find_open(s, len, i);
        } else {
            size_t stop = open == SIZE_MAX ? len : open;

            g->start = i;
            g->end = stop;
            t->n++;
            i = stop;
        }
    }
    memo_keep(s, len, m, t);
    if (t->memo)
        *seen = (struct split_seen){s, (size_t)(m - tables->memos)};
    return 0;
}

/* The parts of workflow string `s`, its expressions parsed by expr_parse. */
static int split(const char *s, size_t len, struct template *t, bool borrow, struct expr_error *err)
{
    return split_in(s, len, t, borrow, NULL, err);
}

static bool whole(const struct template *t)
{
    return t->n == 1 && t->seg[0].e;
}

/* GitHub's format('...', ...) for a template of several segments, as text. */
static char *format_text(const char *s, const struct template *t, size_t *len)
{
    struct strbuf b = {.max = EXPR_MAX_STRING};
    size_t arg = 0;

    strbuf_puts(&b, "format('");
    for (size_t i = 0; i < t->n; i++) {
        const struct segment *g = &t->seg[i];

        if (g->e) {
            char num[24];
            size_t n = 0, k = arg++;

            do {
                num[n++] = (char)('0' + k % 10);
                k /= 10;
            } while (k);
            strbuf_putc(&b, '{');
            while (n)
                strbuf_putc(&b, num[--n]);
            strbuf_putc(&b, '}');
            continue;
        }
        for (size_t k = g->start; k < g->end; k++) {
            if (s[k] == '\'' || s[k] == '{' || s[k] == '}')
                strbuf_putc(&b, s[k]); /* escaped by doubling */
            strbuf_putc(&b, s[k]);
        }
    }
    strbuf_putc(&b, '\'');
    for (size_t i = 0; i < t->n; i++) {
        if (t->seg[i].e) {
            strbuf_puts(&b, ", ");
            strbuf_put(&b, s + t->seg[i].start, t->seg[i].end - t->seg[i].start);
        }
    }
    strbuf_putc(&b, ')');
    return strbuf_take(&b, len);
}

/* Whether the parser takes the format() call of `t` without parsing it: at most 254
 * expressions, within the length limit (its bytes bound its UTF-16 units), and each
 * expression a level short of the depth limit (an argument is parsed one level deeper
 * than the expression alone, which its tree's max_depth tells). */
static bool format_fits(const struct template *t)
{
    size_t n = 0, bytes = sizeof("format('')");

    for (size_t i = 0; i < t->n; i++) {
        const struct segment *g = &t->seg[i];

        if (!g->e) {
            bytes += 2 * (g->end - g->start); /* quotes and braces doubled */
            continue;
        }
        if (g->e->max_depth >= EXPR_MAX_DEPTH)
            return false;
        n++;
        bytes += sizeof("{255}, ") + (g->end - g->start);
    }
    return n < 255 && bytes <= EXPR_MAX_LENGTH;
}

/* Parses the combined format(...) call; with `keep`, hands it over. */
static int combined(const char *s, const struct template *t, struct expr **keep,
                    struct expr_error *err)
{
    size_t len;
    char *text;
    struct expr *e;

    if (!keep && ((t->memo && t->memo->formats) || format_fits(t)))
        return 0;
    if (!(text = format_text(s, t, &len)))
        return expr_fail(err, 0, "out of memory");
    e = expr_parse_new(text, len, err); /* its verdict is kept in the memo, not its tree */
    free(text);
    if (!e) {
        err->offset = 0;
        return -1;
    }
    if (keep)
        *keep = e;
    else
        expr_free(e);
    if (t->memo)
        t->memo->formats = true;
    return 0;
}

/* ---- template evaluation ---- */

/* Adds each name of `list` ("a, b") that `names` lacks. */
static void add_names(struct strbuf *names, const char *list)
{
    while (*list) {
        const char *end = strstr(list, ", ");
        size_t len = end ? (size_t)(end - list) : strlen(list);
        bool seen = false;

        for (const char *p = names->s; p && *p;) {
            const char *q = strstr(p, ", ");
            size_t plen = q ? (size_t)(q - p) : strlen(p);

            seen = seen || (plen == len && memcmp(p, list, len) == 0);
            p = q ? q + 2 : p + plen;
        }
        if (!seen) {
            if (names->len)
                strbuf_puts(names, ", ");
            strbuf_put(names, list, len);
        }
        list = end ? end + 2 : list + len;
    }
}

/* Writes a run of known text into a residual template: as it is, unless it holds `${{`
 * (which GitHub would read as an expression) or a NUL; then as ${{ 'text' }}. */
static void flush_run(struct strbuf *out, struct strbuf *run, size_t *parts)
{
    if (run->len == 0)
        return;
    if (find_open(run->s, run->len, 0) != SIZE_MAX || memchr(run->s, '\0', run->len)) {
        strbuf_puts(out, "${{ ");
        expr_buf_string_literal(out, run->s, run->len);
        strbuf_puts(out, " }}");
    } else {
        strbuf_put(out, run->s, run->len);
    }
    (*parts)++;
    run->len = 0;
}

char *expr_template_literal(const char *s, size_t len, size_t *out_len)
{
    struct strbuf out = {.max = EXPR_MAX_STRING}, run = {.max = EXPR_MAX_STRING};
    size_t parts = 0;

    strbuf_put(&run, s, len);
    flush_run(&out, &run, &parts);
    free(run.s);
    strbuf_putc(&out, '\0'); /* a string of nothing is "", never NULL */
    if (out.oom) {
        free(out.s);
        return NULL;
    }
    *out_len = out.len - 1;
    return out.s;
}

/* Appends `v` as text: coerceString, or with `runtime` as GitHub's C# runtime converts
 * a value around ${{ }} (EvaluationResult.ConvertToString: numbers in G15, -0 as 0). */
static void put_value(struct strbuf *b, const struct expr_value *v, bool runtime)
{
    char num[EXPR_NUMBUF];

    if (runtime && v->kind == EXPR_NUMBER)
        strbuf_put(b, num, expr_g15_number(v->u.d == 0 ? 0 : v->u.d, num));
    else
        expr_buf_coerce(b, v);
}

static int eval_parts(const char *s, struct template *t, const struct expr_contexts *c, bool runtime,
                      struct expr_result *out, struct expr_error *err)
{
    struct strbuf text = {.max = EXPR_MAX_STRING}, run = {.max = EXPR_MAX_STRING},
                  names = {.max = EXPR_MAX_STRING};
    struct expr_result r;
    size_t parts = 0, unknown = 0;
    char *last = NULL;
    int rc = -1;

    for (size_t i = 0; i < t->n; i++) {
        const struct segment *g = &t->seg[i];

        if (!g->e) {
            strbuf_put(&run, s + g->start, g->end - g->start);
            continue;
        }
        if (expr_eval(g->e, c, false, &r, err) != 0) {
            err->offset += g->start;
            goto done;
        }
        if (r.value) {
            put_value(&run, r.value, runtime);
        } else {
            if (run.oom) {
                expr_result_clear(&r);
                break;
            }
            flush_run(&text, &run, &parts);
            strbuf_puts(&text, "${{ ");
            strbuf_puts(&text, r.residual);
            strbuf_puts(&text, " }}");
            free(last);
            last = r.residual;
            r.residual = NULL;
            parts++;
            unknown++;
            out->status = out->status || r.status;
            add_names(&names, r.unknown);
        }
        expr_result_clear(&r);
    }
    if (run.oom || text.oom) {
        if (run.too_long || text.too_long)
            rc = expr_fail(err, 0, "the string would be longer than %zu MiB",
                           EXPR_MAX_STRING >> 20);
        else
            rc = expr_fail(err, 0, "out of memory");
        goto done;
    }
    if (unknown == 0) {
        out->value = expr_string(run.s ? run.s : "", run.len);
        rc = out->value ? 0 : expr_fail(err, 0, "out of memory");
        goto done;
    }
    flush_run(&text, &run, &parts);
    if (parts == 1) {
        /* One expression alone would be its value, not a string: keep it a string. */
        text.len = 0;
        strbuf_puts(&text, "${{ format('{0}', ");
        strbuf_puts(&text, last);
        strbuf_puts(&text, ") }}");
    }
    out->residual = strbuf_take(&text, NULL);
    out->unknown = strbuf_take(&names, NULL);
    if (!out->residual && text.too_long)
        rc = expr_fail(err, 0, "the string would be longer than %zu MiB", EXPR_MAX_STRING >> 20);
    else
        rc = out->residual && out->unknown ? 0 : expr_fail(err, 0, "out of memory");
done:
    free(last);
    strbuf_free(&text);
    strbuf_free(&run);
    strbuf_free(&names);
    return rc;
}

/* The value of one expression where a string is wanted (TemplateEvaluator: a scalar's
 * ToString(), numbers in G15 as NumberToken writes them); an array or object stays. */
static struct expr_value *runtime_string(struct expr_value *v)
{
    char num[EXPR_NUMBUF];
    struct expr_value *out;

    switch (v->kind) {
    case EXPR_NULL:
        out = expr_string("", 0);
        break;
    case EXPR_BOOL:
        out = expr_string(v->u.b ? "true" : "false", v->u.b ? 4 : 5);
        break;
    case EXPR_NUMBER:
        out = expr_string(num, expr_g15_number(v->u.d, num));
        break;
    default:
        return v;
    }
    expr_unref(v);
    return out;
}

static int template_eval(const char *text, size_t len, const struct expr_contexts *c, bool runtime,
                         struct expr_result *out, struct expr_error *err)
{
    struct template t;
    struct expr_result r;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (find_open(text, len, 0) == SIZE_MAX) {
        out->value = expr_string(text, len);
        return out->value ? 0 : expr_fail(err, 0, "out of memory");
    }
    if (split(text, len, &t, true, err) != 0)
        goto done;
    if (whole(&t)) {
        if (expr_eval(t.seg[0].e, c, false, &r, err) != 0) {
            err->offset += t.seg[0].start;
            goto done;
        }
        if (r.value) {
            *out = r;
            if (runtime && !(out->value = runtime_string(out->value))) {
                rc = expr_fail(err, 0, "out of memory");
                goto done;
            }
            rc = 0;
            goto done;
        }
        out->status = r.status;
        out->unknown = r.unknown;
        r.unknown = NULL;
        out->residual = malloc(strlen(r.residual) + 8);
        if (out->residual) {
            strcpy(out->residual, "${{ ");
            strcat(out->residual, r.residual);
            strcat(out->residual, " }}");
        }
        expr_result_clear(&r);
        rc = out->residual ? 0 : expr_fail(err, 0, "out of memory");
        goto done;
    }
    if (combined(text, &t, NULL, err) != 0)
        goto done;
    rc = eval_parts(text, &t, c, runtime, out, err);
done:
    template_free(&t);
    if (rc != 0)
        expr_result_clear(out);
    return rc;
}

int expr_template_eval(const char *text, size_t len, const struct expr_contexts *c,
                       struct expr_result *out, struct expr_error *err)
{
    return template_eval(text, len, c, false, out, err);
}

int expr_template_string(const char *text, size_t len, const struct expr_contexts *c,
                         struct expr_result *out, struct expr_error *err)
{
    return template_eval(text, len, c, true, out, err);
}

/* ---- if: ---- */

/* getExpressionString: an expression made only of quoted strings is read as their text
 * (GitHub turns ${{ 'a' }} into the plain string a). */
static char *quoted_text(const char *s, size_t len, bool *is_text)
{
    struct strbuf b = {.max = EXPR_MAX_STRING};
    bool quoted = false;

    *is_text = false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\'') {
            quoted = !quoted;
            if (quoted && i != 0)
                strbuf_putc(&b, '\'');
        } else if (!quoted) {
            strbuf_free(&b);
            return NULL;
        } else {
            strbuf_putc(&b, s[i]);
        }
    }
    *is_text = true;
    return strbuf_take(&b, NULL);
}

/* The condition in text[*start, *end): trimmed; an empty one is GitHub's default,
 * success(), which *text then is (false: not written in the text). */
static bool condition_span(const char **text, size_t *start, size_t *end)
{
    expr_js_trim(*text, start, end);
    if (*start != *end)
        return true;
    *text = "success()";
    *start = 0;
    *end = strlen(*text);
    return false;
}

/* The condition a text that is one ${{ }}, segment `g`, stands for: a quoted string's text
 * alone in it (quoted_text; in *made, the caller's to free), else the expression's own
 * span: from[*start, *end). 0, or -1 out of memory (reported in err). */
static int whole_condition(const char *text, const struct segment *g, char **made, const char **from,
                           size_t *start, size_t *end, struct expr_error *err)
{
    bool is_text;

    *made = quoted_text(text + g->start, g->end - g->start, &is_text);
    if (is_text && !*made)
        return expr_fail(err, 0, "out of memory");
    *from = *made ? *made : text;
    *start = *made ? 0 : g->start;
    *end = *made ? strlen(*made) : g->end;
    return 0;
}

static int condition(const char *text, size_t len, size_t base, const struct expr_contexts *c,
                     struct expr_result *out, struct expr_error *err)
{
    size_t start = 0, end = len;
    struct expr *e;
    int rc;

    if (!condition_span(&text, &start, &end))
        base = 0;
    e = expr_parse(text + start, end - start, err);
    if (!e) {
        err->offset += base + start;
        return -1;
    }
    rc = expr_eval(e, c, true, out, err);
    if (rc != 0)
        err->offset += base + start;
    expr_free(e);
    return rc;
}

int expr_condition_eval(const char *text, size_t len, const struct expr_contexts *c,
                        struct expr_result *out, struct expr_error *err)
{
    struct template t;
    struct expr *e = NULL;
    char *lit;
    const char *from;
    size_t start, end;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (find_open(text, len, 0) == SIZE_MAX)
        return condition(text, len, 0, c, out, err);
    if (split(text, len, &t, true, err) != 0)
        goto done;
    if (whole(&t)) {
        if (whole_condition(text, &t.seg[0], &lit, &from, &start, &end, err) != 0)
            goto done;
        rc = condition(from + start, end - start, lit ? 0 : start, c, out, err);
        /* a quoted string's text is the condition: offsets can only point at `${{` */
        if (rc != 0 && lit)
            err->offset = t.seg[0].open;
        free(lit);
        goto done;
    }
    /* Text and expressions: the string format() makes (truthy unless empty). */
    if (combined(text, &t, &e, err) != 0)
        goto done;
    rc = expr_eval(e, c, true, out, err);
    if (rc != 0)
        err->offset = 0;
done:
    expr_free(e);
    template_free(&t);
    if (rc != 0)
        expr_result_clear(out);
    return rc;
}

char *expr_condition_text(const char *text, size_t len, const struct expr_names *names, size_t *out_len,
                          size_t *base, bool *formatted, struct expr_error *err)
{
    struct template t = {0};
    const char *from = text;
    char *made = NULL, *out = NULL;
    size_t start = 0, end = len, at = 0;

    *formatted = false;
    *base = SIZE_MAX;
    if (find_open(text, len, 0) != SIZE_MAX) {
        if (split_in(text, len, &t, true, names, err) != 0)
            goto done;
        if (!whole(&t)) {
            if (!(out = format_text(text, &t, out_len)))
                expr_fail(err, 0, "out of memory");
            *formatted = true;
            goto done;
        }
        if (whole_condition(text, &t.seg[0], &made, &from, &start, &end, err) != 0)
            goto done;
        at = made ? SIZE_MAX : 0;
    }
    if (!condition_span(&from, &start, &end))
        at = SIZE_MAX;
    if (!(out = strndup(from + start, end - start))) {
        expr_fail(err, 0, "out of memory");
        goto done;
    }
    *out_len = end - start;
    *base = at == SIZE_MAX ? SIZE_MAX : start;
done:
    free(made);
    template_free(&t);
    return out;
}

/* ---- what a text's expressions read ---- */

/* expr_text_paths' callback, its offsets moved from an expression's text into the
 * whole text: by `base`, or all to `base` when `pin` (a condition in a quoted string). */
struct shifted {
    expr_path_fn fn;
    void *user;
    size_t base;
    bool pin;
};

static int shift_path(void *user, const struct expr_path *path)
{
    const struct shifted *sh = user;
    struct expr_path p = *path;

    p.offset = sh->pin ? sh->base : sh->base + p.offset;
    return sh->fn(sh->user, &p);
}

/* The paths of the expression s[0..len), trimmed as a condition is. */
static int paths_of(const char *s, size_t len, struct shifted *sh)
{
    size_t start = 0, end = len;
    struct expr_error err;
    struct expr *e;
    int rc;

    expr_js_trim(s, &start, &end);
    if (!(e = expr_parse(s + start, end - start, &err)))
        return 0;
    if (!sh->pin)
        sh->base += start;
    rc = expr_each_path(e, shift_path, sh);
    expr_free(e);
    return rc;
}

int expr_text_paths(const char *text, size_t len, bool condition, expr_path_fn fn, void *user)
{
    struct shifted sh = {fn, user, 0, false};
    struct template t;
    struct expr_error err;
    int rc = 0;

    if (find_open(text, len, 0) == SIZE_MAX)
        return condition ? paths_of(text, len, &sh) : 0;
    if (split(text, len, &t, false, &err) == 0) { /* fn may evaluate other texts */
        for (size_t i = 0; i < t.n && rc == 0; i++) {
            const struct segment *g = &t.seg[i];
            bool is_text = false;
            char *lit = condition && whole(&t) ? quoted_text(text + g->start, g->end - g->start, &is_text) : NULL;

            if (is_text) { /* its text is the condition (expr_condition_eval) */
                sh.base = g->open;
                sh.pin = true;
                rc = lit ? paths_of(lit, strlen(lit), &sh) : 0;
            } else if (g->e) {
                sh.base = g->start;
                rc = expr_each_path(g->e, shift_path, &sh);
            }
            free(lit);
        }
    }
    template_free(&t);
    return rc;
}
