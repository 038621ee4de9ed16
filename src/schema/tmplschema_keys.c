/* tmplschema_keys: the keys of one mapping as GitHub's reader compares them, in upper
 * case (expr_upper: OrdinalIgnoreCase, as the runner's TemplateReader), by two hashes:
 * most mappings are small and keep them in the set's inline slots, a list. */
#include "tmplschema_internal.h"

#include <stdlib.h>
#include <string.h>

/* A set of at most KEYSET_INLINE keys is a list in the order they came (its inline
 * slots are never cleared); past that, a table (open addressing, at most three
 * quarters full: a rendering's `jobs` holds every job it renders, 73,134 of them for a
 * 10 MB matrix workflow, whose table at half full was 12.6 MB of the run's 29.5). */
static bool is_list(const struct keyset *k)
{
    return k->slots == k->inline_slots;
}

void tmpl_keyset_free(struct keyset *k)
{
    for (size_t i = 0; k->copies && i < (is_list(k) ? k->n : k->cap); i++)
        free((char *)k->slots[i].text);
    if (!is_list(k))
        free(k->slots);
    k->slots = NULL;
    k->n = k->cap = 0;
}

/* Two hashes of `s` with its ASCII letters upper-cased as they are read (FNV-1a, and a
 * multiply-shift mix): one pass, no copy. */
static void hash_upper(const char *s, size_t len, uint64_t *h1, uint64_t *h2)
{
    uint64_t a = 0xcbf29ce484222325ull, b = 0x243F6A8885A308D3ull ^ len;

    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        c = c >= 'a' && c <= 'z' ? (unsigned char)(c - 32) : c;
        a = (a ^ c) * 0x100000001b3ull;
        b = (b ^ c) * 0x9E3779B97F4A7C15ull;
        b ^= b >> 29;
    }
    b ^= b >> 32;
    b *= 0xD6E8FEB86659FD93ull;
    *h1 = a;
    *h2 = b ^ (b >> 32);
}

bool tmpl_is_ascii(const char *s, size_t len)
{
    size_t i = 0;
    uint64_t w;

    for (; i + 8 <= len; i += 8) { /* a word at a time: string literals and run: lines are long */
        memcpy(&w, s + i, 8);
        if (w & 0x8080808080808080ull)
            return false;
    }
    for (; i < len; i++) {
        if ((unsigned char)s[i] >= 0x80)
            return false;
    }
    return true;
}

/* The two hashes of `text` in upper case (expr_upper): an ASCII key (nearly every one)
 * is upper-cased by hash_upper itself, the same text as expr_upper makes of it. False
 * when out of memory. */
static bool key_hash(const char *text, size_t len, uint64_t *h1, uint64_t *h2)
{
    size_t ulen;
    char *upper;

    if (tmpl_is_ascii(text, len)) {
        hash_upper(text, len, h1, h2);
        return true;
    }
    if (!(upper = expr_upper(text, len, &ulen)))
        return false;
    hash_upper(upper, ulen, h1, h2);
    free(upper);
    return true;
}

/* Whether keys `a` and `b` are equal in upper case: ASCII in place, else as expr_upper
 * writes them (false when out of memory). */
static bool same_key(const struct keyslot *a, const char *b, size_t blen, bool b_ascii)
{
    char *ua, *ub;
    size_t ualen, ublen;
    bool same;

    if (a->ascii && b_ascii) {
        if (a->len != blen)
            return false;
        for (size_t i = 0; i < blen; i++) {
            unsigned char x = (unsigned char)a->text[i], y = (unsigned char)b[i];

            if (x != y && (x >= 'a' && x <= 'z' ? x - 32 : x) != (y >= 'a' && y <= 'z' ? y - 32 : y))
                return false;
        }
        return true;
    }
    ua = expr_upper(a->text, a->len, &ualen);
    ub = expr_upper(b, blen, &ublen);
    same = ua && ub && ualen == ublen && !memcmp(ua, ub, ualen);
    free(ua);
    free(ub);
    return same;
}

/* In table slots[0..cap), the slot of the key with these hashes, or the empty slot
 * where it goes. */
static struct keyslot *table_slot(struct keyslot *slots, size_t cap, uint64_t h1, uint64_t h2)
{
    size_t i = h1 & (cap - 1);

    while (slots[i].text && !(slots[i].h1 == h1 && slots[i].h2 == h2))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

/* The key `key` (its hashes set when the set is a table), or NULL. */
static const struct keyslot *keyset_find(const struct keyset *k, const struct keyslot *key)
{
    const struct keyslot *slot;

    if (is_list(k)) {
        for (size_t i = 0; i < k->n; i++) {
            const struct keyslot *s = &k->slots[i];

            /* ASCII keys of other lengths differ: no call */
            if ((s->len == key->len || !s->ascii || !key->ascii) && same_key(s, key->text, key->len, key->ascii))
                return s;
        }
        return NULL;
    }
    slot = table_slot(k->slots, k->cap, key->h1, key->h2);
    return slot->text ? slot : NULL;
}

/* `key` for text[0..len): its hashes only when the set is a table (a list compares
 * texts). False when out of memory. */
static bool key_of(const struct keyset *k, const char *text, size_t len, struct keyslot *key)
{
    *key = (struct keyslot){.text = text, .len = len, .ascii = tmpl_is_ascii(text, len)};
    return is_list(k) || key_hash(text, len, &key->h1, &key->h2);
}

bool tmpl_keyset_has(const struct keyset *k, const char *text, size_t len)
{
    struct keyslot key;

    return k->n && key_of(k, text, len, &key) && keyset_find(k, &key);
}

/* Room for one more key: a full list becomes a table (its keys hashed), a table three
 * quarters full doubles. */
static bool keyset_room(struct keyset *k)
{
    struct keyslot *old = k->slots, *slots;
    size_t n = is_list(k) ? k->n : k->cap, cap;

    if (is_list(k) ? k->n < KEYSET_INLINE : (k->n + 1) * 4 <= k->cap * 3)
        return true;
    cap = is_list(k) ? 4 * KEYSET_INLINE : 2 * k->cap;
    if (!(slots = calloc(cap, sizeof(*slots))))
        return false;
    for (size_t j = 0; j < n; j++) {
        if (!old[j].text)
            continue;
        if (is_list(k) && !key_hash(old[j].text, old[j].len, &old[j].h1, &old[j].h2)) {
            free(slots);
            return false;
        }
        *table_slot(slots, cap, old[j].h1, old[j].h2) = old[j];
    }
    if (old != k->inline_slots)
        free(old);
    k->slots = slots;
    k->cap = cap;
    return true;
}

bool tmpl_keyset_add(struct keyset *k, const char *text, size_t len, unsigned line, const struct keyslot **seen,
                     bool *oom)
{
    struct keyslot key;
    char *copy = NULL;
    bool was_list;

    if (!k->slots) {
        k->slots = k->inline_slots;
        k->n = 0;
        k->cap = KEYSET_INLINE;
    }
    if (!key_of(k, text, len, &key)) {
        *oom = true;
        return false;
    }
    if ((*seen = keyset_find(k, &key)) != NULL)
        return false;
    was_list = is_list(k);
    if (!keyset_room(k) || (was_list && !is_list(k) && !key_hash(text, len, &key.h1, &key.h2)) ||
        (k->copies && !(copy = malloc(len + 1)))) {
        *oom = true;
        return false;
    }
    if (copy) {
        memcpy(copy, text, len);
        copy[len] = '\0';
        key.text = copy;
    }
    key.line = line;
    if (is_list(k))
        k->slots[k->n] = key;
    else
        *table_slot(k->slots, k->cap, key.h1, key.h2) = key;
    k->n++;
    return true;
}
