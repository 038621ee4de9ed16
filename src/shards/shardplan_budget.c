/* shardplan_budget: "how many shards fit a budget": the fewest shards each algorithm
 * (and LPT, for comparison) needs so that no shard takes longer than the budget, found
 * by a search over the count, and why a budget cannot be met. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shardplan_internal.h"

/* A budget search tries counts one by one while that places at most this many tests in
 * all, then bisects: exact for the lists people have, O(n log n) for any. */
#define MAX_LINEAR_WORK 1000000u

/* Why the budget is not met, into `buf`; false when it is (or there is none). */
bool sp_budget_unmet(const struct result *r, char *buf, size_t cap)
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
    else if (sp_makespan(r) <= r->budget + 1e-9)
        return false;
    else if (!r->need && r->searched_to)
        snprintf(buf, cap, "%s fits in no count up to %u (%u shards take %.1f s)",
                 assign_algo_info(r->algo)->name, r->searched_to, r->count, sp_makespan(r));
    else
        snprintf(buf, cap, "%u shards take %.1f s", r->count, sp_makespan(r));
    return true;
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

/* The fewest shards from `lo` to `hi` whose tests fit in `avail` seconds each, for the
 * algorithm `p` prepared (NULL: ci-infra-contiguous, which chooses its count itself)
 * (0: none does; -1: out of memory). Counts are tried one by one while that places at
 * most MAX_LINEAR_WORK tests; past that from `sure` (a count known to fit, or 0) or by
 * a step that doubles until a count fits, then bisection finds one whose predecessor
 * does not (neither hashing nor LPT is monotone in the count, so a smaller one may fit
 * by chance). Each try is one O(n log n) assignment at most: the sort or the digests
 * are done once. */
static long fewest_shards(struct assign_prep *p, struct tests *ts, unsigned lo, unsigned hi, unsigned sure,
                          double avail, unsigned max_shards)
{
    size_t linear = ts->n ? MAX_LINEAR_WORK / ts->n : 0;
    unsigned bad, good = 0, step;
    double *sums;
    int f = 0;

    if (!ts->n) /* nothing to run fits anywhere */
        return 1;
    if (!p) { /* ci-infra-contiguous chooses its count from the budget itself */
        long found = assign_run(ASSIGN_CONTIGUOUS, ts->t, ts->n, max_shards, avail);

        if (found <= 0 || !(sums = malloc((size_t)found * sizeof(*sums))))
            return -1;
        if (assignment_span(ts->t, ts->n, (unsigned)found, sums) > avail + 1e-9)
            found = 0;
        free(sums);
        return found;
    }
    if (!(sums = malloc((size_t)hi * sizeof(*sums))))
        return -1;
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
    free(sums);
    return f < 0 ? -1 : (long)good;
}

/* Does the algorithm give each test to the lightest shard (LPT and pytest-split's
 * least_duration)? */
static bool lightest_first(enum assign_algo a)
{
    return a == ASSIGN_LPT_REGISTRY || a == ASSIGN_LPT_LEGACY || a == ASSIGN_SPLIT_LEAST;
}

/* The budget's answers (r->least, r->need, r->need_lpt) and the count to report at:
 * -n, else the fewest that fit, else the bound (at most one shard per test). */
int sp_answer_budget(const struct assign_opts *o, struct result *r, struct tests *ts, struct assign_prep *p,
                     unsigned *count)
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
        struct assign_prep *lpt = r->algo == ASSIGN_LPT_REGISTRY ? NULL
                                                                 : assign_prepare(ASSIGN_LPT_REGISTRY, ts->t, ts->n);

        r->need = fewest_shards(p, ts, lo, r->searched_to, lightest_first(r->algo) ? sure : 0, avail, o->count);
        r->need_lpt = r->algo == ASSIGN_LPT_REGISTRY ? r->need
                      : lpt                          ? fewest_shards(lpt, ts, lo, r->searched_to, sure, avail, o->count)
                                                     : -1;
        assign_prep_free(lpt);
        if (r->need < 0 || r->need_lpt < 0)
            return -1;
    }
    if (!*count)
        *count = r->need > 0 ? (unsigned)r->need : (unsigned)fmin(r->least, most);
    return 0;
}
