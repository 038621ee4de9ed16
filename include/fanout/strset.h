/* strset: a set of strings in the order added (top-level keys of a document, unknown
 * keys already warned about, the keys of a workflow's jobs): scanned while small,
 * hashed past a few tens. */
#ifndef FANOUT_STRSET_H
#define FANOUT_STRSET_H

#include <stdbool.h>
#include <stddef.h>

struct strset;

struct strset *strset_create(void);
void strset_destroy(struct strset *set);
void strset_clear(struct strset *set);

/* 0: added; 1: already there; -1: out of memory. */
int strset_add(struct strset *set, const char *s, size_t len);
/* Whether `s` is in the set. */
bool strset_has(const struct strset *set, const char *s, size_t len);
/* Strings in the set. */
size_t strset_count(const struct strset *set);
/* The strings, in the order added, NULL-terminated (for suggest_closest); valid until
 * the set changes. */
const char *const *strset_items(const struct strset *set);

#endif
