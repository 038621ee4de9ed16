/* repass: which files render's pass 2 must read again (include/fanout/repass.h). */
#include "fanout/repass.h"

#include <stdlib.h>

struct file_part {
    struct repass_part text;
    size_t references_before; /* recorded before the file's first item */
};

struct repass {
    size_t n;
    unsigned *build;
    struct file_part *parts;
    /* By build: references to a sharded key less the ones pass 1 rewrote (0: right) */
    long *unrewritten;
    bool *skip;
    size_t references; /* recorded so far */
    size_t file;       /* of the last item; n before the first */
};

struct repass *repass_create(size_t n_files, const unsigned *build)
{
    struct repass *rp = calloc(1, sizeof(*rp));
    size_t n = n_files ? n_files : 1;

    if (!rp)
        return NULL;
    rp->n = n_files;
    rp->file = n_files;
    rp->build = malloc(n * sizeof(*rp->build));
    rp->parts = calloc(n, sizeof(*rp->parts));
    rp->unrewritten = calloc(n, sizeof(*rp->unrewritten));
    if (!rp->build || !rp->parts || !rp->unrewritten) {
        repass_destroy(rp);
        return NULL;
    }
    for (size_t i = 0; i < n_files; i++)
        rp->build[i] = build ? build[i] : 0;
    return rp;
}

void repass_destroy(struct repass *rp)
{
    if (!rp)
        return;
    free(rp->build);
    free(rp->parts);
    free(rp->unrewritten);
    free(rp->skip);
    free(rp);
}

/* Ends the text of the last item's file at `offset`, and gives each file up to `next`
 * that had no item an empty text there. */
static void close_files_before(struct repass *rp, size_t next, uint64_t offset)
{
    size_t f = rp->file == rp->n ? 0 : rp->file;

    if (rp->file < rp->n)
        rp->parts[f++].text.to = offset;
    for (; f < next && f < rp->n; f++) {
        rp->parts[f].text.from = rp->parts[f].text.to = offset;
        rp->parts[f].references_before = rp->references;
    }
}

void repass_item(struct repass *rp, unsigned file, uint64_t offset, bool doc_start)
{
    if (file >= rp->n)
        return;
    if (file != rp->file) {
        close_files_before(rp, file, offset);
        rp->file = file;
        rp->parts[file].text.from = offset;
        rp->parts[file].references_before = rp->references;
    }
    rp->parts[file].text.docs += doc_start;
}

void repass_reference(struct repass *rp)
{
    if (rp->file < rp->n)
        rp->parts[rp->file].text.references++;
    rp->references++;
}

void repass_rewritten(struct repass *rp)
{
    if (rp->file < rp->n)
        rp->unrewritten[rp->build[rp->file]]--;
}

void repass_end(struct repass *rp, uint64_t offset)
{
    close_files_before(rp, rp->n, offset);
    rp->file = rp->n;
}

void repass_sharded(struct repass *rp, size_t seq)
{
    size_t lo = 0, hi = rp->n;

    /* the last file whose references start at or before `seq`: the one that holds it */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;

        if (rp->parts[mid].references_before <= seq)
            lo = mid;
        else
            hi = mid;
    }
    if (lo < rp->n)
        rp->unrewritten[rp->build[lo]]++;
}

bool repass_kept(const struct repass *rp, unsigned file)
{
    return file < rp->n && rp->unrewritten[rp->build[file]] == 0;
}

const bool *repass_skips(struct repass *rp)
{
    bool any = false;

    if (!rp->skip && !(rp->skip = malloc(rp->n ? rp->n : 1)))
        return NULL;
    for (size_t f = 0; f < rp->n; f++)
        any |= rp->skip[f] = repass_kept(rp, (unsigned)f);
    return any ? rp->skip : NULL;
}

struct repass_part repass_part(const struct repass *rp, unsigned file)
{
    struct repass_part none = {0, 0, 0, 0};

    return file < rp->n ? rp->parts[file].text : none;
}
