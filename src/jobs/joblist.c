/* joblist: the jobs of renderings, kept as records in a spool as render makes them
 * (include/fanout/joblist.h; joblist_write.c lists them). */
#include "fanout/joblist.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/arrays.h"
#include "fanout/dialect.h"
#include "fanout/scratch.h"
#include "fanout/ynode.h"

#include "joblist_internal.h"

void joblist_rec_clear(struct rec *r)
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

int joblist_fail(struct joblist *l)
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
int joblist_get_rec(FILE *f, struct rec *r)
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

/* A label as a reader sees it (the dialect's label_value), malloc'd. */
static char *label_text(const struct dialect_diff *dd, const struct ynode *n, bool *ok)
{
    size_t len;
    const char *t = ynode_scalar(n, &len);
    char *v = t && dd->label_value ? dd->label_value(NULL, t, len) : NULL;

    return v ? v : text_of(n, ok);
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
    r->name = label_text(dd, title_of(dd, j->node), &ok);
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
        joblist_rec_clear(&l->fan[i]);
    }
    l->n_fan = 0;
    return ferror(l->spool) ? joblist_fail(l) : 0;
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
        struct rec *grown = array_grow(l->fan, &l->cap_fan, l->n_fan + 1, 16, sizeof(*grown));

        if (!grown)
            return joblist_fail(l);
        l->fan = grown;
    }
    if (make_rec(l, j, &l->fan[l->n_fan++]) != 0)
        return joblist_fail(l);
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
    return l->dialect->each_job(ynode_doc_root(item->doc), on_job, l) < 0 ? joblist_fail(l) : 0;
}

/* Back to the group's start: what was kept of it was not the rendering. */
static void on_reset(void *user)
{
    struct joblist *l = user;

    for (size_t i = 0; i < l->n_fan; i++)
        joblist_rec_clear(&l->fan[i]);
    l->n_fan = 0;
    if (fflush(l->spool) != 0 || ftruncate(fileno(l->spool), l->kept) != 0 ||
        fseek(l->spool, l->kept, SEEK_SET) != 0)
        joblist_fail(l);
}

struct joblist *joblist_create(struct diag *d)
{
    struct joblist *l = calloc(1, sizeof(*l));

    if (l && !(l->spool = scratch_file())) {
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
    struct render_sink sink = {on_begin, on_item, on_reset, l, NULL, NULL};
    struct render_opts o = *opts;
    int rc;

    l->diag = d;
    if (fflush(l->spool) != 0 || (l->kept = ftell(l->spool)) < 0) {
        joblist_fail(l);
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
        joblist_rec_clear(&l->fan[i]);
    free(l->fan);
    for (size_t i = 0; i < l->cap_tally; i++)
        free(l->tally[i].runs_on);
    free(l->tally);
    fclose(l->spool);
    free(l);
}
