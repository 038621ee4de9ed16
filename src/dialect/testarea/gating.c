/* gating: which steps vLLM's generator runs for a change (render --changed), and the
 * block step it puts before each one it does not, as vllm-project/ci-infra does it at
 * 3e4cfe4 (buildkite/pipeline_generator/): buildkite_step.py `_step_should_run`,
 * `_source_file_dependencies_match`, `_matches_source_dependency`,
 * `_get_amd_mirror_effective_step`, `_create_block_step` and the block steps of
 * `convert_group_step_to_buildkite_step`; amd.py `_amd_mirror_should_run` and its
 * constants; global_config.py `_should_run_all` (RUN_ALL, TORCH_NIGHTLY, the
 * `ready-run-all-tests` label, and the pipeline config's run_all_patterns and
 * run_all_exclude_patterns, each `re.match`ed against every changed file). The build's
 * environment comes from --build env.NAME=VALUE, its labels from --build
 * pull_request.labels=a,b; the pipeline config is the ci_config.yaml beside the
 * test-area files' directory (vLLM's .buildkite/ci_config.yaml). */
#define _GNU_SOURCE /* asprintf */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/change.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/yscalar.h"

#include "testarea_internal.h"

/* amd.py: what a step that runs natively on an AMD GPU (dind false) also runs for, the
 * steps that always run, and the file whose change runs every AMD mirror. */
static const char *const native_runtime_sources[] = {".buildkite/scripts/hardware_ci/run-amd-test.sh", NULL};
static const char *const always_run_keys[] = {"ensure-ci-base-amd", "refresh-rocm-base-amd", NULL};
static const char rocm_base_dockerfile[] = "docker/Dockerfile.rocm_base";

static bool env_is(const struct change *c, const char *name, const char *value)
{
    char key[64];
    const char *v;

    snprintf(key, sizeof(key), "env.%s", name);
    v = change_build(c, key);
    return v && !strcmp(v, value);
}

/* Whether the pull request has label `name` (--build pull_request.labels=a,b). */
static bool has_label(const struct change *c, const char *name)
{
    const char *labels = change_build(c, "pull_request.labels");
    size_t len = strlen(name);

    for (const char *p = labels; p && *p;) {
        size_t n = strcspn(p, ",");

        if (n == len && !memcmp(p, name, len))
            return true;
        p += n + (p[n] == ',');
    }
    return false;
}

/* global_config.py: NIGHTLY=1, or the ready-run-all-tests label. */
static bool nightly(const struct change *c)
{
    return env_is(c, "NIGHTLY", "1") || has_label(c, "ready-run-all-tests");
}

/* global_config.py's ONLY_STEP_KEYS_ENV_VAR: a JSON array of the step keys to run, and
 * no other (a mirror has no key). */
#define ONLY_STEP_KEYS "VLLM_CI_ONLY_STEP_KEYS"

static bool only_step_keys_list(const struct change *c, const char *key)
{
    const char *list = change_build(c, "env." ONLY_STEP_KEYS);
    size_t len = key ? strlen(key) : 0;

    /* the keys are [a-zA-Z0-9_-]+ (STEP_KEY_PATTERN): each is a JSON string as written */
    for (const char *p = list; key && (p = strchr(p, '"')) != NULL;) {
        const char *end = strchr(p + 1, '"');

        if (!end)
            break;
        if ((size_t)(end - p - 1) == len && !memcmp(p + 1, key, len))
            return true;
        p = end + 1;
    }
    return false;
}

/* ---- the pipeline config's run_all_patterns ---- */

/* A list of the config's regexes, compiled. */
struct regex_list {
    pcre2_code **re;
    size_t *item; /* each one's index in the config's list */
    size_t n;
};

struct ta_run_all {
    struct regex_list patterns, excludes;
    pcre2_match_data *md;
    bool matched; /* some changed file runs everything */
};

static void regex_list_free(struct regex_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        pcre2_code_free(l->re[i]);
    free(l->re);
    free(l->item);
}

void ta_run_all_free(struct ta_run_all *r)
{
    if (!r)
        return;
    regex_list_free(&r->patterns);
    regex_list_free(&r->excludes);
    pcre2_match_data_free(r->md);
    free(r);
}

/* The config's `key` list compiled: Python's `re.match` is a match anchored at the start
 * (not the end); a str pattern is Unicode (PCRE2_UTF, PCRE2_UCP). A pattern PCRE2 does
 * not compile is warned about and matches nothing. -1 when out of memory. */
static int regex_list_read(struct regex_list *l, const struct ynode *list, const char *path, struct diag *d)
{
    size_t n = ynode_is_seq(list) ? ynode_len(list) : 0;

    if (n && (!(l->re = calloc(n, sizeof(*l->re))) || !(l->item = calloc(n, sizeof(*l->item)))))
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct ynode *item = ynode_item(list, i);
        struct ypos at = ynode_pos(item);
        size_t len;
        const char *t = ynode_scalar(item, &len);
        PCRE2_SIZE off = 0;
        int code = 0;
        uint32_t options = PCRE2_ANCHORED | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_UCP;
        pcre2_code *re = t ? pcre2_compile((PCRE2_SPTR)t, len, options, &code, &off, NULL) : NULL;

        if (!re) {
            PCRE2_UCHAR msg[120] = "not a string";

            if (t)
                pcre2_get_error_message(code, msg, sizeof(msg));
            diag_report(d, DIAG_WARNING, DIAG_FINDING, path, at.line, at.col, RULE_TESTAREA,
                        "run_all_patterns: %s; fanout ignores this pattern", (const char *)msg);
            continue;
        }
        pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* each is tried on every changed file */
        l->item[l->n] = i;
        l->re[l->n++] = re;
    }
    return 0;
}

/* The config's index of the first pattern of `l` that matches `file`, or -1. */
static long regex_list_match(const struct regex_list *l, pcre2_match_data *md, const char *file)
{
    for (size_t i = 0; i < l->n; i++) {
        if (pcre2_match(l->re[i], (PCRE2_SPTR)file, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) >= 0)
            return (long)l->item[i];
    }
    return -1;
}

/* The ci_config.yaml beside the directory of the test-area file `file`:
 * .buildkite/test_areas/x.yaml -> .buildkite/ci_config.yaml. malloc'd, or NULL. */
static char *config_path(const char *file)
{
    const char *slash = strrchr(file, '/');
    char *dir, *p, *path = NULL;

    if (!slash)
        return strdup("../ci_config.yaml");
    if (!(dir = strndup(file, (size_t)(slash - file))))
        return NULL;
    p = strrchr(dir, '/');
    if (p)
        p[1] = '\0';
    if (asprintf(&path, "%s%s", p ? dir : !strcmp(dir, ".") ? "../" : "", "ci_config.yaml") < 0)
        path = NULL;
    free(dir);
    return path;
}

/* _should_run_all's loop over the config at `path`: the first changed file a run_all
 * pattern matches and no run_all_exclude pattern does (said with --explain). */
static void run_all_decide(struct testarea *ta, struct ta_run_all *r, const char *path)
{
    const struct change *c = ta->opts.change;
    struct source *src = source_open(path, ta->diag);
    struct stream *st = src ? stream_open(src, 0, ta->diag) : NULL;
    struct ynode_doc *doc = NULL;
    const struct ynode *root, *list;

    if (!st || stream_document(st, &doc) <= 0 || !(r->md = pcre2_match_data_create(1, NULL)))
        goto done;
    root = ynode_doc_root(doc);
    list = ynode_get(root, "run_all_patterns");
    if (regex_list_read(&r->patterns, list, path, ta->diag) != 0 ||
        regex_list_read(&r->excludes, ynode_get(root, "run_all_exclude_patterns"), path, ta->diag) != 0)
        goto done;
    for (size_t i = 0; i < change_count(c) && !r->matched; i++) {
        const char *f = change_file(c, i);
        long k = regex_list_match(&r->patterns, r->md, f);
        struct ypos at;

        if (k < 0 || regex_list_match(&r->excludes, r->md, f) >= 0)
            continue;
        r->matched = true;
        at = ynode_pos(ynode_item(list, (size_t)k));
        if (change_explain(c))
            diag_report(ta->diag, DIAG_NOTE, DIAG_FINDING, path, at.line, at.col, RULE_NOT_RUN,
                        "run_all_patterns matches the changed file '%s' (no run_all_exclude_patterns entry "
                        "does): every step runs for this change", f);
    }
done:
    ynode_doc_destroy(doc);
    stream_close(st);
    source_close(src);
}

/* Whether the change runs every step by the pipeline config's patterns; the config read
 * once a run (none beside the files: no). */
static bool run_all_patterns_match(struct testarea *ta, const struct ynode *step)
{
    const char *file = ta->files[ynode_pos(step).file];
    char *path;

    if (!ta->run_all_read) {
        ta->run_all_read = true;
        if (file && (path = config_path(file)) != NULL) {
            if (access(path, F_OK) == 0 && (ta->run_all = calloc(1, sizeof(*ta->run_all))) != NULL)
                run_all_decide(ta, ta->run_all, path);
            free(path);
        }
    }
    return ta->run_all && ta->run_all->matched;
}

/* _should_run_all: RUN_ALL=1, TORCH_NIGHTLY=1, the label, the config's patterns. */
static bool run_all(struct testarea *ta, const struct ynode *step)
{
    const struct change *c = ta->opts.change;

    return env_is(c, "RUN_ALL", "1") || env_is(c, "TORCH_NIGHTLY", "1") || has_label(c, "ready-run-all-tests") ||
           run_all_patterns_match(ta, step);
}

/* The source dependencies of a step, as two lists read as one (a mirror's own, then its
 * parent's), and the changed files matched against them. */
struct sources {
    const struct ynode *lists[2];
    const char *const *fixed; /* or a fixed list (NULL-terminated) */
};

/* `_matches_source_dependency`'s entry: the entry without its trailing '/'s. */
static const char *entry_of(const char *s, size_t *len)
{
    *len = strlen(s);
    while (*len && s[*len - 1] == '/')
        (*len)--;
    return s;
}

static bool matches_entry(const char *entry, const char *file)
{
    size_t len;

    entry = entry_of(entry, &len);
    return len && !strncmp(file, entry, len) && (file[len] == '\0' || file[len] == '/');
}

static const char *source_at(const struct sources *s, size_t k, size_t i)
{
    return s->fixed ? (k == 0 ? s->fixed[i] : NULL) : ynode_scalar(ynode_item(s->lists[k], i), NULL);
}

static size_t sources_len(const struct sources *s, size_t k)
{
    size_t n = 0;

    if (!s->fixed)
        return ynode_is_seq(s->lists[k]) ? ynode_len(s->lists[k]) : 0;
    while (k == 0 && s->fixed[n])
        n++;
    return n;
}

/* A changed file not excluded by a `!` entry. */
static int not_excluded(void *user, const char *file)
{
    const struct sources *s = user;

    for (size_t k = 0; k < 2; k++) {
        for (size_t i = 0; i < sources_len(s, k); i++) {
            const char *e = source_at(s, k, i);

            if (e && e[0] == '!' && matches_entry(e + 1, file))
                return 0;
        }
    }
    return 1;
}

/* _source_file_dependencies_match: some changed file is under an entry and under no
 * `!` entry; none when there are no entries. */
static bool sources_match(const struct change *c, const struct sources *s)
{
    for (size_t k = 0; k < 2; k++) {
        for (size_t i = 0; i < sources_len(s, k); i++) {
            const char *e = source_at(s, k, i);
            size_t len;

            if (!e || e[0] == '!')
                continue;
            e = entry_of(e, &len);
            if (len && change_each_under(c, e, len, not_excluded, (void *)s))
                return true;
        }
    }
    return false;
}

static bool has_sources(const struct sources *s)
{
    return sources_len(s, 0) || sources_len(s, 1);
}

/* _step_should_run: NULL when the generator runs the step for the change, else why not. */
static const char *not_run_reason(struct testarea *ta, const struct ynode *step, const char *key, bool optional,
                                  bool amd_gpu, bool dind, const struct sources *s)
{
    static const struct sources native = {{NULL, NULL}, native_runtime_sources};
    const struct change *c = ta->opts.change;

    if (env_is(c, "NOAUTO", "1"))
        return "NOAUTO=1 blocks every step";
    if (change_build(c, "env." ONLY_STEP_KEYS))
        return only_step_keys_list(c, key) ? NULL : ONLY_STEP_KEYS " does not list it";
    for (size_t i = 0; key && always_run_keys[i]; i++) {
        if (!strcmp(key, always_run_keys[i]))
            return NULL;
    }
    if ((key && !strncmp(key, "image-build", 11)) || nightly(c))
        return NULL;
    if (optional)
        return "it is optional (it runs when unblocked, or in a nightly build)";
    if ((amd_gpu && !dind && sources_match(c, &native)) || run_all(ta, step) || sources_match(c, s))
        return NULL;
    return has_sources(s) ? "no changed file is under its source_file_dependencies"
                          : "it has no source_file_dependencies";
}

/* A boolean field that is true (the step model's bool: the fields check typed it). */
static bool truthy(const struct ynode *v)
{
    size_t len;
    const char *t = ynode_is_string(v) ? NULL : ynode_scalar(v, &len);

    return t && yscalar_type(t, len) == YS_BOOL && (t[0] == 't' || t[0] == 'T');
}

const char *ta_step_not_run(struct testarea *ta, const struct ynode *step, bool amd_gpu)
{
    struct sources s = {{ynode_get(step, "source_file_dependencies"), NULL}, NULL};

    if (!change_known(ta->opts.change))
        return NULL;
    return not_run_reason(ta, step, ynode_scalar(ynode_get(step, "key"), NULL), truthy(ynode_get(step, "optional")),
                          amd_gpu, truthy(ynode_get(step, "dind")), &s);
}

const char *ta_mirror_not_run(struct testarea *ta, const struct ynode *parent, const struct ynode *overrides)
{
    const struct change *c = ta->opts.change;
    const struct ynode *optional = ynode_get(overrides, "optional"), *dind = ynode_get(overrides, "dind");
    struct sources s = {{ynode_get(overrides, "source_file_dependencies"), ynode_get(parent, "source_file_dependencies")},
                        NULL};
    const char *why;

    if (!change_known(c))
        return NULL;
    /* _get_amd_mirror_effective_step: no key, the mirror's device (an AMD GPU), its dind
     * (true by default) and optional (the parent's by default), both lists */
    why = not_run_reason(ta, parent, NULL, truthy(optional ? optional : ynode_get(parent, "optional")), true,
                         dind ? truthy(dind) : true, &s);
    if (why && !env_is(c, "NOAUTO", "1") && change_has(c, rocm_base_dockerfile, strlen(rocm_base_dockerfile)))
        return NULL;
    return why;
}

/* Tells the hook that step `key` (at `pos`) does not run: `why`, and the block step
 * `block_key` that waits before it. 0, or -1 (out of memory, or the hook said stop). */
static int report_not_run(const struct testarea *ta, const char *key, size_t len, const char *why,
                          const char *block_key, struct ypos pos)
{
    char *text;
    int rc;

    if (!ta->opts.on_not_run)
        return 0;
    if (asprintf(&text, "%s; block step '%s' waits before it", why, block_key) < 0)
        return -1;
    rc = ta->opts.on_not_run(ta->opts.not_run_user, key, len, text, pos) != 0 ? -1 : 0;
    free(text);
    return rc;
}

int ta_block_step(struct testarea *ta, struct ynode_doc *doc, struct ynode *steps, size_t at, const char *label,
                  const char *prefix, const struct ynode *block_depends_on, bool first, const char *why)
{
    struct ynode *step = ynode_item(steps, at), *block, *deps, *own;
    const struct ynode *key = ynode_get(step, "key"), *old = ynode_get(step, "depends_on");
    struct ypos pos = ynode_pos(step);
    char *text = NULL, *block_key = NULL;
    size_t klen;
    const char *k = ynode_scalar(key, &klen);
    int rc = -1;

    if (!k || asprintf(&block_key, "%s%.*s", prefix, (int)klen, k) < 0 ||
        report_not_run(ta, k, klen, why, block_key, pos) != 0)
        goto done;
    if (ta->opts.keep_not_run) {
        rc = 0;
        goto done;
    }
    if (asprintf(&text, "Run %s", label) < 0)
        goto done;
    block = ynode_new_map(doc, pos);
    deps = block_depends_on ? ynode_copy(doc, block_depends_on) : ynode_new_seq(doc, pos);
    own = ynode_new_seq(doc, pos);
    if (!block || !deps || !own || ynode_set(doc, block, "block", ynode_new_string(doc, text, strlen(text), pos)) != 0 ||
        ynode_set(doc, block, "depends_on", deps) != 0 ||
        ynode_set(doc, block, "key", ynode_new_string(doc, block_key, strlen(block_key), pos)) != 0)
        goto done;
    /* the command step waits for it: first (a step of a file's group), else last */
    if (first && ynode_append(doc, own, ynode_new_string(doc, block_key, strlen(block_key), pos)) != 0)
        goto done;
    for (size_t i = 0; ynode_is_seq(old) ? i < ynode_len(old) : (i == 0 && ynode_scalar(old, NULL)); i++) {
        const struct ynode *d = ynode_is_seq(old) ? ynode_item(old, i) : old;

        if (!ynode_scalar_is(d, block_key) && ynode_append(doc, own, ynode_copy(doc, d)) != 0)
            goto done;
    }
    if (!first && ynode_append(doc, own, ynode_new_string(doc, block_key, strlen(block_key), pos)) != 0)
        goto done;
    if (ynode_set(doc, step, "depends_on", own) != 0 || ynode_insert(doc, steps, at, block) != 0)
        goto done;
    rc = 1;
done:
    free(text);
    free(block_key);
    return rc;
}
