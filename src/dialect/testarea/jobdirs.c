/* jobdirs: vLLM's pipeline-generator configs (`.buildkite/ci_config*.yaml`) among a
 * directory's files. A config is no pipeline: vLLM's bootstrap hands it to the generator
 * as --pipeline_config_path (vllm-project/ci-infra buildkite/pipeline_generator/
 * global_config.py init_global_config: `name`, `job_dirs`, `registries`, `repositories`
 * required), which renders the `.yaml` files of its `job_dirs` (step.py
 * read_steps_from_job_dir: os.walk, recursively) into one pipeline, one build
 * (pipeline_generator.py generate). So a config is left out of the inputs, and the
 * test-area files of one config's job dirs are one build: vLLM's ci_config.yaml reads
 * test_areas, image_build and hardware_tests, ci_config_intel.yaml intel_jobs, whose keys
 * repeat test_areas' without a collision. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "jobdirs.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/diag.h"
#include "fanout/inputs.h"
#include "fanout/strset.h"
#include "fanout/stream.h"

const char *ta_jobdirs_not_input(const struct dialect_probe *probe)
{
    if (!dialect_probe_has_key(probe, "job_dirs") || dialect_probe_has_key(probe, "steps") ||
        dialect_probe_has_key(probe, "group"))
        return NULL;
    return "a vLLM pipeline-generator config (job_dirs), no pipeline: the generator reads it as "
           "--pipeline_config_path and renders the .yaml files of its job_dirs as one pipeline "
           "(render those directories)";
}

/* A config's job dir as a real path: `.buildkite/<dir>` (a path from the repository
 * root into the config's own directory, as vLLM's are) beside the config, whatever its
 * directory is called here; another relative one from the directory above the config's.
 * malloc'd, or NULL (none there). */
static char *job_dir_path(const char *config, const char *dir)
{
    const char *slash = strrchr(config, '/'), *here = slash ? config : ".";
    int here_len = slash ? (int)(slash - config) : 1;
    bool beside;
    size_t cap;
    char *joined, *real;

    while (dir[0] == '.' && dir[1] == '/')
        dir += 2;
    if (dir[0] == '/')
        return realpath(dir, NULL);
    if ((beside = !strncmp(dir, ".buildkite/", 11)))
        dir += 11;
    cap = (size_t)here_len + strlen(dir) + 8;
    if (!(joined = malloc(cap)))
        return NULL;
    snprintf(joined, cap, "%.*s/%s%s", here_len, here, beside ? "" : "../", dir);
    real = realpath(joined, NULL);
    free(joined);
    return real;
}

/* The job dirs of `list` (the config at `path`'s) as real paths, appended to `dirs`
 * (with `owner`, the config's number, in `of`). 0, or -1 when out of memory. */
static int add_job_dirs(const char *path, const struct ynode *list, unsigned owner, char ***dirs, unsigned **of,
                        size_t *n)
{
    for (size_t i = 0; i < ynode_len(list); i++) {
        const char *dir = ynode_scalar(ynode_item(list, i), NULL);
        char *real = dir ? job_dir_path(path, dir) : NULL, **grown;
        unsigned *o;

        if (!real)
            continue;
        if ((grown = realloc(*dirs, (*n + 1) * sizeof(*grown))) != NULL)
            *dirs = grown;
        if (!grown || !(o = realloc(*of, (*n + 1) * sizeof(*o)))) {
            free(real);
            return -1;
        }
        *of = o;
        (*dirs)[*n] = real;
        (*of)[(*n)++] = owner;
    }
    return 0;
}

/* The job dirs of the file at `path` when it is a config: its first document's top-level
 * `job_dirs`, read up to its steps (a pipeline's, which is no config, is not read on).
 * `d` is muted (what is wrong with a file is its own run's to say). */
static int read_config(const char *path, unsigned owner, char ***dirs, unsigned **of, size_t *n, struct diag *d)
{
    struct source *src = source_open(path, d);
    struct stream *st = src ? stream_open(src, 0, d) : NULL;
    struct stream_item item;
    int rc = 0;

    while (rc == 0 && st && stream_next(st, &item) > 0) {
        bool end = item.kind != STREAM_PAIR && item.kind != STREAM_DOC_START;

        if (item.kind == STREAM_PAIR && ynode_scalar_is(ynode_key(ynode_doc_root(item.doc), 0), "job_dirs")) {
            rc = add_job_dirs(path, ynode_value(ynode_doc_root(item.doc), 0), owner, dirs, of, n);
            end = true;
        }
        ynode_doc_destroy(item.doc);
        if (end)
            break;
    }
    stream_close(st);
    source_close(src);
    return rc;
}

/* The files the generator reads in a job dir: `.yaml` only (ci-infra 3e4cfe4
 * buildkite/pipeline_generator/step.py read_steps_from_job_dir: `if not
 * file.endswith(".yaml")`); a config is looked for among them. */
static const char *const job_file_suffixes[] = {".yaml", NULL};

int ta_jobdirs_builds(struct source *const *sources, const char *const *paths, size_t n,
                      const struct strset *walked, unsigned *build, struct diag *d)
{
    const char *const *all = strset_items(walked);
    struct strset *inputs = strset_create();
    char **dirs = NULL, **real = NULL;
    unsigned *of = NULL, owner = 0;
    size_t n_dirs = 0;
    int rc = inputs ? 0 : -1;

    (void)sources;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = strset_add(inputs, paths[i], strlen(paths[i])) < 0 ? -1 : 0;
    /* the walk's files that are none of these inputs: the configs are among them */
    for (size_t k = 0; rc == 0 && all[k]; k++) {
        size_t len = strlen(all[k]);

        if (inputs_name_has_suffix(all[k], len, job_file_suffixes) && !strset_has(inputs, all[k], len))
            rc = read_config(all[k], ++owner, &dirs, &of, &n_dirs, d);
    }
    strset_destroy(inputs);
    /* a file several configs read is of the first one's build (vLLM's ci_config_rocm.yaml
     * reads hardware_tests, which ci_config.yaml reads with more) */
    if (rc == 0 && n_dirs && !(real = inputs_walked_real(paths, n, walked)))
        rc = -1;
    for (size_t i = 0; rc == 0 && n_dirs && i < n; i++) {
        for (size_t k = 0; k < n_dirs; k++) {
            if (inputs_real_under(real[i], dirs[k], strlen(dirs[k]))) {
                build[i] = of[k];
                break;
            }
        }
    }
    inputs_real_free(real, n);
    for (size_t k = 0; k < n_dirs; k++)
        free(dirs[k]);
    free(dirs);
    free(of);
    return rc;
}
