/* cmd: the commands of `fanout`. Each lives in its own file (src/cmd/cmd_<name>.c) as one
 * entry of the table in cli.c: its name, synopsis, help, the table of the options it
 * takes (src/cmd/options.h) and the function that runs it. */
#ifndef FANOUT_CMD_H
#define FANOUT_CMD_H

#include <stdbool.h>

#include "fanout/change.h"
#include "fanout/diag.h"
#include "fanout/pipediff.h"
#include "fanout/render.h"
#include "fanout/shardplan.h"

#define CMD_EXIT_USAGE 2

struct config;
struct opt;

/* What the options said. */
struct cli {
    struct render_opts render;
    struct dialect_limits limits; /* the config's (render.limits points here) */
    enum diag_format errors;
    int format;              /* index into the command's `formats` (0: its default) */
    const char *schema, *rendered, *config; /* config: --config, else the one found */
    const char *base_ref;                   /* diff --base: BASE is this git revision */
    const struct config *cfg;               /* that config, read (NULL: none) */
    bool config_given;                      /* --config was given */
    bool write;
    struct shardflags *shards;   /* the runners' shard flags: built in, and the config's */
    struct assign_opts assign;   /* shards assign and plan */
    /* what the dialects' options said (render.dialect_options), and how often each was
     * given (a per-side one twice by diff: BASE's, then HEAD's) */
    struct dialect_options *dialect_options;
    unsigned dialect_given[DIALECT_MAX_OPTIONS];
    struct diag_policy policy;   /* -q, --ignore, --color, --no-snippet, the config's severities */
    struct pd_opts diff;         /* --format, --ignore-field, --exit-zero */
    /* what the repeatable options collected (policy.levels, render.known_keys and
     * diff.ignore_fields point into these) */
    struct diag_rule_level *levels;
    int color;                   /* --color: 0 auto, 1 always, 2 never */
    bool no_snippet;
    const char **known_keys, **ignore_fields;
    size_t n_levels, n_known_keys, n_ignore_fields;
    char **not_inputs;           /* the config's committed renderings (render.not_inputs) */
    size_t n_not_inputs;
    char **config_paths;         /* the config's path values, from its directory (config.c) */
    size_t n_config_paths;
    /* --changed FILE, --changed-from REF (read when the command runs), --explain, and
     * what --build gave, collected in `change` (render.change once files are read) */
    const char *changed, *changed_from;
    bool explain;
    struct change *change;
};

struct cmd_entry {
    const char *name;
    const char *synopsis;            /* after "fanout " */
    const char *help;                /* what it does and its own options */
    const struct opt *const *options; /* the options it takes, in --help order (NULL-terminated) */
    const char *const *formats;      /* what --format takes (NULL-terminated), first the default */
    int min_operands, max_operands;  /* max -1: any number */
    unsigned sides;                  /* renderings it compares (diff: 2); 0 as 1 */
    const char *operands;            /* what they are, when their count is fixed */
    int (*exec)(struct cli *c, char **operands, int n, struct diag *d);
};

extern const struct cmd_entry cmd_render_entry, cmd_validate_entry, cmd_check_entry,
    cmd_diff_entry, cmd_expr_entry, cmd_jobs_entry, cmd_shards_check_entry, cmd_shards_assign_entry,
    cmd_shards_plan_entry;

/* Colour for a person at the terminal `fd` who did not ask for none: NO_COLOR set and
 * not empty (no-color.org; an empty one asks for nothing). */
bool cmd_color_at(int fd);

/* `fanout: error: <what> <arg>` and a pointer to the help; returns CMD_EXIT_USAGE. */
int cmd_usage_error(const char *what, const char *arg);

/* The findings of the inputs, from a render that writes nothing: only `rule`'s (input
 * errors are always kept), or all when `rule` is NULL. For validate and `shards check`. */
int cmd_lint(struct cli *c, const char *const *paths, size_t n, struct diag *d, enum rule_id rule);

/* shards assign and plan: the inputs and counts they need, and no option that would not
 * apply, or a usage error (2). `times_shown`: the report shows each shard's time (the
 * overhead applies to it, as to a budget). */
int cmd_shards_usage(const struct cli *c, bool count_needed, bool times_shown);

/* Runs `fn` on the operands as files (directories expanded; none: stdin). */
int cmd_on_inputs(struct cli *c, char **operands, int n, struct diag *d,
                  int (*fn)(struct cli *c, const char *const *paths, size_t n, struct diag *d));

/* Runs `fn` on the files of each dialect in turn (c->render.dialect set to it: each
 * file is told its own; a file in no dialect is reported and the others still read), in
 * the order of each dialect's first file, so that `validate .` or `jobs .` at a
 * repository's root reads its Buildkite pipelines and its workflows alike. The highest
 * exit code. */
int cmd_by_dialect(struct cli *c, const char *const *paths, size_t n, struct diag *d,
                   int (*fn)(struct cli *c, const char *const *paths, size_t n, struct diag *d, void *user),
                   void *user);

#endif
