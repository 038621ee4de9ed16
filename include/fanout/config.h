/* config: the run's `.fanout.yml`: --config FILE, else the first `.fanout.yml` from the
 * current directory up to the repository root (the first directory holding `.git`).
 * Read once and checked here: its top-level keys (checks, shards, rules, known_keys,
 * defaults; anything else is an error with a suggestion), the rule levels and the
 * command names of `defaults`. The sections go to their users: `checks` to check,
 * `shards` to shardflags, `defaults.<command>` to the option parser. */
#ifndef FANOUT_CONFIG_H
#define FANOUT_CONFIG_H

#include "fanout/diag.h"
#include "fanout/ynode.h"

struct config;

/* 0 with *out set (NULL when there is no config), or 2 after reporting an error. */
int config_load(const char *given, struct diag *d, struct config **out);
void config_destroy(struct config *c);

const char *config_path(const struct config *c);
const struct ynode *config_root(const struct config *c);

/* A top-level section ("checks", "shards", "rules", "known_keys"), or NULL. */
const struct ynode *config_section(const struct config *c, const char *key);

/* The options `defaults` gives `command` ("render", "shards check"...): a mapping of
 * option name (as the long option, `_` for `-`) to value, or NULL. */
const struct ynode *config_defaults(const struct config *c, const char *command);

/* Reports a problem at a node of the config (rule `config`); returns 2. */
int config_error(const struct config *c, struct diag *d, const struct ynode *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
