/* shardplan: shards assign and plan (include/fanout/shardplan.h): the tests assigned,
 * streamed one at a time (per-test algorithms) or in memory, each shard's time
 * predicted, the assignment proved (each test in exactly one shard, through an external
 * sort of id hashes), then reported. */
#include "fanout/scratch.h"
#include "fanout/shardplan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/assign.h"
#include "fanout/strhash.h"
#include "fanout/xsort.h"

#include "shardplan_internal.h"

#define SPOOL_BUDGET (4u << 20) /* assignment records in memory before they spill */

/* Signs of a parametrize id that changes from run to run (a memory address, a set or
 * dict repr, a float repr, an object repr): pytest-shard then puts the test in another
 * shard on each machine. */
#define UNSTABLE_RE "0x[0-9a-fA-F]{6,}|object at |[{}]|\\d\\.\\d{7,}|<[^>]*>"

static int list_rec_cmp(const void *a, const void *b)
{
    const struct list_rec *x = a, *y = b;

    if (x->shard != y->shard)
        return x->shard < y->shard ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* (shard, seq) in one word, seq held at 2^32 - 1 past it (a streamed list of more ids
 * than that ties there and list_rec_cmp decides) */
static uint64_t list_rec_key(const void *a)
{
    const struct list_rec *x = a;

    return (uint64_t)x->shard << 32 | (x->seq < UINT32_MAX ? x->seq : UINT32_MAX);
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

static uint64_t proof_rec_key(const void *a)
{
    return ((const struct proof_rec *)a)->h1;
}

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
    if (!r->proof || xsort_set_key(r->proof, proof_rec_key) != 0)
        return -1;
    r->unstable_re = pcre2_compile((PCRE2_SPTR)UNSTABLE_RE, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code, &at, NULL);
    if (r->unstable_re)
        pcre2_jit_compile(r->unstable_re, PCRE2_JIT_COMPLETE);
    r->unstable_md = r->unstable_re ? pcre2_match_data_create_from_pattern(r->unstable_re, NULL) : NULL;
    if (lists) {
        r->lists = xsort_create(sizeof(struct list_rec), list_rec_cmp, SPOOL_BUDGET);
        if (!r->lists || xsort_set_key(r->lists, list_rec_key) != 0)
            return -1;
        r->text = text;
        r->spool = text ? NULL : scratch_file();
    }
    return r->unstable_md && (!lists || text || r->spool) ? 0 : -1;
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
 * (ASSIGN_NOWHERE: none). `key` tells ids apart; every test of a run gets its key the
 * same way. */
static int result_add(struct result *r, const char *id, size_t len, unsigned shard, size_t seq,
                      double seconds, const uint64_t *key)
{
    struct proof_rec p;
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

double sp_shard_time(const struct result *r, unsigned s)
{
    return r->overhead + r->shards[s].seconds + (double)r->shards[s].untimed * r->mean_fill;
}

double sp_makespan(const struct result *r)
{
    double m = 0;

    for (unsigned s = 0; s < r->count; s++)
        if (sp_shard_time(r, s) > m)
            m = sp_shard_time(r, s);
    return m;
}

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
    if (st->dur)
        strhash_pair(st->buf, pl + len, &key[0], &key[1]);
    slot = st->dur ? sp_dur_find(st->dur, key) : NULL;
    if (slot && slot->used) {
        seconds = slot->seconds;
        st->known_sum += seconds;
        st->known_max = seconds > st->known_max ? seconds : st->known_max;
        st->known++;
    }
    shard = assign_shard_keyed(st->r->algo, st->buf, pl + len, st->r->count, key);
    if (result_add(st->r, st->buf, pl + len, shard, st->r->collected, seconds, key) != 0)
        return sp_input_error(st->d, "fanout", 0, "out of memory or temporary space");
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
        return sp_input_error(d, "fanout", 0, "out of memory");
    if (pl)
        memcpy(st.buf, o->prefix, pl);
    rc = sp_each_test(o->tests, on_streamed, &st, d);
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
        const struct dslot *s = sp_dur_find(dur, ts->keys[i]);

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

/* The in-memory tests timed, the count chosen (-n, or the budget's search) and the tests
 * assigned into it and recorded. The algorithm is prepared (sorted, or each id digested)
 * once for the search and the assignment. -1 when out of memory. */
static int assign_in_memory(const struct assign_opts *o, struct result *r, struct tests *ts,
                            const struct durations *dur)
{
    struct assign_prep *p = NULL;
    unsigned count;
    long got;
    int rc = -1;

    fill_seconds(ts, dur, r);
    if (r->algo != ASSIGN_CONTIGUOUS && !(p = assign_prepare(r->algo, ts->t, ts->n)))
        return -1;
    if (sp_answer_budget(o, r, ts, p, &count) != 0)
        goto done;
    /* ci-infra-contiguous chooses its own count */
    got = p ? assign_prep_run(p, count) : assign_run(r->algo, ts->t, ts->n, count, o->budget - o->overhead);
    if (got < 0 || result_shards(r, (unsigned)got) != 0)
        goto done;
    for (size_t i = 0; i < ts->n; i++)
        if (result_add(r, ts->t[i].id, ts->t[i].len, ts->t[i].shard, ts->t[i].seq, ts->t[i].seconds,
                       ts->keys[i]) != 0)
            goto done;
    rc = 0;
done:
    assign_prep_free(p);
    return rc;
}

/* Durations near the largest double add up to infinity, which no report can show: an
 * input error (reported), before anything is written. */
static bool times_overflow(const struct result *r, const struct assign_opts *o, struct diag *d)
{
    double sum = r->overhead + r->total;

    for (unsigned s = 0; s < r->count; s++)
        sum += sp_shard_time(r, s);
    if (isfinite(sum))
        return false;
    sp_input_error(d, o->durations ? o->durations : "fanout", 0,
                   "the durations (and overhead) add up to more than a number of seconds can hold");
    return true;
}

static int exit_code(const struct result *r)
{
    char why[1024];

    return r->covered != r->collected || r->overlaps || sp_budget_unmet(r, why, sizeof(why)) ? 1 : 0;
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

    if (sp_read_inputs(o, &in, !streamed, d) != 0)
        goto done_inputs;
    if (result_init(&r, o, format == SHARDPLAN_JSON, streamed ? NULL : in.ts.text) != 0)
        goto oom;
    r.timed = in.have_durations;
    if (streamed) {
        if (result_shards(&r, count) != 0)
            goto oom;
        if (assign_streamed(o, &r, in.have_durations ? &in.dur : NULL, d) != 0)
            goto done;
    } else if (assign_in_memory(o, &r, &in.ts, &in.dur) != 0) {
        goto oom;
    }
    if (result_prove(&r) != 0)
        goto oom;
    if (times_overflow(&r, o, d))
        goto done;
    if (format == SHARDPLAN_JSON) {
        if (sp_write_json(&r, out) != 0)
            goto oom;
    } else if (format == SHARDPLAN_MARKDOWN) {
        sp_write_markdown(&r, out);
    } else {
        sp_write_text(&r, out, o->color);
    }
    sp_report_budget(&r, o, d);
    rc = exit_code(&r);
    goto done;
oom:
    diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_IO,
                "out of memory or temporary space");
done:
    result_free(&r);
done_inputs:
    sp_inputs_free(&in);
    return rc;
}

int shardplan_plan(const struct assign_opts *o, FILE *out, struct diag *d)
{
    struct assign_opts lpt = *o;
    struct inputs in;
    struct result r;
    int rc = 2;

    lpt.algo = ASSIGN_LPT_REGISTRY;
    if (sp_read_inputs(&lpt, &in, true, d) != 0)
        goto done_inputs;
    if (result_init(&r, &lpt, true, in.ts.text) != 0)
        goto oom;
    r.timed = in.have_durations;
    if (assign_in_memory(&lpt, &r, &in.ts, &in.dur) != 0 || result_prove(&r) != 0 || xsort_finish(r.lists) != 0)
        goto oom;
    if (times_overflow(&r, o, d))
        goto done;
    if (sp_write_plan(&r, out) != 0)
        goto oom;
    sp_report_budget(&r, o, d);
    rc = exit_code(&r);
    goto done;
oom:
    diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_IO, "out of memory or temporary space");
    rc = 2;
done:
    result_free(&r);
done_inputs:
    sp_inputs_free(&in);
    return rc;
}
