/* pipediff_moves: the matched steps that moved: those outside the longest run whose order
 * both sides keep (a longest increasing subsequence of HEAD's ranks in BASE's order). */
#include "pipediff_internal.h"

#include <stdlib.h>
#include <string.h>

/* The matched steps outside the longest run that kept its order moved. */
int pd_report_moves(struct report *r, struct side *head)
{
    uint32_t *head_rank = NULL, *tails = NULL, *prev = NULL, len = 0;
    struct pair_rec *moved_ids = NULL;
    bool *keep = NULL;
    size_t n = 0, cap = 0;
    const struct pair_rec *p;
    int rc = -1;

    if (xsort_finish(r->pairs) != 0)
        return -1;
    while ((p = xsort_next(r->pairs)) != NULL) {
        if (n == cap) {
            uint32_t *ranks;
            struct pair_rec *ids;

            cap = cap ? cap * 2 : 1024;
            if (!(ranks = realloc(head_rank, cap * sizeof(*head_rank))))
                goto done;
            head_rank = ranks;
            if (!(ids = realloc(moved_ids, cap * sizeof(*moved_ids))))
                goto done;
            moved_ids = ids;
        }
        head_rank[n] = p->head_rank;
        moved_ids[n++] = *p;
    }
    tails = malloc((n + 1) * sizeof(*tails));
    prev = malloc((n + 1) * sizeof(*prev));
    keep = calloc(n + 1, sizeof(*keep));
    if (!tails || !prev || !keep)
        goto done;
    /* longest increasing subsequence of the head ranks (patience sorting) */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t lo = 0, hi = len;

        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;

            if (head_rank[tails[mid]] < head_rank[i])
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
    for (size_t i = 0; i < n; i++) {
        const struct pair_rec *m = &moved_ids[i];
        struct logical l = {.shards = m->shards, .tuples_off = m->tuples_off};
        char line[128], old_j[16], new_j[16], *id;
        struct shard_tuple *t;
        struct where w;
        struct finding f;

        if (keep[i])
            continue;
        id = pd_display_id(head->spool, m->id_off, m->id_len, m->repeat);
        t = id ? pd_read_tuples(head, &l) : NULL;
        if (!t || pd_where_of(head, t, NULL, m->shards, id, &w) != 0) {
            free(id);
            free(t);
            goto done;
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
    }
    rc = 0;
done:
    free(head_rank);
    free(moved_ids);
    free(tails);
    free(prev);
    free(keep);
    return rc;
}
