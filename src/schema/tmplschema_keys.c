/* tmplschema_keys: the keys of one mapping as GitHub's reader compares them, in upper
 * case (expr_upper: OrdinalIgnoreCase, as the runner's TemplateReader), by two hashes:
 * most mappings are small and keep them in the set's inline slots, a list. */
#include "tmplschema_internal.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/strhash.h"

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
    for (struct keytexts *t = k->texts, *prev; t; t = prev) {
        prev = t->prev;
        free(t);
    }
    k->texts = NULL;
    if (!is_list(k))
        free(k->slots);
    k->slots = NULL;
    k->n = k->cap = 0;
}

/* A copy of text[0..len) (NUL-terminated) kept until the set is freed; NULL when out of
 * memory. */
static char *copy_text(struct keyset *k, const char *text, size_t len)
{
    struct keytexts *t = k->texts;
    char *own;

    if (!t || t->cap - t->len < len + 1) {
        size_t cap = len + 1 > 4000 ? len + 1 : 4000;

        if (!(t = malloc(sizeof(*t) + cap)))
            return NULL;
        t->prev = k->texts;
        t->len = 0;
        t->cap = cap;
        k->texts = t;
    }
    own = t->text + t->len;
    memcpy(own, text, len);
    own[len] = '\0';
    t->len += len + 1;
    return own;
}

/* Word w with its ASCII lower-case letters upper-cased, all eight bytes at once: a byte
 * below 0x80 from 'a' to 'z' loses its 0x20 (its low seven bits plus 0x1f reach 0x80
 * from 'a' on, plus 0x05 past 'z'; no sum carries into the next byte). */
static inline uint64_t upper_word(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t low7 = w & ~high, lower = (low7 + 0x1f * ones) & ~(low7 + 0x05 * ones) & ~w & high;

    return w ^ lower >> 2;
}

/* One word of a key into the two hashes: each a bijection of the state for a given
 * word and of the word for a given state. */
static inline void hash_word(uint64_t w, uint64_t *a, uint64_t *b)
{
    w = upper_word(w);
    *a = (*a ^ w) * 0x9E3779B97F4A7C15ull;
    *a ^= *a >> 32;
    *b = (*b + w) * 0xC2B2AE3D27D4EB4Full;
    *b ^= *b >> 29;
}

/* Two hashes of `s` with its ASCII letters upper-cased as they are read, a word at a
 * time (the last zero-filled; the length seeds both): keys of one length that differ in
 * upper case differ in both. A byte at a time they were most of the cost of a
 * rendering's `jobs` keys (~570 instructions a job name in SGLang). Whether `s` is all
 * ASCII. */
static bool hash_upper(const char *s, size_t len, uint64_t *h1, uint64_t *h2)
{
    uint64_t a = 0xcbf29ce484222325ull ^ len, b = 0x243F6A8885A308D3ull ^ len, w, any = 0;
    size_t i = 0;

    for (; i + 8 <= len; i += 8) {
        memcpy(&w, s + i, 8);
        any |= w;
        hash_word(w, &a, &b);
    }
    if (i < len) {
        w = strhash_tail_word(s + i, len - i);
        any |= w;
        hash_word(w, &a, &b);
    }
    b *= 0xD6E8FEB86659FD93ull;
    *h1 = a;
    *h2 = b ^ (b >> 32);
    return !(any & 0x8080808080808080ull);
}

/* The two hashes of `text` in upper case (expr_upper): an ASCII key (nearly every one)
 * is upper-cased by hash_upper itself, the same text as expr_upper makes of it; another
 * is hashed again as expr_upper writes it. False when out of memory. */
static bool key_hash(const char *text, size_t len, uint64_t *h1, uint64_t *h2)
{
    size_t ulen;
    char *upper;

    if (hash_upper(text, len, h1, h2))
        return true;
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

/* `key` for text[0..len): whether it is ASCII when the set is a list (which compares
 * texts), its hashes when it is a table (whose hashing says so itself). False when out of
 * memory. */
static bool key_of(const struct keyset *k, const char *text, size_t len, struct keyslot *key)
{
    *key = (struct keyslot){.text = text, .len = len};
    if (!is_list(k))
        return key_hash(text, len, &key->h1, &key->h2);
    key->ascii = tmpl_is_ascii(text, len);
    return true;
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
        ((k->copies || copy) && !(key.text = copy_text(k, text, len)))) {
        *oom = true;
        return false;
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
