#include <stdint.h>
#include <stdlib.h>

#include "fanout/xsort.h"
#include "unit.h"

struct item {
    uint32_t key, seq;
};

static int item_cmp(const void *pa, const void *pb)
{
    const struct item *a = pa, *b = pb;

    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Keys that order items as item_cmp does first: a coarse one (ten keys to a key, whose
 * ties item_cmp decides) and an exact one whose middle bytes are all zero (a radix pass
 * skipped). */
static uint64_t coarse_key(const void *pa)
{
    return ((const struct item *)pa)->key / 10;
}

static uint64_t exact_key(const void *pa)
{
    const struct item *a = pa;

    return (uint64_t)a->key << 40 | a->seq;
}

/* Sorts pseudo-random items within `budget` (by radix on `key`, or NULL) and checks order
 * and completeness. */
static size_t sort_check(size_t budget, uint32_t count, xsort_key key)
{
    struct xsort *xs = xsort_create(sizeof(struct item), item_cmp, budget);
    const struct item *it, *prev = NULL;
    struct item last = {0, 0};
    uint32_t x = 12345, seen = 0;
    uint64_t sum_in = 0, sum_out = 0;
    size_t runs;

    ck_assert_ptr_nonnull(xs);
    if (key)
        ck_assert_int_eq(xsort_set_key(xs, key), 0);
    for (uint32_t i = 0; i < count; i++) {
        struct item in;

        x = x * 1103515245u + 12345u;
        in.key = (x >> 8) % 1000;
        in.seq = i;
        sum_in += in.key * 7919u + in.seq;
        if (xsort_add(xs, &in) != 0) /* not ck_assert: a write to Check per pass */
            ck_abort_msg("item %u refused", i);
    }
    runs = xsort_runs(xs);
    ck_assert_int_eq(xsort_finish(xs), 0);
    while ((it = xsort_next(xs)) != NULL) {
        if (prev && item_cmp(&last, it) >= 0)
            ck_abort_msg("item %u out of order", seen);
        last = *it;
        prev = &last;
        sum_out += it->key * 7919u + it->seq;
        seen++;
    }
    ck_assert(!xsort_failed(xs));
    ck_assert_uint_eq(seen, count);
    ck_assert_uint_eq(sum_in, sum_out);
    xsort_destroy(xs);
    return runs;
}

START_TEST(in_memory)
{
    ck_assert_uint_eq(sort_check(1u << 20, 1000, NULL), 0);
}
END_TEST

START_TEST(spilled_runs)
{
    ck_assert_uint_gt(sort_check(256, 20000, NULL), 100);
}
END_TEST

START_TEST(empty)
{
    ck_assert_uint_eq(sort_check(256, 0, NULL), 0);
}
END_TEST

/* The same order by radix on a key, ties (and runs spilled to disk) included. */
START_TEST(keyed)
{
    xsort_key keys[] = {coarse_key, exact_key};

    for (size_t k = 0; k < 2; k++) {
        ck_assert_uint_eq(sort_check(1u << 20, 5000, keys[k]), 0);
        ck_assert_uint_gt(sort_check(1024, 20000, keys[k]), 100);
        ck_assert_uint_eq(sort_check(1024, 0, keys[k]), 0);
    }
}
END_TEST

/* Records of 12 bytes (not whole words), many alike: every order a run meets, sorted,
 * reversed, all equal and pseudo-random, in memory and spilled. */
struct triple {
    uint32_t a, b, c;
};

static int triple_cmp(const void *pa, const void *pb)
{
    const struct triple *x = pa, *y = pb;

    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    return x->b < y->b ? -1 : x->b > y->b;
}

START_TEST(orders)
{
    for (int shape = 0; shape < 4; shape++) {
        for (size_t budget = 120; budget <= (1u << 20); budget *= 8738) {
            struct xsort *xs = xsort_create(sizeof(struct triple), triple_cmp, budget);
            struct triple last = {0, 0, 0};
            const struct triple *t;
            uint32_t x = 7, n = 0;
            uint64_t sum = 0;

            for (uint32_t i = 0; i < 3000; i++) {
                struct triple in = {shape == 0 ? i / 3 : shape == 1 ? (3000 - i) / 3 : shape == 2 ? 5 : (x >> 9) % 50,
                                    i % 2, i};

                x = x * 1103515245u + 12345u;
                sum += in.c;
                ck_assert_int_eq(xsort_add(xs, &in), 0);
            }
            ck_assert_int_eq(xsort_finish(xs), 0);
            while ((t = xsort_next(xs)) != NULL) {
                if (n && triple_cmp(&last, t) > 0)
                    ck_abort_msg("shape %d: record %u out of order", shape, n);
                last = *t;
                sum -= t->c;
                n++;
            }
            ck_assert_uint_eq(n, 3000);
            ck_assert_uint_eq(sum, 0);
            xsort_destroy(xs);
        }
    }
}
END_TEST

/* McIlroy's adversary ("A Killer Adversary for Quicksort", 1999): a comparison decides
 * the values it meets as late as it can, so that every pivot is the least; a quicksort
 * takes n^2 / 2 comparisons. A run's sort gives up on quicksort past 2 log2 n levels and
 * heapsorts what is left. The first record is the greatest, decided: the run is out of
 * order from its first pair, which the check for one in order (that would decide them
 * all in order) then sees. */
#define ADVERSARY_N 4000
static uint32_t adv_val[ADVERSARY_N], adv_gas, adv_solid, adv_candidate;
static size_t adv_compares;

static int adversary_cmp(const void *pa, const void *pb)
{
    uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;

    adv_compares++;
    if (adv_val[x] == adv_gas && adv_val[y] == adv_gas)
        adv_val[x == adv_candidate ? x : y] = adv_solid++;
    if (adv_val[x] == adv_gas)
        adv_candidate = x;
    else if (adv_val[y] == adv_gas)
        adv_candidate = y;
    return adv_val[x] < adv_val[y] ? -1 : adv_val[x] > adv_val[y];
}

START_TEST(adversary)
{
    struct xsort *xs = xsort_create(sizeof(uint32_t), adversary_cmp, 1u << 20);
    const uint32_t *p;
    uint32_t last = 0, n = 0;

    adv_gas = ADVERSARY_N;
    adv_solid = adv_candidate = 0;
    adv_compares = 0;
    for (uint32_t i = 0; i < ADVERSARY_N; i++) {
        adv_val[i] = i ? adv_gas : adv_gas + 1;
        ck_assert_int_eq(xsort_add(xs, &i), 0);
    }
    ck_assert_int_eq(xsort_finish(xs), 0);
    while ((p = xsort_next(xs)) != NULL) {
        if (n && adv_val[last] > adv_val[*p])
            ck_abort_msg("record %u out of order", n);
        last = *p;
        n++;
    }
    ck_assert_uint_eq(n, ADVERSARY_N);
    ck_assert_uint_eq(last, 0);
    /* n log2 n is 48,000; quicksort alone took millions */
    ck_assert_uint_lt(adv_compares, 400000);
    xsort_destroy(xs);
}
END_TEST

Suite *xsort_suite(void)
{
    Suite *s = suite_create("xsort");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, in_memory);
    tcase_add_test(tc, spilled_runs);
    tcase_add_test(tc, empty);
    tcase_add_test(tc, keyed);
    tcase_add_test(tc, orders);
    tcase_add_test(tc, adversary);
    suite_add_tcase(s, tc);
    return s;
}
