#include <stdio.h>
#include <string.h>

#include "fanout/keyindex.h"
#include "unit.h"

struct seen_problems {
    int collisions, dangling;
    size_t sharded, sharded_seq_sum;
    unsigned first_line, again_line;
    char dangling_key[64];
};

static void saw_collision(void *user, const struct keyindex_entry *first,
                          const struct keyindex_entry *again)
{
    struct seen_problems *p = user;

    p->collisions++;
    ck_assert_str_eq(first->key, "step-42");
    p->first_line = first->pos.line;
    p->again_line = again->pos.line;
    ck_assert_str_eq(again->key, "step-42");
}

static void saw_dangling(void *user, const struct keyindex_entry *ref)
{
    struct seen_problems *p = user;

    p->dangling++;
    snprintf(p->dangling_key, sizeof(p->dangling_key), "%s", ref->key);
}

static void saw_sharded(void *user, size_t seq)
{
    struct seen_problems *p = user;

    p->sharded++;
    p->sharded_seq_sum += seq;
}

/* The same answers whatever the budget: everything in memory, or many spilled runs. */
static void run_index(size_t budget)
{
    static const struct keyindex_problems fns = {saw_collision, saw_dangling, saw_sharded};
    struct keyindex *ki = keyindex_create(budget);
    struct seen_problems p = {0};
    char key[64];

    /* A reference before its definition, then 5000 keys, every third one sharded. */
    ck_assert_int_eq(keyindex_reference(ki, "step-4999", 9, (struct ypos){0, 1, 1}), 0);
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(key, sizeof(key), "step-%d", i);

        ck_assert_int_eq(keyindex_define(ki, key, (size_t)n, i % 3 == 0 ? 2 : 0,
                                         (struct ypos){0, (unsigned)i + 10, 1}), 0);
        ck_assert_int_eq(keyindex_reference(ki, key, (size_t)n, (struct ypos){0, (unsigned)i + 10, 5}), 0);
    }
    ck_assert_int_eq(keyindex_define(ki, "step-42", 7, 0, (struct ypos){1, 9999, 9}), 0);
    ck_assert_int_eq(keyindex_reference(ki, "a-key-nobody-defines-which-is-very-long-indeed-and-longer", 57, (struct ypos){0, 3, 3}), 0);
    ck_assert_uint_eq(keyindex_count(ki), 5001);
    ck_assert_int_eq(keyindex_resolve(ki, &fns, &p), 0);
    ck_assert_int_eq(p.collisions, 1);
    ck_assert_uint_eq(p.first_line, 52);
    ck_assert_uint_eq(p.again_line, 9999);
    ck_assert_int_eq(p.dangling, 1);
    ck_assert_str_eq(p.dangling_key, "a-key-nobody-defines-which-is-very-long-indeed-a...");
    /* step-i's reference is the (i + 1)th recorded: 1667 of them name a sharded key */
    ck_assert_uint_eq(p.sharded, 1667);
    ck_assert_uint_eq(p.sharded_seq_sum, 1667 + 3 * (1666 * 1667 / 2));
    /* Pass 2 asks in recording order. */
    ck_assert_uint_eq(keyindex_next_reference(ki), 0); /* step-4999: 4999 % 3 != 0 */
    for (int i = 0; i < 5000; i++)
        ck_assert_uint_eq(keyindex_next_reference(ki), i % 3 == 0 ? 2u : 0u);
    ck_assert_uint_eq(keyindex_next_reference(ki), 0);
    keyindex_destroy(ki);
}

/* A key longer than KEYINDEX_TEXT is shown cut between characters, never inside one:
 * 47 ASCII bytes then 日本 (3 bytes each) cuts after the 47. */
START_TEST(cut_key_stays_utf8)
{
    static const struct keyindex_problems fns = {saw_collision, saw_dangling, saw_sharded};
    struct keyindex *ki = keyindex_create(1u << 20);
    struct seen_problems p = {0};
    char key[64];

    memset(key, 'a', 47);
    memcpy(key + 47, "\xe6\x97\xa5\xe6\x9c\xac", 6);
    ck_assert_int_eq(keyindex_reference(ki, key, 53, (struct ypos){0, 1, 1}), 0);
    ck_assert_int_eq(keyindex_resolve(ki, &fns, &p), 0);
    ck_assert_int_eq(p.dangling, 1);
    memcpy(key + 47, "...", 4);
    ck_assert_str_eq(p.dangling_key, key);
    keyindex_destroy(ki);
}
END_TEST

START_TEST(index_in_memory)
{
    run_index(16u << 20);
}
END_TEST

START_TEST(index_spilled)
{
    run_index(4096);
}
END_TEST

Suite *keyindex_suite(void)
{
    Suite *s = suite_create("keyindex");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, index_in_memory);
    tcase_add_test(tc, index_spilled);
    tcase_add_test(tc, cut_key_stays_utf8);
    suite_add_tcase(s, tc);
    return s;
}
