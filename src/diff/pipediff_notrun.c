#define _GNU_SOURCE /* asprintf */
/* pipediff_notrun: the jobs HEAD's CI will not run for the change diff knows (--changed,
 * --changed-from, --base): HEAD is rendered once, every job kept (render's sink asks the
 * dialects to keep them: dialect_ctx.keep_not_run), and each job a dialect's gating
 * leaves out is told through the not-run hook and kept here by identity with its
 * reason. A step the change edits (added, or changed on any side of it) that is among
 * them gets one more line: `~ ID [...]: changed, but will not run for this change: WHY`
 * (issue 25: a change a pull request cannot exercise, which no reviewer saw). */
#include "pipediff_internal.h"

#include <stdlib.h>
#include <string.h>

static int not_run_cmp(const void *pa, const void *pb)
{
    const struct not_run_job *a = pa, *b = pb;
    int c = pd_hkey_cmp(&a->id, &b->id);

    /* one identity told twice (a step and a shard of it): the first told wins */
    return c ? c : a->seq < b->seq ? -1 : a->seq > b->seq;
}

int pd_not_run_record(void *user, const char *id, size_t len, const char *why, struct ypos pos)
{
    struct side *s = user;
    struct not_run_job *k;

    if (s->n_not_run == NOT_RUN_MAX || s->not_run_bytes > NOT_RUN_BYTES)
        return 0;
    if (!s->not_run && !(s->not_run = malloc(NOT_RUN_MAX * sizeof(*s->not_run))))
        goto fail;
    k = &s->not_run[s->n_not_run];
    if (!(k->why = strdup(why)))
        goto fail;
    k->id = pd_identity(s, pos.file, id, len);
    k->seq = (uint32_t)s->n_not_run++;
    s->not_run_bytes += strlen(why) + sizeof(*k);
    s->not_run_sorted = false;
    return 0;
fail:
    s->failed = true;
    diag_report(s->diag, DIAG_ERROR, DIAG_INPUT, s->name, 0, 0, RULE_IO,
                "cannot record the rendering (out of memory or temporary space)");
    return -1;
}

void pd_not_run_forget(struct side *s)
{
    for (size_t i = 0; i < s->n_not_run; i++)
        free(s->not_run[i].why);
    s->n_not_run = s->not_run_bytes = 0;
}

/* Why HEAD's CI will not run logical step `l` (tuples `t`), or NULL when it will. */
static const char *reason_of(struct side *s, const struct logical *l, const struct shard_tuple *t)
{
    struct not_run_job key = {{0, 0}, 0, NULL};
    const struct not_run_job *lo, *hi;
    char *bare;

    if (!s->n_not_run)
        return NULL;
    if (!s->not_run_sorted) { /* told in rendering order; looked up once all are in */
        qsort(s->not_run, s->n_not_run, sizeof(*s->not_run), not_run_cmp);
        s->not_run_sorted = true;
    }
    if (!(bare = pd_spooled(s, l->id_off, l->id_len)))
        return NULL;
    key.id = pd_identity(s, t[0].file, bare, l->id_len);
    free(bare);
    /* the first told of that identity: the lowest seq */
    for (lo = s->not_run, hi = s->not_run + s->n_not_run; lo < hi;) {
        const struct not_run_job *mid = lo + (hi - lo) / 2;

        if (pd_hkey_cmp(&mid->id, &key.id) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->not_run + s->n_not_run && !pd_hkey_cmp(&lo->id, &key.id) ? lo->why : NULL;
}

void pd_not_run_report(struct report *r, struct side *head, const struct logical *h, const struct shard_tuple *t,
                       const struct where *w, const char *id, bool added, enum phase phase, uint32_t rank,
                       uint32_t sub)
{
    const char *why = reason_of(head, h, t);
    char *detail = NULL, *extra = NULL;
    struct finding f;

    if (!why)
        return;
    if (asprintf(&detail, "%s, but will not run for this change: %s", added ? "added" : "changed", why) < 0 ||
        asprintf(&extra, "\"edit\": \"%s\"", added ? "added" : "changed") < 0) {
        free(detail);
        r->failed = true;
        return;
    }
    pd_finding_init(&f, "not-run", id, w, detail);
    f.part[P_REASON] = why;
    f.part[P_EXTRA_JSON] = extra;
    pd_add_finding(r, phase, rank, sub, G_NOT_RUN, &f);
    r->not_run++;
    free(detail);
    free(extra);
}
