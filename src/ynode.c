#include "fanout/ynode.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* meta layout: bit 0 = generated string, then 16 bits of column, 12 bits of file
 * number and the line in the remaining 35 bits. */
_Static_assert(sizeof(uintptr_t) >= 8, "positions are packed into a 64-bit meta pointer");
#define META_STRING ((uintptr_t)1)
#define COL_BITS 16
#define COL_MAX ((1u << COL_BITS) - 1)
#define FILE_BITS 12
#define FILE_SHIFT (1 + COL_BITS)
#define LINE_SHIFT (FILE_SHIFT + FILE_BITS)
_Static_assert((1u << FILE_BITS) == YPOS_MAX_FILES, "file numbers fit their bits");

static uintptr_t meta_of(struct fy_node *n)
{
    return (uintptr_t)fy_node_get_meta(n);
}

static void meta_store(struct fy_node *n, uintptr_t m)
{
    fy_node_set_meta(n, (void *)m);
}

struct ypos ynode_pos(struct fy_node *n)
{
    struct ypos p = {0, 0, 0};
    uintptr_t m;

    if (!n)
        return p;
    m = meta_of(n);
    p.col = (unsigned)((m >> 1) & COL_MAX);
    p.file = (unsigned)((m >> FILE_SHIFT) & (YPOS_MAX_FILES - 1));
    p.line = (unsigned)(m >> LINE_SHIFT);
    return p;
}

void ynode_set_pos(struct fy_node *n, struct ypos pos)
{
    uintptr_t col = pos.col > COL_MAX ? COL_MAX : pos.col;
    uintptr_t file = pos.file & (YPOS_MAX_FILES - 1);

    meta_store(n, (meta_of(n) & META_STRING) | (col << 1) | (file << FILE_SHIFT) |
                      ((uintptr_t)pos.line << LINE_SHIFT));
}

const char *ynode_scalar(struct fy_node *n, size_t *len)
{
    if (!n || !fy_node_is_scalar(n) || fy_node_is_alias(n))
        return NULL;
    return fy_node_get_scalar(n, len);
}

bool ynode_scalar_is(struct fy_node *n, const char *s)
{
    size_t len;
    const char *t = ynode_scalar(n, &len);

    return t && len == strlen(s) && memcmp(t, s, len) == 0;
}

bool ynode_is_string(struct fy_node *n)
{
    if (!n || !fy_node_is_scalar(n))
        return false;
    return (meta_of(n) & META_STRING) || fy_node_get_style(n) != FYNS_PLAIN;
}

bool ynode_is_null(struct fy_node *n)
{
    size_t len;
    const char *t;

    if (!n)
        return true;
    if (ynode_is_string(n))
        return false;
    t = ynode_scalar(n, &len);
    if (!t)
        return false;
    return len == 0 || (len == 1 && t[0] == '~') ||
           (len == 4 && (!memcmp(t, "null", 4) || !memcmp(t, "Null", 4) || !memcmp(t, "NULL", 4)));
}

bool ynode_int(struct fy_node *n, long long *out)
{
    size_t len, i = 0;
    const char *t;
    long long v = 0;

    if (ynode_is_string(n))
        return false;
    t = ynode_scalar(n, &len);
    if (!t || len == 0 || len > 18)
        return false;
    if (t[0] == '-')
        i = 1;
    /* One way to write a number: no '+', no leading zero (YAML 1.1 reads 010 as 8). */
    if (i == len || (t[i] == '0' && len > i + 1) || (t[i] == '0' && i == 1))
        return false;
    for (; i < len; i++) {
        if (t[i] < '0' || t[i] > '9')
            return false;
        v = v * 10 + (t[i] - '0');
    }
    *out = t[0] == '-' ? -v : v;
    return true;
}

const char *ynode_int_hint(struct fy_node *n)
{
    size_t len;
    const char *t = ynode_is_string(n) ? NULL : ynode_scalar(n, &len);
    size_t i = t && len && (t[0] == '-' || t[0] == '+') ? 1 : 0;

    if (!t || i == len || strspn(t + i, "0123456789") != len - i)
        return "";
    if (t[0] == '+')
        return " (write it without the '+')";
    if (t[i] == '0' && len > i + 1)
        return " (a leading zero is ambiguous: YAML 1.1 readers such as PyYAML read 010 as 8, "
               "YAML 1.2 readers as 10)";
    return "";
}

struct fy_document *ynode_document_new(void)
{
    struct fy_parse_cfg cfg = {.flags = FYPCF_ALLOW_DUPLICATE_KEYS};

    return fy_document_create(&cfg);
}

struct fy_node_pair *ynode_pair(struct fy_node *map, const char *key)
{
    return ynode_pair_n(map, key, strlen(key));
}

struct fy_node_pair *ynode_pair_n(struct fy_node *map, const char *key, size_t want)
{
    struct fy_node_pair *p;
    void *it = NULL;

    if (!map || !fy_node_is_mapping(map))
        return NULL;
    while ((p = fy_node_mapping_iterate(map, &it)) != NULL) {
        size_t len;
        const char *t = ynode_scalar(fy_node_pair_key(p), &len);

        if (t && len == want && memcmp(t, key, len) == 0)
            return p;
    }
    return NULL;
}

struct fy_node *ynode_get(struct fy_node *map, const char *key)
{
    struct fy_node_pair *p = ynode_pair(map, key);

    return p ? fy_node_pair_value(p) : NULL;
}

const char *ynode_get_any(struct fy_node *map, const char *const *keys, struct fy_node **value)
{
    for (; *keys; keys++) {
        struct fy_node_pair *p;

        if (!map || !fy_node_is_mapping(map))
            break;
        p = ynode_pair(map, *keys);
        if (p) {
            if (value)
                *value = fy_node_pair_value(p);
            return *keys;
        }
    }
    if (value)
        *value = NULL;
    return NULL;
}

void ynode_remove(struct fy_node *map, const char *key)
{
    struct fy_node_pair *p = ynode_pair(map, key);
    struct fy_node *probe;

    if (!p)
        return;
    /* remove_by_key frees the pair, its key and `probe`, and hands back the value
     * (fy_node_mapping_remove would leak the pair). A copy of the key is a cheap probe:
     * it shares the token, where a new scalar makes libfyaml scan the text. */
    probe = fy_node_copy(fy_node_document(map), fy_node_pair_key(p));
    if (probe)
        fy_node_free(fy_node_mapping_remove_by_key(map, probe));
}

int ynode_set_node(struct fy_node *map, struct fy_node *key, struct fy_node *value)
{
    size_t len;
    const char *t = ynode_scalar(key, &len);
    struct fy_node_pair *p = t ? ynode_pair_n(map, t, len) : NULL;

    if (!key || !value)
        goto fail;
    if (p) {
        fy_node_free(key);
        /* fy_node_pair_set_value frees the old value itself. */
        if (fy_node_pair_set_value(p, value) != 0) {
            fy_node_free(value);
            return -1;
        }
        return 0;
    }
    if (fy_node_mapping_append(map, key, value) == 0)
        return 0;
fail:
    fy_node_free(key);
    fy_node_free(value);
    return -1;
}

int ynode_set(struct fy_node *map, const char *key, struct fy_node *value)
{
    if (!value)
        return -1;
    return ynode_set_node(map, ynode_string(fy_node_document(map), key, strlen(key), ynode_pos(value)),
                          value);
}

static bool has_edge_space(const char *s, size_t len)
{
    return len == 0 || s[0] == ' ' || s[0] == '\t' || s[len - 1] == ' ' || s[len - 1] == '\t';
}

/* libfyaml reads a created scalar as plain text and trims its edges, so such strings
 * are built from double-quoted YAML instead (rare: labels and commands never need it). */
static struct fy_node *quoted_scalar(struct fy_document *fyd, const char *s, size_t len)
{
    char *buf = malloc(len * 4 + 3), *o = buf;

    if (!buf)
        return NULL;
    *o++ = '"';
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c == '"' || c == '\\') {
            *o++ = '\\';
            *o++ = (char)c;
        } else if (c < 0x20 || c == 0x7F) {
            static const char hex[] = "0123456789abcdef";
            *o++ = '\\';
            *o++ = 'x';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        } else {
            *o++ = (char)c;
        }
    }
    *o++ = '"';
    *o = '\0';
    return fy_node_build_from_malloc_string(fyd, buf, (size_t)(o - buf));
}

struct fy_node *ynode_string(struct fy_document *fyd, const char *s, size_t len, struct ypos pos)
{
    struct fy_node *n = has_edge_space(s, len) ? quoted_scalar(fyd, s, len)
                                               : fy_node_create_scalar_copy(fyd, s, len);
    if (!n)
        return NULL;
    meta_store(n, META_STRING);
    ynode_set_pos(n, pos);
    return n;
}

struct fy_node *ynode_plain(struct fy_document *fyd, const char *text, struct ypos pos)
{
    struct fy_node *n = fy_node_create_scalar_copy(fyd, text, strlen(text));

    if (n)
        ynode_set_pos(n, pos);
    return n;
}

struct fy_node *ynode_copy(struct fy_document *dst, struct fy_node *src)
{
    struct fy_node *n = NULL;
    void *it = NULL;

    if (!src)
        return NULL;
    switch (fy_node_get_type(src)) {
    case FYNT_SCALAR:
        n = fy_node_copy(dst, src);
        break;
    case FYNT_SEQUENCE: {
        struct fy_node *item;

        n = fy_node_create_sequence(dst);
        if (!n)
            return NULL;
        while ((item = fy_node_sequence_iterate(src, &it)) != NULL) {
            struct fy_node *c = ynode_copy(dst, item);

            if (!c || fy_node_sequence_append(n, c) != 0) {
                fy_node_free(c);
                fy_node_free(n);
                return NULL;
            }
        }
        break;
    }
    case FYNT_MAPPING: {
        struct fy_node_pair *p;

        n = fy_node_create_mapping(dst);
        if (!n)
            return NULL;
        while ((p = fy_node_mapping_iterate(src, &it)) != NULL) {
            struct fy_node *k = ynode_copy(dst, fy_node_pair_key(p));
            struct fy_node *v = fy_node_pair_value(p) ? ynode_copy(dst, fy_node_pair_value(p)) : NULL;

            if (!k || (fy_node_pair_value(p) && !v) || fy_node_mapping_append(n, k, v) != 0) {
                fy_node_free(k);
                fy_node_free(v);
                fy_node_free(n);
                return NULL;
            }
        }
        break;
    }
    }
    if (n)
        meta_store(n, meta_of(src));
    return n;
}

size_t ynode_count(struct fy_node *n)
{
    size_t count = 1;
    void *it = NULL;

    if (!n)
        return 0;
    if (fy_node_is_sequence(n)) {
        struct fy_node *item;

        while ((item = fy_node_sequence_iterate(n, &it)) != NULL)
            count += ynode_count(item);
    } else if (fy_node_is_mapping(n)) {
        struct fy_node_pair *p;

        while ((p = fy_node_mapping_iterate(n, &it)) != NULL)
            count += ynode_count(fy_node_pair_key(p)) + ynode_count(fy_node_pair_value(p));
    }
    return count;
}

struct fy_node **ynode_items(struct fy_node *seq, size_t *n)
{
    int count = fy_node_sequence_item_count(seq);
    struct fy_node **items, *item;
    void *it = NULL;
    size_t i = 0;

    *n = 0;
    if (count <= 0 || !(items = malloc((size_t)count * sizeof(*items))))
        return NULL;
    while ((item = fy_node_sequence_iterate(seq, &it)) != NULL && i < (size_t)count)
        items[i++] = item;
    *n = i;
    return items;
}
