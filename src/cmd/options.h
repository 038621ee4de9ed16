/* options: a command's options as a table, parsed by one table-driven parser (options.c),
 * the options commands share (common.c) and the config's defaults applied to them
 * (config.c). Each command lists the options it takes, in --help order, in its own
 * cmd_<name>.c; an entry says how the option is written, what it takes, its help and
 * where its value goes. Private to src/cmd. */
#ifndef FANOUT_CMD_OPTIONS_H
#define FANOUT_CMD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fanout/cmd.h"
#include "fanout/config.h"
#include "fanout/dialect.h"

enum opt_kind {
    OPT_SET,      /* a switch: the bool at `offset` of the destination becomes `value` */
    OPT_STRING,   /* the value, as given, into the const char * at `offset` (value 1: it may be empty) */
    OPT_CALL,     /* the value (NULL for a switch) handed to `call` */
    OPT_DIALECTS, /* stands for the dialects' options of scope `value` (enum
                     dialect_option_scope), each handed to `call` */
};

struct opt;

/* Where an option's value goes: the destination (struct cli for fanout's commands), the
 * caller's context (the command) and the option. */
struct opt_hit {
    void *dest;
    const void *user;
    const struct opt *opt;
};

/* 0, or the usage exit code after saying what is wrong (cmd_usage_error). */
typedef int (*opt_fn)(const struct opt_hit *hit, const char *arg);

struct opt {
    enum opt_kind kind;
    const char *name; /* --NAME (and NAME, `_` for `-`, in the config's defaults) */
    char short_name;  /* -C, or 0 */
    bool has_arg;     /* it takes a value (OPT_STRING always, OPT_SET never) */
    enum option_path path; /* a file's path (from the config: from its directory) */
    size_t offset;
    int value;
    opt_fn call;
    /* Its lines in --help; NULL: the command's own help text says it (or, --format, the
     * command's formats). */
    const char *help;
    void (*print_help)(FILE *out); /* when set, the help made at run time */
    /* In an opt_list, a dialect's option (value: its position in dialect_option_at's
     * order); else NULL. */
    const struct dialect_option *dialect;
};

/* A command's options, those of OPT_DIALECTS expanded: each dialect option after the
 * option its help follows, one that follows an option the command does not take where
 * OPT_DIALECTS is, and one that follows none at the end. */
#define OPT_MAX 96
#define OPT_SLOTS 256 /* a power of two, over twice OPT_MAX */
struct opt_list {
    struct opt items[OPT_MAX];
    size_t n;
    unsigned char slots[OPT_SLOTS]; /* items by name's hash: 1 + its index, 0 empty */
};

/* An empty list. */
void opt_list_clear(struct opt_list *l);

/* Adds the options of `table` (NULL-terminated) that `l` does not hold by name. 0, or -1
 * when they do not fit, or the dialects declare more than DIALECT_MAX_OPTIONS. */
int opt_list_add(struct opt_list *l, const struct opt *const *table);

/* The option named `name` (long), or NULL. */
const struct opt *opt_find(const struct opt_list *l, const char *name);

/* The long names of `l` but `except`'s, NULL-terminated: what a mistyped name is compared
 * with. `names` holds OPT_MAX + 1. */
void opt_names(const struct opt_list *l, const struct opt *except, const char **names);

/* Every help text of `l`, in order. */
void opt_help(const struct opt_list *l, FILE *out);

/* `o` given with `arg` (NULL for a switch). 0, or the usage exit code. */
int opt_apply(const struct opt *o, void *dest, const void *user, const char *arg);

#define OPT_HELP (-1)

/* Parses argv[1..argc-1], options anywhere before `--`, into `dest`: the options of
 * `own`; one `known` holds but `own` does not is "unknown for this command". 0 with the
 * operands moved to argv[*operands..], OPT_HELP for -h/--help, or the usage exit code
 * after the message (it names `command`). */
int opt_parse(const struct opt_list *own, const struct opt_list *known, const char *command, void *dest,
              const void *user, int argc, char **argv, int *operands);

/* ---- the options commands share (common.c) ---- */

/* Where an option's value goes in struct cli (`offset`). */
#define CLI_AT(field) offsetof(struct cli, field)

extern const struct opt opt_format, opt_output, opt_upload, opt_strict, opt_dialect, opt_no_validate,
    opt_validate, opt_config, opt_error_format, opt_quiet, opt_ignore, opt_known_key, opt_color,
    opt_no_snippet, opt_dialects_render, opt_dialects_validate, opt_dialects_expressions;

/* The change a rendering is for (--changed, --changed-from, --build, --explain). */
extern const struct opt opt_changed, opt_changed_from, opt_build, opt_explain;
#define CMD_CHANGE_OPTIONS &opt_changed, &opt_changed_from, &opt_build, &opt_explain

/* The files --changed or --changed-from names read into the change (render.change). 0,
 * or the exit code after the message. */
int cmd_read_change(struct cli *c, struct diag *d);

/* What shards assign and shards plan take (cmd_shards_assign.c). */
extern const struct opt opt_tests, opt_durations, opt_suite, opt_shards, opt_nodeid_prefix, opt_overhead,
    opt_budget;

/* What every command that prints messages takes. */
#define CMD_MESSAGE_OPTIONS &opt_error_format, &opt_quiet, &opt_ignore, &opt_color, &opt_no_snippet

/* What the commands that render (render, check, diff, shards check) take, before their
 * --config and after it. */
#define CMD_RENDER_OPTIONS \
    &opt_upload, &opt_strict, &opt_dialect, &opt_validate, &opt_no_validate, &opt_dialects_render
#define CMD_RENDER_MESSAGE_OPTIONS \
    &opt_error_format, &opt_quiet, &opt_ignore, &opt_known_key, &opt_color, &opt_no_snippet

/* "unknown --format (text, json or markdown): xml"; the usage exit code. */
int cmd_unknown_choice(const char *option, const char *const *names, const char *arg);

/* Appends `word` to a growing list. 0, or the usage exit code when out of memory. */
int cmd_append_word(const char ***list, size_t *n, const char *word);

/* RULE's level (--ignore, the config's `rules`; `what` says which): a later word wins.
 * 0, or the usage exit code. */
int cmd_rule_level(struct cli *c, const char *name, enum diag_level level, const char *what);

/* The command the usage errors are of ("Try 'fanout NAME --help'"; NULL: none yet). */
void cmd_usage_of(const char *command);

/* Usage errors kept in `buf` instead of printed (NULL: printed again), while the config's
 * defaults are parsed: they are reported at the config's line. */
void cmd_usage_hold(char *buf, size_t size);

/* ---- the config's defaults applied (config.c) ---- */

/* --config's value in argv, or NULL: looked for before the options are parsed (the
 * config's defaults come first, the command line over them). */
const char *config_given(int argc, char **argv);

/* The config's defaults for the command whose options are `own`, as if given as options
 * (a list value is the option repeated; `false` turns a switch off), then its rule
 * levels and known keys. 0, or the usage exit code after the message. */
int config_apply(struct cli *c, const struct cmd_entry *cmd, const struct opt_list *own,
                 const struct config *cfg, struct diag *d);

/* The runners' shard flags into c->shards: built in, plus the config's `shards` list
 * (cfg may be NULL). 0, or the usage exit code. */
int config_shard_rules(struct cli *c, const struct config *cfg, struct diag *d);

#endif
