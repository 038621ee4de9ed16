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

/* Where a fill writes its NUL-terminated text (`text`, `len` bytes): in `room` when it
 * fits, else malloc'd (a malloc and a free for every shard's label, key and command
 * were a tenth of expansion); ph_out_free frees it. */
#define PH_ROOM 256
struct ph_out {
    char *text;
    size_t len;
    char room[PH_ROOM];
};

void ph_out_free(struct ph_out *out);

/* The label of job `index` of `count`: out->text, or NULL when out of memory. */
char *ph_label_fill(const char *label, size_t len, unsigned index, unsigned count, struct ph_out *out);

/* The command with shard variable references replaced by their values: out->text, or
 * NULL when nothing was replaced (or out of memory: check errno). */
char *ph_vars_fill(const char *cmd, size_t len, unsigned index, unsigned count, struct ph_out *out);

/* True when cmd[0..len) refers to a shard variable at all. */
bool ph_vars_find(const char *cmd, size_t len);

/* The key of shard `index` of the step keyed `key`: "<key>-<index>", out->text, or
 * NULL when out of memory. */
char *ph_shard_key(const char *key, size_t len, unsigned index, struct ph_out *out);

#endif
