/* rayci_internal: what the rayci dialect's files share: the reader of a file and its
 * group (rayci.c), the conversion of one step (convert.c, rayci's converter with its
 * builtin ray-pr config) and the `array` expansion with its depends_on selectors
 * (array.c). Each cites ray-project/rayci's raycicmd at commit 52b3334 (docs/rayci.md). */
#ifndef FANOUT_RAYCI_INTERNAL_H
#define FANOUT_RAYCI_INTERNAL_H

#include <stdbool.h>

#include "fanout/diag.h"
#include "fanout/strset.h"
#include "fanout/ynode.h"

struct rayci {
    struct diag *diag;
    const char *const *files;
    /* The step and group keys of every file read so far: rayci's buildIndex refuses a
     * key twice across all of .buildkite's files. */
    struct strset *keys;
    struct strset *rejected; /* the keys of the steps left out so far (mark_rejected) */
    bool failed; /* a finding was reported in the file being read */
    struct rc_arrays *arrays; /* the array steps of every file read so far */
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
 * resolved), in `doc`; `id` is rayci's step id (g<group>_s<step>), `job_env` the
 * group's default_job_env (NULL: forge). NULL after a finding, or when out of memory
 * (*oom set). */
struct ynode *rc_convert_step(struct rayci *r, struct ynode_doc *doc, const struct ynode *step, const char *id,
                              const char *job_env, bool *oom);

/* Whether `tags` (a step's or a group's) holds one of the builtin config's skip tags. */
bool rc_skip_tagged(const struct ynode *tags);

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
