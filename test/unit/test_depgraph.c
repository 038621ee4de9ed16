/* depgraph: cycles of the "waits for" graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/depgraph.h"
#include "unit.h"

struct found {
    char text[16][128];
    unsigned lines[16];
    size_t keys[16];
    size_t n;
};

static void collect(void *user, const char *const *keys, size_t n, struct ypos at)
{
    struct found *f = user;
    size_t o = 0;

    for (size_t i = 0; i < n && o < sizeof(f->text[0]) - 1; i++)
        o += (size_t)snprintf(f->text[f->n] + o, sizeof(f->text[0]) - o, "%s%s", i ? ">" : "", keys[i]);
    f->keys[f->n] = n;
    f->lines[f->n++] = at.line;
}

static void add(struct depgraph *g, const char *from, const char *to, unsigned line)
{
    struct ypos pos = {0, line, 1};

    ck_assert_int_eq(depgraph_add(g, from, strlen(from), to, strlen(to), pos), 0);
}

START_TEST(finds_each_cycle_once)
{
    struct depgraph *g = depgraph_create(1 << 16);
    struct found f = {.n = 0};

    add(g, "a", "b", 1);
    add(g, "b", "c", 2);
    add(g, "c", "a", 3); /* a > b > c > a */
    add(g, "d", "d", 4); /* d waits for itself */
    add(g, "e", "a", 5); /* leads into the cycle, is not part of it */
    add(g, "c", "zzz", 6); /* a key with no edges of its own */
    ck_assert_int_eq(depgraph_cycles(g, 100, collect, &f), 2);
    ck_assert_str_eq(f.text[0], "a>b>c>a");
    ck_assert_uint_eq(f.lines[0], 3);
    ck_assert_str_eq(f.text[1], "d>d");
    ck_assert_uint_eq(f.lines[1], 4);
    depgraph_destroy(g);
}
END_TEST

/* Edges that point forward but close no loop (a diamond, a chain) are no cycle; a budget
 * far below the edges makes the record spill to disk and come back whole. */
START_TEST(no_cycle_in_a_dag_spilled)
{
    struct depgraph *g = depgraph_create(4096);
    struct found f = {.n = 0};
    char a[32], b[32];

    for (int i = 0; i < 5000; i++) {
        snprintf(a, sizeof(a), "step-%d", i);
        snprintf(b, sizeof(b), "step-%d", i + 1);
        add(g, a, b, (unsigned)i + 1);
        snprintf(b, sizeof(b), "step-%d", i + 7);
        add(g, a, b, (unsigned)i + 1);
    }
    ck_assert_int_eq(depgraph_cycles(g, 100, collect, &f), 0);
    depgraph_destroy(g);

    g = depgraph_create(4096);
    for (int i = 0; i < 5000; i++) {
        snprintf(a, sizeof(a), "step-%d", i);
        snprintf(b, sizeof(b), "step-%d", (i + 1) % 5000);
        add(g, a, b, (unsigned)i + 1);
    }
    ck_assert_int_eq(depgraph_cycles(g, 100, collect, &f), 1);
    ck_assert_uint_eq(f.keys[0], 5001); /* every step, and the first again */
    depgraph_destroy(g);
}
END_TEST

Suite *depgraph_suite(void)
{
    Suite *s = suite_create("depgraph");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, finds_each_cycle_once);
    tcase_add_test(tc, no_cycle_in_a_dag_spilled);
    suite_add_tcase(s, tc);
    return s;
}
