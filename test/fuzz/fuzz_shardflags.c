/* shardflags: the built-in runners' flags found in a hostile command text (the whole
 * input, copied to a buffer of its exact size so a read past it is caught). Besides not
 * crashing, leaking or hanging, every hit names a runner that exists and points into the
 * text: each flag as written starts with "--" and holds its value, if any, after it. */
#include <stdlib.h>
#include <string.h>

#include "fanout/shardflags.h"
#include "fuzz.h"

struct text {
    const char *at;
    size_t len;
    size_t runners;
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
    const struct text *t = user;

    if (h->runner >= t->runners || (!h->count_flag && !h->index_flag))
        abort();
    within(t, h->count, h->count_len);
    within(t, h->index, h->index_len);
    within(t, h->count_flag, h->count_flag_len);
    within(t, h->index_flag, h->index_flag_len);
    flag_holds(h->count_flag, h->count_flag_len, h->count);
    flag_holds(h->index_flag, h->index_flag_len, h->index);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct shardflags *flags;
    struct text t;
    char *copy;

    if (!flags && !(flags = shardflags_create()))
        abort();
    if (!(copy = malloc(size ? size : 1)))
        return 0;
    memcpy(copy, data, size);
    t.at = copy;
    t.len = size;
    t.runners = shardflags_runners(flags);
    shardflags_scan(flags, copy, size, on_hit, &t);
    free(copy);
    return 0;
}
