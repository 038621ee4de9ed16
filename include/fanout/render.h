/* render: the whole `fanout render` run over one or more inputs, in their dialect.
 * Pass 1 reads every input item by item, expands it into jobs, records keys and the
 * references between jobs and runs the rules over the jobs (lint.h), reporting every
 * problem; nothing is written when it finds an error. Pass 2 (when pass 1's rendering
 * cannot be used) reads the inputs again and streams the canonical rendering out, with
 * references rewritten from the complete key index. Memory stays bounded by the
 * largest item plus a fixed budget for the key index (which spills to disk). */
#ifndef FANOUT_RENDER_H
#define FANOUT_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fanout/dialect.h"
#include "fanout/diag.h"
#include "fanout/emit.h"
#include "fanout/shardflags.h"
#include "fanout/stream.h"

/* Memory for the sharded keys that let a pipeline render in one pass (render.c). */
#define RENDER_ONE_PASS_BUDGET (1u << 20)

/* Memory for key index records before they spill to a temporary file. */
#define RENDER_INDEX_BUDGET (2u << 20)

/* Memory for the references' edges before they spill (they are read back only when a cycle
 * is possible), and the most cycles reported. */
#define RENDER_GRAPH_BUDGET (256u << 10)
#define RENDER_MAX_CYCLES 100

/* Where a rendering goes, item by item, in place of the emitter (diff records jobs
 * this way). `begin` is told the inputs' dialect before any item; `item` gets every
 * item of the rendering in order (jobs expanded and references rewritten; 0, or -1
 * after reporting); `reset` drops everything received so far: pass 1's items were not
 * the rendering after all, and pass 2 sends them again. */
struct render_sink {
    void (*begin)(void *user, const struct dialect *dialect);
    int (*item)(void *user, const struct stream_item *item);
    void (*reset)(void *user);
    void *user;
    /* When set, told of each job the platform would not create (dialect_skipped_fn), before
     * the item it would have been in; a reset forgets them too. */
    int (*skipped)(void *user, const struct ynode *job, const struct ynode *skip);
    /* When set, told of each job the change leaves out (dialect_not_run_fn), and the
     * rendering keeps those jobs as without a change (dialect_ctx.keep_not_run): what
     * compares renderings compares every job and marks those; a reset forgets them too. */
    dialect_not_run_fn not_run;
};

/* Filled in by a successful render. */
struct render_stats {
    unsigned passes; /* reads of the input: 1, or 2 when a reference named a later
                        fanned-out job (or the one-pass budget ran out) */
    size_t reread;   /* the files pass 2 read (repass.h: the others' text is pass 1's) */
    const struct dialect *dialect; /* the one the inputs were read in */
};

struct render_opts {
    const struct dialect *dialect; /* NULL: detected from the first input (dialect_detect) */
    const struct dialect_options *dialect_options; /* what the dialects' options said (NULL: nothing) */
    unsigned side;           /* diff's HEAD is 1 (a dialect option may be given per side) */
    enum emit_format format;
    bool upload;             /* keep $$VAR references (env carries the shard values) */
    bool strict;             /* warnings fail the run */
    bool validate;           /* check the input and the rendering against their
                                dialect's schemas */
    const char *output;      /* NULL: stdout */
    FILE *stream;            /* when set, the rendering goes here instead of `output` */
    const struct render_sink *sink; /* when set, the items go here (output and stream unused) */
    struct render_stats *stats;     /* filled in when set */
    /* keys defined in another upload (shell globs): no dangling-depends-on for them */
    const char *const *known_keys;
    size_t n_known_keys;
    struct shardflags *shards; /* the runners whose shard flags are proved (lint.h's
                                  shard-coverage); NULL: no shard-coverage check */
    const struct dialect_limits *limits; /* the config's job limits; NULL: the platform's */
    /* the files the directories among the inputs stand for (inputs.h); NULL: none. The
     * dialect says which of them are one build (dialect.h's `builds`) */
    const struct strset *walked;
    /* what render_builds gave for these paths and these options, so that a run does not
     * find the builds again (NULL: the run finds them) */
    const unsigned *builds;
    /* files a directory does not stand for (the committed renderings the config's
     * `checks` name): a rendering is no source of itself */
    const char *const *not_inputs;
    size_t n_not_inputs;
    /* an input under directory `names_root` is named `names_as` and its path below it in
     * messages and reports (diff --base's revision: `REF:.buildkite/x.yml`) */
    const char *names_root, *names_as;
    /* paths[0] of a rendering of one file, as detection left it (dialect_left_out): taken
     * over by render_run (emptied), the caller's to drop else; NULL: none */
    struct dialect_kept *kept;
    /* the change the jobs are rendered for (--changed): the dialects that gate jobs on
     * the files a change touches decide with it; NULL: every job runs */
    const struct change *change;
    /* when set, shown every input item as pass 1 reads it, before the dialect changes it
     * (validate checks the input against its schema in the same read) */
    dialect_observe_fn observe;
    void *observe_user;
    /* pass 1's checks only, for a command that shows findings and renders nothing (the
     * lints, validate): the sink (which must be set) is told `begin`, never an item, and
     * no pass 2 reads the inputs again (stats->passes is 1) */
    bool checks_only;
};

/* The name the input at `path` goes by in messages when opts rename its directory (a
 * new string), else NULL (its path; also when out of memory, which costs the renaming
 * only). */
char *render_input_name(const struct render_opts *opts, const char *path);

/* Which of `paths` are one build, as rendering them with `opts` finds (dialect.h's
 * `builds`; keys are unique per build): a new array whose [i] is the input that input
 * i's build begins with (its lowest file number; all 0: one build), or NULL when they
 * cannot be read (which rendering them says) or when out of memory. Opens the inputs
 * and reads no item: diff matches builds across its sides with it before rendering them
 * (docs/diff.md "Builds"), and hands it to the rendering (opts->builds). */
unsigned *render_builds(const char *const *paths, size_t n, const struct render_opts *opts);

/* Renders `paths` ("-" = stdin) in order. Returns the exit code (0, 1 or 2). */
int render_run(const char *const *paths, size_t n, const struct render_opts *opts, struct diag *d);
/* render_run on inputs opened already: sources[i] of paths[i], and heads[i] what detection
 * read of it (dialect_head; NULL entries: none), both arrays of n taken over and freed. */
int render_run_opened(const char *const *paths, size_t n, struct source **sources, struct dialect_head **heads,
                      const struct render_opts *opts, struct diag *d);

/* The inputs of each dialect, each file told its own (a file in no dialect is said and
 * left out). */
struct render_groups {
    size_t n;                 /* how many dialects */
    struct render_group {
        const struct dialect *dialect;
        const char **paths;   /* into the caller's list */
        size_t n;
    } *groups;
    const char **all;         /* the groups' paths, one allocation */
    bool none;                /* some file was in no dialect */
};

/* Groups `paths` by dialect, in the order each dialect's first file comes; with stdin
 * ("-") among them, which can be read once, all of them are one group of dialect NULL
 * (the rendering tells). 0, or 2 when out of memory (said). Free with
 * render_groups_free. */
int render_group_by_dialect(const char *const *paths, size_t n, struct diag *d, struct render_groups *g);
void render_groups_free(struct render_groups *g);

/* render_run on files of any dialects (opts->dialect NULL: each file's own): those of
 * one dialect rendered together, the dialects one after the other into one output (YAML
 * documents or JSON values in a row), written only when every one rendered. Not for a
 * sink (opts->sink): diff and the lints read one dialect. */
int render_files(const char *const *paths, size_t n, const struct render_opts *opts, struct diag *d);

/* render_files on `specs`: files, directories (their YAML files, in path order, less
 * opts->not_inputs) or "-". */
int render_paths(const char *const *specs, size_t n, const struct render_opts *opts, struct diag *d);

#endif
