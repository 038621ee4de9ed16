/* shardplan: shards assign and plan (include/fanout/shardplan.h). */
#define _GNU_SOURCE /* memmem */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "fanout/shardplan.h"

#include <errno.h>
#include <math.h>
#include <pcre2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/assign.h"
#include "fanout/expr.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/strhash.h"
#include "fanout/xsort.h"
#include "fanout/ynode.h"

#define MAX_ID (64u << 10)      /* a node id longer than this is not one */
/* The duration-based algorithms hold the list in memory: at most this many tests (or
 * durations) and bytes of ids. */
#define MAX_TESTS 4000000u
#define MAX_TEXT (512u << 20)
/* A budget search tries counts one by one while that places at most this many tests in
 * all, then bisects: exact for the lists people have, O(n log n) for any. */
#define MAX_LINEAR_WORK 1000000u
#define BAR_WIDTH 40
#define UNSTABLE_SHOWN 3
#define SPOOL_BUDGET (4u << 20) /* assignment records in memory before they spill */

/* Signs of a parametrize id that changes from run to run (a memory address, a set or
 * dict repr, a float repr, an object repr): pytest-shard then puts the test in another
 * shard on each machine. */
#define UNSTABLE_RE "0x[0-9a-fA-F]{6,}|object at |[{}]|\\d\\.\\d{7,}|<[^>]*>"

static int input_error(struct diag *d, const char *file, unsigned line, const char *msg)
{
    diag_report(d, DIAG_ERROR, DIAG_INPUT, file, line, line ? 1 : 0, RULE_SHARDS_INPUT, "%s", msg);
    return -1;
}

/* A list past what is held in memory. */
static int too_many(struct diag *d, const char *file, unsigned line)
{
    diag_report(d, DIAG_ERROR, DIAG_INPUT, file, line, line ? 1 : 0, RULE_SHARDS_INPUT,
                "more than %u tests or %u MiB of node ids: the duration-based algorithms hold "
                "the list in memory", MAX_TESTS, MAX_TEXT >> 20);
    return -1;
}

/* ---- durations: node id -> seconds, by two 64-bit hashes of the id ---- */

struct dslot {
    uint64_t h1, h2;
    double seconds;
    bool used;
};

struct durations {
    struct dslot *slots;
    size_t cap, n;
};

static struct dslot *dur_find(const struct durations *m, const char *id, size_t len)
{
    uint64_t h1, h2;

    if (!m->cap)
        return NULL;
    strhash_pair(id, len, &h1, &h2);
    for (size_t i = h1 & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct dslot *s = &m->slots[i];

        if (!s->used || (s->h1 == h1 && s->h2 == h2))
            return s;
    }
}

static int dur_put(struct durations *m, const char *id, size_t len, double seconds)
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
    s = dur_find(m, id, len);
    if (!s->used) {
        strhash_pair(id, len, &s->h1, &s->h2);
        s->used = true;
        m->n++;
    }
    s->seconds = seconds; /* a later entry wins, as in a JSON object read by Python */
    return 0;
}

/* ---- the collected tests, in memory ---- */

struct tests {
    struct assign_test *t;
    size_t n, cap;
    char *text; /* the ids, NUL-separated */
    size_t len, text_cap;
};

/* Adds line `line` of `file`: 0, or -1 after an error (reported). */
static int tests_add(struct tests *ts, const char *prefix, const char *id, size_t len, struct diag *d,
                     const char *file, unsigned line)
{
    size_t pl = prefix ? strlen(prefix) : 0;

    if (ts->n == MAX_TESTS || ts->len + pl + len + 1 > MAX_TEXT)
        return too_many(d, file, line);
    if (ts->n == ts->cap) {
        size_t cap = ts->cap ? ts->cap * 2 : 1024;
        struct assign_test *t = realloc(ts->t, cap * sizeof(*t));

        if (!t)
            return input_error(d, file, 0, "out of memory");
        ts->t = t;
        ts->cap = cap;
    }
    if (ts->len + pl + len + 1 > ts->text_cap) {
        size_t cap = ts->text_cap ? ts->text_cap : 64u << 10;
        char *text;

        while (ts->len + pl + len + 1 > cap)
            cap *= 2;
        if (!(text = realloc(ts->text, cap)))
            return input_error(d, file, 0, "out of memory");
        ts->text = text;
        ts->text_cap = cap;
    }
    if (pl)
        memcpy(ts->text + ts->len, prefix, pl);
    memcpy(ts->text + ts->len + pl, id, len);
    ts->text[ts->len + pl + len] = '\0';
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
    free(ts->text);
}

/* ---- reading ---- */

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
        return input_error(d, path, 0, "out of memory");
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
    size_t n, bad;
    unsigned bad_line, bad_col;

    while (!(nl = memchr(l->buf + l->start, '\n', l->end - l->start))) {
        size_t got;

        if (memchr(l->buf + l->start, '\0', l->end - l->start))
            return input_error(d, l->name, l->line + 1, "a NUL byte: not a text file");
        if (l->end - l->start > MAX_ID + 1) /* the id and a '\r' */
            return input_error(d, l->name, l->line + 1, "a line longer than 64 KiB is not a node id");
        if (l->eof)
            break;
        memmove(l->buf, l->buf + l->start, l->end - l->start);
        l->end -= l->start;
        l->start = 0;
        got = fread(l->buf + l->end, 1, LINES_BUF - l->end, l->f);
        l->end += got;
        if (got == 0) {
            if (ferror(l->f))
                return input_error(d, l->name, 0, "read error");
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
        return input_error(d, l->name, l->line, "a NUL byte: not a text file");
    if (n > MAX_ID)
        return input_error(d, l->name, l->line, "a line longer than 64 KiB is not a node id");
    if (!source_check_utf8((const unsigned char *)*text, n, &bad, &bad_line, &bad_col))
        return input_error(d, l->name, l->line, "not UTF-8 (node ids are hashed as UTF-8)");
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

typedef int (*test_fn)(void *user, const char *id, size_t len, unsigned line);

static int each_test(const char *path, test_fn fn, void *user, struct diag *d)
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

static int add_duration(struct reading *r, const char *id, size_t len, double v, unsigned line)
{
    if (v < 0)
        return input_error(r->d, r->name, line, "a duration is a number of seconds (0 or more)");
    if (r->durations->n == MAX_TESTS)
        return too_many(r->d, r->name, line);
    if (dur_put(r->durations, id, len, v) != 0)
        return input_error(r->d, r->name, 0, "out of memory");
    return r->order ? tests_add(r->order, NULL, id, len, r->d, r->name, line) : 0;
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
                rc = input_error(r->d, r->name, ynode_pos(pair).line, "a legacy duration is a pair [\"id\", seconds]");
            } else {
                k = ynode_item(pair, 0);
                v = ynode_item(pair, 1);
            }
        }
        if (rc == 0 && k) {
            id = ynode_scalar(k, &len);
            sec = ynode_is_string(v) ? NULL : ynode_scalar(v, &vlen);
            rc = id && len ? add_duration(r, id, len, sec ? seconds_of(sec, vlen) : -1, ynode_pos(v ? v : k).line)
                           : input_error(r->d, r->name, ynode_pos(k).line, "a node id is a non-empty string");
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
            rc = input_error(r->d, r->name, l.line, "a line is a test and its seconds, tab-separated");
            break;
        }
        if ((rc = add_duration(r, id, il, seconds_of(sec, sl), l.line)) != 0)
            break;
    }
    lines_close(&l);
    if (rc == 0 && r->suite && suite_col < 0)
        rc = input_error(r->d, r->name, 1, "--suite needs a table with a `suite` column");
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
        return input_error(r->d, r->name, 1, "--suite picks the rows of a table with a `suite` column; "
                                             "pytest-split's JSON durations have no suites");
    return c == '{' || c == '[' ? read_json_durations(r) : read_tsv_durations(r);
}

/* ---- an assignment and what is said about it ---- */

struct list_rec { /* one test of a shard's list, for the JSON report */
    uint32_t shard;
    uint64_t seq, off;
    uint32_t len;
};

static int list_rec_cmp(const void *a, const void *b)
{
    const struct list_rec *x = a, *y = b;

    if (x->shard != y->shard)
        return x->shard < y->shard ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Which shard runs a test, by 96 bits of a key of its id: the first 64 bits, then 32
 * more above the shard (16 bytes sort faster than 24; two of a million ids agree in 96
 * bits with a chance of 1 in 10^16). */
struct proof_rec {
    uint64_t h1, h2_shard;
};

#define PROOF_ID(p) ((p)->h2_shard >> 32)

static int proof_rec_cmp(const void *a, const void *b)
{
    const struct proof_rec *x = a, *y = b;

    if (x->h1 != y->h1)
        return x->h1 < y->h1 ? -1 : 1;
    return x->h2_shard < y->h2_shard ? -1 : x->h2_shard > y->h2_shard;
}

struct shard_sum {
    size_t tests, untimed;
    double seconds; /* of the tests with a known duration */
};

struct result {
    enum assign_algo algo;
    unsigned count;
    struct shard_sum *shards;
    size_t collected, covered, overlaps, duplicates;
    bool timed;       /* durations were given */
    double mean_fill; /* what a test without a duration counts */
    double overhead, total, longest;
    struct xsort *lists; /* list_rec, when the report lists the tests */
    const char *text;    /* their ids, when the tests are in memory (list_rec.off is in it) */
    FILE *spool;         /* else their ids, written as they come */
    uint64_t spool_len;
    char *window;        /* a piece of the spool read back: a shard's ids come in file order */
    uint64_t window_off;
    size_t window_len;
    struct xsort *proof;
    pcre2_code *unstable_re;
    pcre2_match_data *unstable_md;
    size_t unstable;
    char *unstable_shown[UNSTABLE_SHOWN];
    /* --budget */
    double budget;
    double least;         /* ceil(total / (budget - overhead)): no fewer shards fit */
    unsigned searched_to; /* the largest count the search tried (0: no search) */
    long need, need_lpt;  /* shards that fit (0: none up to searched_to) */
    const char *too_long; /* a test longer than the budget on its own */
};

/* With `lists`, the report lists each shard's tests: their ids are in `text` (the tests
 * in memory), or are spooled as they come (NULL). */
static int result_init(struct result *r, const struct assign_opts *o, bool lists, const char *text)
{
    int code;
    PCRE2_SIZE at;

    memset(r, 0, sizeof(*r));
    r->algo = o->algo < 0 ? ASSIGN_PYTEST_SHARD_012 : (enum assign_algo)o->algo;
    r->overhead = o->overhead;
    r->budget = o->budget;
    r->proof = xsort_create(sizeof(struct proof_rec), proof_rec_cmp, SPOOL_BUDGET);
    r->unstable_re = pcre2_compile((PCRE2_SPTR)UNSTABLE_RE, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code, &at, NULL);
    if (r->unstable_re)
        pcre2_jit_compile(r->unstable_re, PCRE2_JIT_COMPLETE);
    r->unstable_md = r->unstable_re ? pcre2_match_data_create_from_pattern(r->unstable_re, NULL) : NULL;
    if (lists) {
        r->lists = xsort_create(sizeof(struct list_rec), list_rec_cmp, SPOOL_BUDGET);
        r->text = text;
        r->spool = text ? NULL : tmpfile();
    }
    return r->proof && r->unstable_md && (!lists || (r->lists && (text || r->spool))) ? 0 : -1;
}

static int result_shards(struct result *r, unsigned count)
{
    free(r->shards);
    r->count = count;
    return (r->shards = calloc(count, sizeof(*r->shards))) ? 0 : -1;
}

static void result_free(struct result *r)
{
    free(r->window);
    free(r->shards);
    xsort_destroy(r->lists);
    xsort_destroy(r->proof);
    if (r->spool)
        fclose(r->spool);
    pcre2_match_data_free(r->unstable_md);
    pcre2_code_free(r->unstable_re);
    for (size_t i = 0; i < UNSTABLE_SHOWN; i++)
        free(r->unstable_shown[i]);
}

/* One collected test, its duration (< 0: unknown) and the shard it went to
 * (ASSIGN_NOWHERE: none). `key` tells ids apart (NULL: hashed here); every test of a run
 * gets its key the same way. */
static int result_add(struct result *r, const char *id, size_t len, unsigned shard, size_t seq,
                      double seconds, const uint64_t *key)
{
    struct proof_rec p;
    uint64_t h[2];
    const char *params = memchr(id, '[', len); /* only parametrize ids vary */

    r->collected++;
    if (params &&
        pcre2_match(r->unstable_re, (PCRE2_SPTR)id, len, (size_t)(params - id), 0, r->unstable_md, NULL) >= 0 &&
        r->unstable++ < UNSTABLE_SHOWN && !(r->unstable_shown[r->unstable - 1] = strndup(id, len)))
        return -1;
    if (shard == ASSIGN_NOWHERE)
        return 0;
    r->covered++;
    if (seconds >= 0)
        r->shards[shard].seconds += seconds;
    else
        r->shards[shard].untimed++;
    r->shards[shard].tests++;
    if (!key) {
        strhash_pair(id, len, &h[0], &h[1]);
        key = h;
    }
    p.h1 = key[0];
    p.h2_shard = (key[1] & ~(uint64_t)UINT32_MAX) | shard;
    if (xsort_add(r->proof, &p) != 0)
        return -1;
    if (r->lists) {
        struct list_rec l = {shard, seq, r->text ? (uint64_t)(id - r->text) : r->spool_len, (uint32_t)len};

        if ((!r->text && fwrite(id, 1, len, r->spool) != len) || xsort_add(r->lists, &l) != 0)
            return -1;
        r->spool_len += r->text ? 0 : len;
    }
    return 0;
}

/* Each test in exactly one shard: the ids that two shards run, and those collected twice. */
static int result_prove(struct result *r)
{
    const struct proof_rec *p, *prev = NULL;
    struct proof_rec last;
    bool counted = false;

    if (xsort_finish(r->proof) != 0)
        return -1;
    while ((p = xsort_next(r->proof)) != NULL) {
        if (prev && p->h1 == last.h1 && PROOF_ID(p) == PROOF_ID(&last)) {
            if (p->h2_shard != last.h2_shard && !counted) {
                r->overlaps++;
                counted = true;
            } else if (p->h2_shard == last.h2_shard) {
                r->duplicates++;
            }
        } else {
            counted = false;
        }
        last = *p;
        prev = &last;
    }
    return xsort_failed(r->proof) ? -1 : 0;
}

static double shard_time(const struct result *r, unsigned s)
{
    return r->overhead + r->shards[s].seconds + (double)r->shards[s].untimed * r->mean_fill;
}

static double makespan(const struct result *r)
{
    double m = 0;

    for (unsigned s = 0; s < r->count; s++)
        if (shard_time(r, s) > m)
            m = shard_time(r, s);
    return m;
}

/* Why the budget is not met, into `buf`; false when it is (or there is none). */
static bool budget_unmet(const struct result *r, char *buf, size_t cap)
{
    if (r->budget <= 0)
        return false;
    if (r->overhead >= r->budget)
        snprintf(buf, cap, "the overhead alone takes %.1f s", r->overhead);
    else if (r->longest + r->overhead > r->budget)
        snprintf(buf, cap, "%s alone takes %.1f s", r->too_long, r->longest);
    else if (r->least > SHARDPLAN_MAX_SHARDS)
        snprintf(buf, cap, "the tests take %.1f s: at least %.0f shards, more than %u", r->total, r->least,
                 SHARDPLAN_MAX_SHARDS);
    else if (makespan(r) <= r->budget + 1e-9)
        return false;
    else if (!r->need && r->searched_to)
        snprintf(buf, cap, "%s fits in no count up to %u (%u shards take %.1f s)",
                 assign_algo_info(r->algo)->name, r->searched_to, r->count, makespan(r));
    else
        snprintf(buf, cap, "%u shards take %.1f s", r->count, makespan(r));
    return true;
}

/* ---- the two ways through: streamed (per-test algorithms) and in memory ---- */

struct streaming {
    const struct assign_opts *o;
    struct result *r;
    const struct durations *dur;
    struct diag *d;
    char *buf; /* prefix + id */
    double known_sum, known_max;
    size_t known;
};

static int on_streamed(void *user, const char *id, size_t len, unsigned line)
{
    struct streaming *st = user;
    size_t pl = st->o->prefix ? strlen(st->o->prefix) : 0;
    const struct dslot *slot;
    double seconds = -1;
    uint64_t key[2];
    unsigned shard;

    (void)line;
    memcpy(st->buf + pl, id, len);
    slot = st->dur ? dur_find(st->dur, st->buf, pl + len) : NULL;
    if (slot && slot->used) {
        seconds = slot->seconds;
        st->known_sum += seconds;
        st->known_max = seconds > st->known_max ? seconds : st->known_max;
        st->known++;
    }
    shard = assign_shard_keyed(st->r->algo, st->buf, pl + len, st->r->count, key);
    if (result_add(st->r, st->buf, pl + len, shard, st->r->collected, seconds, key) != 0)
        return input_error(st->d, "fanout", 0, "out of memory or temporary space");
    return 0;
}

/* A list of any length, one id at a time: memory does not grow with it. The total and
 * the longest test are known at the end (a test without a duration counts the mean). */
static int assign_streamed(const struct assign_opts *o, struct result *r, const struct durations *dur,
                           struct diag *d)
{
    size_t pl = o->prefix ? strlen(o->prefix) : 0;
    struct streaming st = {o, r, dur, d, malloc(pl + MAX_ID + 1), 0, 0, 0};
    size_t untimed;
    int rc;

    if (!st.buf)
        return input_error(d, "fanout", 0, "out of memory");
    if (pl)
        memcpy(st.buf, o->prefix, pl);
    rc = each_test(o->tests, on_streamed, &st, d);
    r->mean_fill = st.known ? st.known_sum / (double)st.known : 1.0;
    untimed = r->collected - st.known;
    r->total = st.known_sum + (double)untimed * r->mean_fill;
    r->longest = untimed && r->mean_fill > st.known_max ? r->mean_fill : st.known_max;
    free(st.buf);
    return rc;
}

/* Every test's duration: known, else the mean of the collected tests' known ones, else
 * 1 s (pytest-split's rule). */
static void fill_seconds(struct tests *ts, const struct durations *dur, struct result *r)
{
    double sum = 0, mean;
    size_t known = 0;

    for (size_t i = 0; i < ts->n; i++) {
        const struct dslot *s = dur_find(dur, ts->t[i].id, ts->t[i].len);

        ts->t[i].seconds = s && s->used ? s->seconds : -1;
        if (s && s->used) {
            sum += s->seconds;
            known++;
        }
    }
    mean = known ? sum / (double)known : 1.0;
    r->mean_fill = mean;
    for (size_t i = 0; i < ts->n; i++) {
        if (ts->t[i].seconds < 0)
            ts->t[i].seconds = mean;
        r->total += ts->t[i].seconds;
        if (ts->t[i].seconds > r->longest) {
            r->longest = ts->t[i].seconds;
            r->too_long = ts->t[i].id;
        }
    }
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

/* The largest shard's tests' time of an assignment into `count` shards. */
static double assignment_span(const struct assign_test *t, size_t n, unsigned count, double *sums)
{
    double m = 0;

    memset(sums, 0, count * sizeof(*sums));
    for (size_t i = 0; i < n; i++)
        if (t[i].shard < count)
            sums[t[i].shard] += t[i].seconds;
    for (unsigned s = 0; s < count; s++)
        m = sums[s] > m ? sums[s] : m;
    return m;
}

/* Does the assignment into `count` shards fit `avail` seconds a shard? -1 when out of
 * memory. */
static int fits(struct assign_prep *p, const struct tests *ts, unsigned count, double avail, double *sums)
{
    if (assign_prep_run(p, count) < 0)
        return -1;
    return assignment_span(ts->t, ts->n, count, sums) <= avail + 1e-9;
}

/* The fewest shards from `lo` to `hi` whose tests fit in `avail` seconds each, for
 * algorithm `a` (0: none does; -1: out of memory). Counts are tried one by one while
 * that places at most MAX_LINEAR_WORK tests; past that from `sure` (a count known to
 * fit, or 0) or by a step that doubles until a count fits, then bisection finds one
 * whose predecessor does not (neither hashing nor LPT is monotone in the count, so a
 * smaller one may fit by chance). Each try is one O(n log n) assignment at most: the
 * sort or the digests are done once. */
static long fewest_shards(enum assign_algo a, struct tests *ts, unsigned lo, unsigned hi, unsigned sure,
                          double avail, unsigned max_shards)
{
    size_t linear = ts->n ? MAX_LINEAR_WORK / ts->n : 0;
    unsigned bad, good = 0, step;
    struct assign_prep *p;
    double *sums;
    int f = 0;

    if (!ts->n) /* nothing to run fits anywhere */
        return 1;
    if (a == ASSIGN_CONTIGUOUS) { /* it chooses its count from the budget itself */
        long found = assign_run(a, ts->t, ts->n, max_shards, avail);

        if (found <= 0 || !(sums = malloc((size_t)found * sizeof(*sums))))
            return -1;
        if (assignment_span(ts->t, ts->n, (unsigned)found, sums) > avail + 1e-9)
            found = 0;
        free(sums);
        return found;
    }
    p = assign_prepare(a, ts->t, ts->n);
    sums = malloc((size_t)hi * sizeof(*sums));
    if (!p || !sums)
        goto done;
    for (bad = lo - 1; bad < hi && bad + 1 - lo < (linear ? linear : 1); bad++)
        if ((f = fits(p, ts, bad + 1, avail, sums)) != 0) {
            good = bad + 1;
            goto done;
        }
    for (step = (unsigned)(linear ? linear : 1); bad < hi && !good; step *= 2) {
        unsigned n = sure > bad ? sure : hi - bad > step ? bad + step : hi;

        if ((f = fits(p, ts, n, avail, sums)) < 0)
            goto done;
        if (f)
            good = n;
        else
            bad = n;
    }
    while (good && good - bad > 1) {
        unsigned mid = bad + (good - bad) / 2;

        if ((f = fits(p, ts, mid, avail, sums)) < 0)
            goto done;
        if (f)
            good = mid;
        else
            bad = mid;
    }
done:
    assign_prep_free(p);
    free(sums);
    return !p || !sums || f < 0 ? -1 : (long)good;
}

/* ---- the inputs, read ---- */

struct inputs {
    struct durations dur;
    struct tests ts;
    bool have_durations;
};

/* The durations, and the tests when they are wanted in memory (the --tests list, else
 * the durations' own tests in their order). */
static int read_inputs(const struct assign_opts *o, struct inputs *in, bool tests_in_memory, struct diag *d)
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

        if (each_test(o->tests, add_collected, &c, d) != 0)
            return -1;
    }
    tests_fix(&in->ts);
    return 0;
}

static void inputs_free(struct inputs *in)
{
    free(in->dur.slots);
    tests_free(&in->ts);
}

/* ---- writing ---- */

#define WINDOW (256u << 10)

/* A listed test's id, NUL-terminated: in the tests' text, or read back from the spool
 * into `buf` (MAX_ID + 1 bytes). The streamed tests of a shard lie in increasing spool
 * order, so a window read ahead serves most of them. NULL when reading fails. */
static const char *listed_id(struct result *r, const struct list_rec *l, char *buf)
{
    if (r->text)
        return r->text + l->off;
    if (l->off < r->window_off || l->off + l->len > r->window_off + r->window_len) {
        ssize_t got;

        if ((!r->window && !(r->window = malloc(WINDOW))) || fflush(r->spool) != 0)
            return NULL;
        got = pread(fileno(r->spool), r->window, WINDOW, (off_t)l->off);
        if (got < (ssize_t)l->len)
            return NULL;
        r->window_off = l->off;
        r->window_len = (size_t)got;
    }
    if (l->len) /* an empty id may come before any window was read */
        memcpy(buf, r->window + (l->off - r->window_off), l->len);
    buf[l->len] = '\0';
    return buf;
}

/* As JSON.stringify writes it: the shortest digits that read back, no exponent for the
 * times a report holds (people and jq read 180, not 1.8e+02). */
static void json_number(FILE *out, double v)
{
    char buf[EXPR_NUMBUF];

    fwrite(buf, 1, expr_js_number(v, buf), out);
}

static void json_time(FILE *out, const struct result *r, double v)
{
    if (r->timed)
        json_number(out, v);
    else
        fputs("null", out);
}

static double mean_time(const struct result *r)
{
    double sum = 0;

    for (unsigned s = 0; s < r->count; s++)
        sum += shard_time(r, s);
    return r->count ? sum / r->count : 0;
}

/* LB = max(total / N, longest test): no assignment into N shards does better. */
static double lower_bound(const struct result *r)
{
    double per = r->count ? r->total / r->count : r->total;

    return r->overhead + (per > r->longest ? per : r->longest);
}

static unsigned first_index(const struct result *r)
{
    return assign_algo_info(r->algo)->first_index;
}

static int write_json(struct result *r, FILE *out)
{
    const struct list_rec *l;
    char *id = malloc(MAX_ID + 1);

    if (!id || (r->lists && xsort_finish(r->lists) != 0)) {
        free(id);
        return -1;
    }
    fputs("{\"algo\": ", out);
    diag_write_json_string(out, assign_algo_info(r->algo)->name);
    fprintf(out, ", \"count\": %u, \"collected\": %zu, \"covered\": %zu, \"overlaps\": %zu, "
                 "\"duplicates\": %zu,\n \"shards\": [", r->count, r->collected, r->covered, r->overlaps,
            r->duplicates);
    l = r->lists ? xsort_next(r->lists) : NULL;
    for (unsigned s = 0; s < r->count; s++) {
        bool first = true;

        fprintf(out, "%s\n  {\"index\": %u, \"tests\": [", s ? "," : "", s + first_index(r));
        for (; l && l->shard == s; l = xsort_next(r->lists), first = false) {
            const char *t = listed_id(r, l, id);

            if (!t)
                goto fail;
            fputs(first ? "" : ", ", out);
            diag_write_json_string(out, t);
        }
        fputs("], \"seconds\": ", out);
        json_time(out, r, shard_time(r, s));
        fputs("}", out);
    }
    fputs("],\n \"makespan\": ", out);
    json_time(out, r, makespan(r));
    fputs(", \"mean\": ", out);
    json_time(out, r, mean_time(r));
    fputs(", \"lower_bound\": ", out);
    json_time(out, r, lower_bound(r));
    fputs(", \"overhead\": ", out);
    json_number(out, r->overhead);
    fputs(",\n \"budget\": ", out);
    if (r->budget > 0) {
        fputs("{\"seconds\": ", out);
        json_number(out, r->budget);
        fprintf(out, ", \"shards\": ");
        r->need > 0 ? fprintf(out, "%ld", r->need) : fputs("null", out);
        fprintf(out, ", \"lpt_shards\": ");
        r->need_lpt > 0 ? fprintf(out, "%ld", r->need_lpt) : fputs("null", out);
        fputs(", \"at_least\": ", out);
        if (isfinite(r->least))
            json_number(out, r->least);
        else
            fputs("null", out);
        fputs(", \"too_long\": ", out);
        if (r->longest + r->overhead > r->budget)
            diag_write_json_string(out, r->too_long);
        else
            fputs("null", out);
        fputs("}", out);
    } else {
        fputs("null", out);
    }
    fprintf(out, ",\n \"unstable\": %zu, \"unstable_examples\": [", r->unstable);
    for (size_t i = 0; i < UNSTABLE_SHOWN && i < r->unstable; i++) {
        fputs(i ? ", " : "", out);
        diag_write_json_string(out, r->unstable_shown[i]);
    }
    fputs("]}\n", out);
    free(id);
    return xsort_failed(r->lists) ? -1 : 0;
fail:
    free(id);
    return -1;
}

/* A bar of `width` eighths of a cell, in Unicode block elements. */
static void bar(FILE *out, double fraction, bool color, bool longest)
{
    static const char *const eighths[] = {"", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589"};
    long cells = lround(fraction * BAR_WIDTH * 8);

    if (!cells)
        return;
    fputc(' ', out);
    if (color)
        fputs(longest ? "\033[31m" : "\033[32m", out);
    for (long i = 0; i < cells / 8; i++)
        fputs("\u2588", out);
    fputs(eighths[cells % 8], out);
    if (color)
        fputs("\033[0m", out);
}

static void write_budget_line(const struct result *r, FILE *out, const char *eol)
{
    char why[1024];

    if (r->budget <= 0)
        return;
    fprintf(out, "budget %.1f s per shard (overhead %.1f s included): ", r->budget, r->overhead);
    if (!r->searched_to) {
        budget_unmet(r, why, sizeof(why));
        fprintf(out, "cannot be met: %s%s", why, eol);
        return;
    }
    if (r->need > 0)
        fprintf(out, "%s needs %ld shards", assign_algo_info(r->algo)->name, r->need);
    else
        fprintf(out, "%s fits in no count up to %u", assign_algo_info(r->algo)->name, r->searched_to);
    if (r->need_lpt > 0)
        fprintf(out, ", LPT needs %ld%s", r->need_lpt, eol);
    else
        fprintf(out, ", LPT in no count up to %u%s", r->searched_to, eol);
}

static void write_text(const struct result *r, FILE *out, bool color)
{
    double top = 0;
    unsigned widest = 0;

    for (unsigned s = 0; s < r->count; s++) {
        double v = r->timed ? shard_time(r, s) : (double)r->shards[s].tests;

        if (v > top) {
            top = v;
            widest = s;
        }
    }
    fprintf(out, "%s: %zu tests in %u shards\n", assign_algo_info(r->algo)->name, r->collected, r->count);
    fprintf(out, "%7s %9s%s\n", "shard", "tests", r->timed ? "      seconds" : "");
    for (unsigned s = 0; s < r->count; s++) {
        double v = r->timed ? shard_time(r, s) : (double)r->shards[s].tests;

        fprintf(out, "%7u %9zu", s + first_index(r), r->shards[s].tests);
        if (r->timed)
            fprintf(out, " %12.1f", shard_time(r, s));
        bar(out, top > 0 ? v / top : 0, color, s == widest && r->count > 1);
        fputc('\n', out);
    }
    fprintf(out, "proof: %zu/%zu tests covered, %zu in two shards or more", r->covered, r->collected,
            r->overlaps);
    if (r->duplicates)
        fprintf(out, ", %zu collected twice", r->duplicates);
    fputc('\n', out);
    if (r->timed) {
        double m = makespan(r), mean = mean_time(r), lb = lower_bound(r);

        fprintf(out, "time: makespan %.1f s (overhead %.1f s per shard), mean %.1f s, max/mean %.3f, "
                     "max/LB %.3f (LB %.1f s)\n", m, r->overhead, mean, mean > 0 ? m / mean : 0,
                lb > 0 ? m / lb : 0, lb);
    }
    write_budget_line(r, out, "\n");
    if (r->unstable) {
        fprintf(out, "unstable node ids: %zu (their shard can change between runs), e.g.", r->unstable);
        for (size_t i = 0; i < UNSTABLE_SHOWN && i < r->unstable; i++)
            fprintf(out, "%s %s", i ? "," : "", r->unstable_shown[i]);
        fputc('\n', out);
    }
}

static void write_markdown(const struct result *r, FILE *out)
{
    fprintf(out, "### Shards: %s, %u shards, %zu/%zu tests covered\n\n", assign_algo_info(r->algo)->name,
            r->count, r->covered, r->collected);
    fprintf(out, "| shard | tests |%s\n| ---: | ---: |%s\n", r->timed ? " seconds |" : "",
            r->timed ? " ---: |" : "");
    for (unsigned s = 0; s < r->count; s++) {
        fprintf(out, "| %u | %zu |", s + first_index(r), r->shards[s].tests);
        if (r->timed)
            fprintf(out, " %.1f |", shard_time(r, s));
        fputc('\n', out);
    }
    fputc('\n', out);
    if (r->overlaps || r->covered != r->collected)
        fprintf(out, "**%zu of %zu tests run in no shard, %zu in two or more.**\n\n",
                r->collected - r->covered, r->collected, r->overlaps);
    if (r->timed) {
        double m = makespan(r), mean = mean_time(r), lb = lower_bound(r);

        fprintf(out, "Makespan %.1f s (overhead %.1f s per shard), mean %.1f s, max/mean %.3f, "
                     "max/LB %.3f.\n\n", m, r->overhead, mean, mean > 0 ? m / mean : 0, lb > 0 ? m / lb : 0);
        fputs("```mermaid\nxychart-beta\n    title \"Predicted time per shard (s)\"\n    x-axis [", out);
        for (unsigned s = 0; s < r->count; s++)
            fprintf(out, "%s\"%u\"", s ? ", " : "", s + first_index(r));
        fputs("]\n    y-axis \"seconds\"\n    bar [", out);
        for (unsigned s = 0; s < r->count; s++)
            fprintf(out, "%s%.1f", s ? ", " : "", shard_time(r, s));
        fputs("]\n```\n", out);
    }
    write_budget_line(r, out, "\n");
}

/* ---- the commands ---- */

/* Assigns the in-memory tests into `count` shards and records them. */
static int assign_listed(struct result *r, struct tests *ts, unsigned count, double avail)
{
    long got = assign_run(r->algo, ts->t, ts->n, count, avail);

    /* ci-infra-contiguous chooses its own count */
    if (got < 0 || result_shards(r, (unsigned)got) != 0)
        return -1;
    for (size_t i = 0; i < ts->n; i++)
        if (result_add(r, ts->t[i].id, ts->t[i].len, ts->t[i].shard, ts->t[i].seq, ts->t[i].seconds,
                       NULL) != 0)
            return -1;
    return 0;
}

/* Does the algorithm give each test to the lightest shard (LPT and pytest-split's
 * least_duration)? */
static bool lightest_first(enum assign_algo a)
{
    return a == ASSIGN_LPT_REGISTRY || a == ASSIGN_LPT_LEGACY || a == ASSIGN_SPLIT_LEAST;
}

/* The budget's answers (r->least, r->need, r->need_lpt) and the count to report at:
 * -n, else the fewest that fit, else the bound (at most one shard per test). */
static int answer_budget(const struct assign_opts *o, struct result *r, struct tests *ts, unsigned *count)
{
    double avail = o->budget - o->overhead;
    double most = fmin(SHARDPLAN_MAX_SHARDS, ts->n > 1 ? (double)ts->n : 1.0);

    *count = o->count;
    if (o->budget <= 0)
        return 0;
    r->least = avail > 0 ? fmax(1.0, ceil(r->total / avail - 1e-9)) : INFINITY;
    if (avail > 0 && r->longest <= avail && r->least <= SHARDPLAN_MAX_SHARDS) {
        unsigned lo = (unsigned)r->least;
        /* LPT puts each test on the lightest shard, which holds at most total / N: so
         * every shard ends within total / N + the longest test, and with N >= tests each
         * test has its own */
        double bound = avail > r->longest ? ceil(r->total / (avail - r->longest)) : INFINITY;
        unsigned sure;

        r->searched_to = ts->n > lo ? (unsigned)fmin(SHARDPLAN_MAX_SHARDS, (double)ts->n) : lo;
        sure = (unsigned)fmin(r->searched_to, fmax(lo, bound));
        r->need = fewest_shards(r->algo, ts, lo, r->searched_to, lightest_first(r->algo) ? sure : 0, avail,
                                o->count);
        r->need_lpt = r->algo == ASSIGN_LPT_REGISTRY
                          ? r->need
                          : fewest_shards(ASSIGN_LPT_REGISTRY, ts, lo, r->searched_to, sure, avail, o->count);
        if (r->need < 0 || r->need_lpt < 0)
            return -1;
    }
    if (!*count)
        *count = r->need > 0 ? (unsigned)r->need : (unsigned)fmin(r->least, most);
    return 0;
}

/* Durations near the largest double add up to infinity, which no report can show: an
 * input error (reported), before anything is written. */
static bool times_overflow(const struct result *r, const struct assign_opts *o, struct diag *d)
{
    double sum = r->overhead + r->total;

    for (unsigned s = 0; s < r->count; s++)
        sum += shard_time(r, s);
    if (isfinite(sum))
        return false;
    input_error(d, o->durations ? o->durations : "fanout", 0,
                "the durations (and overhead) add up to more than a number of seconds can hold");
    return true;
}

/* The budget's finding, after the report. */
static void report_budget(const struct result *r, const struct assign_opts *o, struct diag *d)
{
    char why[1024];

    if (budget_unmet(r, why, sizeof(why)))
        diag_report(d, DIAG_ERROR, DIAG_FINDING, o->durations ? o->durations : o->tests, 0, 0,
                    RULE_SHARDS_BUDGET, "the budget of %.1f s per shard cannot be met: %s", r->budget, why);
}

static int exit_code(const struct result *r)
{
    char why[1024];

    return r->covered != r->collected || r->overlaps || budget_unmet(r, why, sizeof(why)) ? 1 : 0;
}

int shardplan_assign(const struct assign_opts *o, enum shardplan_format format, FILE *out,
                     struct diag *d)
{
    enum assign_algo algo = o->algo < 0 ? ASSIGN_PYTEST_SHARD_012 : (enum assign_algo)o->algo;
    bool streamed = assign_algo_info(algo)->per_test && o->tests && o->budget <= 0;
    struct inputs in;
    struct result r;
    unsigned count = o->count;
    int rc = 2;

    if (read_inputs(o, &in, !streamed, d) != 0)
        goto done_inputs;
    if (result_init(&r, o, format == SHARDPLAN_JSON, streamed ? NULL : in.ts.text) != 0)
        goto oom;
    r.timed = in.have_durations;
    if (streamed) {
        if (result_shards(&r, count) != 0)
            goto oom;
        if (assign_streamed(o, &r, in.have_durations ? &in.dur : NULL, d) != 0)
            goto done;
    } else {
        fill_seconds(&in.ts, &in.dur, &r);
        if (answer_budget(o, &r, &in.ts, &count) != 0 ||
            assign_listed(&r, &in.ts, count, o->budget - o->overhead) != 0)
            goto oom;
    }
    if (result_prove(&r) != 0)
        goto oom;
    if (times_overflow(&r, o, d))
        goto done;
    if (format == SHARDPLAN_JSON) {
        if (write_json(&r, out) != 0)
            goto oom;
    } else if (format == SHARDPLAN_MARKDOWN) {
        write_markdown(&r, out);
    } else {
        write_text(&r, out, o->color);
    }
    report_budget(&r, o, d);
    rc = exit_code(&r);
    goto done;
oom:
    diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_IO,
                "out of memory or temporary space");
done:
    result_free(&r);
done_inputs:
    inputs_free(&in);
    return rc;
}

int shardplan_plan(const struct assign_opts *o, FILE *out, struct diag *d)
{
    struct assign_opts lpt = *o;
    struct inputs in;
    struct result r;
    const struct list_rec *l;
    char *id = NULL;
    unsigned count;
    int rc = 2;

    lpt.algo = ASSIGN_LPT_REGISTRY;
    if (read_inputs(&lpt, &in, true, d) != 0)
        goto done_inputs;
    if (result_init(&r, &lpt, true, in.ts.text) != 0 || !(id = malloc(MAX_ID + 1)))
        goto oom;
    r.timed = in.have_durations;
    fill_seconds(&in.ts, &in.dur, &r);
    if (answer_budget(&lpt, &r, &in.ts, &count) != 0 || assign_listed(&r, &in.ts, count, 0) != 0 ||
        result_prove(&r) != 0 || xsort_finish(r.lists) != 0)
        goto oom;
    if (times_overflow(&r, o, d))
        goto done;
    fprintf(out, "{\"partition_count\": %u, \"partitions\": [", r.count);
    l = xsort_next(r.lists);
    for (unsigned s = 0; s < r.count; s++) {
        fprintf(out, "%s\n  {\"part\": %u, \"items\": [", s ? "," : "", s);
        for (bool first = true; l && l->shard == s; l = xsort_next(r.lists), first = false) {
            const char *t = listed_id(&r, l, id);

            if (!t)
                goto oom;
            fputs(first ? "" : ", ", out);
            diag_write_json_string(out, t);
        }
        fputs("], \"estimated_time\": ", out);
        json_number(out, r.shards[s].seconds);
        fputs("}", out);
    }
    fputs("\n]}\n", out);
    if (xsort_failed(r.lists))
        goto oom;
    report_budget(&r, o, d);
    rc = exit_code(&r);
    goto done;
oom:
    diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_IO, "out of memory or temporary space");
    rc = 2;
done:
    free(id);
    result_free(&r);
done_inputs:
    inputs_free(&in);
    return rc;
}
