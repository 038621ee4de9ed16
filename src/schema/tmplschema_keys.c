/* tmplschema_keys: the keys of one mapping as GitHub's reader compares them, in upper
 * case (expr_upper: OrdinalIgnoreCase, as the runner's TemplateReader), by two hashes in
 * an open-addressing table: most mappings are small and use the set's inline slots. */
#include "tmplschema_internal.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/strhash.h"

void tmpl_keyset_free(struct keyset *k)
{
    for (size_t i = 0; k->copies && i < k->cap; i++)
        free((char *)k->slots[i].text);
    if (k->slots != k->inline_slots)
        free(k->slots);
    k->slots = NULL;
    k->n = k->cap = 0;
}

/* The two hashes of `text` in upper case (expr_upper). False when out of memory. */
static bool key_hash(const char *text, size_t len, uint64_t *h1, uint64_t *h2)
{
    char small[128] = {0}, *upper = small;
    size_t ulen = len, i;
    bool ascii = true;

    for (i = 0; i < len && ascii; i++)
        ascii = (unsigned char)text[i] < 0x80;
    if (!ascii)
        upper = expr_upper(text, len, &ulen);
    else if (len >= sizeof(small))
        upper = malloc(len + 1);
    if (!upper)
        return false;
    for (i = 0; ascii && i < len; i++)
        upper[i] = text[i] >= 'a' && text[i] <= 'z' ? (char)(text[i] - 32) : text[i];
    strhash_pair(upper, ulen, h1, h2);
    if (!ascii || len >= sizeof(small))
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
