#define _GNU_SOURCE /* memrchr */
#include "fanout/dialect.h"

#include <stdlib.h>
#include <string.h>

static const struct dialect *const dialects[] = {&dialect_buildkite, &dialect_testarea,
                                                 &dialect_gha, NULL};

const struct dialect *dialect_find(const char *name)
{
    for (size_t i = 0; dialects[i]; i++) {
        if (strcmp(dialects[i]->name, name) == 0)
            return dialects[i];
    }
    return NULL;
}

const struct dialect *dialect_detect(struct source *src, struct diag *d)
{
    /* Both containers are items, so neither a pipeline's steps nor a workflow's jobs are
     * read whole to find out. */
    static const struct stream_shape either[] = {{"steps", false}, {"jobs", true}, {NULL, false}};
    const struct dialect *found = &dialect_buildkite;
    struct stream *s;
    struct stream_item item;
    bool done = false;

    diag_set_muted(d, true);
    s = stream_open_shaped(src, 0, either, d);
    while (s && !done && stream_next(s, &item) > 0) {
        if (item.kind == STREAM_PAIR &&
            ynode_scalar_is(ynode_key(ynode_doc_root(item.doc), 0), "group")) {
            found = &dialect_testarea;
            done = true;
        } else if (item.kind == STREAM_STEPS_START) {
            if (!item.bare && strcmp(item.items_key, "jobs") == 0)
                found = &dialect_gha;
            done = true;
        } else if (item.kind == STREAM_DOC_END) {
            done = true;
        }
        ynode_doc_destroy(item.doc);
    }
    stream_close(s);
    diag_set_muted(d, false);
    return found;
}

/* ---- the reader of the dialects whose documents are their files ---- */

struct dialect_reader {
    struct dialect_input in;
    dialect_observe_fn observe;
    void *user;
    size_t file;
    struct stream *s;
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

int dialect_files_next(struct dialect_reader *r, struct stream_item *item)
{
    for (;;) {
        int rc;

        if (!r->s) {
            if (r->file == r->in.n)
                return 0;
            r->s = stream_open_shaped(r->in.sources[r->file], (unsigned)r->file, r->in.shape,
                                      r->in.diag);
            if (!r->s)
                return -1;
        }
        rc = stream_next(r->s, item);
        if (rc > 0 && r->in.transform && r->in.transform(r->in.transform_user, item) != 0) {
            ynode_doc_destroy(item->doc);
            item->doc = NULL;
            return -1;
        }
        if (rc > 0 && r->observe)
            r->observe(r->user, item);
        if (rc != 0)
            return rc;
        stream_close(r->s);
        r->s = NULL;
        r->file++;
    }
}

void dialect_files_close(struct dialect_reader *r)
{
    if (!r)
        return;
    stream_close(r->s);
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

long dialect_key_index(const char *id, size_t len, size_t *base)
{
    const char *dash = memrchr(id, '-', len);
    size_t digits = dash ? (size_t)(id + len - dash - 1) : 0;

    if (!dash || dash == id || !digits || digits > 6 || strspn(dash + 1, "0123456789") < digits)
        return -1;
    *base = (size_t)(dash - id);
    return strtol(dash + 1, NULL, 10);
}
