/* pipediff_moves: the matched steps that moved: those outside the longest run whose order
 * both sides keep (a longest increasing subsequence of HEAD's ranks in BASE's order). */
#include "pipediff_internal.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/scratch.h"

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

/* The matched steps in BASE's order (r->pairs sorted): HEAD's ranks of them into a
 * malloc'd array of *n, the steps themselves into the temporary file *pairs (read once
 * more, in that order, for the few that moved: 4 bytes a matched step in memory rather
 * than a whole pair_rec, which was most of a large diff's RSS). 0, or -1 when out of
 * memory or temporary space. */
static int read_pairs(struct report *r, FILE **pairs, uint32_t **head_rank, size_t *n)
{
    const struct pair_rec *p;
    size_t cap = 0;

    *head_rank = NULL;
    *n = 0;
    if (!(*pairs = scratch_file()) || xsort_finish(r->pairs) != 0)
        return -1;
    while ((p = xsort_next(r->pairs)) != NULL) {
        if (*n == cap) {
            uint32_t *ranks;

            cap = cap ? cap * 2 : 1024;
            if (!(ranks = realloc(*head_rank, cap * sizeof(**head_rank))))
                return -1;
            *head_rank = ranks;
        }
        if (fwrite(p, sizeof(*p), 1, *pairs) != 1)
            return -1;
        (*head_rank)[(*n)++] = p->head_rank;
    }
    return xsort_failed(r->pairs) || fflush(*pairs) != 0 || fseeko(*pairs, 0, SEEK_SET) != 0 ? -1 : 0;
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
    FILE *pairs = NULL;
    struct pair_rec pair;
    uint32_t *head_rank;
    bool *keep = NULL;
    size_t n;
    long kept = -1;
    int rc = -1;

    if (read_pairs(r, &pairs, &head_rank, &n) != 0 || !(keep = malloc(n + 1)) ||
        (kept = pd_longest_increasing(head_rank, n, keep)) < 0)
        goto done;
    free(head_rank);
    head_rank = NULL;
    /* the file is read again only when some step moved */
    for (size_t i = 0; (size_t)kept < n && i < n; i++) {
        if (fread(&pair, sizeof(pair), 1, pairs) != 1 || (!keep[i] && report_moved(r, head, &pair) != 0))
            goto done;
    }
    rc = 0;
done:
    free(head_rank);
    if (pairs)
        fclose(pairs);
    free(keep);
    return rc;
}
