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
        /* most steps keep their order: past the last tail at once */
        uint32_t lo = len && ranks[tails[len - 1]] < ranks[i] ? len : 0, hi = len;

        if (ranks[i] == UINT32_MAX)
            continue;
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

/* The matched steps are written as they are compared (in identity order) and their
 * ranks kept by BASE's rank, rather than sorted by it: the sort, its buffer and the file
 * its sorted records went to were a third of the instructions a 1 MB diff runs after
 * both sides have rendered. Memory: 13 bytes a BASE step while the moves are found (the
 * ranks, the run's arrays). */
int pd_moves_begin(struct report *r, const struct side *base)
{
    r->n_ranks = pd_logical_rank(base, base->seq);
    r->head_rank = malloc(((size_t)r->n_ranks + 1) * sizeof(*r->head_rank));
    r->pairs = scratch_file();
    if (!r->head_rank || !r->pairs)
        return -1;
    memset(r->head_rank, 0xff, (size_t)r->n_ranks * sizeof(*r->head_rank));
    return 0;
}

void pd_moves_end(struct report *r)
{
    free(r->head_rank);
    r->head_rank = NULL;
    if (r->pairs)
        fclose(r->pairs);
    r->pairs = NULL;
}

int pd_moves_note(struct report *r, const struct pair_rec *p)
{
    if (p->base_rank >= r->n_ranks || fwrite(p, sizeof(*p), 1, r->pairs) != 1)
        return -1;
    r->head_rank[p->base_rank] = p->head_rank;
    return 0;
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

/* The matched steps outside the longest run that kept its order moved (their findings
 * are sorted by BASE's rank). */
int pd_report_moves(struct report *r, struct side *head)
{
    struct pair_rec pair;
    bool *keep;
    long kept;
    size_t n;
    int rc = -1;
    uint32_t last = 0;
    bool in_order = true;

    if (fflush(r->pairs) != 0)
        return -1;
    /* most changes move nothing: HEAD's ranks already increase, every matched step is
     * kept, and the run's arrays (12 bytes a step: 600 pages at 100 MB) are not made */
    for (size_t i = 0; i < r->n_ranks && in_order; i++) {
        in_order = r->head_rank[i] == UINT32_MAX || r->head_rank[i] >= last;
        last = r->head_rank[i] == UINT32_MAX ? last : r->head_rank[i] + 1;
    }
    if (in_order)
        return 0;
    keep = malloc((size_t)r->n_ranks + 1);
    if ((kept = keep ? pd_longest_increasing(r->head_rank, r->n_ranks, keep) : -1) < 0)
        goto done;
    n = (size_t)(ftello(r->pairs) / (off_t)sizeof(pair));
    /* the file is read again only when some step moved */
    if ((size_t)kept < n && fseeko(r->pairs, 0, SEEK_SET) != 0)
        goto done;
    for (size_t i = 0; (size_t)kept < n && i < n; i++) {
        if (fread(&pair, sizeof(pair), 1, r->pairs) != 1 || (!keep[pair.base_rank] && report_moved(r, head, &pair) != 0))
            goto done;
    }
    rc = 0;
done:
    free(keep);
    return rc;
}
