/* rayci_config: the rayci config a conversion follows (config.go's `config`), as --rayci-config
 * names it: one of raycicmd's builtin configs (builtin_configs.go), or a config file read
 * as loadConfigFromFile reads one (yaml.v3's Unmarshal: unknown fields ignored, each
 * field typed as its Go type). Only the fields that change a rendering are kept (the tag
 * filter's, buildkite_dirs and notify_owner_on_failure do not: docs/rayci.md). */
#define _GNU_SOURCE /* asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/yscalar.h"

#include "rayci_internal.h"

/* builtin_configs.go at 52b3334, transcribed as the YAML a config file would hold
 * (builtin_pipelines.go's rayCIECR, rayBazelBuildCache and defaultForgePrefix filled
 * in): makePRPipelineConfig, then what ciDefaultConfig adds for the microcheck one. */
#define RC_PR_CONFIG                                                                                                   \
    "artifacts_bucket: ray-ci-artifact-pr-public\n"                                                                    \
    "ci_temp: s3://ray-ci-artifact-pr-public/ci-temp/\n"                                                               \
    "ci_work_repo: 029272617770.dkr.ecr.us-west-2.amazonaws.com/rayproject/citemp\n"                                   \
    "forge_prefix: cr.ray.io/rayproject/\n"                                                                            \
    "builder_queues: {builder: builder_queue_pr, builder-arm64: builder_queue_arm64_pr,\n"                             \
    "  builder-windows: builder_queue_windows_pr}\n"                                                                   \
    "runner_queues: {default: runner_queue_small_pr, small: runner_queue_small_pr,\n"                                  \
    "  medium: runner_queue_medium_pr, large: runner_queue_pr, gpu: gpu_runner_queue_pr,\n"                            \
    "  gpu-large: gpu_large_runner_queue_pr, g6-large: g6_large_runner_queue_pr,\n"                                    \
    "  windows: windows_queue_pr, macos: macos, macos-arm64: macos-pr-arm64,\n"                                        \
    "  medium-arm64: runner_queue_arm64_medium_pr}\n"                                                                  \
    "builder_priority: 1\n"                                                                                            \
    "runner_priority: 1\n"                                                                                             \
    "env: {BUILDKITE_BAZEL_CACHE_URL: 'https://bazel-cache-dev.s3.us-west-2.amazonaws.com',\n"                         \
    "  BUILDKITE_CACHE_READONLY: 'true', RAYCI_STAGE: premerge}\n"                                                     \
    "build_env_keys: [RAYCI_DISABLE_TEST_DB, RAYCI_MICROCHECK_RUN]\n"                                                  \
    "hook_env_keys: [RAYCI_CHECKOUT_DIR]\n"                                                                            \
    "allow_concurrency_group_prefixes: []\n"

static const struct {
    const char *name, *text;
} builtins[] = {
    {"ray-pr", RC_PR_CONFIG "skip_tags: [disabled, skip-on-premerge]\n"},
    {"ray-branch",
     "artifacts_bucket: ray-ci-artifact-branch-public\n"
     "ci_temp: s3://ray-ci-artifact-branch-public/ci-temp/\n"
     "ci_work_repo: 029272617770.dkr.ecr.us-west-2.amazonaws.com/rayproject/citemp\n"
     "forge_prefix: cr.ray.io/rayproject/\n"
     "builder_queues: {builder: builder_queue_branch, builder-arm64: builder_queue_arm64_branch,\n"
     "  builder-windows: builder_queue_windows_branch}\n"
     "runner_queues: {default: runner_queue_small_branch, small: runner_queue_small_branch,\n"
     "  medium: runner_queue_medium_branch, large: runner_queue_branch, gpu: gpu_runner_queue_branch,\n"
     "  gpu-large: gpu_large_runner_queue_branch, g6-large: g6_large_runner_queue_branch,\n"
     "  windows: windows_queue_branch, macos: macos-branch, macos-arm64: macos-branch-arm64,\n"
     "  medium-arm64: runner_queue_arm64_medium_branch, release: release_queue_small,\n"
     "  release-medium: release_queue_medium}\n"
     "env: {BUILDKITE_BAZEL_CACHE_URL: 'https://bazel-cache-dev.s3.us-west-2.amazonaws.com',\n"
     "  RAYCI_STAGE: postmerge}\n"
     "build_env_keys: [RAYCI_SCHEDULE, RAYCI_BISECT_TEST_TARGET, RAYCI_DISABLE_TEST_DB]\n"
     "hook_env_keys: [RAYCI_CHECKOUT_DIR]\n"
     "skip_tags: [disabled, only-on-premerge]\n"},
    {"ray-pr-microcheck", RC_PR_CONFIG "skip_tags: [disabled, skip-on-premerge, skip-on-microcheck]\n"
                                       "max_parallelism: 1\n"
                                       "notify_owner_on_failure: true\n"},
};

#define N_BUILTINS (sizeof(builtins) / sizeof(builtins[0]))

const char *rc_config_builtin_name(size_t i)
{
    return i < N_BUILTINS ? builtins[i].name : NULL;
}

/* ---- reading: each field as yaml.v3 decodes it into its Go type ---- */

struct reader {
    struct rc_config *c;
    struct diag *d;
    const char *const *files;
};

static int bad(const struct reader *rd, const struct ynode *at, const char *field, const char *want)
{
    diag_at(rd->d, DIAG_ERROR, DIAG_INPUT, rd->files, ynode_pos(at), RULE_RAYCI,
            "rayci config field '%s' must be %s (config.go decodes it so)", field, want);
    return -1;
}

/* A Go string: any scalar's text, null "". */
static int read_string(const struct reader *rd, const struct ynode *v, const char *field, const char **out)
{
    if (!ynode_is_scalar(v))
        return bad(rd, v, field, "a string");
    *out = ynode_is_null(v) ? "" : ynode_scalar(v, NULL);
    return 0;
}

/* A []string: a list of scalars (null: nil, *out NULL), NULL-terminated in the doc; a
 * null item is left out, as yaml.v3's sequence() leaves out what it cannot set. */
static int read_list(const struct reader *rd, const struct ynode *v, const char *field, const char ***out)
{
    const char **list;
    size_t n = 0;

    if (ynode_is_null(v))
        return *out = NULL, 0;
    if (!ynode_is_seq(v))
        return bad(rd, v, field, "a list of strings");
    if (!(list = ynode_doc_alloc(rd->c->doc, (ynode_len(v) + 1) * sizeof(*list))))
        return -1;
    for (size_t i = 0; i < ynode_len(v); i++) {
        if (!ynode_is_scalar(ynode_item(v, i)))
            return bad(rd, ynode_item(v, i), field, "a list of strings");
        if (!ynode_is_null(ynode_item(v, i)))
            read_string(rd, ynode_item(v, i), field, &list[n++]);
    }
    list[n] = NULL;
    *out = list;
    return 0;
}

static int pair_cmp(const void *a, const void *b)
{
    return strcmp(((const struct rc_pair *)a)->name, ((const struct rc_pair *)b)->name);
}

/* A map[string]string, sorted by name (rc_pairs_find searches it), ended by a NULL name. */
static int read_map(const struct reader *rd, const struct ynode *v, const char *field, struct rc_pair **out)
{
    struct rc_pair *pairs;
    size_t n = ynode_len(v);

    if (ynode_is_null(v))
        return 0;
    if (!ynode_is_map(v))
        return bad(rd, v, field, "a mapping of names to strings");
    if (!(pairs = ynode_doc_alloc(rd->c->doc, (n + 1) * sizeof(*pairs))))
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!ynode_is_scalar(ynode_value(v, i)) || !ynode_is_scalar(ynode_key(v, i)))
            return bad(rd, ynode_value(v, i), field, "a mapping of names to strings");
        read_string(rd, ynode_key(v, i), field, &pairs[i].name);
        read_string(rd, ynode_value(v, i), field, &pairs[i].value);
    }
    qsort(pairs, n, sizeof(*pairs), pair_cmp);
    pairs[n] = (struct rc_pair){NULL, NULL};
    *out = pairs;
    return 0;
}

/* A Go int (decode.go scalar): a plain integer, or a float's integer part; null 0; a
 * quoted one is a string yaml.v3 refuses. */
static int read_int(const struct reader *rd, const struct ynode *v, const char *field, long long *out)
{
    size_t len;
    const char *t = ynode_scalar(v, &len);
    char *end;
    double f;

    if (ynode_is_null(v))
        return *out = 0, 0;
    if (t && !ynode_is_string(v) && ynode_int(v, out))
        return 0;
    if (t && !ynode_is_string(v) && yscalar_type(t, len) == YS_FLOAT && (f = strtod(t, &end), end == t + len) &&
        f > -9.2e18 && f < 9.2e18) /* NaN and the infinities fail */
        return *out = (long long)f, 0;
    return bad(rd, v, field, "an integer");
}

/* A Go bool (decode.go scalar): a plain true or false, or one of YAML 1.1's words, which
 * yaml.v3 takes into a bool field even quoted. */
static int read_bool(const struct reader *rd, const struct ynode *v, const char *field, bool *out)
{
    static const char *const yes[] = {"y", "Y", "yes", "Yes", "YES", "on", "On", "ON", NULL};
    static const char *const no[] = {"n", "N", "no", "No", "NO", "off", "Off", "OFF", NULL};
    size_t len;
    const char *t = ynode_scalar(v, &len);

    if (ynode_is_null(v))
        return *out = false, 0;
    if (t && !ynode_is_string(v) && yscalar_type(t, len) == YS_BOOL)
        return *out = t[0] == 't' || t[0] == 'T', 0;
    if (t && (rc_word_in(yes, t, len) || rc_word_in(no, t, len)))
        return *out = rc_word_in(yes, t, len), 0;
    return bad(rd, v, field, "true or false");
}

/* dockerPluginConfig (a pointer: absent or null leaves the defaults). */
static int read_docker_plugin(const struct reader *rd, const struct ynode *v)
{
    struct rc_config *c = rd->c;
    int rc = 0;

    if (ynode_is_null(v))
        return 0;
    if (!ynode_is_map(v))
        return bad(rd, v, "docker_plugin", "a mapping");
    for (size_t i = 0; rc == 0 && i < ynode_len(v); i++) {
        const struct ynode *k = ynode_key(v, i), *val = ynode_value(v, i);

        if (ynode_scalar_is(k, "allow_mount_buildkite_agent"))
            rc = read_bool(rd, val, "docker_plugin.allow_mount_buildkite_agent", &c->allow_mount_buildkite_agent);
        else if (ynode_scalar_is(k, "allow_mount_ssh_agent"))
            rc = read_bool(rd, val, "docker_plugin.allow_mount_ssh_agent", &c->allow_mount_ssh_agent);
        else if (ynode_scalar_is(k, "work_dir"))
            rc = read_string(rd, val, "docker_plugin.work_dir", &c->work_dir);
        else if (ynode_scalar_is(k, "add_caps"))
            rc = read_list(rd, val, "docker_plugin.add_caps", &c->add_caps);
    }
    return rc;
}

/* Each field of the config's mapping; one rayci does not know is ignored, as Unmarshal
 * (no KnownFields) ignores it. */
static int read_fields(const struct reader *rd, const struct ynode *root)
{
    struct rc_config *c = rd->c;
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < ynode_len(root); i++) {
        const struct ynode *k = ynode_key(root, i), *v = ynode_value(root, i);
        const char *name = ynode_scalar(k, NULL);

        if (!name)
            continue;
        if (!strcmp(name, "artifacts_bucket"))
            rc = read_string(rd, v, name, &c->artifacts_bucket);
        else if (!strcmp(name, "ci_temp"))
            rc = read_string(rd, v, name, &c->ci_temp);
        else if (!strcmp(name, "ci_work_repo"))
            rc = read_string(rd, v, name, &c->ci_work_repo);
        else if (!strcmp(name, "forge_prefix"))
            rc = read_string(rd, v, name, &c->forge_prefix);
        else if (!strcmp(name, "builder_queues"))
            rc = read_map(rd, v, name, &c->builder_queues);
        else if (!strcmp(name, "runner_queues"))
            rc = read_map(rd, v, name, &c->runner_queues);
        else if (!strcmp(name, "env"))
            rc = read_map(rd, v, name, &c->env);
        else if (!strcmp(name, "builder_priority"))
            rc = read_int(rd, v, name, &c->builder_priority);
        else if (!strcmp(name, "runner_priority"))
            rc = read_int(rd, v, name, &c->runner_priority);
        else if (!strcmp(name, "max_parallelism"))
            rc = read_int(rd, v, name, &c->max_parallelism);
        else if (!strcmp(name, "build_env_keys"))
            rc = read_list(rd, v, name, &c->build_env_keys);
        else if (!strcmp(name, "hook_env_keys"))
            rc = read_list(rd, v, name, &c->hook_env_keys);
        else if (!strcmp(name, "skip_tags"))
            rc = read_list(rd, v, name, &c->skip_tags);
        else if (!strcmp(name, "allow_concurrency_group_prefixes"))
            rc = read_list(rd, v, name, &c->concurrency_prefixes);
        else if (!strcmp(name, "allow_trigger_step"))
            rc = read_bool(rd, v, name, &c->allow_trigger_step);
        else if (!strcmp(name, "docker_plugin"))
            rc = read_docker_plugin(rd, v);
    }
    return rc;
}

static const char *const no_strings[] = {NULL};
static const struct rc_pair no_pairs[] = {{NULL, NULL}};

/* The config `src` holds (its first document: Unmarshal reads no further), named
 * `name`; NULL after a message in `d`, or when out of memory (reported). */
static struct rc_config *config_read(struct source *src, const char *name, struct diag *d)
{
    const char *files[] = {source_name(src), NULL};
    struct rc_config *c = calloc(1, sizeof(*c));
    struct stream *s = c ? stream_open(src, 0, d) : NULL;
    struct ynode_doc *doc = NULL;
    struct reader rd = {c, d, files};
    int more = s ? stream_document(s, &doc) : -1;
    const struct ynode *root = doc ? ynode_doc_root(doc) : NULL;

    stream_close(s);
    if (c && more >= 0) {
        c->doc = doc ? doc : ynode_doc_create();
        /* the name may be a .fanout.yml default's, which does not outlive the run's start */
        if (c->doc && (c->name = ynode_doc_alloc(c->doc, strlen(name) + 1)))
            memcpy((char *)c->name, name, strlen(name) + 1);
        c->artifacts_bucket = c->ci_temp = c->ci_work_repo = c->forge_prefix = c->work_dir = "";
        c->runner_queues = c->builder_queues = c->env = (struct rc_pair *)no_pairs;
        c->build_env_keys = c->hook_env_keys = c->skip_tags = (const char **)no_strings;
        if (!c->doc || !c->name) {
            more = -1;
            diag_report(d, DIAG_ERROR, DIAG_INPUT, files[0], 0, 0, RULE_INTERNAL, "out of memory");
        } else if (!ynode_is_null(root) && !ynode_is_map(root)) {
            more = -1;
            diag_at(d, DIAG_ERROR, DIAG_INPUT, files, ynode_pos(root), RULE_RAYCI,
                    "a rayci config is a mapping of config.go's fields");
        } else if (read_fields(&rd, root) != 0) {
            more = -1;
        }
    }
    if (more < 0 || !c) {
        if (!c)
            diag_report(d, DIAG_ERROR, DIAG_INPUT, files[0], 0, 0, RULE_INTERNAL, "out of memory");
        if (!c || c->doc != doc)
            ynode_doc_destroy(doc);
        rc_config_destroy(c);
        return NULL;
    }
    /* nil and empty are one for these lists (concurrency_prefixes alone tells them apart) */
    c->build_env_keys = c->build_env_keys ? c->build_env_keys : (const char **)no_strings;
    c->hook_env_keys = c->hook_env_keys ? c->hook_env_keys : (const char **)no_strings;
    c->skip_tags = c->skip_tags ? c->skip_tags : (const char **)no_strings;
    return c;
}

struct rc_config *rc_config_builtin(const char *name, struct diag *d)
{
    for (size_t i = 0; i < N_BUILTINS; i++) {
        if (!strcmp(builtins[i].name, name)) {
            struct source *src = source_open_text(builtins[i].name, builtins[i].text, strlen(builtins[i].text), d);
            struct rc_config *c = src ? config_read(src, builtins[i].name, d) : NULL;

            source_close(src);
            return c;
        }
    }
    return NULL;
}

struct rc_config *rc_config_load(const char *arg, struct diag *d)
{
    struct rc_config *c = rc_config_builtin(arg, d);
    struct source *src;

    if (c || !(src = source_open(arg, d)))
        return c;
    c = config_read(src, arg, d);
    source_close(src);
    return c;
}

void rc_config_destroy(struct rc_config *c)
{
    if (!c)
        return;
    ynode_doc_destroy(c->doc);
    free(c);
}

const char *rc_pairs_find(const struct rc_pair *pairs, const char *name, size_t len)
{
    size_t lo = 0, hi = 0;

    while (pairs[hi].name)
        hi++;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = strncmp(pairs[mid].name, name, len);

        if (cmp == 0 && pairs[mid].name[len])
            cmp = 1;
        if (cmp == 0)
            return pairs[mid].value;
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ---- the dialect's option: --rayci-config NAME|FILE ---- */

const struct dialect_option rc_option_table[] = {
    {"rayci-config", true, NULL, false, DIALECT_OPTION_RENDER | DIALECT_OPTION_VALIDATE,
     "      --rayci-config NAME|FILE\n"
     "                             rayci files: the config rayci converts them with, a\n"
     "                             builtin (ray-pr, the default; ray-branch;\n"
     "                             ray-pr-microcheck) or a config file as rayci's -config\n"
     "                             reads it; an instance type it has no queue for is an\n"
     "                             error (without it: a warning)\n",
     NULL, OPTION_PATH_OR_NAME},
    {NULL, false, NULL, false, 0, NULL, NULL, OPTION_NOT_PATH},
};

/* A later value replaces an earlier one: the command line's wins over the .fanout.yml
 * default's. */
int rc_option(void *own, const struct dialect_option *opt, const char *arg, const struct dialect_option_io *io)
{
    struct rc_options *o = own;
    struct diag *d = diag_create(stderr, io->format);
    struct rc_config *c = d ? rc_config_load(arg, d) : NULL;

    (void)opt;
    if (!d)
        return io->usage("out of memory", NULL);
    diag_destroy(d);
    if (!c)
        return DIAG_INPUT; /* the file's messages said why */
    rc_config_destroy(o->config);
    o->config = c;
    return 0;
}

void rc_options_free(void *own)
{
    rc_config_destroy(((struct rc_options *)own)->config);
}
