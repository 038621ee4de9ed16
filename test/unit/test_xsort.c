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

/* Sorts pseudo-random items within `budget` and checks order and completeness. */
static size_t sort_check(size_t budget, uint32_t count)
{
    struct xsort *xs = xsort_create(sizeof(struct item), item_cmp, budget);
    const struct item *it, *prev = NULL;
    struct item last = {0, 0};
    uint32_t x = 12345, seen = 0;
    uint64_t sum_in = 0, sum_out = 0;
    size_t runs;

    ck_assert_ptr_nonnull(xs);
    for (uint32_t i = 0; i < count; i++) {
        struct item in;

        x = x * 1103515245u + 12345u;
        in.key = (x >> 8) % 1000;
        in.seq = i;
        sum_in += in.key * 7919u + in.seq;
        ck_assert_int_eq(xsort_add(xs, &in), 0);
    }
    runs = xsort_runs(xs);
    ck_assert_int_eq(xsort_finish(xs), 0);
    while ((it = xsort_next(xs)) != NULL) {
        if (prev)
            ck_assert_int_lt(item_cmp(&last, it), 0);
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
    ck_assert_uint_eq(sort_check(1u << 20, 1000), 0);
}
END_TEST

START_TEST(spilled_runs)
{
    ck_assert_uint_gt(sort_check(256, 20000), 100);
}
END_TEST

START_TEST(empty)
{
    ck_assert_uint_eq(sort_check(256, 0), 0);
}
END_TEST

Suite *xsort_suite(void)
{
    Suite *s = suite_create("xsort");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, in_memory);
    tcase_add_test(tc, spilled_runs);
    tcase_add_test(tc, empty);
    suite_add_tcase(s, tc);
    return s;
}
