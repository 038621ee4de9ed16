/* tmplschema_keys: the keys of one mapping as GitHub's reader compares them, in upper
 * case (expr_upper: OrdinalIgnoreCase, as the runner's TemplateReader), by two hashes in
 * an open-addressing table: most mappings are small and use the set's inline slots. */
#include "tmplschema_internal.h"

#include <stdlib.h>
#include <string.h>

void tmpl_keyset_free(struct keyset *k)
{
    for (size_t i = 0; k->copies && i < k->cap; i++)
        free((char *)k->slots[i].text);
    if (k->slots != k->inline_slots)
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
    size_t i = 0, ulen;
    char *upper;

    while (i < len && (unsigned char)text[i] < 0x80)
        i++;
    if (i == len) {
        hash_upper(text, len, h1, h2);
        return true;
    }
    if (!(upper = expr_upper(text, len, &ulen)))
        return false;
    hash_upper(upper, ulen, h1, h2);
    free(upper);
    return true;
}

/* The slot of the key with these hashes, or the empty slot where it would go. */
static struct keyslot *keyset_slot(struct keyslot *slots, size_t cap, uint64_t h1, uint64_t h2)
{
    size_t i = h1 & (cap - 1);

    while (slots[i].text && !(slots[i].h1 == h1 && slots[i].h2 == h2))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

bool tmpl_keyset_has(const struct keyset *k, const char *text, size_t len)
{
    uint64_t h1, h2;

    return k->cap && key_hash(text, len, &h1, &h2) && keyset_slot(k->slots, k->cap, h1, h2)->text;
}

bool tmpl_keyset_add(struct keyset *k, const char *text, size_t len, unsigned line, const struct keyslot **seen,
                       bool *oom)
{
    uint64_t h1, h2;
    struct keyslot *slot;
    char *copy = NULL;

    if (!key_hash(text, len, &h1, &h2) || (k->copies && !(copy = malloc(len + 1)))) {
        *oom = true;
        return false;
    }
    if (!k->cap) {
        memset(k->inline_slots, 0, sizeof(k->inline_slots));
        k->slots = k->inline_slots;
        k->cap = KEYSET_INLINE;
    } else if ((k->n + 1) * 4 > k->cap * 3) {
        size_t cap = k->cap * 2;
        struct keyslot *old = k->slots, *slots = calloc(cap, sizeof(*slots));

        if (!slots) {
            free(copy);
            *oom = true;
            return false;
        }
        for (size_t j = 0; j < cap / 2; j++) {
            if (old[j].text)
                *keyset_slot(slots, cap, old[j].h1, old[j].h2) = old[j];
        }
        if (old != k->inline_slots)
            free(old);
        k->slots = slots;
        k->cap = cap;
    }
    slot = keyset_slot(k->slots, k->cap, h1, h2);
    if (slot->text) {
        free(copy);
        *seen = slot;
        return false;
    }
    if (copy) {
        memcpy(copy, text, len);
        copy[len] = '\0';
    }
    *slot = (struct keyslot){h1, h2, copy ? copy : text, len, line};
    k->n++;
    return true;
}
