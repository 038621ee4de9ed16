/* assign: each runner's assignment, on the worked examples of the sharding notes
 * (shared/notes/sharding.md, section 1's table), on values Python computes, on
 * ci-infra's own examples, and on small cases that tell the algorithms' tie rules apart. */
#include <stdio.h>
#include <string.h>

#include "fanout/assign.h"
#include "unit.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Fills `t` with ids[i] and secs[i] (secs NULL: 1 s each), in collection order. */
static void set_tests(struct assign_test *t, size_t n, const char *const *ids,
                      const double *secs)
{
    for (size_t i = 0; i < n; i++) {
        t[i] = (struct assign_test){ids[i], strlen(ids[i]), secs ? secs[i] : 1.0, i, 7, 7};
    }
}

/* Checks every test's shard, and its seq when `seq` is given. */
static void expect(const struct assign_test *t, size_t n, const unsigned *shard,
                   const size_t *seq)
{
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(t[i].shard == shard[i], "test %zu (%s): shard %u, expected %u", i,
                      t[i].id, t[i].shard, shard[i]);
        if (seq)
            ck_assert_msg(t[i].seq == seq[i], "test %zu (%s): seq %zu, expected %zu", i,
                          t[i].id, t[i].seq, seq[i]);
    }
}

/* Checks that each shard runs its tests in collection order: seq counts the shard's
 * earlier tests. */
static void expect_collection_seq(const struct assign_test *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t before = 0;

        for (size_t j = 0; j < i; j++)
            before += t[j].shard == t[i].shard;
        ck_assert_msg(t[i].seq == before, "test %zu: seq %zu, expected %zu", i, t[i].seq,
                      before);
    }
}

START_TEST(algo_table)
{
    static const char *const names[ASSIGN_N_ALGOS] = {
        "pytest-shard@0.1.2", "pytest-shard@0.1.1", "pytest-split@least_duration",
        "pytest-split@duration_based_chunks", "sglang-lpt@legacy", "sglang-lpt@registry",
        "ci-infra-contiguous", "round-robin"};

    for (int i = 0; i < ASSIGN_N_ALGOS; i++) {
        const struct assign_algo_info *info = assign_algo_info((enum assign_algo)i);

        ck_assert_int_eq(assign_algo_find(names[i]), i);
        ck_assert_str_eq(info->name, names[i]);
        ck_assert(info->per_test == (i <= ASSIGN_PYTEST_SHARD_011));
        ck_assert(info->uses_durations == (i >= ASSIGN_SPLIT_LEAST && i <= ASSIGN_CONTIGUOUS));
        ck_assert_uint_eq(info->first_index,
                          i == ASSIGN_SPLIT_LEAST || i == ASSIGN_SPLIT_CHUNKS ? 1 : 0);
    }
    ck_assert_int_eq(assign_algo_find("pytest-shard"), -1);
    ck_assert_int_eq(assign_algo_find("round-robin "), -1);
    ck_assert_ptr_null(assign_algo_info(ASSIGN_N_ALGOS));
}
END_TEST

/* The notes' section 1 worked examples: d[0] of the SHA-256 (so N=256 gives d[0]),
 * 0.1.2 at N=4 and N=3, 0.1.1 (MD5) at N=4. */
static const struct {
    const char *id;
    unsigned d0, sha4, sha3, md5_4;
} table[] = {
    {"tests/models/language/pooling/test_embedding.py::test_models[model0]", 0x95, 1, 1, 1},
    {"tests/models/language/pooling/test_embedding.py::test_models[model1]", 0x87, 3, 0, 0},
    {"tests/models/language/pooling/test_embedding.py::test_models[model2]", 0x66, 2, 2, 2},
    {"tests/models/language/pooling/test_embedding.py::test_models[model3]", 0xe4, 0, 0, 0},
    {"tests/models/test_initialization.py::test_can_initialize_large_subset[LlamaForCausalLM]",
     0x5e, 2, 2, 1},
    {"tests/models/test_initialization.py::"
     "test_can_initialize_large_subset[Qwen3MoeForCausalLM]",
     0x94, 0, 1, 0},
    {"tests/kernels/core/test_layernorm.py::test_rms_norm[cuda:0-0-True-dtype0-5120-83]", 0xce,
     2, 0, 2},
    {"tests/entrypoints/llm/test_generate.py::test_multiple_sampling_params", 0x7c, 0, 1, 2},
    /* pytest's escaped parameter: the four characters \ x e 9, twice */
    {"tests/tokenization/test_detokenize.py::test_decode_streaming[\\xe9t\\xe9-mistralai/"
     "Pixtral-12B-2409]",
     0x3d, 1, 0, 0},
    /* the same in UTF-8: "été" is c3 a9 74 c3 a9 */
    {"tests/tokenization/test_detokenize.py::test_decode_streaming[\xc3\xa9t\xc3\xa9"
     "-mistralai/Pixtral-12B-2409]",
     0x08, 0, 0, 2},
    {"models/language/pooling/test_embedding.py::test_models[model0]", 0x39, 1, 1, 2},
};

START_TEST(pytest_shard_worked_examples)
{
    /* the escapes above are what they claim to be */
    ck_assert_ptr_nonnull(strstr(table[8].id, "[\\xe9t\\xe9-"));
    ck_assert_uint_eq(strlen(table[8].id) - strlen(table[9].id), 9 - 5);
    for (size_t i = 0; i < N_OF(table); i++) {
        const char *id = table[i].id;
        size_t len = strlen(id);

        ck_assert_msg(assign_shard_of(ASSIGN_PYTEST_SHARD_012, id, len, 256) == table[i].d0,
                      "row %zu: d[0]", i + 1);
        ck_assert_msg(assign_shard_of(ASSIGN_PYTEST_SHARD_012, id, len, 4) == table[i].sha4,
                      "row %zu: 0.1.2 N=4", i + 1);
        ck_assert_msg(assign_shard_of(ASSIGN_PYTEST_SHARD_012, id, len, 3) == table[i].sha3,
                      "row %zu: 0.1.2 N=3", i + 1);
        ck_assert_msg(assign_shard_of(ASSIGN_PYTEST_SHARD_011, id, len, 4) == table[i].md5_4,
                      "row %zu: 0.1.1 N=4", i + 1);
    }
}
END_TEST

/* Computed with python3 (3.11) hashlib, for each id s:
 *   int.from_bytes(hashlib.sha256(s.encode()).digest(), 'little') % N   (0.1.2)
 *   int(hashlib.md5(s.encode()).hexdigest(), 16) % N                     (0.1.1)
 * for N = 5, 7 and 4294967295 (UINT_MAX: Horner's r * 256 must not overflow). */
static const struct {
    const char *id;
    unsigned sha5, sha7, md5_5, md5_7, sha_max, md5_max;
} python[] = {
    {"", 4, 3, 1, 1, 3870771799u, 966167286u},
    {"tests/test_a.py::test_one", 4, 4, 0, 4, 231598829u, 1166639305u},
    {"tests/test_a.py::TestClass::test_method", 4, 1, 0, 6, 4155432044u, 2512751930u},
    {"tests/lora/test_llama_tp.py::test_llama_lora[1-True]", 1, 1, 4, 4, 2048233496u,
     3070568249u},
    {"tests/v1/engine/test_engine_core.py::test_engine_core", 3, 4, 4, 5, 17684098u,
     766438229u},
    {"tests/samplers/test_sampler.py::test_sampler_mixed[cuda:1]", 4, 5, 0, 4, 403656404u,
     3507988150u},
    {"tests/quantization/test_fp8.py::test_kv_cache_model_load_and_run[meta-llama/"
     "Llama-3.2-1B-Instruct]",
     1, 6, 1, 5, 1659024946u, 2297651906u},
    {"tests/spec_decode/test_ngram.py::test_ngram_proposer[\\u4e2d-2]", 0, 6, 1, 4,
     2447759660u, 904731721u},
    {"tests/basic_correctness/test_basic_correctness.py::test_models[True-FLASH_ATTN-5-"
     "distilbert/distilgpt2]",
     3, 0, 1, 2, 4142347923u, 3387967821u},
    {"tests/compile/test_full_graph.py::test_full_graph[model_info0-0]", 2, 4, 3, 4,
     4011244667u, 3537205998u},
    /* "tests/test_naïve.py::test_日本語" */
    {"tests/test_na\xc3\xaf" "ve.py::test_\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 4, 6, 2, 2,
     1771836314u, 1023504582u},
};

START_TEST(pytest_shard_python_values)
{
    for (size_t i = 0; i < N_OF(python); i++) {
        const char *id = python[i].id;
        size_t len = strlen(id);

        ck_assert_msg(assign_shard_of(ASSIGN_PYTEST_SHARD_012, id, len, 5) == python[i].sha5,
                      "id %zu: 0.1.2 N=5", i);
        ck_assert_msg(assign_shard_of(ASSIGN_PYTEST_SHARD_012, id, len, 7) == python[i].sha7,
                      "id %zu: 0.1.2 N=7", i);
        ck_assert_msg(assign_shard_of(ASSIGN_PYTEST_SHARD_011, id, len, 5) == python[i].md5_5,
                      "id %zu: 0.1.1 N=5", i);
        ck_assert_msg(assign_shard_of(ASSIGN_PYTEST_SHARD_011, id, len, 7) == python[i].md5_7,
                      "id %zu: 0.1.1 N=7", i);
        ck_assert_msg(assign_shard_of(ASSIGN_PYTEST_SHARD_012, id, len, 4294967295u) ==
                          python[i].sha_max,
                      "id %zu: 0.1.2 N=UINT_MAX", i);
        ck_assert_msg(assign_shard_of(ASSIGN_PYTEST_SHARD_011, id, len, 4294967295u) ==
                          python[i].md5_max,
                      "id %zu: 0.1.1 N=UINT_MAX", i);
    }
    /* the id is its bytes, not a C string: an embedded NUL counts */
    ck_assert_uint_ne(assign_shard_of(ASSIGN_PYTEST_SHARD_012, "a\0b", 3, 256),
                      assign_shard_of(ASSIGN_PYTEST_SHARD_012, "a", 1, 256));
}
END_TEST

/* assign_run with a hash: the shard of the id alone, run in collection order. */
START_TEST(pytest_shard_run)
{
    struct assign_test t[N_OF(table)];
    const char *ids[N_OF(table)];
    size_t seq[N_OF(table)], next[4] = {0};
    unsigned shard[N_OF(table)];

    for (size_t i = 0; i < N_OF(table); i++) {
        ids[i] = table[i].id;
        shard[i] = table[i].sha4;
        seq[i] = next[shard[i]]++;
    }
    set_tests(t, N_OF(t), ids, NULL);
    ck_assert_int_eq(assign_run(ASSIGN_PYTEST_SHARD_012, t, N_OF(t), 4, 0), 4);
    expect(t, N_OF(t), shard, seq);
    /* not a per-test algorithm, or no shards: nowhere */
    ck_assert_uint_eq(assign_shard_of(ASSIGN_ROUND_ROBIN, "x", 1, 4), ASSIGN_NOWHERE);
    ck_assert_uint_eq(assign_shard_of(ASSIGN_PYTEST_SHARD_012, "x", 1, 0), ASSIGN_NOWHERE);
    ck_assert_int_eq(assign_run(ASSIGN_PYTEST_SHARD_012, t, N_OF(t), 0, 0), -1);
}
END_TEST

/* A list's shards for many counts, from digests computed once (one division a test),
 * agree with assign_shard_of's (Horner's rule), which the tests above check against
 * Python. No more than ASSIGN_MAX_SHARDS. */
START_TEST(pytest_shard_prepared_counts)
{
    static const unsigned counts[] = {1, 2, 3, 7, 64, 1000, 99991, 100000, 1000003};
    struct assign_test t[N_OF(python)];
    const char *ids[N_OF(python)];

    for (size_t i = 0; i < N_OF(python); i++)
        ids[i] = python[i].id;
    for (int a = ASSIGN_PYTEST_SHARD_012; a <= ASSIGN_PYTEST_SHARD_011; a++) {
        struct assign_prep *p;

        set_tests(t, N_OF(t), ids, NULL);
        ck_assert_ptr_nonnull(p = assign_prepare((enum assign_algo)a, t, N_OF(t)));
        for (size_t c = 0; c < N_OF(counts); c++) {
            ck_assert_int_eq(assign_prep_run(p, counts[c]), (long)counts[c]);
            for (size_t i = 0; i < N_OF(t); i++)
                ck_assert_msg(t[i].shard ==
                                  assign_shard_of((enum assign_algo)a, ids[i], strlen(ids[i]), counts[c]),
                              "algo %d, N=%u, id %zu: %u", a, counts[c], i, t[i].shard);
            expect_collection_seq(t, N_OF(t));
        }
        ck_assert_int_eq(assign_prep_run(p, ASSIGN_MAX_SHARDS + 1), -1);
        assign_prep_free(p);
    }
}
END_TEST

/* Four files tie at 10 s over 3 partitions. legacy keeps their list order (c, b, a, d),
 * registry sorts them by path (a, b, c, d); both give ties between bins to the lowest
 * index and run a bin's files in the order it got them. */
static const char *const lpt_ids[] = {"test/c.py", "test/b.py", "test/a.py", "test/d.py"};
static const double lpt_secs[] = {10, 10, 10, 10};

START_TEST(lpt_legacy_ties_by_index)
{
    struct assign_test t[4];
    static const unsigned shard[] = {0, 1, 2, 0};
    static const size_t seq[] = {0, 0, 0, 1};

    set_tests(t, 4, lpt_ids, lpt_secs);
    ck_assert_int_eq(assign_run(ASSIGN_LPT_LEGACY, t, 4, 3, 0), 3);
    expect(t, 4, shard, seq);
}
END_TEST

START_TEST(lpt_registry_ties_by_path)
{
    struct assign_test t[4];
    static const unsigned shard[] = {2, 1, 0, 0};
    static const size_t seq[] = {0, 0, 0, 1};

    set_tests(t, 4, lpt_ids, lpt_secs);
    ck_assert_int_eq(assign_run(ASSIGN_LPT_REGISTRY, t, 4, 3, 0), 3);
    expect(t, 4, shard, seq);
}
END_TEST

/* A bin runs its files longest first, whatever their collection order. */
START_TEST(lpt_runs_in_assignment_order)
{
    static const char *const ids[] = {"x.py", "y.py", "z.py", "w.py"};
    static const double secs[] = {1, 5, 3, 3};
    static const unsigned shard[] = {0, 0, 0, 0};
    static const size_t legacy_seq[] = {3, 0, 1, 2}, registry_seq[] = {3, 0, 2, 1};
    struct assign_test t[4];

    set_tests(t, 4, ids, secs);
    ck_assert_int_eq(assign_run(ASSIGN_LPT_LEGACY, t, 4, 1, 0), 1);
    expect(t, 4, shard, legacy_seq);
    set_tests(t, 4, ids, secs);
    ck_assert_int_eq(assign_run(ASSIGN_LPT_REGISTRY, t, 4, 1, 0), 1);
    expect(t, 4, shard, registry_seq);
}
END_TEST

/* More partitions than files: legacy gives every partition nothing, registry leaves the
 * high ones empty. */
START_TEST(lpt_more_shards_than_tests)
{
    static const unsigned nowhere[] = {ASSIGN_NOWHERE, ASSIGN_NOWHERE, ASSIGN_NOWHERE};
    static const unsigned spread[] = {0, 1, 2}, by_path[] = {2, 1, 0};
    static const size_t zero[] = {0, 0, 0};
    struct assign_test t[3];

    set_tests(t, 3, lpt_ids, lpt_secs);
    ck_assert_int_eq(assign_run(ASSIGN_LPT_LEGACY, t, 3, 4, 0), 4);
    expect(t, 3, nowhere, zero);
    set_tests(t, 3, lpt_ids, lpt_secs);
    ck_assert_int_eq(assign_run(ASSIGN_LPT_LEGACY, t, 3, 3, 0), 3); /* N = files: runs */
    expect(t, 3, spread, zero);
    set_tests(t, 3, lpt_ids, lpt_secs);
    ck_assert_int_eq(assign_run(ASSIGN_LPT_REGISTRY, t, 3, 4, 0), 4);
    expect(t, 3, by_path, zero);
}
END_TEST

/* While shards are empty, the lowest empty one is the lightest: the tests that take time
 * go to shards 0, 1, ... in turn; a test of 0 s leaves its shard at 0, so the next one
 * joins it (Python's min over (sum, index) picks it again). Checked by hand against
 * run_suite.py's rule: 5 -> 0, 3 -> 1, then a.py (0 s) -> 2 and b.py (0 s) -> 2. */
START_TEST(lpt_empty_shards_and_zero_durations)
{
    static const char *const ids[] = {"b.py", "x.py", "a.py", "y.py"};
    static const double secs[] = {0, 5, 0, 3};
    static const unsigned shard[] = {2, 0, 2, 1};
    static const size_t seq[] = {1, 0, 0, 0};
    struct assign_test t[4];

    set_tests(t, 4, ids, secs);
    ck_assert_int_eq(assign_run(ASSIGN_LPT_REGISTRY, t, 4, 6, 0), 6);
    expect(t, 4, shard, seq);
}
END_TEST

/* One preparation serves every count, in any order, as a fresh run would. */
START_TEST(lpt_prepared_counts)
{
    static const char *const ids[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
    static const double secs[] = {4, 9, 0, 2, 9, 7, 1, 0, 3};
    static const unsigned counts[] = {3, 1, 12, 2, 9, 4};
    struct assign_test t[9], fresh[9];

    for (int a = ASSIGN_SPLIT_LEAST; a <= ASSIGN_LPT_REGISTRY; a++) {
        struct assign_prep *p;

        if (a == ASSIGN_SPLIT_CHUNKS)
            continue;
        set_tests(t, 9, ids, secs);
        ck_assert_ptr_nonnull(p = assign_prepare((enum assign_algo)a, t, 9));
        for (size_t c = 0; c < N_OF(counts); c++) {
            set_tests(fresh, 9, ids, secs);
            ck_assert_int_eq(assign_run((enum assign_algo)a, fresh, 9, counts[c], 0), (long)counts[c]);
            ck_assert_int_eq(assign_prep_run(p, counts[c]), (long)counts[c]);
            for (size_t i = 0; i < 9; i++)
                ck_assert_msg(t[i].shard == fresh[i].shard && t[i].seq == fresh[i].seq,
                              "algo %d, N=%u, test %zu", a, counts[c], i);
        }
        assign_prep_free(p);
    }
    ck_assert_ptr_null(assign_prepare(ASSIGN_CONTIGUOUS, t, 9));
}
END_TEST

/* Equal durations are ordered by the test's name, not its path or collection index
 * (test_a before test_b although m.py's test_b is collected first, n.py's test_c before
 * a.py's test_d); the groups then run in collection order. */
START_TEST(least_duration_ties_by_name)
{
    static const char *const ids[] = {"m.py::test_b", "m.py::test_a", "n.py::test_c",
                                      "a.py::test_d"};
    static const double secs[] = {3, 3, 2, 2};
    static const unsigned shard[] = {1, 0, 0, 1};
    static const size_t seq[] = {0, 0, 1, 1};
    struct assign_test t[4];

    set_tests(t, 4, ids, secs);
    ck_assert_int_eq(assign_run(ASSIGN_SPLIT_LEAST, t, 4, 2, 0), 2);
    expect(t, 4, shard, seq);
}
END_TEST

/* str(item) is "<Function NAME>": "test_a1>" sorts before "test_a>" ('1' < '>'); the
 * name is after the last "::" before the parameters, which may hold "::" themselves
 * ("test_q[x::zz]" before "test_q[y]"); a class is not part of it. */
START_TEST(least_duration_pytest_name_order)
{
    static const char *const ids[] = {"f.py::test_a", "f.py::test_a1"};
    static const char *const params[] = {"a.py::test_q[y]", "z.py::test_q[x::zz]"};
    static const char *const classes[] = {"a.py::TestA::test_n", "b.py::TestZ::test_m"};
    static const unsigned second_first[] = {1, 0};
    static const size_t zero[] = {0, 0};
    struct assign_test t[2];

    set_tests(t, 2, ids, NULL);
    ck_assert_int_eq(assign_run(ASSIGN_SPLIT_LEAST, t, 2, 2, 0), 2);
    expect(t, 2, second_first, zero);
    set_tests(t, 2, params, NULL);
    ck_assert_int_eq(assign_run(ASSIGN_SPLIT_LEAST, t, 2, 2, 0), 2);
    expect(t, 2, second_first, zero);
    set_tests(t, 2, classes, NULL);
    ck_assert_int_eq(assign_run(ASSIGN_SPLIT_LEAST, t, 2, 2, 0), 2);
    expect(t, 2, second_first, zero);
}
END_TEST

/* The longest goes first to the emptiest group; a group runs in collection order. */
START_TEST(least_duration_restores_order)
{
    static const char *const ids[] = {"t.py::a", "t.py::b", "t.py::c", "t.py::d", "t.py::e"};
    static const double secs[] = {2, 3, 4, 5, 10000};
    static const unsigned shard[] = {1, 1, 1, 1, 0};
    static const size_t seq[] = {0, 1, 2, 3, 0};
    struct assign_test t[5];

    set_tests(t, 5, ids, secs);
    ck_assert_int_eq(assign_run(ASSIGN_SPLIT_LEAST, t, 5, 2, 0), 2);
    expect(t, 5, shard, seq);
}
END_TEST

static void chunks_case(const double *secs, size_t n, unsigned groups, const unsigned *shard)
{
    static const char *const ids[] = {"t::a", "t::b", "t::c", "t::d", "t::e", "t::f"};
    struct assign_test t[6];

    ck_assert_uint_le(n, 6);
    set_tests(t, n, ids, secs);
    ck_assert_int_eq(assign_run(ASSIGN_SPLIT_CHUNKS, t, n, groups, 0), groups);
    expect(t, n, shard, NULL);
    expect_collection_seq(t, n);
}

/* A group is left once its sum has reached total/N, checked before adding a test. */
START_TEST(chunks_boundaries)
{
    /* total/N = 4: the group that reaches 4 exactly is full */
    chunks_case((const double[]){2, 2, 2, 2}, 4, 2, (const unsigned[]){0, 0, 1, 1});
    /* 3 < 4, so the 3 s test joins: the first group overshoots to 6 */
    chunks_case((const double[]){3, 3, 2}, 3, 2, (const unsigned[]){0, 0, 1});
    /* the long test last: groups 1 and 2 stay empty */
    chunks_case((const double[]){1, 1, 10}, 3, 3, (const unsigned[]){0, 0, 0});
    /* zero durations: total/N = 0 is reached at once, so group 0 stays empty ... */
    chunks_case((const double[]){0, 0}, 2, 3, (const unsigned[]){1, 2});
    /* ... and past the last group (where upstream raises IndexError) the rest stays there */
    chunks_case((const double[]){0, 0, 0}, 3, 2, (const unsigned[]){1, 1, 1});
}
END_TEST

/* total is Python's sum(): since 3.12 compensated, so 0.6 + 1.1 + 0.1 is 1.8 and total/3
 * is 0.6, which the first group reaches; added left to right it would be
 * 1.8000000000000003 and the first group would take 1.1 as well (Python 3.11: [0, 0, 1]).
 * The Python 3.12 result was computed with a port of its sum() in Python, which
 * math.fsum confirms. */
START_TEST(chunks_total_as_python_sums)
{
    chunks_case((const double[]){0.6, 1.1, 0.1}, 3, 3, (const unsigned[]){0, 1, 2});
    chunks_case((const double[]){0.3, 0.1, 0.2, 0.3}, 4, 3, (const unsigned[]){0, 1, 1, 2});
}
END_TEST

/* Sorted by bytes (upper case first, a prefix before its extensions, UTF-8 after ASCII,
 * equal ids by collection index), dealt i mod N, run in sorted order. */
START_TEST(round_robin_sorted_bytes)
{
    static const char *const ids[] = {"b", "a", "ab", "B", "\xc3\xa9", "a"};
    /* sorted: B(3) a(1) a(5) ab(2) b(0) é(4) */
    static const unsigned shard[] = {0, 1, 1, 0, 1, 0};
    static const size_t seq[] = {2, 0, 1, 0, 2, 1};
    struct assign_test t[6];

    set_tests(t, 6, ids, NULL);
    ck_assert_int_eq(assign_run(ASSIGN_ROUND_ROBIN, t, 6, 2, 0), 2);
    expect(t, 6, shard, seq);
}
END_TEST

/* One single-test file per duration ("tests/fI.py::test_0"), packed by ci-infra. */
static void contiguous_files(const double *secs, size_t n, double budget, unsigned cap,
                             long shards, const unsigned *shard)
{
    char names[32][32];
    const char *ids[32];
    struct assign_test t[32];

    ck_assert_uint_le(n, 32);
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof(names[i]), "tests/f%zu.py::test_0", i);
        ids[i] = names[i];
    }
    set_tests(t, n, ids, secs);
    ck_assert_int_eq(assign_run(ASSIGN_CONTIGUOUS, t, n, cap, budget), shards);
    expect(t, n, shard, NULL);
    expect_collection_seq(t, n);
}

/* ci-infra runtime_shard.py (vllm-project/ci-infra 320eade6) packing whole files: the
 * cases its test file asserts, and more, all checked against a Python transcription of
 * its contiguous(). */
START_TEST(contiguous_packing)
{
    /* FILL(10) is 6 | 5 3 2 | 2 2; evened at 8: 6 | 5 3 | 2 2 2 */
    contiguous_files((const double[]){6, 5, 3, 2, 2, 2}, 6, 10, 6, 3,
                     (const unsigned[]){0, 1, 1, 2, 2, 2});
    contiguous_files((const double[]){5, 5, 5, 5}, 4, 10, 6, 2, (const unsigned[]){0, 0, 1, 1});
    /* evened, not 12 + 4 */
    contiguous_files((const double[]){4, 4, 4, 4}, 4, 12, 6, 2, (const unsigned[]){0, 0, 1, 1});
    contiguous_files((const double[]){9, 9, 9, 9, 9, 9, 9, 9, 9, 9}, 10, 10, 6, 5,
                     (const unsigned[]){0, 0, 1, 1, 2, 2, 3, 3, 4, 4});
    contiguous_files((const double[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 10, 15, 6, 5,
                     (const unsigned[]){0, 0, 0, 0, 0, 1, 1, 2, 3, 4});
    /* only the largest shard is evened: 9 | 9 | 3, not 6 | 9 | 6 */
    contiguous_files((const double[]){3, 3, 3, 3, 3, 3, 3}, 7, 10, 6, 3,
                     (const unsigned[]){0, 0, 0, 1, 1, 1, 2});
    /* a file over the budget alone: fewer shards than FILL(10)'s 3 */
    contiguous_files((const double[]){20, 6, 6}, 3, 10, 6, 2, (const unsigned[]){0, 1, 1});
    /* a 0 s file sticks to the shard before it */
    contiguous_files((const double[]){5, 0, 5}, 3, 5, 6, 2, (const unsigned[]){0, 0, 1});
    contiguous_files((const double[]){0, 5, 0, 5, 0}, 5, 5, 6, 2,
                     (const unsigned[]){0, 0, 0, 1, 1});
}
END_TEST

/* Thirty 0.1 s files, budget 1: ten 0.1s add up to 0.9999999999999999 <= 1. And all 60
 * halvings count: with fewer than 52 the threshold stays above 1.000002 and the third
 * file would join the first shard (found by comparing step counts in the Python
 * transcription). */
START_TEST(contiguous_doubles)
{
    double secs[30];
    unsigned shard[30];

    for (size_t i = 0; i < 30; i++) {
        secs[i] = 0.1;
        shard[i] = (unsigned)(i / 10);
    }
    contiguous_files(secs, 30, 1, 6, 3, shard);
    contiguous_files((const double[]){2e-6, 1, 2e-6, 2e-6, 1}, 5, 2, 6, 2,
                     (const unsigned[]){0, 0, 1, 1, 1});
}
END_TEST

/* The count: 0 shards and budget 0 are the runner's defaults (at most 6, 1080 s): ten
 * 1100 s files need 10 shards by the budget, but no threshold gives exactly 6 shards, so
 * 5 of two files each (an example of its tests); 600 + 480 s fit 1080 s (a negative budget
 * too), not 1000. A cap of 2 packs 5 s files by three although FILL(10) needs 3 shards.
 * No tests: one (empty) shard. */
START_TEST(contiguous_count)
{
    struct assign_test none[1];

    contiguous_files((const double[]){1100, 1100, 1100, 1100, 1100, 1100, 1100, 1100, 1100,
                                      1100},
                     10, 0, 0, 5, (const unsigned[]){0, 0, 1, 1, 2, 2, 3, 3, 4, 4});
    contiguous_files((const double[]){600, 480}, 2, 0, 0, 1, (const unsigned[]){0, 0});
    contiguous_files((const double[]){600, 480}, 2, -1, 0, 1, (const unsigned[]){0, 0});
    contiguous_files((const double[]){600, 480}, 2, 1000, 0, 2, (const unsigned[]){0, 1});
    contiguous_files((const double[]){5, 5, 5, 5, 5, 5}, 6, 10, 2, 2,
                     (const unsigned[]){0, 0, 0, 1, 1, 1});
    ck_assert_int_eq(assign_run(ASSIGN_CONTIGUOUS, none, 0, 0, 0), 1);
}
END_TEST

static void contiguous_tests(const char *const *ids, const double *secs, size_t n,
                             double budget, long shards, const unsigned *shard)
{
    struct assign_test t[8];

    ck_assert_uint_le(n, 8);
    set_tests(t, n, ids, secs);
    ck_assert_int_eq(assign_run(ASSIGN_CONTIGUOUS, t, n, 0, budget), shards);
    expect(t, n, shard, NULL);
    expect_collection_seq(t, n);
}

/* runtime_shard.py's plan() examples: files are the units (tests grouped by the id
 * before "::", timed at their sum); only a file over the budget is cut, by its tests'
 * times. */
START_TEST(contiguous_files_and_splits)
{
    /* whole files in order: units 700, 600, 150, 300; FILL(1080) makes 2, evened at 1050 */
    static const char *const in_order[] = {
        "tests/model_executor/a.py::test_0", "tests/model_executor/a.py::test_1",
        "tests/model_executor/a.py::test_2", "tests/model_executor/b.py::test_0",
        "tests/model_executor/b.py::test_1", "tests/model_executor/c.py::test_0",
        "tests/entrypoints/test_tensorizer_entrypoint.py::test_0"};
    /* 18 s over a budget of 10, cut into three 6 s tests, three shards */
    static const char *const three[] = {"tests/big.py::test_0", "tests/big.py::test_1",
                                      "tests/big.py::test_2"};
    /* cut by time, not count */
    static const char *const by_time[] = {"tests/big.py::test_0", "tests/big.py::test_1",
                                      "tests/big.py::test_2", "tests/big.py::test_3"};
    /* test_a's cases stay together, test_c's (150 > 100) are cut */
    static const char *const cases[] = {"t/big.py::test_b",    "t/big.py::test_a[v1]",
                                      "t/big.py::test_a[v2]", "t/big.py::test_c[x]",
                                      "t/big.py::test_c[y]", "t/big.py::test_c[z]"};
    /* a function's cases at exactly the budget stay one piece: 100 | 30, not 50 | 80 */
    static const char *const at_budget[] = {"t/big.py::test_a[1]", "t/big.py::test_a[2]",
                                            "t/big.py::test_b"};
    /* a 0 s file is kept */
    static const char *const zero[] = {"tests/a.py::test_0", "tests/a.py::test_1",
                                       "tests/b.py::test_0"};
    /* one 2000 s test is never split: alone in its shard, over the budget */
    static const char *const single[] = {"tests/a.py::test_0", "tests/b.py::test_0",
                                         "tests/c.py::test_0"};

    contiguous_tests(in_order, (const double[]){200, 250, 250, 300, 300, 150, 300}, 7, 1080, 2,
                     (const unsigned[]){0, 0, 0, 1, 1, 1, 1});
    contiguous_tests(three, (const double[]){6, 6, 6}, 3, 10, 3, (const unsigned[]){0, 1, 2});
    contiguous_tests(by_time, (const double[]){170, 10, 10, 10}, 4, 100, 2,
                     (const unsigned[]){0, 1, 1, 1});
    contiguous_tests(cases, (const double[]){60, 30, 30, 50, 50, 50}, 6, 100, 4,
                     (const unsigned[]){0, 1, 1, 2, 2, 3});
    contiguous_tests(at_budget, (const double[]){50, 50, 30}, 3, 100, 2,
                     (const unsigned[]){0, 0, 1});
    contiguous_tests(zero, (const double[]){0, 0, 60}, 3, 1080, 1, (const unsigned[]){0, 0, 0});
    contiguous_tests(single, (const double[]){100, 2000, 100}, 3, 1080, 3,
                     (const unsigned[]){0, 1, 2});
}
END_TEST

/* A file at the budget is one unit although cut it would balance better (10 | 2, not
 * 5 | 7), and a file whose tests are not consecutive is two units (a 2, b 8 | a 2; as
 * one unit a 4 | b 8). */
START_TEST(contiguous_units)
{
    static const char *const whole[] = {"tests/a.py::test_0", "tests/a.py::test_1",
                                        "tests/b.py::test_0"};
    static const char *const apart[] = {"tests/a.py::test_0", "tests/b.py::test_0",
                                        "tests/a.py::test_1"};

    contiguous_tests(whole, (const double[]){5, 5, 2}, 3, 10, 2, (const unsigned[]){0, 0, 1});
    contiguous_tests(apart, (const double[]){2, 8, 2}, 3, 10, 2, (const unsigned[]){0, 0, 1});
}
END_TEST

Suite *assign_suite(void)
{
    Suite *s = suite_create("assign");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, algo_table);
    tcase_add_test(tc, pytest_shard_worked_examples);
    tcase_add_test(tc, pytest_shard_python_values);
    tcase_add_test(tc, pytest_shard_run);
    tcase_add_test(tc, pytest_shard_prepared_counts);
    tcase_add_test(tc, lpt_legacy_ties_by_index);
    tcase_add_test(tc, lpt_registry_ties_by_path);
    tcase_add_test(tc, lpt_runs_in_assignment_order);
    tcase_add_test(tc, lpt_more_shards_than_tests);
    tcase_add_test(tc, lpt_empty_shards_and_zero_durations);
    tcase_add_test(tc, lpt_prepared_counts);
    tcase_add_test(tc, least_duration_ties_by_name);
    tcase_add_test(tc, least_duration_pytest_name_order);
    tcase_add_test(tc, least_duration_restores_order);
    tcase_add_test(tc, chunks_boundaries);
    tcase_add_test(tc, chunks_total_as_python_sums);
    tcase_add_test(tc, round_robin_sorted_bytes);
    tcase_add_test(tc, contiguous_packing);
    tcase_add_test(tc, contiguous_doubles);
    tcase_add_test(tc, contiguous_count);
    tcase_add_test(tc, contiguous_files_and_splits);
    tcase_add_test(tc, contiguous_units);
    suite_add_tcase(s, tc);
    return s;
}
