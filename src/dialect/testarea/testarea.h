/* testarea: the dialect of vLLM's .buildkite/test_areas files, turned into Buildkite steps
 * the way vLLM's pipeline generator (vllm-project/ci-infra, buildkite/pipeline_generator)
 * turns them (docs/testarea.md cites each rule's code). A file (`group`, `depends_on`,
 * `steps`) becomes one group step; a keyless step gets the generator's derived key; a
 * file with `depends_on` gives its steps that dependency, the working directory
 * /vllm-workspace/tests and its own path as a source dependency. Each step's
 * `mirror: {amd: {...}}`, and each step whose own device is an AMD GPU, becomes a step
 * of one shared "Hardware-AMD Tests" group, in file and step order. Shards are expanded
 * later, like any Buildkite step. */
#ifndef FANOUT_TESTAREA_H
#define FANOUT_TESTAREA_H

#include <stdbool.h>

#include "fanout/change.h"
#include "fanout/diag.h"
#include "fanout/dialect.h"
#include "fanout/source.h"
#include "fanout/stream.h"

enum ta_platform { TA_ALL, TA_NVIDIA, TA_AMD };

/* Which generator `mirror.amd.parallelism` is read for: OWN, ci-infra with #473 (the
 * mirror's value wins, null is one job); INHERIT, before it (the key is ignored and the
 * mirror runs the parent's count). */
enum ta_mirror_parallelism { TA_MIRROR_OWN, TA_MIRROR_INHERIT };

struct ta_options {
    enum ta_platform platform;
    enum ta_mirror_parallelism mirror_parallelism;
    /* Upload mode: the working directory becomes a leading `cd` in the commands, and the
     * fields Buildkite does not know (device, optional, source_file_dependencies...) are
     * dropped, so that `buildkite-agent pipeline upload` and Buildkite's schema accept the
     * steps; otherwise every field is kept for review, `working_dir` set to the
     * directory the commands run in. */
    bool upload;
    /* The change rendered for (render --changed): the steps the generator does not run
     * for it get its block step; NULL: every step runs. */
    const struct change *change;
    /* Told about each step the change does not run (dialect_input's, NULL: none), and
     * whether the steps keep their place with no block step (diff: only reported). */
    dialect_not_run_fn on_not_run;
    void *not_run_user;
    bool keep_not_run;
};

#define TA_AMD_GROUP "Hardware-AMD Tests"
#define TA_AMD_IMAGE_BUILD "image-build-amd"
#define TA_IMAGE_BUILD "image-build"
#define TA_AMD_TIMEOUT_MAX 180
/* Where the generator runs a step's commands when its file has a depends_on. */
#define TA_DEFAULT_WORKING_DIR "/vllm-workspace/tests"

struct testarea;

/* `files` names inputs by file number, for messages (and a file's own path, which its
 * steps get as a source dependency). */
struct testarea *testarea_create(struct diag *d, const char *const *files, const struct ta_options *opts);
void testarea_destroy(struct testarea *ta);

/* Shows every input item to `fn` before the dialect reads it (render uses this to check
 * the files against the dialect's schema without reading them twice). */
typedef void (*ta_observe_fn)(void *user, const struct stream_item *item);
void testarea_observe(struct testarea *ta, ta_observe_fn fn, void *user);

/* The key vLLM's generator gives a step without one (`_generate_step_key`): the label
 * with spaces made '-', lower-cased, '(', ')' and '%' deleted, and ',', '+', ':', '.' and
 * '/' made '-'; malloc'd (its length in *out_len), NULL when out of memory. */
char *testarea_derived_key(const char *label, size_t len, size_t *out_len);

/* Whether a device is one of the AMD GPUs the generator moves to the AMD group. */
bool testarea_amd_gpu_device(const char *device, size_t len);

/* The field tables (a NULL name ends each): for checking them against
 * schemas/testarea.json. `type` is the JSON Schema type of the field's value (NULL
 * when it may have several: a key or a list, a command or a list...). */
struct ta_field_info {
    const char *name;
    const char *type;
};
const struct ta_field_info *testarea_step_fields(void);
const struct ta_field_info *testarea_mirror_fields(void);

/* Reads one test-area file from `s`. On success *out is a document whose root is a
 * one-item sequence holding the file's group step (NULL when the platform leaves no
 * step of it), and the file's mirrors are added to the AMD group. -1 after an error. */
int testarea_file(struct testarea *ta, struct stream *s, struct ynode_doc **out);

/* The "Hardware-AMD Tests" group built so far, in the same form (NULL when empty); the
 * caller owns it and the testarea starts a new one. */
struct ynode_doc *testarea_take_amd_group(struct testarea *ta);

#endif
