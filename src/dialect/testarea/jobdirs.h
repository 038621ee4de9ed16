/* jobdirs: vLLM's pipeline-generator configs among a directory's files: left out of the
 * inputs (dialect.h's `not_input`), and each one's job dirs one build (`builds`). */
#ifndef FANOUT_TA_JOBDIRS_H
#define FANOUT_TA_JOBDIRS_H

#include <stddef.h>

#include "fanout/dialect.h"

const char *ta_jobdirs_not_input(const struct dialect_probe *probe);
int ta_jobdirs_builds(struct source *const *sources, const char *const *paths, size_t n,
                      const struct strset *walked, unsigned *build, struct diag *d);

#endif
