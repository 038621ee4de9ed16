/* pipediff_moves: the matched steps that moved: those outside the longest run whose order
 * both sides keep (a longest increasing subsequence of HEAD's ranks in BASE's order). */
#include "pipediff_internal.h"

#include <stdlib.h>
#include <string.h>

long pd_longest_increasing(const uint32_t *ranks, size_t n, bool *keep)
{
    /* patience sorting: tails[k] is the element ending the smallest tail of an
     * increasing run of k + 1 elements so far, prev[i] the element before i in its run */
    uint32_t *tails = malloc((n + 1) * sizeof(*tails)), *prev = malloc((n + 1) * sizeof(*prev)), len = 0;

    if (!tails || !prev) {
        free(tails);
        free(prev);
        return -1;
    }
    memset(keep, 0, n * sizeof(*keep));
    for (uint32_t i = 0; i < n; i++) {
        uint32_t lo = 0, hi = len;

        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;

            if (ranks[tails[mid]] < ranks[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        prev[i] = lo ? tails[lo - 1] : UINT32_MAX;
        tails[lo] = i;
        if (lo == len)
            len++;
    }
    for (uint32_t i = len ? tails[len - 1] : UINT32_MAX; i != UINT32_MAX; i = prev[i])
        keep[i] = true;
    free(tails);
    free(prev);
    return len;
}

/* The matched steps in BASE's order (r->pairs sorted), and HEAD's ranks of them, into
 * malloc'd arrays of *n. 0, or -1 when out of memory or temporary space. */
static int read_pairs(struct report *r, struct pair_rec **pairs, uint32_t **head_rank, size_t *n)
{
    const struct pair_rec *p;
    size_t cap = 0;

    *pairs = NULL;
    *head_rank = NULL;
    *n = 0;
    if (xsort_finish(r->pairs) != 0)
        return -1;
    while ((p = xsort_next(r->pairs)) != NULL) {
        if (*n == cap) {
            uint32_t *ranks;
            struct pair_rec *grown;

            cap = cap ? cap * 2 : 1024;
            if (!(ranks = realloc(*head_rank, cap * sizeof(**head_rank))))
                return -1;
            *head_rank = ranks;
            if (!(grown = realloc(*pairs, cap * sizeof(**pairs))))
                return -1;
            *pairs = grown;
        }
        (*head_rank)[*n] = p->head_rank;
        (*pairs)[(*n)++] = *p;
    }
    return xsort_failed(r->pairs) ? -1 : 0;
}

/* Reports matched step `m` moved, at HEAD's place. */
static int report_moved(struct report *r, struct side *head, const struct pair_rec *m)
{
    struct logical l = {.shards = m->shards, .tuples_off = m->tuples_off};
    char line[128], old_j[16], new_j[16], *id = pd_display_id(head, m->id_off, m->id_len, m->repeat);
    struct shard_tuple *t = id ? pd_read_tuples(head, &l) : NULL;
    struct where w;
    struct finding f;

    if (!t || pd_where_of(head, t, NULL, m->shards, id, &w) != 0) {
        free(id);
        free(t);
        return -1;
    }
    snprintf(line, sizeof(line), "moved (step %u -> %u)", m->base_rank + 1, m->head_rank + 1);
    snprintf(old_j, sizeof(old_j), "%u", m->base_rank + 1);
    snprintf(new_j, sizeof(new_j), "%u", m->head_rank + 1);
    pd_finding_init(&f, "moved", id, &w, line);
    f.part[P_OLD_JSON] = old_j;
    f.part[P_NEW_JSON] = new_j;
    r->moved++;
    pd_add_finding(r, PH_MOVES, m->base_rank, 0, G_MOVED, &f);
    free(id);
    free(t);
    free(w.label);
    return 0;
}

/* The matched steps outside the longest run that kept its order moved. */
int pd_report_moves(struct report *r, struct side *head)
{
    struct pair_rec *pairs;
    uint32_t *head_rank;
    bool *keep = NULL;
    size_t n;
    int rc = -1;

    if (read_pairs(r, &pairs, &head_rank, &n) != 0 || !(keep = malloc(n + 1)) ||
        pd_longest_increasing(head_rank, n, keep) < 0)
        goto done;
    for (size_t i = 0; i < n; i++) {
        if (!keep[i] && report_moved(r, head, &pairs[i]) != 0)
            goto done;
    }
    rc = 0;
done:
    free(head_rank);
    free(pairs);
    free(keep);
    return rc;
}
