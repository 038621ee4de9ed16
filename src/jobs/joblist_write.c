/* joblist_write: the jobs kept, listed as text, JSON, Markdown or TSV, and the jobs per
 * runner (joblist.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/diag.h"
#include "fanout/strhash.h"

#include "joblist_internal.h"

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
        return joblist_fail(l);
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
        return joblist_fail(l);
    while ((more = joblist_get_rec(l->spool, &r)) > 0) {
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
        joblist_rec_clear(&r);
        if (more < 0)
            break;
    }
    joblist_rec_clear(&r);
    return more < 0 ? joblist_fail(l) : 0;
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
