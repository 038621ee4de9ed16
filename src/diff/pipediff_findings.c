#define _GNU_SOURCE /* asprintf, open_memstream */
/* pipediff_findings: the rule findings a diff reports, those the change introduces. Each
 * side renders into a capturing diag (diag_create_capture) whose findings are spooled
 * here instead of printed. Once the side is recorded, each finding is given the job it
 * is about (the job written last before it in its file; none: the file itself) and a
 * key: its rule, that job's identity as diff matches jobs, and its message with the
 * places in it left out (lines move when anything above them changes). HEAD's findings
 * of a key beyond as many as BASE has are new; they are reported into the run's diag in
 * the order render gave them, so they are printed, counted and leveled as render's own,
 * and added to the report (every format shows them after the changes, SARIF as results
 * of their rules).
 * Memory: the sorts' budgets (a side may have a finding a job). */
#include "pipediff_internal.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/scratch.h"
#include "fanout/strhash.h"

#define NO_FILE UINT32_MAX

/* A finding as render reported it. */
struct found_rec {
    struct hkey key;   /* rule, job, message (set once the side is recorded) */
    uint32_t file;     /* the side's file number, NO_FILE when it names none */
    uint32_t line, col, seq;
    uint32_t sev, rule, len;
    uint64_t off;      /* its file's name ("" for none) and its message, NUL-terminated */
};

/* Where a job is written, and its identity. */
struct start_rec {
    uint32_t file, line;
    struct hkey id;
};

static int by_place(const void *pa, const void *pb)
{
    const struct found_rec *a = pa, *b = pb;

    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int by_key(const void *pa, const void *pb)
{
    const struct found_rec *a = pa, *b = pb;
    int c = pd_hkey_cmp(&a->key, &b->key);

    return c ? c : a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int by_seq(const void *pa, const void *pb)
{
    const struct found_rec *a = pa, *b = pb;

    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int start_cmp(const void *pa, const void *pb)
{
    const struct start_rec *a = pa, *b = pb;

    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return pd_hkey_cmp(&a->id, &b->id);
}

/* The side's file named `name` as render names it, or NO_FILE. */
static uint32_t file_number(struct pd_found *f, const char *name)
{
    const char *known;

    if (!name)
        return NO_FILE;
    /* a side's findings come a file at a time */
    if (f->last_file < f->side->n_paths && (known = pd_side_file(f->side, f->last_file)) && !strcmp(known, name))
        return f->last_file;
    for (uint32_t i = 0; i < f->side->n_paths; i++) {
        if ((known = pd_side_file(f->side, i)) && !strcmp(known, name))
            return f->last_file = i;
    }
    return NO_FILE;
}

static void on_finding(void *user, enum diag_severity sev, const char *file, unsigned line, unsigned col,
                       enum rule_id rule, const char *msg)
{
    struct pd_found *f = user;
    const char *name = file ? file : "";
    struct found_rec rec = {{0, 0}, file_number(f, file), line, col, f->seq++, sev, rule, 0, f->spool_len};
    size_t nl = strlen(name) + 1, ml = strlen(msg) + 1;

    rec.len = (uint32_t)(nl + ml);
    if (fwrite(name, 1, nl, f->spool) != nl || fwrite(msg, 1, ml, f->spool) != ml ||
        xsort_add(f->places, &rec) != 0)
        f->failed = true;
    f->spool_len += rec.len;
}

struct diag *pd_found_begin(struct pd_found *f, struct side *s, struct diag *d)
{
    memset(f, 0, sizeof(*f));
    f->side = s;
    f->sink = (struct diag_sink){on_finding, f};
    f->spool = scratch_file();
    f->places = xsort_create(sizeof(struct found_rec), by_place, SORT_BUDGET);
    f->keys = xsort_create(sizeof(struct found_rec), by_key, SORT_BUDGET);
    f->starts = xsort_create(sizeof(struct start_rec), start_cmp, SORT_BUDGET);
    f->capture = f->spool && f->places && f->keys && f->starts ? diag_create_capture(d, &f->sink) : NULL;
    return f->capture;
}

void pd_found_job(struct pd_found *f, uint32_t file, uint32_t line, struct hkey id)
{
    struct start_rec rec = {file, line, id};

    /* the jobs of a fan-out follow one another from one place with one identity: a
     * second record like the first finds the same job */
    if (f->started && f->start_file == file && f->start_line == line && !pd_hkey_cmp(&f->start_id, &id))
        return;
    f->started = true;
    f->start_file = file;
    f->start_line = line;
    f->start_id = id;
    if (f->starts && xsort_add(f->starts, &rec) != 0)
        f->failed = true;
}

void pd_found_forget_jobs(struct pd_found *f)
{
    f->started = false;
    if (!f->starts)
        return;
    xsort_destroy(f->starts);
    if (!(f->starts = xsort_create(sizeof(struct start_rec), start_cmp, SORT_BUDGET)))
        f->failed = true;
}

/* The text of finding `rec` (its file's name, NUL, its message) into b; NULL when it
 * cannot be read back. */
static const char *found_text(struct pd_found *f, const struct found_rec *rec, struct blob *b)
{
    if (rec->len > b->cap) {
        char *grown = realloc(b->buf, rec->len);

        if (!grown)
            return NULL;
        b->buf = grown;
        b->cap = rec->len;
    }
    if (fseeko(f->spool, (off_t)rec->off, SEEK_SET) != 0 || fread(b->buf, 1, rec->len, f->spool) != rec->len)
        return NULL;
    return b->buf;
}

/* Whether `p` is a message's closing count of other places ("; 235 more references"):
 * a finding that names its other places by their count is the same finding when the
 * count changes (a shard fewer depends on a dangling key: not a new warning). */
static bool is_more_count(const char *p)
{
    if (p[0] != ';' || p[1] != ' ' || p[2] < '0' || p[2] > '9')
        return false;
    for (p += 2; *p >= '0' && *p <= '9';)
        p++;
    return !strncmp(p, " more ", 6) && !strchr(p + 6, ';');
}

/* The key of a finding about job `id` of file `path` (its path within the operand, which
 * both sides share): the rule, the job, and the message with its own file's name read as
 * that path, the numbers after a colon (FILE:LINE:COL) and a closing count of more
 * places left out. */
static int key_of(struct found_rec *rec, const char *name, const char *msg, struct hkey id, struct blob *norm)
{
    const char *rule = rule_name((enum rule_id)rec->rule);
    size_t nl = strlen(name);
    int rc = pd_blob_str(norm, rule, strlen(rule));

    for (const char *p = msg; *p && rc == 0;) {
        if (nl && !strncmp(p, name, nl)) {
            rc = pd_blob_add(norm, "\x1f", 1);
            p += nl;
        } else if (is_more_count(p)) {
            break;
        } else if (*p == ':' && p[1] >= '0' && p[1] <= '9') {
            rc = pd_blob_add(norm, ":#", 2);
            for (p++; *p >= '0' && *p <= '9';)
                p++;
        } else {
            rc = pd_blob_add(norm, p++, 1);
        }
    }
    strhash_pair(norm->buf, norm->len, &rec->key.h1, &rec->key.h2);
    rec->key = pd_hkey_mix(rec->key, id.h1, id.h2);
    norm->len = 0;
    return rc;
}

int pd_found_end(struct pd_found *f)
{
    const struct found_rec *next;
    const struct start_rec *start;
    struct start_rec last = {NO_FILE, 0, {0, 0}};
    struct blob text = {NULL, 0, 0}, norm = {NULL, 0, 0};
    int rc = -1;

    if (f->failed || !f->capture || fflush(f->spool) != 0 || xsort_finish(f->places) != 0 ||
        xsort_finish(f->starts) != 0)
        return -1;
    start = xsort_next(f->starts);
    while ((next = xsort_next(f->places)) != NULL) {
        struct found_rec rec = *next;
        const char *name = found_text(f, &rec, &text), *path;
        struct hkey id;

        if (!name)
            goto done;
        /* the job written last at or before the finding's line in its file */
        for (; start && (start->file < rec.file || (start->file == rec.file && start->line <= rec.line));
             start = xsort_next(f->starts))
            last = *start;
        if (rec.file != NO_FILE && last.file == rec.file) {
            id = last.id;
        } else {
            path = rec.file != NO_FILE ? pd_path_in_operand(f->side, rec.file) : name;
            strhash_pair(path, strlen(path), &id.h1, &id.h2);
        }
        if (key_of(&rec, name, name + strlen(name) + 1, id, &norm) != 0 || xsort_add(f->keys, &rec) != 0)
            goto done;
    }
    rc = xsort_failed(f->places) || xsort_failed(f->starts) || xsort_finish(f->keys) != 0 ? -1 : 0;
done:
    free(text.buf);
    free(norm.buf);
    return rc;
}

/* HEAD's findings to report (`mode`): those of a key beyond as many as BASE has, or all
 * of them, in `out` by their order. */
static int pick(enum pd_findings mode, struct pd_found *base, struct pd_found *head, struct xsort *out)
{
    const struct found_rec *b = mode == PD_FINDINGS_ALL ? NULL : xsort_next(base->keys), *h = xsort_next(head->keys);

    while (h) {
        struct hkey key = h->key;
        unsigned known = 0;

        while (b && pd_hkey_cmp(&b->key, &key) < 0)
            b = xsort_next(base->keys);
        while (b && !pd_hkey_cmp(&b->key, &key)) {
            known++;
            b = xsort_next(base->keys);
        }
        for (; h && !pd_hkey_cmp(&h->key, &key); h = xsort_next(head->keys)) {
            if (known)
                known--;
            else if (xsort_add(out, h) != 0)
                return -1;
        }
    }
    return xsort_failed(base->keys) || xsort_failed(head->keys) || xsort_finish(out) != 0 ? -1 : 0;
}

/* Adds finding `rec` (its file's name `name`, "" for none, and message `msg`) to report
 * r, in render's order. */
static void add_to_report(struct report *r, const struct found_rec *rec, const char *name, const char *msg)
{
    static const char *const severities[] = {"error", "warning", "note"}; /* enum diag_severity's */
    const char *sev = severities[rec->sev < 3 ? rec->sev : 2];
    char *detail = NULL, *extra = NULL;
    size_t len;
    FILE *m;
    struct finding f;

    if (asprintf(&detail, "%s: %s", sev, msg) < 0) {
        r->failed = true;
        return;
    }
    if (!(m = open_memstream(&extra, &len))) {
        free(detail);
        r->failed = true;
        return;
    }
    fprintf(m, "\"severity\": \"%s\", \"message\": ", sev);
    diag_write_json_string(m, msg);
    if (*name && rec->col)
        fprintf(m, ", \"column\": %u", rec->col);
    if (fclose(m) != 0) {
        free(detail);
        free(extra);
        r->failed = true;
        return;
    }
    pd_finding_init(&f, "finding", rule_name((enum rule_id)rec->rule), NULL, detail);
    if (*name) {
        f.part[P_FILE] = name;
        f.line = rec->line ? rec->line : 1;
        f.col = rec->col;
    }
    f.part[P_EXTRA_JSON] = extra;
    f.part[P_SEVERITY] = sev;
    pd_add_finding(r, PH_FOUND, rec->seq, 0, G_FOUND, &f);
    free(detail);
    free(extra);
}

int pd_report_findings(enum pd_findings mode, struct pd_found *base, struct pd_found *head, struct diag *d,
                       struct report *r)
{
    struct xsort *out;
    const struct found_rec *rec;
    struct blob text = {NULL, 0, 0};
    int rc = -1;

    if (mode == PD_FINDINGS_NONE)
        return 0;
    if (!(out = xsort_create(sizeof(struct found_rec), by_seq, SORT_BUDGET)) || pick(mode, base, head, out) != 0)
        goto done;
    while ((rec = xsort_next(out)) != NULL) {
        const char *name = found_text(head, rec, &text);

        if (!name)
            goto done;
        diag_report(d, (enum diag_severity)rec->sev, DIAG_FINDING, *name ? name : NULL, rec->line, rec->col,
                    (enum rule_id)rec->rule, "%s", name + strlen(name) + 1);
        add_to_report(r, rec, name, name + strlen(name) + 1);
    }
    rc = xsort_failed(out) || r->failed ? -1 : 0;
done:
    xsort_destroy(out);
    free(text.buf);
    return rc;
}

void pd_found_free(struct pd_found *f)
{
    diag_destroy(f->capture);
    xsort_destroy(f->places);
    xsort_destroy(f->keys);
    xsort_destroy(f->starts);
    if (f->spool)
        fclose(f->spool);
    memset(f, 0, sizeof(*f));
}
