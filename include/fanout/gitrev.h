/* gitrev: the files of a git revision, read without a second checkout (diff --base). The
 * blobs under a path at REF, as `git ls-tree` lists them, are written by `git cat-file`
 * into a temporary directory that mirrors their paths below the current directory;
 * messages name them `REF:PATH` (render_opts' names_root and names_as). gitrev_close
 * removes every file it made (a run killed meanwhile can leave them in $TMPDIR, never in
 * the work tree). */
#ifndef FANOUT_GITREV_H
#define FANOUT_GITREV_H

#include <stddef.h>

#include "fanout/diag.h"

struct gitrev;

/* REF's files under `path` (relative to the current directory, inside it), but those of
 * `skip` (paths of the work tree: the committed renderings the config's `checks` name).
 * REF may be `A...B`: their merge base (an empty side is HEAD). NULL after reporting
 * (`io`: git missing, no repository, an unknown revision, a path outside the directory). */
struct gitrev *gitrev_open(const char *ref, const char *path, const char *const *skip, size_t n_skip,
                           struct diag *d);
/* What to read: the temporary directory's copy of `path`. */
const char *gitrev_operand(const struct gitrev *g);
/* The temporary directory, and the prefix its files go by in messages (`REF:`). */
const char *gitrev_root(const struct gitrev *g);
const char *gitrev_name(const struct gitrev *g);
void gitrev_close(struct gitrev *g);

/* The files the work tree changes since `ref` left it, NUL-separated (*len bytes,
 * malloc'd): `git diff --name-only -z --diff-filter=ACMDR` from the merge base of REF
 * and HEAD (of A and B for `A...B`, to B), paths from the repository's root. NULL after
 * reporting (`io`). */
char *gitrev_changed(const char *ref, size_t *len, struct diag *d);

#endif
