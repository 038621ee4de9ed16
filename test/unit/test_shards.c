/* shards: shardflags (runners' shard flags found in command texts) and coverage (the
 * rule shard-coverage over the rendered jobs of the real Buildkite and GitHub
 * dialects). Coverage inputs are built as renderings have them: Buildkite steps whose
 * env carries BUILDKITE_PARALLEL_JOB(_COUNT), GitHub configurations `<id>-<index>` with
 * a one-row `strategy.matrix.include`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/coverage.h"
#include "fanout/diag.h"
#include "fanout/dialect.h"
#include "fanout/shardflags.h"
#include "unit.h"

/* The built-in runners, in shardflags' order. */
enum { R_PYTEST_SHARD, R_RUN_SUITE, R_DIFFUSION, R_PYTEST_SPLIT, N_BUILTIN };

/* ---- shardflags ---- */

#define MAX_HITS 16

struct hits {
    size_t n;
    struct shardflags_hit h[MAX_HITS];
    int stop_at; /* return 7 from the stop_at-th call (1-based); 0: never */
};

static int collect(void *user, const struct shardflags_hit *hit)
{
    struct hits *c = user;

    ck_assert_uint_lt(c->n, MAX_HITS);
    c->h[c->n++] = *hit;
    return c->stop_at && (size_t)c->stop_at == c->n ? 7 : 0;
}

/* All hits of `text`, with scan's result checked to be 0. */
static struct hits scan(struct shardflags *f, const char *text)
{
    struct hits c = {.n = 0};

    ck_assert_int_eq(shardflags_scan(f, text, strlen(text), collect, &c), 0);
    return c;
}

/* `p[0..len)` is `want` (NULL: p is NULL). */
static void expect_span(const char *what, const char *p, size_t len, const char *want)
{
    if (!want) {
        ck_assert_msg(p == NULL, "%s: '%.*s', expected none", what, (int)len, p ? p : "");
        return;
    }
    ck_assert_msg(p != NULL, "%s: none, expected '%s'", what, want);
    ck_assert_msg(len == strlen(want) && !memcmp(p, want, len), "%s: '%.*s', expected '%s'",
                  what, (int)len, p, want);
}

static void expect_hit(const struct shardflags_hit *h, unsigned runner, const char *count,
                       const char *index, const char *count_flag, const char *index_flag)
{
    ck_assert_uint_eq(h->runner, runner);
    expect_span("count", h->count, h->count_len, count);
    expect_span("index", h->index, h->index_len, index);
    expect_span("count flag", h->count_flag, h->count_flag_len, count_flag);
    expect_span("index flag", h->index_flag, h->index_flag_len, index_flag);
}

START_TEST(flags_builtin_runners)
{
    static const char *const names[] = {"pytest-shard", "run_suite", "diffusion", "pytest-split"};
    static const char *const nouns[] = {"shard", "partition", "partition", "group"};
    static const unsigned bases[] = {0, 0, 0, 1};
    struct shardflags *f = shardflags_create();

    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(shardflags_runners(f), N_BUILTIN);
    for (unsigned r = 0; r < N_BUILTIN; r++) {
        ck_assert_str_eq(shardflags_name(f, r), names[r]);
        ck_assert_str_eq(shardflags_noun(f, r), nouns[r]);
        ck_assert_uint_eq(shardflags_base(f, r), bases[r]);
    }
    shardflags_destroy(f);
}
END_TEST

/* The built-in runners' patterns are compiled at their first use: a clone made before it
 * and one made after find every runner's flags as the original does. */
START_TEST(flags_compiled_at_first_use)
{
    static const char *const texts[] = {
        "pytest --num-shards=4 --shard-id=1", "python3 run_suite.py --auto-partition-size 2 --auto-partition-id 0",
        "python3 run_suite.py --total-partitions 3 --partition-id 2", "pytest --splits 5 --group 1"};
    struct shardflags *f = shardflags_create();
    struct shardflags *before = shardflags_clone(f), *after;

    ck_assert_ptr_nonnull(before);
    for (unsigned r = 0; r < N_BUILTIN; r++) {
        struct hits c = scan(f, texts[r]);

        ck_assert_uint_eq(c.n, 1);
        ck_assert_uint_eq(c.h[0].runner, r);
    }
    after = shardflags_clone(f);
    ck_assert_ptr_nonnull(after);
    for (unsigned r = 0; r < N_BUILTIN; r++) {
        struct hits b = scan(before, texts[r]), a = scan(after, texts[r]);

        ck_assert_uint_eq(b.n, 1);
        ck_assert_uint_eq(b.h[0].runner, r);
        ck_assert_uint_eq(a.n, 1);
        ck_assert_uint_eq(a.h[0].runner, r);
    }
    shardflags_destroy(before);
    shardflags_destroy(after);
    shardflags_destroy(f);
}
END_TEST

START_TEST(flags_equals_form)
{
    struct shardflags *f = shardflags_create();
    struct hits c = scan(f, "pytest -v -s models --num-shards=4 --shard-id=$$BUILDKITE_PARALLEL_JOB");

    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SHARD, "4", "$$BUILDKITE_PARALLEL_JOB", "--num-shards=4",
               "--shard-id=$$BUILDKITE_PARALLEL_JOB");
    shardflags_destroy(f);
}
END_TEST

START_TEST(flags_space_form)
{
    struct shardflags *f = shardflags_create();
    struct hits c = scan(f, "pytest --num-shards 4 --shard-id 1 tests/");

    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SHARD, "4", "1", "--num-shards 4", "--shard-id 1");
    /* tabs and several spaces are one separator */
    c = scan(f, "pytest --num-shards\t 4 --shard-id  1");
    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SHARD, "4", "1", "--num-shards\t 4", "--shard-id  1");
    shardflags_destroy(f);
}
END_TEST

START_TEST(flags_quoted_values)
{
    struct shardflags *f = shardflags_create();
    struct hits c = scan(f, "pytest --num-shards \"4\" --shard-id \"3\"");

    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SHARD, "4", "3", "--num-shards \"4\"", "--shard-id \"3\"");
    c = scan(f, "pytest --num-shards='4' --shard-id '3'");
    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SHARD, "4", "3", "--num-shards='4'", "--shard-id '3'");
    /* a quoted variable keeps its text without the quotes */
    c = scan(f, "pytest --num-shards \"$$BUILDKITE_PARALLEL_JOB_COUNT\" --shard-id \"$$BUILDKITE_PARALLEL_JOB\"");
    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SHARD, "$$BUILDKITE_PARALLEL_JOB_COUNT", "$$BUILDKITE_PARALLEL_JOB",
               "--num-shards \"$$BUILDKITE_PARALLEL_JOB_COUNT\"", "--shard-id \"$$BUILDKITE_PARALLEL_JOB\"");
    shardflags_destroy(f);
}
END_TEST

START_TEST(flags_value_ends_at_enclosing_quote)
{
    struct shardflags *f = shardflags_create();
    struct hits c = scan(f, "bash -c 'pytest --num-shards=2 --shard-id=$$X'");

    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SHARD, "2", "$$X", "--num-shards=2", "--shard-id=$$X");
    c = scan(f, "bash -c \"pytest --shard-id=$${BUILDKITE_PARALLEL_JOB}\" && echo done");
    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SHARD, NULL, "$${BUILDKITE_PARALLEL_JOB}", NULL,
               "--shard-id=$${BUILDKITE_PARALLEL_JOB}");
    /* shell operators end a value too */
    c = scan(f, "pytest --num-shards=2;pytest --shard-id=1&&true");
    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SHARD, "2", "1", "--num-shards=2", "--shard-id=1");
    shardflags_destroy(f);
}
END_TEST

START_TEST(flags_unevaluated_expression)
{
    struct shardflags *f = shardflags_create();
    struct hits c = scan(f, "pytest --shard-id ${{ matrix.part }} --num-shards=${{ inputs.n }}");

    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SHARD, "${{ inputs.n }}", "${{ matrix.part }}",
               "--num-shards=${{ inputs.n }}", "--shard-id ${{ matrix.part }}");
    shardflags_destroy(f);
}
END_TEST

START_TEST(flags_run_suite_not_diffusion)
{
    struct shardflags *f = shardflags_create();
    struct hits c = scan(f, "python3 test/run_suite.py --auto-partition-id 1 --auto-partition-size 3");

    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_RUN_SUITE, "3", "1", "--auto-partition-size 3", "--auto-partition-id 1");
    shardflags_destroy(f);
}
END_TEST

START_TEST(flags_diffusion)
{
    struct shardflags *f = shardflags_create();
    struct hits c = scan(f, "python3 run_suite.py --suite 2-gpu \\\n  --partition-id 0 \\\n  --total-partitions 2\n");

    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_DIFFUSION, "2", "0", "--total-partitions 2", "--partition-id 0");
    shardflags_destroy(f);
}
END_TEST

START_TEST(flags_pytest_split)
{
    struct shardflags *f = shardflags_create();
    struct hits c = scan(f, "pytest --splits 3 --group 2");

    ck_assert_uint_eq(shardflags_base(f, R_PYTEST_SPLIT), 1);
    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SPLIT, "3", "2", "--splits 3", "--group 2");
    /* --group alone is some other tool's */
    c = scan(f, "pytest --group 2");
    ck_assert_uint_eq(c.n, 0);
    /* one --splits, two --group: the first is paired, the second dropped */
    c = scan(f, "pytest --splits 3 --group=2 && echo --group other");
    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SPLIT, "3", "2", "--splits 3", "--group=2");
    /* but --splits alone is a hit without an index */
    c = scan(f, "pytest --splits 3");
    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SPLIT, "3", NULL, "--splits 3", NULL);
    shardflags_destroy(f);
}
END_TEST

START_TEST(flags_two_commands_in_order)
{
    struct shardflags *f = shardflags_create();
    struct hits c = scan(f, "pytest tests/a --num-shards=2 --shard-id=0\n"
                            "pytest tests/b --shard-id 5 --num-shards 6\n");

    ck_assert_uint_eq(c.n, 2);
    expect_hit(&c.h[0], R_PYTEST_SHARD, "2", "0", "--num-shards=2", "--shard-id=0");
    expect_hit(&c.h[1], R_PYTEST_SHARD, "6", "5", "--num-shards 6", "--shard-id 5");
    shardflags_destroy(f);
}
END_TEST

START_TEST(flags_index_without_count)
{
    struct shardflags *f = shardflags_create();
    struct hits c = scan(f, "pytest --shard-id=0");

    /* pytest-shard's index alone is a hit (the check reports the missing count) */
    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SHARD, NULL, "0", NULL, "--shard-id=0");
    shardflags_destroy(f);
}
END_TEST

START_TEST(flags_near_misses)
{
    struct shardflags *f = shardflags_create();

    ck_assert_uint_eq(scan(f, "pytest --num-shardsX=4 --shard-ids=1").n, 0);
    ck_assert_uint_eq(scan(f, "pytest x--num-shards=4 my--shard-id=1 --shard-id_2 1").n, 0);
    ck_assert_uint_eq(scan(f, "pytest --num-shards= --shard-id=").n, 0);
    ck_assert_uint_eq(scan(f, "make test").n, 0);
    ck_assert_uint_eq(scan(f, "").n, 0);
    shardflags_destroy(f);
}
END_TEST

/* A built-in flag is its name after no ASCII word character or '-' (a wide character is
 * none, as PCRE2 without UCP reads it), the form after; the text's UTF-8 is checked when
 * it holds a flag's name, whether or not a flag is found. */
START_TEST(flags_after_what)
{
    struct shardflags *f = shardflags_create();
    struct hits c = {.n = 0};
    const char *bad = "pytest \xFF x--num-shards=4";

    ck_assert_uint_eq(scan(f, "pytest Z--num-shards=4 9--shard-id=1 _--num-shards=2").n, 0);
    c = scan(f, "pytest \xC3\xA9--num-shards=4 \xE2\x80\x94--shard-id=1 --num-shards --shard-id=2");
    ck_assert_uint_eq(c.n, 2);
    expect_hit(&c.h[0], 0, "4", "1", "--num-shards=4", "--shard-id=1");
    expect_hit(&c.h[1], 0, NULL, "2", NULL, "--shard-id=2");
    c.n = 0;
    ck_assert_int_eq(shardflags_scan(f, bad, strlen(bad), collect, &c), -1);
    ck_assert_uint_eq(c.n, 0);
    shardflags_destroy(f);
}
END_TEST

/* A runner's flags are its own only in a command of its program, or in one that starts
 * no program (an env value, an argument list handed on): mypy_primer's --num-shards is
 * mypy_primer's. */
START_TEST(flags_other_programs)
{
    struct shardflags *f = shardflags_create();
    struct shardflags *g = shardflags_create();
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct ynode_doc *doc = doc_from("- name: chunks\n"
                                     "  count: '--total-chunks[= ](\\d+)'\n"
                                     "  index: '--this-chunk[= ](\\S+)'\n"
                                     "  program: run-tests\n");

    ck_assert_uint_eq(scan(f, "mypy_primer \\\n  --num-shards 1 --shard-index 0 \\\n  | tee x").n, 0);
    ck_assert_uint_eq(scan(f, "cd x && mypy_primer --num-shards 1").n, 0);
    ck_assert_uint_eq(scan(f, "A=1 B=2 tool --splits 3 --group 1").n, 0);
    /* pytest's own command, however started, and text with no program */
    ck_assert_uint_eq(scan(f, "mypy_primer --x; python -m pytest \\\n  --num-shards 2 --shard-id 0").n, 1);
    ck_assert_uint_eq(scan(f, "bash -c 'cd t; pytest --num-shards=2 --shard-id=0'").n, 1);
    ck_assert_uint_eq(scan(f, "--num-shards \"2\" --shard-id \"0\"").n, 1);
    ck_assert_uint_eq(scan(f, "PYTHONPATH=. --num-shards=2 --shard-id=0").n, 1);
    ck_assert_uint_eq(scan(f, "ci_exec.sh -w /t python3 run_suite.py --auto-partition-id 0 --auto-partition-size 2").n, 1);
    ck_assert_uint_eq(scan(f, "python3 other.py --auto-partition-id 0 --auto-partition-size 2").n, 0);
    /* a config runner's program */
    ck_assert_int_eq(shardflags_configure(g, ynode_doc_root(doc), "cfg.yml", d), 0);
    ck_assert_uint_eq(scan(g, "./run-tests --total-chunks 2 --this-chunk 0").n, 1);
    ck_assert_uint_eq(scan(g, "./other --total-chunks 2 --this-chunk 0").n, 0);
    ynode_doc_destroy(doc);
    diag_destroy(d);
    shardflags_destroy(g);
    shardflags_destroy(f);
}
END_TEST

/* A runner's flags in one command share its start and program word (in_program's
 * memo): a flag before the program word is no flag of it, one after another command's
 * end is that command's. */
START_TEST(flags_program_word_place)
{
    static const struct {
        const char *text, *index, *index_flag;
    } cases[] = {
        {"tool --shard-id=1 pytest --num-shards=2", NULL, NULL},
        {"--shard-id=1 pytest --num-shards=2", "1", "--shard-id=1"},
        {"other --shard-id=1; pytest --num-shards=2", NULL, NULL},
        {"pytest --num-shards=2; other --shard-id=1", NULL, NULL},
    };
    struct shardflags *f = shardflags_create();

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct hits c = scan(f, cases[i].text);

        ck_assert_uint_eq(c.n, 1);
        expect_hit(&c.h[0], R_PYTEST_SHARD, "2", cases[i].index, "--num-shards=2", cases[i].index_flag);
    }
    shardflags_destroy(f);
}
END_TEST

/* A config runner's flags need not start with "--": a text without one is still
 * matched (the built-ins' literals let most texts be skipped). */
START_TEST(flags_config_without_dashes)
{
    struct shardflags *f = shardflags_create();
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct ynode_doc *doc = doc_from("- name: short\n"
                                     "  count: '-n (\\d+)'\n"
                                     "  index: '-k (\\d+)'\n");

    ck_assert_int_eq(shardflags_configure(f, ynode_doc_root(doc), "cfg.yml", d), 0);
    ck_assert_uint_eq(scan(f, "tool -n 2 -k 1").n, 1);
    ynode_doc_destroy(doc);
    diag_destroy(d);
    shardflags_destroy(f);
}
END_TEST

/* A flag is never the next flag's value; an arithmetic expansion is one value. */
START_TEST(flags_values_not_flags)
{
    struct shardflags *f = shardflags_create();
    struct hits h = scan(f, "pytest --num-shards --shard-id 1");

    ck_assert_uint_eq(h.n, 1);
    ck_assert_ptr_null(h.h[0].count);
    expect_span("index", h.h[0].index, h.h[0].index_len, "1");
    h = scan(f, "pytest --num-shards=4 --shard-id=$((BUILDKITE_PARALLEL_JOB + 1))");
    ck_assert_uint_eq(h.n, 1);
    expect_span("index", h.h[0].index, h.h[0].index_len, "$((BUILDKITE_PARALLEL_JOB + 1))");
    shardflags_destroy(f);
}
END_TEST

START_TEST(flags_callback_result)
{
    struct shardflags *f = shardflags_create();
    const char *text = "pytest --num-shards=2 --shard-id=0\npytest --num-shards=2 --shard-id=1";
    struct hits c = {.stop_at = 1};

    ck_assert_int_eq(shardflags_scan(f, text, strlen(text), collect, &c), 7);
    ck_assert_uint_eq(c.n, 1);
    /* `len` bounds the text: the second command is not seen */
    c = (struct hits){.n = 0};
    ck_assert_int_eq(shardflags_scan(f, text, strlen("pytest --num-shards=2 --shard-id=0"), collect, &c), 0);
    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SHARD, "2", "0", "--num-shards=2", "--shard-id=0");
    shardflags_destroy(f);
}
END_TEST

/* The built-in flags' tail is matched without PCRE2 where that is sure (tail_quick): a
 * differential test against PCRE2 running the pattern the built-ins stand for, as a
 * config runner, over random texts of the characters the pattern tells apart, long
 * blanks and values (past the quick match's span) among them. */
#define QUICK_VALUE "(?!-)(\\$\\{\\{.*?\\}\\}|\\$\\(\\([^)\\n]*\\)\\)|\"[^\"\\n]*\"|'[^'\\n]*'|[^\\s'\"`;&|()<>]+)"

/* Hits of the built-in pytest-shard [0] and of the config runner [1]. */
struct both {
    size_t n[2];
    struct shardflags_hit h[2][130];
};

static int collect_both(void *user, const struct shardflags_hit *hit)
{
    struct both *c = user;
    size_t k = hit->runner == R_PYTEST_SHARD ? 0 : 1;

    ck_assert_uint_lt(c->n[k], 130);
    c->h[k][c->n[k]++] = *hit;
    return 0;
}

/* a and b point at the same bytes of one text */
static void same_span(const char *text, const char *a, size_t a_len, const char *b, size_t b_len)
{
    ck_assert_msg(a == b && a_len == b_len, "'%s': %zd+%zu, PCRE2 %zd+%zu", text, a ? a - text : -1, a_len,
                  b ? b - text : -1, b_len);
}

START_TEST(flags_quick_tail_as_pcre2)
{
    static const char *const tokens[] = {
        "--num-shards", "--shard-id", "=", " ", "pytest ", "\t", "\n", "\"", "'", "$", "{{", "}}", "((", "))", "(",
        ")", "-", "a", "1", ";", "`", "\\", "\v", "\r", "|", "<", "${", "_", "x-", "\f", "$((", "${{"};
    char blanks[301], word[301], text[2048];
    struct shardflags *f = shardflags_create();
    struct ynode_doc *doc = ynode_doc_create();
    struct ynode *list = ynode_new_seq(doc, (struct ypos){0}), *e = ynode_new_map(doc, (struct ypos){0});
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    unsigned long long x = 88172645463325252ULL;
    size_t hits = 0;

    memset(blanks, ' ', 300);
    blanks[300] = '\0';
    memset(word, 'w', 300);
    word[300] = '\0';
    ynode_set(doc, e, "name", ynode_new_string(doc, "ref", 3, (struct ypos){0}));
    ynode_set(doc, e, "count", ynode_new_plain(doc, "(?<![\\w-])--num-shards(?:=|[ \\t]+)" QUICK_VALUE, (struct ypos){0}));
    ynode_set(doc, e, "index", ynode_new_plain(doc, "(?<![\\w-])--shard-id(?:=|[ \\t]+)" QUICK_VALUE, (struct ypos){0}));
    ynode_set(doc, e, "program", ynode_new_plain(doc, "pytest", (struct ypos){0}));
    ynode_append(doc, list, e);
    ck_assert_int_eq(shardflags_configure(f, list, "cfg.yml", d), 0);
    for (int round = 0; round < 20000; round++) {
        size_t len = 0, n;
        struct both c;

        /* most texts pytest's command, half the tokens a flag, '=' or a blank */
        if (round % 4)
            len = (size_t)sprintf(text, "pytest ");
        for (n = 1 + (x >> 59) % 24; n > 0; n--) {
            const char *t;

            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            t = x % 64 == 0 ? blanks : x % 64 == 1 ? word : tokens[(x >> 8) % (x % 2 ? 4 : sizeof(tokens) / sizeof(tokens[0]))];
            if (len + strlen(t) < sizeof(text))
                len += (size_t)sprintf(text + len, "%s", t);
        }
        c.n[0] = c.n[1] = 0;
        ck_assert_int_eq(shardflags_scan(f, text, len, collect_both, &c), 0);
        ck_assert_msg(c.n[0] == c.n[1], "'%s': %zu hits, PCRE2 %zu", text, c.n[0], c.n[1]);
        for (size_t i = 0; i < c.n[0]; i++) {
            const struct shardflags_hit *a = &c.h[0][i], *b = &c.h[1][i];

            same_span(text, a->count, a->count_len, b->count, b->count_len);
            same_span(text, a->index, a->index_len, b->index, b->index_len);
            same_span(text, a->count_flag, a->count_flag_len, b->count_flag, b->count_flag_len);
            same_span(text, a->index_flag, a->index_flag_len, b->index_flag, b->index_flag_len);
            hits++;
        }
    }
    /* the texts exercised what they are for */
    ck_assert_uint_gt(hits, 2000);
    ynode_doc_destroy(doc);
    diag_destroy(d);
    shardflags_destroy(f);
}
END_TEST

/* A value `${{ ... }}` or `$(( ... ))` is read without PCRE2 (a SGLang render compiled
 * its JIT for these alone), as the pattern reads it: to the first `}}` on its line, to
 * a `))` before any other `)`; else the run of characters. */
START_TEST(flags_quick_expressions)
{
    struct shardflags *f = shardflags_create();
    struct hits h;

    unit_jit_calls = 0;
    h = scan(f, "python3 run_suite.py --auto-partition-id ${{ matrix.part }} --auto-partition-size "
                "${{ fromJson(x)[y].size }}");
    ck_assert_uint_eq(h.n, 1);
    expect_hit(&h.h[0], R_RUN_SUITE, "${{ fromJson(x)[y].size }}", "${{ matrix.part }}",
               "--auto-partition-size ${{ fromJson(x)[y].size }}", "--auto-partition-id ${{ matrix.part }}");
    h = scan(f, "pytest --num-shards=${{ a }x}} --shard-id ${{ b\n}} x");
    expect_hit(&h.h[0], R_PYTEST_SHARD, "${{ a }x}}", "${{", "--num-shards=${{ a }x}}", "--shard-id ${{");
    h = scan(f, "pytest --num-shards=$((N)) --shard-id=$((I)+1)) --splits $((2 ) )");
    expect_hit(&h.h[0], R_PYTEST_SHARD, "$((N))", "$", "--num-shards=$((N))", "--shard-id=$");
    ck_assert_uint_eq(unit_jit_calls, 0);
    shardflags_destroy(f);
}
END_TEST

/* ---- shardflags_configure ---- */

/* A diag's messages, as text. */
struct sink {
    char *buf;
    size_t len;
    FILE *fp;
    struct diag *d;
};

static void sink_open(struct sink *s)
{
    s->buf = NULL;
    s->len = 0;
    s->fp = open_memstream(&s->buf, &s->len);
    ck_assert_ptr_nonnull(s->fp);
    s->d = diag_create(s->fp, DIAG_TEXT);
    ck_assert_ptr_nonnull(s->d);
}

/* Flushes `from` into the sink; the text, which the caller frees. */
static char *sink_close(struct sink *s, struct diag *from)
{
    diag_flush_into(from, s->d);
    diag_destroy(s->d);
    fclose(s->fp);
    return s->buf;
}

START_TEST(config_runner_found)
{
    struct shardflags *f = shardflags_create();
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct ynode_doc *doc = doc_from("- name: chunks\n"
                                     "  count: '--total-chunks[= ](\\d+)'\n"
                                     "  index: '--this-chunk[= ](\\S+)'\n"
                                     "  base: 1\n"
                                     "- name: zero\n"
                                     "  count: 'ZC=(\\d+)'\n"
                                     "  index: 'ZI=\\d+'\n");
    struct hits c;

    ck_assert_int_eq(shardflags_configure(f, ynode_doc_root(doc), "cfg.yml", d), 0);
    ck_assert_uint_eq(diag_errors(d), 0);
    ck_assert_uint_eq(shardflags_runners(f), N_BUILTIN + 2);
    ck_assert_str_eq(shardflags_name(f, N_BUILTIN), "chunks");
    ck_assert_str_eq(shardflags_noun(f, N_BUILTIN), "shard");
    ck_assert_uint_eq(shardflags_base(f, N_BUILTIN), 1);
    ck_assert_str_eq(shardflags_name(f, N_BUILTIN + 1), "zero");
    ck_assert_uint_eq(shardflags_base(f, N_BUILTIN + 1), 0);
    ynode_doc_destroy(doc); /* the runners keep their own copies */

    c = scan(f, "pytest --this-chunk 2 --total-chunks=3 --num-shards=3");
    ck_assert_uint_eq(c.n, 2);
    /* runners in order: the built-in pytest-shard's count first, then the config's */
    expect_hit(&c.h[0], R_PYTEST_SHARD, "3", NULL, "--num-shards=3", NULL);
    expect_hit(&c.h[1], N_BUILTIN, "3", "2", "--total-chunks=3", "--this-chunk 2");
    /* a config runner without `program` takes its flags in any command */
    c = scan(f, "./run-tests --this-chunk 2 --total-chunks=3 --num-shards=3");
    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], N_BUILTIN, "3", "2", "--total-chunks=3", "--this-chunk 2");
    /* without a group the value is the whole match */
    c = scan(f, "env ZC=4 ZI=1 make");
    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], N_BUILTIN + 1, "4", "ZI=1", "ZC=4", "ZI=1");
    diag_destroy(d);
    shardflags_destroy(f);
}
END_TEST

/* A clone (diff's HEAD scans with its own) has the config's runners too, and finds what
 * the original finds once the original is gone. */
START_TEST(config_runner_cloned)
{
    struct shardflags *f = shardflags_create(), *g;
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct ynode_doc *doc = doc_from("- name: chunks\n"
                                     "  count: '--total-chunks[= ](\\d+)'\n"
                                     "  index: '--this-chunk[= ](\\S+)'\n"
                                     "  base: 1\n"
                                     "  program: run-tests\n");
    struct hits c;

    ck_assert_int_eq(shardflags_configure(f, ynode_doc_root(doc), "cfg.yml", d), 0);
    ynode_doc_destroy(doc);
    c = scan(f, "./run-tests --this-chunk 2 --total-chunks=3"); /* the original's patterns ran */
    ck_assert_uint_eq(c.n, 1);
    g = shardflags_clone(f);
    ck_assert_ptr_nonnull(g);
    shardflags_destroy(f);
    ck_assert_uint_eq(shardflags_runners(g), N_BUILTIN + 1);
    ck_assert_str_eq(shardflags_name(g, N_BUILTIN), "chunks");
    ck_assert_uint_eq(shardflags_base(g, N_BUILTIN), 1);
    c = scan(g, "./run-tests --this-chunk 2 --total-chunks=3");
    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], N_BUILTIN, "3", "2", "--total-chunks=3", "--this-chunk 2");
    c = scan(g, "pytest --num-shards=3 --shard-id=1"); /* the built-ins too */
    ck_assert_uint_eq(c.n, 1);
    expect_hit(&c.h[0], R_PYTEST_SHARD, "3", "1", "--num-shards=3", "--shard-id=1");
    c = scan(g, "make --this-chunk 2 --total-chunks=3"); /* its program kept */
    ck_assert_uint_eq(c.n, 0);
    diag_destroy(d);
    shardflags_destroy(g);
}
END_TEST

/* Configures `yaml`; checks -1, one error and its text, and that no runner was added. */
static void expect_config_error(const char *yaml, const char *message)
{
    struct shardflags *f = shardflags_create();
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct ynode_doc *doc = doc_from(yaml);
    struct sink s;
    char *text;

    ck_assert_int_eq(shardflags_configure(f, ynode_doc_root(doc), "cfg.yml", d), -1);
    ck_assert_uint_eq(diag_errors(d), 1);
    ck_assert(diag_has_input_error(d));
    ck_assert_uint_eq(shardflags_runners(f), N_BUILTIN);
    sink_open(&s);
    text = sink_close(&s, d);
    ck_assert_str_eq(text, message);
    free(text);
    ynode_doc_destroy(doc);
    diag_destroy(d);
    shardflags_destroy(f);
}

START_TEST(config_errors)
{
    expect_config_error("- name: a\n  count: 'c=(\\d+)'\n  index: 'i=(\\d+)'\n  bsae: 1\n",
                        "cfg.yml:4:3: error: unknown key 'bsae' in a shard runner (name, count, "
                        "index, base, program) [config]\n");
    expect_config_error("- name: a\n  count: 'c=(\\d+)'\n  index: 'i=(\\d+)'\n  program: ''\n",
                        "cfg.yml:4:13: error: program is a word the runner's command contains [config]\n");
    expect_config_error("- count: 'c=(\\d+)'\n  index: 'i=(\\d+)'\n",
                        "cfg.yml:1:3: error: a shard runner needs a 'name' [config]\n");
    expect_config_error("- name: a\n  index: 'i=(\\d+)'\n",
                        "cfg.yml:1:3: error: a shard runner needs 'count' and 'index' patterns "
                        "(PCRE2; the first group is the value) [config]\n");
    expect_config_error("- name: broken\n  count: '--chunks=(\\d+'\n  index: 'i=(\\d+)'\n",
                        "cfg.yml:1:3: error: shard runner 'broken': missing closing parenthesis "
                        "at offset 13 [config]\n");
    expect_config_error("- name: broken\n  count: 'c=(\\d+)'\n  index: 'i=((\\d+)'\n",
                        "cfg.yml:1:3: error: shard runner 'broken': missing closing parenthesis "
                        "at offset 8 [config]\n");
    expect_config_error("- name: a\n  count: 'c=(\\d+)'\n  index: 'i=(\\d+)'\n  base: 2\n",
                        "cfg.yml:4:9: error: base is 0 or 1 (the first shard's index) [config]\n");
    expect_config_error("- name: empty\n  count: 'c=(\\d+)'\n  index: 'x*'\n",
                        "cfg.yml:1:3: error: shard runner 'empty': the pattern matches the empty "
                        "string [config]\n");
    expect_config_error("name: a\n",
                        "cfg.yml:1:1: error: 'shards' is a list of {name, count, index, base} [config]\n");
    expect_config_error("- just a string\n",
                        "cfg.yml:1:3: error: a shard runner is a mapping {name, count, index, base} [config]\n");
}
END_TEST

START_TEST(config_error_after_good_entry)
{
    struct shardflags *f = shardflags_create();
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct ynode_doc *doc = doc_from("- {name: good, count: 'c=(\\d+)', index: 'i=(\\d+)'}\n"
                                     "- {name: bad, count: 'c=(\\d+)', index: 'i=(\\d+)', base: 2}\n");

    ck_assert_int_eq(shardflags_configure(f, ynode_doc_root(doc), "cfg.yml", d), -1);
    ck_assert_uint_eq(diag_errors(d), 1);
    /* the entries before the wrong one stay added (the caller stops at -1) */
    ck_assert_uint_eq(shardflags_runners(f), N_BUILTIN + 1);
    ck_assert_str_eq(shardflags_name(f, N_BUILTIN), "good");
    ynode_doc_destroy(doc);
    diag_destroy(d);
    shardflags_destroy(f);
}
END_TEST

/* ---- coverage ---- */

static const char *const files[] = {"in.yaml"};

static int take_job(void *c, const struct dialect_job *job)
{
    return coverage_job(c, job);
}

/* Runs the rule over the jobs of the items of `docs` (each item's in turn, every document gone
 * before the next is read), with `f` (NULL: the built-in runners). The messages, which
 * the caller frees; *errors: the errors counted. */
static char *coverage_run(const struct dialect *dl, struct shardflags *f, const char *const *docs,
                          size_t n, unsigned *errors)
{
    struct shardflags *own = f ? NULL : shardflags_create();
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct coverage *c = coverage_create(f ? f : own, dl, d, files);
    struct sink s;
    char *text;

    ck_assert_ptr_nonnull(c);
    for (size_t i = 0; i < n; i++) {
        struct ynode_doc *doc = doc_from(docs[i]);

        ck_assert_int_ge(dl->each_job(ynode_doc_root(doc), take_job, c), 0);
        coverage_item_end(c); /* as lint_item does: the item's tree goes */
        ynode_doc_destroy(doc);
    }
    ck_assert_int_eq(coverage_finish(c), 0);
    coverage_destroy(c);
    *errors = diag_errors(d);
    sink_open(&s);
    text = sink_close(&s, d);
    diag_destroy(d);
    shardflags_destroy(own);
    return text;
}

static void expect_coverage(const struct dialect *dl, const char *const *docs, size_t n,
                            unsigned errors, const char *messages)
{
    unsigned got;
    char *text = coverage_run(dl, NULL, docs, n, &got);

    ck_assert_str_eq(text, messages);
    ck_assert_uint_eq(got, errors);
    free(text);
}

/* One rendered Buildkite job of a parallel step: key `<key>-<job>` and the env a
 * rendering sets, running `command`. */
#define BK_JOB(key, job, count, command)                                                      \
    "- key: " key "-" #job "\n"                                                               \
    "  command: " command "\n"                                                                \
    "  env:\n"                                                                                \
    "    BUILDKITE_PARALLEL_JOB: \"" #job "\"\n"                                              \
    "    BUILDKITE_PARALLEL_JOB_COUNT: \"" #count "\"\n"

START_TEST(cov_bk_consistent)
{
    const char *docs[] = {BK_JOB("a", 0, 4, "pytest --num-shards=4 --shard-id=0")
                          BK_JOB("a", 1, 4, "pytest --num-shards=4 --shard-id=1")
                          BK_JOB("a", 2, 4, "pytest --num-shards=4 --shard-id=2")
                          BK_JOB("a", 3, 4, "pytest --num-shards=4 --shard-id=3")};
    const char *vars[] = {BK_JOB("a", 0, 2, "\"pytest --num-shards=$$BUILDKITE_PARALLEL_JOB_COUNT --shard-id=$${BUILDKITE_PARALLEL_JOB}\"")
                          BK_JOB("a", 1, 2, "\"pytest --num-shards=$$BUILDKITE_PARALLEL_JOB_COUNT --shard-id=$${BUILDKITE_PARALLEL_JOB}\"")};

    expect_coverage(&dialect_buildkite, docs, 1, 0, "");
    expect_coverage(&dialect_buildkite, vars, 1, 0, "");
}
END_TEST

START_TEST(cov_bk_count_exceeds_jobs)
{
    const char *docs[] = {BK_JOB("a", 0, 2, "pytest --num-shards=4 --shard-id=$$BUILDKITE_PARALLEL_JOB")
                          BK_JOB("a", 1, 2, "pytest --num-shards=4 --shard-id=$$BUILDKITE_PARALLEL_JOB")};

    expect_coverage(&dialect_buildkite, docs, 1, 1,
                    "in.yaml:2:19: error: a: --num-shards=4 but 2 jobs: shards 2, 3 never run "
                    "[shard-coverage]\n");
}
END_TEST

START_TEST(cov_bk_fanout_across_items)
{
    /* a rendering rendered again: one job per item; still one fan-out */
    const char *ok[] = {BK_JOB("a", 0, 2, "pytest --num-shards=2 --shard-id=0"),
                        BK_JOB("a", 1, 2, "pytest --num-shards=2 --shard-id=1")};
    const char *bad[] = {BK_JOB("a", 0, 2, "pytest --num-shards=4 --shard-id=$$BUILDKITE_PARALLEL_JOB"),
                         BK_JOB("a", 1, 2, "pytest --num-shards=4 --shard-id=$$BUILDKITE_PARALLEL_JOB")};

    expect_coverage(&dialect_buildkite, ok, 2, 0, "");
    expect_coverage(&dialect_buildkite, bad, 2, 1,
                    "in.yaml:2:19: error: a: --num-shards=4 but 2 jobs: shards 2, 3 never run "
                    "[shard-coverage]\n");
}
END_TEST

START_TEST(cov_bk_adjacent_steps_are_separate)
{
    /* two 2-job steps one after the other are two fan-outs, not one of 4 */
    const char *docs[] = {BK_JOB("a", 0, 2, "pytest --num-shards=2 --shard-id=0")
                          BK_JOB("a", 1, 2, "pytest --num-shards=2 --shard-id=1")
                          BK_JOB("b", 0, 2, "pytest --num-shards=2 --shard-id=0")
                          BK_JOB("b", 1, 2, "pytest --num-shards=3 --shard-id=1")
                          "- key: c\n  command: make test\n"};

    expect_coverage(&dialect_buildkite, docs, 1, 1,
                    "in.yaml:12:19: error: b: jobs disagree on the shard count: --num-shards=2 "
                    "in job 1, --num-shards=3 in job 2 [shard-coverage]\n");
}
END_TEST

START_TEST(cov_bk_hardcoded_index)
{
    const char *docs[] = {BK_JOB("p", 0, 3, "pytest --num-shards 3 --shard-id 0")
                          BK_JOB("p", 1, 3, "pytest --num-shards 3 --shard-id 0")
                          BK_JOB("p", 2, 3, "pytest --num-shards 3 --shard-id 0")};

    expect_coverage(&dialect_buildkite, docs, 1, 1,
                    "in.yaml:2:34: error: p: shards 1, 2 never run; shard 0 runs more than once "
                    "[shard-coverage]\n");
}
END_TEST

START_TEST(cov_bk_out_of_range)
{
    const char *docs[] = {BK_JOB("p", 0, 3, "pytest --num-shards=2 --shard-id=$$BUILDKITE_PARALLEL_JOB")
                          BK_JOB("p", 1, 3, "pytest --num-shards=2 --shard-id=$$BUILDKITE_PARALLEL_JOB")
                          BK_JOB("p", 2, 3, "pytest --num-shards=2 --shard-id=$$BUILDKITE_PARALLEL_JOB")};

    expect_coverage(&dialect_buildkite, docs, 1, 1,
                    "in.yaml:2:19: error: p: --num-shards=2 but 3 jobs: shard 2 out of range 0..1 "
                    "(the runner fails) [shard-coverage]\n");
}
END_TEST

START_TEST(cov_bk_unknown_value_is_note)
{
    const char *docs[] = {BK_JOB("a", 0, 2, "pytest --num-shards=$$N --shard-id=$$BUILDKITE_PARALLEL_JOB")
                          BK_JOB("a", 1, 2, "pytest --num-shards=$$N --shard-id=$$BUILDKITE_PARALLEL_JOB")};

    expect_coverage(&dialect_buildkite, docs, 1, 0,
                    "in.yaml:2:19: note: a: --num-shards=$$N is only known when the job runs: "
                    "coverage not verified [shard-coverage]\n");
}
END_TEST

START_TEST(cov_bk_variable_without_parallelism)
{
    const char *docs[] = {"- key: solo\n"
                          "  command: pytest --num-shards=$$BUILDKITE_PARALLEL_JOB_COUNT --shard-id=$$BUILDKITE_PARALLEL_JOB\n"};

    expect_coverage(&dialect_buildkite, docs, 1, 1,
                    "in.yaml:2:19: error: solo: --num-shards=$$BUILDKITE_PARALLEL_JOB_COUNT but "
                    "the step has no parallelism: the variable is not set [shard-coverage]\n");
}
END_TEST

START_TEST(cov_bk_many_missing)
{
    const char *docs[] = {BK_JOB("a", 0, 2, "pytest --num-shards=20 --shard-id=$$BUILDKITE_PARALLEL_JOB")
                          BK_JOB("a", 1, 2, "pytest --num-shards=20 --shard-id=$$BUILDKITE_PARALLEL_JOB")};

    expect_coverage(&dialect_buildkite, docs, 1, 1,
                    "in.yaml:2:19: error: a: --num-shards=20 but 2 jobs: shards 2, 3, 4, 5, 6, 7, "
                    "8, 9 and 10 more never run [shard-coverage]\n");
}
END_TEST

START_TEST(cov_bk_flags_missing_in_a_job)
{
    const char *docs[] = {BK_JOB("a", 0, 2, "pytest --num-shards=2 --shard-id=0")
                          BK_JOB("a", 1, 2, "pytest")
                          "- key: b\n  command: pytest --shard-id=0\n"};

    expect_coverage(&dialect_buildkite, docs, 1, 2,
                    "in.yaml:1:3: error: a: pytest-shard's flags are in 1 of 2 jobs only (job 2 "
                    "has none): the split is incomplete [shard-coverage]\n"
                    "in.yaml:12:19: error: b: --shard-id=0 without the shard count (pytest-shard "
                    "needs both flags) [shard-coverage]\n");
}
END_TEST

START_TEST(cov_bk_env_and_second_use)
{
    /* the env's flags are a second use of the runner, checked on their own */
    const char *docs[] = {"- key: a-0\n"
                          "  command: pytest --num-shards=2 --shard-id=0\n"
                          "  env:\n"
                          "    ARGS: --num-shards 2 --shard-id 1\n"
                          "    BUILDKITE_PARALLEL_JOB: \"0\"\n"
                          "    BUILDKITE_PARALLEL_JOB_COUNT: \"2\"\n"
                          "- key: a-1\n"
                          "  command: pytest --num-shards=2 --shard-id=1\n"
                          "  env:\n"
                          "    ARGS: --num-shards 2 --shard-id 1\n"
                          "    BUILDKITE_PARALLEL_JOB: \"1\"\n"
                          "    BUILDKITE_PARALLEL_JOB_COUNT: \"2\"\n"};

    expect_coverage(&dialect_buildkite, docs, 1, 1,
                    "in.yaml:4:26: error: a (pytest-shard's flags, use 2): shard 0 never runs; "
                    "shard 1 runs more than once [shard-coverage]\n");
}
END_TEST

START_TEST(cov_bk_config_runner)
{
    struct shardflags *f = shardflags_create();
    struct diag *cd = diag_create_buffered(DIAG_TEXT);
    struct ynode_doc *cfg = doc_from("- {name: chunks, count: '--total-chunks[= ](\\d+)', "
                                     "index: '--this-chunk[= ](\\S+)', base: 1}\n");
    const char *docs[] = {BK_JOB("f", 0, 2, "./run --this-chunk 1 --total-chunks 2")
                          BK_JOB("f", 1, 2, "./run --this-chunk 2 --total-chunks 2")
                          BK_JOB("g", 0, 2, "./run --this-chunk 0 --total-chunks 2")
                          BK_JOB("g", 1, 2, "./run --this-chunk 1 --total-chunks 2")};
    unsigned errors;
    char *text;

    ck_assert_int_eq(shardflags_configure(f, ynode_doc_root(cfg), "cfg.yml", cd), 0);
    ynode_doc_destroy(cfg);
    text = coverage_run(&dialect_buildkite, f, docs, 1, &errors);
    ck_assert_str_eq(text, "in.yaml:12:18: error: g: shard 2 never runs; shard 0 out of range "
                           "1..2 (the runner fails) [shard-coverage]\n");
    ck_assert_uint_eq(errors, 1);
    free(text);
    diag_destroy(cd);
    shardflags_destroy(f);
}
END_TEST

/* One rendered GitHub configuration `<id>-<index>` with its one matrix row and `run`. */
#define GHA_JOB(id, index, row, run)                                                          \
    id "-" #index ":\n"                                                                       \
    "  runs-on: ubuntu-latest\n"                                                              \
    "  strategy:\n"                                                                           \
    "    matrix:\n"                                                                           \
    "      include:\n"                                                                        \
    "        - " row "\n"                                                                     \
    "  steps:\n"                                                                              \
    "    - run: " run "\n"

START_TEST(cov_gha_partition_missing)
{
    const char *docs[] = {GHA_JOB("t", 0, "{part: 0}", "python3 run_suite.py --partition-id 0 --total-partitions 3")
                          GHA_JOB("t", 1, "{part: 1}", "python3 run_suite.py --partition-id 1 --total-partitions 3")};
    const char *ok[] = {GHA_JOB("t", 0, "{part: 0}", "python3 run_suite.py --partition-id 0 --total-partitions 2")
                        GHA_JOB("t", 1, "{part: 1}", "python3 run_suite.py --partition-id 1 --total-partitions 2")};

    expect_coverage(&dialect_gha, docs, 1, 1,
                    "in.yaml:8:50: error: t: --total-partitions 3 but matrix part has 2 values: "
                    "partition 2 never runs [shard-coverage]\n");
    expect_coverage(&dialect_gha, ok, 1, 0, "");
}
END_TEST

START_TEST(cov_gha_across_items)
{
    const char *docs[] = {GHA_JOB("t", 0, "{part: 0}", "run_suite.py --partition-id 0 --total-partitions 3"),
                          GHA_JOB("t", 1, "{part: 1}", "run_suite.py --partition-id 1 --total-partitions 3")};

    expect_coverage(&dialect_gha, docs, 2, 1,
                    "in.yaml:8:42: error: t: --total-partitions 3 but matrix part has 2 values: "
                    "partition 2 never runs [shard-coverage]\n");
}
END_TEST

START_TEST(cov_gha_two_vectors)
{
    const char *ok[] = {GHA_JOB("s", 0, "{runner: a, part: 0}", "run_suite --auto-partition-id 0 --auto-partition-size 2")
                        GHA_JOB("s", 1, "{runner: a, part: 1}", "run_suite --auto-partition-id 1 --auto-partition-size 2")
                        GHA_JOB("s", 2, "{runner: b, part: 0}", "run_suite --auto-partition-id 0 --auto-partition-size 2")
                        GHA_JOB("s", 3, "{runner: b, part: 1}", "run_suite --auto-partition-id 1 --auto-partition-size 2")};
    const char *bad[] = {GHA_JOB("s", 0, "{runner: a, part: 0}", "run_suite --auto-partition-id 0 --auto-partition-size 2")
                         GHA_JOB("s", 1, "{runner: a, part: 1}", "run_suite --auto-partition-id 1 --auto-partition-size 2")
                         GHA_JOB("s", 2, "{runner: b, part: 1}", "run_suite --auto-partition-id 1 --auto-partition-size 2")};

    expect_coverage(&dialect_gha, ok, 1, 0, "");
    expect_coverage(&dialect_gha, bad, 1, 1,
                    "in.yaml:24:44: error: s (runner=b): --auto-partition-size 2 but matrix part has 1 "
                    "value: partition 0 never runs [shard-coverage]\n");
}
END_TEST

/* The run text of configuration `id` of `doc` (GHA_JOB's). */
static struct ynode *run_of(struct ynode_doc *doc, const char *id)
{
    return ynode_get(ynode_item(ynode_get(ynode_get(ynode_doc_root(doc), id), "steps"), 0), "run");
}

/* Configurations share nodes (substitution's), and a text's flags are found once an
 * item: a shared text's hits count in each configuration that has it, and what an item
 * found is forgotten at its end, where its nodes go (a node of the next item may take
 * a gone node's address: here, the same node given another text). */
START_TEST(cov_gha_shared_text_once_an_item)
{
    struct shardflags *f = shardflags_create();
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct coverage *c = coverage_create(f, &dialect_gha, d, files);
    struct ynode_doc *doc = doc_from(GHA_JOB("t", 0, "{part: 0}", "run_suite.py --partition-id 0 --total-partitions 2")
                                     GHA_JOB("t", 1, "{part: 1}", "run_suite.py --partition-id 1 --total-partitions 2"));
    struct ynode *run0 = run_of(doc, "t-0"), *run1 = run_of(doc, "t-1");
    struct ynode *step1 = ynode_item(ynode_get(ynode_get(ynode_doc_root(doc), "t-1"), "steps"), 0);
    const char *text0 = run0->u.scalar.text;
    size_t len0 = run0->u.scalar.len;
    const char *again = "run_suite.py --partition-id 1 --total-partitions 2";
    struct sink s;
    char *out;

    ck_assert_ptr_nonnull(c);
    /* item 1: both configurations whole, each its own text */
    ck_assert_int_ge(dialect_gha.each_job(ynode_doc_root(doc), take_job, c), 0);
    coverage_item_end(c);
    /* item 2: t-0's text is now partition 1's, and t-1 shares t-0's node */
    run0->u.scalar.text = again;
    run0->u.scalar.len = strlen(again);
    ynode_set_value(step1, 0, run0);
    ck_assert_int_ge(dialect_gha.each_job(ynode_doc_root(doc), take_job, c), 0);
    coverage_item_end(c);
    ck_assert_int_eq(coverage_finish(c), 0);
    ynode_set_value(step1, 0, run1);
    run0->u.scalar.text = text0;
    run0->u.scalar.len = len0;
    ck_assert_uint_eq(diag_errors(d), 1);
    sink_open(&s);
    out = sink_close(&s, d);
    ck_assert_str_eq(out, "in.yaml:8:25: error: t: partition 0 never runs; partition 1 runs more than once "
                          "[shard-coverage]\n");
    free(out);
    coverage_destroy(c);
    ynode_doc_destroy(doc);
    diag_destroy(d);
    shardflags_destroy(f);
}
END_TEST

/* Without a vector the index comes from, a matrix whose jobs split at all is one split
 * (every configuration hard-coded to part 0); jobs that each run everything (a count of
 * 1) are no split. */
START_TEST(cov_gha_hardcoded_index)
{
    const char *bad[] = {GHA_JOB("t", 0, "{os: a, part: 0}", "run_suite.py --partition-id 0 --total-partitions 2")
                         GHA_JOB("t", 1, "{os: a, part: 1}", "run_suite.py --partition-id 0 --total-partitions 2")};
    const char *whole[] = {GHA_JOB("w", 0, "{gpu: mi300}", "run_suite.py --auto-partition-id 0 --auto-partition-size 1")
                           GHA_JOB("w", 1, "{gpu: mi355}", "run_suite.py --auto-partition-id 0 --auto-partition-size 1")};

    expect_coverage(&dialect_gha, bad, 1, 1,
                    "in.yaml:8:25: error: t: partition 1 never runs; partition 0 runs more than once "
                    "[shard-coverage]\n");
    expect_coverage(&dialect_gha, whole, 1, 0, "");
}
END_TEST

/* A value is what the pattern matched, not the digits that follow it. */
START_TEST(cov_value_ends_with_match)
{
    struct shardflags *f = shardflags_create();
    struct diag *cd = diag_create_buffered(DIAG_TEXT);
    struct ynode_doc *cfg = doc_from("- {name: one-digit, count: 'N=(\\d)', index: 'I=(\\d)'}\n");
    const char *docs[] = {"- command: run N=12 I=0\n"};
    unsigned errors;
    char *text;

    ck_assert_int_eq(shardflags_configure(f, ynode_doc_root(cfg), "cfg.yml", cd), 0);
    ynode_doc_destroy(cfg);
    text = coverage_run(&dialect_buildkite, f, docs, 1, &errors);
    ck_assert_str_eq(text, "");
    ck_assert_uint_eq(errors, 0);
    free(text);
    diag_destroy(cd);
    shardflags_destroy(f);
}
END_TEST

START_TEST(cov_gha_split_base_one)
{
    const char *ok[] = {GHA_JOB("sp", 0, "{group: 1}", "pytest --splits 3 --group 1")
                        GHA_JOB("sp", 1, "{group: 2}", "pytest --splits 3 --group 2")
                        GHA_JOB("sp", 2, "{group: 3}", "pytest --splits 3 --group 3 && echo --group x")};
    const char *bad[] = {GHA_JOB("sp", 0, "{group: 0}", "pytest --splits 3 --group 0")
                         GHA_JOB("sp", 1, "{group: 1}", "pytest --splits 3 --group 1")
                         GHA_JOB("sp", 2, "{group: 2}", "pytest --splits 3 --group 2")};

    expect_coverage(&dialect_gha, ok, 1, 0, "");
    expect_coverage(&dialect_gha, bad, 1, 1,
                    "in.yaml:8:30: error: sp: group 3 never runs; group 0 out of range 1..3 (the "
                    "runner fails) [shard-coverage]\n");
}
END_TEST

START_TEST(cov_gha_unevaluated_is_note)
{
    const char *docs[] = {GHA_JOB("t", 0, "{part: 0}", "pytest --shard-id ${{ matrix.part }} --num-shards 2")
                          GHA_JOB("t", 1, "{part: 1}", "pytest --shard-id ${{ matrix.part }} --num-shards 2")};

    expect_coverage(&dialect_gha, docs, 1, 0,
                    "in.yaml:8:19: note: t: --shard-id ${{ matrix.part }} is only known when the "
                    "job runs: coverage not verified [shard-coverage]\n");
}
END_TEST

START_TEST(cov_match_limit_fails)
{
    /* a config pattern that backtracks without end fails the scan, not hangs it */
    struct shardflags *f = shardflags_create();
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct ynode_doc *cfg = doc_from("- {name: slow, count: '(?:a|a)+[bc]', index: 'I=(\\d)'}\n");
    const char *text = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaax";
    struct hits h = {.n = 0};
    struct ynode_doc *doc;
    struct coverage *c;
    struct sink s;
    char *out;

    ck_assert_int_eq(shardflags_configure(f, ynode_doc_root(cfg), "cfg.yml", d), 0);
    ynode_doc_destroy(cfg);
    ck_assert_int_eq(shardflags_scan(f, text, strlen(text), collect, &h), -1);
    ck_assert_uint_eq(h.n, 0);
    c = coverage_create(f, &dialect_buildkite, d, files);
    ck_assert_ptr_nonnull(c);
    doc = doc_from("- key: s\n  command: pytest --num-shards=1 --shard-id=0 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaax\n");
    ck_assert_int_eq(dialect_buildkite.each_job(ynode_doc_root(doc), take_job, c), -1);
    ynode_doc_destroy(doc);
    coverage_destroy(c);
    ck_assert_uint_eq(diag_errors(d), 1);
    ck_assert(diag_has_input_error(d));
    sink_open(&s);
    out = sink_close(&s, d);
    ck_assert_str_eq(out, "fanout: error: cannot check shard coverage (out of memory, or a shard "
                          "pattern hit its match limit) [shard-coverage]\n");
    free(out);
    diag_destroy(d);
    shardflags_destroy(f);
}
END_TEST

START_TEST(cov_empty)
{
    const char *docs[] = {"[]", "{}"};
    unsigned errors;
    char *text = coverage_run(&dialect_buildkite, NULL, docs, 1, &errors);

    ck_assert_str_eq(text, "");
    ck_assert_uint_eq(errors, 0);
    free(text);
    text = coverage_run(&dialect_gha, NULL, docs + 1, 1, &errors);
    ck_assert_str_eq(text, "");
    ck_assert_uint_eq(errors, 0);
    free(text);
}
END_TEST

Suite *shards_suite(void)
{
    Suite *s = suite_create("shards");
    TCase *flags = tcase_create("shardflags");
    TCase *config = tcase_create("configure");
    TCase *cov = tcase_create("coverage");

    tcase_add_test(flags, flags_builtin_runners);
    tcase_add_test(flags, flags_compiled_at_first_use);
    tcase_add_test(flags, flags_equals_form);
    tcase_add_test(flags, flags_space_form);
    tcase_add_test(flags, flags_quoted_values);
    tcase_add_test(flags, flags_value_ends_at_enclosing_quote);
    tcase_add_test(flags, flags_unevaluated_expression);
    tcase_add_test(flags, flags_run_suite_not_diffusion);
    tcase_add_test(flags, flags_diffusion);
    tcase_add_test(flags, flags_pytest_split);
    tcase_add_test(flags, flags_two_commands_in_order);
    tcase_add_test(flags, flags_index_without_count);
    tcase_add_test(flags, flags_near_misses);
    tcase_add_test(flags, flags_after_what);
    tcase_add_test(flags, flags_values_not_flags);
    tcase_add_test(flags, flags_config_without_dashes);
    tcase_add_test(flags, flags_other_programs);
    tcase_add_test(flags, flags_program_word_place);
    tcase_add_test(flags, flags_callback_result);
    tcase_add_test(flags, flags_quick_tail_as_pcre2);
    tcase_add_test(flags, flags_quick_expressions);
    suite_add_tcase(s, flags);
    tcase_add_test(config, config_runner_found);
    tcase_add_test(config, config_runner_cloned);
    tcase_add_test(config, config_errors);
    tcase_add_test(config, config_error_after_good_entry);
    suite_add_tcase(s, config);
    tcase_add_test(cov, cov_bk_consistent);
    tcase_add_test(cov, cov_bk_count_exceeds_jobs);
    tcase_add_test(cov, cov_bk_fanout_across_items);
    tcase_add_test(cov, cov_bk_adjacent_steps_are_separate);
    tcase_add_test(cov, cov_bk_hardcoded_index);
    tcase_add_test(cov, cov_bk_out_of_range);
    tcase_add_test(cov, cov_bk_unknown_value_is_note);
    tcase_add_test(cov, cov_bk_variable_without_parallelism);
    tcase_add_test(cov, cov_bk_many_missing);
    tcase_add_test(cov, cov_bk_flags_missing_in_a_job);
    tcase_add_test(cov, cov_bk_env_and_second_use);
    tcase_add_test(cov, cov_bk_config_runner);
    tcase_add_test(cov, cov_gha_partition_missing);
    tcase_add_test(cov, cov_gha_across_items);
    tcase_add_test(cov, cov_gha_shared_text_once_an_item);
    tcase_add_test(cov, cov_gha_two_vectors);
    tcase_add_test(cov, cov_gha_hardcoded_index);
    tcase_add_test(cov, cov_value_ends_with_match);
    tcase_add_test(cov, cov_gha_split_base_one);
    tcase_add_test(cov, cov_gha_unevaluated_is_note);
    tcase_add_test(cov, cov_match_limit_fails);
    tcase_add_test(cov, cov_empty);
    suite_add_tcase(s, cov);
    return s;
}
