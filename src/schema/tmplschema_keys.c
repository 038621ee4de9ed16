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
    for (size_t i = 0; i < (is_list(k) ? k->n : k->cap); i++) {
        if (k->slots[i].owned)
            free((char *)k->slots[i].text);
    }
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

/* Whether keys a[0..alen) and b[0..blen) are equal in upper case: ASCII in place, else
 * as expr_upper writes them (false when out of memory). */
static bool same_key(const char *a, size_t alen, bool a_ascii, const char *b, size_t blen, bool b_ascii)
{
    char *ua, *ub;
    size_t ualen, ublen;
    bool same;

    if (a_ascii && b_ascii) {
        if (alen != blen)
            return false;
        for (size_t i = 0; i < blen; i++) {
            unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];

            if (x != y && (x >= 'a' && x <= 'z' ? x - 32 : x) != (y >= 'a' && y <= 'z' ? y - 32 : y))
                return false;
        }
        return true;
    }
    ua = expr_upper(a, alen, &ualen);
    ub = expr_upper(b, blen, &ublen);
    same = ua && ub && ualen == ublen && !memcmp(ua, ub, ualen);
    free(ua);
    free(ub);
    return same;
}

bool tmpl_same_key(const char *a, size_t alen, const char *b, size_t blen)
{
    /* keys of other lengths differ when both are ASCII: no pass over them */
    return (alen == blen || !tmpl_is_ascii(a, alen) || !tmpl_is_ascii(b, blen)) &&
           same_key(a, alen, tmpl_is_ascii(a, alen), b, blen, tmpl_is_ascii(b, blen));
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
            if ((s->len == key->len || !s->ascii || !key->ascii) && same_key(s->text, s->len, s->ascii, key->text, key->len, key->ascii))
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

const struct keyslot *tmpl_keyset_find(const struct keyset *k, const char *text, size_t len)
{
    struct keyslot key;

    return k->n && key_of(k, text, len, &key) ? keyset_find(k, &key) : NULL;
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

bool tmpl_keyset_add(struct keyset *k, const char *text, size_t len, unsigned line, bool copy,
                     const struct keyslot **seen, bool *oom)
{
    struct keyslot key;
    char *own = NULL;
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
        ((k->copies || copy) && !(own = malloc(len + 1)))) {
        *oom = true;
        return false;
    }
    if (own) {
        memcpy(own, text, len);
        own[len] = '\0';
        key.text = own;
        key.owned = true;
    }
    key.line = line;
    key.literal = copy;
    if (is_list(k))
        k->slots[k->n] = key;
    else
        *table_slot(k->slots, k->cap, key.h1, key.h2) = key;
    k->n++;
    return true;
}
