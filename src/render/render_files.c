/* render_files: inputs of several dialects rendered as one output (a repository's root
 * holds workflows and pipelines), each dialect's files together (render.h). */
#include "fanout/render.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/dialect.h"
#include "fanout/inputs.h"
#include "fanout/output.h"
#include "fanout/scratch.h"

static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? (size_t)(slash - path) : 0;
}

/* The dialect of the first file in the directory of `paths[i]` that tells one, else
 * `otherwise`. */
static const struct dialect *beside(const char *const *paths, const struct dialect *const *of, size_t n, size_t i,
                                    const struct dialect *otherwise)
{
    size_t len = dir_len(paths[i]);

    for (size_t j = 0; j < n; j++) {
        if (of[j] && dir_len(paths[j]) == len && !strncmp(paths[j], paths[i], len))
            return of[j];
    }
    return otherwise;
}

/* What grouping read, for the rendering to read on from (render_run_opened): each input
 * opened, and what detection read of it. */
struct held {
    struct source **sources;
    struct dialect_head **heads;
};

static void held_free(struct held *h, size_t n)
{
    for (size_t i = 0; h->heads && i < n; i++)
        dialect_head_drop(&h->heads[i]);
    for (size_t i = 0; h->sources && i < n; i++)
        source_close(h->sources[i]);
    free(h->heads);
    free(h->sources);
}

/* The dialect of input i, with `held` (NULL: read and closed) its source kept there and
 * what detection read of the first DIALECT_HEADS_HELD. */
static enum dialect_verdict detect_one(const char *const *paths, size_t i, struct held *held,
                                       const struct dialect **found, struct diag *d)
{
    if (!held)
        return dialect_detect_path(paths[i], found, d);
    *found = NULL;
    if (!(held->sources[i] = source_open(paths[i], d)))
        return DIALECT_NONE;
    return dialect_detect_source(held->sources[i], (unsigned)i, found,
                                 i < DIALECT_HEADS_HELD ? &held->heads[i] : NULL, d);
}

/* render_group_by_dialect; with `held`, the inputs kept open there (held_free). */
static int group(const char *const *paths, size_t n, struct held *held, struct diag *d, struct render_groups *g)
{
    const struct dialect **of = calloc(n ? n : 1, sizeof(*of)), *fallback = NULL;
    bool *silent = calloc(n ? n : 1, sizeof(*silent));
    size_t n_dialects = 0, at = 0;

    memset(g, 0, sizeof(*g));
    while (dialect_at(n_dialects))
        n_dialects++;
    g->all = calloc(n ? n : 1, sizeof(*g->all));
    g->groups = calloc(n_dialects, sizeof(*g->groups));
    if (!of || !silent || !g->all || !g->groups) {
        free(of);
        free(silent);
        render_groups_free(g);
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_INTERNAL, "out of memory");
        return DIAG_INPUT;
    }
    /* stdin can be read once: all the inputs one group, told by the rendering itself */
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(paths[i], "-")) {
            memcpy(g->all, paths, n * sizeof(*paths));
            g->groups[0] = (struct render_group){NULL, g->all, n};
            g->n = 1;
            free(of);
            free(silent);
            return 0;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const struct dialect *found;

        switch (detect_one(paths, i, held, &found, d)) {
        case DIALECT_FOUND:
            of[i] = found;
            fallback = fallback ? fallback : found;
            break;
        case DIALECT_SILENT: /* nothing to say either way (empty, comments only) */
            silent[i] = true;
            break;
        case DIALECT_NONE: /* said why; the other files are still read */
            g->none = true;
            break;
        case DIALECT_SKIP: /* said why, and left out */
            break;
        }
    }
    /* a file that says nothing is read with the first file that says in its directory,
     * else with the first that says (a called workflow left empty is the caller's to
     * report), else as the default: vLLM's emptied test-pipeline.yaml is a pipeline
     * like the ones beside it, not a test-area file of the job dirs below */
    for (size_t i = 0; i < n; i++) {
        if (silent[i])
            of[i] = beside(paths, of, n, i, fallback ? fallback : dialect_default());
    }
    for (size_t i = 0; i < n; i++) {
        struct render_group *group;

        if (!of[i])
            continue; /* in no dialect, or in the group of an earlier file */
        group = &g->groups[g->n++];
        group->dialect = of[i];
        group->paths = g->all + at;
        for (size_t j = i; j < n; j++) {
            if (of[j] != group->dialect)
                continue;
            group->paths[group->n++] = paths[j];
            if (j > i)
                of[j] = NULL;
        }
        at += group->n;
    }
    free(of);
    free(silent);
    return 0;
}

int render_group_by_dialect(const char *const *paths, size_t n, struct diag *d, struct render_groups *g)
{
    return group(paths, n, NULL, d, g);
}

void render_groups_free(struct render_groups *g)
{
    free(g->all);
    free(g->groups);
    memset(g, 0, sizeof(*g));
}

/* Copies what `from` holds to `to`. 0, or -1 on a read or write error. */
static int copy_into(FILE *from, FILE *to)
{
    char buf[65536];
    size_t n;

    rewind(from);
    while ((n = fread(buf, 1, sizeof(buf), from)) > 0) {
        if (fwrite(buf, 1, n, to) != n)
            return -1;
    }
    return ferror(from) ? -1 : 0;
}

/* Each group rendered into a temporary file, then all of them into the output. */
static int render_each_group(const struct render_groups *g, const struct render_opts *opts, struct diag *d)
{
    const char *target = opts->output ? opts->output : "<stdout>";
    struct output *out = opts->stream ? NULL : output_open(opts->output, d);
    FILE *to = opts->stream ? opts->stream : out ? output_stream(out) : NULL;
    FILE **parts = calloc(g->n, sizeof(*parts));
    int rc = g->none ? DIAG_INPUT : 0;

    if (!to || !parts) {
        if (!parts)
            diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_INTERNAL, "out of memory");
        output_abort(out);
        free(parts);
        return DIAG_INPUT;
    }
    for (size_t i = 0; i < g->n && rc < DIAG_INPUT; i++) {
        struct render_opts o = *opts;
        int one;

        o.dialect = g->groups[i].dialect;
        if (!(o.stream = parts[i] = scratch_file())) {
            diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_IO, "cannot create a temporary file in %s: %s",
                        scratch_dir(), strerror(errno));
            rc = DIAG_INPUT;
            break;
        }
        one = render_run(g->groups[i].paths, g->groups[i].n, &o, d);
        rc = one > rc ? one : rc;
    }
    for (size_t i = 0; rc < DIAG_INPUT && i < g->n; i++) {
        if ((i > 0 && opts->format == EMIT_YAML && fputs("---\n", to) == EOF) || copy_into(parts[i], to) != 0) {
            diag_report(d, DIAG_ERROR, DIAG_INPUT, target, 0, 0, RULE_IO, "cannot write the rendering");
            rc = DIAG_INPUT;
        }
    }
    if (rc < DIAG_INPUT && out && output_commit(out) != 0)
        rc = DIAG_INPUT;
    else if (rc >= DIAG_INPUT)
        output_abort(out);
    for (size_t i = 0; i < g->n; i++) {
        if (parts[i])
            fclose(parts[i]);
    }
    free(parts);
    return rc;
}

int render_files(const char *const *paths, size_t n, const struct render_opts *opts, struct diag *d)
{
    struct render_opts one = *opts;
    struct render_groups g;
    /* The inputs stay open from their detection to their rendering, which reads on from
     * what detection read: the files read as they are named (not renamed, nor stdin), and
     * not for -o FILE, whose output is opened first so that an input that is it is refused
     * (source_open_as); nor for more inputs than heads are held, which would each hold a
     * file open (past the open-file limit, an error per file instead of one). */
    struct held held = {NULL, NULL}, *keep = n <= DIALECT_HEADS_HELD ? &held : NULL;
    int rc;

    if (opts->dialect || opts->sink || n < 2)
        return render_run(paths, n, opts, d);
    for (size_t i = 0; i < n && keep; i++)
        keep = strcmp(paths[i], "-") && !opts->names_root && !opts->output ? keep : NULL;
    if (keep && (!(held.sources = calloc(n, sizeof(*held.sources))) || !(held.heads = calloc(n, sizeof(*held.heads))))) {
        held_free(&held, n);
        keep = NULL;
    }
    if ((rc = group(paths, n, keep, d, &g)) != 0) {
        held_free(&held, n);
        return rc;
    }
    /* none left out, one dialect: the inputs are the files read */
    if (keep && !(g.n == 1 && !g.none && g.groups[0].n == n)) {
        held_free(&held, n);
        keep = NULL;
    }
    if (g.n == 1 && !g.none) {
        one.dialect = g.groups[0].dialect; /* told already: not again (NULL: stdin's run tells) */
        rc = keep ? render_run_opened(g.groups[0].paths, n, held.sources, held.heads, &one, d)
                  : render_run(g.groups[0].paths, g.groups[0].n, &one, d); /* less the files left out */
    } else {
        rc = render_each_group(&g, opts, d);
    }
    render_groups_free(&g);
    return rc;
}

int render_paths(const char *const *specs, size_t n, const struct render_opts *opts, struct diag *d)
{
    struct inputs in;
    struct render_opts o;
    int rc;

    if (inputs_expand_skipping(specs, n, opts->not_inputs, opts->n_not_inputs, d, &in) != 0)
        return DIAG_INPUT;
    o = *opts;
    o.walked = in.walked;
    rc = render_files((const char *const *)in.paths, in.n, &o, d);
    inputs_free(&in);
    return rc;
}
