/* assign: which shard runs which test, as each runner decides (include/fanout/assign.h). */
#include "fanout/assign.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

/* ci-infra runtime_shard.py's defaults (MAX_SHARD_SECONDS, MAX_NUMBER_OF_SHARDS) and
 * its fixed number of bisection steps. */
#define CONTIGUOUS_BUDGET 1080.0
#define CONTIGUOUS_MAX_SHARDS 6u
#define CONTIGUOUS_STEPS 60

static const struct assign_algo_info algos[ASSIGN_N_ALGOS] = {
    [ASSIGN_PYTEST_SHARD_012] = {"pytest-shard@0.1.2",
                                 "pytest-shard 0.1.2 --num-shards/--shard-id (SHA-256)",
                                 true, false, 0},
    [ASSIGN_PYTEST_SHARD_011] = {"pytest-shard@0.1.1",
                                 "pytest-shard 0.1.1 and older --num-shards/--shard-id (MD5)",
                                 true, false, 0},
    [ASSIGN_SPLIT_LEAST] = {"pytest-split@least_duration",
                            "pytest-split --splits/--group --splitting-algorithm least_duration",
                            false, true, 1},
    [ASSIGN_SPLIT_CHUNKS] = {"pytest-split@duration_based_chunks",
                             "pytest-split --splits/--group (duration_based_chunks, its default)",
                             false, true, 1},
    [ASSIGN_LPT_LEGACY] = {"sglang-lpt@legacy",
                           "SGLang test/srt/run_suite.py --auto-partition-id/--auto-partition-size",
                           false, true, 0},
    [ASSIGN_LPT_REGISTRY] = {"sglang-lpt@registry",
                             "SGLang test/run_suite.py --auto-partition-id/--auto-partition-size",
                             false, true, 0},
    [ASSIGN_CONTIGUOUS] = {"ci-infra-contiguous",
                           "vLLM ci-infra runtime_shard.py (automatic_shard: true)",
                           false, true, 0},
    [ASSIGN_ROUND_ROBIN] = {"round-robin",
                            "Buildkite test-engine-client (bktec) without its API",
                            false, false, 0},
};

const struct assign_algo_info *assign_algo_info(enum assign_algo a)
{
    return (unsigned)a < ASSIGN_N_ALGOS ? &algos[a] : NULL;
}

int assign_algo_find(const char *name)
{
    for (int i = 0; i < ASSIGN_N_ALGOS; i++)
        if (strcmp(algos[i].name, name) == 0)
            return i;
    return -1;
}

/* --- pytest-shard ------------------------------------------------------------------- */

unsigned assign_shard_of(enum assign_algo a, const char *id, size_t len, unsigned shards)
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned dlen = 0;
    uint64_t r = 0; /* r < shards < 2^32, so r * 256 + 255 cannot overflow */
    bool sha = a == ASSIGN_PYTEST_SHARD_012;

    if ((!sha && a != ASSIGN_PYTEST_SHARD_011) || shards == 0)
        return ASSIGN_NOWHERE;
    if (!EVP_Digest(id, len, d, &dlen, sha ? EVP_sha256() : EVP_md5(), NULL))
        return ASSIGN_NOWHERE; /* e.g. MD5 refused by a FIPS-mode OpenSSL */
    /* 0.1.2 reads the digest little-endian (d[0] least significant), 0.1.1 big-endian
     * (its hex digest as a number): Horner's rule from the most significant byte. */
    for (unsigned i = 0; i < dlen; i++)
        r = (r * 256 + d[sha ? dlen - 1 - i : i]) % shards;
    return (unsigned)r;
}

/* Every test's shard from its id; each shard runs its tests in collection order. */
static long by_hash(enum assign_algo a, struct assign_test *tests, size_t n, unsigned shards)
{
    size_t *next = calloc(shards, sizeof(*next));
    long rc = shards;

    if (!next)
        return -1;
    for (size_t i = 0; i < n && rc > 0; i++) {
        unsigned s = assign_shard_of(a, tests[i].id, tests[i].len, shards);

        if (s == ASSIGN_NOWHERE) {
            rc = -1;
        } else {
            tests[i].shard = s;
            tests[i].seq = next[s]++;
        }
    }
    free(next);
    return rc;
}

/* --- sorting ------------------------------------------------------------------------ */

/* What the whole-list algorithms sort: the test, and the text its ties compare. */
struct key {
    const char *s;
    size_t len;
    struct assign_test *t;
};

/* Python's str order for UTF-8 bytes: bytes first, then the shorter one. */
static int text_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;

    if (c)
        return c;
    return (alen > blen) - (alen < blen);
}

/* Longer first; NaN (no real duration) last, so that qsort sees a total order. */
static int seconds_desc(double a, double b)
{
    if (a > b)
        return -1;
    if (a < b)
        return 1;
    return (a != a) - (b != b);
}

static int order_cmp(const struct key *a, const struct key *b)
{
    return (a->t->order > b->t->order) - (a->t->order < b->t->order);
}

/* pytest-split sorts by str(item), "<Function NAME>": past the shared "<Function " that is
 * NAME followed by '>', so "test_a1" comes before "test_a" ('1' < '>'). */
static int pytest_name_cmp(const struct key *a, const struct key *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->s, b->s, n) : 0;
    unsigned char ca, cb;

    if (c || a->len == b->len)
        return c;
    ca = a->len > n ? (unsigned char)a->s[n] : '>';
    cb = b->len > n ? (unsigned char)b->s[n] : '>';
    if (ca != cb)
        return ca < cb ? -1 : 1;
    return a->len < b->len ? -1 : 1; /* "NAME>" is a prefix of the other */
}

/* least_duration: a stable sort by name, then a stable one by duration descending. */
static int least_cmp(const void *pa, const void *pb)
{
    const struct key *a = pa, *b = pb;
    int c = seconds_desc(a->t->seconds, b->t->seconds);

    if (!c)
        c = pytest_name_cmp(a, b);
    return c ? c : order_cmp(a, b);
}

/* registry: estimate descending, then the path. */
static int registry_cmp(const void *pa, const void *pb)
{
    const struct key *a = pa, *b = pb;
    int c = seconds_desc(a->t->seconds, b->t->seconds);

    if (!c)
        c = text_cmp(a->s, a->len, b->s, b->len);
    return c ? c : order_cmp(a, b);
}

/* legacy: a stable sort by estimate descending. */
static int legacy_cmp(const void *pa, const void *pb)
{
    const struct key *a = pa, *b = pb;
    int c = seconds_desc(a->t->seconds, b->t->seconds);

    return c ? c : order_cmp(a, b);
}

static int bytes_cmp(const void *pa, const void *pb)
{
    const struct key *a = pa, *b = pb;
    int c = text_cmp(a->s, a->len, b->s, b->len);

    return c ? c : order_cmp(a, b);
}

/* pytest's item.name: after the last "::" of the id, but the parameters ("[...]") may
 * hold "::" themselves and the file path a '[', so only the part between the first
 * "::" and the first '[' after it is searched. An id without "::" is its own name. */
static void pytest_name(const char *id, size_t len, const char **name, size_t *nlen)
{
    size_t start = 0, i = 0;

    while (i + 1 < len && !(id[i] == ':' && id[i + 1] == ':'))
        i++;
    for (; i + 1 < len && id[i] != '['; i++) {
        if (id[i] == ':' && id[i + 1] == ':')
            start = i + 2;
    }
    *name = id + start;
    *nlen = len - start;
}

/* The tests sorted by `cmp`; NULL when out of memory. */
static struct key *sorted_keys(struct assign_test *tests, size_t n, bool by_name,
                               int (*cmp)(const void *, const void *))
{
    struct key *k = malloc((n ? n : 1) * sizeof(*k));

    if (!k)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        k[i].t = &tests[i];
        if (by_name) {
            pytest_name(tests[i].id, tests[i].len, &k[i].s, &k[i].len);
        } else {
            k[i].s = tests[i].id;
            k[i].len = tests[i].len;
        }
    }
    qsort(k, n, sizeof(*k), cmp);
    return k;
}

/* --- greedy bins (LPT) ------------------------------------------------------------ */

/* A min-heap of bins keyed (sum, index): the top is the smallest sum, and among equal
 * sums the lowest index, which is what Python's heapq on (sum, i) tuples and
 * `sums.index(min(sums))` both pick. */
struct bin {
    double sum;
    unsigned index;
};

static bool bin_less(const struct bin *a, const struct bin *b)
{
    return a->sum < b->sum || (a->sum == b->sum && a->index < b->index);
}

static void bin_sift_down(struct bin *h, size_t n)
{
    size_t i = 0;

    for (;;) {
        size_t l = 2 * i + 1, m = i;
        struct bin tmp;

        if (l < n && bin_less(&h[l], &h[m]))
            m = l;
        if (l + 1 < n && bin_less(&h[l + 1], &h[m]))
            m = l + 1;
        if (m == i)
            return;
        tmp = h[i];
        h[i] = h[m];
        h[m] = tmp;
        i = m;
    }
}

/* Gives each test in `k`'s order to the bin with the smallest running sum; with
 * `seq_now`, seq is the order of assignment, else it is left for the caller. */
static int lpt(const struct key *k, size_t n, unsigned shards, bool seq_now)
{
    struct bin *h = malloc(shards * sizeof(*h));
    size_t *next = seq_now ? calloc(shards, sizeof(*next)) : NULL;

    if (!h || (seq_now && !next)) {
        free(h);
        free(next);
        return -1;
    }
    for (unsigned i = 0; i < shards; i++)
        h[i] = (struct bin){0.0, i}; /* equal sums in index order: already a heap */
    for (size_t i = 0; i < n; i++) {
        struct assign_test *t = k[i].t;

        t->shard = h[0].index;
        if (seq_now)
            t->seq = next[t->shard]++;
        h[0].sum += t->seconds;
        bin_sift_down(h, shards);
    }
    free(h);
    free(next);
    return 0;
}

/* Numbers each shard's tests in array (collection) order. */
static int seq_in_collection_order(struct assign_test *tests, size_t n, unsigned shards)
{
    size_t *next = calloc(shards, sizeof(*next));

    if (!next)
        return -1;
    for (size_t i = 0; i < n; i++)
        tests[i].seq = next[tests[i].shard]++;
    free(next);
    return 0;
}

static long sorted_lpt(struct assign_test *tests, size_t n, unsigned shards, bool by_name,
                       int (*cmp)(const void *, const void *), bool collection_seq)
{
    struct key *k = sorted_keys(tests, n, by_name, cmp);
    int rc;

    if (!k)
        return -1;
    rc = lpt(k, n, shards, !collection_seq);
    free(k);
    if (rc == 0 && collection_seq)
        rc = seq_in_collection_order(tests, n, shards);
    return rc ? -1 : (long)shards;
}

/* --- pytest-split duration_based_chunks --------------------------------------------- */

/* Python's sum() of floats. Since CPython 3.12 it is Neumaier's compensated sum
 * (Python/bltinmodule.c); 3.11 and older added left to right, which can differ in the
 * last bits. */
static double python_sum(const struct assign_test *tests, size_t n)
{
    double hi = 0.0, lo = 0.0;

    for (size_t i = 0; i < n; i++) {
        double x = tests[i].seconds, t = hi + x;

        if (fabs(hi) >= fabs(x))
            lo += (hi - t) + x;
        else
            lo += (x - t) + hi;
        hi = t;
    }
    /* as CPython: no compensation that is 0 (keeps -0.0) or not finite (inf - inf) */
    if (lo != 0.0 && isfinite(lo))
        hi += lo;
    return hi;
}

/* Walks in collection order and moves to the next group, before adding a test, once the
 * current group's sum has reached total/N. Upstream indexes past the last group when
 * rounding (or zero durations) leave tests over; the last group takes them. */
static long chunks(struct assign_test *tests, size_t n, unsigned shards)
{
    double per_group = python_sum(tests, n) / shards, sum = 0.0;
    unsigned g = 0;
    size_t seq = 0;

    for (size_t i = 0; i < n; i++) {
        if (sum >= per_group && g + 1 < shards) {
            g++;
            sum = 0.0;
            seq = 0;
        }
        tests[i].shard = g;
        tests[i].seq = seq++;
        sum += tests[i].seconds;
    }
    return shards;
}

/* --- bktec's fallback ------------------------------------------------------------- */

static long round_robin(struct assign_test *tests, size_t n, unsigned shards)
{
    struct key *k = sorted_keys(tests, n, false, bytes_cmp);

    if (!k)
        return -1;
    for (size_t i = 0; i < n; i++) {
        k[i].t->shard = (unsigned)(i % shards);
        k[i].t->seq = i / shards;
    }
    free(k);
    return shards;
}

/* --- ci-infra runtime_shard.py ------------------------------------------------------ */

/* Length of the part before the first `sep`, or the whole text. */
static size_t before(const char *s, size_t len, const char *sep)
{
    size_t seplen = strlen(sep);

    for (size_t i = 0; i + seplen <= len; i++)
        if (memcmp(s + i, sep, seplen) == 0)
            return i;
    return len;
}

static bool same_prefix(const struct assign_test *a, const struct assign_test *b,
                        const char *sep)
{
    size_t la = before(a->id, a->len, sep), lb = before(b->id, b->len, sep);

    return la == lb && (la == 0 || memcmp(a->id, b->id, la) == 0);
}

/* The pieces packed: piece p is tests start[p] .. start[p+1]-1, taking secs[p] seconds. */
struct pieces {
    size_t *start;
    double *secs;
    size_t n;
};

static void piece_add(struct pieces *p, size_t start, double secs)
{
    p->start[p->n] = start;
    p->secs[p->n++] = secs;
}

/* runtime_shard.py runs on Python 3.9, whose sum() adds left to right. */
static double sum_left_to_right(const struct assign_test *tests, size_t n)
{
    double s = 0.0;

    for (size_t i = 0; i < n; i++)
        s += tests[i].seconds;
    return s;
}

/* A file unit (tests[0..n-1]) whose time is over the budget, cut as the runner cuts a file
 * it has per-test times for: each function's run of cases ([params] aside) is one piece
 * at the sum of its cases, unless that sum is over the budget: then one per case. */
static void split_unit(struct pieces *p, const struct assign_test *tests, size_t base,
                       size_t n, double budget)
{
    for (size_t i = 0, j; i < n; i = j) {
        double s;

        for (j = i + 1; j < n && same_prefix(&tests[i], &tests[j], "["); j++)
            ;
        s = sum_left_to_right(tests + i, j - i);
        if (s > budget) {
            for (size_t c = i; c < j; c++)
                piece_add(p, base + c, tests[c].seconds);
        } else {
            piece_add(p, base + i, s);
        }
    }
}

/* Greedy fill in order: a new shard when the next piece would take a non-empty one past
 * `limit`. Returns the number of shards; with `shard_of`, says each piece's. */
static size_t fill(const double *secs, size_t n, double limit, unsigned *shard_of)
{
    size_t shards = 1;
    bool empty = true;
    double load = 0.0;

    for (size_t i = 0; i < n; i++) {
        if (!empty && load + secs[i] > limit) {
            shards++;
            load = 0.0;
        }
        if (shard_of)
            shard_of[i] = (unsigned)(shards - 1);
        empty = false;
        load += secs[i];
    }
    return shards;
}

/* The fewest shards within the budget (at most `cap`), then the smallest largest load
 * that fits that many, by 60 halvings of [longest piece, sum]. */
static size_t pack(const double *secs, size_t n, double budget, unsigned cap,
                   unsigned *shard_of)
{
    size_t k = fill(secs, n, budget, NULL);
    double low = secs[0], high = 0.0;

    if (k > cap)
        k = cap;
    for (size_t i = 0; i < n; i++) {
        if (secs[i] > low)
            low = secs[i];
        high += secs[i];
    }
    for (int i = 0; i < CONTIGUOUS_STEPS; i++) {
        double mid = (low + high) / 2;

        if (fill(secs, n, mid, NULL) <= k)
            high = mid;
        else
            low = mid;
    }
    return fill(secs, n, high, shard_of);
}

static long contiguous(struct assign_test *tests, size_t n, unsigned cap, double budget)
{
    struct pieces p = {NULL, NULL, 0};
    unsigned *shard_of = NULL;
    size_t *next = NULL, shards;
    long rc = -1;

    if (n == 0)
        return 1; /* the runner fails on an empty list and runs the step as one job */
    if (!(budget > 0))
        budget = CONTIGUOUS_BUDGET;
    if (cap == 0)
        cap = CONTIGUOUS_MAX_SHARDS;
    p.start = malloc((n + 1) * sizeof(*p.start));
    p.secs = malloc(n * sizeof(*p.secs));
    shard_of = malloc(n * sizeof(*shard_of));
    if (!p.start || !p.secs || !shard_of)
        goto cleanup;
    /* Units: runs of consecutive tests of one file (the id before its first "::"), timed
     * at the sum of their tests. One over the budget is cut (the runner keeps a file of
     * one test whole, which cutting it does too). */
    for (size_t i = 0, j; i < n; i = j) {
        double s;

        for (j = i + 1; j < n && same_prefix(&tests[i], &tests[j], "::"); j++)
            ;
        s = sum_left_to_right(tests + i, j - i);
        if (s / budget > 1.0)
            split_unit(&p, tests + i, i, j - i, budget);
        else
            piece_add(&p, i, s);
    }
    p.start[p.n] = n;
    shards = pack(p.secs, p.n, budget, cap, shard_of);
    if (!(next = calloc(shards, sizeof(*next))))
        goto cleanup;
    for (size_t q = 0; q < p.n; q++) {
        for (size_t i = p.start[q]; i < p.start[q + 1]; i++) {
            tests[i].shard = shard_of[q];
            tests[i].seq = next[shard_of[q]]++;
        }
    }
    rc = (long)shards;
cleanup:
    free(p.start);
    free(p.secs);
    free(shard_of);
    free(next);
    return rc;
}

/* --- the entry point ---------------------------------------------------------------- */

long assign_run(enum assign_algo a, struct assign_test *tests, size_t n, unsigned shards,
                double budget)
{
    if (a == ASSIGN_CONTIGUOUS)
        return contiguous(tests, n, shards, budget);
    if (shards == 0)
        return -1;
    switch (a) {
    case ASSIGN_PYTEST_SHARD_012:
    case ASSIGN_PYTEST_SHARD_011:
        return by_hash(a, tests, n, shards);
    case ASSIGN_SPLIT_LEAST:
        return sorted_lpt(tests, n, shards, true, least_cmp, true);
    case ASSIGN_SPLIT_CHUNKS:
        return chunks(tests, n, shards);
    case ASSIGN_LPT_LEGACY:
        if (shards > n) {
            /* run_suite.py returns no files at all when asked for more partitions */
            for (size_t i = 0; i < n; i++) {
                tests[i].shard = ASSIGN_NOWHERE;
                tests[i].seq = 0;
            }
            return shards;
        }
        return sorted_lpt(tests, n, shards, false, legacy_cmp, false);
    case ASSIGN_LPT_REGISTRY:
        return sorted_lpt(tests, n, shards, false, registry_cmp, false);
    case ASSIGN_ROUND_ROBIN:
        return round_robin(tests, n, shards);
    default:
        return -1;
    }
}
