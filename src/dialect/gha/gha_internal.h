/* gha_internal: what the GitHub dialect's files share: a job being expanded, how it
 * reports, and each file's entries for the others (gha.c expands a job, substitute.c
 * folds its contexts, calls.c inlines a reusable workflow's jobs, needs.c reads and
 * rewrites `needs`, references.c checks what a job's expressions read, options.c gives
 * the run's contexts). */
#ifndef FANOUT_GHA_INTERNAL_H
#define FANOUT_GHA_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "fanout/dialect.h"
#include "fanout/expr.h"
#include "fanout/ynode.h"

#include "matrix.h"

struct change;

#define GHA_NAME_MAX 100 /* JobNameBuilder cuts longer names to 97 chars and "..." */
#define GHA_CALL_DEPTH 10 /* GitHub: up to ten levels of reusable workflows */
#define GHA_CALL_JOBS 1000 /* jobs one call may become, nested calls included */

/* One job being expanded (a job of the input, or of a workflow it calls). */
struct job {
    const struct dialect_ctx *ctx;
    const struct expr_value *known; /* the run's known contexts (the options'), or NULL */
    struct ynode_doc *doc;
    struct expr_contexts *contexts; /* the job's: the run's known contexts, matrix, strategy */
    int failed;                     /* an input error was reported */
    bool name_unknown;              /* substitution left the job's name with an unknown ${{ }} */
    unsigned depth;                 /* of reusable-workflow calls */
    long calling[GHA_CALL_DEPTH];   /* the files of the calls this job is inside */
    unsigned *budget;               /* jobs the outermost call may still become */
    size_t *copied;                 /* nodes copied for the outermost job's configurations */
    struct gha_shared *shared;      /* a matrix job's substitutions its configurations share */
};

/* A job's `strategy.matrix`: as written (NULL: none, GitHub's `matrix` is null) and,
 * when `known`, its configurations (`explicit`: one written out, as a rendering has it). */
struct gha_matrix {
    const struct ynode *written;
    bool known, explicit;
    struct matrix rows;
};

/* ---- gha.c: reporting, and a job expanded (a called workflow's jobs are too) ---- */

/* A message at `p` about the job (an error, of the input's class, fails it). */
void gha_vreport(struct job *j, enum diag_severity sev, struct ypos p, enum rule_id rule, const char *fmt,
                 va_list ap) __attribute__((format(printf, 5, 0)));
void gha_error_at(struct job *j, const struct ynode *at, enum rule_id rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void gha_warn_at(struct job *j, const struct ynode *at, enum rule_id rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void gha_out_of_memory(struct job *j, const struct ynode *at);
/* Counts `copies` copies of `node` made for the job's configurations (a matrix's, a called
 * workflow's) against the job's and the run's bounds (DIALECT_CONFIG_NODES); 0, or -1 after
 * an error at `at`. */
int gha_copies_charge(struct job *j, const struct ynode *at, const struct ynode *node, size_t copies);

struct matrix_row;
/* The job's display name for a configuration (JobNameBuilder; a name with an expression
 * is evaluated instead, falling back to the generated one when empty), written so that
 * GitHub shows it as it is (gha.c's name_node), or as plain text when `prefix_only` (a
 * matrix call's caller, whose name only begins its called jobs'). `written`: the name as
 * the input has it (`name` of `job` is already substituted). 0, or -1. */
int gha_set_name(struct job *j, struct ynode *job, const struct ynode *written, const struct ynode *id,
                 const struct matrix_row *row, bool prefix_only);

/* The one job of `items` (a one-pair mapping) made explicit: its configurations, or the
 * jobs of the workflow it calls, in its place. 0, or -1 after an error (reported). */
int gha_expand_job(struct job *j, struct ynode *items);

/* ---- substitute.c: contexts, `${{ }}` substitution, step `if:` folding ---- */

/* A message at byte `offset` of the scalar `at`'s text, at its line and column in the
 * input (an error fails the job). */
void gha_report_in_text(struct job *j, enum diag_severity sev, const struct ynode *at, size_t offset,
                        enum rule_id rule, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* An error in an expression, reported at its place in the scalar `at`. */
void gha_expr_error_at(struct job *j, const struct ynode *at, const struct expr_error *e);
bool gha_has_expression(const struct ynode *n);
/* A value as a node of the rendering, which GitHub reads back as that value (null: the
 * empty string `in_field`, else null). */
struct ynode *gha_node_from_value(struct job *j, const struct expr_value *v, bool in_field, struct ypos pos);
/* A field's node whose value is the string s[0..len): a string that reads as `${{ }}` is
 * written as an expression of it (GitHub does not evaluate a value again, but would
 * evaluate the rendering's text, and so would rendering it again). */
struct ynode *gha_string_node(struct job *j, const char *s, size_t len, struct ypos pos);
/* The `strategy` context of job `index` of `total` (0: the one job of a strategy with
 * no configuration, which GitHub gives max-parallel 1). */
struct expr_value *gha_strategy_value(const struct ynode *strategy, size_t index, size_t total);
/* A container's copy (shallow, with its proven mark) for one configuration to change:
 * the others share `n`. NULL when out of memory (reported). */
struct ynode *gha_own_copy(struct job *j, const struct ynode *n);
/* The job's fields and steps substituted with `matrix` and `strategy` (both taken) known
 * besides the contexts gha_job_contexts gave it,
 * its steps' `if:` folded: into `job`, whose fields and steps are copied where they
 * change (gha_own_copy), not changed. 0, or -1 after an error (reported). */
int gha_substitute_job(struct job *j, struct ynode *job, struct expr_value *matrix,
                       struct expr_value *strategy);
/* What substitution made of a matrix job's nodes (a scalar, a field, a step), kept for
 * the configurations after the first: a configuration whose values of the members of
 * `matrix` that a node reads are those of an earlier one gets the node that one got
 * (a node that reads neither `matrix` nor `strategy`: the first one's), so that
 * configurations share it. `matrix`: the configuration's, while substituted. */
struct gha_shared {
    struct gha_shared_slot *slots;
    size_t n, cap;
    struct shared_variant *variants;
    size_t n_variants, cap_variants;
    struct shared_name *names;
    size_t n_names, cap_names;
    const struct expr_value *matrix;
    /* the nodes of the rows' values (gha_node_from_value): the rows hold the same
     * values (the matrix's own), which each configuration's include shows */
    struct shared_value *values;
    size_t n_values, cap_values;
};
void gha_shared_clear(struct gha_shared *s);
/* The job's contexts before its matrix is known: the run's, `matrix` and `strategy` null. */
int gha_job_contexts(struct job *j, const struct ynode *job);
/* `strategy`'s fail-fast and max-parallel substituted with those (gha_job_contexts). */
int gha_substitute_strategy(struct job *j, struct ynode *strategy);
int gha_fold(struct job *j, const struct ynode *n, struct expr_value **value, char **unknown);
/* An `if:` (a scalar) folded with the job's contexts: 1 known true, 0 known false, 2
 * with *residual (malloc'd) what stays to decide at run time, -1 after an error. */
int gha_fold_if(struct job *j, const struct ynode *cond, char **residual);
/* The expression GitHub makes of a job's `if:` scalar `cond` (expr_condition_text: `${{ }}` or
 * bare, text around `${{ }}` a format() string, empty success()), a plain boolean, null
 * or number taken as the literal GitHub makes a string of (`True` is true, `~` empty);
 * malloc'd, NULL with *err set. *base: where it stands in the scalar's text, SIZE_MAX
 * when it is not written there. */
char *gha_condition(const struct ynode *cond, size_t *len, size_t *base, bool *formatted, struct expr_error *err);

/* ---- calls.c: reusable workflows, and the run's state of the calls inlined ---- */

/* What one inlined call became: the ids of its jobs, for `needs: [caller]`. */
struct call {
    unsigned file;
    char *caller;
    char **jobs;
    size_t n;
};

struct gha_state;
/* Each inlined call's record released. */
void gha_calls_clear(struct gha_state *st);
struct call *gha_call_find(struct gha_state *st, unsigned file, const char *caller, size_t len);
/* 1: the calling job of `items` inlined, once per configuration of its matrix `mx`
 * (gha.c's, worked out once for the job); 0: kept as written (a note or warning says
 * why); -1: error. */
int gha_inline_call(struct job *j, struct ynode *items, const struct gha_matrix *mx);

/* The contexts `known` (may be NULL) with `inputs` (taken) in place of theirs; NULL
 * when out of memory. */
struct expr_value *gha_with_inputs(const struct expr_value *known, struct expr_value *inputs);

/* ---- references.c: what a job's expressions read from matrix, inputs, needs, steps ---- */

/* What the workflow being read declares, as far as its `on` was read before its jobs:
 * whether it has the events that give `inputs` and the names each declares (objects of
 * names; NULL: none). `file` is the workflow's, -1 before its `on` is read; `known` is
 * false when a declaration is not a mapping of names. */
struct gha_declared {
    long file;
    bool known, call, dispatch;
    struct expr_value *call_inputs, *dispatch_inputs;
    struct expr_value *inputs; /* the union of both: what `inputs` may hold (NULL when not known) */
};

/* Whether `on` (a name, a list of names or a mapping) names `event`. */
bool gha_on_event(const struct ynode *on, const char *event);
void gha_declared_clear(struct gha_declared *d);
/* The reader's transform: records each workflow's `on` as it is read, and checks the
 * references of the workflow's own keys read after it. */
int gha_declared_item(void *state, struct stream_item *item);
/* Warns about each property of matrix, inputs, needs and steps (and github.event.inputs)
 * that the job's expressions read but no value of the context holds; a note for a matrix
 * key only some configurations define (docs/gha.md, rule unknown-reference). Returns
 * whether an expression of the job names `strategy` (its walk sees every one). */
bool gha_check_references(struct job *j, const struct ynode *id, const struct ynode *job,
                          const struct gha_matrix *mx);

/* ---- gha.c: the run's state ---- */

/* calls.c: called workflows kept as read, for their next call (docs/gha.md): the
 * GHA_CALLEES_KEPT called last, each of a file of at most GHA_CALLEE_KEPT_BYTES, of
 * files of at most GHA_CALLEES_KEPT_BYTES together (pytorch/test-infra's 90 workflows
 * call 40 others, most of a few KB: eight kept read windows_job.yml four times). */
#define GHA_CALLEES_KEPT 64
#define GHA_CALLEE_KEPT_BYTES (1024 * 1024)
#define GHA_CALLEES_KEPT_BYTES (4 * 1024 * 1024)

struct gha_callee {
    long file;
    struct ynode_doc *doc; /* NULL: the slot is free */
    unsigned long used;    /* when last called (gha_state.calls_made) */
    size_t bytes;          /* of its file */
};

struct gha_state {
    struct call *calls; /* calls.c: the jobs each inlined call became */
    size_t n, cap;
    struct gha_callee callees[GHA_CALLEES_KEPT];
    size_t callees_bytes; /* of the files of those kept */
    unsigned long calls_made;
    struct dialect_run_copies copies; /* gha.c: configurations' nodes in the run (gha_copies_charge) */
    struct expr_value *run;  /* a copy of the options' contexts (NULL: none): the run's own,
                                which references in another thread leave alone */
    struct expr_value **files;     /* options.c: by file, a workflow's own (gha_file_contexts) */
    size_t n_files;
    struct gha_declared declared; /* references.c: the workflow being read */
    /* What a workflow's own keys (run-name, env, concurrency) are reported with as they
     * are read: the reader's diag, files and sources (gha_open's). */
    struct dialect_ctx top;
    struct gha_gate *gates; /* changed.c: by file, what runs for the change */
    size_t n_gates;
};

/* ---- needs.c: `needs`, read and rewritten ---- */

size_t gha_needs_len(const struct ynode *needs);
const struct ynode *gha_needs_at(const struct ynode *needs, size_t i);
int gha_normalize(struct ynode_doc *doc, struct ynode *items);
int gha_references(const struct ynode *items, struct diag *d, const char *const *files,
                   dialect_visit_fn visit, void *user);
int gha_edges(const struct ynode *items, dialect_edge_fn fn, void *user, bool *local_cycle);
int gha_rewrite(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *items,
                dialect_shards_fn shards_of, void *user);

/* ---- options.c: the contexts known for the whole run ---- */

/* The dialect's own part of the options: the contexts they give (an object of context
 * name to value; NULL until one is given). */
struct gha_options {
    struct expr_value *contexts;
};

extern const struct dialect_option gha_options[];

/* How a workflow is read: its jobs the items, with GitHub's reader's ways (stream.h). */
extern const struct stream_shape gha_jobs_shape[];
int gha_option(void *own, const struct dialect_option *opt, const char *arg,
               const struct dialect_option_io *io);
void gha_options_free(void *own);
/* The expression contexts the options give (NULL when none). */
const struct expr_value *gha_contexts(const void *own);
/* Each item as read (a dialect_input transform): a workflow's `on` completes the
 * `inputs` the options give with the inputs it declares. 0, or -1 (out of memory). */
int gha_workflow_inputs(void *state, struct stream_item *item);
/* The contexts of the workflow in `file`: the options', `inputs` completed. */
const struct expr_value *gha_file_contexts(const struct gha_state *st, unsigned file);

/* ---- trigger.c, pathsfilter.c, changed.c: what runs for a change (render --changed) ---- */

/* The run's event: github.event_name, github.ref, github.base_ref (NULL: not given). */
struct gha_event {
    const char *name, *ref, *base_ref;
    const char *action; /* github.event.action: the activity type, or NULL */
};
/* Why the event `ev` and change `c` do not trigger a workflow whose `on` is `on`
 * (written into buf), or NULL when they do, or when it cannot be told here. */
const char *gha_trigger_not_run(const struct ynode *on, const struct gha_event *ev, const struct change *c,
                                char *buf, size_t cap);

/* Whether a step uses dorny/paths-filter. */
bool gha_is_paths_filter(const struct ynode *step);
/* The outputs of a paths-filter step for the change: 1 with *outputs set (an object),
 * 0 with *why set when they cannot be known here, -1 when out of memory. */
int gha_paths_filter(const struct ynode *step, const struct change *c, struct expr_value **outputs,
                     const char **why);

/* How a job's if: is parsed (gha.c). */
extern const struct expr_names gha_job_if_names;
/* The reader's transform: a workflow's `on` (`pair`) decides whether the run's event
 * triggers it. 0, or -1 when out of memory. */
int gha_gate_on(struct gha_state *st, const struct ynode *pair, unsigned file, const struct change *c);
/* schedule.c: each cron of `on.schedule` GitHub does not read, a `cron` finding. */
void gha_check_schedule(struct gha_state *st, const struct ynode *on);
/* The job of `items` (as written) decided for the change: 1 when left out (the note
 * said why; `items` emptied), 0 when it runs, -1 after an error. */
int gha_gate_job(struct job *j, struct ynode *items);
/* The jobs of `items` (expanded) no longer wait for jobs left out. */
void gha_gate_prune(struct job *j, struct ynode *items);
void gha_gates_clear(struct gha_state *st);

#endif
