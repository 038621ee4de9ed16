#include "fanout/render.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/buildkite.h"
#include "fanout/depends.h"
#include "fanout/expand.h"
#include "fanout/keyindex.h"
#include "fanout/output.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/strset.h"

struct run {
    const struct render_opts *opts;
    struct diag *diag;
    struct source **sources;
    size_t n_sources;
    struct keyindex *keys;
    unsigned file; /* index of the source being read */
    struct strset *warned; /* unknown keys reported in this file */
    size_t jobs_in_file, jobs_total;
    bool oom;
};

static const char *file_name(const struct run *r, unsigned file)
{
    return source_name(r->sources[file]);
}

/* ---- pass 1: checks and the key index ---- */

static int on_key(void *user, const char *key, size_t len, unsigned shards, struct ypos pos)
{
    struct run *r = user;
    struct keyindex_entry prev;
    int rc = keyindex_define(r->keys, key, len, shards, r->file, pos, &prev);

    if (rc < 0) {
        r->oom = true;
        return -1;
    }
    if (rc > 0)
        diag_report(r->diag, DIAG_ERROR, DIAG_FINDING, file_name(r, r->file), pos.line, pos.col,
                    "key-collision", "key '%.*s' is already used by the step at %s:%u:%u%s",
                    (int)(len > 100 ? 100 : len), key, file_name(r, prev.file), prev.pos.line,
                    prev.pos.col, prev.shards ? " (expanded into shards)" : "");
    return 0;
}

static int on_reference(void *user, const char *key, size_t len, struct ypos pos)
{
    struct run *r = user;

    if (keyindex_find(r->keys, key, len))
        return 0;
    if (keyindex_defer(r->keys, key, len, r->file, pos) != 0) {
        r->oom = true;
        return -1;
    }
    return 0;
}

static void on_dangling(void *user, const char *key, unsigned file, struct ypos pos)
{
    struct run *r = user;

    diag_report(r->diag, DIAG_WARNING, DIAG_FINDING, file_name(r, file), pos.line, pos.col,
                "dangling-depends-on",
                "depends_on names '%s', which no rendered step defines (Buildkite fails the "
                "build unless another upload defines it)", key);
}

/* Jobs a rendered step list creates: every step but the group containers. */
static size_t count_jobs(struct fy_node *steps)
{
    size_t jobs = 0;
    struct fy_node *step;
    void *it = NULL;

    while ((step = fy_node_sequence_iterate(steps, &it)) != NULL) {
        struct fy_node *children = ynode_get(step, "steps");

        if (bk_step_kind(step) == BK_GROUP && children && fy_node_is_sequence(children))
            jobs += count_jobs(children);
        else
            jobs++;
    }
    return jobs;
}

static struct expand_ctx expand_ctx_for(struct run *r, bool first_pass)
{
    struct expand_ctx ctx = {
        .diag = r->diag,
        .file = file_name(r, r->file),
        .upload = r->opts->upload,
        .allow_placeholders = r->opts->allow_placeholders,
        .on_key = first_pass ? on_key : NULL,
        .user = r,
        .warned = r->warned,
    };
    return ctx;
}

/* Reads one input through; `each_step` gets every step document after expansion. */
typedef int (*step_fn)(struct run *r, struct stream_item *item);

static int check_step(struct run *r, struct stream_item *item)
{
    struct fy_node *steps = fy_document_root(item->doc);
    struct expand_ctx ctx = expand_ctx_for(r, true);

    if (expand_steps(&ctx, steps) != 0)
        return -1;
    r->jobs_in_file += count_jobs(steps);
    if (depends_each(steps, r->diag, ctx.file, on_reference, r) != 0)
        return -1;
    return r->oom ? -1 : 0;
}

static int first_pass_file(struct run *r)
{
    struct stream *s = stream_open(r->sources[r->file], r->diag);
    struct stream_item item;
    int rc = 0, more;

    if (!s)
        return -1;
    r->jobs_in_file = 0;
    strset_clear(r->warned);
    while (rc == 0 && (more = stream_next(s, &item)) != 0) {
        if (more < 0) {
            rc = -1;
            break;
        }
        if (item.kind == STREAM_STEP)
            rc = check_step(r, &item);
        if (item.doc)
            fy_document_destroy(item.doc);
    }
    stream_close(s);
    if (rc == 0 && r->jobs_in_file > RENDER_JOBS_PER_UPLOAD)
        diag_report(r->diag, DIAG_WARNING, DIAG_FINDING, file_name(r, r->file), 0, 0, "job-limit",
                    "renders %zu jobs; Buildkite accepts at most %d per pipeline upload",
                    r->jobs_in_file, RENDER_JOBS_PER_UPLOAD);
    r->jobs_total += r->jobs_in_file;
    return rc;
}

/* ---- pass 2: the rendering ---- */

static unsigned shards_of(void *user, const char *key, size_t len)
{
    const struct keyindex_entry *e = keyindex_find(((struct run *)user)->keys, key, len);

    return e ? e->shards : 0;
}

static int emit_file(struct run *r, struct emitter *em)
{
    struct stream *s = stream_open(r->sources[r->file], r->diag);
    struct expand_ctx ctx = expand_ctx_for(r, false);
    struct stream_item item;
    int rc = 0, more;

    if (!s)
        return -1;
    while (rc == 0 && (more = stream_next(s, &item)) != 0) {
        struct fy_node *step;
        void *it = NULL;

        if (more < 0) {
            rc = -1;
            break;
        }
        switch (item.kind) {
        case STREAM_DOC_START:
            emit_doc_start(em);
            break;
        case STREAM_PAIR:
            emit_pair(em, fy_document_root(item.doc));
            break;
        case STREAM_STEPS_START:
            emit_steps_start(em);
            break;
        case STREAM_STEP:
            if (expand_steps(&ctx, fy_document_root(item.doc)) != 0 ||
                depends_rewrite(fy_document_root(item.doc), shards_of, r) != 0) {
                rc = -1;
                break;
            }
            while ((step = fy_node_sequence_iterate(fy_document_root(item.doc), &it)) != NULL)
                emit_step(em, step);
            break;
        case STREAM_STEPS_END:
            emit_steps_end(em);
            break;
        case STREAM_DOC_END:
            emit_doc_end(em);
            break;
        }
        if (item.doc)
            fy_document_destroy(item.doc);
    }
    stream_close(s);
    return rc;
}

static int second_pass(struct run *r)
{
    struct output *out = output_open(r->opts->output, r->diag);
    struct emitter *em;
    int rc = 0;

    if (!out)
        return -1;
    em = emit_create(output_stream(out), r->opts->format);
    if (!em) {
        output_abort(out);
        return -1;
    }
    /* Everything was reported by pass 1; a message here would be a repeat. */
    diag_set_muted(r->diag, true);
    for (r->file = 0; r->file < r->n_sources && rc == 0; r->file++)
        rc = emit_file(r, em);
    diag_set_muted(r->diag, false);
    if (rc == 0 && emit_docs(em) == 0) {
        emit_doc_start(em);
        emit_doc_end(em);
    }
    if (rc == 0 && emit_error(em) == 0) {
        emit_destroy(em);
        return output_commit(out);
    }
    diag_report(r->diag, DIAG_ERROR, DIAG_INPUT, r->opts->output ? r->opts->output : "<stdout>",
                0, 0, "io", "rendering failed; nothing was written");
    emit_destroy(em);
    output_abort(out);
    return -1;
}

int render_run(const char *const *paths, size_t n, const struct render_opts *opts, struct diag *d)
{
    struct run r = {.opts = opts, .diag = d};
    int rc = 0;

    r.sources = calloc(n ? n : 1, sizeof(*r.sources));
    r.keys = keyindex_create();
    r.warned = strset_create();
    if (!r.sources || !r.keys || !r.warned) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, "internal", "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        r.sources[i] = source_open(paths[i], d);
        if (!r.sources[i])
            goto done;
        r.n_sources++;
    }
    for (r.file = 0; r.file < r.n_sources; r.file++) {
        if (first_pass_file(&r) != 0)
            break;
    }
    if (r.oom)
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, "internal", "out of memory");
    if (diag_has_input_error(d))
        goto done;
    keyindex_each_dangling(r.keys, on_dangling, &r);
    if (r.jobs_total > RENDER_JOBS_PER_BUILD)
        diag_report(d, DIAG_WARNING, DIAG_FINDING, "fanout", 0, 0, "job-limit",
                    "renders %zu jobs; Buildkite allows at most %d per build", r.jobs_total,
                    RENDER_JOBS_PER_BUILD);
    if (diag_exit_code(d, opts->strict) == 0)
        second_pass(&r);
done:
    rc = diag_exit_code(d, opts->strict);
    for (size_t i = 0; i < r.n_sources; i++)
        source_close(r.sources[i]);
    free(r.sources);
    keyindex_destroy(r.keys);
    strset_destroy(r.warned);
    return rc;
}
