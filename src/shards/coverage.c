/* coverage: the rule shard-coverage over a rendering's jobs (include/fanout/coverage.h). */
#include "fanout/coverage.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/memo.h"
#include "fanout/text.h"

#define MAX_LISTED 8 /* shards a finding names; the rest are counted */
/* Digits of a flag's number that an unsigned long holds exactly, with room for base + n */
#define NUMBER_DIGITS (ULONG_MAX > 0xffffffffUL ? 18 : 9)

/* The hits kept of an item's texts (coverage.scans): a text's hits are a few of its
 * bytes, so this bounds nothing a real item reaches. */
#define SCANS_MAX (16u << 20)

enum vkind { V_ABSENT, V_NUMBER, V_HUGE, V_UNSET, V_UNKNOWN };

/* A flag's value in one job, resolved. */
struct value {
    enum vkind kind;
    unsigned long n;
    size_t flag, flag_len; /* as written: kept text (keep_text) */
    struct ypos at; /* where the flag is written (its text's position when that moved) */
};

struct hit {
    size_t job;
    unsigned runner, slot; /* the slot-th use of the runner's flags in the job */
    struct value count, index;
};

/* What a check needs of a job, copied: a fan-out's jobs may come from several items
 * (a rendering rendered again has one item per job) whose trees are gone by its end. */
struct job {
    struct ypos pos;
    size_t id, id_len; /* kept text (keep_text) */
    unsigned part, parts;
    bool parallel;
    /* a matrix configuration's values by vector name: cells[row .. row + n_row), else
     * n_row 0 */
    size_t row, n_row;
};

/* A matrix vector's name and value in a job, as kept text (keep_text): a strndup of
 * each, and their arrays, were a tenth of the rule's cost. */
struct cell {
    size_t name, value;
};

/* The jobs of one fan-out (or one job alone) and the flags they carry, kept across the
 * items of a run until the fan-out ends. */
struct coverage {
    struct shardflags *flags;
    const struct dialect *dl;
    struct diag *d;
    const char *const *files;
    struct job *jobs;
    size_t n_jobs, cap_jobs;
    struct hit *hits;
    size_t n_hits, cap_hits;
    unsigned *uses; /* per runner: uses in the job being scanned */
    /* The texts a group's checks show, one after the other (a strndup and a free of each
     * were a tenth of the rule); emptied with the group. */
    char *texts;
    size_t n_texts, cap_texts;
    struct cell *cells; /* the jobs' rows, emptied with the group */
    size_t n_cells, cap_cells;
    /* A check's arrays of n_jobs entries, kept from group to group (allocating them for
     * each check was another tenth) */
    const struct hit **per_job;
    size_t *members, *leader; /* leader: each job's first job of its combination */
    unsigned long *idx, *twice, *range;
    size_t cap_scratch;
    /* In a matrix configuration (dialect_job.row), the hits found in each text, by its
     * node, for the item's other configurations that share it (coverage_item_end
     * forgets them); `scanned`: the hits of the text being scanned */
    struct memo *scans;
    bool remember;
    struct shardflags_hit *scanned;
    size_t n_scanned, cap_scanned;
    const struct ynode *text; /* being scanned */
    signed char text_lines;   /* whether it holds a newline: -1 not looked at yet (flag_pos) */
    unsigned runner, slot; /* being checked */
    bool failed;
};


/* Room for `need` bytes of kept texts; false when out of memory. Apart from keep_text,
 * which is inlined where flags are read: the growth there cost that path its registers
 * (+1M instructions on a matrix workflow). */
static __attribute__((noinline)) bool texts_fit(struct coverage *c, size_t need)
{
    char *q = array_grow(c->texts, &c->cap_texts, need, 256, 1);

    if (!q)
        return false;
    c->texts = q;
    return true;
}

/* Keeps s[0..len) for the group's checks; false when out of memory. */
static bool keep_text(struct coverage *c, const char *s, size_t len, size_t *at)
{
    if (c->cap_texts - c->n_texts <= len && !texts_fit(c, c->n_texts + len + 1))
        return false;
    memcpy(c->texts + c->n_texts, s, len);
    c->texts[c->n_texts + len] = '\0';
    *at = c->n_texts;
    c->n_texts += len + 1;
    return true;
}

static const char *kept(const struct coverage *c, size_t at)
{
    return c->texts + at;
}

/* Gives the check arrays room for n entries each. */
static bool scratch_fit(struct coverage *c, size_t n)
{
    size_t cap = c->cap_scratch ? c->cap_scratch : 16;
    void *p[6];

    if (n <= c->cap_scratch)
        return true;
    while (cap < n)
        cap *= 2;
    if ((p[0] = realloc(c->per_job, cap * sizeof(*c->per_job))) != NULL)
        c->per_job = p[0];
    if ((p[1] = realloc(c->members, cap * sizeof(*c->members))) != NULL)
        c->members = p[1];
    if ((p[2] = realloc(c->idx, cap * sizeof(*c->idx))) != NULL)
        c->idx = p[2];
    if ((p[3] = realloc(c->twice, cap * sizeof(*c->twice))) != NULL)
        c->twice = p[3];
    if ((p[4] = realloc(c->range, cap * sizeof(*c->range))) != NULL)
        c->range = p[4];
    if ((p[5] = realloc(c->leader, cap * sizeof(*c->leader))) != NULL)
        c->leader = p[5];
    if (!p[0] || !p[1] || !p[2] || !p[3] || !p[4] || !p[5])
        return false;
    c->cap_scratch = cap;
    return true;
}

/* `$NAME`, `$$NAME`, `${NAME}` or `$${NAME}` */
static bool names_variable(const char *v, size_t len, const char *name)
{
    size_t nl = name ? strlen(name) : 0;

    if (!nl || !len || v[0] != '$')
        return false;
    v++, len--;
    if (len && v[0] == '$')
        v++, len--;
    if (len == nl + 2 && v[0] == '{' && v[len - 1] == '}')
        v++, len -= 2;
    return len == nl && !memcmp(v, name, nl);
}

/* Where `flag` (in the text being scanned) is written: exactly in a scalar as written; at
 * its scalar's start in one rewritten on one line; at the job in a block of lines, whose
 * start is no line of it. */
static struct ypos flag_pos(struct coverage *c, const struct job *j, const char *flag)
{
    size_t len;
    const char *t = ynode_scalar(c->text, &len);

    if (!c->text->verbatim && c->text_lines < 0) /* looked at once for a text's flags */
        c->text_lines = memchr(t, '\n', len) != NULL;
    if (c->text->verbatim || !c->text_lines)
        return ynode_text_pos(c->text, (size_t)(flag - t));
    return j->pos;
}

/* Whether v[0..len) is digits only (strspn built a table of its set for each call). */
static bool all_digits(const char *v, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (v[i] < '0' || v[i] > '9')
            return false;
    return true;
}

/* The value of a flag; c->failed when its text could not be kept. */
static struct value resolve(struct coverage *c, const struct job *j, const char *v, size_t len,
                            const char *flag, size_t flag_len, bool is_count)
{
    struct value out = {V_UNKNOWN, 0, 0, flag_len, {0, 0, 0}};
    const char *var = is_count ? c->dl->shard_count_variable : c->dl->shard_index_variable;

    if (!v) {
        out.kind = V_ABSENT;
    } else if (len && all_digits(v, len)) {
        size_t z = 0;

        while (z + 1 < len && v[z] == '0') /* 0004 is 4 to the runners' int() */
            z++;
        out.kind = len - z > NUMBER_DIGITS ? V_HUGE : V_NUMBER;
        for (size_t i = z; out.kind == V_NUMBER && i < len; i++) /* the value ends where the match did */
            out.n = out.n * 10 + (unsigned long)(v[i] - '0');
    }
    else if (names_variable(v, len, var) && j->parallel)
        out.kind = V_NUMBER, out.n = is_count ? j->parts : j->part;
    else if (names_variable(v, len, var))
        out.kind = V_UNSET;
    if (v && !keep_text(c, flag, flag_len, &out.flag))
        c->failed = true;
    if (v)
        out.at = flag_pos(c, j, flag);
    return out;
}

static int on_hit(void *user, const struct shardflags_hit *h)
{
    struct coverage *c = user;
    const struct job *j = &c->jobs[c->n_jobs - 1];
    struct hit *x;

    if (c->n_hits == c->cap_hits) {
        struct hit *hits = array_grow(c->hits, &c->cap_hits, c->n_hits + 1, 16, sizeof(*hits));

        if (!hits)
            return -1;
        c->hits = hits;
    }
    x = &c->hits[c->n_hits++];
    x->job = c->n_jobs - 1;
    x->runner = h->runner;
    x->slot = c->uses[h->runner]++;
    x->count = resolve(c, j, h->count, h->count_len, h->count_flag, h->count_flag_len, true);
    x->index = resolve(c, j, h->index, h->index_len, h->index_flag, h->index_flag_len, false);
    return c->failed ? -1 : 0;
}

/* on_hit, the hit kept for the text's node */
static int on_hit_kept(void *user, const struct shardflags_hit *h)
{
    struct coverage *c = user;

    if (c->n_scanned == c->cap_scanned) {
        struct shardflags_hit *hits = array_grow(c->scanned, &c->cap_scanned, c->n_scanned + 1, 4, sizeof(*hits));

        if (!hits)
            return -1;
        c->scanned = hits;
    }
    c->scanned[c->n_scanned++] = *h;
    return on_hit(user, h);
}

/* The text's hits: found again when the text's node was scanned before in the item
 * (its hits point into its text, which the node keeps). */
static int on_text(void *user, const struct ynode *text)
{
    struct coverage *c = user;
    size_t len, kept_len;
    const char *t = ynode_scalar(text, &len);
    const void *hits;

    c->text = text;
    c->text_lines = -1;
    if (!t)
        return 0;
    if (!c->remember)
        return shardflags_scan(c->flags, t, len, on_hit, c);
    if (memo_find(c->scans, text, 0, &hits, &kept_len)) {
        for (size_t i = 0; i < kept_len / sizeof(struct shardflags_hit); i++) {
            struct shardflags_hit h;

            memcpy(&h, (const char *)hits + i * sizeof(h), sizeof(h)); /* kept byte-aligned */
            if (on_hit(c, &h) != 0)
                return -1;
        }
        return 0;
    }
    c->n_scanned = 0;
    if (shardflags_scan(c->flags, t, len, on_hit_kept, c) != 0)
        return -1;
    memo_keep(c->scans, text, 0, c->scanned, c->n_scanned * sizeof(*c->scanned));
    return 0;
}

/* ---- a finding's text ---- */

/* Declared without an initializer, `len` set: one zeroed its kilobyte for every check. */
struct text {
    size_t len;
    char buf[1024];
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (t->len >= sizeof(t->buf))
        return;
    va_start(ap, fmt);
    n = vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
    va_end(ap);
    t->len = n < 0 ? t->len : t->len + (size_t)n > sizeof(t->buf) ? sizeof(t->buf) : t->len + (size_t)n;
}

/* put(t, "%s", s) without vsnprintf (a combination's text is made for every job). */
static void put_str(struct text *t, const char *s)
{
    t->len = text_append(t->buf, sizeof(t->buf), t->len, s);
}

static void report_at(struct coverage *c, struct ypos p, enum diag_severity sev, const struct text *t)
{
    diag_at(c->d, sev, DIAG_FINDING, c->files, p, RULE_SHARD_COVERAGE, "%s", t->buf);
}

/* At the fan-out's first job (a problem of no one flag). */
static void report(struct coverage *c, enum diag_severity sev, const struct text *t)
{
    report_at(c, c->jobs[0].pos, sev, t);
}

static void put_combination(struct text *t, const struct coverage *c, const struct job *j, const char *skip);

/* "<id>: " and, when the step's jobs are checked in several combinations, " (<combo>)":
 * the values of job `combo` but the partition vector */
static void put_name(struct text *t, const struct coverage *c, const struct job *combo, const char *vector)
{
    put(t, "%.*s", (int)c->jobs[0].id_len, kept(c, c->jobs[0].id));
    if (combo) {
        put_str(t, " (");
        put_combination(t, c, combo, vector);
        put_str(t, ")");
    }
    if (c->slot)
        put(t, " (%s's flags, use %u)", shardflags_name(c->flags, c->runner), c->slot + 1);
    put(t, ": ");
}

/* ", "-separated numbers, at most MAX_LISTED of them and how many more */
static void put_numbers(struct text *t, const unsigned long *v, size_t n)
{
    for (size_t i = 0; i < n && i < MAX_LISTED; i++)
        put(t, "%s%lu", i ? ", " : "", v[i]);
    if (n > MAX_LISTED)
        put(t, " and %zu more", n - MAX_LISTED);
}

/* The indices [from, to) never run: counted, the first MAX_LISTED + 1 kept. */
static void add_gap(unsigned long *missing, size_t *n, unsigned long from, unsigned long to)
{
    for (unsigned long g = from; g < to; g++) {
        if (*n > MAX_LISTED) {
            *n += (size_t)(to - g);
            return;
        }
        missing[(*n)++] = g;
    }
}

static int cmp_ulong(const void *a, const void *b)
{
    unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

    return x < y ? -1 : x > y;
}

/* ---- the checks ---- */

static const char *row_name(const struct coverage *c, const struct job *j, size_t k)
{
    return kept(c, c->cells[j->row + k].name);
}

static const char *row_value(const struct coverage *c, const struct job *j, const char *name)
{
    for (size_t k = 0; k < j->n_row; k++)
        if (!strcmp(row_name(c, j, k), name))
            return kept(c, c->cells[j->row + k].value);
    return NULL;
}

/* Whether v is n in decimal, as "%lu" writes it (an snprintf for each job was a
 * twentieth of the rule's cost). */
static bool shows_number(const char *v, unsigned long n)
{
    char buf[24], *p = buf + sizeof(buf) - 1;

    *p = '\0';
    do
        *--p = (char)('0' + n % 10);
    while ((n /= 10) != 0);
    return !strcmp(v, p);
}

/* The vector of the matrix the index comes from: the one whose value is the index in
 * every job (`--partition-id ${{ matrix.part }}` folded), or NULL. */
static const char *partition_vector(const struct coverage *c, const struct hit *const *per_job)
{
    for (size_t k = 0; k < c->jobs[0].n_row; k++) {
        const char *name = row_name(c, &c->jobs[0], k);
        size_t j = 0;

        for (; j < c->n_jobs; j++) {
            const char *v = row_value(c, &c->jobs[j], name);

            if (!v || !shows_number(v, per_job[j]->index.n))
                break;
        }
        if (j == c->n_jobs)
            return name;
    }
    return NULL;
}

/* A job's values of the matrix's vectors other than `skip`, as "a=x b=y". */
static void put_combination(struct text *t, const struct coverage *c, const struct job *j, const char *skip)
{
    bool first = true;

    for (size_t k = 0; k < j->n_row; k++)
        if (!skip || strcmp(row_name(c, j, k), skip) != 0) {
            put_str(t, first ? "" : " ");
            put_str(t, row_name(c, j, k));
            put_str(t, "=");
            put_str(t, kept(c, c->cells[j->row + k].value));
            first = false;
        }
}

/* The next of a job's cells from k on that is not vector `skip`'s: its index, or n_row. */
static size_t next_cell(const struct coverage *c, const struct job *j, size_t k, const char *skip)
{
    while (k < j->n_row && skip && !strcmp(row_name(c, j, k), skip))
        k++;
    return k;
}

/* Whether two jobs have the same values of the matrix's vectors other than `skip`, in
 * the same order: a cell at a time (texts of each job's whole combination were a
 * strdup a job and a slot, a sixth of the rule's cost on a matrix workflow). */
static bool same_combination(const struct coverage *c, const struct job *a, const struct job *b,
                             const char *skip)
{
    size_t i = next_cell(c, a, 0, skip), k = next_cell(c, b, 0, skip);

    for (; i < a->n_row && k < b->n_row; i = next_cell(c, a, i + 1, skip), k = next_cell(c, b, k + 1, skip))
        if (strcmp(row_name(c, a, i), row_name(c, b, k)) != 0 ||
            strcmp(kept(c, c->cells[a->row + i].value), kept(c, c->cells[b->row + k].value)) != 0)
            return false;
    return i == a->n_row && k == b->n_row;
}

/* Whether the sorted indexes `idx` (m of them, each of the n a runner's count makes) are
 * whole copies of the split, each index as often as the others, in jobs whose matrix
 * values are not theirs to show (a GitHub matrix call's jobs: the caller's values reach
 * them only through inputs), so that which combination of the caller's other vectors
 * runs which copy cannot be told. */
static bool whole_copies(const struct coverage *c, const size_t *members, const unsigned long *idx, size_t m,
                         unsigned long n, unsigned base)
{
    const struct job *j = &c->jobs[members[0]];

    if (j->parallel || j->n_row || m < 2 || !n || m % n)
        return false;
    for (size_t i = 0; i < m; i++)
        if (idx[i] != base + i / (m / n))
            return false;
    return true;
}

/* One combination's jobs (`members`, m of them): one count, and each index once. */
static void check_set(struct coverage *c, const struct hit *const *per_job, const size_t *members, size_t m,
                      const char *vector, const struct job *combo)
{
    const struct hit *first = per_job[members[0]];
    unsigned base = shardflags_base(c->flags, first->runner);
    const char *noun = shardflags_noun(c->flags, first->runner);
    unsigned long n = first->count.n, *idx = c->idx, missing[MAX_LISTED + 1], *twice = c->twice;
    unsigned long *range = c->range;
    unsigned long next = base; /* the lowest index not yet seen to run */
    size_t n_missing = 0, n_twice = 0, n_range = 0, n_distinct = 0;
    struct text t;

    t.len = 0;
    for (size_t i = 1; i < m; i++) {
        const struct value *v = &per_job[members[i]]->count;

        if (v->n != n) {
            put_name(&t, c, combo, vector);
            put(&t, "jobs disagree on the %s count: %.*s in job %u, %.*s in job %u", noun,
                (int)first->count.flag_len, kept(c, first->count.flag), c->jobs[members[0]].part + 1,
                (int)v->flag_len, kept(c, v->flag), c->jobs[members[i]].part + 1);
            report_at(c, first->count.at, DIAG_ERROR, &t);
            return;
        }
    }
    for (size_t i = 0; i < m; i++)
        idx[i] = per_job[members[i]]->index.n;
    qsort(idx, m, sizeof(*idx), cmp_ulong);
    for (size_t i = 0; i < m; i++) {
        if (idx[i] < base || idx[i] - base >= n) {
            if (!n_range || range[n_range - 1] != idx[i])
                range[n_range++] = idx[i];
        } else if (n_distinct && idx[i] == next - 1) {
            if (!n_twice || twice[n_twice - 1] != idx[i])
                twice[n_twice++] = idx[i];
        } else {
            add_gap(missing, &n_missing, next, idx[i]);
            next = idx[i] + 1;
            n_distinct++;
        }
    }
    add_gap(missing, &n_missing, next, base + n);
    if ((n == m && !n_missing && !n_twice && !n_range) || whole_copies(c, members, idx, m, n, base))
        return;
    put_name(&t, c, combo, vector);
    if (n != m) {
        put(&t, "%.*s but ", (int)first->count.flag_len, kept(c, first->count.flag));
        if (vector)
            put(&t, "matrix %s has %zu value%s", vector, m, m == 1 ? "" : "s");
        else
            put(&t, "%zu job%s", m, m == 1 ? "" : "s");
        put(&t, ": ");
    }
    if (n_missing) {
        put(&t, "%s%s ", noun, n_missing == 1 ? "" : "s");
        put_numbers(&t, missing, n_missing);
        put(&t, " never run%s", n_missing == 1 ? "s" : "");
    }
    if (n_twice) {
        put(&t, "%s%s%s ", n_missing ? "; " : "", noun, n_twice == 1 ? "" : "s");
        put_numbers(&t, twice, n_twice);
        put(&t, " run%s more than once", n_twice == 1 ? "s" : "");
    }
    if (n_range) {
        put(&t, "%s%s%s ", n_missing || n_twice ? "; " : "", noun, n_range == 1 ? "" : "s");
        put_numbers(&t, range, n_range);
        if (n)
            put(&t, " out of range %lu..%lu (the runner fails)", (unsigned long)base, base + n - 1);
        else
            put(&t, " out of range: a count of 0 runs nothing");
    }
    /* at the count when it is wrong, else at the index that repeats or misses shards */
    report_at(c, n != m ? first->count.at : first->index.at, DIAG_ERROR, &t);
}

/* The jobs' first problem with their flags that stops the count check, reported; or
 * false when every job has a count and an index known before the run. */
static bool flags_unusable(struct coverage *c, const struct hit *const *per_job, unsigned runner)
{
    struct text t;
    size_t without = 0, first_without = 0;

    t.len = 0;
    for (size_t j = 0; j < c->n_jobs; j++)
        if (!per_job[j] && !without++)
            first_without = j;
    /* the name goes first into a finding only (vsnprintf was a tenth of the rule's cost) */
    if (without) {
        put_name(&t, c, NULL, NULL);
        put(&t, "%s's flags are in %zu of %zu jobs only (job %zu has none): the split is "
                "incomplete", shardflags_name(c->flags, runner), c->n_jobs - without, c->n_jobs,
            first_without + 1);
        report(c, DIAG_ERROR, &t);
        return true;
    }
    for (size_t j = 0; j < c->n_jobs; j++) {
        const struct value *have = per_job[j]->count.kind == V_ABSENT ? &per_job[j]->index : &per_job[j]->count;

        if (per_job[j]->count.kind != V_ABSENT && per_job[j]->index.kind != V_ABSENT)
            continue;
        put_name(&t, c, NULL, NULL);
        put(&t, "%.*s without the %s %s (%s needs both flags)", (int)have->flag_len, kept(c, have->flag),
            shardflags_noun(c->flags, runner), per_job[j]->count.kind == V_ABSENT ? "count" : "index",
            shardflags_name(c->flags, runner));
        report_at(c, have->at, DIAG_ERROR, &t);
        return true;
    }
    for (size_t j = 0; j < c->n_jobs; j++) {
        const struct value *v = per_job[j]->count.kind == V_HUGE ? &per_job[j]->count : &per_job[j]->index;

        if (v->kind != V_HUGE)
            continue;
        put_name(&t, c, NULL, NULL);
        put(&t, "%.*s is out of range (a %s number of more than %d digits)", (int)v->flag_len, kept(c, v->flag),
            shardflags_noun(c->flags, runner), NUMBER_DIGITS);
        report_at(c, v->at, DIAG_ERROR, &t);
        return true;
    }
    for (size_t j = 0; j < c->n_jobs; j++) {
        const struct value *v = per_job[j]->count.kind == V_NUMBER ? &per_job[j]->index : &per_job[j]->count;

        if (v->kind == V_NUMBER)
            continue;
        put_name(&t, c, NULL, NULL);
        if (v->kind == V_UNSET)
            put(&t, "%.*s but the %s has no %s: the variable is not set", (int)v->flag_len, kept(c, v->flag),
                c->dl->job_noun, c->dl->fanout_field);
        else
            put(&t, "%.*s is only known when the job runs: coverage not verified", (int)v->flag_len,
                kept(c, v->flag));
        report_at(c, v->at, v->kind == V_UNSET ? DIAG_ERROR : DIAG_NOTE, &t);
        return true;
    }
    return false;
}

/* The slot-th use of a runner's flags in every job. */
static void check_slot(struct coverage *c, unsigned runner, unsigned slot)
{
    const struct hit **per_job = c->per_job;
    size_t *members = c->members;
    const char *vector = NULL;
    bool several = false, by_combination = c->jobs[0].n_row > 0;

    memset(per_job, 0, c->n_jobs * sizeof(*per_job));
    c->runner = runner;
    c->slot = slot;
    for (size_t h = 0; h < c->n_hits; h++)
        if (c->hits[h].runner == runner && c->hits[h].slot == slot)
            per_job[c->hits[h].job] = &c->hits[h];
    if (flags_unusable(c, per_job, runner))
        return;
    /* A matrix is checked per combination of its other vectors. Without a partition
     * vector the jobs are one split when they split at all (a hard-coded index), and
     * each runs the whole suite on its own when every count is 1. */
    if (c->jobs[0].n_row && !(vector = partition_vector(c, per_job))) {
        size_t j = 0;

        while (j < c->n_jobs && per_job[j]->count.n == 1)
            j++;
        by_combination = j == c->n_jobs;
    }
    if (!by_combination) {
        for (size_t j = 0; j < c->n_jobs; j++)
            members[j] = j;
        check_set(c, per_job, members, c->n_jobs, NULL, NULL);
        return;
    }
    /* each job compared with the first job of each combination before it */
    for (size_t j = 0; j < c->n_jobs; j++) {
        size_t k = 0;

        while (k < j && (c->leader[k] != k || !same_combination(c, &c->jobs[k], &c->jobs[j], vector)))
            k++;
        c->leader[j] = k;
        several |= k != 0; /* not of job 0's combination */
    }
    for (size_t j = 0; j < c->n_jobs; j++) {
        size_t m = 0;

        if (c->leader[j] != j)
            continue;
        for (size_t k = j; k < c->n_jobs; k++)
            if (c->leader[k] == j)
                members[m++] = k;
        check_set(c, per_job, members, m, vector, several ? &c->jobs[j] : NULL);
    }
}

static void clear_group(struct coverage *c)
{
    c->n_jobs = c->n_hits = c->n_texts = c->n_cells = 0;
}

static void check_group(struct coverage *c)
{
    size_t runners = shardflags_runners(c->flags);

    if (!scratch_fit(c, c->n_jobs)) {
        c->failed = true;
        runners = 0;
    }
    for (unsigned r = 0; r < runners; r++) {
        unsigned slots = 0;

        for (size_t h = 0; h < c->n_hits; h++)
            if (c->hits[h].runner == r && c->hits[h].slot + 1 > slots)
                slots = c->hits[h].slot + 1;
        for (unsigned s = 0; s < slots; s++)
            check_slot(c, r, s);
    }
    clear_group(c);
}

/* Does the job continue the fan-out of the jobs before it? Its jobs come one after
 * the other, numbered from 0: parallel jobs of one count, or configurations of one id
 * (all with their matrix values, or all without: a GitHub matrix call's jobs). */
static bool continues(const struct coverage *c, const struct dialect_job *dj)
{
    const struct job *last = c->n_jobs ? &c->jobs[c->n_jobs - 1] : NULL;

    if (!last || dj->part != last->part + 1)
        return false;
    if (dj->parallel)
        return last->parallel && dj->parts == last->parts;
    return !last->parallel && !dj->row == !last->n_row && dj->id_len == last->id_len &&
           !memcmp(dj->id, kept(c, last->id), dj->id_len);
}

/* Keeps the job's matrix values (a text up to its first NUL, as shown). */
static int copy_row(struct coverage *c, struct job *j, const struct ynode *row)
{
    size_t n = ynode_is_map(row) ? ynode_len(row) : 0;

    j->row = c->n_cells;
    for (size_t k = 0; k < n; k++) {
        size_t nl = 0, vl = 3;
        const char *name = ynode_scalar(ynode_key(row, k), &nl);
        const char *v = ynode_scalar(ynode_value(row, k), &vl);
        struct cell *e;

        if (c->n_cells == c->cap_cells) {
            struct cell *cells = array_grow(c->cells, &c->cap_cells, c->n_cells + 1, 16, sizeof(*cells));

            if (!cells)
                return -1;
            c->cells = cells;
        }
        e = &c->cells[c->n_cells++];
        if (!keep_text(c, name ? name : "", name ? strnlen(name, nl) : 0, &e->name) ||
            !keep_text(c, v ? v : "...", strnlen(v ? v : "...", vl), &e->value))
            return -1;
        j->n_row++;
    }
    return 0;
}

static int on_job(struct coverage *c, const struct dialect_job *dj)
{
    struct job *j;
    size_t hits;

    if (c->n_jobs && !continues(c, dj))
        check_group(c);
    if (c->n_jobs == c->cap_jobs) {
        struct job *jobs = array_grow(c->jobs, &c->cap_jobs, c->n_jobs + 1, 16, sizeof(*jobs));

        if (!jobs)
            return -1;
        c->jobs = jobs;
    }
    j = &c->jobs[c->n_jobs++];
    memset(j, 0, sizeof(*j));
    j->pos = dj->pos;
    j->id_len = dj->id_len;
    j->part = dj->part;
    j->parts = dj->parts;
    j->parallel = dj->parallel;
    hits = c->n_hits;
    memset(c->uses, 0, shardflags_runners(c->flags) * sizeof(*c->uses));
    c->remember = dj->row && (c->scans || (c->scans = memo_create(SCANS_MAX)));
    if (c->dl->each_text(dj->node, on_text, c) != 0 || c->failed)
        return -1;
    /* a job alone without flags has nothing to check: most jobs of most pipelines */
    if (c->n_hits == hits && dj->parts <= 1 && !dj->row) {
        c->n_jobs--;
        return 0;
    }
    return !keep_text(c, dj->id, dj->id_len, &j->id) || copy_row(c, j, dj->row) != 0 ? -1 : 0;
}

struct coverage *coverage_create(struct shardflags *flags, const struct dialect *dl,
                                 struct diag *d, const char *const *files)
{
    struct coverage *c = calloc(1, sizeof(*c));

    if (!c)
        return NULL;
    *c = (struct coverage){.flags = flags, .dl = dl, .d = d, .files = files};
    if (!(c->uses = calloc(shardflags_runners(flags), sizeof(*c->uses)))) {
        free(c);
        return NULL;
    }
    return c;
}

static int failure(struct coverage *c)
{
    diag_report(c->d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_SHARD_COVERAGE,
                "cannot check shard coverage (out of memory, or a shard pattern hit its match limit)");
    return -1;
}

int coverage_job(struct coverage *c, const struct dialect_job *job)
{
    if (on_job(c, job) != 0 || c->failed)
        return failure(c);
    return 0;
}

void coverage_item_end(struct coverage *c)
{
    if (c->scans)
        memo_reset(c->scans);
}

int coverage_finish(struct coverage *c)
{
    if (c->n_jobs)
        check_group(c);
    return c->failed ? failure(c) : 0;
}

void coverage_destroy(struct coverage *c)
{
    if (!c)
        return;
    clear_group(c);
    free(c->uses);
    free(c->texts);
    free(c->cells);
    free(c->per_job);
    free(c->members);
    free(c->leader);
    free(c->idx);
    free(c->twice);
    free(c->range);
    free(c->jobs);
    free(c->hits);
    free(c->scanned);
    memo_destroy(c->scans);
    free(c);
}
