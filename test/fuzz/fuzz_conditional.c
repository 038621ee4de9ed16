/* conditional: Buildkite's `if:` language (src/dialect/buildkite/conditional.c) on hostile
 * expressions. The input is an expression, then after a 0xFF byte the build's values
 * (KEY=VALUE;...). Besides not crashing, leaking or hanging: what is decided without any
 * value stays decided with them (true stays true, false false), unless a value makes the
 * expression fail (a runtime error: invalid). */
#include <stdlib.h>
#include <string.h>

#include "../../src/dialect/buildkite/conditional.h"
#include "fuzz.h"

struct values {
    const char *list;
    size_t len;
    char value[256];
};

static const char *none(void *user, const char *key)
{
    (void)user;
    (void)key;
    return NULL;
}

static const char *given(void *user, const char *key)
{
    struct values *v = user;
    size_t klen = strlen(key);

    for (const char *p = v->list, *end = v->list + v->len; p < end;) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        size_t n = semi ? (size_t)(semi - p) : (size_t)(end - p);

        if (n > klen && p[klen] == '=' && !memcmp(p, key, klen) && n - klen - 1 < sizeof(v->value) &&
            !memchr(p, '\0', n)) {
            memcpy(v->value, p + klen + 1, n - klen - 1);
            v->value[n - klen - 1] = '\0';
            return v->value;
        }
        p += n + 1;
    }
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct values v;
    const uint8_t *rest;
    size_t len, rlen;
    char why[160];
    enum bkc_verdict alone, with;

    fuzz_split(data, size, &len, &rest, &rlen);
    v.list = (const char *)rest;
    v.len = rlen;
    alone = bkc_decide((const char *)data, len, none, NULL, why, sizeof(why));
    with = bkc_decide((const char *)data, len, given, &v, why, sizeof(why));
    if ((alone == BKC_TRUE || alone == BKC_FALSE) && with != alone && with != BKC_INVALID)
        abort();
    if (alone == BKC_INVALID && with != BKC_INVALID && len && !memchr(data, '$', len))
        abort();
    return 0;
}
