#define _GNU_SOURCE /* memrchr */
#include "fanout/dialect.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fanout/strset.h"
#include "fanout/text.h"

/* Every dialect, in the order --help lists their options and detection asks them; the
 * first is the one of an input that nothing tells. */
static const struct dialect *const dialects[] = {&dialect_buildkite, &dialect_rayci, &dialect_testarea,
                                                 &dialect_gha, NULL};

#define N_DIALECTS (sizeof(dialects) / sizeof(dialects[0]) - 1)

const struct dialect *dialect_find(const char *name)
{
    for (size_t i = 0; dialects[i]; i++) {
        if (strcmp(dialects[i]->name, name) == 0)
            return dialects[i];
    }
    return NULL;
}

const struct dialect *dialect_at(size_t i)
{
    return i < sizeof(dialects) / sizeof(dialects[0]) ? dialects[i] : NULL;
}

struct dialect_probe {
    const char *path;
    struct strset *keys; /* the first top-level keys */
    size_t items;
};

const char *dialect_probe_path(const struct dialect_probe *probe) { return probe->path; }
size_t dialect_probe_items(const struct dialect_probe *probe) { return probe->items; }

bool dialect_probe_has_key(const struct dialect_probe *probe, const char *key)
{
    return strset_has(probe->keys, key, strlen(key));
}

bool dialect_probe_read(const struct dialect_probe *probe)
{
    return probe->items || strset_count(probe->keys);
}

/* What `item` adds to the probe, after the dialects have seen it. */
static void probe_note(struct dialect_probe *probe, const struct stream_item *item)
{
    size_t len;
    const char *key;

    if (item->kind == STREAM_STEP)
        probe->items++;
    else if (item->kind == STREAM_STEPS_START && strset_count(probe->keys) < DIALECT_PROBE_KEYS)
        strset_add(probe->keys, item->items_key ? item->items_key : "", item->items_key ? strlen(item->items_key) : 0);
    else if (item->kind == STREAM_PAIR && strset_count(probe->keys) < DIALECT_PROBE_KEYS &&
             (key = ynode_scalar(ynode_key(ynode_doc_root(item->doc), 0), &len)))
        strset_add(probe->keys, key, len);
}

/* ---- what detection read, held for the dialect's reader ---- */

/* Items before the container, and their nodes: a head holding more is not kept (the input
 * is read again from its start), so what is held stays small whatever aliases expand to
 * (the stream bounds one item, not several). Only an input detection read whole (one read
 * buffer, 64 KiB) is kept: its bytes, buffers and long scalars stay small too (32 inputs
 * with 900 KB values before `jobs:` held 248 MB). */
#define HEAD_ITEMS 64
#define HEAD_NODES 4000

struct dialect_head {
    struct stream *s;
    struct stream_item items[HEAD_ITEMS];
    size_t n, next; /* kept; given back */
    size_t nodes;
};

/* Keeps `item` in `h`: false (nothing kept) when it holds too much already. */
static bool head_keep(struct dialect_head *h, const struct stream_item *item)
{
    if (h->n == HEAD_ITEMS)
        return false;
    if (item->doc && (h->nodes += ynode_tree_size_within(ynode_doc_root(item->doc), HEAD_NODES)) > HEAD_NODES)
        return false;
    h->items[h->n++] = *item;
    return true;
}

/* Frees the items not given back, and the head; its stream stays the caller's. */
static void head_free_items(struct dialect_head *h)
{
    for (size_t i = h ? h->next : 0; h && i < h->n; i++)
        ynode_doc_destroy(h->items[i].doc);
    free(h);
}

void dialect_head_drop(struct dialect_head **head)
{
    if (!*head)
        return;
    stream_close((*head)->s);
    head_free_items(*head);
    *head = NULL;
}

/* Whether `dl`'s reader, reading with its own shape, would have given the items `h` holds,
 * the last of them the container detection stopped at: a key of the dialect's shape, of
 * the form detection read it in, and no earlier top-level key of that shape (which would
 * have held the items instead). */
static bool head_fits(const struct dialect_head *h, const struct dialect *dl,
                      const struct stream_shape *read_as)
{
    const struct stream_item *last = h->n ? &h->items[h->n - 1] : NULL;
    const struct stream_shape *own = NULL, *as = NULL;
    const char *container;

    if (dl->next != dialect_files_next || !last || last->kind != STREAM_STEPS_START)
        return false;
    if (!(container = last->items_key ? last->items_key : last->bare ? read_as->key : NULL))
        return false;
    for (const struct stream_shape *sh = dl->shape; sh->key; sh++)
        own = !own && !strcmp(sh->key, container) ? sh : own;
    for (const struct stream_shape *sh = read_as; sh->key; sh++)
        as = !as && !strcmp(sh->key, container) ? sh : as;
    if (!own || !as || own->mapping != as->mapping || (last->bare && own != dl->shape))
        return false;
    for (size_t i = 0; i + 1 < h->n; i++) {
        size_t len;
        const char *key = h->items[i].kind == STREAM_PAIR
                              ? ynode_scalar(ynode_key(ynode_doc_root(h->items[i].doc), 0), &len)
                              : NULL;

        if (h->items[i].merged && own->literal_merge_keys)
            return false; /* read with `<<` merged, before the shape was known */
        if (h->items[i].key_replaced)
            return false; /* its warning went to detection's quiet diag, or it is an error */

        for (const struct stream_shape *sh = dl->shape; key && sh->key; sh++) {
            if (strlen(sh->key) == len && !memcmp(sh->key, key, len))
                return false;
        }
    }
    return true;
}

/* dialect_detect reading `src` as input `file`; with `skip` set, a file of a dialect's
 * tooling that is no input of it (its `not_input`) is DIALECT_SKIP, *skip saying why; with
 * `head` set, what it read is kept there when the dialect found can read on from it. */
static enum dialect_verdict detect(struct source *src, unsigned file, const struct dialect **found,
                                   const char **skip, struct dialect_head **head, struct diag *d)
{
    /* Both containers are items, so neither a pipeline's steps nor a workflow's jobs are
     * read whole to find out. */
    /* A key given twice is kept as Buildkite keeps it: a read that does so keeps no head
     * (head_fits), and the dialect found reads the file again as its platform does. */
    static const struct stream_shape either[] = {{"steps", false, false, false, false, "buildkite-agent"},
                                                 {"jobs", true, false, false, true, "buildkite-agent"},
                                                 {NULL, false, false, false, false, NULL}};
    struct dialect_probe probe = {source_name(src), strset_create(), 0};
    /* a head is kept only from a read that reported nothing: the run's read says it */
    struct dialect_head *h = head ? calloc(1, sizeof(*h)) : NULL;
    struct diag *quiet = h ? diag_create_buffered_like(d) : NULL;
    struct stream *s;
    struct stream_item item;
    enum dialect_verdict verdict;
    int more = -1;
    bool ended = false;

    *found = NULL;
    if (!quiet) {
        free(h);
        h = NULL;
    }
    diag_set_muted(d, true);
    s = probe.keys ? stream_open_shaped(src, h ? file : 0, either, quiet ? quiet : d) : NULL;
    while (s && !*found && !ended && (more = stream_next(s, &item)) > 0) {
        for (size_t i = 0; skip && !*skip && item.kind == STREAM_DOC_END && dialects[i]; i++)
            *skip = dialects[i]->not_input ? dialects[i]->not_input(&probe) : NULL;
        if (skip && *skip) {
            ynode_doc_destroy(item.doc);
            break;
        }
        for (size_t i = 0; !*found && dialects[i]; i++) {
            if (dialects[i]->detect && dialects[i]->detect(&item, &probe))
                *found = dialects[i];
        }
        /* a document that holds nothing ({}, a bare ---) tells nothing: the next one may */
        ended = item.kind == STREAM_DOC_END && dialect_probe_read(&probe);
        probe_note(&probe, &item);
        if (!h || !head_keep(h, &item)) {
            ynode_doc_destroy(item.doc);
            head_free_items(h); /* too long a head to keep */
            h = NULL;
        }
    }
    diag_set_muted(d, false);
    for (size_t i = 0; !*found && more < 0 && dialects[i]; i++) {
        if (dialects[i]->leans && dialects[i]->leans(&probe))
            *found = dialects[i];
    }
    /* else what does not parse tells nothing: it is the real read's to report */
    verdict = skip && *skip ? DIALECT_SKIP
              : *found      ? DIALECT_FOUND
              : more >= 0 && dialect_probe_read(&probe) ? DIALECT_NONE
                                                        : DIALECT_SILENT;
    if (h && verdict == DIALECT_FOUND && diag_errors(quiet) == 0 && source_size_read(src) != UINT64_MAX &&
        head_fits(h, *found, either)) {
        h->s = s;
        *head = h;
    } else {
        stream_close(s);
        head_free_items(h);
    }
    diag_destroy(quiet);
    strset_destroy(probe.keys);
    return verdict;
}

enum dialect_verdict dialect_detect(struct source *src, const struct dialect **found, struct diag *d)
{
    return detect(src, 0, found, NULL, NULL, d);
}

const struct dialect *dialect_default(void)
{
    return dialects[0];
}

static void report_left_out(struct source *src, const char *why, struct diag *d)
{
    diag_report(d, DIAG_NOTE, DIAG_FINDING, source_name(src), 0, 0, RULE_NOT_A_PIPELINE, "left out: %s", why);
}

enum dialect_verdict dialect_detect_source(struct source *src, unsigned file, const struct dialect **found,
                                           struct dialect_head **head, struct diag *d)
{
    const char *skip = NULL;
    enum dialect_verdict verdict = detect(src, file, found, &skip, head, d);

    if (verdict == DIALECT_NONE)
        dialect_report_none(src, d);
    if (verdict == DIALECT_SKIP)
        report_left_out(src, skip, d);
    return verdict;
}

enum dialect_verdict dialect_detect_path(const char *path, const struct dialect **found, struct diag *d)
{
    struct source *src = source_open(path, d);
    enum dialect_verdict verdict = DIALECT_NONE;

    *found = NULL;
    if (src)
        verdict = dialect_detect_source(src, 0, found, NULL, d);
    source_close(src);
    return verdict;
}

void dialect_kept_drop(struct dialect_kept *k)
{
    dialect_head_drop(&k->head);
    source_close(k->source);
    *k = (struct dialect_kept){NULL, NULL, NULL};
}

bool dialect_left_out(const char *path, struct diag *d, struct dialect_kept *keep)
{
    struct source *src;
    const struct dialect *found;
    struct dialect_head *head = NULL;
    const char *skip = NULL;
    enum dialect_verdict verdict = DIALECT_NONE;
    struct stat st;

    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false; /* a pipe (stdin, <(...)) is read once: by the run */
    diag_set_muted(d, true); /* an unreadable file is the run's to report */
    src = source_open(path, d);
    diag_set_muted(d, false);
    if (src && (verdict = detect(src, 0, &found, &skip, keep ? &head : NULL, d)) == DIALECT_SKIP)
        report_left_out(src, skip, d);
    if (keep && verdict == DIALECT_FOUND) {
        *keep = (struct dialect_kept){src, found, head};
        return false;
    }
    dialect_head_drop(&head);
    source_close(src);
    return skip != NULL;
}

void dialect_report_none(struct source *src, struct diag *d)
{
    diag_report(d, DIAG_ERROR, DIAG_INPUT, source_name(src), 0, 0, RULE_PIPELINE_SHAPE,
                "not a Buildkite pipeline, a test-area file, a rayci file or a workflow; --dialect "
                "reads it as one");
}

const struct dialect *dialect_detect_all(struct source *const *srcs, size_t n, struct dialect_head **heads,
                                         struct diag *d)
{
    const struct dialect *one = NULL, *found;
    size_t told = 0;

    for (size_t i = 0; i < n; i++) {
        switch (detect(srcs[i], (unsigned)i, &found, NULL, heads && i < DIALECT_HEADS_HELD ? &heads[i] : NULL, d)) {
        case DIALECT_SILENT:
        case DIALECT_SKIP: /* dialect_detect_path's only */
            break;
        case DIALECT_NONE:
            dialect_report_none(srcs[i], d);
            return NULL;
        case DIALECT_FOUND:
            if (one && found != one) {
                diag_report(d, DIAG_ERROR, DIAG_INPUT, source_name(srcs[i]), 0, 0, RULE_PIPELINE_SHAPE,
                            "this is a %s and %s a %s: one rendering holds one dialect (render "
                            "them apart, or give --dialect)",
                            found->description, source_name(srcs[told]), one->description);
                return NULL;
            }
            if (!one)
                told = i;
            one = found;
            break;
        }
    }
    return one ? one : dialects[0];
}

int dialect_builds_by_directory(struct source *const *sources, const char *const *paths, size_t n,
                                const struct strset *walked, unsigned *build, struct diag *d)
{
    (void)sources;
    (void)d;
    for (size_t i = 0; i < n; i++) {
        const char *slash = strrchr(paths[i], '/');
        size_t len = slash ? (size_t)(slash - paths[i]) : 0;

        if (!strset_has(walked, paths[i], strlen(paths[i])))
            continue; /* named: the command line's build, 0 */
        build[i] = (unsigned)i + 1;
        for (size_t j = 0; j < i; j++) {
            if (build[j] && !strncmp(paths[j], paths[i], len) &&
                (slash ? paths[j][len] == '/' && !strchr(paths[j] + len + 1, '/') : !strchr(paths[j], '/'))) {
                build[i] = build[j];
                break;
            }
        }
    }
    return 0;
}

/* ---- the options the dialects declare ---- */

struct dialect_options {
    bool copy;                /* the dialects' parts are the original's */
    void *own[N_DIALECTS];    /* each dialect's part (NULL: it has none) */
    /* What each option was given as, by dialect_option_at's order, for either side. */
    int value[DIALECT_MAX_OPTIONS][2];
};

const struct dialect_option *dialect_option_at(size_t i, const struct dialect **owner)
{
    for (size_t k = 0; dialects[k]; k++) {
        for (const struct dialect_option *o = dialects[k]->options; o && o->name; o++) {
            if (i-- == 0) {
                if (owner)
                    *owner = dialects[k];
                return o;
            }
        }
    }
    return NULL;
}

/* `opt`'s position in dialect_option_at's order (its dialect's in *dialect), or -1. */
static long option_index(const struct dialect_option *opt, size_t *dialect)
{
    const struct dialect_option *o;
    const struct dialect *owner;

    for (size_t i = 0; i < DIALECT_MAX_OPTIONS && (o = dialect_option_at(i, &owner)); i++) {
        if (o == opt) {
            for (*dialect = 0; dialects[*dialect] != owner; (*dialect)++)
                ;
            return (long)i;
        }
    }
    return -1;
}

const struct dialect_option *dialect_option_find(const char *name)
{
    const struct dialect_option *o;

    for (size_t i = 0; (o = dialect_option_at(i, NULL)); i++) {
        if (!strcmp(o->name, name))
            return o;
    }
    return NULL;
}

int dialect_option_choice(const struct dialect_option *opt, const char *arg)
{
    for (int i = 0; opt->choices && arg && opt->choices[i]; i++) {
        if (!strcmp(opt->choices[i], arg))
            return i;
    }
    return -1;
}

struct dialect_options *dialect_options_create(void)
{
    struct dialect_options *o = calloc(1, sizeof(*o));

    for (size_t k = 0; o && dialects[k]; k++) {
        if (dialects[k]->options_size && !(o->own[k] = calloc(1, dialects[k]->options_size))) {
            dialect_options_destroy(o);
            return NULL;
        }
    }
    return o;
}

struct dialect_options *dialect_options_copy(const struct dialect_options *o)
{
    struct dialect_options *c;

    if (!o)
        return dialect_options_create();
    if ((c = malloc(sizeof(*c)))) {
        *c = *o;
        c->copy = true;
    }
    return c;
}

void dialect_options_destroy(struct dialect_options *o)
{
    for (size_t k = 0; o && !o->copy && dialects[k]; k++) {
        if (o->own[k] && dialects[k]->options_free)
            dialects[k]->options_free(o->own[k]);
        free(o->own[k]);
    }
    free(o);
}

int dialect_options_parse(struct dialect_options *o, const struct dialect_option *opt, const char *arg,
                          unsigned given, const struct dialect_option_io *io)
{
    size_t k;
    long i = option_index(opt, &k);
    int v = opt->choices ? dialect_option_choice(opt, arg) : 1;

    if (i < 0 || v < 0 || (o->copy && !opt->choices))
        return io->usage("not an option here:", opt->name);
    o->value[i][1] = v;
    if (!opt->per_side || given == 0)
        o->value[i][0] = v;
    if (opt->choices || !dialects[k]->option)
        return 0;
    return dialects[k]->option(o->own[k], opt, arg, io);
}

int dialect_options_value(const struct dialect_options *o, const struct dialect_option *opt, unsigned side)
{
    size_t k;
    long i = o ? option_index(opt, &k) : -1;

    return i < 0 ? 0 : o->value[i][side ? 1 : 0];
}

const void *dialect_options_own(const struct dialect_options *o, const struct dialect *dialect)
{
    for (size_t k = 0; o && dialects[k]; k++) {
        if (dialects[k] == dialect)
            return o->own[k];
    }
    return NULL;
}

void dialect_options_write(const struct dialect_options *o, FILE *out)
{
    const struct dialect_option *opt;

    for (size_t i = 0; o && (opt = dialect_option_at(i, NULL)); i++) {
        if (opt->choices && o->value[i][0] > 0)
            fprintf(out, " --%s %s", opt->name, opt->choices[o->value[i][0]]);
    }
}

const struct expr_value *dialect_options_contexts(const struct dialect_options *o)
{
    const struct expr_value *found = NULL;

    for (size_t k = 0; o && !found && dialects[k]; k++) {
        if (dialects[k]->contexts)
            found = dialects[k]->contexts(o->own[k]);
    }
    return found;
}

/* ---- the reader of the dialects whose documents are their files ---- */

struct dialect_reader {
    struct dialect_input in;
    dialect_observe_fn observe;
    void *user;
    size_t file;
    struct stream *s;
    struct dialect_head *head; /* the file's, taken from in.heads: its items come first */
};

struct dialect_reader *dialect_files_open(const struct dialect_input *in,
                                          dialect_observe_fn observe, void *user)
{
    struct dialect_reader *r = calloc(1, sizeof(*r));

    if (r) {
        r->in = *in;
        r->observe = observe;
        r->user = user;
    }
    return r;
}

/* Starts the file's read: on from its head when detection kept one, else from its start. */
static struct stream *file_open(struct dialect_reader *r)
{
    struct dialect_head **head = r->in.heads ? &r->in.heads[r->file] : NULL;

    if (head && *head) {
        r->head = *head;
        *head = NULL;
        stream_reshape(r->head->s, r->in.shape, r->in.diag);
        return r->head->s;
    }
    return stream_open_shaped(r->in.sources[r->file], (unsigned)r->file, r->in.shape, r->in.diag);
}

/* Ends the file's read. */
static void file_close(struct dialect_reader *r)
{
    stream_close(r->s);
    r->s = NULL;
    head_free_items(r->head);
    r->head = NULL;
}

int dialect_files_next(struct dialect_reader *r, struct stream_item *item)
{
    for (;;) {
        int rc;

        if (!r->s) {
            while (r->in.skip && r->file < r->in.n && r->in.skip[r->file])
                r->file++;
            if (r->file == r->in.n)
                return 0;
            if (!(r->s = file_open(r)))
                return -1;
        }
        if (r->head && r->head->next < r->head->n) {
            *item = r->head->items[r->head->next++];
            rc = 1;
        } else {
            rc = stream_next(r->s, item);
        }
        /* observed as the platform reads what is written, before the transform */
        if (rc > 0 && r->in.read && r->in.read(r->in.read_user, item) != 0) {
            ynode_doc_destroy(item->doc);
            item->doc = NULL;
            return -1;
        }
        if (rc > 0 && r->observe)
            r->observe(r->user, item);
        if (rc > 0 && r->in.transform && r->in.transform(r->in.transform_user, item) != 0) {
            ynode_doc_destroy(item->doc);
            item->doc = NULL;
            return -1;
        }
        if (rc != 0)
            return rc;
        file_close(r);
        r->file++;
    }
}

void dialect_files_close(struct dialect_reader *r)
{
    if (!r)
        return;
    file_close(r);
    free(r);
}

int dialect_each_text(const struct ynode *n, dialect_text_fn fn, void *user)
{
    int rc = 0;

    if (ynode_is_scalar(n))
        return fn(user, n);
    for (size_t i = 0; rc == 0 && i < ynode_len(n); i++) {
        const struct ynode *v = ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i);

        if (ynode_is_scalar(v))
            rc = fn(user, v);
    }
    return rc;
}

size_t dialect_key_name(char *out, size_t cap, const char *id, size_t len, unsigned long index)
{
    char digits[TEXT_DECIMAL_MAX];
    size_t o = len < cap ? len : cap - 1;

    /* by hand: snprintf's "%.*s-%lu" cost 1,000 instructions a key, one per matrix
     * configuration and per name a `needs` gets */
    memcpy(out, id, o);
    if (o + 1 < cap)
        out[o++] = '-';
    text_decimal(digits, index);
    o = text_append(out, cap, o, digits);
    return o < cap ? o : cap - 1;
}

/* Put by hand: snprintf was 5,000 instructions a job. */
const char *dialect_job_label(const struct dialect_job *job, char *buf, size_t cap)
{
    const struct ynode *row = job->row;
    size_t o = 0;

    if (job->label || !row || !cap)
        return job->label;
    buf[0] = '\0';
    for (size_t i = 0; i < ynode_len(row) && o + 1 < cap; i++) {
        const char *k = ynode_scalar(ynode_key(row, i), NULL);
        const char *v = ynode_scalar(ynode_value(row, i), NULL);

        o = text_append(buf, cap, o, i ? " " : "");
        o = text_append(buf, cap, o, k ? k : "(null)");
        o = text_append(buf, cap, o, ynode_len(row) == 1 ? " " : "=");
        o = text_append(buf, cap, o, v ? v : "...");
    }
    return buf;
}

long dialect_key_index(const char *id, size_t len, size_t *base)
{
    const char *dash = memrchr(id, '-', len);
    size_t digits = dash ? (size_t)(id + len - dash - 1) : 0;

    if (!dash || dash == id || !digits || digits > 6 || strspn(dash + 1, "0123456789") < digits)
        return -1;
    *base = (size_t)(dash - id);
    return strtol(dash + 1, NULL, 10);
}

uint64_t dialect_copies_bound(const struct dialect_ctx *ctx, uint64_t base)
{
    uint64_t seen = 0;

    for (size_t i = 0; ctx->sources && i < ctx->n_files; i++)
        if (ctx->sources[i])
            seen += source_bytes_seen(ctx->sources[i]);
    return base + seen * DIALECT_CONFIG_NODES_PER_BYTE;
}

bool dialect_run_copies_charge(const struct dialect_ctx *ctx, struct dialect_run_copies *run, size_t nodes)
{
    run->copied += nodes;
    if (run->copied <= DIALECT_RUN_CONFIG_NODES || run->copied <= run->budget)
        return true;
    /* past the bound last worked out: again, for what has been read since (it only grows) */
    run->budget = dialect_copies_bound(ctx, DIALECT_RUN_CONFIG_NODES);
    return run->copied <= run->budget;
}
