/* branches: a step's `branches:` filter, matched as Buildkite documents it
 * (buildkite/docs pages/pipelines/configure/branch-configuration.md, "Branch pattern
 * examples"; the matching itself is the server's and not published). */
#ifndef FANOUT_BK_BRANCHES_H
#define FANOUT_BK_BRANCHES_H

#include <stdbool.h>
#include <stddef.h>

/* Whether `branch` matches `patterns` (`len` bytes: patterns separated by spaces, `*`
 * any run of characters, slashes included, `!` before a pattern negates it): some
 * positive pattern matches (or there is none) and no negative one does. */
bool bk_branches_match(const char *patterns, size_t len, const char *branch);

#endif
