#define _GNU_SOURCE /* open_memstream, asprintf, strndup */
/* pipediff_report: findings spooled, sorted back into the order a reader expects, and
 * printed as text, JSON, GitHub annotations or markdown, with the summary. */
#include "pipediff_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const group_titles[] = {"Will not run for this change", "Added", "Removed", "Renamed", "Changed", "Re-sharded", "Moved", "Findings"};

int pd_finding_cmp(const void *pa, const void *pb)
{
    const struct finding_rec *a = pa, *b = pb;

    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    if (a->block != b->block)
        return a->block < b->block ? -1 : 1;
    if (a->phase != b->phase)
        return a->phase < b->phase ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->sub != b->sub)
        return a->sub < b->sub ? -1 : 1;
    /* xsort is not stable: findings tied so far print in the order they were made */
    return a->off < b->off ? -1 : a->off > b->off;
}

/* Records finding `f`, to be printed in (group for markdown, dialect, phase, rank, sub)
 * order. */
void pd_add_finding(struct report *r, enum phase phase, uint32_t rank, uint32_t sub, enum group group,
                    const struct finding *f)
{
    struct finding_rec rec = {r->format == PD_MARKDOWN ? group : 0, r->block, phase, rank, sub, 0, r->spool_len};
    uint8_t words = f->words;

    r->blob.len = 0;
    if (pd_blob_add(&r->blob, &f->line, sizeof(f->line)) != 0 || pd_blob_add(&r->blob, &f->col, sizeof(f->col)) != 0 ||
        pd_blob_add(&r->blob, &f->mark, sizeof(f->mark)) != 0 || pd_blob_add(&r->blob, &words, 1) != 0)
        goto fail;
    for (int i = 0; i < N_PARTS; i++) {
        uint32_t none = UINT32_MAX;

        if (f->part[i] ? pd_blob_str(&r->blob, f->part[i], strlen(f->part[i])) != 0
                       : pd_blob_add(&r->blob, &none, sizeof(none)) != 0)
            goto fail;
    }
    rec.len = (uint32_t)r->blob.len;
    if (fwrite(r->blob.buf, 1, r->blob.len, r->spool) != r->blob.len || xsort_add(r->findings, &rec) != 0)
        goto fail;
    r->spool_len += r->blob.len;
    return;
fail:
    r->failed = true;
}

static const char *sigil(const char *kind)
{
    if (!strcmp(kind, "added"))
        return "+ ";
    if (!strcmp(kind, "removed"))
        return "- ";
    if (!strcmp(kind, "changed") || !strcmp(kind, "renamed") || !strcmp(kind, "not-run"))
        return "~ ";
    if (!strcmp(kind, "finding"))
        return "! ";
    return "";
}

/* The line every format shows: "<sigil><id>[ (<jobs>)][ [<file>:<line>[ "<label>"]]]:
 * <detail>", a rename's id reading "<from> -> <id>". NULL when out of memory. */
static char *line_of(const struct finding *f)
{
    char *line = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&line, &len);
    const char *label = f->part[P_LABEL];

    if (!m)
        return NULL;
    fputs(sigil(f->part[P_KIND]), m);
    if (f->part[P_FROM])
        fprintf(m, "%s -> ", f->part[P_FROM]);
    fputs(f->part[P_ID], m);
    if (f->part[P_JOBS])
        fprintf(m, " (%s)", f->part[P_JOBS]);
    if (f->part[P_FILE]) {
        fprintf(m, " [%s:%u", f->part[P_FILE], f->line);
        if (label) {
            size_t n = text_utf8_cut(label, strlen(label), LABEL_MAX);

            fputs(" \"", m);
            for (size_t i = 0; i < n; i++)
                fprintf(m, label[i] == '"' || label[i] == '\\' ? "\\%c" : "%c", label[i]);
            fputs(label[n] ? "...\"" : "\"", m);
        }
        fputc(']', m);
    }
    fprintf(m, ": %s", f->part[P_DETAIL]);
    if (fclose(m) != 0) {
        free(line);
        return NULL;
    }
    return line;
}

/* Markdown: `s` as code, fenced with two backticks when it holds one. */
static void md_code(FILE *md, const char *s)
{
    fprintf(md, strchr(s, '`') ? "`` %s ``" : "`%s`", s);
}

/* What markdown would read as formatting (or HTML) in plain text. */
#define MD_SPECIAL "\\`*_[]<"

/* Markdown: `s` as plain text (what would format it escaped). */
static void md_text(FILE *md, const char *s)
{
    for (; *s; s++) {
        if (strchr(MD_SPECIAL, *s))
            fputc('\\', md);
        fputc(*s, md);
    }
}

/* Markdown: `lines` in a code block under a list item (`info`: its language). */
static void md_block(FILE *md, const char *info, const char *lines)
{
    static const char fence[] = "``````````````````````````````````````````````````````````````````````````````````````````";
    unsigned run = 0, longest = 0;

    /* a fence longer than any run of backticks in the lines */
    for (const char *p = lines; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    fprintf(md, "  %.*s%s\n", (int)(longest < 3 ? 3 : longest + 1), fence, info);
    for (const char *p = lines; *p;) {
        size_t n = strcspn(p, "\n");

        fprintf(md, "  %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    fprintf(md, "  %.*s\n", (int)(longest < 3 ? 3 : longest + 1), fence);
}

/* Markdown: `lines` in a code block inside <details>, under a list item. */
static void md_details(FILE *md, const char *summary, const char *lines)
{
    fprintf(md, "  <details><summary>%s</summary>\n\n", summary);
    md_block(md, "", lines);
    fputs("\n  </details>\n", md);
}

/* Markdown: a list's items as code, each after `sign`, from the first (`*any`: one is
 * written already). */
static void md_items(FILE *md, const char *items, const char *sign, bool *any)
{
    for (const char *p = items; p && *p;) {
        size_t n = strcspn(p, "\n");

        fprintf(md, "%s%s ", *any ? ", " : " ", sign);
        fprintf(md, memchr(p, '`', n) ? "`` %.*s ``" : "`%.*s`", (int)n, p);
        *any = true;
        p += n + (p[n] == '\n');
    }
}

/* Markdown: the end of a value's line: the jobs a top-level env reaches, if any. */
static void md_reach(FILE *md, const struct finding *f)
{
    if (f->part[P_REACH])
        fprintf(md, strcmp(f->part[P_REACH], "1") ? " (all %s jobs)" : " (%s job)", f->part[P_REACH]);
    fputc('\n', md);
}

static void print_markdown(FILE *md, const struct finding *f)
{
    const char *kind = f->part[P_KIND], *detail = f->part[P_DETAIL];
    size_t kl = strlen(kind), dl;

    fputs("- ", md);
    if (f->part[P_FROM]) {
        md_code(md, f->part[P_FROM]);
        fputs(" → ", md);
    }
    md_code(md, f->part[P_ID]);
    if (f->part[P_JOBS]) {
        fputs(" (", md);
        md_text(md, f->part[P_JOBS]);
        fputc(')', md);
    }
    if (f->part[P_FILE])
        fprintf(md, strchr(f->part[P_FILE], '`') ? " at `` %s:%u ``" : " at `%s:%u`", f->part[P_FILE], f->line);
    if (f->part[P_LABEL]) {
        fputs(" “", md);
        md_text(md, f->part[P_LABEL]);
        fputs("”", md);
    }
    if (f->part[P_FIELD] && f->part[P_HUNKS]) {
        /* "**run**: 1 line removed, 1 added", the lines under it */
        fputs(": **", md);
        md_text(md, f->part[P_FIELD]);
        fputs("**: ", md);
        md_text(md, detail + strlen(f->part[P_FIELD]) + 2);
        fputs("\n\n", md);
        md_block(md, "diff", f->part[P_HUNKS]);
    } else if (f->part[P_FIELD] && (f->part[P_ADDED] || f->part[P_REMOVED])) {
        bool any = false;

        fputs(": **", md);
        md_text(md, f->part[P_FIELD]);
        fputs("**:", md);
        md_items(md, f->part[P_ADDED], "+", &any);
        md_items(md, f->part[P_REMOVED], "-", &any);
        md_reach(md, f);
    } else if (f->part[P_FIELD]) {
        fputs(": **", md);
        md_text(md, f->part[P_FIELD]);
        fputs("**: ", md);
        md_code(md, f->part[f->words ? P_NEW : P_OLD]);
        fputs(f->words ? " (was " : " → ", md);
        md_code(md, f->part[f->words ? P_OLD : P_NEW]);
        fputs(f->words ? ")" : "", md);
        md_reach(md, f);
    } else if (f->part[P_REASON]) {
        /* the heading says it will not run: "changed: WHY" */
        fputs(strncmp(detail, "added", 5) ? ": changed: " : ": added: ", md);
        md_text(md, f->part[P_REASON]);
        fputc('\n', md);
    } else {
        /* the heading says the kind: "added (4 shards)" reads "4 shards" */
        if (!strncmp(detail, kind, kl) && (detail[kl] == '\0' || detail[kl] == ' '))
            detail += kl + (detail[kl] == ' ');
        dl = strlen(detail);
        if (dl > 2 && detail[0] == '(' && detail[dl - 1] == ')')
            detail++, dl -= 2;
        if (dl) {
            fputs(": ", md);
            for (size_t i = 0; i < dl; i++)
                fprintf(md, strchr(MD_SPECIAL, detail[i]) ? "\\%c" : "%c", detail[i]);
        }
        fputc('\n', md);
    }
    if (f->part[P_MORE])
        md_details(md, "what it runs", f->part[P_MORE]);
    else if (f->part[P_FULL])
        md_details(md, f->words ? "values by job" : "full values", f->part[P_FULL]);
}

/* JSON: unified hunks as data, ", \"hunks\": [{\"old_start\": 8, \"old_lines\": 7, \"new_start\":
 * 8, \"new_lines\": 7, \"lines\": [\" a\", \"-b\", \"+c\"]}, ...]". */
static int json_hunks(FILE *out, const char *hunks)
{
    bool first = true, in_hunk = false;

    fputs(", \"hunks\": [", out);
    for (const char *p = hunks; *p;) {
        size_t n = strcspn(p, "\n");
        unsigned long a, b, c, d;
        char *line;

        if (sscanf(p, "@@ -%lu,%lu +%lu,%lu @@", &a, &b, &c, &d) == 4) {
            fprintf(out, "%s{\"old_start\": %lu, \"old_lines\": %lu, \"new_start\": %lu, \"new_lines\": %lu, "
                         "\"lines\": [",
                    in_hunk ? "]}, " : "", a, b, c, d);
            in_hunk = true;
            first = true;
        } else {
            if (!(line = strndup(p, n)))
                return -1;
            fputs(first ? "" : ", ", out);
            diag_write_json_string(out, line);
            free(line);
            first = false;
        }
        p += n + (p[n] == '\n');
    }
    fputs(in_hunk ? "]}]" : "]", out);
    return 0;
}

static int print_json(struct report *r, const struct finding *f, const char *line)
{
    static const struct {
        enum part part;
        const char *name;
    } members[] = {{P_KIND, "kind"},   {P_ID, "step"},     {P_FROM, "from"},   {P_JOBS, "jobs"},
                   {P_FILE, "file"},   {P_LABEL, "label"}, {P_FIELD, "field"}, {P_REASON, "reason"}};

    fputs(r->json_first ? "\n    {" : ",\n    {", r->out);
    r->json_first = false;
    for (size_t i = 0; i < sizeof(members) / sizeof(*members); i++) {
        if (!f->part[members[i].part])
            continue;
        fprintf(r->out, "%s\"%s\": ", i ? ", " : "", members[i].name);
        diag_write_json_string(r->out, f->part[members[i].part]);
        if (members[i].part == P_FILE)
            fprintf(r->out, ", \"line\": %u", f->line);
    }
    if (f->part[P_OLD_JSON])
        fprintf(r->out, ", \"old\": %s", f->part[P_OLD_JSON]);
    if (f->part[P_NEW_JSON])
        fprintf(r->out, ", \"new\": %s", f->part[P_NEW_JSON]);
    if (f->part[P_EXTRA_JSON])
        fprintf(r->out, ", %s", f->part[P_EXTRA_JSON]);
    if (f->part[P_REACH])
        fprintf(r->out, ", \"reaches\": %s", f->part[P_REACH]);
    if (f->part[P_HUNKS] && json_hunks(r->out, f->part[P_HUNKS]) != 0)
        return -1;
    fputs(", \"text\": ", r->out);
    diag_write_json_string(r->out, line);
    fputc('}', r->out);
    return 0;
}

/* Where an annotation of f goes: HEAD's file and line of what changed, else FILE:LINE
 * ("": no file). */
static const char *mark_file(const struct finding *f)
{
    return f->part[P_MARK_FILE] ? f->part[P_MARK_FILE] : f->part[P_FILE];
}

static uint32_t mark_line(const struct finding *f)
{
    return f->part[P_MARK_FILE] ? f->mark : f->line;
}

/* The column of mark_line's line a finding has (a rule's finding where it was read), or 0. */
static uint32_t mark_column(const struct finding *f)
{
    return f->part[P_MARK_FILE] ? 0 : f->col;
}

/* Writes one finding in the report's format (markdown to `md`, under the summary). */
static int print_finding(struct report *r, FILE *md, const struct finding *f)
{
    char *line = line_of(f);
    int rc = 0;

    if (!line)
        return -1;
    switch (r->format) {
    case PD_TEXT:
        fprintf(r->out, "%s\n", line);
        /* what an added step runs, or a text's lines changed, under it */
        for (const char *p = f->part[P_MORE] ? f->part[P_MORE] : f->part[P_HUNKS]; p && *p;) {
            size_t n = strcspn(p, "\n");

            fprintf(r->out, "    %.*s\n", (int)n, p);
            p += n + (p[n] == '\n');
        }
        break;
    case PD_GITHUB:
        /* a rule finding at its own level; a change its own CI will not run is what a
         * reviewer must not miss */
        fprintf(r->out, "::%s ", f->part[P_SEVERITY] ? f->part[P_SEVERITY] : f->part[P_REASON] ? "warning" : "notice");
        /* on HEAD's line of what changed, which the pull request's diff shows */
        if (mark_file(f) && *mark_file(f)) {
            fputs("file=", r->out);
            diag_write_github_property(r->out, mark_file(f));
            fprintf(r->out, ",line=%u,", mark_line(f));
            if (mark_column(f))
                fprintf(r->out, "col=%u,", mark_column(f));
        }
        fputs("title=", r->out);
        diag_write_github_property(r->out, "fanout diff: ");
        diag_write_github_property(r->out, f->part[P_KIND]);
        fputc(' ', r->out);
        diag_write_github_property(r->out, f->part[P_ID]);
        fputs("::", r->out);
        diag_write_github_escaped(r->out, line);
        if (f->part[P_MARK_NOTE]) {
            fputs("%0A", r->out);
            diag_write_github_escaped(r->out, f->part[P_MARK_NOTE]);
        }
        if (f->part[P_MORE] || f->part[P_HUNKS]) {
            fputs("%0A", r->out);
            diag_write_github_escaped(r->out, f->part[P_MORE] ? f->part[P_MORE] : f->part[P_HUNKS]);
        }
        fputc('\n', r->out);
        break;
    case PD_MARKDOWN:
        print_markdown(md, f);
        break;
    case PD_JSON:
        rc = print_json(r, f, line);
        break;
    case PD_SARIF:
        pd_sarif_finding(r, mark_file(f) && *mark_file(f) ? mark_file(f) : NULL, mark_line(f), mark_column(f), f, line);
        break;
    }
    free(line);
    return rc;
}

/* Prints the findings in order (to `md` for markdown, which goes under the summary). */
static int print_findings(struct report *r, FILE *md)
{
    const struct finding_rec *rec;
    char *buf = NULL;
    size_t cap = 0;
    int rc = -1;
    uint32_t group = UINT32_MAX;

    if (xsort_finish(r->findings) != 0 || fflush(r->spool) != 0)
        return -1;
    while ((rec = xsort_next(r->findings)) != NULL) {
        struct finding f;
        char *p;

        if (rec->len + 1 > cap) {
            char *grown = realloc(buf, cap = rec->len + 1);

            if (!grown)
                goto done;
            buf = grown;
        }
        if (fseeko(r->spool, (off_t)rec->off, SEEK_SET) != 0 || fread(buf, 1, rec->len, r->spool) != rec->len)
            goto done;
        memset(&f, 0, sizeof(f));
        p = buf;
        memcpy(&f.line, p, sizeof(f.line));
        memcpy(&f.col, p += sizeof(f.line), sizeof(f.col));
        memcpy(&f.mark, p += sizeof(f.col), sizeof(f.mark));
        f.words = *(p += sizeof(f.mark));
        p++;
        for (int i = 0; i < N_PARTS; i++) {
            uint32_t n;

            memcpy(&n, p, sizeof(n));
            if (n == UINT32_MAX) {
                p += sizeof(n);
                continue;
            }
            memmove(p, p + sizeof(n), n);
            p[n] = '\0';
            f.part[i] = p;
            p += sizeof(n) + n;
        }
        if (r->format == PD_MARKDOWN && rec->group != group)
            fprintf(md, "%s#### %s\n\n", group == UINT32_MAX ? "" : "\n", group_titles[rec->group]);
        group = rec->group;
        if (print_finding(r, md, &f) != 0)
            goto done;
    }
    rc = xsort_failed(r->findings) ? -1 : 0;
done:
    free(buf);
    return rc;
}
/* ---------- comparing ---------- */

/* Where a finding about jobs `idx` (n of them; NULL: the first n) of tuples `t` of side
 * `s` points: the first one's file and line, and their labels. 0, or -1 when out of
 * memory. */
int pd_where_of(struct side *s, const struct shard_tuple *t, const unsigned *idx, unsigned n,
                const char *id, struct where *w)
{
    char **titles = calloc(n ? n : 1, sizeof(*titles)), label[4 * LABEL_MAX + 32];
    int rc = -1;

    memset(w, 0, sizeof(*w));
    if (!titles || !n)
        goto done;
    w->file = pd_side_file(s, t[idx ? idx[0] : 0].file);
    w->line = t[idx ? idx[0] : 0].line;
    for (unsigned i = 0; i < n; i++) {
        const struct shard_tuple *one = &t[idx ? idx[i] : i];

        if (!(titles[i] = pd_spooled(s, pd_title_at(one), one->title_len)))
            goto done;
    }
    if (*titles[0] && !pd_summarize(label, sizeof(label), titles, n))
        snprintf(label, sizeof(label), "%s", titles[0]);
    if (*titles[0] && strcmp(label, id) != 0 && !(w->label = strdup(label)))
        goto done;
    rc = 0;
done:
    for (unsigned i = 0; titles && i < n; i++)
        free(titles[i]);
    free(titles);
    return rc;
}

/* A matrix's jobs as one range of their labels ("part 0..13", "os=linux part=0..13")
 * when they differ by consecutive numbers in one place, into buf; false when they do
 * not (or out of memory). */
static bool labels_range(struct side *s, const struct shard_tuple *t, const unsigned *idx, unsigned n,
                         char *buf, size_t cap)
{
    char **labels = calloc(n, sizeof(*labels)), label[128];
    bool ok = labels != NULL && n > 1;

    for (unsigned i = 0; ok && i < n; i++)
        ok = (labels[i] = strdup(pd_job_label(s, &t[idx[i]], idx[i], label, sizeof(label)))) != NULL;
    ok = ok && pd_summarize(buf, cap, labels, n) && strstr(buf, "..");
    for (unsigned i = 0; labels && i < n; i++)
        free(labels[i]);
    free(labels);
    return ok;
}

/* Whether label `l` has the word w (len bytes) between spaces. */
static bool has_word(const char *l, const char *w, size_t len)
{
    for (const char *p = l; *p; p += strcspn(p, " "), p += *p == ' ') {
        if (strcspn(p, " ") == len && !memcmp(p, w, len))
            return true;
    }
    return false;
}

/* A matrix's jobs by the values they all have ("4 jobs with arch=arm64"), into buf;
 * false when they share none (or out of memory). */
static bool labels_shared(struct side *s, const struct shard_tuple *t, const unsigned *idx, unsigned n,
                          char *buf, size_t cap)
{
    char first[128], label[128];
    size_t o = (size_t)snprintf(buf, cap, "%u jobs with", n);
    bool any = false;

    pd_job_label(s, &t[idx[0]], idx[0], first, sizeof(first));
    for (const char *w = first; *w && o < cap; w += strcspn(w, " "), w += *w == ' ') {
        size_t len = strcspn(w, " ");
        bool all = memchr(w, '=', len) != NULL;

        for (unsigned i = 1; all && i < n; i++)
            all = has_word(pd_job_label(s, &t[idx[i]], idx[i], label, sizeof(label)), w, len);
        if (all) {
            o += (size_t)snprintf(buf + o, cap - o, " %.*s", (int)len, w);
            any = true;
        }
    }
    return any && n > 1 && o < cap;
}

/* The jobs of a fan-out a line is about, `idx` (ascending) of tuples `t`: "shard 2",
 * "shards 1-3", "shards 0, 2-3"; a matrix's by their labels, as a range when they are
 * one ("part 0..13"), else by the values they all have ("4 jobs with arch=arm64"), else
 * one by one ("part 0, part 2"). Malloc'd; NULL when out of memory. */
char *pd_jobs_text(struct side *s, const struct shard_tuple *t, const unsigned *idx, unsigned n)
{
    char *text = NULL, label[128], range[4 * LABEL_MAX];
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);

    if (!m)
        return NULL;
    if (t[idx[0]].label_len && (labels_range(s, t, idx, n, range, sizeof(range)) ||
                                labels_shared(s, t, idx, n, range, sizeof(range)))) {
        fputs(range, m);
    } else if (t[idx[0]].label_len) {
        for (unsigned i = 0; i < n; i++) {
            if (ftello(m) > 2 * LABEL_MAX) {
                fprintf(m, ", ... (%u jobs)", n);
                break;
            }
            fprintf(m, "%s%s", i ? ", " : "", pd_job_label(s, &t[idx[i]], idx[i], label, sizeof(label)));
        }
    } else {
        fprintf(m, "shard%s ", n > 1 ? "s" : "");
        for (unsigned i = 0, j; i < n; i = j + 1) {
            for (j = i; j + 1 < n && idx[j + 1] == idx[j] + 1;)
                j++;
            fprintf(m, j > i ? "%s%u-%u" : "%s%u", i ? ", " : "", idx[i], idx[j]);
        }
    }
    if (fclose(m) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

void pd_finding_init(struct finding *f, const char *kind, const char *id, const struct where *w,
                     const char *detail)
{
    memset(f, 0, sizeof(*f));
    f->part[P_KIND] = kind;
    f->part[P_ID] = id;
    f->part[P_DETAIL] = detail;
    if (w) {
        f->part[P_FILE] = w->file;
        f->line = w->line;
        f->part[P_LABEL] = w->label;
    }
}

/* The summary, the runners whose figures changed before it (in markdown under the
 * counts, in JSON after the changes). */
static int print_summary(struct report *r, bool same, const char *md_text)
{
    char counts[200];
    int rc = 0, n;

    n = snprintf(counts, sizeof(counts), "%u added, %u removed, %u renamed, %u changed, %u moved, %u re-sharded",
                 r->added, r->removed, r->renamed, r->changed, r->moved, r->resharded);
    if (r->not_run)
        snprintf(counts + n, sizeof(counts) - (size_t)n, ", %u not run for this change", r->not_run);
    switch (r->format) {
    case PD_TEXT:
        rc = pd_print_runners(&r->runners, r->format, r->out);
        fprintf(r->out, "%s%s\n", same ? "no changes: " : "", counts);
        break;
    case PD_GITHUB:
        rc = pd_print_runners(&r->runners, r->format, r->out);
        fprintf(r->out, "::notice title=fanout diff::%s\n", counts);
        break;
    case PD_JSON:
        fprintf(r->out, "%s]", r->json_first ? "" : "\n  ");
        rc = pd_print_runners(&r->runners, r->format, r->out);
        fprintf(r->out, ",\n  \"same\": %s,\n  \"added\": %u,\n  \"removed\": %u,\n  \"renamed\": %u,\n"
                        "  \"changed\": %u,\n  \"moved\": %u,\n  \"resharded\": %u",
                same ? "true" : "false", r->added, r->removed, r->renamed, r->changed, r->moved, r->resharded);
        /* known only when HEAD was rendered for a change */
        if (r->change_known)
            fprintf(r->out, ",\n  \"not_run\": %u", r->not_run);
        fputs("\n}\n", r->out);
        break;
    case PD_MARKDOWN:
        fprintf(r->out, "### fanout: pipeline changes\n\n");
        if (same)
            /* then the runners only when minutes alone changed */
            fprintf(r->out, "No change in the rendered pipeline.\n%s",
                    pd_runners_changed(&r->runners) || (md_text && *md_text) ? "\n" : "");
        else
            fprintf(r->out, "**%s**\n\n", counts);
        rc = pd_print_runners(&r->runners, r->format, r->out);
        /* the findings (with no change, `--findings all`'s rule findings) */
        fputs(md_text ? md_text : "", r->out);
        break;
    case PD_SARIF:
        return pd_sarif_end(r, counts);
    }
    return rc;
}

int pd_print_report(struct report *r, bool same)
{
    char *md_text = NULL;
    size_t md_len = 0;
    FILE *md = NULL;
    int rc = -1;

    if (r->format == PD_JSON)
        fputs("{\n  \"changes\": [", r->out);
    if (r->format == PD_SARIF && pd_sarif_begin(r) != 0)
        goto done;
    /* markdown's findings go under the summary, which counts them */
    if (r->format == PD_MARKDOWN && !(md = open_memstream(&md_text, &md_len)))
        return -1;
    if (print_findings(r, md ? md : r->out) != 0)
        goto done;
    if (md && fclose(md) != 0) {
        md = NULL;
        goto done;
    }
    md = NULL;
    rc = print_summary(r, same, md_text);
done:
    pd_sarif_free(r);
    if (md)
        fclose(md);
    free(md_text);
    return rc;
}
