#include "fanout/render.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/change.h"
#include "fanout/dialect.h"
#include "fanout/depgraph.h"
#include "fanout/keyindex.h"
#include "fanout/lint.h"
#include "fanout/output.h"
#include "fanout/repass.h"
#include "fanout/scratch.h"
#include "fanout/shardmap.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/text.h"
#include "fanout/validate.h"

/* A key scoped to its build (scope()): the buffer, and the build whose prefix its first
 * `prefix` bytes hold (0: none yet). */
struct scoped {
    char *text;
    size_t cap, prefix;
    unsigned build;
};

struct run {
    const struct render_opts *opts;
    struct diag *diag;
    struct source **sources;
    /* By file: what detection read, for pass 1 to read on from (dialect_head). */
    struct dialect_head **heads;
    const char **names; /* of the sources, by file number */
    size_t n_sources;
    const struct dialect *dialect;
    void *dialect_state;
    struct lint *lint;       /* the rules over the rendered jobs */
    struct keyindex *keys;
    /* When a directory's files are several builds: every key of them in one namespace, for
     * dangling references only: another build's file may still be uploaded into this one
     * by a script fanout cannot see, so a reference dangles when no file defines it. */
    struct keyindex *any;
    struct depgraph *graph;  /* the references' edges, searched for cycles at the end */
    bool local_cycle;        /* a job named itself or its own group */
    /* One pass when it can: pass 1 also feeds the rendering to the sink, rewriting
     * references from the sharded keys seen so far (`early`). That rendering is right
     * when no reference named a sharded key defined after it, which the key index
     * tells at the end; then no pass 2 is needed. `early` holds the most recent
     * sharded keys (a bounded cache: a key it forgot is a miss that the count of
     * rewrites notices). NULL when given up (memory out): the sink is reset then, and
     * pass 2 feeds it again. */
    struct shardmap *early;
    size_t early_hits; /* references pass 1 rewrote */
    /* While `early` into the spool, for a dialect whose files render apart: which files
     * pass 2 reads again (the others' text is copied from pass 1's spool, `kept`). */
    struct repass *repass;
    FILE *kept;
    unsigned next_file; /* pass 2: files before it are written */
    unsigned file;     /* of the item being read */
    unsigned *build;   /* of each input: files of one build share its keys (dialect.h's `builds`) */
    bool split;        /* the inputs are more than one build */
    /* split: "<build>\x1f<key>" of the last key asked about, and of the last edge's
     * source (scope() writes one, an edge needs both) */
    struct scoped scoped, scoped_from;
    const struct render_sink *sink; /* the caller's, or `spooled` */
    struct render_sink spooled;     /* the default: the emitter's text into `spool` */
    struct output *out;             /* where `spool` goes: -o FILE, stdout; NULL: opts->stream */
    FILE *to;
    FILE *spool;
    struct emitter *spool_em;
    struct validator *out_check; /* the rendering against its dialect's schema, or NULL */
    struct validator *in_check;  /* the input against its dialect's schema, or NULL */
    struct diag *out_findings;   /* held until the input is known clean */
    struct diag *in_findings;    /* held until the dialect found no error */
    bool failed_index;
    struct key_problem *problems;
    size_t n_problems, problems_dropped;
};

/* ---- the inputs as items of their dialect ---- */

static void observe_input(void *user, const struct stream_item *item)
{
    struct run *r = user;

    if (r->in_check)
        validator_item(r->in_check, item);
    if (r->opts->observe)
        r->opts->observe(r->opts->observe_user, item);
}

/* A job the change leaves out: the --explain note, and the sink's record. */
static int on_not_run(void *user, const char *id, size_t len, const char *why, struct ypos pos)
{
    struct run *r = user;
    const struct render_sink *sink = r->sink;

    if (change_explain(r->opts->change))
        diag_at(r->diag, DIAG_NOTE, DIAG_FINDING, r->names, pos, RULE_NOT_RUN, "'%.*s' does not run for this change: %s",
                (int)len, id, why);
    return sink->not_run ? sink->not_run(sink->user, id, len, why, pos) : 0;
}

/* `observed`: the input items are shown to in_check and opts->observe (pass 1). */
static struct dialect_reader *reader_open(struct run *r, bool observed, const bool *skip)
{
    struct dialect_input in = {
        .diag = r->diag,
        .shape = r->dialect->shape,
        .sources = r->sources,
        .names = r->names,
        .n = r->n_sources,
        .options = r->opts->dialect_options,
        .side = r->opts->side,
        .upload = r->opts->upload,
        .state = r->dialect_state,
        .builds = r->split ? r->build : NULL,
        .change = r->opts->change,
        .on_not_run = on_not_run,
        .not_run_user = r,
        .keep_not_run = r->sink->not_run != NULL,
        .heads = r->heads,
        .skip = skip,
    };

    observed = observed && (r->in_check || r->opts->observe);
    return r->dialect->open(&in, observed ? observe_input : NULL, r);
}

/* ---- pass 1: checks and the key index ---- */

/* The key as the index knows it: when the inputs are several builds (keys are unique
 * per build), prefixed with the build of its file (the \x1f cannot be in a key the
 * dialects accept). NULL when out of memory. */
static const char *scope(struct run *r, struct scoped *to, unsigned file, const char *key, size_t *len)
{
    char prefix[TEXT_DECIMAL_MAX + 1];
    unsigned build;
    size_t n;
    bool fresh;

    if (!r->split)
        return key;
    /* the prefix written once for the keys of a build in a row (most are: a file's) */
    build = r->build[file];
    if ((fresh = !to->prefix || build != to->build)) {
        n = text_decimal(prefix, build); /* snprintf was a sixtieth of a workflow render */
        prefix[n++] = '\x1f';
    } else {
        n = to->prefix;
    }
    if (n + *len + 1 > to->cap) {
        size_t cap = (n + *len + 1) * 2;
        char *grown = realloc(to->text, cap);

        if (!grown)
            return NULL;
        to->text = grown;
        to->cap = cap;
    }
    if (fresh) {
        memcpy(to->text, prefix, n);
        to->prefix = n;
        to->build = build;
    }
    memcpy(to->text + n, key, *len);
    *len += n;
    to->text[*len] = '\0';
    return to->text;
}

/* A key from the index as the user wrote it. */
static const char *unscoped(const char *key)
{
    const char *sep = strchr(key, '\x1f');

    return sep ? sep + 1 : key;
}

static void give_up_one_pass(struct run *r)
{
    if (!r->early)
        return;
    shardmap_destroy(r->early);
    r->early = NULL;
    r->sink->reset(r->sink->user);
}

static int on_key(void *user, const char *key, size_t len, unsigned shards, struct ypos pos)
{
    struct run *r = user;

    if ((r->any && keyindex_define(r->any, key, len, shards, pos) != 0) || !(key = scope(r, &r->scoped, pos.file, key, &len)) ||
        keyindex_define(r->keys, key, len, shards, pos) != 0) {
        r->failed_index = true;
        return -1;
    }
    if (shards && r->early && shardmap_put(r->early, key, len, shards) != 0)
        give_up_one_pass(r);
    return 0;
}

static int on_skipped(void *user, const struct ynode *job, const struct ynode *skip)
{
    const struct render_sink *sink = ((struct run *)user)->sink;

    return sink->skipped(sink->user, job, skip);
}

static unsigned early_shards_of(void *user, const char *key, size_t len)
{
    struct run *r = user;
    unsigned n;

    if (!(key = scope(r, &r->scoped, r->file, key, &len))) {
        give_up_one_pass(r);
        return 0;
    }
    n = shardmap_get(r->early, key, len);

    r->early_hits += n > 0;
    if (n && r->repass)
        repass_rewritten(r->repass);
    return n;
}

static int on_reference(void *user, const char *key, size_t len, struct ypos pos)
{
    struct run *r = user;

    if ((r->any && keyindex_reference(r->any, key, len, pos) != 0) || !(key = scope(r, &r->scoped, pos.file, key, &len)) ||
        keyindex_reference(r->keys, key, len, pos) != 0) {
        r->failed_index = true;
        return -1;
    }
    if (r->repass)
        repass_reference(r->repass);
    return 0;
}

static int on_edge(void *user, const char *from, size_t flen, const char *to, size_t tlen,
                   struct ypos pos)
{
    struct run *r = user;

    if (r->split && (!(from = scope(r, &r->scoped_from, pos.file, from, &flen)) ||
                     !(to = scope(r, &r->scoped, pos.file, to, &tlen)))) {
        r->failed_index = true;
        return -1;
    }
    if (depgraph_add(r->graph, from, flen, to, tlen, pos) != 0) {
        r->failed_index = true;
        return -1;
    }
    return 0;
}

static void on_cycle(void *user, const char *const *keys, size_t n, struct ypos at)
{
    struct run *r = user;
    char text[512];
    size_t o = 0;

    /* A long cycle shows its first keys and how it closes. */
    for (size_t i = 0; i < n && o < sizeof(text) - 1; i++) {
        if (i == 8 && n > 10)
            i = n - 2, o += (size_t)snprintf(text + o, sizeof(text) - o, " -> ...");
        o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%s", i ? " -> " : "", unscoped(keys[i]));
    }
    diag_at(r->diag, DIAG_ERROR, r->dialect->bad_reference.fails ? DIAG_INPUT : DIAG_FINDING, r->names, at,
            RULE_DEPENDS_CYCLE, "%s cycle: %s (%s cannot run these %ss)", r->dialect->reference_field, text,
            r->dialect->platform, r->dialect->job_noun);
}

/* A cycle takes a reference to a later job, or one that a job makes to itself or to
 * its own group (depgraph.h); only then is the graph searched. */
static void report_cycles(struct run *r)
{
    if (!r->local_cycle && keyindex_forward_references(r->keys) == 0)
        return;
    if (depgraph_cycles(r->graph, RENDER_MAX_CYCLES, on_cycle, r) < 0)
        diag_report(r->diag, DIAG_WARNING, DIAG_FINDING, "fanout", 0, 0, RULE_DEPENDS_CYCLE,
                    "%s cycles not checked: more than %u dependencies refer forward",
                    r->dialect->reference_field, DEPGRAPH_MAX_EDGES);
}

/* Key problems come out of the index in key order; they are printed in input order. */
struct key_problem {
    bool collision;
    struct keyindex_entry at, first;
    size_t more; /* dangling: further references to the same key */
};

#define MAX_KEY_PROBLEMS 1000

static void keep_problem(struct run *r, bool collision, const struct keyindex_entry *at,
                         const struct keyindex_entry *first)
{
    struct key_problem *p;

    if (r->n_problems == MAX_KEY_PROBLEMS) {
        r->problems_dropped++;
        return;
    }
    if (!r->problems && !(r->problems = malloc(MAX_KEY_PROBLEMS * sizeof(*r->problems)))) {
        r->problems_dropped++;
        return;
    }
    p = &r->problems[r->n_problems++];
    memset(p, 0, sizeof(*p));
    p->collision = collision;
    p->at = *at;
    if (first)
        p->first = *first;
}

static void on_collision(void *user, const struct keyindex_entry *first,
                         const struct keyindex_entry *again)
{
    keep_problem(user, true, again, first);
}

/* References to one key arrive together and in recording order: the first is kept,
 * the others only counted. */
static void on_dangling(void *user, const struct keyindex_entry *ref)
{
    struct run *r = user;
    struct key_problem *last = r->n_problems ? &r->problems[r->n_problems - 1] : NULL;

    /* a key another upload defines (--known-key, the config's known_keys) */
    for (size_t i = 0; !r->dialect->bad_reference.fails && i < r->opts->n_known_keys; i++) {
        if (fnmatch(r->opts->known_keys[i], unscoped(ref->key), 0) == 0)
            return;
    }
    /* a key only known later (one the platform only knows at upload) may be the one named
     * (a name the index keeps cut is not matched) */
    if (r->dialect->key_may_exist && strlen(ref->key) <= KEYINDEX_TEXT &&
        r->dialect->key_may_exist(r->dialect_state, unscoped(ref->key), strlen(unscoped(ref->key))))
        return;
    if (last && !last->collision && strcmp(last->at.key, ref->key) == 0) {
        last->more++;
        return;
    }
    keep_problem(r, false, ref, NULL);
}

static void on_sharded(void *user, size_t seq)
{
    struct run *r = user;

    if (r->repass)
        repass_sharded(r->repass, seq);
}

static int problem_order(const void *pa, const void *pb)
{
    const struct key_problem *a = pa, *b = pb;

    if (a->at.pos.file != b->at.pos.file)
        return a->at.pos.file < b->at.pos.file ? -1 : 1;
    if (a->at.pos.line != b->at.pos.line)
        return a->at.pos.line < b->at.pos.line ? -1 : 1;
    if (a->at.pos.col != b->at.pos.col)
        return a->at.pos.col < b->at.pos.col ? -1 : 1;
    return 0;
}

static const char *more_text(size_t more)
{
    static _Thread_local char buf[64];

    snprintf(buf, sizeof(buf), "; %zu more reference%s", more, more == 1 ? "" : "s");
    return buf;
}

static void report_key_problems(struct run *r)
{
    if (r->n_problems)
        qsort(r->problems, r->n_problems, sizeof(*r->problems), problem_order);
    for (size_t i = 0; i < r->n_problems; i++) {
        const struct key_problem *p = &r->problems[i];

        const struct dialect *dl = r->dialect;

        if (p->collision)
            diag_at(r->diag, DIAG_ERROR, DIAG_FINDING, r->names, p->at.pos, RULE_KEY_COLLISION,
                    "%s '%s' is already used by the %s at %s:%u:%u%s", dl->key_noun, unscoped(p->at.key),
                    dl->job_noun, r->names[p->first.pos.file], p->first.pos.line, p->first.pos.col,
                    p->first.shards ? " (expanded into shards)" : "");
        else if (dl->bad_reference.fails)
            diag_at(r->diag, DIAG_ERROR, DIAG_INPUT, r->names, p->at.pos, dl->bad_reference.rule,
                    "%s names '%s', which is not a %s of this "
                    "file (%s rejects the file)%s", dl->reference_field, unscoped(p->at.key), dl->job_noun,
                    dl->platform, p->more ? more_text(p->more) : "");
        else
            diag_at(r->diag, DIAG_WARNING, DIAG_FINDING, r->names, p->at.pos, dl->bad_reference.rule,
                    "%s names '%s', which no rendered %s defines (%s fails "
                    "the build unless another upload defines it)%s", dl->reference_field,
                    unscoped(p->at.key), dl->job_noun, dl->platform, p->more ? more_text(p->more) : "");
    }
    if (r->problems_dropped)
        diag_report(r->diag, DIAG_WARNING, DIAG_FINDING, "fanout", 0, 0, RULE_KEY_COLLISION,
                    "%zu more key problems not shown", r->problems_dropped);
}

static struct dialect_ctx dialect_ctx_for(struct run *r, bool first_pass)
{
    struct dialect_ctx ctx = {
        .diag = r->diag,
        .files = r->names,
        .n_files = r->n_sources,
        .upload = r->opts->upload,
        .options = r->opts->dialect_options,
        .side = r->opts->side,
        .on_key = first_pass ? on_key : NULL,
        .on_skipped = r->sink->skipped ? on_skipped : NULL,
        .labels_unread = r->opts->checks_only,
        .user = r,
        .state = r->dialect_state,
        .sources = r->sources,
        .limits = r->opts->limits,
        .change = r->opts->change,
        .on_not_run = on_not_run,
        .keep_not_run = r->sink->not_run != NULL,
        .heads = r->heads,
    };
    return ctx;
}

static int check_step(struct run *r, struct stream_item *item)
{
    const struct dialect *dl = r->dialect;
    struct ynode *items = ynode_doc_root(item->doc);
    struct dialect_ctx ctx = dialect_ctx_for(r, true);

    /* Before expansion, while a fanned-out job is still one node of the graph. */
    if (dl->edges(items, on_edge, r, &r->local_cycle) != 0)
        return -1;
    if (dl->expand(&ctx, item->doc, items) != 0 || dl->normalize(item->doc, items) != 0)
        return -1;
    if (lint_item(r->lint, item->pos.file, items) != 0)
        return -1;
    if (dl->references(items, r->diag, r->names, on_reference, r) != 0)
        return -1;
    return r->failed_index ? -1 : 0;
}

/* The dialect's refusal of a container of jobs that ended holding none (`at`): a finding,
 * as a missing container is the schema's (a rendering of a workflow no event triggers
 * holds none, and its read back is refused so). */
static void check_empty(struct run *r, struct ypos at, bool jobs_given)
{
    if (!jobs_given && r->dialect->empty_refused)
        diag_at(r->diag, DIAG_ERROR, DIAG_FINDING, r->names, at, r->dialect->empty_rule, "/%s: holds no %s: %s",
                r->dialect->shape->key, r->dialect->job_noun, r->dialect->empty_refused);
}

/* Detection's reads not read on from: their sources are read from the start. */
static void drop_heads(struct run *r)
{
    for (size_t i = 0; r->heads && i < r->n_sources; i++)
        dialect_head_drop(&r->heads[i]);
}

static int first_pass(struct run *r)
{
    struct dialect_reader *reader = reader_open(r, true, NULL);
    struct stream_item item;
    struct ypos doc_pos = {0, 0, 0}, container = {0, 0, 0};
    bool jobs_given = false;
    int rc = reader ? 0 : -1, more;
    struct dialect_ctx ctx = dialect_ctx_for(r, true);

    while (rc == 0 && (more = r->dialect->next(reader, &item)) != 0) {
        if (more < 0) {
            rc = -1;
            break;
        }
        r->file = item.pos.file;
        if (r->repass && r->early) /* given up, the spool may be gone */
            repass_item(r->repass, r->file, emit_offset(r->spool_em), item.kind == STREAM_DOC_START);
        if (item.kind == STREAM_DOC_START)
            doc_pos = item.pos;
        else if (item.kind == STREAM_DOC_END)
            lint_document(r->lint, doc_pos);
        else if (item.kind == STREAM_STEPS_START)
            container = item.pos;
        else if (item.kind == STREAM_STEPS_END)
            check_empty(r, container, jobs_given);
        else if (item.kind == STREAM_STEP)
            rc = check_step(r, &item);
        jobs_given = item.kind == STREAM_STEP || (jobs_given && item.kind != STREAM_STEPS_START);
        if (rc == 0 && r->early && item.kind == STREAM_STEP &&
            r->dialect->rewrite(&ctx, item.doc, ynode_doc_root(item.doc), early_shards_of, r) != 0)
            rc = -1;
        if (rc == 0 && r->early && r->sink->item(r->sink->user, &item) != 0)
            rc = -1;
        if (rc == 0 && r->out_check) {
            item.bare = false; /* the rendering puts a bare list under its container key */
            validator_item(r->out_check, &item);
        }
        ynode_doc_destroy(item.doc);
    }
    r->dialect->close(reader);
    if (r->repass && r->early)
        repass_end(r->repass, emit_offset(r->spool_em));
    drop_heads(r); /* of the files a stop left unread */
    if (rc == 0 && lint_finish(r->lint) != 0)
        rc = -1;
    return rc;
}

/* The validator of bundled schema `name`, its findings held in a diag of their own. */
static struct validator *open_check(struct run *r, const char *name, struct diag **findings)
{
    struct schema *owned; /* bundled: never set */

    *findings = diag_create_buffered_like(r->diag);
    return *findings ? validator_open(name, true, r->dialect->shape, r->diag, *findings, r->names, DIAG_FINDING,
                                    &owned)
                     : NULL;
}

/* Opens the checks of input and rendering against the dialect's bundled schemas. */
static int load_schemas(struct run *r)
{
    if (!(r->out_check = open_check(r, r->dialect->rendered_schema, &r->out_findings)))
        return -1;
    if (!r->dialect->input_schema || !r->dialect->render_checks_input)
        return 0;
    if (!(r->in_check = open_check(r, r->dialect->input_schema, &r->in_findings)))
        return -1;
    /* The rendering's check reads only what expansion changed: the rest the input's
     * proved, and their findings are said only when the input's found none. */
    validator_prove(r->in_check, r->out_check);
    return 0;
}

/* ---- pass 2: the rendering ---- */

/* Answers come in the order pass 1 recorded the references, which is the order
 * the dialect's rewrite asks in. */
static unsigned shards_of(void *user, const char *key, size_t len)
{
    (void)key;
    (void)len;
    return keyindex_next_reference(((struct run *)user)->keys);
}

/* Pass 1's text of the files from r->next_file up to `file` that pass 2 does not read,
 * copied from the spool kept: their references are passed over too. 0, or -1 when the
 * spool cannot be read. */
static int copy_kept(struct run *r, unsigned file)
{
    char buf[65536];

    for (; r->next_file < file; r->next_file++) {
        struct repass_part part = repass_part(r->repass, r->next_file);

        if (!repass_kept(r->repass, r->next_file))
            continue;
        if (fseeko(r->kept, (off_t)part.from, SEEK_SET) != 0)
            return -1;
        for (uint64_t left = part.to - part.from; left > 0;) {
            size_t n = fread(buf, 1, left < sizeof(buf) ? (size_t)left : sizeof(buf), r->kept);

            if (n == 0)
                return -1;
            left -= n;
            emit_text(r->spool_em, buf, n, left ? 0 : part.docs);
        }
        for (size_t i = 0; i < part.references; i++)
            keyindex_next_reference(r->keys);
    }
    return 0;
}

/* Pass 2: the items of every file not in `skip` (NULL: of every file), and with r->kept
 * the text of the others. */
static int feed_all(struct run *r, const bool *skip)
{
    const struct dialect *dl = r->dialect;
    struct dialect_ctx ctx = dialect_ctx_for(r, false);
    struct dialect_reader *reader = reader_open(r, false, skip);
    struct stream_item item;
    int rc = reader ? 0 : -1, more;

    while (rc == 0 && (more = dl->next(reader, &item)) != 0) {
        if (more < 0) {
            rc = -1;
            break;
        }
        if (r->kept && copy_kept(r, item.pos.file) != 0)
            rc = -1;
        else if (item.kind == STREAM_STEP &&
            (dl->expand(&ctx, item.doc, ynode_doc_root(item.doc)) != 0 ||
             dl->normalize(item.doc, ynode_doc_root(item.doc)) != 0 ||
             dl->rewrite(&ctx, item.doc, ynode_doc_root(item.doc), shards_of, r) != 0))
            rc = -1;
        else if (r->sink->item(r->sink->user, &item) != 0)
            rc = -1;
        ynode_doc_destroy(item.doc);
    }
    dl->close(reader);
    if (rc == 0 && r->kept && copy_kept(r, (unsigned)r->n_sources) != 0)
        rc = -1;
    return rc;
}

/* ---- the default sink: the canonical text, spooled ---- */

static int spool_item(void *user, const struct stream_item *item)
{
    struct run *r = user;

    emit_item(r->spool_em, item);
    return 0;
}

/* Starts the spool over (pass 1's text was not the rendering after all). */
static void spool_reset(void *user)
{
    struct run *r = user;

    emit_destroy(r->spool_em);
    if (r->spool)
        fclose(r->spool);
    r->spool = scratch_file();
    r->spool_em = r->spool ? emit_create(r->spool, r->opts->format, r->dialect->layout) : NULL;
}

/* Where the rendering goes: the caller's stream, or `-o FILE` through a temporary file.
 * Opened before the inputs: an input that is the output is refused, and a closed or
 * unwritable output is found before any work. */
static int open_target(struct run *r)
{
    r->to = r->opts->stream;
    if (!r->to) {
        if (!(r->out = output_open(r->opts->output, r->diag)))
            return -1;
        r->to = output_stream(r->out);
    }
    return 0;
}

/* Commits the rendering when it is complete; a failed write is reported by the output
 * (what failed and why); otherwise the rendering failed and `-o FILE` stays as it was. */
static int close_target(struct run *r, bool rendered)
{
    struct output *out = r->out;

    r->out = NULL;
    if (rendered || ferror(r->to)) {
        if (out)
            return output_commit(out);
        return ferror(r->to) ? -1 : 0;
    }
    diag_report(r->diag, DIAG_ERROR, DIAG_INPUT, r->opts->output ? r->opts->output : "<stdout>",
                0, 0, RULE_IO, "rendering failed; nothing was written");
    output_abort(out);
    return -1;
}

/* The spool written by pass 1 is the rendering: copy it out. */
static int copy_spool(struct run *r)
{
    char buf[65536];
    size_t n;
    bool ok;

    emit_finish(r->spool_em);
    ok = emit_error(r->spool_em) == 0 && fflush(r->spool) == 0 && fseek(r->spool, 0, SEEK_SET) == 0;
    while (ok && (n = fread(buf, 1, sizeof(buf), r->spool)) > 0)
        ok = fwrite(buf, 1, n, r->to) == n;
    return close_target(r, ok && !ferror(r->spool));
}

/* Whether every read of each input read the same (a file may be rewritten between two:
 * the dialect's detection, pass 1, a file the dialect reads again itself, pass 2):
 * what was checked must be what is rendered. */
static bool inputs_unchanged(struct run *r)
{
    for (size_t i = 0; i < r->n_sources; i++) {
        if (source_changed(r->sources[i])) {
            diag_report(r->diag, DIAG_ERROR, DIAG_INPUT, r->names[i], 0, 0, RULE_IO,
                        "changed while it was being read; nothing was written");
            return false;
        }
    }
    return true;
}

/* Pass 1's spool, taken from the sink before its reset, when pass 2 copies some of it
 * (NULL: it does not). */
static FILE *keep_spool(struct run *r, const bool *skip)
{
    FILE *kept = r->spool;

    /* a spool not all written cannot be copied from: pass 2 reads every file then */
    if (!skip || emit_error(r->spool_em) != 0 || fflush(kept) != 0)
        return NULL;
    r->spool = NULL;
    return kept;
}

/* Feeds the sink again from a second read, and lets the rendering out only when the
 * inputs did not change: stdout cannot be taken back. */
static int second_pass(struct run *r)
{
    bool ok;
    /* with pass 1's rendering whole (`early` kept), the files whose build it got right */
    const bool *skip = r->early && r->repass ? repass_skips(r->repass) : NULL;

    if ((r->kept = keep_spool(r, skip)) == NULL)
        skip = NULL;
    if (r->opts->stats) {
        r->opts->stats->reread = 0;
        for (size_t i = 0; i < r->n_sources; i++)
            r->opts->stats->reread += !skip || !skip[i];
    }
    if (r->early)
        give_up_one_pass(r);
    else
        r->sink->reset(r->sink->user);
    if (r->sink == &r->spooled && !r->spool_em) {
        diag_report(r->diag, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_IO,
                    "cannot create a temporary file in %s: %s", scratch_dir(), strerror(errno));
        return -1;
    }
    /* Everything was reported by pass 1; a message here would be a repeat. */
    diag_set_muted(r->diag, true);
    ok = feed_all(r, skip) == 0;
    diag_set_muted(r->diag, false);
    /* A change can also make pass 2 fail: it explains the failure best. */
    if (!inputs_unchanged(r))
        return -1;
    if (!ok) {
        diag_report(r->diag, DIAG_ERROR, DIAG_INPUT, r->opts->output ? r->opts->output : "<stdout>",
                    0, 0, RULE_IO, "rendering failed (%s); nothing was written",
                    r->spool && ferror(r->spool)   ? "cannot write a temporary file"
                    : r->kept && ferror(r->kept) ? "cannot read a temporary file"
                                                 : "out of memory");
        return -1;
    }
    return r->sink == &r->spooled ? copy_spool(r) : 0;
}

/* ---- the run's steps ---- */

static int out_of_memory(struct run *r)
{
    diag_report(r->diag, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_INTERNAL, "out of memory");
    return -1;
}

char *render_input_name(const struct render_opts *opts, const char *path)
{
    size_t root = opts->names_root ? strlen(opts->names_root) : 0, len;
    char *name;

    if (!root || strncmp(path, opts->names_root, root) != 0 || path[root] != '/')
        return NULL;
    len = strlen(opts->names_as) + strlen(path + root + 1) + 1;
    if ((name = malloc(len)) != NULL)
        snprintf(name, len, "%s%s", opts->names_as, path + root + 1);
    return name;
}

struct build_of {
    unsigned build, file;
};

static int by_build(const void *pa, const void *pb)
{
    const struct build_of *a = pa, *b = pb;

    if (a->build != b->build)
        return a->build < b->build ? -1 : 1;
    return a->file < b->file ? -1 : a->file > b->file;
}

/* Names each build by its first input (the lowest file number), whatever number the
 * dialect gave it: a build's number is then below the inputs' count (lint counts jobs by
 * it) and the same however its builds were found (render_builds, opts->builds). 0, or -1
 * when out of memory. */
static int builds_by_first(struct run *r)
{
    struct build_of *v = malloc(r->n_sources * sizeof(*v));

    if (!v)
        return -1;
    for (size_t i = 0; i < r->n_sources; i++)
        v[i] = (struct build_of){r->build[i], (unsigned)i};
    qsort(v, r->n_sources, sizeof(*v), by_build);
    for (size_t i = 0; i < r->n_sources; i++)
        r->build[v[i].file] = i && v[i].build == v[i - 1].build ? r->build[v[i - 1].file] : v[i].file;
    free(v);
    return 0;
}

/* Which inputs are one build: a workflow is its own run; the files a directory stands
 * for are as their dialect says (its `builds`); those named on the command line are one
 * (`buildkite-agent pipeline upload a.yml b.yml`). 0, or -1 after reporting. */
static int find_builds(struct run *r, const char *const *paths)
{
    if (!(r->build = calloc(r->n_sources ? r->n_sources : 1, sizeof(*r->build))))
        return out_of_memory(r);
    for (size_t i = 0; r->dialect->keys_per_file && i < r->n_sources; i++)
        r->build[i] = (unsigned)i;
    if (!r->dialect->keys_per_file && r->opts->builds)
        memcpy(r->build, r->opts->builds, r->n_sources * sizeof(*r->build));
    else if (!r->dialect->keys_per_file && r->dialect->builds && r->opts->walked) {
        int rc;

        drop_heads(r); /* the dialect reads the inputs from their start */
        /* what its reads find wrong is the run's passes' to say */
        diag_set_muted(r->diag, true);
        rc = r->dialect->builds(r->sources, paths, r->n_sources, r->opts->walked, r->build, r->diag);
        diag_set_muted(r->diag, false);
        if (rc != 0 || builds_by_first(r) != 0)
            return out_of_memory(r);
    }
    for (size_t i = 1; !r->split && i < r->n_sources; i++)
        r->split = r->build[i] != r->build[0];
    if (r->split && !r->dialect->keys_per_file && !(r->any = keyindex_create(RENDER_INDEX_BUDGET)))
        return out_of_memory(r);
    return 0;
}

/* Opens the target and the inputs, and finds their dialect. 0, or -1 after reporting. */
static int open_inputs(struct run *r, const char *const *paths, size_t n)
{
    const struct render_opts *opts = r->opts;

    if (n > YPOS_MAX_FILES) {
        diag_report(r->diag, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_IO,
                    "too many input files (%zu; at most %d)", n, YPOS_MAX_FILES);
        return -1;
    }
    if (!r->sources)
        r->sources = calloc(n ? n : 1, sizeof(*r->sources));
    if (!r->heads)
        r->heads = calloc(n ? n : 1, sizeof(*r->heads));
    r->names = calloc(n ? n : 1, sizeof(*r->names));
    r->keys = keyindex_create(RENDER_INDEX_BUDGET);
    r->graph = depgraph_create(RENDER_GRAPH_BUDGET);
    if (!r->sources || !r->heads || !r->names || !r->keys || !r->graph)
        return out_of_memory(r);
    for (size_t i = 0; i < r->n_sources; i++)
        r->names[i] = source_name(r->sources[i]);
    for (size_t i = r->n_sources; i < n; i++) {
        char *name = render_input_name(opts, paths[i]);

        r->sources[i] = source_open_as(paths[i], name, r->diag);
        free(name);
        if (!r->sources[i])
            return -1;
        r->names[i] = source_name(r->sources[i]);
        r->n_sources++;
    }
    r->dialect = opts->dialect ? opts->dialect : dialect_detect_all(r->sources, r->n_sources, r->heads, r->diag);
    if (!r->dialect)
        return -1;
    if (opts->stats)
        opts->stats->dialect = r->dialect;
    if (r->dialect->state_create && !(r->dialect_state = r->dialect->state_create(opts->dialect_options)))
        return out_of_memory(r);
    return find_builds(r, paths);
}

/* Starts the checks of pass 1 and the sink it may feed. 0, or -1 after reporting. */
static int begin_checks(struct run *r)
{
    const struct render_opts *opts = r->opts;
    struct lint_setup lint = {r->dialect, r->diag, r->names, opts->shards, opts->limits,
                              r->split ? r->build : NULL, r->n_sources};

    if (!(r->lint = lint_begin(&lint)))
        return -1;
    if (opts->validate && load_schemas(r) != 0)
        return -1;
    r->spooled = (struct render_sink){NULL, spool_item, spool_reset, r, NULL, NULL};
    r->sink = opts->sink ? opts->sink : &r->spooled;
    if (opts->sink) {
        opts->sink->begin(opts->sink->user, r->dialect);
    } else
        spool_reset(r);
    r->early = opts->checks_only ? NULL : shardmap_create(RENDER_ONE_PASS_BUDGET);
    if (!opts->sink && !r->spool_em)
        give_up_one_pass(r);
    /* without it (out of memory), pass 2 reads every file */
    if (r->early && !opts->sink && r->split && r->dialect->files_apart)
        r->repass = repass_create(r->n_sources, r->build);
    return 0;
}

/* Pass 1, then what is only known at its end. 0, or -1 when an input error was found
 * (reported): nothing is rendered then. */
static int check_all(struct run *r)
{
    static const struct keyindex_problems problems = {on_collision, on_dangling, on_sharded},
                                          collisions = {on_collision, NULL, on_sharded},
                                          dangling = {NULL, on_dangling, NULL};
    struct diag *d = r->diag;

    /* A pass that stopped has said why; if it has not, what it fed the sink so far must
     * still not pass for the rendering. */
    if (first_pass(r) != 0 && !r->failed_index && !diag_has_input_error(d))
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_INTERNAL,
                    "rendering stopped (out of memory); nothing was written");
    if (!diag_has_input_error(d))
        inputs_unchanged(r);
    /* One problem, one message: the dialect's own error if it has one, else the input
     * schema's finding where it was written, else what the rendering shows. The input's
     * warnings are said either way (number-text: of what the rendering check skips as
     * proved). */
    if (!diag_has_input_error(d)) {
        bool input_wrong = r->in_check && validator_errors(r->in_check) > 0;

        if (r->in_findings)
            diag_flush_into(r->in_findings, d);
        if (!input_wrong && r->out_findings)
            diag_flush_into(r->out_findings, d);
    }
    if (r->failed_index ||
        (!diag_has_input_error(d) && (keyindex_resolve(r->keys, r->any ? &collisions : &problems, r) != 0 ||
                                      (r->any && keyindex_resolve(r->any, &dangling, r) != 0))))
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_INTERNAL,
                    "cannot build the key index (out of memory or temporary space)");
    if (diag_has_input_error(d))
        return -1;
    report_key_problems(r);
    report_cycles(r);
    return 0;
}

/* Writes the rendering: pass 1's when it is right, else pass 2's. */
static void write_rendering(struct run *r)
{
    bool one_pass = r->early && r->early_hits == keyindex_sharded_references(r->keys);

    if (!one_pass)
        second_pass(r);
    else if (r->sink == &r->spooled)
        copy_spool(r);
    if (r->opts->stats)
        r->opts->stats->passes = one_pass ? 1 : 2;
}

/* Frees the run; its exit code. */
static int close_run(struct run *r)
{
    int rc;

    output_abort(r->out); /* the run failed: -o FILE stays as it was */
    shardmap_destroy(r->early);
    repass_destroy(r->repass);
    if (r->kept)
        fclose(r->kept);
    emit_destroy(r->spool_em);
    if (r->spool)
        fclose(r->spool);
    rc = diag_exit_code(r->diag, r->opts->strict);
    drop_heads(r);
    free(r->heads);
    for (size_t i = 0; i < r->n_sources; i++)
        source_close(r->sources[i]);
    free(r->sources);
    free(r->names);
    keyindex_destroy(r->keys);
    keyindex_destroy(r->any);
    depgraph_destroy(r->graph);
    free(r->problems);
    free(r->scoped.text);
    free(r->scoped_from.text);
    free(r->build);
    if (r->dialect_state)
        r->dialect->state_destroy(r->dialect_state);
    lint_end(r->lint);
    validator_destroy(r->out_check);
    validator_destroy(r->in_check);
    diag_destroy(r->out_findings);
    diag_destroy(r->in_findings);
    return rc;
}

int render_run_opened(const char *const *paths, size_t n, struct source **sources, struct dialect_head **heads,
                      const struct render_opts *opts, struct diag *d)
{
    struct run r = {.opts = opts, .diag = d, .sources = sources, .heads = heads, .n_sources = sources ? n : 0};

    /* the target before the inputs (open_target) */
    if ((opts->sink || open_target(&r) == 0) && open_inputs(&r, paths, n) == 0 && begin_checks(&r) == 0 &&
        check_all(&r) == 0 && diag_exit_code(d, opts->strict) == 0) {
        if (!opts->checks_only)
            write_rendering(&r);
        else if (opts->stats)
            opts->stats->passes = 1;
    }
    return close_run(&r);
}

int render_run(const char *const *paths, size_t n, const struct render_opts *opts, struct diag *d)
{
    struct dialect_kept *k = opts->kept;
    struct render_opts one = *opts;
    struct source **sources = NULL;
    struct dialect_head **heads = NULL;

    /* the one file as its detection left it, read on from there (render_files' held
     * inputs): named as it was read, and not for -o FILE, opened first so that an input
     * that is it is refused (source_open_as) */
    one.kept = NULL;
    if (n == 1 && k && k->source && !strcmp(source_name(k->source), paths[0]) &&
        (!opts->dialect || opts->dialect == k->dialect) && !opts->names_root && !opts->output) {
        sources = calloc(1, sizeof(*sources));
        heads = calloc(1, sizeof(*heads));
    }
    if (!sources || !heads) {
        free(sources);
        free(heads);
        return render_run_opened(paths, n, NULL, NULL, &one, d);
    }
    sources[0] = k->source;
    heads[0] = k->head;
    one.dialect = k->dialect;
    *k = (struct dialect_kept){NULL, NULL, NULL};
    return render_run_opened(paths, n, sources, heads, &one, d);
}

unsigned *render_builds(const char *const *paths, size_t n, const struct render_opts *opts)
{
    /* what opening the inputs finds wrong is the rendering's to say */
    struct run r = {.opts = opts, .diag = diag_create_buffered(DIAG_TEXT)};
    unsigned *first = NULL;

    if (r.diag && open_inputs(&r, paths, n) == 0 && (first = malloc((n ? n : 1) * sizeof(*first))) != NULL)
        memcpy(first, r.build, n * sizeof(*first));
    if (r.diag) {
        close_run(&r);
        diag_destroy(r.diag);
    }
    return first;
}
