#include "fanout/testarea.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/buildkite.h"
#include "fanout/ynode.h"
#include "fanout/yscalar.h"

enum ftype {
    F_STR,   /* a scalar */
    F_INT,   /* a plain integer */
    F_BOOL,  /* true or false */
    F_STRS,  /* a list of scalars */
    F_DEPS,  /* a key, a list of keys, or null */
    F_CMDS,  /* a command or a list of commands */
    F_MAP,   /* a mapping */
    F_PAR,   /* parallelism: checked where it is used */
};

struct field {
    const char *name;
    enum ftype type;
};

/* The fields vLLM's generator reads from a test-area step (ci-infra step.py and the
 * corpus); anything else is a typo that the generator would drop silently. */
static const struct field step_fields[] = {
    {"label", F_STR},          {"key", F_STR},
    {"commands", F_CMDS},      {"command", F_CMDS},
    {"depends_on", F_DEPS},    {"device", F_STR},
    {"timeout_in_minutes", F_INT}, {"parallelism", F_PAR},
    {"optional", F_BOOL},      {"soft_fail", F_BOOL},
    {"source_file_dependencies", F_STRS}, {"env", F_MAP},
    {"working_dir", F_STR},    {"num_devices", F_INT},
    {"num_gpus", F_INT},       {"num_nodes", F_INT},
    {"gpu", F_STR},            {"no_gpu", F_BOOL},
    {"no_plugin", F_BOOL},     {"dind", F_BOOL},
    {"autorun_on_main", F_BOOL}, {"mount_buildkite_agent", F_BOOL},
    {"retry", F_MAP},          {"agent_tags", F_MAP},
    {"concurrency", F_INT},    {"concurrency_group", F_STR},
    {"mirror", F_MAP},         {NULL, F_STR},
};

/* What a mirror may override. */
static const struct field mirror_fields[] = {
    {"label", F_STR},          {"device", F_STR},
    {"timeout_in_minutes", F_INT}, {"depends_on", F_DEPS},
    {"dind", F_BOOL},          {"source_file_dependencies", F_STRS},
    {"commands", F_CMDS},      {"working_dir", F_STR},
    {"soft_fail", F_BOOL},     {"optional", F_BOOL},
    {"parallelism", F_PAR},    {"env", F_MAP},
    {"num_devices", F_INT},    {"num_gpus", F_INT},
    {"num_nodes", F_INT},      {"no_plugin", F_BOOL},
    {"no_gpu", F_BOOL},        {"concurrency", F_INT},
    {"concurrency_group", F_STR}, {"agent_tags", F_MAP},
    {"retry", F_MAP},          {NULL, F_STR},
};

struct testarea {
    struct diag *diag;
    const char *const *files;
    enum ta_platform platform;
    bool upload;
    ta_observe_fn observe;
    void *observe_user;
    struct fy_document *amd;   /* the AMD group being built, or NULL */
    struct fy_node *amd_steps; /* its steps */
};

#define SHORT(len) ((int)((len) > 80 ? 80 : (len)))

static int error_at(const struct testarea *ta, struct fy_node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int error_at(const struct testarea *ta, struct fy_node *at, const char *fmt, ...)
{
    struct ypos p = ynode_pos(at);
    va_list ap;

    va_start(ap, fmt);
    diag_vreport(ta->diag, DIAG_ERROR, DIAG_INPUT, ta->files[p.file], p.line, p.col, "testarea",
                 fmt, ap);
    va_end(ap);
    return -1;
}

static int out_of_memory(const struct testarea *ta, struct fy_node *at)
{
    return error_at(ta, at, "%s", "out of memory");
}

struct testarea *testarea_create(struct diag *d, const char *const *files, enum ta_platform platform,
                                 bool upload)
{
    struct testarea *ta = calloc(1, sizeof(*ta));

    if (!ta)
        return NULL;
    ta->diag = d;
    ta->files = files;
    ta->platform = platform;
    ta->upload = upload;
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
    if (ta->amd)
        fy_document_destroy(ta->amd);
    free(ta);
}

static bool is_scalar_value(struct fy_node *v)
{
    return v && fy_node_is_scalar(v) && !ynode_is_null(v);
}

static bool is_scalar_list(struct fy_node *v)
{
    struct fy_node *item;
    void *it = NULL;

    if (!v || !fy_node_is_sequence(v))
        return false;
    while ((item = fy_node_sequence_iterate(v, &it)) != NULL) {
        if (!is_scalar_value(item))
            return false;
    }
    return true;
}

static bool is_bool(struct fy_node *v)
{
    size_t len;
    const char *t = ynode_scalar(v, &len);

    return t && !ynode_is_string(v) && yscalar_type(t, len) == YS_BOOL;
}

static const char *type_name(enum ftype type)
{
    switch (type) {
    case F_STR:
        return "a string";
    case F_INT:
        return "an integer";
    case F_BOOL:
        return "true or false";
    case F_STRS:
        return "a list of strings";
    case F_DEPS:
        return "a step key or a list of step keys";
    case F_CMDS:
        return "a command or a list of commands";
    case F_MAP:
        return "a mapping";
    case F_PAR:
        break;
    }
    return "an integer from 1 to 1000";
}

static bool type_ok(enum ftype type, struct fy_node *v)
{
    long long n;

    switch (type) {
    case F_STR:
        return is_scalar_value(v);
    case F_INT:
        return ynode_int(v, &n);
    case F_BOOL:
        return is_bool(v);
    case F_STRS:
        return is_scalar_list(v);
    case F_DEPS:
        return !v || ynode_is_null(v) || is_scalar_value(v) || is_scalar_list(v);
    case F_CMDS:
        return is_scalar_value(v) || is_scalar_list(v);
    case F_MAP:
        return v && fy_node_is_mapping(v);
    case F_PAR:
        return ynode_int(v, &n) && n >= 1 && n <= 1000;
    }
    return false;
}

static const struct field *find_field(const struct field *fields, const char *key, size_t len)
{
    for (; fields->name; fields++) {
        if (strlen(fields->name) == len && memcmp(fields->name, key, len) == 0)
            return fields;
    }
    return NULL;
}

/* Checks every key of `map` against `fields`. In messages `what` names the mapping and
 * `prefix` goes before field names. parallelism is left to the expansion unless
 * `check_parallelism`. */
static int check_fields(const struct testarea *ta, struct fy_node *map, const struct field *fields,
                        const char *what, const char *prefix, bool check_parallelism)
{
    struct fy_node_pair *p;
    void *it = NULL;

    while ((p = fy_node_mapping_iterate(map, &it)) != NULL) {
        struct fy_node *k = fy_node_pair_key(p), *v = fy_node_pair_value(p);
        size_t len, vlen = 0;
        const char *name = ynode_scalar(k, &len);
        const struct field *f = name ? find_field(fields, name, len) : NULL;
        const char *vt;

        if (!f)
            return error_at(ta, k, "unknown field '%.*s' in %s", SHORT(len), name ? name : "",
                            what);
        if (f->type == F_PAR && !check_parallelism)
            continue;
        if (type_ok(f->type, v))
            continue;
        vt = ynode_scalar(v, &vlen);
        if (vt && !ynode_is_null(v))
            return error_at(ta, v ? v : k, "%s%s must be %s, got '%.*s'%s", prefix, f->name,
                            type_name(f->type), SHORT(vlen), vt, ynode_int_hint(v));
        return error_at(ta, v ? v : k, "%s%s must be %s, got %s", prefix, f->name,
                        type_name(f->type),
                        !v || ynode_is_null(v) ? "nothing" : fy_node_is_mapping(v) ? "a mapping" : "a list");
    }
    return 0;
}

/* The `amd` overrides of a step's mirror (NULL when it has none), after checking the
 * mirror's shape. -1 after an error. */
static int read_mirror(const struct testarea *ta, struct fy_node *step, struct fy_node **amd)
{
    struct fy_node *mirror = ynode_get(step, "mirror");
    struct fy_node_pair *p;
    void *it = NULL;

    *amd = NULL;
    if (!mirror)
        return 0;
    while ((p = fy_node_mapping_iterate(mirror, &it)) != NULL) {
        struct fy_node *k = fy_node_pair_key(p), *v = fy_node_pair_value(p);
        size_t len;
        const char *name = ynode_scalar(k, &len);

        if (!ynode_scalar_is(k, "amd"))
            return error_at(ta, k, "mirror platform '%.*s' is not supported (only amd)",
                            SHORT(len), name ? name : "");
        if (!v || !fy_node_is_mapping(v))
            return error_at(ta, v ? v : k, "%s", "mirror.amd must be a mapping of overrides");
        if (check_fields(ta, v, mirror_fields, "mirror.amd", "mirror.amd.", true) != 0)
            return -1;
        *amd = v;
    }
    return 0;
}

/* AMD devices (mi300_1, mi355_2, ...) belong to the AMD platform. */
static bool is_amd_device(struct fy_node *device)
{
    size_t len;
    const char *t = ynode_scalar(device, &len);

    return t && ((len > 2 && t[0] == 'm' && t[1] == 'i' && t[2] >= '0' && t[2] <= '9') ||
                 (len >= 3 && memcmp(t, "amd", 3) == 0));
}

static bool platform_wants(const struct testarea *ta, bool amd)
{
    return ta->platform == TA_ALL || (ta->platform == TA_AMD) == amd;
}

/* A document whose root is a one-item sequence holding {group: name, steps: []};
 * *steps is that steps list. */
static struct fy_document *new_group(const char *name, size_t len, struct ypos pos,
                                     struct fy_node **steps)
{
    struct fy_document *fyd = ynode_document_new();
    struct fy_node *root, *group;

    if (!fyd)
        return NULL;
    root = fy_node_create_sequence(fyd);
    if (!root || fy_document_set_root(fyd, root) != 0) {
        fy_node_free(root);
        goto fail;
    }
    group = fy_node_create_mapping(fyd);
    if (!group || fy_node_sequence_append(root, group) != 0) {
        fy_node_free(group);
        goto fail;
    }
    ynode_set_pos(root, pos);
    ynode_set_pos(group, pos);
    /* ynode_set consumes its value, also when it fails. */
    if (ynode_set(group, "group", ynode_string(fyd, name, len, pos)) != 0 ||
        ynode_set(group, "steps", fy_node_create_sequence(fyd)) != 0)
        goto fail;
    *steps = ynode_get(group, "steps");
    ynode_set_pos(*steps, pos);
    return fyd;
fail:
    fy_document_destroy(fyd);
    return NULL;
}

/* Sets `key` of `map` to a copy of `value` (from any document). */
static int set_copy(struct fy_node *map, const char *key, struct fy_node *value)
{
    return ynode_set(map, key, ynode_copy(fy_node_document(map), value));
}

/* depends_on of an AMD step: the mirror's entries, plus image-build-amd. */
static int amd_depends_on(struct fy_node *amd, struct fy_node *overrides)
{
    struct fy_document *fyd = fy_node_document(amd);
    struct fy_node *dep = ynode_get(overrides, "depends_on");
    struct fy_node *list = fy_node_create_sequence(fyd);
    bool has_image = false;
    struct ypos pos = ynode_pos(dep ? dep : overrides);

    if (!list)
        return -1;
    ynode_set_pos(list, pos);
    if (dep && !ynode_is_null(dep)) {
        struct fy_node *items[1] = {dep}, **entries = items;
        size_t n = 1;

        if (fy_node_is_sequence(dep))
            entries = ynode_items(dep, &n);
        for (size_t i = 0; i < n; i++) {
            struct fy_node *c = ynode_copy(fyd, entries[i]);

            has_image = has_image || ynode_scalar_is(entries[i], TA_AMD_IMAGE_BUILD);
            if (!c || fy_node_sequence_append(list, c) != 0) {
                fy_node_free(c);
                if (entries != items)
                    free(entries);
                fy_node_free(list);
                return -1;
            }
        }
        if (entries != items)
            free(entries);
    }
    if (!has_image) {
        struct fy_node *img = ynode_string(fyd, TA_AMD_IMAGE_BUILD, strlen(TA_AMD_IMAGE_BUILD), pos);

        if (!img || fy_node_sequence_append(list, img) != 0) {
            fy_node_free(img);
            fy_node_free(list);
            return -1;
        }
    }
    return ynode_set(amd, "depends_on", list);
}

/* The AMD label: the mirror's, else "AMD: <label> (<device>)". */
static int amd_label(struct fy_node *amd, struct fy_node *parent, struct fy_node *overrides)
{
    struct fy_node *label = ynode_get(overrides, "label"), *device, *plabel;
    size_t llen = 0, dlen = 0;
    const char *l, *dv;
    char *text;
    int n, rc;

    if (label)
        return set_copy(amd, "label", label);
    device = ynode_get(overrides, "device");
    if (!device)
        device = ynode_get(parent, "device");
    plabel = ynode_get(parent, "label");
    l = ynode_scalar(plabel, &llen);
    dv = ynode_scalar(device, &dlen);
    if (!l)
        return 0;
    text = malloc(llen + dlen + 16);
    if (!text)
        return -1;
    n = dv ? sprintf(text, "AMD: %.*s (%.*s)", (int)llen, l, (int)dlen, dv)
           : sprintf(text, "AMD: %.*s", (int)llen, l);
    rc = ynode_set(amd, "label", ynode_string(fy_node_document(amd), text, (size_t)n, ynode_pos(plabel)));
    free(text);
    return rc;
}

static int amd_timeout(struct fy_node *amd, struct fy_node *overrides)
{
    struct fy_node *t = ynode_get(overrides, "timeout_in_minutes");
    long long minutes = TA_AMD_TIMEOUT_MAX;
    char text[24];

    if (t && ynode_int(t, &minutes) && minutes > TA_AMD_TIMEOUT_MAX)
        minutes = TA_AMD_TIMEOUT_MAX;
    snprintf(text, sizeof(text), "%lld", minutes);
    return ynode_set(amd, "timeout_in_minutes",
                     ynode_plain(fy_node_document(amd), text, ynode_pos(t ? t : overrides)));
}

/* env: the parent's, with the mirror's entries winning. */
static int amd_env(struct fy_node *amd, struct fy_node *overrides)
{
    struct fy_node *menv = ynode_get(overrides, "env"), *env;
    struct fy_node_pair *p;
    void *it = NULL;

    if (!menv)
        return 0;
    env = ynode_get(amd, "env");
    if (!env)
        return set_copy(amd, "env", menv);
    while ((p = fy_node_mapping_iterate(menv, &it)) != NULL) {
        size_t len;
        const char *k = ynode_scalar(fy_node_pair_key(p), &len);
        char *key = k ? strndup(k, len) : NULL;
        int rc = key ? set_copy(env, key, fy_node_pair_value(p)) : -1;

        free(key);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Upload mode: removes the fields Buildkite does not know from a rendered step. */
static void drop_dialect_fields(struct fy_node *step)
{
    size_t n = (size_t)fy_node_mapping_item_count(step), k = 0;
    char **drop = calloc(n ? n : 1, sizeof(*drop));
    struct fy_node_pair *p;
    void *it = NULL;

    if (!drop)
        return;
    while ((p = fy_node_mapping_iterate(step, &it)) != NULL) {
        size_t len;
        const char *name = ynode_scalar(fy_node_pair_key(p), &len);

        if (name && !bk_known_key(BK_COMMAND, name, len))
            drop[k++] = strndup(name, len);
    }
    for (size_t i = 0; i < k; i++) {
        if (drop[i])
            ynode_remove(step, drop[i]);
        free(drop[i]);
    }
    free(drop);
}

/* Builds the AMD step for `parent` from its mirror overrides, in the AMD group. */
static int add_amd_step(struct testarea *ta, struct fy_node *parent, struct fy_node *overrides)
{
    struct fy_node *amd, *keynode = ynode_get(parent, "key");
    struct fy_node_pair *p;
    void *it = NULL;
    size_t len;
    const char *key;

    if (!ta->amd) {
        ta->amd = new_group(TA_AMD_GROUP, strlen(TA_AMD_GROUP), ynode_pos(overrides), &ta->amd_steps);
        if (!ta->amd)
            return out_of_memory(ta, overrides);
    }
    amd = ynode_copy(ta->amd, parent);
    if (!amd || fy_node_sequence_append(ta->amd_steps, amd) != 0) {
        fy_node_free(amd);
        return out_of_memory(ta, overrides);
    }
    ynode_remove(amd, "mirror");
    /* Plain overrides: every mirror field but the ones with rules of their own. */
    while ((p = fy_node_mapping_iterate(overrides, &it)) != NULL) {
        struct fy_node *k = fy_node_pair_key(p);
        const char *name = ynode_scalar(k, &len);
        char *field;
        int rc;

        if (ynode_scalar_is(k, "label") || ynode_scalar_is(k, "depends_on") ||
            ynode_scalar_is(k, "timeout_in_minutes") || ynode_scalar_is(k, "env"))
            continue;
        if (ynode_scalar_is(k, "commands"))
            ynode_remove(amd, "command");
        field = strndup(name, len);
        rc = field ? set_copy(amd, field, fy_node_pair_value(p)) : -1;
        free(field);
        if (rc != 0)
            return out_of_memory(ta, overrides);
    }
    if (!ynode_get(overrides, "dind") &&
        ynode_set(amd, "dind", ynode_plain(ta->amd, "true", ynode_pos(overrides))) != 0)
        return out_of_memory(ta, overrides);
    if ((key = ynode_scalar(keynode, &len)) != NULL) {
        char *amd_key = malloc(len + 5);
        int rc;

        if (!amd_key)
            return out_of_memory(ta, overrides);
        memcpy(amd_key, "amd-", 4);
        memcpy(amd_key + 4, key, len);
        rc = ynode_set(amd, "key", ynode_string(ta->amd, amd_key, len + 4, ynode_pos(keynode)));
        free(amd_key);
        if (rc != 0)
            return out_of_memory(ta, overrides);
    }
    if (amd_label(amd, parent, overrides) != 0 || amd_depends_on(amd, overrides) != 0 ||
        amd_timeout(amd, overrides) != 0 || amd_env(amd, overrides) != 0)
        return out_of_memory(ta, overrides);
    if (ta->upload)
        drop_dialect_fields(amd);
    return 0;
}

/* Checks one step and files it: its own copy in `steps`, its mirror in the AMD group. */
static int add_step(struct testarea *ta, struct fy_node *step, struct fy_node *steps)
{
    struct fy_node *overrides, *copy;
    bool amd_device;

    if (!fy_node_is_mapping(step))
        return error_at(ta, step, "%s", "a test-area step must be a mapping");
    if (check_fields(ta, step, step_fields, "a test-area step", "", false) != 0 ||
        read_mirror(ta, step, &overrides) != 0)
        return -1;
    if (!ynode_get(step, "label"))
        return error_at(ta, step, "%s", "a test-area step needs a label");
    amd_device = is_amd_device(ynode_get(step, "device"));
    if (overrides && platform_wants(ta, true) && add_amd_step(ta, step, overrides) != 0)
        return -1;
    if (!platform_wants(ta, amd_device))
        return 0;
    copy = ynode_copy(fy_node_document(steps), step);
    if (!copy || fy_node_sequence_append(steps, copy) != 0) {
        fy_node_free(copy);
        return out_of_memory(ta, step);
    }
    ynode_remove(copy, "mirror");
    if (ta->upload)
        drop_dialect_fields(copy);
    return 0;
}

/* Like vLLM's generator: a step whose depends_on is missing, null or empty takes the
 * file's. */
static int apply_file_depends_on(const struct testarea *ta, struct fy_node *steps, struct fy_node *dep)
{
    struct fy_node *step;
    void *it = NULL;

    if (!dep || ynode_is_null(dep))
        return 0;
    while ((step = fy_node_sequence_iterate(steps, &it)) != NULL) {
        struct fy_node *own = ynode_get(step, "depends_on");

        if (own && !ynode_is_null(own) &&
            !(fy_node_is_sequence(own) && fy_node_sequence_is_empty(own)))
            continue;
        if (set_copy(step, "depends_on", dep) != 0)
            return out_of_memory(ta, step);
    }
    return 0;
}

int testarea_file(struct testarea *ta, struct stream *s, struct fy_document **out)
{
    struct fy_document *file_doc = NULL, *meta = ynode_document_new();
    struct fy_node *steps = NULL, *group = NULL, *dep = NULL;
    struct stream_item item;
    struct ypos start = {0, 1, 1};
    int more, rc = 0, docs = 0;

    *out = NULL;
    /* Holds `group` and `depends_on` until the steps are known. */
    if (!meta || !(file_doc = new_group("", 0, start, &steps))) {
        if (meta)
            fy_document_destroy(meta);
        return -1;
    }
    while (rc == 0 && (more = stream_next(s, &item)) != 0) {
        struct fy_node *root = item.doc ? fy_document_root(item.doc) : NULL;

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
                rc = error_at(ta, fy_document_root(file_doc), "%s",
                              "a test-area file holds one document");
            break;
        case STREAM_STEPS_START:
            if (item.bare)
                rc = error_at(ta, fy_document_root(file_doc), "%s",
                              "a test-area file is a mapping with group, depends_on and steps");
            break;
        case STREAM_PAIR: {
            struct fy_node_pair *p = fy_node_mapping_get_by_index(root, 0);
            struct fy_node *k = fy_node_pair_key(p), *v = fy_node_pair_value(p);
            size_t len;
            const char *name = ynode_scalar(k, &len);

            if (ynode_scalar_is(k, "group")) {
                if (!is_scalar_value(v))
                    rc = error_at(ta, v ? v : k, "%s", "group must be a string");
                else
                    group = ynode_copy(meta, v);
            } else if (ynode_scalar_is(k, "depends_on")) {
                if (!type_ok(F_DEPS, v))
                    rc = error_at(ta, v ? v : k, "%s", "depends_on must be a step key or a list of step keys");
                else
                    dep = ynode_copy(meta, v);
            } else {
                rc = error_at(ta, k, "unknown top-level field '%.*s' in a test-area file (group, "
                              "depends_on, steps)", SHORT(len), name ? name : "");
            }
            break;
        }
        case STREAM_STEP:
            rc = add_step(ta, fy_node_sequence_get_by_index(root, 0), steps);
            break;
        case STREAM_STEPS_END:
        case STREAM_DOC_END:
            break;
        }
        if (item.doc)
            fy_document_destroy(item.doc);
    }
    if (rc == 0 && !group) {
        diag_report(ta->diag, DIAG_ERROR, DIAG_INPUT, ta->files[start.file], start.line, start.col,
                    "testarea", "a test-area file needs 'group' (its group label)");
        rc = -1;
    }
    if (rc == 0) {
        size_t len;
        const char *name = ynode_scalar(group, &len);
        struct fy_node *g = fy_node_sequence_get_by_index(fy_document_root(file_doc), 0);

        ynode_set_pos(g, start);
        if (ynode_set(g, "group", ynode_string(file_doc, name, len, ynode_pos(group))) != 0 ||
            apply_file_depends_on(ta, steps, dep) != 0)
            rc = out_of_memory(ta, group);
    }
    if (meta) {
        fy_node_free(group);
        fy_node_free(dep);
        fy_document_destroy(meta);
    }
    if (rc == 0 && !fy_node_sequence_is_empty(steps))
        *out = file_doc;
    else
        fy_document_destroy(file_doc);
    return rc;
}

struct fy_document *testarea_take_amd_group(struct testarea *ta)
{
    struct fy_document *amd = ta->amd;

    ta->amd = NULL;
    ta->amd_steps = NULL;
    return amd;
}

bool testarea_detect(struct source *src, struct diag *d)
{
    struct stream *s;
    struct stream_item item;
    bool found = false;
    int more;

    /* Problems in the input are for the real read to report. */
    diag_set_muted(d, true);
    s = stream_open(src, 0, d);
    while (s && !found && (more = stream_next(s, &item)) > 0) {
        if (item.kind == STREAM_PAIR)
            found = ynode_scalar_is(
                fy_node_pair_key(fy_node_mapping_get_by_index(fy_document_root(item.doc), 0)), "group");
        if (item.doc)
            fy_document_destroy(item.doc);
        if (item.kind == STREAM_STEPS_START || item.kind == STREAM_DOC_END)
            break;
    }
    stream_close(s);
    diag_set_muted(d, false);
    return found;
}
