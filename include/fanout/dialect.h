/* dialect: the one interface every input dialect implements (Buildkite pipelines, vLLM
 * test-area files, GitHub Actions workflows), so that render, validate, diff and check
 * never ask which dialect they read. A dialect turns its inputs into a stream of items
 * with positions (stream.h), expands one item at a time into explicit jobs, says how its
 * jobs refer to each other (Buildkite `depends_on`, GitHub `needs`), how its rendering is
 * laid out and which bundled schemas check the input and the rendering. */
#ifndef FANOUT_DIALECT_H
#define FANOUT_DIALECT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fanout/diag.h"
#include "fanout/emit.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/ynode.h"

struct change;
struct dialect;
struct expr_value;
struct strset;

/* ---- what render tells a dialect, and what a dialect tells render ---- */

/* Told about every key (or job id) the rendered jobs define. `shards` is N for the key
 * of a job fanned out into N jobs (a valid reference, not a job of its own), 0 for the
 * key of an output job, and DIALECT_KEY_LEFT_OUT for a job the change leaves out: a
 * reference to it is still valid, and the dialect's rewrite drops it (shards_of gives
 * DIALECT_KEY_LEFT_OUT), in pass 2 when it was named before it was left out. Return
 * non-zero to stop. */
typedef int (*dialect_key_fn)(void *user, const char *key, size_t len, unsigned shards, struct ypos pos);
#define DIALECT_KEY_LEFT_OUT UINT_MAX

/* Told about every job the platform would not create (a Buildkite matrix adjustment's
 * `skip`): the job as it would have been, and why (true or a reason). For what
 * compares renderings. Return non-zero to stop. */
typedef int (*dialect_skipped_fn)(void *user, const struct ynode *job, const struct ynode *skip);

/* Told about every job the change rendered for (dialect_ctx.change) leaves out, or runs
 * only when someone unblocks it (vLLM's block steps, a GitHub job whose `if:` is false
 * for the change, a Buildkite step whose `if_changed` no changed file matches): `id` is
 * the job's identity as diff matches jobs (struct dialect_job's `id`: a key or job id
 * without the shard or matrix suffix; not NUL-terminated), `why` says why in a phrase
 * ("no changed file is under its source_file_dependencies"), `pos` is where the job is
 * written (its file tells a workflow job's identity apart). Render says it as the
 * --explain note `'ID' does not run for this change: WHY` [not-run]; diff reports a job
 * the change edits that it leaves out. Return non-zero to stop. */
typedef int (*dialect_not_run_fn)(void *user, const char *id, size_t len, const char *why, struct ypos pos);

/* Called for each key a reference between jobs (depends_on, needs) names. Return
 * non-zero to stop. */
typedef int (*dialect_visit_fn)(void *user, const char *key, size_t len, struct ypos pos);

/* How many jobs the job keyed `key` was fanned out into; 0 leaves a reference to it as
 * it is. Asked once per reference, in the order the `references` entry visits them. */
typedef unsigned (*dialect_shards_fn)(void *user, const char *key, size_t len);

/* An edge of the "waits for" graph: the job keyed `from` cannot finish before the job
 * keyed `to` has (pos: where `to` is named). Return non-zero to stop. */
typedef int (*dialect_edge_fn)(void *user, const char *from, size_t flen, const char *to, size_t tlen,
                               struct ypos pos);

/* ---- the options a dialect declares ---- */

/* What the options of every dialect said, for a run (opaque; dialect.c). */
struct dialect_options;

/* Which commands take a dialect's option. */
enum dialect_option_scope {
    DIALECT_OPTION_RENDER = 1,      /* the commands that render (render, check, diff...) */
    DIALECT_OPTION_EXPRESSIONS = 2, /* the command that evaluates expressions (expr) */
    DIALECT_OPTION_VALIDATE = 4,    /* the command that checks inputs (validate), for an option
                                     * that changes what the dialect's own checks find */
};

/* Whether an option's value is a file's path, which a .fanout.yml default names from the
 * config's directory (config.c). */
enum option_path {
    OPTION_NOT_PATH,
    OPTION_PATH,
    OPTION_PATH_OR_NAME, /* a bare word (no '.' or '/') is one of the option's names */
};

/* An option a dialect takes on the command line (--NAME VALUE) and in the config's
 * defaults (NAME, with '_' for '-'). */
struct dialect_option {
    const char *name;
    bool has_arg;
    /* The words it takes (NULL-terminated; the first is what not giving it means), or
     * NULL: any value, or none (a switch). */
    const char *const *choices;
    bool per_side;              /* diff: given twice, BASE's then HEAD's */
    unsigned scope;             /* enum dialect_option_scope, or'ed */
    const char *help;           /* its lines in a command's --help */
    const char *help_after;     /* --help lists it after this option (NULL: last) */
    enum option_path path;
};

/* How a dialect's option reports what is wrong with its value: as a usage error (`what`,
 * then `arg` when not NULL; returns the usage exit code), or (a file it reads) as
 * messages in the run's format. */
struct dialect_option_io {
    int (*usage)(const char *what, const char *arg);
    enum diag_format format;
};

/* The most options all dialects declare together. */
#define DIALECT_MAX_OPTIONS 32

/* Every dialect's options in turn: the i-th (its dialect in *owner when not NULL), NULL
 * past the last. */
const struct dialect_option *dialect_option_at(size_t i, const struct dialect **owner);

/* The dialect option named `name`, or NULL. */
const struct dialect_option *dialect_option_find(const char *name);

/* The position of `arg` among `opt`'s choices, or -1. */
int dialect_option_choice(const struct dialect_option *opt, const char *arg);

/* Options with none given. NULL when out of memory. */
struct dialect_options *dialect_options_create(void);

/* A copy, for options given on top of `o` (a config's check): it shares what `o`'s
 * dialects collected (variables, contexts), so `o` must outlive it, and it takes only
 * options with choices. NULL when out of memory. */
struct dialect_options *dialect_options_copy(const struct dialect_options *o);
void dialect_options_destroy(struct dialect_options *o);

/* `opt` given with `arg` (NULL for a switch; one of its choices when it has any),
 * `given` times before: a per-side option's second value is HEAD's, its first both
 * sides'. 0, or DIAG_INPUT (the usage exit code) after its dialect said why through
 * `io` (which an option with choices, checked, does not use: it may be NULL). */
int dialect_options_parse(struct dialect_options *o, const struct dialect_option *opt, const char *arg,
                          unsigned given, const struct dialect_option_io *io);

/* What `opt` was given as on `side` (0, or 1 for diff's HEAD): its choice's position
 * (0 when not given), or for a switch 1 when given. `o` may be NULL (none given). */
int dialect_options_value(const struct dialect_options *o, const struct dialect_option *opt, unsigned side);

/* The part of `o` that `dialect` parses its options into (its options_size bytes), or
 * NULL when it has none or `o` is NULL. */
const void *dialect_options_own(const struct dialect_options *o, const struct dialect *dialect);

/* The options with choices given something other than their first, as words to paste
 * into a command line (" --NAME VALUE" each). */
void dialect_options_write(const struct dialect_options *o, FILE *out);

/* The expression contexts the options give (an object of context name to value, for
 * `fanout expr`), or NULL when none. */
const struct expr_value *dialect_options_contexts(const struct dialect_options *o);

/* What a dialect's expansion and rewriting are told about the run. */
/* Job counts past which a rendering is warned about (rule job-limit): the config's
 * `limits`, each 0 for the platform's default (an organisation can have its quotas
 * raised). */
struct dialect_limits {
    unsigned jobs_per_step, jobs_per_upload, jobs_per_build;
};

/* The nodes a dialect may make for the configurations of one job or step (its nodes
 * times its matrix's jobs: an alias of 100,000 nodes, stream.h's budget for a step, in a
 * 16x16 matrix would be 25.6 million), and for all of a run's: past them the input is an
 * alias bomb multiplied (error `alias-budget`; docs/reference.md, Limits). Both bounds
 * grow with the input read, so that they bound what aliases multiply, never a pipeline's
 * size: written out, a node takes at least a byte, and a step makes at most 1,000 jobs
 * (Buildkite's parallelism; a GitHub matrix 256). */
#define DIALECT_CONFIG_NODES 1000000u
#define DIALECT_RUN_CONFIG_NODES 4000000u
#define DIALECT_CONFIG_NODES_PER_BYTE 1000u

/* A run's count against that bound (zeroed with its dialect's state). */
struct dialect_run_copies {
    uint64_t copied, budget;
};


struct dialect_ctx {
    struct diag *diag;
    const char *const *files; /* file names by ypos.file, for messages */
    size_t n_files;
    bool upload;              /* for the platform's upload: keep what it fills in at run time */
    const struct dialect_options *options; /* may be NULL: none given */
    unsigned side;            /* the rendering's side of a diff (dialect_options_value) */
    dialect_key_fn on_key;    /* may be NULL */
    dialect_skipped_fn on_skipped; /* may be NULL */
    void *user;
    /* The jobs were made by a dialect that renders into this one's (test-area files into
     * Buildkite steps) and that checked their keys itself: no unknown-key warnings (and
     * `state` is that dialect's). */
    bool keys_checked;
    /* Nothing reads a job's label but its identity, which a key gives before it (a run
     * of checks: validate, shards check): a keyed step's shards keep its label unfilled. */
    bool labels_unread;
    /* The dialect's own state for this run (state_create), or NULL. */
    void *state;
    /* The inputs by ypos.file, for a dialect that reads one again (a called workflow):
     * each read is checked against the others (source_changed). */
    struct source *const *sources;
    const struct dialect_limits *limits; /* NULL: the platform's defaults */
    /* The change rendered for (change.h): a dialect that gates jobs on the files a
     * change touches decides with it; NULL: every job runs. */
    const struct change *change;
    /* Told about each job the change leaves out, and why (may be NULL: report none). */
    dialect_not_run_fn on_not_run;
    /* The jobs the change leaves out are only told to on_not_run: the rendering stays as
     * it is without a change (diff compares HEAD's full job set, and marks those). */
    bool keep_not_run;
    /* Detection's reads held for the run's first read, by ypos.file (dialect_head), or
     * NULL: a dialect that reads an input another way first drops its head. */
    struct dialect_head **heads;
};

/* `base` nodes and DIALECT_CONFIG_NODES_PER_BYTE for each byte the inputs have read so far
 * (ctx->sources; without them, `base`): the bound of a job's or step's configurations
 * (base DIALECT_CONFIG_NODES) and of a run's (DIALECT_RUN_CONFIG_NODES). */
uint64_t dialect_copies_bound(const struct dialect_ctx *ctx, uint64_t base);

/* Counts `nodes` more for `run`; false when the run is past its bound. */
bool dialect_run_copies_charge(const struct dialect_ctx *ctx, struct dialect_run_copies *run, size_t nodes);


/* What a dialect reads: the opened inputs, in order. */
struct dialect_input {
    struct diag *diag;
    const struct stream_shape *shape; /* the dialect's */
    struct source *const *sources;
    const char *const *names; /* by file number */
    size_t n;
    const struct dialect_options *options; /* may be NULL: none given */
    unsigned side;            /* the rendering's side of a diff */
    bool upload;
    void *state;              /* the dialect's state for the run (state_create), or NULL */
    const unsigned *builds;   /* each file's build (the dialect's `builds`); NULL: one build */
    const struct change *change; /* as dialect_ctx's */
    dialect_not_run_fn on_not_run; /* as dialect_ctx's, told `not_run_user` */
    void *not_run_user;
    bool keep_not_run;
    /* Applied to each item as read, before `observe` sees it: the platform's reading of
     * what is written (Buildkite's: keys and plain scalars as the agent makes them). Then
     * `transform`, after `observe` (upload-time interpolation). Each 0, or -1 after
     * reporting; NULL: none. For dialect_files_open, set by the dialect that reads its
     * files so. */
    int (*read)(void *user, struct stream_item *item);
    void *read_user;
    int (*transform)(void *user, struct stream_item *item);
    void *transform_user;
    /* By file: detection's reads that dialect_files_next goes on from (taking them), or
     * NULL. */
    struct dialect_head **heads;
    /* By file: the files dialect_files_next passes over unread (NULL: none); only given
     * to a dialect whose `files_apart` is set. */
    const bool *skip;
};

/* Shown every input item as read, before the dialect turns it into output items (render
 * checks the input against the dialect's schema this way without a second read). */
typedef void (*dialect_observe_fn)(void *user, const struct stream_item *item);

/* One job of a rendering and what diff matches it by across renderings: `id` (a key or
 * job id without the shard or matrix suffix, else a label; not NUL-terminated) and its
 * place in a fan-out (`shard` of `shards`; 0 of 1 for a job that is not split); valid
 * during the call. */
struct dialect_job {
    const struct ynode *node;
    const char *id;
    size_t id_len;
    unsigned shard, shards;
    /* what tells the job from its siblings ("part 2"), or NULL: a matrix configuration's
     * is made from its `row` when asked (dialect_job_label) */
    const char *label;
    /* Its place among the jobs one item as written fans out to (`part` of `parts`; 0 of
     * 1 when it does not fan out), whatever its identity; and for a matrix configuration
     * its values (a mapping of vector names to values), else NULL. */
    unsigned part, parts;
    const struct ynode *row;
    struct ypos pos; /* where the job is written (a GitHub job: its id) */
    /* The platform's shard variables are set for this job (Buildkite `parallelism`):
     * they hold `part` and `parts` at run time. */
    bool parallel;
};

typedef int (*dialect_job_fn)(void *user, const struct dialect_job *job);

/* One text a job runs or hands to what it runs (a command, an env value), as rendered. */
typedef int (*dialect_text_fn)(void *user, const struct ynode *text);

struct dialect_reader;
struct dialect_probe;

/* What a reference to no job is on the dialect's platform: the rule its message names,
 * and whether it (and a cycle of references) fails the input, as GitHub rejects such a
 * file; else it is a warning, as a Buildkite build fails only unless another upload
 * defines the key (so --known-key may name such keys). */
struct dialect_bad_reference {
    enum rule_id rule;
    bool fails;
};

/* ---- what diff knows of a dialect's jobs ---- */

/* A value that means what the field's absence means (`soft_fail: false`), so that diff
 * takes the two for the same job: `value` as written plain ("": an empty scalar). */
struct dialect_default {
    const char *field, *value;
};

/* A field that holds what a job runs, and the name an added job's report gives it. */
struct dialect_command {
    const char *field, *shown;
};

/* A job derived from another and named after it (a test-area AMD mirror `amd-X` of step
 * X): its identity is `prefix` and its parent's, and a change of its fan-out is said of
 * the parent, as `fanout` ("mirror amd: 4 -> 2"). */
struct dialect_derived {
    const char *prefix, *fanout;
};

/* What diff compares a dialect's jobs by; each list ends with NULL (a NULL list: none). */
struct dialect_diff {
    /* The fields that hold a job's identity, which jobs are matched by and which are
     * not compared; the first names each job of an added fan-out. */
    const char *const *identity;
    /* What a reader calls a job, the first it has: one of its `labels` (which name it,
     * so a rename looks past them as it does past the identity), else a `prompt`. */
    const char *const *labels, *const *prompts;
    /* The label a reader sees for one written `text` (GitHub: a name written with
     * expressions shows its value), given what the job's file says of it (`note`, from
     * label_note; NULL: nothing): malloc'd, or NULL when it has no such text (an
     * expression of values only a run knows) or out of memory. NULL: labels are text. */
    char *(*label_value)(const char *note, const char *text, size_t len);
    /* What a document's top-level pair `top` (a mapping of one key) tells the labels of
     * its file's jobs (GitHub: the event its `on` makes clear, which a name may test):
     * malloc'd, or NULL when nothing. NULL: nothing. */
    char *(*label_note)(const struct ynode *top);
    const char *env;                         /* compared entry by entry; NULL: none */
    const struct dialect_command *commands;  /* ended by a NULL field */
    const char *const *machine;              /* where it runs, the first it has */
    /* The field whose list holds a job's own items (a workflow job's steps), compared
     * one by one (NULL: none): what a reader calls one, the first it has (the first of
     * the list, its name, quoted), and what it runs, the first it has. */
    const char *items;
    const char *const *item_names, *const *item_commands;
    const struct dialect_default *defaults;  /* ended by a NULL field */
    /* The fields that hold a matrix configuration's values (a workflow job's rendered
     * `strategy`), which change with the vectors of its matrix: when a vector is added
     * or removed, they and the labels (made from the values) are not compared. */
    const char *const *configuration;
    /* What a reader calls a group of jobs (an item that holds jobs and is none), the
     * first it has: diff names the group so when it has no identity field. NULL: none. */
    const char *const *group_labels;
    const struct dialect_derived *derived;   /* NULL: no job is derived */
    /* A job's identity is its file's too (a workflow's job ids are its own: two
     * workflows may each have a `check-changes`); else ids are one namespace across the
     * files (Buildkite keys are unique per build). */
    bool identity_per_file;
    /* The key a reference written as a mapping names its target by (Buildkite's
     * `depends_on: [{step: KEY, allow_failure: true}]`); NULL: references are scalars. */
    const char *reference_target;
};

struct dialect {
    const char *name;        /* as --dialect names it */
    const char *description; /* for messages */
    /* What --upload does to the dialect's input: a clause of --upload's help (NULL: nothing). */
    const char *upload_help;
    /* Where a document of the dialect keeps its items. */
    const struct stream_shape *shape;
    /* The rendering's layout and the bundled schemas (NULL: none) of input and rendering. */
    const struct emit_layout *layout;
    const char *input_schema;
    const char *rendered_schema;
    /* Whether render checks the input against input_schema too (validate always does).
     * Buildkite's source schema says nothing the rendering's check and the dialect's own
     * checks do not, at a tenth more instructions for render. */
    bool render_checks_input;
    /* How render's checks speak of the jobs and their references. */
    const char *platform;        /* "Buildkite", "GitHub" */
    const char *job_noun;        /* "step", "job" */
    const char *key_noun;        /* "key", "job id" */
    const char *reference_field; /* "depends_on", "needs" */
    const char *fanout_field;    /* what fans a job out: "parallelism", "matrix" */
    const char *fanout_jobs;     /* and what it makes: "shards", "jobs" */
    bool keys_per_file;          /* a file's keys are its own (a workflow's job ids) */
    /* Its reader is dialect_files_next, and what it renders of a file depends on no other
     * file read before it: render's pass 2 may read again only some of the files. */
    bool files_apart;
    struct dialect_bad_reference bad_reference;
    /* The platform's refusal of a document whose container of jobs holds none, said by
     * render as an error finding of `empty_rule` (exit 1, as a missing container is) at
     * the container; NULL: such a document is taken (Buildkite uploads `steps: []`). */
    const char *empty_refused;
    enum rule_id empty_rule;
    unsigned max_jobs_per_document, max_jobs_total; /* warned about above; 0: no limit */
    /* The environment variables that carry a parallel job's index and count at run time
     * (NULL: the platform has none); diff leaves every variable out whose name begins
     * with the index's, as the count's does. */
    const char *shard_index_variable, *shard_count_variable;
    /* How diff compares its jobs. */
    const struct dialect_diff *diff;

    /* The output items of all inputs in order (1: *item set, the caller destroys
     * item->doc; 0: no more; -1: error, reported). */
    struct dialect_reader *(*open)(const struct dialect_input *in, dialect_observe_fn observe,
                                   void *user);
    int (*next)(struct dialect_reader *r, struct stream_item *item);
    void (*close)(struct dialect_reader *r);

    /* Expands the jobs of an item in place (`items`: the root of a STEP item's document),
     * telling ctx->on_key about every key or job id defined. 0, or -1 after an input error. */
    int (*expand)(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *items);
    /* The references between jobs (depends_on, needs): edges as written (before
     * expansion), written in one form, visited and rewritten to name every job of a
     * fanned-out target.
     * `edges`: the edges of the items as written (before expansion: a fanned-out job is
     * one node of the graph); *local_cycle is set when a job waits for itself or for
     * the group it is in (the cycles that need no reference to a later job). 0, or what
     * `fn` returned.
     * `normalize`: references written in the one form the rendering's schema takes. 0,
     * or -1 when out of memory.
     * `references`: every reference of the expanded items, in order; a malformed one is
     * reported as an input error (-1).
     * `rewrite`: every reference to a fanned-out job made a reference to each of its
     * jobs (asking `shards_of` in the order `references` visits them). 0, or -1 (OOM). */
    int (*edges)(const struct ynode *items, dialect_edge_fn fn, void *user, bool *local_cycle);
    int (*normalize)(struct ynode_doc *doc, struct ynode *items);
    int (*references)(const struct ynode *items, struct diag *d, const char *const *files,
                      dialect_visit_fn visit, void *user);
    int (*rewrite)(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *items,
                   dialect_shards_fn shards_of, void *user);
    /* What a dialect keeps across the items of one run (ctx->state), made from the
     * run's options (NULL: none given); NULL for none. */
    void *(*state_create)(const struct dialect_options *options);
    void (*state_destroy)(void *state);
    /* Whether a reference to `key`, which no job defines, may still name one (Buildkite:
     * a key only known at upload, `${VERSION:-v6}_tests`). NULL: never. */
    bool (*key_may_exist)(void *state, const char *key, size_t len);

    /* The options the dialect takes (ended by a NULL name; NULL: none). Each is recorded
     * (dialect_options_value); one without choices is also given to `option`, with the
     * dialect's own part of the options (options_size bytes, zeroed at first), which
     * `options_free` releases. `option` returns 0, or DIAG_INPUT (the usage exit code)
     * after it said what is wrong (through io->usage, or as messages in io->format). */
    const struct dialect_option *options;
    size_t options_size;
    int (*option)(void *own, const struct dialect_option *opt, const char *arg,
                  const struct dialect_option_io *io);
    void (*options_free)(void *own);
    /* The expression contexts the dialect's options give, or NULL (options_contexts). */
    const struct expr_value *(*contexts)(const void *own);

    /* Which of the inputs land in one build (keys are unique per build), for a run with
     * files a directory stands for (`walked`, every file of the walk, these inputs or
     * not): build[i] is set to a number that the files of one build share (it is 0 for
     * all, the files named on the command line being one build, when called). NULL:
     * the inputs are one build. 0, or -1 when out of memory. */
    int (*builds)(struct source *const *sources, const char *const *paths, size_t n,
                  const struct strset *walked, unsigned *build, struct diag *d);

    /* Why a file of the dialect's tooling that is none of its inputs is left out of a
     * run's files (vLLM's pipeline-generator config), told by the top-level keys of its
     * first document (`probe`, at its end), or NULL when it is no such file. The entry is
     * NULL in a dialect that has no such files. */
    const char *(*not_input)(const struct dialect_probe *probe);

    /* Whether the document an input begins with is in this dialect, told by `item` and
     * what `probe` says was read before it (the first item that tells wins; every item
     * is shown to every dialect in table order until one says so). */
    bool (*detect)(const struct stream_item *item, const struct dialect_probe *probe);
    /* Whether an input whose YAML breaks before any item told (`detect`) is in this
     * dialect all the same, told by what `probe` read before the break: its reader then
     * says what is wrong in the dialect's own terms, not the first dialect's. NULL: no
     * such tell. */
    bool (*leans)(const struct dialect_probe *probe);
    /* Calls `fn` for every job of an expanded item, in order (group containers are not
     * jobs). Returns the number of jobs, or -1 when `fn` failed. `fn` may be NULL. */
    long (*each_job)(const struct ynode *items, dialect_job_fn fn, void *user);
    /* Calls `fn` for every text of a rendered job that can carry a test runner's flags
     * (commands, scripts, environment values), in order. 0, or what `fn` returned. */
    int (*each_text)(const struct ynode *job, dialect_text_fn fn, void *user);
};

extern const struct dialect dialect_buildkite, dialect_testarea, dialect_rayci, dialect_gha;

/* A `builds` entry: the walked files of one directory are one build, each directory
 * another (ray's rayci reads one directory's files per run: raycicmd listCIYamlFiles). */
int dialect_builds_by_directory(struct source *const *sources, const char *const *paths, size_t n,
                                const struct strset *walked, unsigned *build, struct diag *d);

/* What the dialects whose rendering is a Buildkite pipeline share with the Buildkite
 * dialect (test-area files render into Buildkite steps): the step layout, Buildkite's
 * default limits (docs: platform/limits), and whether Buildkite documents a key of a
 * command step. */
extern const struct emit_layout dialect_buildkite_layout;
#define DIALECT_BUILDKITE_JOBS_PER_UPLOAD 500
#define DIALECT_BUILDKITE_JOBS_PER_BUILD 4000
bool dialect_buildkite_command_key(const char *key, size_t len);
/* The Buildkite dialect's entries over Buildkite steps (dialect_buildkite's), which the
 * dialects whose rendering is Buildkite steps (test-area and rayci files) name as theirs;
 * expand_checked expands steps whose keys the dialect that made them checked
 * (dialect_ctx.keys_checked: no unknown-key warnings). */
int dialect_buildkite_expand_checked(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *steps);
int dialect_buildkite_edges(const struct ynode *steps, dialect_edge_fn fn, void *user, bool *local_cycle);
int dialect_buildkite_normalize(struct ynode_doc *doc, struct ynode *steps);
int dialect_buildkite_references(const struct ynode *steps, struct diag *d, const char *const *files,
                                 dialect_visit_fn visit, void *user);
int dialect_buildkite_rewrite(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *steps,
                              dialect_shards_fn shards_of, void *user);
long dialect_buildkite_each_job(const struct ynode *steps, dialect_job_fn fn, void *user);
int dialect_buildkite_each_text(const struct ynode *job, dialect_text_fn fn, void *user);
/* What a dialect whose rendering is Buildkite steps says of its jobs, and its entries
 * over them (Buildkite's), in its struct dialect's initializer; `expand` is left to each
 * (Buildkite's own, or dialect_buildkite_expand_checked). */
#define DIALECT_BUILDKITE_STEPS                                                                                        \
    .layout = &dialect_buildkite_layout, .rendered_schema = "buildkite-rendered", .platform = "Buildkite",             \
    .job_noun = "step", .key_noun = "key", .fanout_field = "parallelism", .fanout_jobs = "shards",                     \
    .reference_field = "depends_on", .keys_per_file = false, .bad_reference = {RULE_DANGLING_DEPENDS_ON, false},       \
    .max_jobs_per_document = DIALECT_BUILDKITE_JOBS_PER_UPLOAD, .max_jobs_total = DIALECT_BUILDKITE_JOBS_PER_BUILD,    \
    .edges = dialect_buildkite_edges, .normalize = dialect_buildkite_normalize,                                        \
    .references = dialect_buildkite_references, .rewrite = dialect_buildkite_rewrite,                                  \
    .each_job = dialect_buildkite_each_job, .each_text = dialect_buildkite_each_text,                                  \
    .shard_index_variable = "BUILDKITE_PARALLEL_JOB", .shard_count_variable = "BUILDKITE_PARALLEL_JOB_COUNT",          \
    .diff = &dialect_buildkite_diff
/* How diff compares Buildkite steps, also as test-area files render them (a rendering
 * read back is a Buildkite pipeline, whose mirrors keep the test-area rule). */
extern const struct dialect_diff dialect_buildkite_diff;
/* How a test-area AMD mirror is named after the step it mirrors. */
extern const struct dialect_derived dialect_testarea_mirror;

/* By name ("buildkite", "testarea", "rayci", "gha"); NULL for any other. */
const struct dialect *dialect_find(const char *name);
/* Every dialect in turn (as detection tries them): the i-th, NULL past the last. */
const struct dialect *dialect_at(size_t i);

/* The reader of dialects whose input documents are their files' own (Buildkite, GitHub
 * Actions): each file's items in turn, read with the input's shape, each shown to
 * `observe` (when set) as read. For the `open`, `next` and `close` entries. */
struct dialect_reader *dialect_files_open(const struct dialect_input *in,
                                          dialect_observe_fn observe, void *user);
int dialect_files_next(struct dialect_reader *r, struct stream_item *item);
void dialect_files_close(struct dialect_reader *r);

/* For the `each_text` entries: a scalar, or the scalars among a list's items or a
 * mapping's values. */
int dialect_each_text(const struct ynode *n, dialect_text_fn fn, void *user);

/* What tells the job from its siblings: its `label`, else for a matrix configuration
 * its values, "part 2" for one, else "os=linux arch=arm64" (into buf, cut to fit), else
 * NULL. Made only for the reader that shows it (diff): a label of every configuration
 * was 1.3% of a matrix workflow's render. */
const char *dialect_job_label(const struct dialect_job *job, char *buf, size_t cap);

/* The index of a fanned-out job's key or id `<base>-<index>` (NUL-terminated after
 * `len`), and the length of <base> in *base; -1 when it has no such suffix. */
long dialect_key_index(const char *id, size_t len, size_t *base);
/* Its inverse: `<id>-<index>` into out (cut to cap - 1 bytes, NUL-terminated); its
 * length. */
size_t dialect_key_name(char *out, size_t cap, const char *id, size_t len, unsigned long index);

/* What detection has read of a document before the item it shows a dialect: the input's
 * path, its first top-level keys (up to DIALECT_PROBE_KEYS of them) and how many items. */
#define DIALECT_PROBE_KEYS 64
const char *dialect_probe_path(const struct dialect_probe *probe);
bool dialect_probe_has_key(const struct dialect_probe *probe, const char *key);
size_t dialect_probe_items(const struct dialect_probe *probe);
/* Whether the probe has read anything (a top-level key or an item). */
bool dialect_probe_read(const struct dialect_probe *probe);

enum dialect_verdict {
    DIALECT_FOUND,  /* *found is the input's dialect */
    DIALECT_SILENT, /* nothing tells (empty, comments, a bare ---; YAML errors before, no dialect leans) */
    DIALECT_NONE,   /* it holds something no dialect takes */
    DIALECT_SKIP,   /* a file of a dialect's tooling that is no input (its `not_input`) */
};

/* The dialect of `src`'s first document, which the dialects' `detect` entries tell (a
 * workflow's top-level `jobs`, a test-area file's `group` and test-area steps, a
 * Buildkite pipeline's steps). Reads the input from its start with `d` muted: problems
 * are for the real read to report. */
enum dialect_verdict dialect_detect(struct source *src, const struct dialect **found, struct diag *d);

/* What detection read of an input, kept for the dialect it found: its stream, stopped at
 * the items' container, and the items it gave. dialect_files_next reads on from it, so
 * the input's head is parsed once (it was a fifteenth of rendering SGLang's workflows).
 * Kept only when nothing went wrong and the dialect's shape gives the same items. */
struct dialect_head;
/* Frees *head (its stream's source is read again from its start then) and sets it NULL. */
void dialect_head_drop(struct dialect_head **head);
/* At most this many inputs' heads are held at once (each holds its parser and buffer). */
#define DIALECT_HEADS_HELD 32

/* The dialect of an input that tells none (Buildkite's). */
const struct dialect *dialect_default(void);

/* dialect_detect on the file at `path`; DIALECT_NONE when it cannot be read, or is in no
 * dialect: both reported; DIALECT_SKIP (a note says why) for a file a dialect's tooling
 * reads that is no input of it (vLLM's generator config). */
enum dialect_verdict dialect_detect_path(const char *path, const struct dialect **found, struct diag *d);
/* dialect_detect_path on `src`, opened, read as input `file`; what it read kept in *head
 * when it can (NULL else; `head` NULL: nothing kept). */
enum dialect_verdict dialect_detect_source(struct source *src, unsigned file, const struct dialect **found,
                                           struct dialect_head **head, struct diag *d);

/* A file detection kept for its rendering to read on from (render_run_opened): opened,
 * its dialect, and what detection read of it (NULL: nothing kept, read from the start). */
struct dialect_kept {
    struct source *source; /* NULL: nothing kept */
    const struct dialect *dialect;
    struct dialect_head *head;
};
/* Closes what `k` keeps (if anything) and empties it. */
void dialect_kept_drop(struct dialect_kept *k);

/* Whether the file at `path` is one a dialect's tooling reads that is no input of it (its
 * `not_input`: vLLM's generator config), whatever dialect the run is in; a note says so.
 * false when it is no regular file (a pipe is read once: by the run) or cannot be read.
 * With `keep` (NULL: nothing kept), a file kept whose dialect was found is kept there
 * (dialect_kept_drop), so that it is not detected again. */
bool dialect_left_out(const char *path, struct diag *d, struct dialect_kept *keep);

/* Says that `src` is in no dialect (DIALECT_NONE), and what it may be. */
void dialect_report_none(struct source *src, struct diag *d);

/* The one dialect of inputs read together: each input's that tells (the first input
 * that tells gives it; one that holds nothing takes it; none at all: Buildkite). NULL
 * after an error, reported (at an input no dialect takes, or naming two inputs whose
 * dialects differ). With `heads` (NULL: none kept), what it read of the first
 * DIALECT_HEADS_HELD inputs is kept in heads[0..n) (dialect_head). */
const struct dialect *dialect_detect_all(struct source *const *srcs, size_t n, struct dialect_head **heads,
                                         struct diag *d);

#endif
