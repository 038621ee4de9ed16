/* A mutator that knows YAML: byte flips mostly make inputs fanout refuses at the first
 * token, while the bugs sit behind well-formed trees with a value of the wrong shape in
 * the wrong place. Used by the structure-aware harnesses through FUZZ_YAML_MUTATOR. */
#define _GNU_SOURCE
#include "fuzz.h"

#include <libfyaml.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fanout/source.h"

#define MAX_PARTS 4
#define MAX_SLOTS 4096
/* Deeper than fanout reads (STREAM_MAX_DEPTH): a node copied into its own subtree again
 * and again nests without end, and libfyaml's emitter then writes indentation for ever. */
#define MAX_DEPTH 64

/* What a scalar may become: expressions of each context, numbers GitHub's and
 * Buildkite's readers take differently, placeholders and variables. */
static const char *const tokens[] = {
    "${{ matrix.x }}", "${{ fromJSON('[1,2]') }}", "${{ inputs.x }}", "${{ github.sha }}",
    "${{ strategy.job-index }}", "${{ matrix }}", "${{ toJSON(matrix) }}", "${{ }}", "${{",
    "${{ format('{0}', 1) }}", "${{ needs.a.outputs.x }}", "${{ fromJSON(inputs.x) }}",
    "1e308", "-1e308", "-0", "0x10", "0o17", "99999999999999999999", "-1", "0", "1.5", ".nan", ".inf",
    "~", "null", "true", "no", "", " ", "{{matrix.x}}", "{{ matrix }}", "{{matrix.y}}", "$VAR", "${VAR}",
    "${VAR:-x}", "$$VAR", "$BUILDKITE_PARALLEL_JOB", "%N", "100%%N", "##[error]x", "::error::x",
    "a\nb", "\x1b[31m", "workflow_call", "./.github/workflows/b.yml", "./.github/workflows/a.yml",
};

/* A place a node sits: a mapping pair (its key or value) or a sequence item. */
struct slot {
    struct fy_document *doc;
    struct fy_node *node, *parent; /* the mapping of a pair, the sequence of an item */
    struct fy_node_pair *pair;
    bool key;
};

struct mutation {
    struct fy_document *docs[MAX_PARTS];
    size_t n_docs;
    struct fy_diag *diag; /* libfyaml's messages, kept from the fuzzer's log */
    struct slot slots[MAX_SLOTS];
    size_t n_slots;
    bool too_deep; /* then the input goes to the byte mutator */
    unsigned rand;
};

static unsigned next(struct mutation *m, unsigned below)
{
    m->rand = m->rand * 1103515245u + 12345u;
    return below ? (m->rand >> 8) % below : 0;
}

static void collect(struct mutation *m, struct fy_document *doc, struct fy_node *n, unsigned depth)
{
    if (depth > MAX_DEPTH) {
        m->too_deep = true;
        return;
    }
    if (fy_node_is_mapping(n)) {
        for (int i = 0, len = fy_node_mapping_item_count(n); i < len && m->n_slots + 2 <= MAX_SLOTS; i++) {
            struct fy_node_pair *p = fy_node_mapping_get_by_index(n, i);

            m->slots[m->n_slots++] = (struct slot){doc, fy_node_pair_key(p), n, p, true};
            m->slots[m->n_slots++] = (struct slot){doc, fy_node_pair_value(p), n, p, false};
            collect(m, doc, fy_node_pair_value(p), depth + 1);
        }
    } else if (fy_node_is_sequence(n)) {
        for (int i = 0, len = fy_node_sequence_item_count(n); i < len && m->n_slots < MAX_SLOTS; i++) {
            struct fy_node *item = fy_node_sequence_get_by_index(n, i);

            m->slots[m->n_slots++] = (struct slot){doc, item, n, NULL, false};
            collect(m, doc, item, depth + 1);
        }
    }
}

/* Whether `with` can become a key of `map`: libfyaml compares a new key with the others
 * and crashes on an empty key (`? : x`), so only a scalar, in a mapping of scalar keys. */
static bool keys_comparable(struct fy_node *map, struct fy_node *with)
{
    if (!fy_node_is_scalar(with))
        return false;
    for (int i = 0, len = fy_node_mapping_item_count(map); i < len; i++) {
        struct fy_node *key = fy_node_pair_key(fy_node_mapping_get_by_index(map, i));

        if (!key || !fy_node_is_scalar(key)) /* libfyaml takes a NULL node for a scalar */
            return false;
    }
    return true;
}

/* Puts `with` (a node of the slot's document) where the slot's node is. */
static void replace(struct slot *s, struct fy_node *with)
{
    int rc;

    if (!with)
        return;
    if (s->key && !keys_comparable(s->parent, with)) {
        rc = -1;
    } else if (s->pair) {
        rc = s->key ? fy_node_pair_set_key(s->pair, with) : fy_node_pair_set_value(s->pair, with);
    } else {
        rc = fy_node_sequence_insert_after(s->parent, s->node, with);
        if (rc == 0)
            fy_node_free(fy_node_sequence_remove(s->parent, s->node));
    }
    if (rc != 0)
        fy_node_free(with);
}

static void mutate_once(struct mutation *m)
{
    struct slot *s = &m->slots[next(m, (unsigned)m->n_slots)];
    struct slot *other = &m->slots[next(m, (unsigned)m->n_slots)];

    switch (next(m, 5)) {
    case 0: /* a scalar becomes a token */
    case 1: {
        const char *t = tokens[next(m, sizeof(tokens) / sizeof(tokens[0]))];

        replace(s, fy_node_create_scalar_copy(s->doc, t, strlen(t)));
        break;
    }
    case 2: /* a list emptied */
        if (fy_node_is_sequence(s->node)) {
            while (fy_node_sequence_item_count(s->node) > 0)
                fy_node_free(fy_node_sequence_remove(s->node, fy_node_sequence_get_by_index(s->node, 0)));
        } else if (fy_node_is_mapping(s->node) && s->pair && !s->key) {
            replace(s, fy_node_create_sequence(s->doc));
        }
        break;
    default: /* a node copied over another, in this part or another (a key to a value...) */
        if (s->node != other->node && other->node)
            replace(s, fy_node_copy(s->doc, other->node));
        break;
    }
}

/* The parts' emitted texts, joined at FUZZ_SPLIT after the option bytes; 0 when they do
 * not fit. All are emitted before any is written: a parsed scalar's text stays in `data`
 * (libfyaml reads a string in place), so writing a part over it changed a later part's
 * plain scalar under the emitter, which then wrote indentation for ever (CI's config
 * smoke run: mutator-hang). */
static size_t emit_all(struct mutation *m, uint8_t *data, size_t skip, size_t max_size)
{
    char *texts[MAX_PARTS] = {0};
    size_t len = skip, total = skip;
    bool fits = true;

    for (size_t i = 0; i < m->n_docs && fits; i++) {
        texts[i] = fy_emit_document_to_string(m->docs[i], FYECF_DEFAULT);
        fits = texts[i] && (total += strlen(texts[i]) + (i > 0)) <= max_size;
    }
    for (size_t i = 0; i < m->n_docs && fits; i++) {
        size_t n = strlen(texts[i]);

        if (i > 0)
            data[len++] = FUZZ_SPLIT;
        memcpy(data + len, texts[i], n);
        len += n;
    }
    for (size_t i = 0; i < m->n_docs; i++)
        free(texts[i]);
    return fits ? len : 0;
}

/* Parses the parts; false when one does not parse, would make libfyaml's emitter leak
 * (three quotes in a row become six in a single-quoted scalar: fuzz_skip) or is not
 * UTF-8: fanout refuses such a text before libfyaml sees it, and libfyaml 0.7.12 loops
 * for ever on a directive holding a byte that is not UTF-8, after any line break (hostile
 * utf8-directive-hang; a `\r` before the `%` hung CI's config smoke run). */
static bool parse_all(struct mutation *m, const uint8_t *data, size_t size)
{
    struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_SLOPPY_FLOW_INDENTATION, .diag = m->diag};

    while (m->n_docs < MAX_PARTS) {
        const uint8_t *rest;
        size_t len, rest_len;
        struct fy_document *doc;

        fuzz_split(data, size, &len, &rest, &rest_len);
        if (memmem(data, len, "'''", 3) || !source_check_utf8(data, len, NULL, NULL, NULL) ||
            !(doc = fy_document_build_from_string(&cfg, (const char *)data, len)))
            return false;
        m->docs[m->n_docs++] = doc;
        if (rest == data + size)
            return true;
        data = rest;
        size = rest_len;
    }
    return false;
}

/* libFuzzer's -timeout covers the target, not a custom mutator: a mutation that never
 * ends would hang the run until CI's own limit. A watchdog thread ends the process when
 * one mutation runs longer than this, its input saved in FUZZ_ARTIFACT_PREFIX (the
 * directory libFuzzer saves a crash in, given by `make fuzz`). */
#define MUTATION_SECONDS 20

static _Atomic time_t mutation_started; /* 0: no mutation running */
static uint8_t *watched;                /* a copy of the input being mutated */
static size_t watched_len;

static void *watchdog(void *unused)
{
    (void)unused;
    for (;;) {
        time_t since = atomic_load(&mutation_started);
        const char *prefix = getenv("FUZZ_ARTIFACT_PREFIX");
        char path[4096];
        FILE *f;

        if (since == 0 || time(NULL) - since <= MUTATION_SECONDS) {
            sleep(1);
            continue;
        }
        snprintf(path, sizeof(path), "%smutator-hang-%ld", prefix ? prefix : "./", (long)getpid());
        if ((f = fopen(path, "wb")) != NULL) {
            fwrite(watched, 1, watched_len, f);
            fclose(f);
        }
        fprintf(stderr, "fuzz: one mutation ran for more than %d s; its input is saved as %s\n",
                MUTATION_SECONDS, path);
        _exit(1);
    }
    return NULL;
}

/* The thread blocks every signal: libFuzzer's -timeout alarm and a crash's signals must
 * reach the fuzzing thread, which ignores an alarm delivered elsewhere. */
static void watchdog_start(void)
{
    sigset_t all, old;
    pthread_t thread;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&thread, NULL, watchdog, NULL) != 0)
        abort();
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_detach(thread);
}

/* Starts the clock on a mutation of `data`: the watchdog's copy is taken first. */
static void watch(const uint8_t *data, size_t size)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    static size_t cap;

    pthread_once(&once, watchdog_start);
    if (size > cap) {
        free(watched);
        cap = size;
        if (!(watched = malloc(cap)))
            abort();
    }
    memcpy(watched, data, size);
    watched_len = size;
    atomic_store(&mutation_started, time(NULL));
}

size_t fuzz_yaml_mutate(uint8_t *data, size_t size, size_t max_size, unsigned seed, size_t skip)
{
    struct mutation *m = calloc(1, sizeof(*m));
    struct fy_diag_cfg dcfg;
    size_t out = 0;

    if (!m)
        abort();
    watch(data, size);
    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    dcfg.output_fn = NULL;
    if (!(m->diag = fy_diag_create(&dcfg)))
        abort();
    fy_diag_set_collect_errors(m->diag, true);
    m->rand = seed;
    if (size > skip && next(m, 4) != 0 && parse_all(m, data + skip, size - skip)) {
        for (unsigned k = 1 + next(m, 3); k > 0; k--) {
            m->n_slots = 0; /* a mutation frees nodes: the places are found again */
            for (size_t i = 0; i < m->n_docs; i++)
                collect(m, m->docs[i], fy_document_root(m->docs[i]), 0);
            if (m->n_slots > 0)
                mutate_once(m);
        }
        out = m->too_deep ? 0 : emit_all(m, data, skip, max_size);
    }
    for (size_t i = 0; i < m->n_docs; i++)
        fy_document_destroy(m->docs[i]);
    fy_diag_destroy(m->diag);
    free(m);
    if (out == 0) {
        out = LLVMFuzzerMutate(data, size, max_size);
        if (out == 0 && max_size > 0)
            data[out++] = 0;
    }
    atomic_store(&mutation_started, 0);
    return out;
}
