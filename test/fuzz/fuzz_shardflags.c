/* shardflags: the built-in runners' flags found in a hostile command text (the whole
 * input, copied to a buffer of its exact size so a read past it is caught). Besides not
 * crashing, leaking or hanging, every hit names a runner that exists and points into the
 * text: each flag as written starts with "--" and holds its value, if any, after it.
 * The built-in pytest-shard's hits are those of a config runner given the pattern it
 * stands for, run by PCRE2: its flags' tail is matched without PCRE2 where that is sure
 * (tail_quick), and this tells a difference. */
#include <stdlib.h>
#include <string.h>

#include "fanout/diag.h"
#include "fanout/shardflags.h"
#include "fanout/ynode.h"
#include "fuzz.h"

/* The value TAIL_RE matches (shardflags.c), for the config runner "ref". */
#define REF_VALUE "(?!-)(\\$\\{\\{.*?\\}\\}|\\$\\(\\([^)\\n]*\\)\\)|\"[^\"\\n]*\"|'[^'\\n]*'|[^\\s'\"`;&|()<>]+)"
#define MAX_HITS 64

struct text {
    const char *at;
    size_t len;
    size_t runners;
    unsigned builtin, ref; /* pytest-shard and the config runner standing for it */
    size_t n[2];            /* their hits, at most MAX_HITS each */
    struct shardflags_hit h[2][MAX_HITS];
};

static void within(const struct text *t, const char *p, size_t len)
{
    if (p && (p < t->at || len > t->len || (size_t)(p - t->at) > t->len - len))
        abort();
}

static void flag_holds(const char *flag, size_t flag_len, const char *value)
{
    if (!flag)
        return;
    if (flag_len < 2 || memcmp(flag, "--", 2) != 0 || (value && (value < flag || value > flag + flag_len)))
        abort();
}

static int on_hit(void *user, const struct shardflags_hit *h)
{
    struct text *t = user;

    if (h->runner >= t->runners || (!h->count_flag && !h->index_flag))
        abort();
    within(t, h->count, h->count_len);
    within(t, h->index, h->index_len);
    within(t, h->count_flag, h->count_flag_len);
    within(t, h->index_flag, h->index_flag_len);
    flag_holds(h->count_flag, h->count_flag_len, h->count);
    flag_holds(h->index_flag, h->index_flag_len, h->index);
    if (h->runner == t->builtin || h->runner == t->ref) {
        size_t k = h->runner == t->ref;

        if (t->n[k] < MAX_HITS)
            t->h[k][t->n[k]] = *h;
        t->n[k]++;
    }
    return 0;
}

static void same_span(const char *a, size_t a_len, const char *b, size_t b_len)
{
    if (a != b || a_len != b_len)
        abort();
}

/* Built-ins and "ref", the pattern pytest-shard stands for as a config runner. */
static struct shardflags *flags_with_ref(void)
{
    struct shardflags *f = shardflags_create();
    struct ynode_doc *doc = ynode_doc_create();
    struct ynode *list, *e;
    struct diag *d = diag_create_buffered(DIAG_TEXT);

    if (!f || !doc || !d)
        abort();
    list = ynode_new_seq(doc, (struct ypos){0});
    e = ynode_new_map(doc, (struct ypos){0});
    ynode_set(doc, e, "name", ynode_new_string(doc, "ref", 3, (struct ypos){0}));
    ynode_set(doc, e, "count", ynode_new_plain(doc, "(?<![\\w-])--num-shards(?:=|[ \\t]+)" REF_VALUE, (struct ypos){0}));
    ynode_set(doc, e, "index", ynode_new_plain(doc, "(?<![\\w-])--shard-id(?:=|[ \\t]+)" REF_VALUE, (struct ypos){0}));
    ynode_set(doc, e, "program", ynode_new_plain(doc, "pytest", (struct ypos){0}));
    ynode_append(doc, list, e);
    if (shardflags_configure(f, list, "cfg.yml", d) != 0)
        abort();
    ynode_doc_destroy(doc);
    diag_destroy(d);
    return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct shardflags *flags;
    struct text t;
    char *copy;

    if (!flags)
        flags = flags_with_ref();
    if (!(copy = malloc(size ? size : 1)))
        return 0;
    memcpy(copy, data, size);
    t.at = copy;
    t.len = size;
    t.runners = shardflags_runners(flags);
    t.ref = (unsigned)t.runners - 1;
    for (t.builtin = 0; strcmp(shardflags_name(flags, t.builtin), "pytest-shard") != 0; t.builtin++)
        ;
    t.n[0] = t.n[1] = 0;
    if (shardflags_scan(flags, copy, size, on_hit, &t) >= 0) {
        if (t.n[0] != t.n[1])
            abort();
        for (size_t i = 0; i < t.n[0] && i < MAX_HITS; i++) {
            const struct shardflags_hit *a = &t.h[0][i], *b = &t.h[1][i];

            same_span(a->count, a->count_len, b->count, b->count_len);
            same_span(a->index, a->index_len, b->index, b->index_len);
            same_span(a->count_flag, a->count_flag_len, b->count_flag, b->count_flag_len);
            same_span(a->index_flag, a->index_flag_len, b->index_flag, b->index_flag_len);
        }
    }
    free(copy);
    return 0;
}
