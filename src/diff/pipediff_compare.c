#define _GNU_SOURCE /* open_memstream, asprintf, strndup */
/* pipediff_compare: the steps both sides have, merge-joined by identity and compared job
 * by job: fan-outs re-sharded, a matrix's configurations matched by their values, and
 * each changed field reported once for the jobs that changed it. */
#include "pipediff_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"

static void step_finding(struct report *r, struct step_ctx *x, enum group group, const struct finding *f)
{
    pd_add_finding(r, PH_BASE, x->b->rank, x->sub++, x->group == G_RENAMED ? G_RENAMED : group, f);
}

/* "id: parallelism A -> B (shards x-y added)"; a matrix names its jobs, "id: matrix A -> B
 * jobs (part 2 removed)"; a job derived from another (`derived`: the rule of the side
 * that has its parent, else NULL) is said of the parent, in the rule's words
 * ("parent: <fanout> A -> B"). */
static void report_shards(struct report *r, struct step_ctx *x, const struct dialect_derived *derived, unsigned a,
                          unsigned b)
{
    const char *parent = pd_parent_of(derived, x->id);
    char line[512], range[320] = "", label[128], old_j[16], new_j[16];
    unsigned from = a < b ? a : b, to = a < b ? b : a;
    struct side *more = b > a ? x->head : x->base;
    const struct shard_tuple *t = b > a ? x->th : x->tb;
    struct finding f;
    size_t o = 0;

    for (unsigned i = from > 1 ? from : 0; t[0].label_len && i < to && o < sizeof(range) - 8; i++)
        o += (size_t)snprintf(range + o, sizeof(range) - o, "%s%s", o ? ", " : "",
                              pd_job_label(more, &t[i], i, label, sizeof(label)));
    if (o) {
        snprintf(line, sizeof(line), "%s %u -> %u %s (%s %s)", r->dialect->fanout_field, a, b,
                 r->dialect->fanout_jobs, range, b > a ? "added" : "removed");
    } else {
        unsigned lo = from > 1 ? from : 0;

        snprintf(range, sizeof(range), lo + 1 == to ? "shard %u" : "shards %u-%u", lo, to - 1);
        snprintf(line, sizeof(line), "%s %u -> %u (%s %s)", parent ? derived->fanout : r->dialect->fanout_field, a,
                 b, range, b > a ? "added" : "removed");
    }
    pd_finding_init(&f, "shards", parent ? parent : x->id, &x->at, line);
    snprintf(old_j, sizeof(old_j), "%u", a);
    snprintf(new_j, sizeof(new_j), "%u", b);
    f.part[P_OLD_JSON] = old_j;
    f.part[P_NEW_JSON] = new_j;
    step_finding(r, x, G_RESHARDED, &f);
}

/* Whether the env entries (shard variables aside) of a and b agree. */
static bool same_env(const struct entries *a, const struct entries *b)
{
    const struct entries *sides[2] = {a, b};

    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < sides[s]->n; i++) {
            const struct entry *e = &sides[s]->v[i], *other;

            if (e->type != E_ENV)
                continue;
            other = pd_entry_find(sides[!s], E_ENV, e->name);
            if (!other || strcmp(other->value, e->value) != 0 || strcmp(other->json, e->json) != 0)
                return false;
        }
    }
    return true;
}

/* The changes found in one job, before they are reported (a matched step's jobs are
 * compared one by one, then each field is reported once for the jobs that changed it). */
struct changes {
    struct change *v;
    size_t n, cap;
    bool failed;
    const char *references;     /* the field naming other jobs (depends_on, needs): */
    const struct pd_skip *skip; /* its items a target's fan-out rewrote (NULL: none) */
    bool vectors;               /* a vector was added or removed: no configuration fields */
};

/* Adds change `one` (its strings are the list's then; freed when it cannot be added). */
static void changes_push(struct changes *c, struct change *one)
{
    if (c->n == c->cap) {
        struct change *grown = array_grow(c->v, &c->cap, c->n + 1, 8, sizeof(*grown));

        if (!grown) {
            pd_change_free(one);
            c->failed = true;
            return;
        }
        c->v = grown;
    }
    c->v[c->n++] = *one;
}

/* A change shown as it is: a step added or removed, a job that is no mapping. */
static void changes_add(struct changes *c, const char *field, const char *old_v, const char *new_v,
                        const char *old_json, const char *new_json, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

static void changes_add(struct changes *c, const char *field, const char *old_v, const char *new_v,
                        const char *old_json, const char *new_json, const char *fmt, ...)
{
    struct change one = {0};
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&one.detail, fmt, ap);
    va_end(ap);
    if (n < 0)
        one.detail = NULL;
    if (n < 0 || !(one.field = strdup(field)) || !(one.old_v = strdup(old_v)) || !(one.new_v = strdup(new_v)) ||
        (old_json && !(one.old_json = strdup(old_json))) || (new_json && !(one.new_json = strdup(new_json)))) {
        pd_change_free(&one);
        c->failed = true;
        return;
    }
    changes_push(c, &one);
}

/* The last change added is written at HEAD's entry `e` (NULL: HEAD has none): its key's
 * line, or for a literal block whose lines changed, the first line that changed
 * (`@@ -A,B +C,D @@` and the context lines before it). */
static void changes_at(struct changes *c, const struct entry *e)
{
    struct change *ch = c->n ? &c->v[c->n - 1] : NULL;
    unsigned long a, b, from, d;
    const char *p;

    if (!ch || !e || c->failed)
        return;
    ch->file = e->file;
    ch->line = e->line;
    if (!e->body || !ch->hunks || sscanf(ch->hunks, "@@ -%lu,%lu +%lu,%lu @@", &a, &b, &from, &d) != 4)
        return;
    for (p = strchr(ch->hunks, '\n'); p && p[1] == ' '; p = strchr(p + 1, '\n'))
        from++;
    ch->line = e->body + (uint32_t)(from ? from - 1 : 0);
}

/* Adds how field `field` changed from a to b (pd_value_change). */
static void changes_value(struct changes *c, const char *field, bool commands, const struct pd_value *a,
                          const struct pd_value *b)
{
    const struct pd_skip *skip = c->skip && !strcmp(field, c->references) ? c->skip : NULL;
    struct change one;
    int rc = pd_value_change_skip(&one, field, commands, a, b, skip);

    if (rc < 0)
        c->failed = true;
    else if (rc == 0)
        changes_push(c, &one);
}

static void changes_free(struct changes *c)
{
    for (size_t i = 0; i < c->n; i++)
        pd_change_free(&c->v[i]);
    free(c->v);
    memset(c, 0, sizeof(*c));
}

/* A job's env without the shard variables: as shown into t, and as JSON (malloc'd, NULL
 * when it has none). 0, or -1 when out of memory. */
static int env_of(const struct entries *es, struct text *t, char **json)
{
    size_t len;
    bool any = false;
    FILE *m = open_memstream(json, &len);

    memset(t, 0, sizeof(*t));
    if (!m)
        return -1;
    fputc('{', m);
    pd_text_add(t, "{", 1);
    for (size_t i = 0; i < es->n; i++) {
        const struct entry *e = &es->v[i];

        if (e->type != E_ENV)
            continue;
        fputs(any ? ", " : "", m);
        diag_write_json_string(m, e->name);
        fprintf(m, ": %s", e->json);
        pd_text_add(t, ", ", any ? 2 : 0);
        pd_text_add(t, e->name, strlen(e->name));
        pd_text_add(t, ": ", 2);
        pd_text_add(t, e->value, strlen(e->value));
        any = true;
    }
    fputc('}', m);
    pd_text_add(t, "}", 1);
    if (fclose(m) != 0 || !any) {
        free(*json);
        *json = NULL;
        snprintf(t->buf, sizeof(t->buf), "(none)");
        return any ? -1 : 0;
    }
    return 0;
}

static void env_change(struct changes *c, const char *env, const struct entries *a, const struct entries *b)
{
    struct text ta, tb;
    char *ja = NULL, *jb = NULL;

    if (env_of(a, &ta, &ja) != 0 || env_of(b, &tb, &jb) != 0) {
        c->failed = true;
    } else {
        struct pd_value va = {ta.buf, ja, false, ta.cut}, vb = {tb.buf, jb, false, tb.cut};

        changes_value(c, env, false, &va, &vb);
    }
    free(ja);
    free(jb);
}

/* One side's value of a field from its entry (NULL: none), its digest left out of
 * `shown` (a buffer of VALUE_MAX + 8). */
static struct pd_value value_of(const struct entry *e, char *shown)
{
    struct pd_value v = {"(none)", NULL, false, false};
    size_t len;

    if (!e)
        return v;
    len = strcspn(e->value, "\x1f");
    /* a job's item's field: a scalar's whole text, else the value as shown and its digest */
    v.raw = e->type == E_SUBFIELD && !e->value[len];
    v.cut = !v.raw && e->value[len];
    v.json = e->json;
    v.shown = v.raw ? e->value : shown;
    if (!v.raw)
        snprintf(shown, VALUE_MAX + 8, "%.*s", (int)len, e->value);
    return v;
}

static void field_change(struct changes *c, const struct dialect_diff *dd, const struct entries *a,
                         const struct entries *b, const char *name)
{
    const struct entry *ca = pd_entry_find(a, E_FIELD, name), *cb = pd_entry_find(b, E_FIELD, name);
    char sa[VALUE_MAX + 8], sb[VALUE_MAX + 8];
    struct pd_value va, vb;

    if (pd_in_list(dd->identity, name, strlen(name)) ||
        (c->vectors && (pd_in_list(dd->configuration, name, strlen(name)) || pd_in_list(dd->labels, name, strlen(name)))))
        return;
    if (pd_is_field(dd->env, name, strlen(name))) {
        if (!same_env(a, b)) {
            env_change(c, dd->env, a, b);
            changes_at(c, pd_entry_find(b, E_FIELD, name));
        }
        return;
    }
    /* a field at its default on one side and absent on the other is not compared at all */
    if (ca && cb && !strcmp(ca->value, cb->value))
        return;
    va = value_of(pd_field_entry(a, name), sa);
    vb = value_of(pd_field_entry(b, name), sb);
    changes_value(c, name, pd_command_field(dd, name, strlen(name)) != NULL, &va, &vb);
    changes_at(c, pd_field_entry(b, name));
}

/* The fields of step `name` that differ between a and b. */
static void step_field_changes(struct changes *c, const struct dialect_diff *dd, const struct entries *a,
                               const struct entries *b, const char *name)
{
    size_t nlen = strlen(name);
    const struct entries *sides[2] = {a, b};

    for (int side = 0; side < 2; side++) {
        for (size_t i = 0; i < sides[side]->n; i++) {
            const struct entry *e = &sides[side]->v[i], *other, *ea, *eb;
            char field[300], sa[VALUE_MAX + 8], sb[VALUE_MAX + 8];
            const char *item_field = e->name + nlen + 1;
            struct pd_value va, vb;

            if (e->type != E_SUBFIELD || strncmp(e->name, name, nlen) != 0 || e->name[nlen] != '\x1f')
                continue;
            other = pd_entry_find(sides[!side], E_SUBFIELD, e->name);
            if (side == 1 && other)
                continue; /* compared from a's side */
            ea = side == 0 ? e : other;
            eb = side == 0 ? other : e;
            if (ea && eb && !strcmp(ea->value, eb->value))
                continue;
            va = value_of(ea, sa);
            vb = value_of(eb, sb);
            snprintf(field, sizeof(field), "step %s: %s", name, item_field);
            changes_value(c, field, pd_in_list(dd->item_commands, item_field, strlen(item_field)), &va, &vb);
            changes_at(c, eb ? eb : pd_entry_find(b, E_SUB, name));
        }
    }
}

/* A job's steps, one by one: added, removed, changed (field by field). */
static void steps_changes(struct changes *c, const struct dialect_diff *dd, const struct entries *a,
                          const struct entries *b)
{
    char field[128];

    for (size_t i = 0; i < a->n; i++) {
        const struct entry *e = &a->v[i];

        if (e->type != E_SUB)
            continue;
        snprintf(field, sizeof(field), "step %s", e->name);
        if (!pd_entry_find(b, E_SUB, e->name))
            changes_add(c, field, e->value, "(none)", e->json, NULL, "step %s removed", e->name);
        else
            step_field_changes(c, dd, a, b, e->name);
    }
    for (size_t i = 0; i < b->n; i++) {
        const struct entry *e = &b->v[i];

        snprintf(field, sizeof(field), "step %s", e->name);
        if (e->type == E_SUB && !pd_entry_find(a, E_SUB, e->name)) {
            changes_add(c, field, "(none)", e->value, NULL, e->json, "step %s added", e->name);
            changes_at(c, e);
        }
    }
}

/* Every field whose value differs (a job's own items one by one), its fields named as
 * `dd` says. */
static void fields_changes(struct changes *c, const struct dialect_diff *dd, const struct entries *a,
                           const struct entries *b)
{
    const struct entry *sa = pd_entry_find(a, E_STEP, ""), *sb = pd_entry_find(b, E_STEP, "");
    bool by_step = pd_has_type(a, E_SUB) || pd_has_type(b, E_SUB);

    if (sa || sb) {
        const char *va = sa ? sa->value : "(a step)", *vb = sb ? sb->value : "(a step)";

        if (!sa || !sb || strcmp(va, vb) != 0)
            changes_add(c, "step", va, vb, sa ? sa->json : NULL, sb ? sb->json : NULL, "%s -> %s", va, vb);
        return;
    }
    for (size_t i = 0; i < a->n; i++) {
        if (a->v[i].type != E_FIELD)
            continue;
        if (by_step && pd_is_field(dd->items, a->v[i].name, strlen(a->v[i].name)))
            steps_changes(c, dd, a, b);
        else
            field_change(c, dd, a, b, a->v[i].name);
    }
    for (size_t i = 0; i < b->n; i++) {
        if (b->v[i].type != E_FIELD || pd_entry_find(a, E_FIELD, b->v[i].name))
            continue;
        if (by_step && pd_is_field(dd->items, b->v[i].name, strlen(b->v[i].name)))
            steps_changes(c, dd, a, b);
        else
            field_change(c, dd, a, b, b->v[i].name);
    }
}

/* Whether two texts, each possibly none (NULL), are the same. */
static bool same_text(const char *a, const char *b)
{
    return a && b ? !strcmp(a, b) : a == b;
}

/* Whether two changes' hunks (either NULL: none) remove and add the same lines, whatever
 * their context and where they are (a matrix's jobs change one line of scripts that
 * differ elsewhere). */
static bool same_lines_changed(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    for (;;) {
        while (*a && *a != '-' && *a != '+')
            a += strcspn(a, "\n") + (a[strcspn(a, "\n")] == '\n');
        while (*b && *b != '-' && *b != '+')
            b += strcspn(b, "\n") + (b[strcspn(b, "\n")] == '\n');
        if (!*a || !*b)
            return !*a && !*b;
        if (strcspn(a, "\n") != strcspn(b, "\n") || strncmp(a, b, strcspn(a, "\n")) != 0)
            return false;
        a += strcspn(a, "\n");
        b += strcspn(b, "\n");
    }
}

/* Where HEAD writes change `ch`, for an annotation on that line. */
static void finding_mark(struct side *head, struct finding *f, const struct change *ch)
{
    if (ch->line && pd_side_file(head, ch->file)) {
        f->part[P_MARK_FILE] = pd_side_file(head, ch->file);
        f->mark = ch->line;
    }
}

/* A reference list that lost items: where the jobs they named are annotated when removed. */
static void note_callers(struct report *r, const struct step_ctx *x, const struct where *w, const struct change *ch)
{
    if (r->dialect->reference_field && !strcmp(ch->field, r->dialect->reference_field))
        pd_callers_note(r, x->head, x->h->file, x->id, w, ch);
}

/* Reports change `ch` of m jobs (hi: their indices in HEAD); `all`: every
 * compared job has it alike, and the line names no jobs. */
static void report_change(struct report *r, struct step_ctx *x, const struct change *ch, const unsigned *hi,
                          unsigned m, bool all)
{
    char *jobs = all ? NULL : pd_jobs_text(x->head, x->th, hi, m), *full = NULL;
    struct where w = {NULL, 0, NULL};
    struct finding f;

    if ((!all && !jobs) || pd_where_of(x->head, x->th, hi, m, x->id, &w) != 0)
        goto fail;
    pd_finding_init(&f, "changed", x->id, &w, ch->detail);
    f.part[P_JOBS] = jobs;
    finding_mark(x->head, &f, ch);
    note_callers(r, x, &w, ch);
    if (pd_change_parts(&f, ch, &full) != 0)
        goto fail;
    step_finding(r, x, G_CHANGED, &f);
    goto done;
fail:
    r->failed = true;
done:
    free(jobs);
    free(w.label);
    free(full);
}

/* The words that differ in each job's old and new values, whole on one line
 * (pd_differing_words; short values whole), summarized over the jobs into old_s and
 * new_s; false when a job's differ from the others' other than by a number in one
 * place, or over more than VALUE_MAX characters. */
#define WHOLE(ch, side) ((ch)->side##_w ? (ch)->side##_w : (ch)->side##_v)

static bool words_summary(struct change *const *chg, unsigned m, char *old_s, char *new_s, size_t cap)
{
    char **w = calloc(2 * (size_t)m, sizeof(*w));
    bool ok = w != NULL, whole = true;

    for (unsigned j = 0; j < m; j++)
        whole = whole && strlen(WHOLE(chg[j], old)) <= WHOLE_MAX && strlen(WHOLE(chg[j], new)) <= WHOLE_MAX;
    for (unsigned j = 0; ok && j < m; j++) {
        const char *a = WHOLE(chg[j], old), *b = WHOLE(chg[j], new);
        size_t span[2][2] = {{0, strlen(a)}, {0, strlen(b)}};

        if (!whole)
            pd_differing_words(a, b, span);
        ok = span[0][1] > span[0][0] && span[1][1] > span[1][0] && span[0][1] - span[0][0] <= VALUE_MAX &&
             span[1][1] - span[1][0] <= VALUE_MAX &&
             (w[j] = strndup(a + span[0][0], span[0][1] - span[0][0])) != NULL &&
             (w[m + j] = strndup(b + span[1][0], span[1][1] - span[1][0])) != NULL;
    }
    ok = ok && pd_summarize(old_s, cap, w, m) && pd_summarize(new_s, cap, w + m, m);
    for (unsigned j = 0; w && j < 2 * m; j++)
        free(w[j]);
    free(w);
    return ok;
}

/* One line for a field m jobs changed each their own way (`all`: every compared job),
 * reading `detail` (`words`: old_s and new_s are the words that differ), with every
 * job's values in the JSON ("by_job") and markdown's details. */
static void report_jobs(struct report *r, struct step_ctx *x, struct change *const *chg, const unsigned *hi,
                        unsigned m, bool all, const char *detail, const char *old_s,
                        const char *new_s, bool words)
{
    char *jobs = all ? NULL : pd_jobs_text(x->head, x->th, hi, m), *json = NULL, *full = NULL, label[128];
    size_t json_len, full_len;
    FILE *mj = open_memstream(&json, &json_len), *mf = open_memstream(&full, &full_len);
    struct where w = {NULL, 0, NULL};
    struct finding f;
    int closed;

    if (!mj || !mf || (!all && !jobs) || pd_where_of(x->head, x->th, hi, m, x->id, &w) != 0)
        goto fail;
    /* a list's items (the same in every job: they read alike), then every job's values */
    if (!words && chg[0]->items_json)
        fprintf(mj, "%s, ", chg[0]->items_json);
    fputs("\"by_job\": [", mj);
    for (unsigned j = 0; j < m; j++) {
        pd_job_label(x->head, &x->th[hi[j]], hi[j], label, sizeof(label));
        fputs(j ? ", {\"job\": " : "{\"job\": ", mj);
        diag_write_json_string(mj, label);
        if (chg[j]->old_json)
            fprintf(mj, ", \"old\": %s", chg[j]->old_json);
        if (chg[j]->new_json)
            fprintf(mj, ", \"new\": %s", chg[j]->new_json);
        fputc('}', mj);
        fprintf(mf, "%s%s: %s -> %s", j ? "\n" : "", label, chg[j]->old_json ? chg[j]->old_json : "(none)",
                chg[j]->new_json ? chg[j]->new_json : "(none)");
    }
    fputc(']', mj);
    /* both closed whatever the first gives: a buffer is final only then */
    closed = fclose(mj);
    closed |= fclose(mf);
    mj = mf = NULL;
    if (closed != 0)
        goto fail;
    pd_finding_init(&f, "changed", x->id, &w, detail);
    f.part[P_JOBS] = jobs;
    f.part[P_FIELD] = chg[0]->field;
    f.part[P_OLD] = old_s;
    f.part[P_NEW] = new_s;
    f.part[P_OLD_JSON] = chg[0]->old_json;
    f.part[P_NEW_JSON] = chg[0]->new_json;
    f.part[P_EXTRA_JSON] = json;
    /* a text's lines read alike: the hunks say it, not every job's whole text */
    f.part[P_FULL] = chg[0]->hunks ? NULL : full;
    f.words = words;
    if (!words)
        pd_finding_form(&f, chg[0]);
    finding_mark(x->head, &f, chg[0]);
    note_callers(r, x, &w, chg[0]);
    step_finding(r, x, G_CHANGED, &f);
    goto done;
fail:
    r->failed = true;
done:
    if (mj)
        fclose(mj);
    if (mf)
        fclose(mf);
    free(json);
    free(full);
    free(jobs);
    free(w.label);
}

/* A field m jobs changed each their own way: one line for each set of jobs that changed
 * it alike (a matrix's jobs of one value of a vector), in the order of their first. */
static void report_groups(struct report *r, struct step_ctx *x, struct change *const *chg, const unsigned *hi,
                          unsigned m)
{
    bool *done = calloc(m, sizeof(*done));
    unsigned *group = calloc(m, sizeof(*group));

    for (unsigned j = 0; done && group && j < m; j++) {
        unsigned k = 0;

        for (unsigned j2 = j; !done[j] && j2 < m; j2++) {
            if (!done[j2] && !strcmp(chg[j2]->detail, chg[j]->detail) &&
                same_text(chg[j2]->old_json, chg[j]->old_json) && same_text(chg[j2]->new_json, chg[j]->new_json)) {
                done[j2] = j2 != j;
                group[k++] = hi[j2];
            }
        }
        if (!done[j])
            report_change(r, x, chg[j], group, k, false);
        done[j] = true;
    }
    r->failed |= !done || !group;
    free(done);
    free(group);
}

/* Reports a field m jobs changed (`all`: every compared job): once when they changed it
 * alike (naming the jobs unless it is all of them), or so that it reads alike (the
 * same part of a long value, the same lines of a script, the same items of a list); once
 * with the words that differ when they changed it each their own way but for a number;
 * else once for each set of jobs that changed it alike. */
static void report_field(struct report *r, struct step_ctx *x, struct change *const *chg, const unsigned *hi,
                         unsigned m, bool all)
{
    char old_s[2 * VALUE_MAX], new_s[2 * VALUE_MAX], detail[6 * VALUE_MAX];
    bool alike = true, reads_alike = true;

    for (unsigned j = 0; j < m; j++) {
        reads_alike = reads_alike && !strcmp(chg[j]->detail, chg[0]->detail) &&
                      same_lines_changed(chg[j]->hunks, chg[0]->hunks);
        alike = alike && same_text(chg[j]->old_json, chg[0]->old_json) && same_text(chg[j]->new_json, chg[0]->new_json);
    }
    if (reads_alike && alike) {
        report_change(r, x, chg[0], hi, m, all);
    } else if (reads_alike) {
        report_jobs(r, x, chg, hi, m, all, chg[0]->detail, chg[0]->old_v, chg[0]->new_v, false);
    } else if (m > 1 && words_summary(chg, m, old_s, new_s, sizeof(old_s))) {
        snprintf(detail, sizeof(detail), "%s: %s (was %s)", chg[0]->field, new_s, old_s);
        report_jobs(r, x, chg, hi, m, false, detail, old_s, new_s, true);
    } else {
        report_groups(r, x, chg, hi, m);
    }
}

/* Compares the n jobs both sides have, base job pairs[k][0] with head job pairs[k][1],
 * and reports each changed field once for the jobs that changed it. Whether any did. */
static bool compare_jobs(struct report *r, struct step_ctx *x, const unsigned (*pairs)[2], unsigned n)
{
    struct changes *c = calloc(n ? n : 1, sizeof(*c));
    struct change **chg = calloc(n ? n : 1, sizeof(*chg));
    unsigned *hi = calloc(n ? n : 1, sizeof(*hi));
    bool any = false;

    if (!c || !chg || !hi) {
        r->failed = true;
        goto done;
    }
    for (unsigned k = 0; k < n && !r->failed; k++) {
        const struct shard_tuple *p = &x->tb[pairs[k][0]], *q = &x->th[pairs[k][1]];
        struct entries ea = {0}, eb = {0};

        if (p->digest == q->digest && p->data_len == q->data_len)
            continue;
        struct pd_fanref refs = {x->base, x->head, {p->file, q->file}};
        struct pd_skip skip = {pd_fanout_item, &refs};

        c[k].vectors = x->vectors;
        c[k].references = r->dialect->reference_field;
        c[k].skip = c[k].references ? &skip : NULL;
        if (pd_entries_read(x->base, p->off, p->data_len, &ea) != 0 ||
            pd_entries_read(x->head, q->off, q->data_len, &eb) != 0)
            r->failed = true;
        else
            fields_changes(&c[k], r->dialect->diff, &ea, &eb);
        c[k].skip = NULL; /* refs and skip are gone */
        pd_entries_free(&ea);
        pd_entries_free(&eb);
        r->failed |= c[k].failed;
        any |= c[k].n > 0;
    }
    /* field by field (in the order the first job that changed it has them), the jobs
     * that changed it together */
    for (unsigned k = 0; any && k < n && !r->failed; k++) {
        for (size_t i = 0; i < c[k].n; i++) {
            unsigned m = 0;

            if (c[k].v[i].done)
                continue;
            for (unsigned k2 = k; k2 < n; k2++) {
                for (size_t i2 = 0; i2 < c[k2].n; i2++) {
                    struct change *o = &c[k2].v[i2];

                    if (!o->done && !strcmp(o->field, c[k].v[i].field)) {
                        o->done = true;
                        chg[m] = o;
                        hi[m++] = pairs[k2][1];
                        break;
                    }
                }
            }
            report_field(r, x, chg, hi, m, m == n);
        }
    }
done:
    for (unsigned k = 0; c && k < n; k++)
        changes_free(&c[k]);
    free(c);
    free(chg);
    free(hi);
    return any && !r->failed;
}

/* Whether row text `row` (pd_row_text) has the pair `pair` ("name=value"). */
static bool row_has(const char *row, const char *pair, size_t len)
{
    for (const char *p = row; *p; p = strchr(p, 0x1e) + 1) {
        if ((size_t)(strchr(p, 0x1e) - p) == len && !memcmp(p, pair, len))
            return true;
    }
    return false;
}

/* A configuration as a summary names it, after `sep`, into buf: its label for one
 * dimension ("arm64"), else its values ("os=macos arch=arm64"). Returns what snprintf
 * does. */
static size_t configuration_name(const char *row, const char *label, const char *sep, char *buf, size_t cap)
{
    size_t o = (size_t)snprintf(buf, cap, "%s", sep);

    if (strchr(row, 0x1e) && !strchr(strchr(row, 0x1e) + 1, 0x1e))
        return o + (size_t)snprintf(buf + (o < cap ? o : cap), o < cap ? cap - o : 0, "%s", label);
    for (const char *p = row; *p; p = strchr(p, 0x1e) + 1)
        o += (size_t)snprintf(buf + (o < cap ? o : cap), o < cap ? cap - o : 0, "%s%.*s", p == row ? "" : " ",
                              (int)(strchr(p, 0x1e) - p), p);
    return o;
}

/* What a side gained in its extra configurations, into buf: the values ("os=windows")
 * that only they have, when every one of them has such a value; else each of them
 * (its label for one dimension, else its values). */
static void configurations_text(char **rows, char **labels, const bool *extra, unsigned n, char **other_rows,
                                unsigned n_other, char *buf, size_t cap)
{
    size_t o = 0;
    bool explained = true;

    buf[0] = '\0';
    /* a value no job of the other side has, in every extra job (one value is the job) */
    for (unsigned i = 0; i < n && explained; i++) {
        const char *first = strchr(rows[i], 0x1e);

        if (!first || !first[1]) {
            explained = false;
            break;
        }
        bool has_new = false;

        for (const char *p = rows[i]; extra[i] && *p && !has_new; p = strchr(p, 0x1e) + 1) {
            size_t len = (size_t)(strchr(p, 0x1e) - p);
            bool seen = false;

            for (unsigned j = 0; j < n_other && !seen; j++)
                seen = row_has(other_rows[j], p, len);
            has_new = !seen;
        }
        explained = !extra[i] || has_new;
    }
    for (unsigned i = 0; i < n && o + 1 < cap; i++) {
        if (!extra[i])
            continue;
        for (const char *p = rows[i]; explained && *p && o + 1 < cap; p = strchr(p, 0x1e) + 1) {
            size_t len = (size_t)(strchr(p, 0x1e) - p);
            bool seen = false;
            char pair[300];

            for (unsigned j = 0; j < n_other && !seen; j++)
                seen = row_has(other_rows[j], p, len);
            snprintf(pair, sizeof(pair), "%.*s", (int)len, p);
            if (!seen && !strstr(buf, pair)) /* once per value */
                o += (size_t)snprintf(buf + o, cap - o, "%s%s", o ? ", " : "", pair);
        }
        if (!explained)
            o += configuration_name(rows[i], labels[i], o ? ", " : "", buf + o, cap - o);
    }
    if (o >= cap)
        memcpy(buf + cap - 4, "...", 4);
}

/* BASE's configurations HEAD skips, no longer extra, into buf: "os=macos arch=arm64
 * skipped: no runners". */
static void skipped_text(struct side *head, const char *id, char **rows, char **labels, bool *extra,
                         unsigned n, char *buf, size_t cap)
{
    size_t o = 0;

    buf[0] = '\0';
    for (unsigned i = 0; i < n && o + 1 < cap; i++) {
        const char *reason = extra[i] ? pd_skip_reason(head, id, rows[i]) : NULL;

        if (!reason)
            continue;
        extra[i] = false;
        o += configuration_name(rows[i], labels[i], o ? ", " : "", buf + o, cap - o);
        if (o + 1 < cap)
            o += (size_t)snprintf(buf + o, cap - o, " skipped%s%s", *reason ? ": " : "", reason);
    }
    if (o >= cap)
        memcpy(buf + cap - 4, "...", 4);
}

/* The configurations of a matrix on both sides: each one's label and values (row_text),
 * and whether the other side has none with the same values. */
struct configurations {
    unsigned n[2];
    char **labels[2], **rows[2];
    bool *extra[2];
};

/* Reads both sides' configurations of step x into c (every one extra at first). */
static int read_configurations(struct step_ctx *x, struct configurations *c)
{
    const struct shard_tuple *t[2] = {x->tb, x->th};
    struct side *sides[2] = {x->base, x->head};

    c->n[0] = x->b->shards;
    c->n[1] = x->h->shards;
    for (int k = 0; k < 2; k++) {
        c->labels[k] = calloc(c->n[k] + 1, sizeof(char *));
        c->rows[k] = calloc(c->n[k] + 1, sizeof(char *));
        c->extra[k] = calloc(c->n[k] + 1, 1);
        if (!c->labels[k] || !c->rows[k] || !c->extra[k])
            return -1;
        for (unsigned i = 0; i < c->n[k]; i++) {
            if (!(c->labels[k][i] = pd_spooled(sides[k], pd_label_at(&t[k][i]), t[k][i].label_len)) ||
                !(c->rows[k][i] = pd_spooled(sides[k], pd_row_at(&t[k][i]), t[k][i].row_len)))
                return -1;
            c->extra[k][i] = true;
        }
    }
    return 0;
}

static void free_configurations(struct configurations *c)
{
    for (int k = 0; k < 2; k++) {
        for (unsigned i = 0; c->labels[k] && i < c->n[k]; i++)
            free(c->labels[k][i]);
        for (unsigned i = 0; c->rows[k] && i < c->n[k]; i++)
            free(c->rows[k][i]);
        free(c->labels[k]);
        free(c->rows[k]);
        free(c->extra[k]);
    }
}

/* Pairs the configurations with the same values, BASE's job pairs[m][0] with HEAD's
 * pairs[m][1], in HEAD's order; how many. */
static unsigned match_configurations(struct configurations *c, unsigned (*pairs)[2])
{
    unsigned matched = 0;

    for (unsigned j = 0; j < c->n[1]; j++) {
        for (unsigned i = 0; i < c->n[0]; i++) {
            if (c->extra[0][i] && !strcmp(c->rows[0][i], c->rows[1][j])) {
                c->extra[0][i] = c->extra[1][j] = false;
                pairs[matched][0] = i;
                pairs[matched++][1] = j;
                break;
            }
        }
    }
    return matched;
}

/* "matrix 4 -> 6 jobs (os=windows added; ...)": the configurations one side has alone
 * (BASE's that HEAD's adjustments skip said so), after the vectors one side has alone
 * (`vectors`: "" for none). */
static void report_configurations(struct report *r, struct step_ctx *x, struct configurations *c, const char *id,
                                  const char *vectors)
{
    char line[4 * 320 + 64], old_j[16], new_j[16]; /* the four parts at most, whole */
    char gained[2][320], skipped[320];
    size_t o = (size_t)snprintf(line, sizeof(line), "matrix %u -> %u jobs%s%.320s (", c->n[0], c->n[1],
                                *vectors ? ": " : "", vectors);
    struct finding f;

    skipped_text(x->head, id, c->rows[0], c->labels[0], c->extra[0], c->n[0], skipped, sizeof(skipped));
    configurations_text(c->rows[1], c->labels[1], c->extra[1], c->n[1], c->rows[0], c->n[0], gained[1],
                        sizeof(gained[1]));
    configurations_text(c->rows[0], c->labels[0], c->extra[0], c->n[0], c->rows[1], c->n[1], gained[0],
                        sizeof(gained[0]));
    snprintf(line + o, sizeof(line) - o, "%s%s%s%s%s%s%s)", gained[1], *gained[1] ? " added" : "",
             *gained[1] && *gained[0] ? "; " : "", gained[0], *gained[0] ? " removed" : "",
             (*gained[1] || *gained[0]) && *skipped ? "; " : "", skipped);
    if (!*gained[0] && !*gained[1] && !*skipped)
        line[o - 2] = '\0'; /* the vectors say it all */
    pd_finding_init(&f, "shards", x->id, &x->at, line);
    snprintf(old_j, sizeof(old_j), "%u", c->n[0]);
    snprintf(new_j, sizeof(new_j), "%u", c->n[1]);
    f.part[P_OLD_JSON] = old_j;
    f.part[P_NEW_JSON] = new_j;
    step_finding(r, x, G_RESHARDED, &f);
}

/* A matrix on both sides (every dialect's matrix is a "matrix" of "jobs"):
 * configurations matched by their values, those of one side only summarised ("matrix
 * 4 -> 6 jobs (os=windows added)"), the others compared. */
static void compare_configurations(struct report *r, struct step_ctx *x, bool *changed, bool *resharded)
{
    struct configurations c = {{0, 0}, {NULL, NULL}, {NULL, NULL}, {NULL, NULL}};
    unsigned most = x->b->shards > x->h->shards ? x->b->shards : x->h->shards;
    unsigned (*pairs)[2] = malloc((most + 1) * sizeof(*pairs)), matched = 0;
    char *id = pd_spooled(x->head, x->h->id_off, x->h->id_len), *vectors = NULL;
    int n_vectors = 0;

    if (!pairs || !id || read_configurations(x, &c) != 0 ||
        (n_vectors = pd_match_vectors(c.rows, c.n, c.extra, pairs, &matched, &vectors)) < 0) {
        r->failed = true;
    } else {
        if (!n_vectors)
            matched = match_configurations(&c, pairs);
        x->vectors = n_vectors > 0;
        if (n_vectors || matched < c.n[0] || matched < c.n[1]) {
            report_configurations(r, x, &c, id, vectors);
            *resharded = true;
        }
        *changed = compare_jobs(r, x, (const unsigned (*)[2])pairs, matched);
    }
    free_configurations(&c);
    free(pairs);
    free(vectors);
    free(id);
}

/* The rule that derived step h (b) from a parent its side has, or NULL. */
static const struct dialect_derived *derived_rule(const struct side *base, const struct side *head,
                                                  const struct logical *b, const struct logical *h)
{
    return b->parent ? base->dialect->diff->derived : h->parent ? head->dialect->diff->derived : NULL;
}

/* Whether each of n jobs has the digest and entries of the other side's (compare_jobs
 * then finds no change). */
static bool same_jobs(const struct shard_tuple *a, const struct shard_tuple *b, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        if (a[k].digest != b[k].digest || a[k].data_len != b[k].data_len)
            return false;
    }
    return true;
}

/* Compares a step both sides have; `from` is BASE's identity when HEAD renamed it
 * (`similarity`: the percentage of its compared fields alike), else NULL. */
void pd_compare_matched(struct report *r, struct side *base, struct side *head, const struct logical *b,
                        const struct logical *h, const char *from, unsigned similarity)
{
    struct step_ctx x = {base, head, b, h, NULL, NULL, NULL, {NULL, 0, NULL}, from ? G_RENAMED : G_CHANGED, 0, false};
    char *id = NULL;
    struct pair_rec pair = {b->rank, h->rank, h->repeat, h->id_len, h->shards, h->id_off, h->tuples_off};
    unsigned n = b->shards < h->shards ? b->shards : h->shards, (*pairs)[2] = NULL;
    bool changed = false, resharded = false;
    /* a step of a few jobs, nearly every one, is read without a malloc */
    struct shard_tuple few[2][4];

    if (pd_moves_note(r, &pair) != 0)
        goto fail;
    pd_parents_note(r, head, h); /* an unchanged step can be a removed mirror's parent */
    /* most steps of a diff are unchanged: nothing to report, so nothing to name, nor any
     * job to read back (their digests, taken together, say so) */
    if (!from && !b->matrix && !h->matrix && b->shards == h->shards && b->jobs == h->jobs)
        goto done;
    x.tb = pd_read_tuples_into(base, b, few[0], 4);
    x.th = pd_read_tuples_into(head, h, few[1], 4);
    if (!x.tb || !x.th)
        goto fail;
    if (!from && !b->matrix && !h->matrix && b->shards == h->shards && same_jobs(x.tb, x.th, n))
        goto done;
    if (!(pairs = malloc((n + 1) * sizeof(*pairs))))
        goto fail;
    x.id = id = pd_display_id(head, h->id_off, h->id_len, h->repeat);
    if (!id || pd_where_of(head, x.th, NULL, h->shards, id, &x.at) != 0)
        goto fail;
    if (from) {
        char extra[32];
        struct finding f;

        pd_finding_init(&f, "renamed", id, &x.at, "renamed");
        f.part[P_FROM] = from;
        snprintf(extra, sizeof(extra), "\"similarity\": %u", similarity);
        f.part[P_EXTRA_JSON] = extra;
        step_finding(r, &x, G_RENAMED, &f);
    }
    if (b->matrix && h->matrix) {
        compare_configurations(r, &x, &changed, &resharded);
    } else {
        if (b->shards != h->shards) {
            report_shards(r, &x, derived_rule(base, head, b, h), b->shards, h->shards);
            resharded = true;
        }
        for (unsigned k = 0; k < n; k++)
            pairs[k][0] = pairs[k][1] = k;
        /* a job that became a matrix (or stopped being one) gained its vectors */
        x.vectors = b->matrix != h->matrix;
        changed = compare_jobs(r, &x, (const unsigned (*)[2])pairs, n);
    }
    if (changed || resharded || from)
        pd_not_run_report(r, head, h, x.th, &x.at, id, false, PH_BASE, b->rank, x.sub++);
    /* a step counts once: a rename is a rename, whatever else changed with it */
    if (from) {
        r->renamed++;
    } else {
        r->changed += changed;
        r->resharded += resharded;
    }
    goto done;
fail:
    r->failed = true;
done:
    free(pairs);
    if (x.tb != few[0])
        free(x.tb);
    if (x.th != few[1])
        free(x.th);
    free(x.at.label);
    free(id);
}

/* s's next logical step by identity, its rank told, into *l; NULL after the last. */
static const struct logical *next_ranked(struct side *s, struct logical *l)
{
    const struct logical *next = xsort_next(s->logicals);

    if (!next)
        return NULL;
    *l = *next;
    l->rank = pd_logical_rank(s, l->first);
    return l;
}

/* Merge-joins the two sides' logical steps by identity; those of one side only are set
 * aside for pd_report_unmatched. */
void pd_compare(struct report *r, struct side *base, struct side *head)
{
    struct logical bl, hl; /* the records (valid until the next of their sort), ranked */
    const struct logical *b = next_ranked(base, &bl), *h = next_ranked(head, &hl);

    while (b || h) {
        int c = !b ? 1 : !h ? -1 : pd_hkey_cmp(&b->lid, &h->lid);

        if (c < 0)
            pd_unmatched_add(r, base, b);
        else if (c > 0)
            pd_unmatched_add(r, head, h);
        else
            pd_compare_matched(r, base, head, b, h, NULL, 0);
        if (c <= 0)
            b = next_ranked(base, &bl);
        if (c >= 0)
            h = next_ranked(head, &hl);
    }
    if (xsort_failed(base->logicals) || xsort_failed(head->logicals))
        r->failed = true;
}
