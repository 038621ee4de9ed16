#define _GNU_SOURCE /* asprintf */
#include "testarea.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/dialect.h"
#include "fanout/shellword.h"
#include "fanout/suggest.h"
#include "fanout/ynode.h"

#include "jobdirs.h"
#include "testarea_internal.h"

/* vLLM's generator reads a test-area file with PyYAML's safe_load (step.py): a key given
 * twice in one mapping is a Python dict's, kept in its first place with its last value,
 * without a word. */
static const struct stream_shape testarea_shape[] = {{"steps", false, false, false, false, "vLLM's generator"},
                                                     {NULL, false, false, false, false, NULL}};

int ta_error_at(const struct testarea *ta, const struct ynode *at, const char *fmt, ...)
{
    struct ypos p = ynode_pos(at);
    va_list ap;

    va_start(ap, fmt);
    diag_vat(ta->diag, DIAG_ERROR, DIAG_INPUT, ta->files, p, RULE_TESTAREA,
             fmt, ap);
    va_end(ap);
    return -1;
}

static int out_of_memory(const struct testarea *ta, const struct ynode *at)
{
    return ta_error_at(ta, at, "%s", "out of memory");
}

struct testarea *testarea_create(struct diag *d, const char *const *files, const struct ta_options *opts)
{
    struct testarea *ta = calloc(1, sizeof(*ta));

    if (!ta)
        return NULL;
    ta->diag = d;
    ta->files = files;
    ta->opts = *opts;
    return ta;
}

void testarea_observe(struct testarea *ta, ta_observe_fn fn, void *user)
{
    ta->observe = fn;
    ta->observe_user = user;
}

void testarea_destroy(struct testarea *ta)
{
    if (!ta)
        return;
    ynode_doc_destroy(ta->amd);
    ta_run_all_free(ta->run_all);
    free(ta);
}

bool testarea_amd_gpu_device(const char *t, size_t len)
{
    static const char *const models[] = {"mi250_", "mi300_", "mi325_", "mi355_"};

    /* amd.py AMD_DEVICE_CONFIGS: an exact lookup of these 16 names */
    for (size_t i = 0; t && len == 7 && i < sizeof(models) / sizeof(models[0]); i++) {
        if (!memcmp(t, models[i], 6))
            return t[6] == '1' || t[6] == '2' || t[6] == '4' || t[6] == '8';
    }
    return false;
}

static bool is_amd_gpu(const struct ynode *device)
{
    size_t len;
    const char *t = ynode_scalar(device, &len);

    return testarea_amd_gpu_device(t, len);
}

/* For --platform: AMD hardware of any kind (an AMD GPU, amd_cpu...). */
static bool is_amd_platform(const struct ynode *device)
{
    size_t len;
    const char *t = ynode_scalar(device, &len);

    return t && ((len > 2 && t[0] == 'm' && t[1] == 'i' && t[2] >= '0' && t[2] <= '9') ||
                 (len >= 3 && memcmp(t, "amd", 3) == 0));
}

static bool platform_wants(const struct testarea *ta, bool amd)
{
    return ta->opts.platform == TA_ALL || (ta->opts.platform == TA_AMD) == amd;
}

/* A document whose root is a one-item sequence holding {group: name, steps: []};
 * *steps is that steps list. */
static struct ynode_doc *new_group(const char *name, size_t len, struct ypos pos,
                                   struct ynode **steps)
{
    struct ynode_doc *doc = ynode_doc_create();
    struct ynode *root = doc ? ynode_new_seq(doc, pos) : NULL;
    struct ynode *group = root ? ynode_new_map(doc, pos) : NULL;

    *steps = group ? ynode_new_seq(doc, pos) : NULL;
    if (!*steps || ynode_append(doc, root, group) != 0 ||
        ynode_set(doc, group, "group", ynode_new_string(doc, name, len, pos)) != 0 ||
        ynode_set(doc, group, "steps", *steps) != 0) {
        ynode_doc_destroy(doc);
        return NULL;
    }
    ynode_doc_set_root(doc, root);
    return doc;
}

/* Sets `key` of `map` (in `doc`) to a copy of `value` (from any document). */
static int set_copy(struct ynode_doc *doc, struct ynode *map, const char *key,
                    const struct ynode *value)
{
    return ynode_set(doc, map, key, ynode_copy(doc, value));
}

/* Sets `key` of `map` to the string text[0..len) (a malloc'd text, freed). */
static int set_made(struct ynode_doc *doc, struct ynode *map, const char *key, char *text, size_t len,
                    struct ypos pos)
{
    int rc = text ? ynode_set(doc, map, key, ynode_new_string(doc, text, len, pos)) : -1;

    free(text);
    return rc;
}

/* Python's truth of a YAML value: not null, not empty. */
static bool truthy(const struct ynode *v)
{
    size_t len;

    if (!v || ynode_is_null(v))
        return false;
    return ynode_scalar(v, &len) ? len > 0 : ynode_len(v) > 0;
}

char *testarea_derived_key(const char *label, size_t len, size_t *out_len)
{
    char *key = malloc(len + 1);
    size_t o = 0;

    if (!key)
        return NULL;
    /* buildkite_step.py _generate_step_key: each character maps on its own, so the
     * order of its replace() calls does not matter (ASCII lower-casing only) */
    for (size_t i = 0; i < len; i++) {
        char c = label[i];

        if (c == '(' || c == ')' || c == '%')
            continue;
        if (c == ' ' || c == ',' || c == '+' || c == ':' || c == '.' || c == '/')
            c = '-';
        else if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        key[o++] = c;
    }
    key[o] = '\0';
    *out_len = o;
    return key;
}

/* A keyless step gets the generator's derived key, so that its shard keys, depends_on,
 * diff and `/ci retry` use the key CI uses. */
static int ensure_key(const struct testarea *ta, struct ynode_doc *doc, struct ynode *step)
{
    const struct ynode *label = ynode_get(step, "label");
    size_t len, klen = 0;
    const char *t = ynode_scalar(label, &len);

    char *key;

    if (ynode_has(step, "key") || !t)
        return 0;
    key = testarea_derived_key(t, len, &klen);
    if (set_made(doc, step, "key", key, klen, ynode_pos(label)) != 0)
        return out_of_memory(ta, step);
    return 0;
}

/* Whether sequence `list` has an item with scalar `n`'s text (lists of keys and paths
 * are kept without repeats). */
static bool list_has(const struct ynode *list, const struct ynode *n)
{
    for (size_t j = 0; j < ynode_len(list); j++) {
        if (ynode_scalar_is_n(ynode_item(list, j), n->u.scalar.text, n->u.scalar.len))
            return true;
    }
    return false;
}

static const struct ynode amd_image_build = {
    .kind = YNODE_SCALAR, .style = YNODE_MADE, .u.scalar = {TA_AMD_IMAGE_BUILD, sizeof(TA_AMD_IMAGE_BUILD) - 1}};

/* depends_on of an AMD step (amd.py normalize_amd_depends_on): image-build becomes
 * image-build-amd, repeats go, and image-build-amd comes first unless it is there. */
static int amd_depends_on(struct ynode_doc *doc, struct ynode *amd, const struct ynode *dep, struct ypos pos)
{
    struct ynode *list = ynode_new_seq(doc, pos), *image;
    size_t n = ynode_is_seq(dep) ? ynode_len(dep) : truthy(dep) ? 1 : 0;

    if (!list)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct ynode *entry = ynode_is_seq(dep) ? ynode_item(dep, i) : dep;
        struct ynode *name = ynode_scalar_is(entry, TA_IMAGE_BUILD)
                                 ? ynode_new_string(doc, TA_AMD_IMAGE_BUILD, strlen(TA_AMD_IMAGE_BUILD), entry->pos)
                                 : ynode_copy(doc, entry);

        if (!name || (!list_has(list, name) && ynode_append(doc, list, name) != 0))
            return -1;
    }
    if (!list_has(list, &amd_image_build) && (!(image = ynode_new_string(doc, TA_AMD_IMAGE_BUILD, strlen(TA_AMD_IMAGE_BUILD), pos)) ||
                       ynode_insert(doc, list, 0, image) != 0))
        return -1;
    return ynode_set(doc, amd, "depends_on", list);
}

/* The AMD label "AMD: <label> (<device>)" (amd.py get_amd_label). */
static int amd_label(struct ynode_doc *doc, struct ynode *amd, const struct ynode *label,
                     const struct ynode *device)
{
    size_t llen = 0, dlen = 0;
    const char *l = ynode_scalar(label, &llen), *dv = ynode_scalar(device, &dlen);
    char *text;

    if (!l)
        return 0;
    if (!dv)
        dv = "", dlen = 0;
    if (!(text = malloc(llen + dlen + 16)))
        return -1;
    sprintf(text, "AMD: %.*s (%.*s)", (int)llen, l, (int)dlen, dv);
    return set_made(doc, amd, "label", text, strlen(text), ynode_pos(label));
}

/* timeout_in_minutes of an AMD step: `t`, 180 when there is none, at most 180. */
static int amd_timeout(struct ynode_doc *doc, struct ynode *amd, const struct ynode *t, struct ypos pos)
{
    long long minutes = TA_AMD_TIMEOUT_MAX;
    char text[24];

    if (t && ynode_int(t, &minutes) && minutes > TA_AMD_TIMEOUT_MAX)
        minutes = TA_AMD_TIMEOUT_MAX;
    snprintf(text, sizeof(text), "%lld", minutes);
    return ynode_set(doc, amd, "timeout_in_minutes", ynode_new_plain(doc, text, t ? t->pos : pos));
}

/* env: the parent's, with the mirror's entries winning. */
static int amd_env(struct ynode_doc *doc, struct ynode *amd, const struct ynode *overrides)
{
    const struct ynode *menv = ynode_get(overrides, "env");
    struct ynode *env;

    if (!menv)
        return 0;
    env = ynode_get(amd, "env");
    if (!env)
        return set_copy(doc, amd, "env", menv);
    for (size_t i = 0; i < ynode_len(menv); i++) {
        if (set_copy(doc, env, ynode_scalar(ynode_key(menv, i), NULL), ynode_value(menv, i)) != 0)
            return -1;
    }
    return 0;
}

/* The directory the generator runs a step's commands in (the `cd` it puts first):
 * `dir`, unless the label starts with ":docker:" or the step spans two nodes or more;
 * NULL for none. */
static const struct ynode *effective_dir(const struct ynode *dir, const struct ynode *label,
                                         const struct ynode *num_nodes)
{
    long long nodes = 0;
    size_t len;
    const char *t = ynode_scalar(label, &len);

    if (!truthy(dir) || !ynode_is_scalar(dir))
        return NULL;
    if ((t && len >= 8 && !memcmp(t, ":docker:", 8)) || (ynode_int(num_nodes, &nodes) && nodes >= 2))
        return NULL;
    return dir;
}

/* `cd DIR`, DIR quoted for the shell when it needs to be; malloc'd. */
static char *cd_command(const char *dir, size_t len, size_t *out_len)
{
    char *cmd = malloc(SHELL_WORD_MAX(len) + 4);

    if (!cmd)
        return NULL;
    memcpy(cmd, "cd ", 3);
    *out_len = 3 + shell_word(dir, len, cmd + 3);
    cmd[*out_len] = '\0';
    return cmd;
}

/* The rendered step's directory: for review `working_dir` says where its commands run
 * (gone when they run in the image's own directory); for upload the directory is a
 * leading `cd` command, as the generator writes it. */
static int apply_working_dir(const struct testarea *ta, struct ynode_doc *doc, struct ynode *step,
                             const struct ynode *dir)
{
    const char *field = ynode_has(step, "commands") ? "commands" : ynode_has(step, "command") ? "command" : NULL;
    struct ynode *cmds, *list;
    size_t len, cl = 0;
    const char *t;
    char *cd;

    if (!dir) {
        ynode_remove(step, "working_dir");
        return 0;
    }
    t = ynode_scalar(dir, &len);
    if (!ta->opts.upload)
        return ynode_set(doc, step, "working_dir", ynode_new_string(doc, t, len, dir->pos));
    ynode_remove(step, "working_dir");
    if (!field)
        return 0;
    cmds = ynode_get(step, field);
    if (!(list = ynode_new_seq(doc, ynode_pos(cmds))) || !(cd = cd_command(t, len, &cl)))
        return -1;
    if (ynode_append(doc, list, ynode_new_string(doc, cd, cl, ynode_pos(cmds))) != 0) {
        free(cd);
        return -1;
    }
    free(cd);
    for (size_t i = 0; i < (ynode_is_seq(cmds) ? ynode_len(cmds) : 1); i++) {
        if (ynode_append(doc, list, ynode_is_seq(cmds) ? ynode_item(cmds, i) : cmds) != 0)
            return -1;
    }
    return ynode_set(doc, step, field, list);
}

/* Upload mode: removes the fields Buildkite does not know from a rendered step (they
 * only steer the generator: docs/testarea.md lists them). */
static void drop_dialect_fields(struct ynode *step)
{
    for (size_t i = ynode_len(step); i-- > 0;) {
        size_t len;
        const char *name = ynode_scalar(ynode_key(step, i), &len);

        if (!dialect_buildkite_command_key(name, len))
            ynode_remove_at(step, i);
    }
}

/* The last touches every rendered step gets: its directory, and upload's cleanup. */
static int finish_step(const struct testarea *ta, struct ynode_doc *doc, struct ynode *step,
                       const struct ynode *dir)
{
    if (apply_working_dir(ta, doc, step, dir) != 0)
        return -1;
    if (ta->opts.upload)
        drop_dialect_fields(step);
    return 0;
}

/* A new step of the AMD group: a copy of `step` (from any document), appended. */
static struct ynode *amd_group_append(struct testarea *ta, const struct ynode *step)
{
    struct ynode *amd;

    if (!ta->amd) {
        ta->amd = new_group(TA_AMD_GROUP, strlen(TA_AMD_GROUP), ynode_pos(step), &ta->amd_steps);
        if (!ta->amd)
            return NULL;
    }
    amd = ynode_copy(ta->amd, step);
    return amd && ynode_append(ta->amd, ta->amd_steps, amd) == 0 ? amd : NULL;
}

/* A step whose own device is an AMD GPU: into the AMD group, the generator's way
 * (buildkite_step.py: label "AMD: <label> (<device>)", its own key, AMD depends_on and
 * timeout, dind by default; no mirror of its own). */
static int add_amd_device_step(struct testarea *ta, const struct ynode *step)
{
    struct ynode *amd = amd_group_append(ta, step);
    struct ynode_doc *doc = ta->amd;
    struct ypos pos = ynode_pos(step);

    if (!amd || amd_label(doc, amd, ynode_get(step, "label"), ynode_get(step, "device")) != 0 ||
        amd_depends_on(doc, amd, ynode_get(step, "depends_on"), pos) != 0 ||
        amd_timeout(doc, amd, ynode_get(step, "timeout_in_minutes"), pos) != 0 ||
        (!ynode_has(step, "dind") && ynode_set(doc, amd, "dind", ynode_new_plain(doc, "true", pos)) != 0))
        return out_of_memory(ta, step);
    ynode_remove(amd, "retry"); /* the AMD retry rules replace the step's */
    if (finish_step(ta, doc, amd, effective_dir(ynode_get(step, "working_dir"), ynode_get(step, "label"),
                                                ynode_get(step, "num_nodes"))) != 0)
        return out_of_memory(ta, step);
    return 0;
}

/* The number of jobs a parallelism value makes (absent or null: one). */
static long long jobs_of(const struct ynode *parallelism)
{
    long long n = 1;

    return ynode_int(parallelism, &n) ? n : 1;
}

/* mirror.amd.parallelism by the generator in use, and a note when the two generators
 * disagree on it (the merge-order risk of ci-infra#473). */
static void mirror_parallelism(struct testarea *ta, struct ynode *amd, const struct ynode *parent,
                               const struct ynode *overrides)
{
    const struct ynode *own = ynode_get(overrides, "parallelism");
    long long mine = jobs_of(own), parents = jobs_of(ynode_get(parent, "parallelism"));
    struct ypos p;

    if (!ynode_has(overrides, "parallelism"))
        return;
    p = ynode_pos(own ? own : overrides);
    if (ta->opts.mirror_parallelism == TA_MIRROR_INHERIT) {
        if (mine != parents)
            diag_at(ta->diag, DIAG_NOTE, DIAG_FINDING, ta->files, p, RULE_MIRROR_PARALLELISM,
                    "mirror.amd.parallelism is ignored by a generator without ci-infra#473 "
                    "(--mirror-parallelism inherit): the AMD mirror runs %lld job%s, not %lld", parents,
                    parents == 1 ? "" : "s", mine);
        return;
    }
    if (ynode_is_null(own))
        ynode_remove(amd, "parallelism");
    else
        ynode_set(ta->amd, amd, "parallelism", ynode_copy(ta->amd, own));
    if (mine != parents)
        diag_at(ta->diag, DIAG_NOTE, DIAG_FINDING, ta->files, p, RULE_MIRROR_PARALLELISM,
                "the AMD mirror runs %lld job%s with ci-infra#473 (e006ba64, the mirror's value wins); "
                "a generator without it runs %lld (see --mirror-parallelism inherit)", mine,
                mine == 1 ? "" : "s", parents);
}

/* source_file_dependencies of a mirror (buildkite_step.py _get_amd_mirror_effective_step):
 * the mirror's, then the parent's (which hold the file's own path) that are not there. */
static int mirror_sources(struct ynode_doc *doc, struct ynode *amd, const struct ynode *parent,
                          const struct ynode *overrides)
{
    const struct ynode *mine = ynode_get(overrides, "source_file_dependencies");
    const struct ynode *theirs = ynode_get(parent, "source_file_dependencies");
    struct ynode *list;

    if (!mine)
        return 0;
    if (!(list = ynode_copy(doc, mine)))
        return -1;
    for (size_t i = 0; i < ynode_len(theirs); i++) {
        const struct ynode *dep = ynode_item(theirs, i);

        if (!list_has(list, dep) && ynode_append(doc, list, ynode_copy(doc, dep)) != 0)
            return -1;
    }
    return ynode_set(doc, amd, "source_file_dependencies", list);
}

/* The AMD step of `parent` (its file's defaults applied) from its mirror overrides, in
 * the AMD group, as buildkite_step.py builds a mirror: key `amd-<key>`, the mirror's
 * label else "AMD: <label> (<device>)", the mirror's depends_on (AMD form) and timeout
 * (180 at most and by default), `dind` true and `no_plugin` false unless the mirror says
 * so, the parent's retry and agent tags not inherited, env merged, the mirror's
 * directory only with its own commands. */
static int add_mirror_step(struct testarea *ta, const struct ynode *parent, const struct ynode *overrides)
{
    static const char *const not_inherited[] = {"mirror", "retry", "agent_tags", "no_plugin", "dind",
                                                "mount_buildkite_agent", NULL};
    struct ynode *amd = amd_group_append(ta, parent);
    struct ynode_doc *doc = ta->amd;
    const struct ynode *dir = ynode_get(parent, "working_dir"), *num;
    struct ypos pos = ynode_pos(overrides);
    size_t len;
    const char *key = ynode_scalar(ynode_get(parent, "key"), &len);
    char *amd_key;

    if (!amd)
        return out_of_memory(ta, overrides);
    for (size_t i = 0; not_inherited[i]; i++)
        ynode_remove(amd, not_inherited[i]);
    for (size_t i = 0; i < ynode_len(overrides); i++) {
        const struct ynode *k = ynode_key(overrides, i);
        static const char *const own_rules[] = {"label", "depends_on", "timeout_in_minutes", "env",
                                                "working_dir", "parallelism", "num_devices", "num_gpus",
                                                "source_file_dependencies", NULL};
        bool special = false;

        for (size_t r = 0; own_rules[r] && !special; r++)
            special = ynode_scalar_is(k, own_rules[r]);
        if (special)
            continue;
        if (ynode_scalar_is(k, "commands"))
            ynode_remove(amd, "command");
        if (set_copy(doc, amd, ynode_scalar(k, NULL), ynode_value(overrides, i)) != 0)
            return out_of_memory(ta, overrides);
    }
    if (truthy(ynode_get(overrides, "commands")) && ynode_has(overrides, "working_dir"))
        dir = ynode_get(overrides, "working_dir");
    num = ynode_get(overrides, "num_devices") ? ynode_get(overrides, "num_devices") : ynode_get(overrides, "num_gpus");
    amd_key = key ? malloc(len + 5) : NULL;
    if (amd_key)
        sprintf(amd_key, "amd-%s", key);
    if ((key && set_made(doc, amd, "key", amd_key, len + 4, ynode_pos(ynode_get(parent, "key"))) != 0) ||
        (!ynode_has(overrides, "dind") && ynode_set(doc, amd, "dind", ynode_new_plain(doc, "true", pos)) != 0) ||
        (ynode_get(overrides, "label") ? set_copy(doc, amd, "label", ynode_get(overrides, "label"))
                                       : amd_label(doc, amd, ynode_get(parent, "label"), ynode_get(overrides, "device"))) != 0 ||
        amd_depends_on(doc, amd, ynode_get(overrides, "depends_on"), pos) != 0 ||
        amd_timeout(doc, amd, ynode_get(overrides, "timeout_in_minutes"), pos) != 0 ||
        amd_env(doc, amd, overrides) != 0 || (num && set_copy(doc, amd, "num_devices", num) != 0) ||
        mirror_sources(doc, amd, parent, overrides) != 0)
        return out_of_memory(ta, overrides);
    mirror_parallelism(ta, amd, parent, overrides);
    /* the parent's label and node count decide, as the generator copies the parent */
    if (finish_step(ta, doc, amd, effective_dir(dir, ynode_get(parent, "label"), ynode_get(parent, "num_nodes"))) != 0)
        return out_of_memory(ta, overrides);
    return 0;
}

/* Checks one step and files it in `steps` (its document `item` is taken into `doc`, no
 * copy); what it becomes is decided when the file is read (finish_file). */
static int add_step(struct testarea *ta, struct ynode *step, struct ynode_doc *item,
                    struct ynode_doc *doc, struct ynode *steps)
{
    const struct ynode *overrides;

    if (!ynode_is_map(step))
        return ta_error_at(ta, step, "%s", "a test-area step must be a mapping");
    if (ta_check_step(ta, item, step, &overrides) != 0)
        return -1;
    if (!ynode_is_scalar(ynode_get(step, "label")))
        return ta_error_at(ta, step, "%s", "a test-area step needs a label");
    if (ynode_has(step, "group")) {
        struct ypos p = ynode_pos(ynode_get(step, "group"));

        /* step.py parse_steps_from_yaml: a file's group is every step's */
        diag_at(ta->diag, DIAG_NOTE, DIAG_FINDING, ta->files, p, RULE_TESTAREA_IGNORED,
                "a step's group has no effect: the file's group is every step's");
        ynode_remove(step, "group");
    }
    /* The generator makes a command step of every step: with no commands (none written, or
     * null) it runs only its setup, and the rendering shows none of its own. A `command`
     * (which it does not read) is kept for review, as every field is. */
    if (!ynode_has(step, "commands") && !ynode_has(step, "command") &&
        ynode_set(doc, step, "commands", ynode_new_seq(doc, ynode_pos(step))) != 0)
        return out_of_memory(ta, step);
    if (ensure_key(ta, doc, step) != 0)
        return -1;
    if (ynode_append(doc, steps, step) != 0)
        return out_of_memory(ta, step);
    ynode_doc_adopt(doc, item);
    return 1;
}

/* What a file with a depends_on gives each of its steps (ci-infra step.py
 * read_steps_from_job_dir): that depends_on when the step's is missing or empty, the
 * working directory /vllm-workspace/tests when it has none, and the file's own path
 * as a source dependency. */
static int file_defaults(const struct testarea *ta, struct ynode_doc *doc, struct ynode *step,
                         const struct ynode *dep, const char *path)
{
    struct ynode *sources = ynode_get(step, "source_file_dependencies");
    struct ypos pos = ynode_pos(dep);

    if (!truthy(ynode_get(step, "depends_on")) && set_copy(doc, step, "depends_on", dep) != 0)
        return out_of_memory(ta, step);
    if (!truthy(ynode_get(step, "working_dir")) &&
        ynode_set(doc, step, "working_dir",
                  ynode_new_string(doc, TA_DEFAULT_WORKING_DIR, strlen(TA_DEFAULT_WORKING_DIR), pos)) != 0)
        return out_of_memory(ta, step);
    sources = ynode_is_seq(sources) ? ynode_copy_shallow(doc, sources) : ynode_new_seq(doc, pos);
    if (!sources || ynode_append(doc, sources, ynode_new_string(doc, path, strlen(path), pos)) != 0 ||
        ynode_set(doc, step, "source_file_dependencies", sources) != 0)
        return out_of_memory(ta, step);
    return 0;
}

/* The path the generator gives a file (os.path.relpath from the repository root, where
 * it walks .buildkite/test_areas): the part of `name` from its last "test_areas/" on,
 * else its base name, under .buildkite/test_areas/. The same file read from two
 * checkouts (a diff's base and head) gets the same path. */
static void generator_path(const char *name, char *buf, size_t cap)
{
    const char *at = name, *p;

    for (p = name; (p = strstr(p, "test_areas/")) != NULL; p++)
        at = p + strlen("test_areas/");
    if (at == name && (p = strrchr(name, '/')) != NULL)
        at = p + 1;
    snprintf(buf, cap, ".buildkite/test_areas/%s", at);
}

/* The block step the generator puts before the AMD step just added (buildkite_step.py
 * convert_group_step_to_buildkite_step): of a step on an AMD GPU (`parent` NULL), "Run
 * <its AMD label>" after its depends_on; of `parent`'s mirror, "Run <the mirror's label>"
 * or "Run AMD: <parent's label>" after the mirror's first dependency (the AMD image
 * build by default). The AMD step waits for it last; the block's key is
 * block-amd-<the step's key>. */
static int block_last_amd(struct testarea *ta, const struct ynode *parent, const char *why)
{
    size_t at = ynode_len(ta->amd_steps) - 1;
    struct ynode *amd = ynode_item(ta->amd_steps, at), *first;
    const struct ynode *deps = ynode_get(amd, "depends_on"), *own = ynode_get(ynode_get(parent, "mirror"), "amd");
    const char *label = ynode_scalar(ynode_get(amd, "label"), NULL);
    char *text = NULL;
    int rc;

    if (!parent)
        return ta_block_step(ta, ta->amd, ta->amd_steps, at, label, "block-amd-", deps, false, why) < 0
                   ? out_of_memory(ta, amd)
                   : 0;
    if (!ynode_get(own, "label") && asprintf(&text, "AMD: %s", ynode_scalar(ynode_get(parent, "label"), NULL)) < 0)
        return out_of_memory(ta, amd);
    first = ynode_new_seq(ta->amd, ynode_pos(amd));
    deps = ynode_is_seq(deps) && ynode_len(deps) ? ynode_item(deps, 0) : ynode_scalar(deps, NULL) ? deps : NULL;
    rc = !first || ynode_append(ta->amd, first, deps ? ynode_copy(ta->amd, deps)
                                                   : ynode_new_string(ta->amd, TA_AMD_IMAGE_BUILD,
                                                                      strlen(TA_AMD_IMAGE_BUILD), ynode_pos(amd))) != 0 ||
         /* the mirror's key is amd-<key> already: block-amd-<key> */
         ta_block_step(ta, ta->amd, ta->amd_steps, at, text ? text : label, "block-", first, false, why) < 0;
    free(text);
    return rc ? out_of_memory(ta, amd) : 0;
}

/* A file's steps once the whole file is read (its depends_on may come after them): the
 * file's defaults, each step's mirror into the AMD group, a step on an AMD GPU moved
 * there, the --platform filter, and each step's directory. */
static int finish_file(struct testarea *ta, struct ynode_doc *doc, struct ynode *steps, const struct ynode *dep,
                       const char *name)
{
    char path[512];

    generator_path(name, path, sizeof(path));
    for (size_t i = 0; i < ynode_len(steps);) {
        struct ynode *step = ynode_item(steps, i);
        const struct ynode *overrides = ynode_get(ynode_get(step, "mirror"), "amd");
        const struct ynode *device = ynode_get(step, "device");

        const char *why;
        int blocks = 0;

        if (truthy(dep) && file_defaults(ta, doc, step, dep, path) != 0)
            return -1;
        if (is_amd_gpu(device) && platform_wants(ta, true)) {
            why = ta_step_not_run(ta, step, true);
            /* the generator files it before it looks for a mirror: it has none */
            ynode_remove(step, "mirror");
            if (add_amd_device_step(ta, step) != 0 || (why && block_last_amd(ta, NULL, why) != 0))
                return -1;
            ynode_remove_at(steps, i);
            continue;
        }
        if (overrides && platform_wants(ta, true)) {
            why = ta_mirror_not_run(ta, step, overrides);
            if (add_mirror_step(ta, step, overrides) != 0 || (why && block_last_amd(ta, step, why) != 0))
                return -1;
        }
        ynode_remove(step, "mirror");
        if (!platform_wants(ta, is_amd_platform(device))) {
            ynode_remove_at(steps, i);
            continue;
        }
        why = ta_step_not_run(ta, step, false);
        if (finish_step(ta, doc, step, effective_dir(ynode_get(step, "working_dir"), ynode_get(step, "label"),
                                                      ynode_get(step, "num_nodes"))) != 0)
            return out_of_memory(ta, step);
        if (why && (blocks = ta_block_step(ta, doc, steps, i, ynode_scalar(ynode_get(step, "label"), NULL), "block-",
                                           NULL, true, why)) < 0)
            return out_of_memory(ta, step);
        i += 1 + (size_t)blocks;
    }
    return 0;
}

int testarea_file(struct testarea *ta, struct stream *s, struct ynode_doc **out)
{
    struct ynode_doc *file_doc;
    struct ynode *steps = NULL, *group = NULL, *dep = NULL;
    struct stream_item item;
    struct ypos start = {0, 1, 1};
    int more, rc = 0, docs = 0;

    *out = NULL;
    /* `group` and `depends_on` are kept in the file's document until the steps are known. */
    if (!(file_doc = new_group("", 0, start, &steps)))
        return -1;
    while (rc == 0 && (more = stream_next(s, &item)) != 0) {
        struct ynode *root = item.doc ? ynode_doc_root(item.doc) : NULL;

        if (more < 0) {
            rc = -1;
            break;
        }
        if (ta->observe)
            ta->observe(ta->observe_user, &item);
        switch (item.kind) {
        case STREAM_DOC_START:
            start = item.pos;
            if (++docs > 1)
                rc = ta_error_at(ta, ynode_doc_root(file_doc), "%s",
                                 "a test-area file holds one document");
            break;
        case STREAM_STEPS_START:
            if (item.bare)
                rc = ta_error_at(ta, ynode_doc_root(file_doc), "%s",
                                 "a test-area file is a mapping with group, depends_on and steps");
            break;
        case STREAM_PAIR: {
            const struct ynode *k = ynode_key(root, 0), *v = ynode_value(root, 0);
            size_t len;
            const char *name = ynode_scalar(k, &len);

            if (ynode_scalar_is(k, "group")) {
                if (!ta_is_string(v))
                    rc = ta_error_at(ta, v ? v : k, "%s", "group must be a string");
                else
                    group = ynode_copy(file_doc, v);
            } else if (ynode_scalar_is(k, "depends_on")) {
                if (!ta_is_depends_on(v))
                    rc = ta_error_at(ta, v ? v : k, "%s", "depends_on must be a list of step keys "
                                                          "(step.py: a list; the file's goes into each step's)");
                else
                    dep = ynode_copy(file_doc, v);
            } else {
                static const char *const top[] = {"group", "depends_on", "steps", NULL};
                char phrase[SUGGEST_PHRASE_MAX];

                /* read_steps_from_job_dir reads these three and ignores the rest */
                diag_at(ta->diag, DIAG_ERROR, DIAG_FINDING, ta->files, ynode_pos(k), RULE_UNKNOWN_KEY,
                        "unknown top-level field '%.*s' in a test-area file (group, depends_on, steps)%s",
                        SHORT(len), name ? name : "",
                        suggest_phrase(name ? suggest_closest(name, len, top, suggest_limit(len)) : NULL, phrase));
            }
            break;
        }
        case STREAM_STEP:
            rc = add_step(ta, ynode_item(root, 0), item.doc, file_doc, steps);
            if (rc > 0) { /* the step's document now belongs to the file's */
                item.doc = NULL;
                rc = 0;
            }
            break;
        case STREAM_STEPS_END:
        case STREAM_DOC_END:
            break;
        }
        ynode_doc_destroy(item.doc);
    }
    if (rc == 0 && !group) {
        diag_at(ta->diag, DIAG_ERROR, DIAG_INPUT, ta->files, start,
                RULE_TESTAREA, "a test-area file needs 'group' (its group label)");
        rc = -1;
    }
    if (rc == 0) {
        struct ynode *g = ynode_item(ynode_doc_root(file_doc), 0);
        size_t len;
        const char *name = ynode_scalar(group, &len);

        g->pos = start;
        /* The group's name is a string, whatever it looked like in the file. */
        if (ynode_set(file_doc, g, "group", ynode_new_string(file_doc, name, len, group->pos)) != 0)
            rc = out_of_memory(ta, group);
        else
            rc = finish_file(ta, file_doc, steps, dep, ta->files[start.file]);
    }
    if (rc == 0 && ynode_len(steps))
        *out = file_doc;
    else
        ynode_doc_destroy(file_doc);
    return rc;
}

struct ynode_doc *testarea_take_amd_group(struct testarea *ta)
{
    struct ynode_doc *amd = ta->amd;

    ta->amd = NULL;
    ta->amd_steps = NULL;
    return amd;
}

/* ---- the dialect: one document whose steps are a group per file, then the AMD group ---- */

enum phase { PH_DOC_START, PH_STEPS_START, PH_FILES, PH_AMD, PH_STEPS_END, PH_DOC_END, PH_DONE };

struct dialect_reader {
    struct dialect_input in;
    struct testarea *ta;
    size_t file;
    enum phase phase;
};

/* The dialect's options, their choices in the order of enum ta_platform and enum
 * ta_mirror_parallelism. */
static const char *const platforms[] = {"all", "nvidia", "amd", NULL};
static const char *const mirror_modes[] = {"own", "inherit", NULL};

static const struct dialect_option ta_options[] = {
    {"platform", true, platforms, false, DIALECT_OPTION_RENDER,
     "      --platform all|nvidia|amd\n"
     "                             test-area input: which steps to render (default all)\n",
     "dialect", OPTION_NOT_PATH},
    {"mirror-parallelism", true, mirror_modes, true, DIALECT_OPTION_RENDER,
     "      --mirror-parallelism own|inherit\n"
     "                             test-area input: mirror.amd.parallelism as the\n"
     "                             generator with ci-infra#473 reads it (own, default)\n"
     "                             or as one without it (inherit: the parent's count);\n"
     "                             diff: given twice, BASE's then HEAD's\n",
     "dialect", OPTION_NOT_PATH},
    {NULL, false, NULL, false, 0, NULL, NULL, OPTION_NOT_PATH},
};

static struct dialect_reader *ta_open(const struct dialect_input *in, dialect_observe_fn observe,
                                      void *user)
{
    struct dialect_reader *r = calloc(1, sizeof(*r));
    struct ta_options opts = {
        .platform = (enum ta_platform)dialect_options_value(in->options, &ta_options[0], in->side),
        .mirror_parallelism = (enum ta_mirror_parallelism)dialect_options_value(in->options, &ta_options[1], in->side),
        .upload = in->upload,
        .change = in->change,
        .on_not_run = in->on_not_run,
        .not_run_user = in->not_run_user,
        .keep_not_run = in->keep_not_run,
    };

    if (!r)
        return NULL;
    r->in = *in;

    r->ta = testarea_create(in->diag, in->names, &opts);
    if (!r->ta) {
        free(r);
        return NULL;
    }
    if (observe)
        testarea_observe(r->ta, observe, user);
    return r;
}

static int ta_next(struct dialect_reader *r, struct stream_item *item)
{
    memset(item, 0, sizeof(*item));
    switch (r->phase) {
    case PH_DOC_START:
        r->phase = PH_STEPS_START;
        item->kind = STREAM_DOC_START;
        return 1;
    case PH_STEPS_START:
        r->phase = PH_FILES;
        item->kind = STREAM_STEPS_START;
        item->items_key = "steps";
        return 1;
    case PH_FILES:
        while (r->file < r->in.n) {
            struct stream *s;
            int rc;

            s = stream_open_shaped(r->in.sources[r->file], (unsigned)r->file, testarea_shape, r->in.diag);
            rc = s ? testarea_file(r->ta, s, &item->doc) : -1;
            stream_close(s);
            r->file++;
            if (rc != 0)
                return -1;
            if (item->doc) {
                item->kind = STREAM_STEP;
                /* the file's group: the item is its file's (lint counts jobs by build) */
                item->pos = ynode_pos(ynode_item(ynode_doc_root(item->doc), 0));
                return 1;
            }
        }
        r->phase = PH_AMD;
        /* fall through */
    case PH_AMD:
        r->phase = PH_STEPS_END;
        item->doc = testarea_take_amd_group(r->ta);
        if (item->doc) {
            item->kind = STREAM_STEP;
            item->pos = ynode_pos(ynode_item(ynode_doc_root(item->doc), 0)); /* its first mirror's */
            return 1;
        }
        /* fall through */
    case PH_STEPS_END:
        r->phase = PH_DOC_END;
        item->kind = STREAM_STEPS_END;
        return 1;
    case PH_DOC_END:
        r->phase = PH_DONE;
        item->kind = STREAM_DOC_END;
        return 1;
    case PH_DONE:
        break;
    }
    return 0;
}

static void ta_close(struct dialect_reader *r)
{
    if (!r)
        return;
    testarea_destroy(r->ta);
    free(r);
}

static bool in_test_areas(const char *path)
{
    const char *at = strstr(path, "test_areas/");

    return at && (at == path || at[-1] == '/');
}

/* A file with a top-level `group` (vLLM's generator reads the .yaml files of test_areas) in a
 * test_areas folder, or whose first step has only test-area fields, or no step: ray's
 * rayci files have a top-level group too, with steps of other fields (name, wanda). */
static bool ta_detect(const struct stream_item *item, const struct dialect_probe *probe)
{
    if (item->kind == STREAM_PAIR && ynode_scalar_is(ynode_key(ynode_doc_root(item->doc), 0), "group"))
        return in_test_areas(dialect_probe_path(probe));
    if (!dialect_probe_has_key(probe, "group") || dialect_probe_items(probe) > 0)
        return false;
    return (item->kind == STREAM_STEP && ta_step_fields_known(ynode_item(ynode_doc_root(item->doc), 0))) ||
           item->kind == STREAM_DOC_END;
}

const struct dialect_derived dialect_testarea_mirror = {"amd-", "mirror amd:"};

const struct dialect dialect_testarea = {
    .name = "testarea",
    .description = "vLLM test-area file",
    .upload_help = "test-area input: the working directory as a leading cd, fields only the generator reads dropped",
    .shape = testarea_shape,
    DIALECT_BUILDKITE_STEPS, /* its rendering is Buildkite steps */
    .input_schema = "testarea",
    .render_checks_input = true,
    .open = ta_open,
    .next = ta_next,
    .close = ta_close,
    .expand = dialect_buildkite_expand_checked,
    .options = ta_options,
    .detect = ta_detect,
    .not_input = ta_jobdirs_not_input,
    .builds = ta_jobdirs_builds,
};
