#include "fanout/pipediff.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/buildkite.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/ynode.h"
#include "fanout/yscalar.h"

#define VALUE_MAX 160 /* characters of a value shown in a message */

/* One step of a rendering, groups flattened. */
struct step {
    struct ynode *node;
    char *group;  /* label of its group, or NULL */
    char *id;     /* what matches it across renderings */
    unsigned shard, shards; /* shard i of N (0 of 1 when not sharded) */
};

/* A step before sharding: its shards together. */
struct logical {
    char *id;
    char *group;
    unsigned shards;
    struct step *first; /* shard 0 (or the step itself) */
    size_t pos;         /* order in its rendering */
    bool matched;
};

struct side {
    char *text; /* the rendering */
    size_t len;
    struct ynode_doc **docs;
    size_t n_docs;
    struct step *steps;
    size_t n_steps, cap_steps;
    struct logical *logical;
    size_t n_logical;
};

struct report {
    enum pd_format format;
    FILE *out;
    unsigned added, removed, changed, moved, resharded;
    bool json_first;
    /* markdown: lines are collected first, then written under a summary */
    char *md;
    size_t md_len;
    FILE *md_out;
};

/* ---------- reading a rendering ---------- */

static char *dup_scalar(const struct ynode *n)
{
    size_t len;
    const char *t = ynode_scalar(n, &len);

    return t ? strndup(t, len) : NULL;
}

static int add_step(struct side *s, struct ynode *node, const char *group)
{
    struct step *st;

    if (s->n_steps == s->cap_steps) {
        size_t cap = s->cap_steps ? s->cap_steps * 2 : 64;
        struct step *v = realloc(s->steps, cap * sizeof(*v));

        if (!v)
            return -1;
        s->steps = v;
        s->cap_steps = cap;
    }
    st = &s->steps[s->n_steps++];
    memset(st, 0, sizeof(*st));
    st->node = node;
    st->group = group ? strdup(group) : NULL;
    st->shards = 1;
    return 0;
}

static int collect_steps(struct side *s, struct ynode *steps, const char *group)
{
    for (size_t i = 0; i < ynode_len(steps); i++) {
        struct ynode *step = ynode_item(steps, i);
        struct ynode *children = ynode_get(step, "steps");

        if (bk_step_kind(step) == BK_GROUP && ynode_is_seq(children)) {
            char *label = dup_scalar(ynode_get(step, "group"));
            int rc = collect_steps(s, children, label ? label : "");

            free(label);
            if (rc != 0)
                return -1;
        } else if (add_step(s, step, group) != 0) {
            return -1;
        }
    }
    return 0;
}

static int load_side(struct side *s, struct diag *d)
{
    struct source *src = source_open_text("<rendering>", s->text, s->len, d);
    struct stream *st = src ? stream_open(src, 0, d) : NULL;
    struct ynode_doc *doc;
    int rc = st ? 0 : -1;

    while (rc == 0 && st && stream_document(st, &doc) > 0) {
        struct ynode_doc **docs;
        struct ynode *steps;

        if (!doc)
            continue;
        if (!(docs = realloc(s->docs, (s->n_docs + 1) * sizeof(*docs)))) {
            ynode_doc_destroy(doc);
            rc = -1;
            break;
        }
        s->docs = docs;
        s->docs[s->n_docs++] = doc;
        steps = ynode_get(ynode_doc_root(doc), "steps");
        if (ynode_is_seq(steps) && collect_steps(s, steps, NULL) != 0)
            rc = -1;
    }
    stream_close(st);
    source_close(src);
    return rc;
}

/* ---------- identities ---------- */

static unsigned env_number(struct ynode *step, const char *name, bool *present)
{
    struct ynode *env = ynode_get(step, "env");
    size_t len;
    const char *t = ynode_scalar(ynode_get(env, name), &len);
    char buf[16];

    *present = t && len > 0 && len < sizeof(buf);
    if (!*present)
        return 0;
    memcpy(buf, t, len);
    buf[len] = '\0';
    return (unsigned)strtoul(buf, NULL, 10);
}

/* Sets each step's id and shard numbers: the key without its shard suffix, else the
 * label, else the step's kind with a running number; repeats get "#2", "#3"... */
static int identify(struct side *s)
{
    for (size_t i = 0; i < s->n_steps; i++) {
        struct step *st = &s->steps[i];
        struct ynode *keynode = NULL;
        bool has_job, has_count;
        unsigned job = env_number(st->node, "BUILDKITE_PARALLEL_JOB", &has_job);
        unsigned count = env_number(st->node, "BUILDKITE_PARALLEL_JOB_COUNT", &has_count);
        char *id = NULL;
        size_t len;
        const char *t;

        if (ynode_is_map(st->node))
            ynode_get_any(st->node, bk_key_keys, &keynode);
        if (has_job && has_count && count > 1 && job < count) {
            st->shard = job;
            st->shards = count;
        }
        if ((t = ynode_scalar(keynode, &len)) != NULL) {
            char suffix[16];
            int sl = snprintf(suffix, sizeof(suffix), "-%u", st->shard);

            if (st->shards > 1 && len > (size_t)sl && !memcmp(t + len - sl, suffix, (size_t)sl))
                len -= (size_t)sl;
            else
                st->shard = 0, st->shards = 1; /* not a shard fanout named */
            id = strndup(t, len);
        } else {
            struct ynode *label = NULL;

            st->shard = 0;
            st->shards = 1;
            if (ynode_is_map(st->node))
                ynode_get_any(st->node, bk_label_keys, &label);
            t = ynode_scalar(label, &len);
            if (!t && ynode_is_scalar(st->node))
                t = ynode_scalar(st->node, &len);
            if (!t) {
                t = bk_kind_name(bk_step_kind(st->node));
                len = strlen(t);
            }
            id = strndup(t, len);
        }
        if (!id)
            return -1;
        /* repeats of an id that is not a sharded step's */
        if (st->shards == 1) {
            unsigned seen = 1;

            for (size_t j = 0; j < i; j++) {
                if (s->steps[j].shards == 1 && s->steps[j].id &&
                    !strncmp(s->steps[j].id, id, strlen(id)) &&
                    (s->steps[j].id[strlen(id)] == '\0' || s->steps[j].id[strlen(id)] == '#'))
                    seen++;
            }
            if (seen > 1) {
                char *numbered = malloc(strlen(id) + 16);

                if (!numbered) {
                    free(id);
                    return -1;
                }
                sprintf(numbered, "%s#%u", id, seen);
                free(id);
                id = numbered;
            }
        }
        st->id = id;
    }
    return 0;
}

static struct logical *find_logical(struct side *s, const char *id)
{
    for (size_t i = 0; i < s->n_logical; i++) {
        if (strcmp(s->logical[i].id, id) == 0)
            return &s->logical[i];
    }
    return NULL;
}

static int group_logical(struct side *s)
{
    s->logical = calloc(s->n_steps ? s->n_steps : 1, sizeof(*s->logical));
    if (!s->logical)
        return -1;
    for (size_t i = 0; i < s->n_steps; i++) {
        struct step *st = &s->steps[i];
        struct logical *l = st->shards > 1 ? find_logical(s, st->id) : NULL;

        if (l && l->shards == st->shards) {
            if (st->shard == 0)
                l->first = st;
            continue;
        }
        l = &s->logical[s->n_logical];
        l->id = st->id;
        l->group = st->group;
        l->shards = st->shards;
        l->first = st;
        l->pos = s->n_logical++;
    }
    return 0;
}

static void side_free(struct side *s)
{
    for (size_t i = 0; i < s->n_steps; i++) {
        free(s->steps[i].id);
        free(s->steps[i].group);
    }
    free(s->steps);
    free(s->logical);
    for (size_t i = 0; i < s->n_docs; i++)
        ynode_doc_destroy(s->docs[i]);
    free(s->docs);
    free(s->text);
}

static int render_side(const char *spec, const struct render_opts *opts, struct side *s,
                       struct diag *d)
{
    struct render_opts o = *opts;
    int rc;

    memset(s, 0, sizeof(*s));
    o.format = EMIT_YAML; /* read back below */
    rc = render_to_memory(&spec, 1, &o, d, &s->text, &s->len);
    if (rc != 0)
        return rc;
    if (load_side(s, d) != 0 || identify(s) != 0 || group_logical(s) != 0) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, spec, 0, 0, "internal", "out of memory");
        return DIAG_INPUT;
    }
    return 0;
}

/* ---------- values in messages ---------- */

struct text {
    char buf[VALUE_MAX + 8];
    size_t len;
    bool cut;
};

static void text_add(struct text *t, const char *s, size_t n)
{
    if (t->len + n > VALUE_MAX) {
        n = VALUE_MAX > t->len ? VALUE_MAX - t->len : 0;
        t->cut = true;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

/* A node on one line, in YAML flow style. */
static void flow(struct text *t, struct ynode *n)
{
    size_t len;
    const char *s;

    if (!n) {
        text_add(t, "null", 4);
    } else if (ynode_is_map(n)) {
        text_add(t, "{", 1);
        for (size_t i = 0; i < ynode_len(n); i++) {
            if (i)
                text_add(t, ", ", 2);
            flow(t, ynode_key(n, i));
            text_add(t, ": ", 2);
            flow(t, ynode_value(n, i));
        }
        text_add(t, "}", 1);
    } else if (ynode_is_seq(n)) {
        text_add(t, "[", 1);
        for (size_t i = 0; i < ynode_len(n); i++) {
            if (i)
                text_add(t, ", ", 2);
            flow(t, ynode_item(n, i));
        }
        text_add(t, "]", 1);
    } else {
        s = ynode_scalar(n, &len);
        if (!s)
            s = "", len = 0;
        if (ynode_is_string(n) && (yscalar_style(s, len, true) != YS_PLAIN || memchr(s, ',', len))) {
            text_add(t, "\"", 1);
            for (size_t i = 0; i < len; i++) {
                if (s[i] == '\n')
                    text_add(t, "\\n", 2);
                else if (s[i] == '"' || s[i] == '\\') {
                    text_add(t, "\\", 1);
                    text_add(t, s + i, 1);
                } else {
                    text_add(t, s + i, 1);
                }
            }
            text_add(t, "\"", 1);
        } else {
            text_add(t, s, len);
        }
    }
}

static void show(struct text *t, struct ynode *n)
{
    memset(t, 0, sizeof(*t));
    flow(t, n);
    if (t->cut)
        strcat(t->buf, "...");
}

/* ---------- output ---------- */

static const char *sigil(const char *kind)
{
    if (!strcmp(kind, "added"))
        return "+ ";
    if (!strcmp(kind, "removed"))
        return "- ";
    if (!strcmp(kind, "changed"))
        return "~ ";
    return "";
}

/* One finding about step `id`: `kind` (added, removed, changed, shards, moved) and
 * `detail`; for a changed field also its name and old and new values. Text reads
 * "<sigil><id>: <detail>". */
static void emit_line(struct report *r, const char *kind, const char *id, const char *detail,
                      const char *field, const char *old_v, const char *new_v)
{
    char line[1024];

    snprintf(line, sizeof(line), "%s%s: %s", sigil(kind), id, detail);
    switch (r->format) {
    case PD_TEXT:
        fprintf(r->out, "%s\n", line);
        break;
    case PD_GITHUB:
        fprintf(r->out, "::notice title=fanout diff (%s)::", kind);
        diag_write_github_escaped(r->out, line);
        fputc('\n', r->out);
        break;
    case PD_MARKDOWN:
        /* values may hold backticks: fence them with two and a space */
        if (field && (strchr(old_v, '`') || strchr(new_v, '`')))
            fprintf(r->md_out, "- %s `%s` **%s**: `` %s `` → `` %s ``\n", kind, id, field, old_v, new_v);
        else if (field)
            fprintf(r->md_out, "- %s `%s` **%s**: `%s` → `%s`\n", kind, id, field, old_v, new_v);
        else if (!strncmp(detail, kind, strlen(kind))) /* "added (4 shards)" */
            fprintf(r->md_out, "- %s `%s`%s\n", kind, id, detail + strlen(kind));
        else
            fprintf(r->md_out, "- %s `%s`: %s\n", kind, id, detail);
        break;
    case PD_JSON:
        fputs(r->json_first ? "\n    {" : ",\n    {", r->out);
        r->json_first = false;
        fputs("\"kind\": ", r->out);
        diag_write_json_string(r->out, kind);
        fputs(", \"step\": ", r->out);
        diag_write_json_string(r->out, id);
        if (field) {
            fputs(", \"field\": ", r->out);
            diag_write_json_string(r->out, field);
            fputs(", \"old\": ", r->out);
            diag_write_json_string(r->out, old_v);
            fputs(", \"new\": ", r->out);
            diag_write_json_string(r->out, new_v);
        }
        fputs(", \"text\": ", r->out);
        diag_write_json_string(r->out, line);
        fputc('}', r->out);
        break;
    }
}

static void shard_range(char *buf, size_t cap, unsigned from, unsigned to)
{
    if (from + 1 == to)
        snprintf(buf, cap, "shard %u", from);
    else
        snprintf(buf, cap, "shards %u-%u", from, to - 1);
}

/* "id: parallelism A -> B (shards x-y added)"; an AMD mirror reads "parent: mirror amd: A -> B". */
static void report_shards(struct report *r, const char *id, unsigned a, unsigned b, const struct side *head,
                          const struct side *base)
{
    char line[512], range[64];
    const char *parent = NULL;

    if (!strncmp(id, "amd-", 4) && (find_logical((struct side *)head, id + 4) ||
                                     find_logical((struct side *)base, id + 4)))
        parent = id + 4;
    if (b > a)
        shard_range(range, sizeof(range), a > 1 ? a : 0, b);
    else
        shard_range(range, sizeof(range), b > 1 ? b : 0, a);
    snprintf(line, sizeof(line), "%s %u -> %u (%s %s)", parent ? "mirror amd:" : "parallelism", a,
             b, range, b > a ? "added" : "removed");
    r->resharded++;
    emit_line(r, "shards", parent ? parent : id, line, NULL, NULL, NULL);
}

/* The value of `field` in mapping `m` on one line, or "(none)" when absent. */
static void show_field(struct text *t, struct ynode *m, const char *field)
{
    if (ynode_has(m, field)) {
        show(t, ynode_get(m, field));
    } else {
        memset(t, 0, sizeof(*t));
        strcpy(t->buf, "(none)");
    }
}

/* Calls `fn` with each field name of `a`, then each one only `b` has, until it returns
 * false. Names starting with `skip_prefix` are left out. Returns whether all went on. */
static bool each_field(struct ynode *a, struct ynode *b, const char *skip_prefix,
                       bool (*fn)(void *user, const char *field), void *user)
{
    struct ynode *maps[2] = {a, b};

    for (int side = 0; side < 2; side++) {
        for (size_t i = 0; i < ynode_len(maps[side]) && ynode_is_map(maps[side]); i++) {
            size_t len;
            const char *name = ynode_scalar(ynode_key(maps[side], i), &len);
            char field[128];

            if (!name || (skip_prefix && !strncmp(name, skip_prefix, strlen(skip_prefix))))
                continue;
            snprintf(field, sizeof(field), "%.*s", (int)(len > 100 ? 100 : len), name);
            if (side == 1 && ynode_has(a, field))
                continue;
            if (!fn(user, field))
                return false;
        }
    }
    return true;
}

struct env_pair {
    struct ynode *a, *b;
};

static bool same_value(void *user, const char *field)
{
    struct env_pair *e = user;
    struct text ta, tb;

    show_field(&ta, e->a, field);
    show_field(&tb, e->b, field);
    return strcmp(ta.buf, tb.buf) == 0;
}

struct field_report {
    struct report *r;
    const char *id;
    struct ynode *a, *b;
    bool any;
};

static bool report_field(void *user, const char *field)
{
    struct field_report *f = user;
    struct text ta, tb;
    char line[512];

    if (!strcmp(field, "key") || !strcmp(field, "id") || !strcmp(field, "identifier"))
        return true; /* the identity itself */
    if (!strcmp(field, "env")) {
        /* the shard variables show up as a parallelism change */
        struct env_pair e = {ynode_get(f->a, "env"), ynode_get(f->b, "env")};

        if (each_field(e.a, e.b, "BUILDKITE_PARALLEL_JOB", same_value, &e))
            return true;
    }
    show_field(&ta, f->a, field);
    show_field(&tb, f->b, field);
    if (strcmp(ta.buf, tb.buf) == 0)
        return true;
    snprintf(line, sizeof(line), "%s: %s -> %s", field, ta.buf, tb.buf);
    emit_line(f->r, "changed", f->id, line, field, ta.buf, tb.buf);
    f->any = true;
    return true;
}

/* Reports each field whose value differs between the two steps. */
static bool report_fields(struct report *r, const char *id, struct ynode *a, struct ynode *b)
{
    struct field_report f = {r, id, a, b, false};

    if (!ynode_is_map(a) || !ynode_is_map(b)) {
        struct text ta, tb;
        char line[512];

        show(&ta, a);
        show(&tb, b);
        if (strcmp(ta.buf, tb.buf) == 0)
            return false;
        snprintf(line, sizeof(line), "%s -> %s", ta.buf, tb.buf);
        emit_line(r, "changed", id, line, "step", ta.buf, tb.buf);
        return true;
    }
    each_field(a, b, NULL, report_field, &f);
    return f.any;
}

/* Positions (in head) of the steps both have, in base order: the ones outside the
 * longest increasing run moved. */
static void report_moves(struct report *r, struct side *base, struct side *head)
{
    size_t n = 0, *pos = calloc(base->n_logical + 1, sizeof(*pos));
    size_t *idx = calloc(base->n_logical + 1, sizeof(*idx));
    size_t *tails = calloc(base->n_logical + 1, sizeof(*tails));
    size_t *prev = calloc(base->n_logical + 1, sizeof(*prev));
    bool *keep = calloc(base->n_logical + 1, sizeof(*keep));
    size_t len = 0;

    if (!pos || !idx || !tails || !prev || !keep)
        goto done;
    for (size_t i = 0; i < base->n_logical; i++) {
        struct logical *h = find_logical(head, base->logical[i].id);

        if (h) {
            pos[n] = h->pos;
            idx[n++] = i;
        }
    }
    /* longest increasing subsequence of pos[] (patience sorting) */
    for (size_t i = 0; i < n; i++) {
        size_t lo = 0, hi = len;

        while (lo < hi) {
            size_t mid = (lo + hi) / 2;

            if (pos[tails[mid]] < pos[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        prev[i] = lo ? tails[lo - 1] : (size_t)-1;
        tails[lo] = i;
        if (lo == len)
            len++;
    }
    for (size_t i = len ? tails[len - 1] : (size_t)-1; i != (size_t)-1; i = prev[i])
        keep[i] = true;
    for (size_t i = 0; i < n; i++) {
        char line[512];
        const struct logical *b = &base->logical[idx[i]];

        if (keep[i])
            continue;
        snprintf(line, sizeof(line), "moved (step %zu -> %zu)", b->pos + 1, pos[i] + 1);
        r->moved++;
        emit_line(r, "moved", b->id, line, NULL, NULL, NULL);
    }
done:
    free(pos);
    free(idx);
    free(tails);
    free(prev);
    free(keep);
}

static void compare(struct report *r, struct side *base, struct side *head)
{
    char line[512];

    for (size_t i = 0; i < base->n_logical; i++) {
        struct logical *b = &base->logical[i];
        struct logical *h = find_logical(head, b->id);

        if (!h) {
            if (b->shards > 1)
                snprintf(line, sizeof(line), "removed (%u shards)", b->shards);
            else
                snprintf(line, sizeof(line), "removed");
            r->removed++;
            emit_line(r, "removed", b->id, line, NULL, NULL, NULL);
            continue;
        }
        h->matched = true;
        if (b->shards != h->shards)
            report_shards(r, b->id, b->shards, h->shards, head, base);
        if (report_fields(r, b->id, b->first->node, h->first->node))
            r->changed++;
    }
    for (size_t i = 0; i < head->n_logical; i++) {
        struct logical *h = &head->logical[i];

        if (h->matched)
            continue;
        if (h->shards > 1)
            snprintf(line, sizeof(line), "added (%u shards)", h->shards);
        else
            snprintf(line, sizeof(line), "added");
        r->added++;
        emit_line(r, "added", h->id, line, NULL, NULL, NULL);
    }
    report_moves(r, base, head);
}

int pipediff_run(const char *base_spec, const char *head_spec, const struct render_opts *opts,
                 enum pd_format format, FILE *out, struct diag *d)
{
    struct side base, head;
    struct report r = {.format = format, .out = out, .json_first = true};
    int rc = render_side(base_spec, opts, &base, d);
    bool same;

    if (rc != 0) {
        side_free(&base);
        return 2;
    }
    rc = render_side(head_spec, opts, &head, d);
    if (rc != 0) {
        side_free(&base);
        side_free(&head);
        return 2;
    }
    if (format == PD_JSON)
        fputs("{\n  \"changes\": [", out);
    if (format == PD_MARKDOWN && !(r.md_out = open_memstream(&r.md, &r.md_len))) {
        side_free(&base);
        side_free(&head);
        return 2;
    }
    compare(&r, &base, &head);
    same = !(r.added || r.removed || r.changed || r.moved || r.resharded);
    if (same && (base.len != head.len || memcmp(base.text, head.text, base.len) != 0)) {
        /* top-level settings (env, agents, notify...) are outside the steps */
        emit_line(&r, "changed", "(pipeline)", "top-level settings changed", NULL, NULL, NULL);
        r.changed++;
        same = false;
    }
    switch (format) {
    case PD_TEXT:
        fprintf(out, "%s%u added, %u removed, %u changed, %u moved, %u re-sharded\n",
                same ? "no changes: " : "", r.added, r.removed, r.changed, r.moved, r.resharded);
        break;
    case PD_GITHUB:
        fprintf(out, "::notice title=fanout diff::%u added, %u removed, %u changed, %u moved, %u re-sharded\n",
                r.added, r.removed, r.changed, r.moved, r.resharded);
        break;
    case PD_JSON:
        fprintf(out, "%s],\n  \"same\": %s,\n  \"added\": %u,\n  \"removed\": %u,\n  \"changed\": %u,\n"
                     "  \"moved\": %u,\n  \"resharded\": %u\n}\n",
                r.json_first ? "" : "\n  ", same ? "true" : "false", r.added, r.removed, r.changed,
                r.moved, r.resharded);
        break;
    case PD_MARKDOWN:
        fclose(r.md_out);
        fprintf(out, "### fanout: pipeline changes\n\n");
        if (same)
            fprintf(out, "No change in the rendered pipeline.\n");
        else
            fprintf(out, "**%u added, %u removed, %u changed, %u moved, %u re-sharded**\n\n%s",
                    r.added, r.removed, r.changed, r.moved, r.resharded, r.md ? r.md : "");
        free(r.md);
        break;
    }
    side_free(&base);
    side_free(&head);
    return same ? 0 : 1;
}
