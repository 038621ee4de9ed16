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

#define DIGEST_MAX 32 /* SHA-256's; MD5's is 16 */
#define WORDS (DIGEST_MAX / 4)

/* A node id's digest. The implementations are fetched once: EVP_Digest with EVP_sha256()
 * looks the implementation up in the provider on every call, which was a third of the
 * time of `shards assign` on a million ids. False when OpenSSL cannot digest (MD5 is
 * refused by a FIPS-mode OpenSSL). */
static bool digest(bool sha, const char *id, size_t len, unsigned char *d, unsigned *dlen)
{
    static EVP_MD *md[2];
    static EVP_MD_CTX *ctx;

    if (!md[sha] && !(md[sha] = EVP_MD_fetch(NULL, sha ? "SHA256" : "MD5", NULL)))
        return false;
    if (!ctx && !(ctx = EVP_MD_CTX_new()))
        return false;
    return EVP_DigestInit_ex2(ctx, md[sha], NULL) && EVP_DigestUpdate(ctx, id, len) &&
           EVP_DigestFinal_ex(ctx, d, dlen);
}

/* The digest as the number the runner reads, in 32-bit words, least significant first:
 * 0.1.2 reads it little-endian (d[0] least significant), 0.1.1 big-endian (its hex
 * digest as a number). Words past the digest are 0. */
static void digest_words(bool sha, const unsigned char *d, unsigned dlen, uint32_t *w)
{
    for (unsigned k = 0; k < WORDS; k++) {
        const unsigned char *b;

        if (4 * k >= dlen) {
            w[k] = 0;
            continue;
        }
        b = sha ? d + 4 * k : d + dlen - 4 - 4 * k;
        w[k] = sha ? (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0]
                   : (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    }
}

/* 2^(32k) mod `shards` for each word k: the number mod `shards` is then the sum of w_k *
 * c_k mod `shards`, one division a digest, as eight terms under 2^32 * `shards` stay
 * under 2^64 (`shards` <= ASSIGN_MAX_SHARDS < 2^29). */
static void word_weights(unsigned shards, uint64_t *c)
{
    c[0] = 1 % shards;
    for (unsigned k = 1; k < WORDS; k++)
        c[k] = (c[k - 1] << 32) % shards;
}

static unsigned words_mod(const uint32_t *w, const uint64_t *c, unsigned shards)
{
    uint64_t sum = 0;

    for (unsigned k = 0; k < WORDS; k++)
        sum += w[k] * c[k];
    return (unsigned)(sum % shards);
}

/* The same for any count below 2^32, by Horner's rule from the most significant word: r <
 * shards, so r * 2^32 + a word cannot overflow (eight divisions). */
static unsigned words_mod_horner(const uint32_t *w, unsigned shards)
{
    uint64_t r = 0;

    for (unsigned k = WORDS; k-- > 0;)
        r = (r << 32 | w[k]) % shards;
    return (unsigned)r;
}

unsigned assign_shard_keyed(enum assign_algo a, const char *id, size_t len, unsigned shards,
                            uint64_t key[2])
{
    /* the weights of the last count asked for: a streamed list asks with one throughout */
    static unsigned weighted;
    static uint64_t c[WORDS];
    unsigned char d[DIGEST_MAX];
    uint32_t w[WORDS];
    unsigned dlen = 0;
    bool sha = a == ASSIGN_PYTEST_SHARD_012;

    if ((!sha && a != ASSIGN_PYTEST_SHARD_011) || shards == 0 || !digest(sha, id, len, d, &dlen))
        return ASSIGN_NOWHERE;
    if (key)
        memcpy(key, d, 2 * sizeof(*key)); /* both digests have 16 bytes or more */
    digest_words(sha, d, dlen, w);
    if (shards > ASSIGN_MAX_SHARDS)
        return words_mod_horner(w, shards);
    if (shards != weighted) {
        word_weights(shards, c);
        weighted = shards;
    }
    return words_mod(w, c, shards);
}

unsigned assign_shard_of(enum assign_algo a, const char *id, size_t len, unsigned shards)
{
    return assign_shard_keyed(a, id, len, shards, NULL);
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

static void bin_sift_down(struct bin *h, size_t n, size_t i)
{
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
 * `seq_now`, seq is the order of assignment (counted in `next`), else it is left for the
 * caller. `h` has room for `shards` bins. */
static void lpt(const struct key *k, size_t n, unsigned shards, bool seq_now, struct bin *h, size_t *next)
{
    size_t i = 0;

    if (seq_now)
        memset(next, 0, shards * sizeof(*next));
    /* While there are empty shards and the tests take time, the lowest empty one is the
     * lightest: test i goes to shard i, and the heap is built once after (the smallest
     * (sum, index) is the same whichever heap holds them). */
    for (; i < n && i < shards && k[i].t->seconds > 0; i++) {
        k[i].t->shard = (unsigned)i;
        if (seq_now)
            k[i].t->seq = next[i]++;
        h[i] = (struct bin){k[i].t->seconds, (unsigned)i};
    }
    for (size_t b = i; b < shards; b++)
        h[b] = (struct bin){0.0, (unsigned)b};
    for (size_t b = shards / 2; i && b-- > 0;)
        bin_sift_down(h, shards, b);
    for (; i < n; i++) {
        struct assign_test *t = k[i].t;

        t->shard = h[0].index;
        if (seq_now)
            t->seq = next[t->shard]++;
        h[0].sum += t->seconds;
        bin_sift_down(h, shards, 0);
    }
}

/* Numbers each shard's tests in array (collection) order, counting in `next`. */
static void seq_in_collection_order(struct assign_test *tests, size_t n, unsigned shards, size_t *next)
{
    memset(next, 0, shards * sizeof(*next));
    for (size_t i = 0; i < n; i++)
        tests[i].seq = next[tests[i].shard]++;
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
static void chunks(struct assign_test *tests, size_t n, unsigned shards)
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
}

/* --- bktec's fallback ------------------------------------------------------------- */

/* `k` sorted by bytes: the i-th to shard i mod N. */
static void round_robin(const struct key *k, size_t n, unsigned shards)
{
    for (size_t i = 0; i < n; i++) {
        k[i].t->shard = (unsigned)(i % shards);
        k[i].t->seq = i / shards;
    }
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

/* --- the entry points ---------------------------------------------------------------- */

/* What an assignment does not need the count for, done once: the order the tests are
 * dealt in, or each id's digest. A budget search tries many counts on it. */
struct assign_prep {
    enum assign_algo algo;
    struct assign_test *tests;
    size_t n;
    struct key *keys;       /* sorted, for the algorithms that deal in an order */
    uint32_t *words;        /* pytest-shard: each id's digest, WORDS words per test */
    struct bin *heap;       /* LPT's bins, and the tests per shard so far: room for */
    size_t *next;
    unsigned room;          /* this many shards, kept from one count to the next */
};

struct assign_prep *assign_prepare(enum assign_algo a, struct assign_test *tests, size_t n)
{
    struct assign_prep *p = calloc(1, sizeof(*p));
    bool sha = a == ASSIGN_PYTEST_SHARD_012;
    bool ok = p != NULL;

    if (!p || a == ASSIGN_CONTIGUOUS || (unsigned)a >= ASSIGN_N_ALGOS) {
        free(p);
        return NULL;
    }
    *p = (struct assign_prep){a, tests, n, NULL, NULL, NULL, NULL, 0};
    switch (a) {
    case ASSIGN_PYTEST_SHARD_012:
    case ASSIGN_PYTEST_SHARD_011:
        ok = (p->words = malloc((n ? n : 1) * WORDS * sizeof(*p->words))) != NULL;
        for (size_t i = 0; ok && i < n; i++) {
            unsigned char d[DIGEST_MAX];
            unsigned dlen;

            if ((ok = digest(sha, tests[i].id, tests[i].len, d, &dlen)))
                digest_words(sha, d, dlen, p->words + i * WORDS);
        }
        break;
    case ASSIGN_SPLIT_LEAST:
        ok = (p->keys = sorted_keys(tests, n, true, least_cmp)) != NULL;
        break;
    case ASSIGN_LPT_LEGACY:
        ok = (p->keys = sorted_keys(tests, n, false, legacy_cmp)) != NULL;
        break;
    case ASSIGN_LPT_REGISTRY:
        ok = (p->keys = sorted_keys(tests, n, false, registry_cmp)) != NULL;
        break;
    case ASSIGN_ROUND_ROBIN:
        ok = (p->keys = sorted_keys(tests, n, false, bytes_cmp)) != NULL;
        break;
    default: /* duration_based_chunks walks the tests in collection order */
        break;
    }
    if (!ok) {
        assign_prep_free(p);
        return NULL;
    }
    return p;
}

void assign_prep_free(struct assign_prep *p)
{
    if (!p)
        return;
    free(p->keys);
    free(p->words);
    free(p->heap);
    free(p->next);
    free(p);
}

/* Every test's shard from its digest's words (a budget search tries many counts). */
static void hash_shards(struct assign_prep *p, unsigned shards)
{
    uint64_t c[WORDS];

    word_weights(shards, c);
    for (size_t i = 0; i < p->n; i++)
        p->tests[i].shard = words_mod(p->words + i * WORDS, c, shards);
}

long assign_prep_run(struct assign_prep *p, unsigned shards)
{
    struct assign_test *t = p->tests;

    if (shards == 0 || shards > ASSIGN_MAX_SHARDS)
        return -1;
    if (shards > p->room) {
        struct bin *heap = realloc(p->heap, shards * sizeof(*heap));
        size_t *next = heap ? realloc(p->next, shards * sizeof(*next)) : NULL;

        if (heap)
            p->heap = heap;
        if (!next)
            return -1;
        p->next = next;
        p->room = shards;
    }
    switch (p->algo) {
    case ASSIGN_PYTEST_SHARD_012:
    case ASSIGN_PYTEST_SHARD_011:
        hash_shards(p, shards);
        seq_in_collection_order(t, p->n, shards, p->next);
        break;
    case ASSIGN_SPLIT_LEAST:
        lpt(p->keys, p->n, shards, false, p->heap, p->next);
        seq_in_collection_order(t, p->n, shards, p->next);
        break;
    case ASSIGN_SPLIT_CHUNKS:
        chunks(t, p->n, shards);
        break;
    case ASSIGN_LPT_LEGACY:
        if (shards > p->n) {
            /* run_suite.py returns no files at all when asked for more partitions */
            for (size_t i = 0; i < p->n; i++) {
                t[i].shard = ASSIGN_NOWHERE;
                t[i].seq = 0;
            }
            break;
        }
        lpt(p->keys, p->n, shards, true, p->heap, p->next);
        break;
    case ASSIGN_LPT_REGISTRY:
        lpt(p->keys, p->n, shards, true, p->heap, p->next);
        break;
    default: /* ASSIGN_ROUND_ROBIN: assign_prepare refuses ci-infra-contiguous */
        round_robin(p->keys, p->n, shards);
        break;
    }
    return (long)shards;
}

long assign_run(enum assign_algo a, struct assign_test *tests, size_t n, unsigned shards,
                double budget)
{
    struct assign_prep *p;
    long rc;

    if (a == ASSIGN_CONTIGUOUS)
        return contiguous(tests, n, shards, budget);
    if (shards == 0 || shards > ASSIGN_MAX_SHARDS || !(p = assign_prepare(a, tests, n)))
        return -1;
    rc = assign_prep_run(p, shards);
    assign_prep_free(p);
    return rc;
}
