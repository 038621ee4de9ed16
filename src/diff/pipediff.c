/* pipediff: `fanout diff`, the whole run: both sides rendered and grouped, compared,
 * their unmatched steps and moves found, and the findings printed with a summary. Its
 * parts are the pipediff_*.c files (pipediff_internal.h). */
#include "fanout/pipediff.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/strset.h"
#include "fanout/suggest.h"

#include "pipediff_internal.h"

/* How it stays bounded: each side is rendered into a sink that writes every job's
 * comparable fields (as the one-line texts a report shows, and as JSON) to a spool file
 * and one fixed-size record per job to an external sort. The records are grouped into
 * logical steps (shards together) in key order, ranked by their order in the rendering,
 * and the two sides are merge-joined by identity; only the steps whose digests differ
 * are read back from the spools. The steps only one side has go to a file each, and are
 * paired up as renames when there are at most RENAME_MAX of them a side. Findings are
 * written to a third spool and sorted back into the order a reader expects. Memory: the
 * sorts' budgets, the rename candidates' field digests (RENAME_MAX a side at most), and
 * for finding the moves a pair record (pair_rec) and 13 bytes per matched step. */

/* Everything that differs between the sides, as findings in r. 0, or -1 when out of
 * memory or temporary space. */
static int find_changes(struct report *r, struct side *base, struct side *head)
{
    pd_compare(r, base, head);
    if (!r->failed)
        pd_report_unmatched(r, base, head);
    if (r->failed || pd_report_moves(r, head) != 0 || r->failed)
        return -1;
    if (base->outside != head->outside) {
        struct finding f;

        /* top-level settings (env, agents, notify...) and groups' own fields are outside
         * the jobs */
        pd_finding_init(&f, "changed", "(pipeline)", NULL, "top-level settings or groups changed");
        pd_add_finding(r, PH_MOVES, UINT32_MAX, 0, G_CHANGED, &f);
        r->changed++;
    }
    return r->failed ? -1 : 0;
}

/* A warning for each --ignore-field name no job of either side has (a typo leaves the
 * field compared), with the closest name they have. */
static void check_ignored(const struct pd_opts *pd, const struct side *base, const struct side *head,
                          struct diag *d)
{
    for (size_t i = 0; i < pd->n_ignore_fields; i++) {
        const char *name = pd->ignore_fields[i], *near;
        size_t len = strlen(name);
        char phrase[SUGGEST_PHRASE_MAX];

        if (strset_has(base->fields, name, len) || strset_has(head->fields, name, len))
            continue;
        if (!(near = suggest_closest(name, len, strset_items(base->fields), suggest_limit(len))))
            near = suggest_closest(name, len, strset_items(head->fields), suggest_limit(len));
        diag_report(d, DIAG_WARNING, DIAG_FINDING, "fanout", 0, 0, RULE_IGNORE_FIELD,
                    "--ignore-field %s: no job of either side has that field%s", name,
                    suggest_phrase(near, phrase));
    }
}

int pipediff_run(const char *base_spec, const char *head_spec, const struct render_opts *base_opts,
                 const struct render_opts *head_opts, const struct pd_opts *pd, FILE *out, struct diag *d)
{
    struct side base, head;
    struct report r = {.format = pd->format, .out = out, .json_first = true};
    bool same;
    int rc, findings;

    memset(&head, 0, sizeof(head));
    rc = pd_render_side(base_spec, base_opts, pd, &base, d);
    if (rc == 0)
        rc = pd_render_side(head_spec, head_opts, pd, &head, d);
    if (rc != 0) {
        rc = DIAG_INPUT;
        goto done;
    }
    check_ignored(pd, &base, &head, d);
    findings = diag_exit_code(d, false);
    r.dialect = base.dialect;
    r.spool = tmpfile();
    r.findings = xsort_create(sizeof(struct finding_rec), pd_finding_cmp, SORT_BUDGET);
    r.pairs = xsort_create(sizeof(struct pair_rec), pd_pair_cmp, SORT_BUDGET);
    if (!r.spool || !r.findings || !r.pairs || find_changes(&r, &base, &head) != 0)
        goto fail;
    same = !(r.added || r.removed || r.renamed || r.changed || r.moved || r.resharded);
    if (pd_print_report(&r, same) != 0)
        goto fail;
    rc = same && !findings ? 0 : 1;
    goto done;
fail:
    diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_INTERNAL,
                "cannot compare the renderings (out of memory or temporary space)");
    rc = DIAG_INPUT;
done:
    pd_side_free(&base);
    pd_side_free(&head);
    xsort_destroy(r.findings);
    xsort_destroy(r.pairs);
    if (r.spool)
        fclose(r.spool);
    free(r.blob.buf);
    return rc;
}
