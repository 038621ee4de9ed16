/* pipediff: `fanout diff`, the whole run: both sides rendered and grouped, compared,
 * their unmatched steps and moves found, and the findings printed with a summary. Its
 * parts are the pipediff_*.c files (pipediff_internal.h). */
#include "fanout/pipediff.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/inputs.h"
#include "fanout/scratch.h"
#include "fanout/strset.h"
#include "fanout/suggest.h"

#include "pipediff_internal.h"

/* How it stays bounded: each side is rendered into a sink that writes every job (its
 * tree packed, pipediff_codec.c) to a spool file and one fixed-size record per job (the
 * digest of its compared fields) to an external sort. The records are grouped into
 * logical steps (shards together) in key order, ranked by their order in the rendering,
 * and the two sides are merge-joined by identity; only the steps whose digests differ
 * are read back from the spools and made into the entries a report compares. The steps only one side has go to a file each, and are
 * paired up as renames when there are at most RENAME_MAX of them a side. Findings are
 * written to a third spool and sorted back into the order a reader expects. Memory: the
 * sorts' budgets, the rename candidates' field digests (RENAME_MAX a side at most), for
 * finding the moves 13 bytes per matched step (the pair records wait in a temporary
 * file), and 20 bytes per fan-out a side (pipediff_fanref.c). */

/* Everything that differs between the sides, as findings in r. 0, or -1 when out of
 * memory or temporary space. */
static int find_changes(struct report *r, struct side *base, struct side *head)
{
    pd_compare(r, base, head);
    if (!r->failed)
        pd_report_unmatched(r, base, head);
    if (r->failed || pd_report_moves(r, head) != 0 || r->failed)
        return -1;
    /* top-level settings (env, agents, notify...) and groups' own fields are outside the
     * jobs */
    pd_outside_compare(r, base, head);
    return r->failed ? -1 : 0;
}

/* What the --ignore-field names found in the sides compared so far: seen[i] when some
 * job has name i (or a top-level or group field path, pipediff_toplevel.c), else near[i] the closest name one has (the first found). */
struct ignored {
    bool *seen;
    char **near;
};

static void note_ignored(const struct pd_opts *pd, const struct side *base, const struct side *head,
                         struct ignored *ig)
{
    for (size_t i = 0; i < pd->n_ignore_fields; i++) {
        const char *name = pd->ignore_fields[i], *near;
        size_t len = strlen(name);

        if (strset_has(base->fields, name, len) || strset_has(head->fields, name, len)) {
            ig->seen[i] = true;
            continue;
        }
        if (ig->near[i])
            continue;
        if (!(near = suggest_closest(name, len, strset_items(base->fields), suggest_limit(len))))
            near = suggest_closest(name, len, strset_items(head->fields), suggest_limit(len));
        ig->near[i] = near ? strdup(near) : NULL;
    }
}

/* A warning for each --ignore-field name nothing of either side has (a typo leaves the
 * field compared), with the closest name they have. */
static void warn_ignored(const struct pd_opts *pd, const struct ignored *ig, struct diag *d)
{
    for (size_t i = 0; i < pd->n_ignore_fields; i++) {
        char phrase[SUGGEST_PHRASE_MAX];

        if (!ig->seen[i])
            diag_report(d, DIAG_WARNING, DIAG_FINDING, "fanout", 0, 0, RULE_IGNORE_FIELD,
                        "--ignore-field %s: no job, group or top-level setting of either side has that field%s", pd->ignore_fields[i],
                        suggest_phrase(ig->near[i], phrase));
    }
}

/* One side's files: the operand's, and the dialects they are in. */
struct operand {
    const char *spec;
    const struct render_opts *opts; /* the caller's, then `own` */
    struct render_opts own;         /* the caller's, with the files its directory stands for */
    struct inputs in;
    struct render_groups groups;
};

/* HEAD is rendered by a second thread while this one renders BASE: on two cores a diff
 * takes about the time of one side. Every cache of the render path is per thread, HEAD's
 * shard flags are its own (pipediff.h) and its messages go to a buffered diag flushed
 * after BASE's (dropped when BASE does not render, which today stops before HEAD): the
 * output is the same as one side after the other. The thread is made on first use and
 * kept for the process, as its caches are. */
struct side_job {
    const char *spec;
    const char *const *paths;
    size_t n;
    const struct render_opts *opts;
    const struct pd_opts *pd;
    struct pd_runners *rs;
    const struct hkey *scope;
    struct side *side;
    struct diag *d;
    int rc;
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct side_job *job; /* being rendered (NULL: none) */
    pid_t pid;            /* the process the thread is in (a fork's child has none) */
} worker = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0};

static void *worker_run(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&worker.lock);
    for (;;) {
        struct side_job *j;

        while (!worker.job)
            pthread_cond_wait(&worker.cond, &worker.lock);
        j = worker.job;
        pthread_mutex_unlock(&worker.lock);
        j->rc = pd_render_side(j->spec, j->paths, j->n, j->opts, j->pd, j->rs, 1, j->scope, j->side, j->d);
        pthread_mutex_lock(&worker.lock);
        worker.job = NULL;
        pthread_cond_broadcast(&worker.cond);
    }
    return NULL;
}

/* Hands j to the thread; false when there is none to be had (j is for this one then). */
static bool worker_start(struct side_job *j)
{
    pthread_t t;

    if (worker.pid != getpid()) {
        pthread_mutex_init(&worker.lock, NULL);
        pthread_cond_init(&worker.cond, NULL);
        worker.job = NULL;
        if (pthread_create(&t, NULL, worker_run, NULL) != 0)
            return false;
        pthread_detach(t);
        worker.pid = getpid();
    }
    pthread_mutex_lock(&worker.lock);
    worker.job = j;
    pthread_cond_broadcast(&worker.cond);
    pthread_mutex_unlock(&worker.lock);
    return true;
}

static void worker_wait(void)
{
    pthread_mutex_lock(&worker.lock);
    while (worker.job)
        pthread_cond_wait(&worker.cond, &worker.lock);
    pthread_mutex_unlock(&worker.lock);
}

/* Renders both sides, HEAD in the thread when it can be had: 0, DIAG_INPUT when a side
 * does not render (BASE's said first), -1 when out of memory. */
static int render_sides(const struct operand *b, const char *const *bp, size_t bn, const struct render_opts *bo,
                        const struct operand *h, const char *const *hp, size_t hn, const struct render_opts *ho,
                        struct report *r, const struct pd_opts *pd, struct hkey *const *scope, struct side *base,
                        struct side *head, struct diag *d)
{
    struct side_job j = {h->spec, hp, hn, ho, pd, &r->runners, scope[1], head, diag_create_buffered_for(d), 0};
    bool threaded;
    int rc;

    if (!j.d)
        return -1;
    threaded = worker_start(&j);
    rc = pd_render_side(b->spec, bp, bn, bo, pd, &r->runners, 0, scope[0], base, d);
    if (threaded)
        worker_wait();
    else if (rc == 0)
        j.rc = pd_render_side(h->spec, hp, hn, ho, pd, &r->runners, 1, scope[1], head, j.d);
    if (rc == 0) {
        diag_flush_into(j.d, d);
        rc = j.rc;
    }
    diag_destroy(j.d);
    return rc;
}

/* Each side's files' builds (render_builds: `found`, new arrays or NULL), and when a
 * side's files are several builds, their names alike on both sides (pd_builds_match);
 * read before rendering, as the sides render at once and their jobs are recorded by
 * build (docs/diff.md "Builds"). Only a directory's files can be (render.h's `walked`).
 * 0, or -1 when out of memory. */
static int match_builds(const char *const *bp, size_t bn, const struct render_opts *bo, const struct operand *b,
                        const char *const *hp, size_t hn, const struct render_opts *ho, const struct operand *h,
                        unsigned *found[2], struct hkey *scope[2])
{
    struct pd_builds_side side[2] = {{b->spec, bp, bn, NULL}, {h->spec, hp, hn, NULL}};

    found[0] = bn && bo->walked ? render_builds(bp, bn, bo) : NULL;
    found[1] = hn && ho->walked ? render_builds(hp, hn, ho) : NULL;
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; found[k] && i < side[k].n && !side[k].first; i++)
            side[k].first = found[k][i] ? found[k] : NULL; /* all 0: one build */
    }
    return side[0].first || side[1].first ? pd_builds_match(side, scope) : 0;
}

/* Compares the files `bp` of BASE with the files `hp` of HEAD (one dialect, or whatever
 * the rendering tells), their differences added to r. 0, DIAG_INPUT when a side does
 * not render, -1 when out of memory or temporary space. */
static int compare_files(struct report *r, const struct operand *b, const char *const *bp, size_t bn,
                         const struct render_opts *bo, const struct operand *h, const char *const *hp, size_t hn,
                         const struct render_opts *ho, const struct pd_opts *pd, struct ignored *ig, struct diag *d)
{
    struct side base, head;
    struct hkey *scope[2] = {NULL, NULL};
    unsigned *found[2] = {NULL, NULL};
    struct render_opts bo_found = *bo, ho_found = *ho;
    int rc;

    memset(&base, 0, sizeof(base));
    memset(&head, 0, sizeof(head));
    if (match_builds(bp, bn, bo, b, hp, hn, ho, h, found, scope) != 0)
        rc = -1;
    else {
        bo_found.builds = found[0];
        ho_found.builds = found[1];
        rc = render_sides(b, bp, bn, &bo_found, h, hp, hn, &ho_found, r, pd, scope, &base, &head, d);
    }
    if (rc == 0 && pd_report_findings(pd->findings, &base.found, &head.found, d, r) != 0)
        rc = -1;
    if (rc == 0) {
        note_ignored(pd, &base, &head, ig);
        r->dialect = base.dialect;
        rc = pd_moves_begin(r, &base) == 0 && find_changes(r, &base, &head) == 0 ? 0 : -1;
        pd_callers_free(r);
        pd_parents_free(r);
        pd_moves_end(r);
    } else if (rc != -1) {
        rc = DIAG_INPUT;
    }
    pd_side_free(&base);
    pd_side_free(&head);
    free(scope[0]);
    free(scope[1]);
    free(found[0]);
    free(found[1]);
    return rc;
}

/* The jobs of one kind (a dialect's diff table: a test-area file and its Buildkite
 * rendering compare alike) on each side: a group of files, or none. */
struct family {
    const struct dialect_diff *kind;
    const struct render_group *side[2];
};

/* The family a group of `side` joins: the one whose other side is of its dialect, else
 * one of its kind that has no group of this side yet (a test-area file and its Buildkite
 * rendering compare alike); n when none does. */
static size_t family_for(const struct family *fam, size_t n, int side, const struct dialect *dialect)
{
    size_t k;

    for (k = 0; k < n; k++) {
        if (!fam[k].side[side] && fam[k].side[!side] && fam[k].side[!side]->dialect == dialect)
            return k;
    }
    for (k = 0; k < n; k++) {
        if (!fam[k].side[side] && fam[k].kind == dialect->diff)
            return k;
    }
    return n;
}

/* The operands' families, HEAD's first. 0 when the files are compared all at once: one
 * kind of jobs (or none), or stdin among them (the rendering tells). A side with files
 * of two dialects of one kind (test-area files beside a plain pipeline, as vLLM's
 * .buildkite/ holds them) is a family per dialect, as render renders them apart. */
static size_t families_of(const struct operand *ops, struct family *fam, size_t cap)
{
    size_t n = 0;

    for (int side = 1; side >= 0; side--) {
        for (size_t i = 0; i < ops[side].groups.n; i++) {
            const struct render_group *g = &ops[side].groups.groups[i];
            size_t k;

            if (!g->dialect)
                return 0;
            if ((k = family_for(fam, n, side, g->dialect)) == n) {
                if (n == cap)
                    return 0;
                fam[n++] = (struct family){g->dialect->diff, {NULL, NULL}};
            }
            fam[k].side[side] = g;
        }
    }
    return n > 1 ? n : 0;
}

/* Compares the operands: all their files at once when they hold one kind of jobs, else a
 * kind at a time, HEAD's first (a repository's .buildkite/ and .github/workflows/ side
 * by side), each side's files in their own dialect (the other side's when it has none). */
static int compare_operands(struct report *r, struct operand *ops, const struct pd_opts *pd, struct ignored *ig,
                            struct diag *d)
{
    struct family fam[8];
    size_t n = families_of(ops, fam, sizeof(fam) / sizeof(fam[0]));
    int rc = 0;

    if (!n)
        return compare_files(r, &ops[0], (const char *const *)ops[0].in.paths, ops[0].in.n, ops[0].opts, &ops[1],
                             (const char *const *)ops[1].in.paths, ops[1].in.n, ops[1].opts, pd, ig, d);
    for (size_t k = 0; k < n && rc == 0; k++) {
        const struct render_group *bg = fam[k].side[0], *hg = fam[k].side[1];
        struct render_opts bo = *ops[0].opts, ho = *ops[1].opts;

        bo.dialect = bg ? bg->dialect : hg->dialect;
        ho.dialect = hg ? hg->dialect : bg->dialect;
        r->block = (uint32_t)k;
        rc = compare_files(r, &ops[0], bg ? bg->paths : NULL, bg ? bg->n : 0, &bo, &ops[1], hg ? hg->paths : NULL,
                           hg ? hg->n : 0, &ho, pd, ig, d);
    }
    return rc;
}

int pipediff_run(const char *base_spec, const char *head_spec, const struct render_opts *base_opts,
                 const struct render_opts *head_opts, const struct pd_opts *pd, FILE *out, struct diag *d)
{
    struct operand ops[2] = {{.spec = base_spec, .opts = base_opts}, {.spec = head_spec, .opts = head_opts}};
    struct report r = {.format = pd->format, .out = out, .json_first = true, .change_known = head_opts->change != NULL};
    struct ignored ig = {calloc(pd->n_ignore_fields + 1, sizeof(bool)), calloc(pd->n_ignore_fields + 1, sizeof(char *))};
    bool same;
    int rc = DIAG_INPUT, findings;

    /* a durations file that cannot be read is an input error before anything renders */
    if (pd_runners_open(&r.runners, pd, d) != 0)
        goto done;
    if (!(r.spool = scratch_file())) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_IO, "cannot create a temporary file in %s: %s",
                    scratch_dir(), strerror(errno));
        goto done;
    }
    r.findings = xsort_create(sizeof(struct finding_rec), pd_finding_cmp, SORT_BUDGET);
    if (!r.spool || !r.findings || !ig.seen || !ig.near)
        goto fail;
    for (int side = 0; side < 2; side++) {
        struct operand *o = &ops[side];

        /* the files by their numbers, for the findings' file:line; a file in no dialect is
         * said once, and the operand is not compared */
        if (inputs_expand_skipping(&o->spec, 1, o->opts->not_inputs, o->opts->n_not_inputs, d, &o->in) != 0 ||
            (!o->opts->dialect && render_group_by_dialect((const char *const *)o->in.paths, o->in.n, d, &o->groups) != 0) ||
            o->groups.none)
            goto done;
        o->own = *o->opts;
        o->own.walked = o->in.walked;
        o->opts = &o->own;
    }
    rc = compare_operands(&r, ops, pd, &ig, d);
    if (rc == DIAG_INPUT)
        goto done;
    if (rc != 0)
        goto fail;
    warn_ignored(pd, &ig, d);
    findings = diag_exit_code(d, false);
    same = !(r.added || r.removed || r.renamed || r.changed || r.moved || r.resharded);
    if (pd_print_report(&r, same) != 0)
        goto fail;
    /* --exit-zero lets a difference pass, not a finding (a lint job fails on new ones) */
    rc = findings || !(same || pd->exit_zero) ? 1 : 0;
    goto done;
fail:
    diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_INTERNAL,
                "cannot compare the renderings (out of memory or temporary space)");
    rc = DIAG_INPUT;
done:
    for (int side = 0; side < 2; side++) {
        inputs_free(&ops[side].in);
        render_groups_free(&ops[side].groups);
    }
    for (size_t i = 0; ig.near && i < pd->n_ignore_fields; i++)
        free(ig.near[i]);
    free(ig.near);
    free(ig.seen);
    pd_runners_close(&r.runners);
    xsort_destroy(r.findings);
    if (r.spool)
        fclose(r.spool);
    free(r.blob.buf);
    return rc;
}
