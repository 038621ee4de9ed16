/* placeholder: the text substitutions Buildkite performs for a parallel job.
 * Labels: %n (index from 0), %N (index from 1), %t and %T (job count), %% (a '%').
 * Commands: references to BUILDKITE_PARALLEL_JOB and BUILDKITE_PARALLEL_JOB_COUNT in
 * their $$VAR, $${VAR}, $VAR, ${VAR}, \$VAR and ${VAR:-default} forms. */
#ifndef FANOUT_PLACEHOLDER_H
#define FANOUT_PLACEHOLDER_H

#include <stdbool.h>
#include <stddef.h>

/* Room for any unsigned in decimal, with its NUL. */
#define PH_NUMBER_MAX 12

/* Writes `v` in decimal into out (NUL-terminated); returns its length. The shard
 * numbers of every label, key and env value go through here (snprintf was a twentieth
 * of a render). */
size_t ph_number(unsigned v, char out[PH_NUMBER_MAX]);

/* Offset of the first %n/%N/%t/%T in label[0..len), or -1 when there is none
 * (`%%` is an escaped percent sign, not a placeholder). */
long ph_label_find(const char *label, size_t len);

/* The label of job `index` of `count`. Returns a malloc'd NUL-terminated string whose
 * length is stored in *out_len, or NULL when out of memory. */
char *ph_label_fill(const char *label, size_t len, unsigned index, unsigned count, size_t *out_len);

/* The command with shard variable references replaced by their values. Returns a
 * malloc'd string, or NULL when nothing was replaced (or out of memory: check errno). */
char *ph_vars_fill(const char *cmd, size_t len, unsigned index, unsigned count, size_t *out_len);

/* True when cmd[0..len) refers to a shard variable at all. */
bool ph_vars_find(const char *cmd, size_t len);

/* The key of shard `index` of the step keyed `key`: "<key>-<index>". malloc'd. */
char *ph_shard_key(const char *key, size_t len, unsigned index, size_t *out_len);

#endif
