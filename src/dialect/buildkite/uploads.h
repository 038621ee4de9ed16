/* uploads: which of the pipelines a directory holds land in one build (dialect.h's
 * `builds` for Buildkite): each its own, but for the files another one uploads. */
#ifndef FANOUT_BK_UPLOADS_H
#define FANOUT_BK_UPLOADS_H

#include <stddef.h>

#include "fanout/source.h"

struct strset;

int bk_uploads_builds(struct source *const *sources, const char *const *paths, size_t n,
                      const struct strset *walked, unsigned *build, struct diag *d);

#endif
