#define _GNU_SOURCE /* asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/suggest.h"

#include "rayci_internal.h"

/* ray-project/rayci raycicmd at 52b3334: converter.go, step_converter.go,
 * command_step.go, wanda.go, bk_pipeline.go, with the config r->config (rayci_config.c). The
 * build id and commit are rayci's runtime's: they are written as these placeholders. */
#define RC_BUILD_ID "<build-id>"
#define RC_COMMIT "<commit>"
#define RC_TIMEOUT "300" /* defaultTimeoutInMinutes: 5 hours */
#define RC_TIMEOUT_MAX 300
#define RC_DOCKER_PLUGIN "docker#v5.8.0"
#define RC_SKIP_QUEUE "~" /* skipQueue: a job of this queue is written `skip: true` */

/* bk_pipeline.go's buildkiteEnvs: the docker plugin's `environment` begins with them. */
static const char *const buildkite_envs[] = {
    "CI", "BUILDKITE", "BUILDKITE_BRANCH", "BUILDKITE_COMMIT", "BUILDKITE_HOOK_WORKING_DIR",
    "BUILDKITE_LABEL", "BUILDKITE_RETRY_COUNT", "BUILDKITE_PIPELINE_ID", "BUILDKITE_PIPELINE_SLUG",
    "BUILDKITE_PIPELINE_PROVIDER", "BUILDKITE_BUILD_ID", "BUILDKITE_BUILD_NUMBER", "BUILDKITE_BUILD_URL",
    "BUILDKITE_JOB_ID", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", "BUILDKITE_PULL_REQUEST",
    "BUILDKITE_PULL_REQUEST_BASE_BRANCH", "BUILDKITE_PULL_REQUEST_LABELS", "BUILDKITE_PULL_REQUEST_REPO",
    "BUILDKITE_MESSAGE", "BUILDKITE_SOURCE", "BUILDKITE_TRIGGERED_FROM_BUILD_ID",
    "BUILDKITE_TRIGGERED_FROM_BUILD_NUMBER", "BUILDKITE_TRIGGERED_FROM_BUILD_PIPELINE_SLUG", NULL,
};

/* ---- a job's env: which value of a name wins ---- */

/* Who sets a name, the later winning: a wanda step's own env (below rayci's: wanda.go
 * ignores such a name), newConverter's envMap, the config's Env over it, and what the
 * step converter sets last (RAYCI_STEP_ID, RAYCI_WANDA_NAME...). */
enum env_rank { ENV_STEP, ENV_RAYCI, ENV_CONFIG, ENV_CONVERTER };

struct env_entry {
    const char *name, *value;
    enum env_rank rank;
};

struct env {
    struct env_entry *v;
    size_t n, cap;
    char *temp, *dest; /* RAYCI_TEMP's and the artifact destination's text */
    bool oom;
};

static void env_add(struct env *e, const char *name, const char *value, enum env_rank rank)
{
    if (e->n == e->cap) {
        struct env_entry *v = array_grow(e->v, &e->cap, e->n + 1, 32, sizeof(*v));

        if (!v) {
            e->oom = true;
            return;
        }
        e->v = v;
    }
    e->v[e->n++] = (struct env_entry){name, value, rank};
}

/* newConverter's envMap (RAYCI_BRANCH, the launcher's, is not set) and the config's Env. */
static void env_init(struct env *e, const struct rc_config *c)
{
    memset(e, 0, sizeof(*e));
    if (asprintf(&e->temp, "%s" RC_BUILD_ID "/", c->ci_temp) < 0)
        e->temp = NULL, e->oom = true;
    env_add(e, "RAYCI_BUILD_ID", RC_BUILD_ID, ENV_RAYCI);
    env_add(e, "RAYCI_WORK_REPO", c->ci_work_repo, ENV_RAYCI);
    env_add(e, "RAYCI_TEMP", e->temp ? e->temp : "", ENV_RAYCI);
    if (*c->forge_prefix)
        env_add(e, "RAYCI_FORGE_PREFIX", c->forge_prefix, ENV_RAYCI);
    if (*c->artifacts_bucket) {
        if (asprintf(&e->dest, "s3://%s/" RC_COMMIT "/" RC_BUILD_ID, c->artifacts_bucket) < 0)
            e->dest = NULL, e->oom = true;
        env_add(e, "BUILDKITE_ARTIFACT_UPLOAD_DESTINATION", e->dest ? e->dest : "", ENV_RAYCI);
    }
    for (const struct rc_pair *p = c->env; p->name; p++)
        env_add(e, p->name, p->value, ENV_CONFIG);
}

static int entry_cmp(const void *a, const void *b)
{
    const struct env_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    return c ? c : (int)x->rank - (int)y->rank;
}

/* Sorted by name (yaml.v3 writes a Go map so), each name once with its winning value. */
static void env_settle(struct env *e)
{
    size_t out = 0;

    if (e->n)
        qsort(e->v, e->n, sizeof(*e->v), entry_cmp);
    for (size_t i = 0; i < e->n; i++) {
        if (out && !strcmp(e->v[out - 1].name, e->v[i].name))
            out--;
        e->v[out++] = e->v[i];
    }
    e->n = out;
}

static void env_free(struct env *e)
{
    free(e->v);
    free(e->temp);
    free(e->dest);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The docker plugin's `environment`: buildkiteEnvs, then the sorted names of the env
 * (settled), the config's HookEnvKeys and BuildEnvKeys (command_step.go). NULL-ended,
 * malloc'd; NULL when out of memory. */
static const char **docker_env_names(const struct env *e, const struct rc_config *c)
{
    size_t n_bk = sizeof(buildkite_envs) / sizeof(buildkite_envs[0]) - 1, n = 0, n_hook = 0, n_build = 0, unique = 0;
    const char **names;

    while (c->hook_env_keys[n_hook])
        n_hook++;
    while (c->build_env_keys[n_build])
        n_build++;
    if (!(names = malloc((n_bk + e->n + n_hook + n_build + 1) * sizeof(*names))))
        return NULL;
    for (size_t i = 0; i < e->n; i++)
        names[n++] = e->v[i].name;
    for (size_t i = 0; i < n_hook; i++)
        names[n++] = c->hook_env_keys[i];
    for (size_t i = 0; i < n_build; i++)
        names[n++] = c->build_env_keys[i];
    qsort(names, n, sizeof(*names), name_cmp);
    for (size_t i = 0; i < n; i++) {
        if (!unique || strcmp(names[unique - 1], names[i]))
            names[unique++] = names[i];
    }
    memmove(names + n_bk, names, unique * sizeof(*names));
    memcpy(names, buildkite_envs, n_bk * sizeof(*names));
    names[n_bk + unique] = NULL;
    return names;
}

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
static const char *const trigger_keys[] = {"trigger", "label", "async", "build", "depends_on", "tags", "if",
                                           "soft_fail", "allow_dependency_failure", "key", NULL};
static const char *const drop_tags[] = {"tags", NULL};

bool rc_skip_tagged(const struct rayci *r, const struct ynode *tags)
{
    for (size_t i = 0; r->config->skip_tags[i]; i++) {
        if (rc_list_has(tags, r->config->skip_tags[i]))
            return true;
    }
    return false;
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

/* The env map of a job: its env settled. */
static struct ynode *env_map(const struct build *b, struct env *e)
{
    struct ynode *env = oom_check(b, ynode_new_map(b->doc, b->pos));

    env_settle(e);
    if (e->oom)
        *b->oom = true;
    for (size_t i = 0; env && i < e->n; i++)
        put(b, env, e->v[i].name, str(b, e->v[i].value));
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

/* The docker plugin of a job env that is an image (makeRayDockerPlugin, with the
 * config's docker_plugin settings), its keys sorted as yaml.v3 writes a Go map. */
static struct ynode *docker_plugin(const struct rayci *r, const struct build *b, const struct ynode *step,
                                   const char *image, const char *const *env, bool aws)
{
    static const char *const caps[] = {"SYS_PTRACE", "SYS_ADMIN", "NET_ADMIN", NULL};
    static const char *const hosts[] = {"rayci.localhost:host-gateway", NULL};
    static const char *const shell[] = {"/bin/bash", "-elic", NULL};
    static const char *const security[] = {"apparmor=unconfined", NULL};
    static const char *const volumes[] = {"/var/run/docker.sock:/var/run/docker.sock",
                                          "/tmp/artifacts:/artifact-mount", NULL};
    const struct rc_config *c = r->config;
    struct ynode *m = oom_check(b, ynode_new_map(b->doc, b->pos));
    size_t len;
    const char *ports = scalar_text(step, "docker_publish_tcp_ports", &len);
    const char *network = scalar_text(step, "docker_network", NULL);

    put(b, m, "add-caps", str_list(b, c->add_caps ? c->add_caps : caps));
    put(b, m, "add-host", str_list(b, hosts));
    put(b, m, "environment", str_list(b, env));
    put(b, m, "image", str(b, image));
    if (c->allow_mount_buildkite_agent && bool_true(ynode_get(step, "mount_buildkite_agent")))
        put(b, m, "mount-buildkite-agent", plain(b, "true"));
    if (c->allow_mount_ssh_agent && bool_true(ynode_get(step, "mount_ssh_agent")))
        put(b, m, "mount-ssh-agent", plain(b, "true"));
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
    put(b, m, "workdir", str(b, *c->work_dir ? c->work_dir : "/ray"));
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

/* The plugins and artifact paths of a command step, by its job env (command_step.go);
 * `env` is the job's, settled. */
static void job_env_plugins(const struct rayci *r, const struct build *b, struct ynode *out,
                            const struct ynode *step, const char *group_env, const struct env *e)
{
    static const char *const artifacts[] = {"/tmp/artifacts/**/*", NULL};
    static const char *const windows_artifacts[] = {"C:\\tmp\\artifacts\\**\\*", NULL};
    size_t len;
    const char *job_env = scalar_text(step, "job_env", &len);
    const char *role = scalar_text(step, "aws_assume_role", NULL);
    bool aws = role && *role;
    struct ynode *plugins = oom_check(b, ynode_new_seq(b->doc, b->pos));
    const char **env = docker_env_names(e, r->config);
    char *image = NULL;

    if (!env) {
        *b->oom = true;
        return;
    }
    if (job_env && !strcmp(job_env, "WINDOWS")) {
        if (plugins && ynode_append(b->doc, plugins, one_pair(b, RC_DOCKER_PLUGIN, windows_plugin(b, step, env, aws))) != 0)
            *b->oom = true;
        put(b, out, "plugins", plugins);
        put(b, out, "artifact_paths", str_list(b, windows_artifacts));
        free(env);
        return;
    }
    if (job_env && !strcmp(job_env, "MACOS")) {
        struct ynode *sandbox =
            one_pair(b, "deny-file-read", str(b, "/usr/local/etc/buildkite-agent/buildkite-agent.cfg"));

        if (plugins && ynode_append(b->doc, plugins, one_pair(b, "ray-project/macos-sandbox#v1.0.7", sandbox)) != 0)
            *b->oom = true;
        put(b, out, "plugins", plugins);
        free(env);
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
    else if (asprintf(&image, "%s:%s-%s", r->config->ci_work_repo, RC_BUILD_ID, job_env) < 0)
        image = NULL;
    if (!image || (plugins && ynode_append(b->doc, plugins, one_pair(b, RC_DOCKER_PLUGIN,
                                                                     docker_plugin(r, b, step, image, env, aws))) != 0))
        *b->oom = true;
    free(image);
    free(env);
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

/* The builtin configs that map `type` to a runner queue, for the warning's hint: "" or
 * " (rayci's ray-branch config maps it to 'q')" in `hint`. */
static void builtin_hint(const struct rayci *r, const char *type, size_t len, char *hint, size_t size)
{
    struct diag *mute = diag_create_buffered_like(r->diag);

    *hint = '\0';
    for (size_t i = 0; mute && rc_config_builtin_name(i); i++) {
        struct rc_config *c = rc_config_builtin(rc_config_builtin_name(i), mute);
        const char *q = c ? rc_pairs_find(c->runner_queues, type, len) : NULL;

        if (q && !*hint)
            snprintf(hint, size, "; rayci's %s config maps it to '%s'", c->name, q);
        rc_config_destroy(c);
    }
    diag_destroy(mute);
}

/* What the config refuses and another config may allow (an instance type it has no
 * queue for, a trigger step, a concurrency group): an error rayci stops at when
 * --rayci-config named the config (true); else the file's pipeline may well run rayci
 * with a config fanout was not given: a warning saying so and what fanout writes
 * instead (`done`), and false. */
static bool config_refuses(struct rayci *r, const struct ynode *at, const char *what, const char *hint,
                           const char *done)
{
    if (r->config_given)
        return rc_error(r, at, RULE_RAYCI, "%s", what), true;
    diag_at(r->diag, DIAG_WARNING, DIAG_FINDING, r->files, ynode_pos(at), RULE_RAYCI,
            "%s: its pipeline may run rayci with a config fanout was not given (--rayci-config NAME|FILE)%s; %s",
            what, hint, done);
    return false;
}

/* The agent queue of a command step (mapAgent); without --rayci-config, an instance
 * type the default config lacks is written as its own queue. NULL after an error. */
static const char *runner_queue(struct rayci *r, const struct ynode *step)
{
    size_t len;
    const char *type = scalar_text(step, "queue", &len), *q;
    const struct ynode *at = ynode_get(step, "queue") ? ynode_get(step, "queue")
                             : ynode_get(step, "instance_type") ? ynode_get(step, "instance_type")
                                                                : step;
    char what[256], hint[160], done[128];

    if (!type)
        type = scalar_text(step, "instance_type", &len);
    if (!type || !len)
        type = "default", len = 7;
    if ((q = rc_pairs_find(r->config->runner_queues, type, len)))
        return q;
    snprintf(what, sizeof(what), "unknown instance type '%.*s' (rayci's %s config has no runner queue for it)",
             RC_SHORT(len), type, r->config->name);
    snprintf(done, sizeof(done), "written as queue '%.*s'", RC_SHORT(len), type);
    if (!r->config_given)
        builtin_hint(r, type, len, hint, sizeof(hint));
    return config_refuses(r, at, what, hint, done) ? NULL : type;
}

/* Whether `group` begins with one of `prefixes` (stringHasPrefix). */
static bool has_prefix(const char *const *prefixes, const char *group)
{
    for (; *prefixes; prefixes++) {
        if (!strncmp(group, *prefixes, strlen(*prefixes)))
            return true;
    }
    return false;
}

static struct ynode *command_step(struct rayci *r, const struct build *b, const struct ynode *step, const char *id,
                                  const char *group_env)
{
    const struct rc_config *c = r->config;
    const char *q, *group;
    const struct ynode *t = ynode_get(step, "timeout_in_minutes"), *cg = ynode_get(step, "concurrency_group");
    const struct ynode *par = ynode_get(step, "parallelism");
    long long timeout = RC_TIMEOUT_MAX, parallelism;
    struct env e;
    struct ynode *out;

    if (check_keys(r, step, command_keys, "command") != 0 || !(q = runner_queue(r, step)))
        return NULL;
    /* a nil prefix list allows every group, an empty one none (ray-branch's is nil) */
    if ((group = rc_string(cg, NULL)) && c->concurrency_prefixes && !has_prefix(c->concurrency_prefixes, group)) {
        char what[256];

        if (!*c->concurrency_prefixes)
            snprintf(what, sizeof(what), "rayci's %s config allows no concurrency_group", c->name);
        else
            snprintf(what, sizeof(what), "concurrency group '%.80s' is not allowed (rayci's %s config allows only "
                     "the prefixes it lists)", group, c->name);
        if (config_refuses(r, cg, what, "", "the group is kept"))
            return NULL;
    }
    if (t && !ynode_is_string(t) && ynode_int(t, &timeout)) {
        if (timeout < 0)
            return rc_error(r, t, RULE_RAYCI, "timeout_in_minutes cannot be negative"), NULL;
        if (timeout > RC_TIMEOUT_MAX)
            timeout = RC_TIMEOUT_MAX;
    }
    /* MaxParallelism: parallelism, read as Atoi reads its text, capped */
    if (par && c->max_parallelism > 0 && (!ynode_is_scalar(par) || !ynode_int(par, &parallelism)))
        return rc_error(r, par, RULE_RAYCI, "parallelism must be an integer (rayci's %s config caps it)", c->name),
               NULL;
    out = clone_except(b, step, command_drop);
    if (!strcmp(q, RC_SKIP_QUEUE))
        put(b, out, "skip", plain(b, "true"));
    else
        put(b, out, "agents", one_pair(b, "queue", str(b, q)));
    put(b, out, "retry", ray_retry(b));
    put(b, out, "timeout_in_minutes", int_node(b, timeout));
    if (!ynode_has(step, "priority") && c->runner_priority)
        put(b, out, "priority", int_node(b, c->runner_priority));
    if (par && c->max_parallelism > 0 && parallelism > c->max_parallelism)
        put(b, out, "parallelism", int_node(b, c->max_parallelism));
    env_init(&e, c);
    env_add(&e, "RAYCI_STEP_ID", id, ENV_CONVERTER);
    if (bool_true(ynode_get(step, "fetch_full_history")))
        env_add(&e, "RAYCI_FETCH_FULL_HISTORY", "1", ENV_CONVERTER);
    put(b, out, "env", env_map(b, &e));
    job_env_plugins(r, b, out, step, group_env, &e);
    env_free(&e);
    step_label(b, out, step, id);
    return out;
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
    size_t len = 0;
    const char *name = scalar_text(step, "name", &len), *file = scalar_text(step, "wanda", NULL);
    const char *type = scalar_text(step, "instance_type", NULL), *env_file = scalar_text(step, "env_file", NULL);
    const char *label = scalar_text(step, "label", NULL), *q;
    const struct ynode *env = ynode_get(step, "env"), *prio = ynode_get(step, "priority");
    struct env e;
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
    for (size_t i = 0; env && i < ynode_len(env); i++) {
        if (!rc_string(ynode_value(env, i), NULL))
            return rc_error(r, ynode_value(env, i), RULE_RAYCI, "value of env '%s' is not a string",
                            ynode_scalar(ynode_key(env, i), NULL)), NULL;
    }
    /* rayci's env, the step's under it (a name rayci sets is ignored: wanda.go logs it),
     * and what the wanda step sets over both */
    env_init(&e, r->config);
    for (size_t i = 0; env && i < ynode_len(env); i++)
        env_add(&e, ynode_scalar(ynode_key(env, i), NULL), rc_string(ynode_value(env, i), NULL), ENV_STEP);
    env_add(&e, "RAYCI_ARTIFACTS_DIR", windows ? "/c/tmp/artifacts" : "/tmp/artifacts", ENV_CONVERTER);
    if (env_file && *env_file)
        env_add(&e, "RAYCI_ENV_FILE", env_file, ENV_CONVERTER);
    env_add(&e, "RAYCI_WANDA_FILE", file, ENV_CONVERTER);
    env_add(&e, "RAYCI_WANDA_NAME", name, ENV_CONVERTER);
    out = oom_check(b, ynode_new_map(b->doc, ynode_pos(step)));
    if (!label && asprintf(&made, "wanda: %s", name) < 0)
        *b->oom = true;
    put(b, out, "label", str(b, label ? label : made ? made : ""));
    free(made);
    put(b, out, "key", str(b, name));
    put(b, out, "commands", str_list(b, commands));
    put(b, out, "env", env_map(b, &e));
    env_free(&e);
    retry = one_pair(b, "automatic", one_pair(b, "limit", plain(b, "1")));
    put(b, out, "retry", retry);
    put(b, out, "timeout_in_minutes", plain(b, RC_TIMEOUT));
    put(b, out, "artifact_paths", str_list(b, windows ? windows_artifacts : artifacts));
    if (ynode_has(step, "depends_on"))
        put(b, out, "depends_on", ynode_copy(b->doc, ynode_get(step, "depends_on")));
    /* builderAgent: no queue for an instance type the config has no builder for */
    q = rc_pairs_find(r->config->builder_queues, type ? type : "builder", strlen(type ? type : "builder"));
    if (q && !strcmp(q, RC_SKIP_QUEUE))
        put(b, out, "skip", plain(b, "true"));
    else if (q && *q)
        put(b, out, "agents", one_pair(b, "queue", str(b, q)));
    if (prio)
        put(b, out, "priority", ynode_copy(b->doc, prio));
    else if (r->config->builder_priority)
        put(b, out, "priority", int_node(b, r->config->builder_priority));
    if (ynode_has(step, "matrix"))
        put(b, out, "matrix", ynode_copy(b->doc, ynode_get(step, "matrix")));
    return out;
}

struct ynode *rc_convert_step(struct rayci *r, struct ynode_doc *doc, const struct ynode *step, const char *id,
                              const char *job_env, bool *oom)
{
    struct build b = {doc, ynode_pos(step), oom};

    /* convertStep: the first converter whose signature key the step has; trigger steps
     * only when the config allows them (AllowTriggerStep), else they are command steps */
    if (ynode_has(step, "wait"))
        return check_keys(r, step, wait_keys, "wait") ? NULL : clone_except(&b, step, drop_tags);
    if (ynode_has(step, "block"))
        return check_keys(r, step, block_keys, "block") ? NULL : clone_except(&b, step, drop_tags);
    if (ynode_has(step, "wanda"))
        return wanda_step(r, &b, step);
    if (ynode_has(step, "trigger") && !r->config->allow_trigger_step && !r->config_given) {
        char what[128];

        snprintf(what, sizeof(what), "rayci's %s config takes no trigger step (allow_trigger_step)", r->config->name);
        config_refuses(r, step, what, "", "kept without its tags, as rayci's trigger converter writes it");
    }
    if (ynode_has(step, "trigger") && (r->config->allow_trigger_step || !r->config_given))
        return check_keys(r, step, trigger_keys, "trigger") ? NULL : clone_except(&b, step, drop_tags);
    return command_step(r, &b, step, id, job_env ? job_env : "forge");
}
