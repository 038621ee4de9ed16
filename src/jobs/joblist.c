/* joblist: the jobs of renderings, listed (include/fanout/joblist.h). */
#include "fanout/joblist.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/dialect.h"
#include "fanout/strhash.h"
#include "fanout/ynode.h"

/* A job as listed. */
struct rec {
    char *id, *name, *runs_on, *file; /* name, runs_on: NULL when the job has none */
    unsigned part, parts, line;       /* part: from 0 */
    bool parallel;
    size_t n_values; /* a matrix configuration's values by vector name, else 0 */
    char **names, **values;
};

/* The jobs per runner, for the totals: a hash table of runners (open addressing). */
struct tally {
    char *runs_on;
    size_t jobs;
};

struct joblist {
    struct diag *diag;
    FILE *spool;   /* the records kept, one after the other */
    long kept;     /* the spool's length before the group being rendered */
    bool failed;   /* out of memory or temporary space, reported */
    const struct dialect *dialect;
    const char *const *paths; /* of the group being rendered, by file number */
    size_t n_paths;
    struct rec *fan; /* the fan-out being read: its count is known at its end */
    size_t n_fan, cap_fan;
    struct tally *tally;
    size_t n_tally, cap_tally, no_runner, total;
};

static void rec_clear(struct rec *r)
{
    for (size_t k = 0; k < r->n_values; k++) {
        free(r->names[k]);
        free(r->values[k]);
    }
    free(r->names);
    free(r->values);
    free(r->id);
    free(r->name);
    free(r->runs_on);
    free(r->file);
    memset(r, 0, sizeof(*r));
}

static int fail(struct joblist *l)
{
    if (!l->failed)
        diag_report(l->diag, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_IO,
                    "cannot list the jobs (out of memory or temporary space)");
    l->failed = true;
    return -1;
}

/* ---- the spool's records ---- */

#define NO_STRING UINT32_MAX

static void put_u32(FILE *f, uint32_t v)
{
    fwrite(&v, sizeof(v), 1, f);
}

static void put_str(FILE *f, const char *s)
{
    size_t len = s ? strlen(s) : 0;

    put_u32(f, s && len < NO_STRING ? (uint32_t)len : NO_STRING);
    if (s && len < NO_STRING)
        fwrite(s, 1, len, f);
}

static void put_rec(FILE *f, const struct rec *r)
{
    put_str(f, r->id);
    put_str(f, r->name);
    put_str(f, r->runs_on);
    put_str(f, r->file);
    put_u32(f, r->part);
    put_u32(f, r->parts);
    put_u32(f, r->line);
    put_u32(f, r->parallel);
    put_u32(f, (uint32_t)r->n_values);
    for (size_t k = 0; k < r->n_values; k++) {
        put_str(f, r->names[k]);
        put_str(f, r->values[k]);
    }
}

static bool get_u32(FILE *f, uint32_t *v)
{
    return fread(v, sizeof(*v), 1, f) == 1;
}

static bool get_str(FILE *f, char **s)
{
    uint32_t len;

    *s = NULL;
    if (!get_u32(f, &len))
        return false;
    if (len == NO_STRING)
        return true;
    if (!(*s = malloc((size_t)len + 1)) || fread(*s, 1, len, f) != len)
        return false;
    (*s)[len] = '\0';
    return true;
}

/* 1 with *r read, 0 at the end, -1 when the spool cannot be read. */
static int get_rec(FILE *f, struct rec *r)
{
    uint32_t parallel, n;
    int c = getc(f);

    memset(r, 0, sizeof(*r));
    if (c == EOF)
        return ferror(f) ? -1 : 0;
    ungetc(c, f);
    if (!get_str(f, &r->id) || !get_str(f, &r->name) || !get_str(f, &r->runs_on) || !get_str(f, &r->file) ||
        !get_u32(f, &r->part) || !get_u32(f, &r->parts) || !get_u32(f, &r->line) || !get_u32(f, &parallel) ||
        !get_u32(f, &n))
        return -1;
    r->parallel = parallel != 0;
    if (n && (!(r->names = calloc(n, sizeof(*r->names))) || !(r->values = calloc(n, sizeof(*r->values)))))
        return -1;
    r->n_values = n;
    for (size_t k = 0; k < n; k++)
        if (!get_str(f, &r->names[k]) || !get_str(f, &r->values[k]))
            return -1;
    return 1;
}

/* ---- a job's record, from the rendering ---- */

/* A value as one line: a scalar as written, a list's items joined by ",", a mapping's
 * pairs as k=v (an agent's tags: `queue=gpu`); a collection inside one in brackets. */
static void node_text(FILE *f, const struct ynode *n, bool nested)
{
    size_t len;
    const char *t = ynode_scalar(n, &len);

    if (t) {
        fwrite(t, 1, len, f);
        return;
    }
    if (nested)
        fputc(ynode_is_seq(n) ? '[' : '{', f);
    for (size_t i = 0; i < ynode_len(n); i++) {
        if (i)
            fputc(',', f);
        if (ynode_is_map(n)) {
            node_text(f, ynode_key(n, i), true);
            fputc('=', f);
        }
        node_text(f, ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i), true);
    }
    if (nested)
        fputc(ynode_is_seq(n) ? ']' : '}', f);
}

/* node_text of `n` (NULL: none), malloc'd; *ok false when out of memory. */
static char *text_of(const struct ynode *n, bool *ok)
{
    char *s = NULL;
    size_t len;
    FILE *f;

    if (!n)
        return NULL;
    if (!(f = open_memstream(&s, &len))) {
        *ok = false;
        return NULL;
    }
    node_text(f, n, false);
    if (fclose(f) != 0) {
        *ok = false;
        return NULL;
    }
    return s;
}

/* The value of the first of `fields` the job has (a NULL list: none). */
static const struct ynode *first_of(const struct ynode *job, const char *const *fields)
{
    struct ynode *v = NULL;

    if (!fields || !ynode_is_map(job) || !ynode_get_any(job, fields, &v))
        return NULL;
    return v;
}

/* What a reader calls the job, as diff does: its label, else its prompt (scalars). */
static const struct ynode *title_of(const struct dialect_diff *dd, const struct ynode *job)
{
    const struct ynode *v = first_of(job, dd->labels);

    if (!ynode_is_scalar(v))
        v = first_of(job, dd->prompts);
    return ynode_is_scalar(v) ? v : NULL;
}

/* The input's name as render's messages give it. */
static const char *file_name(const struct joblist *l, unsigned file)
{
    if (file >= l->n_paths)
        return "?";
    return strcmp(l->paths[file], "-") ? l->paths[file] : "<stdin>";
}

static int make_rec(struct joblist *l, const struct dialect_job *j, struct rec *r)
{
    const struct dialect_diff *dd = l->dialect->diff;
    const struct ynode *row = ynode_is_map(j->row) ? j->row : NULL;
    bool ok = true;

    memset(r, 0, sizeof(*r));
    r->id = strndup(j->id ? j->id : "", j->id ? j->id_len : 0);
    r->name = text_of(title_of(dd, j->node), &ok);
    r->runs_on = text_of(first_of(j->node, dd->machine), &ok);
    r->file = strdup(file_name(l, j->pos.file));
    r->part = j->part;
    r->parts = j->parts;
    r->line = j->pos.line;
    r->parallel = j->parallel;
    if (row && ynode_len(row) &&
        (!(r->names = calloc(ynode_len(row), sizeof(*r->names))) ||
         !(r->values = calloc(ynode_len(row), sizeof(*r->values)))))
        ok = false;
    else if (row)
        r->n_values = ynode_len(row);
    for (size_t k = 0; ok && k < r->n_values; k++) {
        r->names[k] = text_of(ynode_key(row, k), &ok);
        r->values[k] = text_of(ynode_value(row, k), &ok);
        ok = ok && r->names[k] && r->values[k];
    }
    return ok && r->id && r->file ? 0 : -1;
}

/* ---- the sink ---- */

/* The fan-out read so far is complete: its jobs, each told their count, to the spool
 * (a Buildkite matrix job knows only its own index: the last one's is the count). */
static int end_fan(struct joblist *l)
{
    unsigned parts = 1;

    for (size_t i = 0; i < l->n_fan; i++)
        parts = l->fan[i].parts > parts ? l->fan[i].parts : parts;
    for (size_t i = 0; i < l->n_fan; i++) {
        l->fan[i].parts = parts;
        put_rec(l->spool, &l->fan[i]);
        rec_clear(&l->fan[i]);
    }
    l->n_fan = 0;
    return ferror(l->spool) ? fail(l) : 0;
}

/* Whether the job is the next of the fan-out read so far: the same identity, made the
 * same way (parallel jobs, or matrix configurations), at a later place in it. */
static bool continues(const struct joblist *l, const struct dialect_job *j)
{
    const struct rec *last = l->n_fan ? &l->fan[l->n_fan - 1] : NULL;
    size_t len = j->id ? j->id_len : 0;

    return last && j->part > last->part && j->parallel == last->parallel &&
           (j->row != NULL) == (last->n_values > 0) && strlen(last->id) == len &&
           !memcmp(last->id, j->id, len);
}

static int on_job(void *user, const struct dialect_job *j)
{
    struct joblist *l = user;

    if (!continues(l, j) && end_fan(l) != 0)
        return -1;
    if (l->n_fan == l->cap_fan) {
        size_t cap = l->cap_fan ? l->cap_fan * 2 : 16;
        struct rec *grown = realloc(l->fan, cap * sizeof(*grown));

        if (!grown)
            return fail(l);
        l->fan = grown;
        l->cap_fan = cap;
    }
    if (make_rec(l, j, &l->fan[l->n_fan++]) != 0)
        return fail(l);
    return 0;
}

static void on_begin(void *user, const struct dialect *dialect)
{
    ((struct joblist *)user)->dialect = dialect;
}

static int on_item(void *user, const struct stream_item *item)
{
    struct joblist *l = user;

    if (item->kind != STREAM_STEP)
        return 0;
    return l->dialect->each_job(ynode_doc_root(item->doc), on_job, l) < 0 ? fail(l) : 0;
}

/* Back to the group's start: what was kept of it was not the rendering. */
static void on_reset(void *user)
{
    struct joblist *l = user;

    for (size_t i = 0; i < l->n_fan; i++)
        rec_clear(&l->fan[i]);
    l->n_fan = 0;
    if (fflush(l->spool) != 0 || ftruncate(fileno(l->spool), l->kept) != 0 ||
        fseek(l->spool, l->kept, SEEK_SET) != 0)
        fail(l);
}

struct joblist *joblist_create(struct diag *d)
{
    struct joblist *l = calloc(1, sizeof(*l));

    if (l && !(l->spool = tmpfile())) {
        free(l);
        l = NULL;
    }
    if (!l)
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_IO,
                    "cannot list the jobs (out of memory or temporary space)");
    else
        l->diag = d;
    return l;
}

int joblist_render(struct joblist *l, const char *const *paths, size_t n, const struct render_opts *opts,
                   struct diag *d)
{
    struct render_sink sink = {on_begin, on_item, on_reset, l, NULL};
    struct render_opts o = *opts;
    int rc;

    l->diag = d;
    if (fflush(l->spool) != 0 || (l->kept = ftell(l->spool)) < 0) {
        fail(l);
        return DIAG_INPUT;
    }
    l->paths = paths;
    l->n_paths = n;
    o.sink = &sink;
    rc = render_run(paths, n, &o, d);
    if (rc == 0 && end_fan(l) != 0)
        rc = DIAG_INPUT;
    if (rc != 0)
        on_reset(l);
    return l->failed ? DIAG_INPUT : rc;
}

void joblist_destroy(struct joblist *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n_fan; i++)
        rec_clear(&l->fan[i]);
    free(l->fan);
    for (size_t i = 0; i < l->cap_tally; i++)
        free(l->tally[i].runs_on);
    free(l->tally);
    fclose(l->spool);
    free(l);
}

/* ---- the totals ---- */

static int count(struct joblist *l, const char *runs_on)
{
    size_t i;

    l->total++;
    if (!runs_on) {
        l->no_runner++;
        return 0;
    }
    if (2 * (l->n_tally + 1) > l->cap_tally) {
        size_t cap = l->cap_tally ? l->cap_tally * 2 : 64;
        struct tally *t = calloc(cap, sizeof(*t));

        if (!t)
            return -1;
        for (size_t k = 0; k < l->cap_tally; k++) {
            if (!l->tally[k].runs_on)
                continue;
            for (i = strhash_fnv1a(l->tally[k].runs_on, strlen(l->tally[k].runs_on)) & (cap - 1); t[i].runs_on;
                 i = (i + 1) & (cap - 1))
                ;
            t[i] = l->tally[k];
        }
        free(l->tally);
        l->tally = t;
        l->cap_tally = cap;
    }
    for (i = strhash_fnv1a(runs_on, strlen(runs_on)) & (l->cap_tally - 1);
         l->tally[i].runs_on && strcmp(l->tally[i].runs_on, runs_on) != 0; i = (i + 1) & (l->cap_tally - 1))
        ;
    if (!l->tally[i].runs_on && !(l->tally[i].runs_on = strdup(runs_on)))
        return -1;
    l->n_tally += l->tally[i].jobs++ == 0;
    return 0;
}

static int by_runner(const void *a, const void *b)
{
    const struct tally *x = a, *y = b;

    if (!x->runs_on || !y->runs_on)
        return !x->runs_on - !y->runs_on;
    return strcmp(x->runs_on, y->runs_on);
}

/* ---- the output ---- */

/* A cell of a line, built in place. */
struct cell {
    char buf[1024];
    size_t len;
};

static void cell_printf(struct cell *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cell_printf(struct cell *c, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (c->len >= sizeof(c->buf) - 1)
        return;
    va_start(ap, fmt);
    n = vsnprintf(c->buf + c->len, sizeof(c->buf) - c->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        c->len = c->len + (size_t)n < sizeof(c->buf) ? c->len + (size_t)n : sizeof(c->buf) - 1;
}

/* Characters on screen (UTF-8 sequences counted once). */
static size_t width(const char *s)
{
    size_t w = 0;

    for (; *s; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

/* A string in a line of text: controls (a tab, a line break) as spaces, so that each job
 * is one line and its columns stay apart; in a table cell `|` escaped too. */
static void put_plain(FILE *out, const char *s, bool table)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (table && c == '|')
            fputs("\\|", out);
        else
            fputc(c < 0x20 || c == 0x7f ? ' ' : c, out);
    }
}

enum { C_ID, C_NAME, C_RUNS_ON, C_FANOUT, C_AT, N_COLUMNS };

/* The most a column is padded to: a longer cell (a name that is an expression) moves
 * the rest of its own line, not every line's. */
#define COLUMN_MAX 40

static bool fanned(const struct rec *r)
{
    return r->parts > 1 || r->n_values || r->parallel;
}

/* The text and markdown columns of a job. */
static void cells(const struct rec *r, bool quoted, struct cell *c)
{
    for (int k = 0; k < N_COLUMNS; k++)
        c[k].len = 0, c[k].buf[0] = '\0';
    cell_printf(&c[C_ID], "%s", r->id);
    if (fanned(r))
        cell_printf(&c[C_ID], "#%u", r->part + 1);
    if (r->name)
        cell_printf(&c[C_NAME], quoted ? "\"%s\"" : "%s", r->name);
    else
        cell_printf(&c[C_NAME], "-");
    cell_printf(&c[C_RUNS_ON], "%s", r->runs_on ? r->runs_on : "-");
    if (!fanned(r))
        cell_printf(&c[C_FANOUT], "-");
    else
        cell_printf(&c[C_FANOUT], "%s %u/%u", r->parallel ? "shard" : r->n_values ? "matrix" : "part", r->part + 1,
                    r->parts);
    for (size_t k = 0; k < r->n_values; k++)
        cell_printf(&c[C_FANOUT], " %s=%s", r->names[k], r->values[k]);
    cell_printf(&c[C_AT], "%s:%u", r->file, r->line);
}

static void write_text(FILE *out, const struct rec *r, const size_t *widths)
{
    struct cell c[N_COLUMNS];

    cells(r, true, c);
    for (int k = 0; k < N_COLUMNS; k++) {
        put_plain(out, c[k].buf, false);
        /* two spaces after the longest cell (up to COLUMN_MAX), or after this one */
        for (size_t w = width(c[k].buf), end = (w > widths[k] ? w : widths[k]) + 2; k + 1 < N_COLUMNS && w < end;
             w++)
            fputc(' ', out);
    }
    fputc('\n', out);
}

static void write_markdown(FILE *out, const struct rec *r)
{
    struct cell c[N_COLUMNS];

    cells(r, false, c);
    for (int k = 0; k < N_COLUMNS; k++) {
        fputs(k ? " | " : "| ", out);
        put_plain(out, c[k].buf, true);
    }
    fputs(" |\n", out);
}

static void json_or_null(FILE *out, const char *s)
{
    if (s)
        diag_write_json_string(out, s);
    else
        fputs("null", out);
}

static void write_json(FILE *out, const struct rec *r, bool first)
{
    fputs(first ? "\n    {\"id\": " : ",\n    {\"id\": ", out);
    diag_write_json_string(out, r->id);
    fputs(", \"name\": ", out);
    json_or_null(out, r->name);
    fputs(", \"runs_on\": ", out);
    json_or_null(out, r->runs_on);
    fprintf(out, ", \"fanout\": {\"part\": %u, \"parts\": %u, \"values\": ", r->part + 1, r->parts);
    for (size_t k = 0; k < r->n_values; k++) {
        fputs(k ? ", " : "{", out);
        diag_write_json_string(out, r->names[k]);
        fputs(": ", out);
        diag_write_json_string(out, r->values[k]);
    }
    fputs(r->n_values ? "}}" : "null}", out);
    fputs(", \"file\": ", out);
    diag_write_json_string(out, r->file);
    fprintf(out, ", \"line\": %u}", r->line);
}

static void write_tsv(FILE *out, const struct rec *r)
{
    put_plain(out, r->id, false);
    fputc('\t', out);
    put_plain(out, r->name ? r->name : "", false);
    fputc('\t', out);
    put_plain(out, r->runs_on ? r->runs_on : "", false);
    fprintf(out, "\t%u\t%u\t", r->part + 1, r->parts);
    for (size_t k = 0; k < r->n_values; k++) {
        if (k)
            fputc(' ', out);
        put_plain(out, r->names[k], false);
        fputc('=', out);
        put_plain(out, r->values[k], false);
    }
    fputc('\t', out);
    put_plain(out, r->file, false);
    fprintf(out, "\t%u\n", r->line);
}

/* The jobs per runner, by runner name, jobs on none last. 0, or -1 when out of memory. */
static int write_totals(struct joblist *l, enum joblist_format format, FILE *out)
{
    struct tally *t = malloc((l->n_tally + 1) * sizeof(*t));
    size_t n = 0, w = strlen("runs on"), digits;
    char total[32];

    if (!t)
        return fail(l);
    for (size_t i = 0; i < l->cap_tally; i++)
        if (l->tally[i].runs_on)
            t[n++] = l->tally[i];
    if (l->no_runner)
        t[n++] = (struct tally){NULL, l->no_runner};
    qsort(t, n, sizeof(*t), by_runner);
    for (size_t i = 0; i < n; i++)
        if (t[i].runs_on && width(t[i].runs_on) > w)
            w = width(t[i].runs_on) < COLUMN_MAX ? width(t[i].runs_on) : COLUMN_MAX;
    digits = (size_t)snprintf(total, sizeof(total), "%zu", l->total);
    digits = digits > strlen("jobs") ? digits : strlen("jobs");
    if (format == JOBLIST_JSON)
        fputs("\n  ],\n  \"totals\": {\"runs_on\": {", out);
    else if (format == JOBLIST_MARKDOWN)
        fputs("\n| runs on | jobs |\n| --- | ---: |\n", out);
    else
        fprintf(out, "\n%-*s  %*s\n", (int)w, "runs on", (int)digits, "jobs");
    for (size_t i = 0; i < n; i++) {
        const char *name = t[i].runs_on ? t[i].runs_on : "(none)";

        if (format == JOBLIST_JSON) {
            fputs(i ? ", " : "", out);
            diag_write_json_string(out, name);
            fprintf(out, ": %zu", t[i].jobs);
            continue;
        }
        fputs(format == JOBLIST_MARKDOWN ? "| " : "", out);
        put_plain(out, name, format == JOBLIST_MARKDOWN);
        if (format == JOBLIST_MARKDOWN)
            fprintf(out, " | %zu |\n", t[i].jobs);
        else
            fprintf(out, "%*s  %*zu\n", (int)(w > width(name) ? w - width(name) : 0), "", (int)digits, t[i].jobs);
    }
    if (format == JOBLIST_JSON)
        fprintf(out, "}, \"jobs\": %s}\n}\n", total);
    else if (format == JOBLIST_MARKDOWN)
        fprintf(out, "| **total** | **%s** |\n", total);
    else
        fprintf(out, "%-*s  %*s\n", (int)w, "total", (int)digits, total);
    free(t);
    return 0;
}

/* Reads the spool from its start: the columns' widths and the totals (`out` NULL), or
 * the lines. 0, or -1 after reporting. */
static int read_spool(struct joblist *l, enum joblist_format format, size_t *widths, FILE *out)
{
    struct rec r;
    struct cell c[N_COLUMNS];
    int more;
    bool first = true;

    if (fflush(l->spool) != 0 || fseek(l->spool, 0, SEEK_SET) != 0)
        return fail(l);
    while ((more = get_rec(l->spool, &r)) > 0) {
        if (!out && count(l, r.runs_on) != 0)
            more = -1;
        else if (!out && format == JOBLIST_TEXT) {
            cells(&r, true, c);
            for (int k = 0; k < N_COLUMNS; k++)
                if (width(c[k].buf) > widths[k])
                    widths[k] = width(c[k].buf) < COLUMN_MAX ? width(c[k].buf) : COLUMN_MAX;
        } else if (out && format == JOBLIST_TEXT)
            write_text(out, &r, widths);
        else if (out && format == JOBLIST_MARKDOWN)
            write_markdown(out, &r);
        else if (out && format == JOBLIST_JSON)
            write_json(out, &r, first);
        else if (out)
            write_tsv(out, &r);
        first = false;
        rec_clear(&r);
        if (more < 0)
            break;
    }
    rec_clear(&r);
    return more < 0 ? fail(l) : 0;
}

int joblist_write(struct joblist *l, enum joblist_format format, FILE *out)
{
    size_t widths[N_COLUMNS] = {0};

    if (read_spool(l, format, widths, NULL) != 0)
        return -1;
    if (format == JOBLIST_JSON)
        fputs("{\n  \"jobs\": [", out);
    else if (format == JOBLIST_MARKDOWN)
        fputs("| id | name | runs on | fan-out | file:line |\n| --- | --- | --- | --- | --- |\n", out);
    else if (format == JOBLIST_TSV)
        fputs("id\tname\truns_on\tpart\tparts\tvalues\tfile\tline\n", out);
    if (read_spool(l, format, widths, out) != 0)
        return -1;
    return format == JOBLIST_TSV ? 0 : write_totals(l, format, out);
}
