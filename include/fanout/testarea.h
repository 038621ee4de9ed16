/* testarea: the dialect of vLLM's .buildkite/test_areas files, turned into Buildkite steps.
 * A file (`group`, `depends_on`, `steps`) becomes one group step; each step's
 * `mirror: {amd: {...}}` becomes an AMD step in one shared "Hardware-AMD Tests" group,
 * built the way vLLM's pipeline generator does (DESIGN.md): key `amd-<key>`, the mirror's
 * label (else `AMD: <label> (<device>)`), depends_on from the mirror plus
 * `image-build-amd`, timeout from the mirror capped at 180 (default 180), `dind` default
 * true, env and soft_fail inherited with the mirror's winning, commands and parallelism
 * from the mirror when given. Shards are expanded later, like any Buildkite step. */
#ifndef FANOUT_TESTAREA_H
#define FANOUT_TESTAREA_H

#include <stdbool.h>

#include "fanout/diag.h"
#include "fanout/source.h"
#include "fanout/stream.h"

enum ta_platform { TA_ALL, TA_NVIDIA, TA_AMD };

#define TA_AMD_GROUP "Hardware-AMD Tests"
#define TA_AMD_IMAGE_BUILD "image-build-amd"
#define TA_AMD_TIMEOUT_MAX 180

struct testarea;

/* `files` names inputs by file number, for messages. With `upload`, the rendered steps
 * keep only the fields Buildkite knows (device, optional, source_file_dependencies...
 * are dropped), so that `buildkite-agent pipeline upload` and Buildkite's schema accept
 * them; otherwise every field is kept for review. */
struct testarea *testarea_create(struct diag *d, const char *const *files, enum ta_platform platform,
                                 bool upload);
void testarea_destroy(struct testarea *ta);

/* Shows every input item to `fn` before the dialect reads it (render uses this to check
 * the files against the dialect's schema without reading them twice). */
typedef void (*ta_observe_fn)(void *user, const struct stream_item *item);
void testarea_observe(struct testarea *ta, ta_observe_fn fn, void *user);

/* Reads one test-area file from `s`. On success *out is a document whose root is a
 * one-item sequence holding the file's group step (NULL when the platform leaves no
 * step of it), and the file's mirrors are added to the AMD group. -1 after an error. */
int testarea_file(struct testarea *ta, struct stream *s, struct ynode_doc **out);

/* The "Hardware-AMD Tests" group built so far, in the same form (NULL when empty); the
 * caller owns it and the testarea starts a new one. */
struct ynode_doc *testarea_take_amd_group(struct testarea *ta);

#endif
