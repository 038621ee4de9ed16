/* shardplan_read: the inputs of `shards assign` and `plan`: the collected tests (node ids
 * one per line, or `pytest --collect-only -q` output), read through a buffer of a fixed
 * size, and their durations (pytest-split's .test_durations JSON, its legacy list, or a
 * TSV, SGLang's suites table among them), by two hashes of each id. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/strhash.h"
#include "fanout/ynode.h"

#include "shardplan_internal.h"

int sp_input_error(struct diag *d, const char *file, unsigned line, const char *msg)
{
    diag_report(d, DIAG_ERROR, DIAG_INPUT, file, line, line ? 1 : 0, RULE_SHARDS_INPUT, "%s", msg);
    return -1;
}

/* A list past what is held in memory. */
int sp_too_many(struct diag *d, const char *file, unsigned line)
{
    diag_report(d, DIAG_ERROR, DIAG_INPUT, file, line, line ? 1 : 0, RULE_SHARDS_INPUT,
                "more than %u tests or %u MiB of node ids: the duration-based algorithms hold "
                "the list in memory", MAX_TESTS, MAX_TEXT >> 20);
    return -1;
}

struct dslot *sp_dur_find(const struct durations *m, const uint64_t key[2])
{
    if (!m->cap)
        return NULL;
    for (size_t i = key[0] & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct dslot *s = &m->slots[i];

        if (!s->used || (s->h1 == key[0] && s->h2 == key[1]))
            return s;
    }
}

static int dur_put(struct durations *m, const uint64_t key[2], double seconds)
{
    struct dslot *s;

    if ((m->n + 1) * 4 > m->cap * 3) {
        struct durations bigger = {calloc(m->cap ? m->cap * 2 : 1024, sizeof(struct dslot)),
                                   m->cap ? m->cap * 2 : 1024, 0};

        if (!bigger.slots)
            return -1;
        for (size_t i = 0; i < m->cap; i++) {
            if (m->slots[i].used) {
                size_t j = m->slots[i].h1 & (bigger.cap - 1);

                while (bigger.slots[j].used)
                    j = (j + 1) & (bigger.cap - 1);
                bigger.slots[j] = m->slots[i];
                bigger.n++;
            }
        }
        free(m->slots);
        *m = bigger;
    }
    s = sp_dur_find(m, key);
    if (!s->used) {
        s->h1 = key[0];
        s->h2 = key[1];
        s->used = true;
        m->n++;
    }
    s->seconds = seconds; /* a later entry wins, as in a JSON object read by Python */
    return 0;
}

/* Adds line `line` of `file`: 0, or -1 after an error (reported). */
static int tests_add(struct tests *ts, const char *prefix, const char *id, size_t len, struct diag *d,
                     const char *file, unsigned line)
{
    size_t pl = prefix ? strlen(prefix) : 0;

    if (ts->n == MAX_TESTS || ts->len + pl + len + 1 > MAX_TEXT)
        return sp_too_many(d, file, line);
    if (ts->n == ts->cap) {
        size_t cap = ts->cap ? ts->cap * 2 : 1024;
        struct assign_test *t = realloc(ts->t, cap * sizeof(*t));
        uint64_t(*keys)[2] = t ? realloc(ts->keys, cap * sizeof(*keys)) : NULL;

        if (t)
            ts->t = t;
        if (!keys)
            return sp_input_error(d, file, 0, "out of memory");
        ts->keys = keys;
        ts->cap = cap;
    }
    if (ts->len + pl + len + 1 > ts->text_cap) {
        size_t cap = ts->text_cap ? ts->text_cap : 64u << 10;
        char *text;

        while (ts->len + pl + len + 1 > cap)
            cap *= 2;
        if (!(text = realloc(ts->text, cap)))
            return sp_input_error(d, file, 0, "out of memory");
        ts->text = text;
        ts->text_cap = cap;
    }
    if (pl)
        memcpy(ts->text + ts->len, prefix, pl);
    memcpy(ts->text + ts->len + pl, id, len);
    ts->text[ts->len + pl + len] = '\0';
    strhash_pair(ts->text + ts->len, pl + len, &ts->keys[ts->n][0], &ts->keys[ts->n][1]);
    /* an offset until the text stops moving (tests_fix) */
    ts->t[ts->n] = (struct assign_test){.id = (const char *)(uintptr_t)ts->len, .len = pl + len,
                                        .order = ts->n};
    ts->len += pl + len + 1;
    ts->n++;
    return 0;
}

static void tests_fix(struct tests *ts)
{
    for (size_t i = 0; i < ts->n; i++)
        ts->t[i].id = ts->text + (uintptr_t)ts->t[i].id;
}

static void tests_free(struct tests *ts)
{
    free(ts->t);
    free(ts->keys);
    free(ts->text);
}

/* The lines of a text file, read through a buffer of a fixed size: a line longer than
 * MAX_ID, or a NUL byte, is an error as soon as it is read (`--tests /dev/zero` grew a
 * line without end). */
#define LINES_BUF (4 * (MAX_ID + 2))

struct lines {
    FILE *f;
    const char *name;
    char *buf;
    size_t start, end; /* the unread part of buf */
    bool eof;
    unsigned line;
};

static int lines_open(struct lines *l, const char *path, struct diag *d)
{
    memset(l, 0, sizeof(*l));
    l->name = path;
    l->f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!l->f) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, RULE_IO, "cannot read: %s", strerror(errno));
        return -1;
    }
    if (!(l->buf = malloc(LINES_BUF))) {
        if (l->f != stdin)
            fclose(l->f);
        l->f = NULL;
        return sp_input_error(d, path, 0, "out of memory");
    }
    return 0;
}

static void lines_close(struct lines *l)
{
    if (l->f && l->f != stdin)
        fclose(l->f);
    free(l->buf);
}

/* One line, without its line break: 1, 0 at the end, -1 after an error (reported). */
static int lines_next(struct lines *l, const char **text, size_t *len, struct diag *d)
{
    char *nl;
    size_t n;

    while (!(nl = memchr(l->buf + l->start, '\n', l->end - l->start))) {
        size_t got;

        if (memchr(l->buf + l->start, '\0', l->end - l->start))
            return sp_input_error(d, l->name, l->line + 1, "a NUL byte: not a text file");
        if (l->end - l->start > MAX_ID + 1) /* the id and a '\r' */
            return sp_input_error(d, l->name, l->line + 1, "a line longer than 64 KiB is not a node id");
        if (l->eof)
            break;
        memmove(l->buf, l->buf + l->start, l->end - l->start);
        l->end -= l->start;
        l->start = 0;
        got = fread(l->buf + l->end, 1, LINES_BUF - l->end, l->f);
        l->end += got;
        if (got == 0) {
            if (ferror(l->f))
                return sp_input_error(d, l->name, 0, "read error");
            l->eof = true;
        }
    }
    if (!nl && l->start == l->end)
        return 0;
    *text = l->buf + l->start;
    n = (nl ? (size_t)(nl - *text) : l->end - l->start);
    l->start += n + (nl != NULL);
    l->line++;
    while (n > 0 && (*text)[n - 1] == '\r')
        n--;
    if (memchr(*text, '\0', n))
        return sp_input_error(d, l->name, l->line, "a NUL byte: not a text file");
    if (n > MAX_ID)
        return sp_input_error(d, l->name, l->line, "a line longer than 64 KiB is not a node id");
    /* no position asked for: that walks the line a second time (8% of `shards assign`) */
    if (!source_check_utf8((const unsigned char *)*text, n, NULL, NULL, NULL))
        return sp_input_error(d, l->name, l->line, "not UTF-8 (node ids are hashed as UTF-8)");
    *len = n;
    return 1;
}

/* Is this line of `pytest --collect-only -q` output (or of a plain list) a node id?
 * Not blank lines, indented lines, separators (`====`, `----`), nor the summary. */
static bool is_node_id(const char *t, size_t len)
{
    static const char *const summaries[] = {" collected", " selected", " deselected", NULL};

    if (!len || t[0] == ' ' || t[0] == '\t' || t[0] == '=' || (t[0] == '-' && len > 1 && t[1] == '-'))
        return false;
    if (len >= 12 && !memcmp(t, "no tests ran", 12))
        return false;
    if (t[0] >= '0' && t[0] <= '9') /* "120 tests collected in 0.5s" */
        for (size_t k = 0; summaries[k]; k++)
            if (memmem(t, len, summaries[k], strlen(summaries[k])))
                return false;
    return true;
}

int sp_each_test(const char *path, test_fn fn, void *user, struct diag *d)
{
    struct lines l;
    const char *t;
    size_t len;
    int rc;

    if (lines_open(&l, path, d) != 0)
        return -1;
    while ((rc = lines_next(&l, &t, &len, d)) > 0)
        if (is_node_id(t, len) && (rc = fn(user, t, len, l.line)) != 0)
            break;
    lines_close(&l);
    return rc < 0 ? -1 : 0;
}

/* Seconds from a duration's text, or -1. */
static double seconds_of(const char *t, size_t len)
{
    char buf[64], *end;
    double v;

    if (!t || !len || len >= sizeof(buf))
        return -1;
    memcpy(buf, t, len);
    buf[len] = '\0';
    v = strtod(buf, &end);
    return *end || !isfinite(v) || v < 0 ? -1 : v;
}

struct reading {
    struct durations *durations;
    struct tests *order; /* when there is no --tests: the durations' tests, in order */
    const char *suite;
    struct diag *d;
    const char *name;
};

/* The id is hashed once: as a test of the durations' own list, or here. */
static int add_duration(struct reading *r, const char *id, size_t len, double v, unsigned line)
{
    uint64_t own[2];
    const uint64_t *key = own;

    if (v < 0)
        return sp_input_error(r->d, r->name, line, "a duration is a number of seconds (0 or more)");
    if (r->durations->n == MAX_TESTS)
        return sp_too_many(r->d, r->name, line);
    if (r->order) {
        if (tests_add(r->order, NULL, id, len, r->d, r->name, line) != 0)
            return -1;
        key = r->order->keys[r->order->n - 1];
    } else {
        strhash_pair(id, len, &own[0], &own[1]);
    }
    return dur_put(r->durations, key, v) != 0 ? sp_input_error(r->d, r->name, 0, "out of memory") : 0;
}

/* pytest-split's .test_durations: {"id": seconds, ...}, or the legacy [["id", seconds], ...]. */
static int read_json_durations(struct reading *r)
{
    struct source *src = source_open(r->name, r->d);
    struct stream *s = src ? stream_open(src, 0, r->d) : NULL;
    struct stream_item item;
    int more, rc = s ? 0 : -1;

    while (rc == 0 && (more = stream_next(s, &item)) != 0) {
        const struct ynode *root = item.doc ? ynode_doc_root(item.doc) : NULL;
        const struct ynode *pair = NULL, *k = NULL, *v = NULL;
        size_t len, vlen;
        const char *id, *sec;

        if (more < 0) {
            rc = -1;
            break;
        }
        if (item.kind == STREAM_PAIR) {
            k = ynode_key(root, 0);
            v = ynode_value(root, 0);
        } else if (item.kind == STREAM_STEP) {
            pair = ynode_item(root, 0);
            if (!ynode_is_seq(pair) || ynode_len(pair) != 2) {
                rc = sp_input_error(r->d, r->name, ynode_pos(pair).line, "a legacy duration is a pair [\"id\", seconds]");
            } else {
                k = ynode_item(pair, 0);
                v = ynode_item(pair, 1);
            }
        }
        if (rc == 0 && k) {
            id = ynode_scalar(k, &len);
            sec = ynode_is_string(v) ? NULL : ynode_scalar(v, &vlen);
            rc = id && len ? add_duration(r, id, len, sec ? seconds_of(sec, vlen) : -1, ynode_pos(v ? v : k).line)
                           : sp_input_error(r->d, r->name, ynode_pos(k).line, "a node id is a non-empty string");
        }
        ynode_doc_destroy(item.doc);
    }
    stream_close(s);
    source_close(src);
    return rc;
}

/* A tab-separated column's text. */
static bool column(const char *t, size_t len, int col, const char **out, size_t *out_len)
{
    const char *end = t + len;

    for (int c = 0; c < col; c++) {
        const char *tab = memchr(t, '\t', (size_t)(end - t));

        if (!tab)
            return false;
        t = tab + 1;
    }
    *out = t;
    *out_len = (size_t)((memchr(t, '\t', (size_t)(end - t)) ? (const char *)memchr(t, '\t', (size_t)(end - t)) : end) - t);
    return true;
}

/* `id<TAB>seconds` lines, or a table whose header names the columns: the test in
 * test/nodeid/file/name, the time in seconds/est_time_s/duration/time, and optionally
 * a suite column that --suite filters on (SGLang's suites table). */
static int read_tsv_durations(struct reading *r)
{
    static const char *const id_names[] = {"test", "nodeid", "file", "name", NULL};
    static const char *const time_names[] = {"seconds", "est_time_s", "duration", "time", NULL};
    struct lines l;
    const char *t;
    size_t len;
    int rc, id_col = 0, time_col = 1, suite_col = -1, suites_seen = 0;
    bool header = false;

    if (lines_open(&l, r->name, r->d) != 0)
        return -1;
    while ((rc = lines_next(&l, &t, &len, r->d)) > 0) {
        const char *id, *sec, *suite;
        size_t il, sl, ul;

        if (!len || t[0] == '#')
            continue;
        if (l.line == 1) {
            for (int c = 0; column(t, len, c, &id, &il); c++) {
                for (size_t k = 0; id_names[k]; k++)
                    if (il == strlen(id_names[k]) && !memcmp(id, id_names[k], il))
                        id_col = c, header = true;
                for (size_t k = 0; time_names[k]; k++)
                    if (il == strlen(time_names[k]) && !memcmp(id, time_names[k], il))
                        time_col = c, header = true;
                if (il == 5 && !memcmp(id, "suite", 5))
                    suite_col = c;
            }
            if (header)
                continue;
        }
        if (suite_col >= 0 && r->suite) {
            if (!column(t, len, suite_col, &suite, &ul) || ul != strlen(r->suite) || memcmp(suite, r->suite, ul))
                continue;
        }
        suites_seen++;
        if (!column(t, len, id_col, &id, &il) || !il || !column(t, len, time_col, &sec, &sl)) {
            rc = sp_input_error(r->d, r->name, l.line, "a line is a test and its seconds, tab-separated");
            break;
        }
        if ((rc = add_duration(r, id, il, seconds_of(sec, sl), l.line)) != 0)
            break;
    }
    lines_close(&l);
    if (rc == 0 && r->suite && suite_col < 0)
        rc = sp_input_error(r->d, r->name, 1, "--suite needs a table with a `suite` column");
    else if (rc == 0 && r->suite && !suites_seen) {
        diag_report(r->d, DIAG_ERROR, DIAG_INPUT, r->name, 0, 0, RULE_SHARDS_INPUT, "no rows of suite '%s'",
                    r->suite);
        rc = -1;
    }
    return rc < 0 ? -1 : 0;
}

static int read_durations(struct reading *r)
{
    FILE *f = fopen(r->name, "r");
    int c = ' ';

    if (!f) {
        diag_report(r->d, DIAG_ERROR, DIAG_INPUT, r->name, 0, 0, RULE_IO, "cannot read: %s", strerror(errno));
        return -1;
    }
    while (c == ' ' || c == '\n' || c == '\t' || c == '\r')
        c = fgetc(f);
    fclose(f);
    if ((c == '{' || c == '[') && r->suite)
        return sp_input_error(r->d, r->name, 1, "--suite picks the rows of a table with a `suite` column; "
                                             "pytest-split's JSON durations have no suites");
    return c == '{' || c == '[' ? read_json_durations(r) : read_tsv_durations(r);
}

struct collecting {
    struct tests *ts;
    const char *prefix, *file;
    struct diag *d;
};

static int add_collected(void *user, const char *id, size_t len, unsigned line)
{
    struct collecting *c = user;

    return tests_add(c->ts, c->prefix, id, len, c->d, c->file, line);
}

/* The durations, and the tests when they are wanted in memory (the --tests list, else
 * the durations' own tests in their order). */
int sp_read_inputs(const struct assign_opts *o, struct inputs *in, bool tests_in_memory, struct diag *d)
{
    memset(in, 0, sizeof(*in));
    if (o->durations) {
        struct reading rd = {&in->dur, o->tests ? NULL : &in->ts, o->suite, d, o->durations};

        if (read_durations(&rd) != 0)
            return -1;
        in->have_durations = true;
    }
    if (o->tests && tests_in_memory) {
        struct collecting c = {&in->ts, o->prefix, o->tests, d};

        if (sp_each_test(o->tests, add_collected, &c, d) != 0)
            return -1;
    }
    tests_fix(&in->ts);
    return 0;
}

void sp_inputs_free(struct inputs *in)
{
    free(in->dur.slots);
    tests_free(&in->ts);
}
