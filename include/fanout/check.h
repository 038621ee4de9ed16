/* check: is a committed rendering up to date? Renders the sources in memory, compares
 * with the rendered file byte for byte, prints a unified diff when stale, and with
 * `write` replaces the file atomically (temporary file in the same directory, rename,
 * mode kept). Pairs of sources and rendered files can come from a config file:
 *
 *   # .fanout.yml
 *   checks:
 *     - sources: [.buildkite/test_areas]
 *       rendered: .buildkite/rendered.yml
 *       upload: false          # optional, like render --upload
 *       format: yaml           # optional
 *       platform: all          # optional, test-area input (any dialect option that takes a word)
 */
#ifndef FANOUT_CHECK_H
#define FANOUT_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "fanout/diag.h"
#include "fanout/render.h"

/* One check. The diff goes to `out`; a stale file's message says to run `fix` (the
 * command that rewrites it, as it can be pasted). Returns 0 fresh (or rewritten), 1
 * stale, 2 error. */
int check_one(const char *const *sources, size_t n, const char *rendered,
              const struct render_opts *opts, bool write, const char *fix, FILE *out, struct diag *d);

/* The committed renderings the config's `checks` name (relative to its directory), *n
 * of them: what a directory among the inputs does not stand for. malloc'd, each path
 * too; NULL when out of memory. */
char **check_config_rendered(const struct ynode *root, const char *config, size_t *n);

/* Every check of a config (`root`, the tree of the file `config`, already read), with
 * `base` options; the worst exit code. */
int check_config(const struct ynode *root, const char *config, const struct render_opts *base, bool write,
                 const char *fix, FILE *out, struct diag *d);

#endif
