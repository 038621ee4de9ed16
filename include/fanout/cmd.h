/* cmd: the commands of `fanout`. Each lives in its own file (src/cmd/cmd_<name>.c) as one
 * entry of the table in cli.c: its name, synopsis, help, the options it takes and the
 * function that runs it. cli.c parses the options every command shares into struct cli. */
#ifndef FANOUT_CMD_H
#define FANOUT_CMD_H

#include <stdbool.h>

#include "fanout/diag.h"
#include "fanout/pipediff.h"
#include "fanout/render.h"
#include "fanout/shardplan.h"

#define CMD_EXIT_USAGE 2

/* Options by id (short options are their letter). */
enum cmd_option {
    OPT_END = 0,
    OPT_FORMAT = 'f',
    OPT_OUTPUT = 'o',
    OPT_UPLOAD = 256,
    OPT_STRICT,
    OPT_ERROR_FORMAT,
    OPT_DIALECT,
    OPT_NO_VALIDATE,
    OPT_VALIDATE,
    OPT_SCHEMA,
    OPT_RENDERED,
    OPT_CONFIG,
    OPT_WRITE,
    OPT_TESTS,
    OPT_DURATIONS,
    OPT_SUITE,
    OPT_ALGO,
    OPT_COUNT = 'n',
    OPT_NODEID_PREFIX = 300,
    OPT_OVERHEAD,
    OPT_BUDGET,
    OPT_QUIET = 'q',
    OPT_IGNORE = 400,
    OPT_KNOWN_KEY,
    OPT_COLOR,
    OPT_NO_SNIPPET,
    OPT_IGNORE_FIELD,
    OPT_EXIT_ZERO,
    /* In a command's list: it takes the dialects' options for rendering, for evaluating
     * expressions (dialect.h, enum dialect_option_scope). */
    OPT_DIALECT_RENDER = 500,
    OPT_DIALECT_EXPRESSIONS,
    /* The dialects' options: this plus their position in dialect_option_at's order. */
    OPT_DIALECT_FIRST = 1000,
};

struct config;

/* What the options said. */
struct cli {
    struct render_opts render;
    enum diag_format errors;
    int format;              /* index into the command's `formats` (0: its default) */
    const char *schema, *rendered, *config; /* config: --config, else the one found */
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
};

struct cmd_entry {
    const char *name;
    const char *synopsis;            /* after "fanout " */
    const char *help;                /* what it does and its own options */
    const enum cmd_option *options;  /* the options it takes, OPT_END-terminated */
    const char *const *formats;      /* what --format takes (NULL-terminated), first the default */
    int min_operands, max_operands;  /* max -1: any number */
    unsigned sides;                  /* renderings it compares (diff: 2); 0 as 1 */
    const char *operands;            /* what they are, when their count is fixed */
    int (*exec)(struct cli *c, char **operands, int n, struct diag *d);
};

extern const struct cmd_entry cmd_render_entry, cmd_validate_entry, cmd_check_entry,
    cmd_diff_entry, cmd_expr_entry, cmd_shards_check_entry, cmd_shards_assign_entry,
    cmd_shards_plan_entry;

/* The options of every command that prints messages, for their tables. */
#define CMD_MESSAGE_OPTIONS OPT_ERROR_FORMAT, OPT_QUIET, OPT_IGNORE, OPT_COLOR, OPT_NO_SNIPPET

/* The options render, check and diff share (OPT_END-terminated), for their tables. */
#define CMD_RENDER_OPTIONS                                                                       \
    OPT_UPLOAD, OPT_STRICT, OPT_DIALECT, OPT_NO_VALIDATE, OPT_VALIDATE, OPT_KNOWN_KEY,           \
        OPT_DIALECT_RENDER, CMD_MESSAGE_OPTIONS

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

#endif
