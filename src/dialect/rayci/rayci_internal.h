/* rayci_internal: what the rayci dialect's files share: the reader of a file and its
 * group (rayci.c), the config the conversion follows (rayci_config.c: a builtin, ray-pr by
 * default, or a config file), the conversion of one step (convert.c, rayci's
 * converter) and the `array` expansion with its depends_on selectors (array.c). Each cites ray-project/rayci's raycicmd at commit 52b3334 (docs/rayci.md). */
#ifndef FANOUT_RAYCI_INTERNAL_H
#define FANOUT_RAYCI_INTERNAL_H

#include <stdbool.h>

#include "fanout/diag.h"
#include "fanout/dialect.h"
#include "fanout/strset.h"
#include "fanout/ynode.h"

/* ---- rayci_config.c: config.go's config, the fields a rendering depends on ---- */

struct rc_pair {
    const char *name, *value;
};

struct rc_config {
    const char *name;         /* the builtin's name, or the file as given */
    struct ynode_doc *doc;    /* the config as read: every string points into it */
    const char *artifacts_bucket, *ci_temp, *ci_work_repo, *forge_prefix; /* "" when not set */
    /* sorted by name, ended by a NULL name (rc_pairs_find) */
    struct rc_pair *runner_queues, *builder_queues, *env;
    long long builder_priority, runner_priority, max_parallelism; /* 0: none */
    const char **build_env_keys, **hook_env_keys, **skip_tags;    /* NULL-terminated */
    /* allow_concurrency_group_prefixes: NULL (nil) allows every group, an empty list none */
    const char **concurrency_prefixes;
    bool allow_trigger_step;
    /* docker_plugin: mount_buildkite_agent / mount_ssh_agent honoured, the work dir
     * ("": /ray) and the capabilities (NULL: rayci's three) */
    bool allow_mount_buildkite_agent, allow_mount_ssh_agent;
    const char *work_dir;
    const char **add_caps;
};

/* The builtin config `name` (ray-pr, ray-branch, ray-pr-microcheck), or NULL (not one,
 * or out of memory, reported in `d`). */
struct rc_config *rc_config_builtin(const char *name, struct diag *d);
/* The i-th builtin's name, NULL past the last. */
const char *rc_config_builtin_name(size_t i);
/* --rayci-config's argument: a builtin's name, else a config file, read as
 * loadConfigFromFile reads it. NULL after messages in `d` (file:line:col). */
struct rc_config *rc_config_load(const char *arg, struct diag *d);
void rc_config_destroy(struct rc_config *c);
/* The value of `name[0..len)` in a sorted pair list, or NULL. */
const char *rc_pairs_find(const struct rc_pair *pairs, const char *name, size_t len);

/* The dialect's options (--rayci-config) and what they say. */
struct rc_options {
    struct rc_config *config; /* NULL: not given */
};
extern const struct dialect_option rc_option_table[];
int rc_option(void *own, const struct dialect_option *opt, const char *arg, const struct dialect_option_io *io);
void rc_options_free(void *own);

struct rayci {
    struct diag *diag;
    const struct rc_config *config; /* what the conversion follows */
    bool config_given;              /* by --rayci-config: an unknown instance type is an error */
    const char *const *files;
    /* What a rayci run knows is its build's (a directory's files: listCIYamlFiles), so
     * these are the build's of the file being read (rayci.c build_enter): */
    unsigned build; /* its number (dialect_input.builds; 0: the one build) */
    /* the step and group keys of its files read so far: rayci's buildIndex refuses a
     * key twice across one run's files */
    struct strset *keys;
    struct strset *rejected; /* the keys of its steps left out so far (mark_rejected) */
    bool failed; /* a finding was reported in the file being read */
    /* the array steps of every file read so far, each with its build: rc_arrays_*
     * find only r->build's */
    struct rc_arrays *arrays;
};

#define RC_SHORT(len) ((int)((len) > 80 ? 80 : (len)))

/* A finding `rule` at `at` (an error rayci stops at); sets r->failed. Returns -1. */
int rc_error(struct rayci *r, const struct ynode *at, enum rule_id rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A string scalar's text (NULL for anything else: Go's `.(string)` of a YAML value). */
const char *rc_string(const struct ynode *v, size_t *len);

/* stepKey (converter.go): a step's `name`, else its `key`, when a string; NULL. */
const char *rc_step_key(const struct ynode *step, size_t *len);

/* Whether `s[0..len)` is one of the NULL-terminated `list`. */
bool rc_word_in(const char *const *list, const char *s, size_t len);

/* Whether the string list `list` (toStringList: a string, or the strings of a list)
 * holds `s`. */
bool rc_list_has(const struct ynode *list, const char *s);

/* ---- convert.c: one step as converter.go's convertStep makes it ---- */

/* The Buildkite step rayci makes of `step` (its array expanded, its `depends_on`
 * resolved), in `doc`, as r->config says; `id` is rayci's step id (g<group>_s<step>),
 * `job_env` the group's default_job_env (NULL: forge). NULL after a finding, or when out of memory
 * (*oom set). */
struct ynode *rc_convert_step(struct rayci *r, struct ynode_doc *doc, const struct ynode *step, const char *id,
                              const char *job_env, bool *oom);

/* Whether `tags` (a step's or a group's) holds one of the config's skip tags. */
bool rc_skip_tagged(const struct rayci *r, const struct ynode *tags);

/* ---- array.c: array_expand.go, array_config.go, array_depends.go ---- */

struct rc_arrays;

struct rc_arrays *rc_arrays_create(void);
void rc_arrays_destroy(struct rc_arrays *a);

/* The steps of `steps` (a sequence in `doc`) with each `array` step replaced by one
 * step per element, its `{{array.x}}` placeholders filled and its key made, its
 * arrays recorded in `a`. 0, or -1 after a finding (or out of memory). */
int rc_arrays_expand(struct rayci *r, struct rc_arrays *a, struct ynode_doc *doc, struct ynode *steps);

/* Each step's `depends_on` of `steps` (as expanded) resolved into the list of keys
 * rayci writes (selectors `x($)`, `x(*)`, `x(k=v)` on array steps), set on the step
 * when not empty; and the group's `depends_on` (a list, may be NULL) likewise into
 * *group_deps (NULL when it has none). 0, or -1 after a finding. */
int rc_arrays_resolve(struct rayci *r, const struct rc_arrays *a, struct ynode_doc *doc, struct ynode *steps,
                      const struct ynode *group_deps, struct ynode **resolved_group_deps);

#endif
