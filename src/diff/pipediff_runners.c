#define _GNU_SOURCE /* open_memstream */
/* pipediff_runners: what a change costs in machines, the figures reviewers quote by hand
 * ("4 shards, slowest 19.5 min vs 72"): each side's jobs counted per runner (where a job
 * runs: its dialect's `machine` fields, as rendered, so a matrix's `runs-on: ${{
 * matrix.os }}` counts per configuration), and with --durations their minutes and each
 * side's longest job; the runners whose figures changed, in every format. Memory: a
 * slot per distinct runner and side, and the durations file's table. docs/diff.md. */
#include "pipediff_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/inputs.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/strhash.h"

/* ---------- the durations file ---------- */

#define DURATIONS_MAX 1000000u /* ids held, at most */
/* Runners told apart on a side, at most (each insertion moves the slots after it); the
 * others are counted together under RUNNERS_MORE. */
#define RUNNERS_MAX 4096u
#define RUNNERS_MORE "(more runners)"
#define LINE_MAX_BYTES 65536u

struct dur_slot {
    uint64_t h1, h2;
    double minutes;
    bool used;
};

struct pd_durations {
    struct dur_slot *slots;
    size_t cap, n;
    const char *name; /* for messages */
    struct diag *diag;
};

static struct dur_slot *dur_slot(const struct pd_durations *m, uint64_t h1, uint64_t h2)
{
    for (size_t i = h1 & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->slots[i].used || (m->slots[i].h1 == h1 && m->slots[i].h2 == h2))
            return &m->slots[i];
    }
}

bool pd_durations_get(const struct pd_durations *m, const char *id, size_t len, double *minutes)
{
    uint64_t h1, h2;
    const struct dur_slot *s;

    if (!m || !m->n)
        return false;
    strhash_pair(id, len, &h1, &h2);
    s = dur_slot(m, h1, h2);
    if (s->used)
        *minutes = s->minutes;
    return s->used;
}

static int dur_error(struct pd_durations *m, unsigned line, unsigned col, const char *msg)
{
    diag_report(m->diag, DIAG_ERROR, DIAG_INPUT, m->name, line, col, RULE_DURATIONS, "%s", msg);
    return -1;
}

double pd_minutes_of(const char *t, size_t len)
{
    char buf[64], *end;
    double v;

    if (!len || len >= sizeof(buf))
        return -1;
    memcpy(buf, t, len);
    buf[len] = '\0';
    errno = 0;
    v = strtod(buf, &end);
    return *end || errno || !isfinite(v) || v < 0 ? -1 : v;
}

int pd_durations_error(struct pd_durations *m, unsigned line, unsigned col, const char *msg)
{
    return dur_error(m, line, col, msg);
}

/* Job `id` takes `text` minutes (at line:col, the number's). 0, or -1 after the message. */
static int dur_add(struct pd_durations *m, const char *id, size_t len, const char *text, size_t tlen,
                   unsigned line, unsigned col)
{
    return pd_durations_add(m, id, len, text ? pd_minutes_of(text, tlen) : -1, line, col);
}

int pd_durations_add(struct pd_durations *m, const char *id, size_t len, double minutes, unsigned line, unsigned col)
{
    uint64_t h1, h2;
    struct dur_slot *s;

    if (!len)
        return dur_error(m, line, 1, "a job id is not empty");
    if (minutes < 0)
        return dur_error(m, line, col, "a duration is a number of minutes (0 or more)");
    if (m->n == DURATIONS_MAX)
        return dur_error(m, line, 1, "more than 1000000 job ids");
    if ((m->n + 1) * 4 > m->cap * 3) {
        struct pd_durations bigger = {calloc(m->cap ? m->cap * 2 : 256, sizeof(struct dur_slot)),
                                      m->cap ? m->cap * 2 : 256, 0, NULL, NULL};

        if (!bigger.slots) {
            diag_report(m->diag, DIAG_ERROR, DIAG_INPUT, m->name, 0, 0, RULE_INTERNAL, "out of memory");
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i].used)
                *dur_slot(&bigger, m->slots[i].h1, m->slots[i].h2) = m->slots[i];
        free(m->slots);
        m->slots = bigger.slots;
        m->cap = bigger.cap;
    }
    strhash_pair(id, len, &h1, &h2);
    s = dur_slot(m, h1, h2);
    if (s->used)
        return dur_error(m, line, 1, "a job id given twice");
    *s = (struct dur_slot){h1, h2, minutes, true};
    m->n++;
    return 0;
}

/* {"id": minutes, ...}: a top-level pair at a time. */
static int read_json(struct pd_durations *m)
{
    static const struct stream_shape none[] = {{NULL, false, false, false, false, NULL}};
    struct source *src = source_open(m->name, m->diag);
    struct stream *s = src ? stream_open_shaped(src, 0, none, m->diag) : NULL;
    struct stream_item item;
    int more, rc = s ? 0 : -1;

    while (rc == 0 && (more = stream_next(s, &item)) != 0) {
        const struct ynode *root = item.doc ? ynode_doc_root(item.doc) : NULL;

        if (more < 0) {
            rc = -1;
            break;
        }
        if (item.kind == STREAM_PAIR) {
            const struct ynode *k = ynode_key(root, 0), *v = ynode_value(root, 0);
            size_t len, vlen = 0;
            const char *id = ynode_scalar(k, &len), *text = ynode_is_string(v) ? NULL : ynode_scalar(v, &vlen);

            rc = id ? dur_add(m, id, len, text, vlen, ynode_pos(v).line, ynode_pos(v).col)
                    : dur_error(m, ynode_pos(k).line, ynode_pos(k).col, "a job id is a string");
        } else if (item.kind == STREAM_STEP || (item.kind == STREAM_DOC_START && root && !ynode_is_map(root))) {
            rc = dur_error(m, ynode_pos(root).line, ynode_pos(root).col,
                           "a JSON durations file is an object of job ids and minutes");
        }
        ynode_doc_destroy(item.doc);
    }
    stream_close(s);
    source_close(src);
    return rc;
}

/* `id<TAB>minutes` lines; `#` comments, blank lines and a header `id<TAB>minutes` (the
 * first line of data) skipped. */
static int read_tsv(struct pd_durations *m, FILE *f)
{
    char *line = malloc(LINE_MAX_BYTES + 1);
    size_t len;
    unsigned no = 0;
    int rc = line ? 0 : dur_error(m, 0, 0, "out of memory"), got = 0;
    bool data = false;

    while (rc == 0 && (got = inputs_read_line(f, line, LINE_MAX_BYTES, &len)) > 0) {
        char *tab;

        no++;
        while (len && line[len - 1] == '\r')
            len--;
        line[len] = '\0';
        if (!len || line[0] == '#' || (!data && !strcmp(line, "id\tminutes")))
            continue;
        data = true;
        if (!(tab = memchr(line, '\t', len)) || memchr(tab + 1, '\t', len - (size_t)(tab + 1 - line))) {
            rc = dur_error(m, no, tab ? (unsigned)(tab - line) + 1 : 1,
                           "a line is a job id and its minutes, tab-separated");
            break;
        }
        rc = dur_add(m, line, (size_t)(tab - line), tab + 1, len - (size_t)(tab + 1 - line), no,
                     (unsigned)(tab - line) + 2);
    }
    if (rc == 0 && (got == INPUTS_LINE_LONG || got == INPUTS_LINE_NUL)) {
        rc = dur_error(m, no + 1, 1, got == INPUTS_LINE_NUL ? "a NUL byte: not a TSV" : "a line is longer than 64 KiB");
    } else if (rc == 0 && got < 0) {
        diag_report(m->diag, DIAG_ERROR, DIAG_INPUT, m->name, 0, 0, RULE_IO, "cannot read: %s", strerror(errno));
        rc = -1;
    }
    free(line);
    return rc;
}

void pd_durations_free(struct pd_durations *m)
{
    if (m)
        free(m->slots);
    free(m);
}

struct pd_durations *pd_durations_read(const char *path, struct diag *d)
{
    struct pd_durations *m = calloc(1, sizeof(*m));
    FILE *f = m ? fopen(path, "r") : NULL;
    int c = ' ', rc;

    if (!m) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, RULE_INTERNAL, "out of memory");
        return NULL;
    }
    m->name = path;
    m->diag = d;
    if (!f) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, RULE_IO, "cannot read: %s", strerror(errno));
        pd_durations_free(m);
        return NULL;
    }
    while (c == ' ' || c == '\n' || c == '\t' || c == '\r')
        c = fgetc(f);
    if (c == '{' || c == '[') {
        fclose(f);
        rc = read_json(m);
    } else if (c == '<') {
        fclose(f);
        rc = pd_junit_read(m, path);
    } else {
        rewind(f);
        rc = read_tsv(m, f);
        fclose(f);
    }
    if (rc != 0) {
        pd_durations_free(m);
        return NULL;
    }
    return m;
}

/* ---------- the jobs per runner ---------- */

void pd_tally_clear(struct pd_tally *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->slot[i].name);
    for (size_t i = 0; i < RUNNER_MEMO; i++) {
        free(t->memo[i].key.buf);
        free(t->memo[i].name);
    }
    free(t->slot);
    free(t->longest_id);
    free(t->blob.buf);
    free(t->key.buf);
    memset(t, 0, sizeof(*t));
}

/* The position of runner `name` in t's slots (sorted by name), or where it would go
 * (*found says which). */
static size_t runner_at(const struct pd_tally *t, const char *name, bool *found)
{
    size_t lo = 0, hi = t->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(t->slot[mid].name, name);

        if (!c) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

/* The slot of runner `name`, added in its place when new (few runners, many jobs: the
 * slots stay sorted for the report's merge); past RUNNERS_MAX runners, the others' one
 * slot. NULL when out of memory. */
static struct pd_runner *runner_slot(struct pd_tally *t, const char *name)
{
    bool found;
    size_t i = runner_at(t, name, &found);
    char *copy;

    if (found)
        return &t->slot[i];
    if (t->n >= RUNNERS_MAX && strcmp(name, RUNNERS_MORE) != 0)
        return runner_slot(t, RUNNERS_MORE);
    if (t->n == t->cap) {
        struct pd_runner *grown = array_grow(t->slot, &t->cap, t->n + 1, 16, sizeof(*grown));

        if (!grown)
            return NULL;
        t->slot = grown;
    }
    if (!(copy = strdup(name)))
        return NULL;
    memmove(&t->slot[i + 1], &t->slot[i], (t->n - i) * sizeof(*t->slot));
    t->slot[i] = (struct pd_runner){copy, 0, 0, 0};
    t->n++;
    return &t->slot[i];
}

/* Counts `jobs` jobs on runner `name` (NULL: none named), `timed` of them taking `minutes`
 * together. 0, or -1 when out of memory. */
static int tally_add(struct pd_tally *t, const char *name, uint32_t jobs, uint32_t timed, double minutes)
{
    struct pd_runner *r = name ? runner_slot(t, name) : NULL;

    if (name && !r)
        return -1;
    t->jobs += jobs;
    t->timed += timed;
    t->minutes += minutes;
    if (r) {
        r->jobs += jobs;
        r->timed += timed;
        r->minutes += minutes;
    }
    return 0;
}

/* A longer job than the longest so far: `id` (len bytes, "#N" after it when n) took
 * `minutes`. */
static int tally_longest(struct pd_tally *t, const char *id, size_t len, unsigned n, double minutes)
{
    char *name = malloc(len + 16);

    if (!name)
        return -1;
    memcpy(name, id, len);
    if (n)
        snprintf(name + len, 16, "#%u", n);
    else
        name[len] = '\0';
    free(t->longest_id);
    t->longest_id = name;
    t->longest = minutes;
    t->has_longest = true;
    return 0;
}

/* The minutes `dur` gives job `job`: by its id as `fanout jobs` lists it (`ID#N` for the
 * N-th job of a fan-out), else its identity (each of its jobs takes that long), else the
 * name a run shows it by (its label as diff reads it: a GitHub job's `name`). */
static bool job_minutes(struct pd_tally *t, const struct pd_durations *dur, const struct dialect_diff *dd,
                        const char *note, const struct dialect_job *job, unsigned n, double *minutes)
{
    char *title = NULL;
    const char *shown;
    size_t len;
    bool found;

    if (n) {
        t->blob.len = 0;
        if (pd_blob_add(&t->blob, job->id, job->id_len) == 0 && pd_blob_add(&t->blob, "#", 1) == 0) {
            char num[16];
            int k = snprintf(num, sizeof(num), "%u", n);

            if (pd_blob_add(&t->blob, num, (size_t)k) == 0 &&
                pd_durations_get(dur, t->blob.buf, t->blob.len, minutes))
                return true;
        }
    }
    if (pd_durations_get(dur, job->id, job->id_len, minutes))
        return true;
    if (!(shown = pd_job_title(dd, job->node, &len)))
        return false;
    if (dd->label_value && (title = dd->label_value(note, shown, len)) != NULL) {
        shown = title;
        len = strlen(title);
    }
    found = pd_durations_get(dur, shown, len, minutes);
    free(title);
    return found;
}

/* The value a reader sees for the runner `where`, a scalar with expressions (the
 * dialect's label_value), as the root of a new document; NULL when it is shown as
 * written, or out of memory (*failed). */
static struct ynode_doc *runner_value(const struct dialect_diff *dd, const char *note, const struct ynode *where,
                                      bool *failed)
{
    size_t len;
    const char *text = dd->label_value ? ynode_scalar(where, &len) : NULL;
    char *value = text && memmem(text, len, "${{", 3) ? dd->label_value(note, text, len) : NULL;
    struct ynode_doc *doc = value ? ynode_doc_create() : NULL;
    struct ynode *root = doc ? ynode_new_string(doc, value, strlen(value), ynode_pos(where)) : NULL;

    free(value);
    *failed = value && !root;
    if (!root) {
        ynode_doc_destroy(doc);
        return NULL;
    }
    ynode_doc_set_root(doc, root);
    return doc;
}

/* Appends what decides how `n` shows (pd_show_whole): each node's kind and style, a
 * scalar's text, a collection's size. 0, or -1 when out of memory. */
static int shown_key(struct blob *b, const struct ynode *n)
{
    size_t len = !n ? 0 : ynode_is_scalar(n) ? n->u.scalar.len : ynode_len(n);
    char *at = pd_blob_reserve(b, 1 + sizeof(len) + (n && ynode_is_scalar(n) ? len : 0));

    if (!at)
        return -1;
    at[0] = n ? (char)(n->kind | n->style << 2) : (char)0xff;
    memcpy(at + 1, &len, sizeof(len));
    b->len += 1 + sizeof(len);
    if (n && ynode_is_scalar(n)) {
        memcpy(at + 1 + sizeof(len), n->u.scalar.text, len);
        b->len += len;
        return 0;
    }
    for (size_t i = 0; n && i < len; i++) {
        if ((ynode_is_map(n) && shown_key(b, ynode_key(n, i)) != 0) ||
            shown_key(b, ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i)) != 0)
            return -1;
    }
    return 0;
}

/* Value `where` as pd_show_whole shows it, from t's memo when a value written alike was
 * shown before (the latest first); NULL when out of memory. */
static const char *runner_shown(struct pd_tally *t, const struct ynode *where)
{
    struct pd_runner_memo *m;
    const char *name;

    t->key.len = 0;
    if (shown_key(&t->key, where) != 0)
        return NULL;
    for (unsigned i = 1; i <= RUNNER_MEMO; i++) {
        m = &t->memo[(t->memo_next + RUNNER_MEMO - i) % RUNNER_MEMO];
        if (m->name && m->key.len == t->key.len && !memcmp(m->key.buf, t->key.buf, t->key.len))
            return m->name;
    }
    if (!(name = pd_show_whole(&t->blob, where)))
        return NULL;
    m = &t->memo[t->memo_next];
    free(m->name);
    m->name = NULL;
    m->key.len = 0;
    if (pd_blob_add(&m->key, t->key.buf, t->key.len) != 0 || !(m->name = strdup(name)))
        return NULL;
    t->memo_next = (t->memo_next + 1) % RUNNER_MEMO;
    return name;
}

int pd_tally_job(struct pd_tally *t, const struct pd_durations *dur, const struct dialect_diff *dd,
                 const char *note, const struct dialect_job *job)
{
    struct ynode *where = NULL;
    const char *name = NULL;
    /* its number among the jobs of its fan-out, from 1, as `fanout jobs` lists it */
    unsigned n = job->parts > 1 || job->shards > 1 || job->row ? job->part + 1 : 0;
    double minutes = 0;
    bool timed = dur && job_minutes(t, dur, dd, note, job, n, &minutes);

    if (dd->machine && ynode_is_map(job->node) && ynode_get_any(job->node, dd->machine, &where)) {
        /* the runner as the job's label shows it (a GitHub runs-on is evaluated per job,
         * as its name is: SGLang's format('linux-{0}-2gpu-sglang', inputs.runner_arch ||
         * 'mi325') runs on linux-mi325-2gpu-sglang in a pull request, as its label says) */
        bool failed;
        struct ynode_doc *value = runner_value(dd, note, where, &failed);

        name = failed ? NULL : value ? pd_show_whole(&t->blob, ynode_doc_root(value)) : runner_shown(t, where);
        ynode_doc_destroy(value);
        if (!name)
            return -1;
    }
    if (tally_add(t, name, 1, timed, minutes) != 0)
        return -1;
    return timed && (!t->has_longest || minutes > t->longest) ? tally_longest(t, job->id, job->id_len, n, minutes)
                                                              : 0;
}

int pd_tally_merge(struct pd_tally *into, const struct pd_tally *from)
{
    into->jobs += from->jobs;
    into->timed += from->timed;
    into->minutes += from->minutes;
    for (size_t i = 0; i < from->n; i++) {
        const struct pd_runner *r = &from->slot[i];
        struct pd_runner *mine;

        if (!(mine = runner_slot(into, r->name)))
            return -1;
        mine->jobs += r->jobs;
        mine->timed += r->timed;
        mine->minutes += r->minutes;
    }
    if (from->has_longest && (!into->has_longest || from->longest > into->longest)) {
        char *id = strdup(from->longest_id);

        if (!id)
            return -1;
        free(into->longest_id);
        into->longest_id = id;
        into->longest = from->longest;
        into->has_longest = true;
    }
    return 0;
}

/* ---------- the report ---------- */

int pd_runners_open(struct pd_runners *rs, const struct pd_opts *pd, struct diag *d)
{
    memset(rs, 0, sizeof(*rs));
    for (size_t i = 0; i < pd->n_durations && i < 2; i++) {
        if (!(rs->durations[i] = pd_durations_read(pd->durations[i], d)))
            return -1;
    }
    /* given once: both sides' */
    rs->shared = pd->n_durations == 1;
    if (rs->shared)
        rs->durations[1] = rs->durations[0];
    return 0;
}

void pd_runners_close(struct pd_runners *rs)
{
    pd_durations_free(rs->durations[0]);
    if (!rs->shared)
        pd_durations_free(rs->durations[1]);
    pd_tally_clear(&rs->side[0]);
    pd_tally_clear(&rs->side[1]);
}

/* A runner's figures on both sides. */
struct row {
    const char *name;
    uint32_t jobs[2], timed[2];
    double minutes[2];
};

/* The runners whose figures changed, by name: the sides' sorted slots merged (*n of
 * them; malloc'd, NULL when none or out of memory: *failed says). */
static struct row *changed_rows(const struct pd_runners *rs, size_t *n, bool *failed)
{
    const struct pd_tally *b = &rs->side[0], *h = &rs->side[1];
    struct row *rows = malloc((b->n + h->n + 1) * sizeof(*rows));
    size_t i = 0, j = 0;

    *n = 0;
    *failed = !rows;
    while (rows && (i < b->n || j < h->n)) {
        int c = i == b->n ? 1 : j == h->n ? -1 : strcmp(b->slot[i].name, h->slot[j].name);
        struct row w = {c <= 0 ? b->slot[i].name : h->slot[j].name, {0, 0}, {0, 0}, {0, 0}};

        if (c <= 0) {
            w.jobs[0] = b->slot[i].jobs, w.timed[0] = b->slot[i].timed, w.minutes[0] = b->slot[i].minutes;
            i++;
        }
        if (c >= 0) {
            w.jobs[1] = h->slot[j].jobs, w.timed[1] = h->slot[j].timed, w.minutes[1] = h->slot[j].minutes;
            j++;
        }
        if (w.jobs[0] != w.jobs[1] || w.timed[0] != w.timed[1] || fabs(w.minutes[0] - w.minutes[1]) >= 0.005)
            rows[(*n)++] = w;
    }
    if (!*n) {
        free(rows);
        rows = NULL;
    }
    return rows;
}

/* Minutes to two decimals, without trailing zeros ("19.5", "72"). */
static const char *mins(char *buf, double m)
{
    size_t len;

    snprintf(buf, 32, "%.2f", m);
    len = strlen(buf);
    while (buf[len - 1] == '0')
        buf[--len] = '\0';
    if (buf[len - 1] == '.')
        buf[--len] = '\0';
    if (!strcmp(buf, "-0"))
        strcpy(buf, "0");
    return buf;
}

/* " (not timed: BASE 1 job, HEAD 2 jobs)" when some jobs have no duration. */
static void untimed(FILE *out, const uint32_t jobs[2], const uint32_t timed[2])
{
    static const char *const side[] = {"BASE", "HEAD"};
    bool any = false;

    for (int i = 0; i < 2; i++) {
        if (timed[i] < jobs[i]) {
            fprintf(out, "%s%s %u job%s", any ? ", " : " (not timed: ", side[i], jobs[i] - timed[i],
                    jobs[i] - timed[i] == 1 ? "" : "s");
            any = true;
        }
    }
    fputs(any ? ")" : "", out);
}

/* "h200_35gb: 1 -> 4 jobs[, 72 -> 78 runner-minutes[ (...)]]" into `out`: the minutes
 * when some of its jobs are timed. */
static void row_text(FILE *out, const struct row *w)
{
    char a[32], b[32];

    fprintf(out, "%s: %u -> %u job%s", w->name, w->jobs[0], w->jobs[1], w->jobs[1] == 1 ? "" : "s");
    if (w->timed[0] || w->timed[1]) {
        fprintf(out, ", %s -> %s runner-minutes", mins(a, w->minutes[0]), mins(b, w->minutes[1]));
        untimed(out, w->jobs, w->timed);
    }
}

/* Markdown: `s` as code (two backticks when it holds one). */
static void md_code(FILE *out, const char *s)
{
    fprintf(out, strchr(s, '`') ? "`` %s ``" : "`%s`", s);
}

/* "runner-minutes: 144 -> 117 (-27); longest job: a 72 min -> b#3 19.5 min"; markdown's
 * with arrows and the ids as code. */
static void totals_text(FILE *out, const struct pd_runners *rs, bool md)
{
    const char *arrow = md ? " → " : " -> ";
    char x[32], y[32], z[32];
    double delta = rs->side[1].minutes - rs->side[0].minutes;

    fprintf(out, "runner-minutes: %s%s%s (%s%s", mins(x, rs->side[0].minutes), arrow, mins(y, rs->side[1].minutes),
            delta >= 0.005 ? "+" : "", mins(z, delta));
    /* what reviewers quote past an hour: "about 8 runner-hours saved" */
    if (fabs(delta) >= 60)
        fprintf(out, ", %s%s h", delta > 0 ? "+" : "", mins(z, round(delta / 6) / 10));
    fputs("); longest job: ", out);
    for (int i = 0; i < 2; i++) {
        const struct pd_tally *t = &rs->side[i];

        fputs(i ? arrow : "", out);
        if (!t->has_longest) {
            fputs("(none timed)", out);
            continue;
        }
        if (md)
            md_code(out, t->longest_id);
        else
            fputs(t->longest_id, out);
        fprintf(out, " %s min", mins(x, t->longest));
    }
}

static bool any_timed(const struct pd_runners *rs)
{
    return rs->durations[0] || rs->durations[1];
}

/* Whether the totals changed (with durations): the sum, or the longest job. */
static bool totals_changed(const struct pd_runners *rs)
{
    const struct pd_tally *b = &rs->side[0], *h = &rs->side[1];

    return any_timed(rs) && (fabs(b->minutes - h->minutes) >= 0.005 || b->has_longest != h->has_longest ||
                             fabs(b->longest - h->longest) >= 0.005 ||
                             (b->has_longest && strcmp(b->longest_id, h->longest_id) != 0));
}

/* ", \"member\": M" (no comma before "old", the object's first). */
static void json_minutes(FILE *out, const char *member, double m)
{
    char buf[32];

    fprintf(out, "%s\"%s\": %s", strcmp(member, "old") ? ", " : "", member, mins(buf, m));
}

static void json_longest(FILE *out, const char *member, const struct pd_tally *t)
{
    char buf[32];

    fprintf(out, ", \"%s\": ", member);
    if (!t->has_longest) {
        fputs("null", out);
        return;
    }
    fputs("{\"job\": ", out);
    diag_write_json_string(out, t->longest_id);
    fprintf(out, ", \"minutes\": %s}", mins(buf, t->longest));
}

/* Markdown: `s` as code in a table cell (`|` escaped: GitHub splits cells first). */
static void md_cell_code(FILE *out, const char *s)
{
    bool ticks = strchr(s, '`') != NULL;

    fputs(ticks ? "`` " : "`", out);
    for (; *s; s++)
        fprintf(out, *s == '|' ? "\\|" : "%c", *s);
    fputs(ticks ? " ``" : "`", out);
}

/* A table of the rows under the counts, then the minutes' line. */
static void print_markdown(FILE *out, const struct pd_runners *rs, const struct row *rows, size_t n, bool timed)
{
    char a[32], b[32];

    if (n)
        fputs(timed ? "| runs on | jobs | runner-minutes |\n| --- | --- | --- |\n" : "| runs on | jobs |\n| --- | --- |\n",
              out);
    for (size_t i = 0; i < n; i++) {
        fputs("| ", out);
        md_cell_code(out, rows[i].name);
        fprintf(out, " | %u → %u |", rows[i].jobs[0], rows[i].jobs[1]);
        if (timed && (rows[i].timed[0] || rows[i].timed[1])) {
            fprintf(out, " %s → %s", mins(a, rows[i].minutes[0]), mins(b, rows[i].minutes[1]));
            untimed(out, rows[i].jobs, rows[i].timed);
        }
        fputs(timed ? " |\n" : "\n", out);
    }
    fputs(n ? "\n" : "", out);
    if (totals_changed(rs)) {
        totals_text(out, rs, true);
        fputs("\n\n", out);
    }
}

/* JSON: `runners` and (with durations) `minutes`, members after `changes`. */
static void print_json(FILE *out, const struct pd_runners *rs, const struct row *rows, size_t n, bool timed)
{
    fputs(",\n  \"runners\": [", out);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n    {\"runs_on\": " : "\n    {\"runs_on\": ", out);
        diag_write_json_string(out, rows[i].name);
        fprintf(out, ", \"old_jobs\": %u, \"new_jobs\": %u", rows[i].jobs[0], rows[i].jobs[1]);
        if (timed) {
            json_minutes(out, "old_minutes", rows[i].minutes[0]);
            json_minutes(out, "new_minutes", rows[i].minutes[1]);
            fprintf(out, ", \"old_timed\": %u, \"new_timed\": %u", rows[i].timed[0], rows[i].timed[1]);
        }
        fputc('}', out);
    }
    fputs(n ? "\n  ]" : "]", out);
    if (timed) {
        fputs(",\n  \"minutes\": {", out);
        json_minutes(out, "old", rs->side[0].minutes);
        json_minutes(out, "new", rs->side[1].minutes);
        json_longest(out, "old_longest", &rs->side[0]);
        json_longest(out, "new_longest", &rs->side[1]);
        fputc('}', out);
    }
}

/* Text: a line each, then the totals; github: those lines as one notice's message. 0, or
 * -1 when out of memory. */
static int print_lines(FILE *out, enum pd_format format, const struct pd_runners *rs, const struct row *rows,
                       size_t n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);

    if (!m)
        return -1;
    for (size_t i = 0; i < n; i++) {
        fputs(i ? "\nruns on " : "runs on ", m);
        row_text(m, &rows[i]);
    }
    if (totals_changed(rs)) {
        fputs(n ? "\n" : "", m);
        totals_text(m, rs, false);
    }
    if (fclose(m) != 0) {
        free(text);
        return -1;
    }
    if (format == PD_TEXT) {
        fprintf(out, "%s\n", text);
    } else {
        fputs("::notice title=", out);
        diag_write_github_property(out, "fanout diff: runners");
        fputs("::", out);
        diag_write_github_escaped(out, text);
        fputc('\n', out);
    }
    free(text);
    return 0;
}

bool pd_runners_changed(const struct pd_runners *rs)
{
    bool failed;
    size_t n;
    struct row *rows = changed_rows(rs, &n, &failed);

    free(rows);
    return n || totals_changed(rs);
}

int pd_print_runners(const struct pd_runners *rs, enum pd_format format, FILE *out)
{
    bool failed;
    size_t n;
    struct row *rows = changed_rows(rs, &n, &failed);
    int rc = 0;

    if (failed)
        return -1;
    if (n || totals_changed(rs)) {
        if (format == PD_MARKDOWN)
            print_markdown(out, rs, rows, n, any_timed(rs));
        else if (format == PD_JSON)
            print_json(out, rs, rows, n, any_timed(rs));
        else
            rc = print_lines(out, format, rs, rows, n);
    }
    free(rows);
    return rc;
}
