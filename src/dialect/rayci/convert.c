#define _GNU_SOURCE /* asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/suggest.h"

#include "rayci_internal.h"

/* ray-project/rayci raycicmd at 52b3334: converter.go, step_converter.go,
 * command_step.go, wanda.go, bk_pipeline.go, with builtin_configs.go's ray-pr config
 * (ciDefaultConfig's choice for every pipeline but the branch and microcheck ones). The
 * build id and commit are rayci's runtime's: they are written as these placeholders. */
#define RC_BUILD_ID "<build-id>"
#define RC_COMMIT "<commit>"
#define RC_WORK_REPO "029272617770.dkr.ecr.us-west-2.amazonaws.com/rayproject/citemp"
#define RC_TIMEOUT "300" /* defaultTimeoutInMinutes: 5 hours */
#define RC_TIMEOUT_MAX 300
#define RC_DOCKER_PLUGIN "docker#v5.8.0"

struct rc_pair {
    const char *name, *value;
};

/* prPipelineConfig's RunnerQueues and BuilderQueues. */
static const struct rc_pair runner_queues[] = {
    {"default", "runner_queue_small_pr"},  {"small", "runner_queue_small_pr"},
    {"medium", "runner_queue_medium_pr"},  {"large", "runner_queue_pr"},
    {"gpu", "gpu_runner_queue_pr"},        {"gpu-large", "gpu_large_runner_queue_pr"},
    {"g6-large", "g6_large_runner_queue_pr"}, {"windows", "windows_queue_pr"},
    {"macos", "macos"},                    {"macos-arm64", "macos-pr-arm64"},
    {"medium-arm64", "runner_queue_arm64_medium_pr"}, {NULL, NULL},
};
static const struct rc_pair builder_queues[] = {
    {"builder", "builder_queue_pr"}, {"builder-arm64", "builder_queue_arm64_pr"},
    {"builder-windows", "builder_queue_windows_pr"}, {NULL, NULL},
};

/* newConverter's envMap with the config's Env, sorted as yaml.v3 writes a Go map. */
static const struct rc_pair base_env[] = {
    {"BUILDKITE_ARTIFACT_UPLOAD_DESTINATION", "s3://ray-ci-artifact-pr-public/" RC_COMMIT "/" RC_BUILD_ID},
    {"BUILDKITE_BAZEL_CACHE_URL", "https://bazel-cache-dev.s3.us-west-2.amazonaws.com"},
    {"BUILDKITE_CACHE_READONLY", "true"},
    {"RAYCI_BUILD_ID", RC_BUILD_ID},
    {"RAYCI_FORGE_PREFIX", "cr.ray.io/rayproject/"},
    {"RAYCI_STAGE", "premerge"},
    {"RAYCI_TEMP", "s3://ray-ci-artifact-pr-public/ci-temp/" RC_BUILD_ID "/"},
    {"RAYCI_WORK_REPO", RC_WORK_REPO},
    {NULL, NULL},
};

/* The docker plugin's `environment`: bk_pipeline.go's buildkiteEnvs, then the sorted
 * union of the env map's keys, HookEnvKeys and BuildEnvKeys (RAYCI_STEP_ID and
 * RAYCI_FETCH_FULL_HISTORY are added in order where a step has them). */
static const char *const docker_env[] = {
    "CI", "BUILDKITE", "BUILDKITE_BRANCH", "BUILDKITE_COMMIT", "BUILDKITE_HOOK_WORKING_DIR",
    "BUILDKITE_LABEL", "BUILDKITE_RETRY_COUNT", "BUILDKITE_PIPELINE_ID", "BUILDKITE_PIPELINE_SLUG",
    "BUILDKITE_PIPELINE_PROVIDER", "BUILDKITE_BUILD_ID", "BUILDKITE_BUILD_NUMBER", "BUILDKITE_BUILD_URL",
    "BUILDKITE_JOB_ID", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", "BUILDKITE_PULL_REQUEST",
    "BUILDKITE_PULL_REQUEST_BASE_BRANCH", "BUILDKITE_PULL_REQUEST_LABELS", "BUILDKITE_PULL_REQUEST_REPO",
    "BUILDKITE_MESSAGE", "BUILDKITE_SOURCE", "BUILDKITE_TRIGGERED_FROM_BUILD_ID",
    "BUILDKITE_TRIGGERED_FROM_BUILD_NUMBER", "BUILDKITE_TRIGGERED_FROM_BUILD_PIPELINE_SLUG",
    /* the sorted keys */
    "BUILDKITE_ARTIFACT_UPLOAD_DESTINATION", "BUILDKITE_BAZEL_CACHE_URL", "BUILDKITE_CACHE_READONLY",
    "RAYCI_BUILD_ID", "RAYCI_CHECKOUT_DIR", "RAYCI_DISABLE_TEST_DB", "RAYCI_FETCH_FULL_HISTORY",
    "RAYCI_FORGE_PREFIX", "RAYCI_MICROCHECK_RUN", "RAYCI_STAGE", "RAYCI_STEP_ID", "RAYCI_TEMP",
    "RAYCI_WORK_REPO", NULL,
};

/* rayci_pipeline.go's allowed keys of each step kind, and what each drops. */
static const char *const wait_keys[] = {"wait", "continue_on_failure", "if", "depends_on",
                                        "allow_dependency_failure", "tags", "key", NULL};
static const char *const block_keys[] = {"block", "if", "depends_on", "tags", "key", "fields",
                                         "prompt", "blocked_state", "allow_dependency_failure", NULL};
static const char *const command_keys[] = {
    "command", "commands", "priority", "parallelism", "if", "label", "name", "key", "depends_on",
    "soft_fail", "matrix", "allow_dependency_failure", "concurrency", "concurrency_group",
    "timeout_in_minutes", "instance_type", "queue", "job_env", "tags", "docker_publish_tcp_ports",
    "docker_network", "mount_buildkite_agent", "mount_ssh_agent", "mount_windows_artifacts",
    "aws_assume_role", "aws_assume_role_duration_seconds", "fetch_full_history", NULL,
};
static const char *const command_drop[] = {
    "instance_type", "queue", "job_env", "tags", "docker_publish_tcp_ports", "docker_network",
    "mount_buildkite_agent", "mount_ssh_agent", "mount_windows_artifacts", "aws_assume_role",
    "aws_assume_role_duration_seconds", "timeout_in_minutes", "fetch_full_history",
    "name", NULL, /* name: convert() deletes it once it is the label */
};
static const char *const wanda_keys[] = {"name", "label", "wanda", "depends_on", "matrix", "env",
                                         "tags", "instance_type", "priority", "env_file", NULL};
static const char *const drop_tags[] = {"tags", NULL};

/* prPipelineConfig's SkipTags. */
static const char *const skip_tags[] = {"disabled", "skip-on-premerge", NULL};

bool rc_skip_tagged(const struct ynode *tags)
{
    for (size_t i = 0; skip_tags[i]; i++) {
        if (rc_list_has(tags, skip_tags[i]))
            return true;
    }
    return false;
}

static const char *queue_of(const struct rc_pair *queues, const char *type, size_t len)
{
    for (; queues->name; queues++) {
        if (strlen(queues->name) == len && !memcmp(queues->name, type, len))
            return queues->value;
    }
    return NULL;
}

/* checkStepKeys (util.go): every key of `step` allowed for its kind. */
static int check_keys(struct rayci *r, const struct ynode *step, const char *const *allowed, const char *kind)
{
    for (size_t i = 0; i < ynode_len(step); i++) {
        size_t len;
        const char *k = ynode_scalar(ynode_key(step, i), &len);
        char phrase[SUGGEST_PHRASE_MAX];

        if (k && rc_word_in(allowed, k, len))
            continue;
        return rc_error(r, ynode_key(step, i), RULE_UNKNOWN_KEY, "rayci refuses the %s step key '%.*s'%s", kind,
                        RC_SHORT(len), k ? k : "",
                        suggest_phrase(k ? suggest_closest(k, len, allowed, suggest_limit(len)) : NULL, phrase));
    }
    return 0;
}

/* ---- building nodes (each sets *oom and returns NULL when out of memory) ---- */

struct build {
    struct ynode_doc *doc;
    struct ypos pos;
    bool *oom;
};

static struct ynode *oom_check(const struct build *b, struct ynode *n)
{
    if (!n)
        *b->oom = true;
    return n;
}

static struct ynode *str(const struct build *b, const char *s)
{
    return oom_check(b, ynode_new_string(b->doc, s, strlen(s), b->pos));
}

static struct ynode *plain(const struct build *b, const char *s)
{
    return oom_check(b, ynode_new_plain(b->doc, s, b->pos));
}

static void put(const struct build *b, struct ynode *map, const char *key, struct ynode *v)
{
    if (!map || !v || ynode_set(b->doc, map, key, v) != 0)
        *b->oom = true;
}

static struct ynode *str_list(const struct build *b, const char *const *items)
{
    struct ynode *list = oom_check(b, ynode_new_seq(b->doc, b->pos));

    for (; list && *items; items++) {
        if (ynode_append(b->doc, list, str(b, *items)) != 0)
            *b->oom = true;
    }
    return list;
}

static struct ynode *one_pair(const struct build *b, const char *key, struct ynode *v)
{
    struct ynode *m = oom_check(b, ynode_new_map(b->doc, b->pos));

    put(b, m, key, v);
    return m;
}

/* A copy of `step` without the keys of `drop` (cloneMapExcept). */
static struct ynode *clone_except(const struct build *b, const struct ynode *step, const char *const *drop)
{
    struct ynode *out = oom_check(b, ynode_new_map(b->doc, ynode_pos(step)));

    for (size_t i = 0; out && i < ynode_len(step); i++) {
        size_t len;
        const char *k = ynode_scalar(ynode_key(step, i), &len);

        if (k && rc_word_in(drop, k, len))
            continue;
        if (ynode_append_pair(b->doc, out, ynode_copy(b->doc, ynode_key(step, i)),
                              ynode_copy(b->doc, ynode_value(step, i))) != 0)
            *b->oom = true;
    }
    return out;
}

/* The env map of a step: base_env, then the `extra` pairs (sorted into place). */
static struct ynode *env_map(const struct build *b, const struct rc_pair *extra)
{
    struct ynode *env = oom_check(b, ynode_new_map(b->doc, b->pos));
    const struct rc_pair *base = base_env;

    while (env && (base->name || (extra && extra->name))) {
        const struct rc_pair *next = !base->name ? extra
                                     : extra && extra->name && strcmp(extra->name, base->name) < 0 ? extra
                                                                                                     : base;

        put(b, env, next->name, str(b, next->value));
        if (next == base)
            base++;
        else
            extra++;
    }
    return env;
}

static struct ynode *int_node(const struct build *b, long long v)
{
    char num[24];

    snprintf(num, sizeof(num), "%lld", v);
    return plain(b, num);
}

/* defaultRayRetry (bk_pipeline.go): manual retry after a pass, and automatic retries:
 * once for exit status 1, three times for the statuses rayci knows to be the
 * machine's. */
static struct ynode *ray_retry(const struct build *b)
{
    static const long long statuses[] = {1, -1, 255, 3, 53, 125, 126, 127, 3221225786LL};
    struct ynode *retry = oom_check(b, ynode_new_map(b->doc, b->pos));
    struct ynode *automatic = oom_check(b, ynode_new_seq(b->doc, b->pos));

    put(b, retry, "manual", one_pair(b, "permit_on_passed", plain(b, "true")));
    for (size_t i = 0; automatic && i < sizeof(statuses) / sizeof(statuses[0]); i++) {
        struct ynode *s = one_pair(b, "exit_status", int_node(b, statuses[i]));

        put(b, s, "limit", plain(b, i ? "3" : "1"));
        if (ynode_append(b->doc, automatic, s) != 0)
            *b->oom = true;
    }
    put(b, retry, "automatic", automatic);
    return retry;
}

static const char *scalar_text(const struct ynode *step, const char *key, size_t *len)
{
    return rc_string(ynode_get(step, key), len);
}

static bool bool_true(const struct ynode *v)
{
    return ynode_scalar_is(v, "true") && !ynode_is_string(v);
}

/* The docker plugin of a job env that is an image (makeRayDockerPlugin), its keys
 * sorted as yaml.v3 writes a Go map. */
static struct ynode *docker_plugin(const struct build *b, const struct ynode *step, const char *image,
                                   const char *const *env, bool aws)
{
    static const char *const caps[] = {"SYS_PTRACE", "SYS_ADMIN", "NET_ADMIN", NULL};
    static const char *const hosts[] = {"rayci.localhost:host-gateway", NULL};
    static const char *const shell[] = {"/bin/bash", "-elic", NULL};
    static const char *const security[] = {"apparmor=unconfined", NULL};
    static const char *const volumes[] = {"/var/run/docker.sock:/var/run/docker.sock",
                                          "/tmp/artifacts:/artifact-mount", NULL};
    struct ynode *m = oom_check(b, ynode_new_map(b->doc, b->pos));
    size_t len;
    const char *ports = scalar_text(step, "docker_publish_tcp_ports", &len);
    const char *network = scalar_text(step, "docker_network", NULL);

    put(b, m, "add-caps", str_list(b, caps));
    put(b, m, "add-host", str_list(b, hosts));
    put(b, m, "environment", str_list(b, env));
    put(b, m, "image", str(b, image));
    if (network && *network)
        put(b, m, "network", str(b, network));
    if (aws)
        put(b, m, "propagate-aws-auth-tokens", plain(b, "true"));
    if (ports && len) {
        struct ynode *publish = oom_check(b, ynode_new_seq(b->doc, b->pos));

        /* strings.Split(ports, ","), each "127.0.0.1:P:P/tcp" */
        for (const char *p = ports; publish && p <= ports + len;) {
            const char *comma = memchr(p, ',', (size_t)(ports + len - p));
            int n = (int)((comma ? comma : ports + len) - p);
            char *text = NULL;

            if (asprintf(&text, "127.0.0.1:%.*s:%.*s/tcp", n, p, n, p) < 0 ||
                ynode_append(b->doc, publish, str(b, text)) != 0)
                *b->oom = true;
            free(text);
            p += n + 1;
        }
        put(b, m, "publish", publish);
    }
    put(b, m, "security-opts", str_list(b, security));
    put(b, m, "shell", str_list(b, shell));
    put(b, m, "volumes", str_list(b, volumes));
    put(b, m, "workdir", str(b, "/ray"));
    return m;
}

/* The windows job env's docker plugin (makeRayWindowsDockerPlugin). */
static struct ynode *windows_plugin(const struct build *b, const struct ynode *step, const char *const *env,
                                    bool aws)
{
    static const char *const shell[] = {"bash", "-eo", "pipefail", "-c", NULL};
    static const char *const volumes[] = {"\\\\.\\pipe\\docker_engine:\\\\.\\pipe\\docker_engine",
                                          "C:\\tmp\\artifacts:C:\\artifact-mount", NULL};
    struct ynode *m = oom_check(b, ynode_new_map(b->doc, b->pos));
    const char *network = scalar_text(step, "docker_network", NULL);

    put(b, m, "environment", str_list(b, env));
    put(b, m, "image", str(b, "rayproject/buildenv:windows"));
    put(b, m, "mount-checkout", plain(b, "true"));
    if (network && *network)
        put(b, m, "network", str(b, network));
    if (aws)
        put(b, m, "propagate-aws-auth-tokens", plain(b, "true"));
    put(b, m, "shell", str_list(b, shell));
    put(b, m, "shm-size", str(b, "2.5gb"));
    put(b, m, "volumes", str_list(b, volumes));
    return m;
}

/* The plugins and artifact paths of a command step, by its job env (command_step.go). */
static void job_env_plugins(const struct build *b, struct ynode *out, const struct ynode *step,
                            const char *group_env, bool fetch_full)
{
    static const char *const artifacts[] = {"/tmp/artifacts/**/*", NULL};
    static const char *const windows_artifacts[] = {"C:\\tmp\\artifacts\\**\\*", NULL};
    const char *env[sizeof(docker_env) / sizeof(docker_env[0])];
    size_t n = 0, len;
    const char *job_env = scalar_text(step, "job_env", &len);
    const char *role = scalar_text(step, "aws_assume_role", NULL);
    bool aws = role && *role;
    struct ynode *plugins = oom_check(b, ynode_new_seq(b->doc, b->pos));
    char *image = NULL;

    for (size_t i = 0; docker_env[i]; i++) {
        if (strcmp(docker_env[i], "RAYCI_FETCH_FULL_HISTORY") || fetch_full)
            env[n++] = docker_env[i];
    }
    env[n] = NULL;
    if (job_env && !strcmp(job_env, "WINDOWS")) {
        if (plugins && ynode_append(b->doc, plugins, one_pair(b, RC_DOCKER_PLUGIN, windows_plugin(b, step, env, aws))) != 0)
            *b->oom = true;
        put(b, out, "plugins", plugins);
        put(b, out, "artifact_paths", str_list(b, windows_artifacts));
        return;
    }
    if (job_env && !strcmp(job_env, "MACOS")) {
        struct ynode *sandbox =
            one_pair(b, "deny-file-read", str(b, "/usr/local/etc/buildkite-agent/buildkite-agent.cfg"));

        if (plugins && ynode_append(b->doc, plugins, one_pair(b, "ray-project/macos-sandbox#v1.0.7", sandbox)) != 0)
            *b->oom = true;
        put(b, out, "plugins", plugins);
        return;
    }
    if (aws) {
        long long duration = 900; /* the least a role is assumed for */
        struct ynode *cfg = oom_check(b, ynode_new_map(b->doc, b->pos));
        const struct ynode *d = ynode_get(step, "aws_assume_role_duration_seconds");

        if (d && !ynode_is_string(d))
            ynode_int(d, &duration);
        put(b, cfg, "duration", int_node(b, duration));
        put(b, cfg, "role", str(b, role));
        if (plugins && ynode_append(b->doc, plugins, one_pair(b, "cultureamp/aws-assume-role#v0.2.0", cfg)) != 0)
            *b->oom = true;
    }
    /* jobEnvImage: a name with a '/' is an image, else the build's own image of it */
    if (!job_env || !*job_env)
        job_env = group_env;
    if (strchr(job_env, '/'))
        image = strdup(job_env);
    else if (asprintf(&image, "%s:%s-%s", RC_WORK_REPO, RC_BUILD_ID, job_env) < 0)
        image = NULL;
    if (!image || (plugins && ynode_append(b->doc, plugins,
                                           one_pair(b, RC_DOCKER_PLUGIN, docker_plugin(b, step, image, env, aws))) != 0))
        *b->oom = true;
    free(image);
    put(b, out, "plugins", plugins);
    put(b, out, "artifact_paths", str_list(b, artifacts));
}

/* The label (command_step.go): "NAME [ID]", the label when no name, "[ID]" when none. */
static void step_label(const struct build *b, struct ynode *out, const struct ynode *step, const char *id)
{
    const struct ynode *name = ynode_get(step, "name");
    size_t len = 0;
    const char *t;
    char *label = NULL;

    if (!name || ynode_is_null(name))
        name = ynode_get(step, "label");
    t = name && !ynode_is_null(name) ? ynode_scalar(name, &len) : NULL;
    if ((t ? asprintf(&label, "%.*s [%s]", (int)len, t, id) : asprintf(&label, "[%s]", id)) < 0)
        label = NULL;
    put(b, out, "label", label ? str(b, label) : NULL);
    free(label);
}

static struct ynode *command_step(struct rayci *r, const struct build *b, const struct ynode *step, const char *id,
                                  const char *group_env)
{
    size_t len;
    const char *type = scalar_text(step, "queue", &len);
    const char *q;
    const struct ynode *t = ynode_get(step, "timeout_in_minutes"), *cg = ynode_get(step, "concurrency_group");
    long long timeout = RC_TIMEOUT_MAX;
    bool fetch_full = bool_true(ynode_get(step, "fetch_full_history"));
    struct rc_pair extra[3] = {{NULL, NULL}};
    struct ynode *out;

    if (check_keys(r, step, command_keys, "command") != 0)
        return NULL;
    if (!type)
        type = scalar_text(step, "instance_type", &len);
    if (!type || !len)
        type = "default", len = 7;
    if (!(q = queue_of(runner_queues, type, len)))
        return rc_error(r, ynode_get(step, "queue") ? ynode_get(step, "queue") : ynode_get(step, "instance_type"),
                        RULE_RAYCI, "unknown instance type '%.*s' (rayci's ray-pr config has no runner queue for it)",
                        RC_SHORT(len), type), NULL;
    /* prPipelineConfig allows no concurrency group (its prefixes are an empty list) */
    if (rc_string(cg, NULL))
        return rc_error(r, cg, RULE_RAYCI, "rayci's ray-pr config allows no concurrency_group"), NULL;
    if (t && !ynode_is_string(t) && ynode_int(t, &timeout)) {
        if (timeout < 0)
            return rc_error(r, t, RULE_RAYCI, "timeout_in_minutes cannot be negative"), NULL;
        if (timeout > RC_TIMEOUT_MAX)
            timeout = RC_TIMEOUT_MAX;
    }
    out = clone_except(b, step, command_drop);
    put(b, out, "agents", one_pair(b, "queue", str(b, q)));
    put(b, out, "retry", ray_retry(b));
    put(b, out, "timeout_in_minutes", int_node(b, timeout));
    if (!ynode_has(step, "priority"))
        put(b, out, "priority", plain(b, "1")); /* RunnerPriority */
    if (fetch_full)
        extra[0] = (struct rc_pair){"RAYCI_FETCH_FULL_HISTORY", "1"};
    extra[fetch_full ? 1 : 0] = (struct rc_pair){"RAYCI_STEP_ID", id};
    put(b, out, "env", env_map(b, extra));
    job_env_plugins(b, out, step, group_env, fetch_full);
    step_label(b, out, step, id);
    return out;
}

/* Whether rayci's own value of env name `k` wins over a wanda step's: the env map's
 * names (the step's is ignored, wanda.go logs it) and the names it sets after. */
static bool wanda_sets(const char *k, const char *env_file)
{
    for (const struct rc_pair *e = base_env; e->name; e++) {
        if (!strcmp(e->name, k))
            return true;
    }
    return !strcmp(k, "RAYCI_ARTIFACTS_DIR") || !strcmp(k, "RAYCI_WANDA_FILE") || !strcmp(k, "RAYCI_WANDA_NAME") ||
           (env_file && *env_file && !strcmp(k, "RAYCI_ENV_FILE"));
}

/* A wanda step (wanda.go): a builder job that runs run_wanda.sh on the wanda file. */
static struct ynode *wanda_step(struct rayci *r, const struct build *b, const struct ynode *step)
{
    static const char *const commands[] = {
        "bash -c \"curl -sfL https://raw.githubusercontent.com/ray-project/rayci/stable/run_wanda.sh > "
        "/tmp/run_wanda.sh\"",
        "bash /tmp/run_wanda.sh -rayci", NULL};
    static const char *const artifacts[] = {"/tmp/artifacts/**/*", NULL};
    static const char *const windows_artifacts[] = {"C:\\tmp\\artifacts\\**\\*", NULL};
    size_t len = 0, n_env = 0;
    const char *name = scalar_text(step, "name", &len), *file = scalar_text(step, "wanda", NULL);
    const char *type = scalar_text(step, "instance_type", NULL), *env_file = scalar_text(step, "env_file", NULL);
    const char *label = scalar_text(step, "label", NULL), *q;
    const struct ynode *env = ynode_get(step, "env"), *prio = ynode_get(step, "priority");
    struct rc_pair extra[40];
    struct ynode *out, *retry;
    bool windows = type && strstr(type, "windows");
    char *made = NULL;
    long long p;

    if (check_keys(r, step, wanda_keys, "wanda") != 0)
        return NULL;
    if (!name)
        return rc_error(r, step, RULE_RAYCI, "wanda step missing name"), NULL;
    if (!file)
        return rc_error(r, ynode_get(step, "wanda"), RULE_RAYCI, "wanda step file is not a string"), NULL;
    if (prio && (ynode_is_string(prio) || !ynode_int(prio, &p)))
        return rc_error(r, prio, RULE_RAYCI, "priority must be an integer"), NULL;
    if (env && !ynode_is_map(env))
        return rc_error(r, env, RULE_RAYCI, "wanda step env is not a map"), NULL;
    /* the step's env, sorted; a name of rayci's own env is ignored (wanda.go logs it) */
    extra[n_env++] = (struct rc_pair){"RAYCI_ARTIFACTS_DIR", windows ? "/c/tmp/artifacts" : "/tmp/artifacts"};
    if (env_file && *env_file)
        extra[n_env++] = (struct rc_pair){"RAYCI_ENV_FILE", env_file};
    extra[n_env++] = (struct rc_pair){"RAYCI_WANDA_FILE", file};
    extra[n_env++] = (struct rc_pair){"RAYCI_WANDA_NAME", name};
    for (size_t i = 0; env && i < ynode_len(env); i++) {
        const char *k = ynode_scalar(ynode_key(env, i), NULL), *v = rc_string(ynode_value(env, i), NULL);

        if (!v)
            return rc_error(r, ynode_value(env, i), RULE_RAYCI, "value of env '%s' is not a string", k), NULL;
        if (n_env + 1 >= sizeof(extra) / sizeof(extra[0]))
            return rc_error(r, env, RULE_RAYCI, "a wanda step's env holds at most 35 names here"), NULL;
        if (!wanda_sets(k, env_file))
            extra[n_env++] = (struct rc_pair){k, v};
    }
    /* insertion sort by name (yaml.v3 writes a Go map sorted) */
    for (size_t i = 1; i < n_env; i++) {
        for (size_t j = i; j > 0 && strcmp(extra[j - 1].name, extra[j].name) > 0; j--) {
            struct rc_pair tmp = extra[j];

            extra[j] = extra[j - 1];
            extra[j - 1] = tmp;
        }
    }
    extra[n_env] = (struct rc_pair){NULL, NULL};
    out = oom_check(b, ynode_new_map(b->doc, ynode_pos(step)));
    if (!label && asprintf(&made, "wanda: %s", name) < 0)
        *b->oom = true;
    put(b, out, "label", str(b, label ? label : made ? made : ""));
    free(made);
    put(b, out, "key", str(b, name));
    put(b, out, "commands", str_list(b, commands));
    put(b, out, "env", env_map(b, extra));
    retry = one_pair(b, "automatic", one_pair(b, "limit", plain(b, "1")));
    put(b, out, "retry", retry);
    put(b, out, "timeout_in_minutes", plain(b, RC_TIMEOUT));
    put(b, out, "artifact_paths", str_list(b, windows ? windows_artifacts : artifacts));
    if (ynode_has(step, "depends_on"))
        put(b, out, "depends_on", ynode_copy(b->doc, ynode_get(step, "depends_on")));
    /* builderAgent: no queue for an instance type the config has no builder for */
    if ((q = queue_of(builder_queues, type ? type : "builder", strlen(type ? type : "builder"))))
        put(b, out, "agents", one_pair(b, "queue", str(b, q)));
    put(b, out, "priority", prio ? ynode_copy(b->doc, prio) : plain(b, "1")); /* BuilderPriority */
    if (ynode_has(step, "matrix"))
        put(b, out, "matrix", ynode_copy(b->doc, ynode_get(step, "matrix")));
    return out;
}

struct ynode *rc_convert_step(struct rayci *r, struct ynode_doc *doc, const struct ynode *step, const char *id,
                              const char *job_env, bool *oom)
{
    struct build b = {doc, ynode_pos(step), oom};

    /* convertStep: the first converter whose signature key the step has; trigger steps
     * are not allowed by the config (AllowTriggerStep), so they are command steps */
    if (ynode_has(step, "wait"))
        return check_keys(r, step, wait_keys, "wait") ? NULL : clone_except(&b, step, drop_tags);
    if (ynode_has(step, "block"))
        return check_keys(r, step, block_keys, "block") ? NULL : clone_except(&b, step, drop_tags);
    if (ynode_has(step, "wanda"))
        return wanda_step(r, &b, step);
    return command_step(r, &b, step, id, job_env ? job_env : "forge");
}
