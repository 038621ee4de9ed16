#include "fanout/testarea.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/buildkite.h"
#include "fanout/dialect.h"
#include "fanout/strset.h"
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
    struct ynode_doc *amd;   /* the AMD group being built, or NULL */
    struct ynode *amd_steps; /* its steps */
};

#define SHORT(len) ((int)((len) > 80 ? 80 : (len)))

static int error_at(const struct testarea *ta, const struct ynode *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int error_at(const struct testarea *ta, const struct ynode *at, const char *fmt, ...)
{
    struct ypos p = ynode_pos(at);
    va_list ap;

    va_start(ap, fmt);
    diag_vreport(ta->diag, DIAG_ERROR, DIAG_INPUT, ta->files[p.file], p.line, p.col, "testarea",
                 fmt, ap);
    va_end(ap);
    return -1;
}

static int out_of_memory(const struct testarea *ta, const struct ynode *at)
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
    ynode_doc_destroy(ta->amd);
    free(ta);
}

static bool is_scalar_value(const struct ynode *v)
{
    return ynode_is_scalar(v) && !ynode_is_null(v);
}

static bool is_scalar_list(const struct ynode *v)
{
    if (!ynode_is_seq(v))
        return false;
    for (size_t i = 0; i < ynode_len(v); i++) {
        if (!is_scalar_value(ynode_item(v, i)))
            return false;
    }
    return true;
}

static bool is_bool(const struct ynode *v)
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

static bool type_ok(enum ftype type, const struct ynode *v)
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
        return ynode_is_map(v);
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
static int check_fields(const struct testarea *ta, const struct ynode *map, const struct field *fields,
                        const char *what, const char *prefix, bool check_parallelism)
{
    for (size_t i = 0; i < ynode_len(map); i++) {
        const struct ynode *k = ynode_key(map, i), *v = ynode_value(map, i);
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
                        !v || ynode_is_null(v) ? "nothing" : ynode_is_map(v) ? "a mapping" : "a list");
    }
    return 0;
}

/* The `amd` overrides of a step's mirror (NULL when it has none), after checking the
 * mirror's shape. -1 after an error. */
static int read_mirror(const struct testarea *ta, const struct ynode *step, const struct ynode **amd)
{
    const struct ynode *mirror = ynode_get(step, "mirror");

    *amd = NULL;
    for (size_t i = 0; i < ynode_len(mirror); i++) {
        const struct ynode *k = ynode_key(mirror, i), *v = ynode_value(mirror, i);
        size_t len;
        const char *name = ynode_scalar(k, &len);

        if (!ynode_scalar_is(k, "amd"))
            return error_at(ta, k, "mirror platform '%.*s' is not supported (only amd)",
                            SHORT(len), name ? name : "");
        if (!ynode_is_map(v))
            return error_at(ta, v ? v : k, "%s", "mirror.amd must be a mapping of overrides");
        if (check_fields(ta, v, mirror_fields, "mirror.amd", "mirror.amd.", true) != 0)
            return -1;
        *amd = v;
    }
    return 0;
}

/* AMD devices (mi300_1, mi355_2, ...) belong to the AMD platform. */
static bool is_amd_device(const struct ynode *device)
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

/* depends_on of an AMD step: the mirror's entries, plus image-build-amd. */
static int amd_depends_on(struct ynode_doc *doc, struct ynode *amd, const struct ynode *overrides)
{
    const struct ynode *dep = ynode_get(overrides, "depends_on");
    struct ypos pos = ynode_pos(dep ? dep : overrides);
    struct ynode *list = ynode_new_seq(doc, pos);
    bool has_image = false;

    if (!list)
        return -1;
    if (dep && !ynode_is_null(dep)) {
        size_t n = ynode_is_seq(dep) ? ynode_len(dep) : 1;

        for (size_t i = 0; i < n; i++) {
            const struct ynode *entry = ynode_is_seq(dep) ? ynode_item(dep, i) : dep;

            has_image = has_image || ynode_scalar_is(entry, TA_AMD_IMAGE_BUILD);
            if (ynode_append(doc, list, ynode_copy(doc, entry)) != 0)
                return -1;
        }
    }
    if (!has_image &&
        ynode_append(doc, list, ynode_new_string(doc, TA_AMD_IMAGE_BUILD, strlen(TA_AMD_IMAGE_BUILD), pos)) != 0)
        return -1;
    return ynode_set(doc, amd, "depends_on", list);
}

/* The AMD label: the mirror's, else "AMD: <label> (<device>)". */
static int amd_label(struct ynode_doc *doc, struct ynode *amd, const struct ynode *parent,
                     const struct ynode *overrides)
{
    const struct ynode *label = ynode_get(overrides, "label"), *device, *plabel;
    size_t llen = 0, dlen = 0;
    const char *l, *dv;
    char *text;
    int n, rc;

    if (label)
        return set_copy(doc, amd, "label", label);
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
    rc = ynode_set(doc, amd, "label", ynode_new_string(doc, text, (size_t)n, ynode_pos(plabel)));
    free(text);
    return rc;
}

static int amd_timeout(struct ynode_doc *doc, struct ynode *amd, const struct ynode *overrides)
{
    const struct ynode *t = ynode_get(overrides, "timeout_in_minutes");
    long long minutes = TA_AMD_TIMEOUT_MAX;
    char text[24];

    if (t && ynode_int(t, &minutes) && minutes > TA_AMD_TIMEOUT_MAX)
        minutes = TA_AMD_TIMEOUT_MAX;
    snprintf(text, sizeof(text), "%lld", minutes);
    return ynode_set(doc, amd, "timeout_in_minutes", ynode_new_plain(doc, text, ynode_pos(t ? t : overrides)));
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

/* Upload mode: removes the fields Buildkite does not know from a rendered step. */
static void drop_dialect_fields(struct ynode *step)
{
    for (size_t i = ynode_len(step); i-- > 0;) {
        size_t len;
        const char *name = ynode_scalar(ynode_key(step, i), &len);

        if (!bk_known_key(BK_COMMAND, name, len))
            ynode_remove_at(step, i);
    }
}

/* Builds the AMD step for `parent` from its mirror overrides, in the AMD group. */
static int add_amd_step(struct testarea *ta, const struct ynode *parent, const struct ynode *overrides)
{
    const struct ynode *keynode = ynode_get(parent, "key");
    struct ynode_doc *doc;
    struct ynode *amd;
    size_t len;
    const char *key;

    if (!ta->amd) {
        ta->amd = new_group(TA_AMD_GROUP, strlen(TA_AMD_GROUP), ynode_pos(overrides), &ta->amd_steps);
        if (!ta->amd)
            return out_of_memory(ta, overrides);
    }
    doc = ta->amd;
    amd = ynode_copy(doc, parent);
    if (!amd || ynode_append(doc, ta->amd_steps, amd) != 0)
        return out_of_memory(ta, overrides);
    ynode_remove(amd, "mirror");
    /* Plain overrides: every mirror field but the ones with rules of their own. */
    for (size_t i = 0; i < ynode_len(overrides); i++) {
        const struct ynode *k = ynode_key(overrides, i);

        if (ynode_scalar_is(k, "label") || ynode_scalar_is(k, "depends_on") ||
            ynode_scalar_is(k, "timeout_in_minutes") || ynode_scalar_is(k, "env"))
            continue;
        if (ynode_scalar_is(k, "commands"))
            ynode_remove(amd, "command");
        if (set_copy(doc, amd, ynode_scalar(k, NULL), ynode_value(overrides, i)) != 0)
            return out_of_memory(ta, overrides);
    }
    if (!ynode_get(overrides, "dind") &&
        ynode_set(doc, amd, "dind", ynode_new_plain(doc, "true", ynode_pos(overrides))) != 0)
        return out_of_memory(ta, overrides);
    if ((key = ynode_scalar(keynode, &len)) != NULL) {
        char *amd_key = malloc(len + 5);
        int rc;

        if (!amd_key)
            return out_of_memory(ta, overrides);
        memcpy(amd_key, "amd-", 4);
        memcpy(amd_key + 4, key, len);
        rc = ynode_set(doc, amd, "key", ynode_new_string(doc, amd_key, len + 4, ynode_pos(keynode)));
        free(amd_key);
        if (rc != 0)
            return out_of_memory(ta, overrides);
    }
    if (amd_label(doc, amd, parent, overrides) != 0 || amd_depends_on(doc, amd, overrides) != 0 ||
        amd_timeout(doc, amd, overrides) != 0 || amd_env(doc, amd, overrides) != 0)
        return out_of_memory(ta, overrides);
    if (ta->upload)
        drop_dialect_fields(amd);
    return 0;
}

/* Checks one step and files it: itself in `steps` (its document `item` is taken into
 * `doc`, no copy), its mirror in the AMD group. */
static int add_step(struct testarea *ta, struct ynode *step, struct ynode_doc *item,
                    struct ynode_doc *doc, struct ynode *steps)
{
    const struct ynode *overrides;
    bool amd_device;

    if (!ynode_is_map(step))
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
    if (ynode_append(doc, steps, step) != 0)
        return out_of_memory(ta, step);
    ynode_doc_adopt(doc, item);
    ynode_remove(step, "mirror");
    if (ta->upload)
        drop_dialect_fields(step);
    return 1;
}

/* Like vLLM's generator: a step whose depends_on is missing, null or empty takes the
 * file's. */
static int apply_file_depends_on(const struct testarea *ta, struct ynode_doc *doc,
                                 struct ynode *steps, const struct ynode *dep)
{
    if (!dep || ynode_is_null(dep))
        return 0;
    for (size_t i = 0; i < ynode_len(steps); i++) {
        struct ynode *step = ynode_item(steps, i);
        const struct ynode *own = ynode_get(step, "depends_on");

        if (own && !ynode_is_null(own) && !(ynode_is_seq(own) && !ynode_len(own)))
            continue;
        if (set_copy(doc, step, "depends_on", dep) != 0)
            return out_of_memory(ta, step);
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
                rc = error_at(ta, ynode_doc_root(file_doc), "%s",
                              "a test-area file holds one document");
            break;
        case STREAM_STEPS_START:
            if (item.bare)
                rc = error_at(ta, ynode_doc_root(file_doc), "%s",
                              "a test-area file is a mapping with group, depends_on and steps");
            break;
        case STREAM_PAIR: {
            const struct ynode *k = ynode_key(root, 0), *v = ynode_value(root, 0);
            size_t len;
            const char *name = ynode_scalar(k, &len);

            if (ynode_scalar_is(k, "group")) {
                if (!is_scalar_value(v))
                    rc = error_at(ta, v ? v : k, "%s", "group must be a string");
                else
                    group = ynode_copy(file_doc, v);
            } else if (ynode_scalar_is(k, "depends_on")) {
                if (!type_ok(F_DEPS, v))
                    rc = error_at(ta, v ? v : k, "%s", "depends_on must be a step key or a list of step keys");
                else
                    dep = ynode_copy(file_doc, v);
            } else {
                rc = error_at(ta, k, "unknown top-level field '%.*s' in a test-area file (group, "
                              "depends_on, steps)", SHORT(len), name);
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
        diag_report(ta->diag, DIAG_ERROR, DIAG_INPUT, ta->files[start.file], start.line, start.col,
                    "testarea", "a test-area file needs 'group' (its group label)");
        rc = -1;
    }
    if (rc == 0) {
        struct ynode *g = ynode_item(ynode_doc_root(file_doc), 0);
        size_t len;
        const char *name = ynode_scalar(group, &len);

        g->pos = start;
        /* The group's name is a string, whatever it looked like in the file. */
        if (ynode_set(file_doc, g, "group", ynode_new_string(file_doc, name, len, group->pos)) != 0 ||
            apply_file_depends_on(ta, file_doc, steps, dep) != 0)
            rc = out_of_memory(ta, group);
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

static struct dialect_reader *ta_open(const struct dialect_input *in, dialect_observe_fn observe,
                                      void *user)
{
    struct dialect_reader *r = calloc(1, sizeof(*r));

    if (!r)
        return NULL;
    r->in = *in;
    r->ta = testarea_create(in->diag, in->names, (enum ta_platform)in->platform, in->upload);
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

            strset_clear(r->in.warned);
            s = stream_open(r->in.sources[r->file], (unsigned)r->file, r->in.diag);
            rc = s ? testarea_file(r->ta, s, &item->doc) : -1;
            stream_close(s);
            r->file++;
            if (rc != 0)
                return -1;
            if (item->doc) {
                item->kind = STREAM_STEP;
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

/* The dialect checked its own fields: Buildkite's key list does not apply. */
static int ta_expand(const struct expand_ctx *ctx, struct ynode_doc *doc, struct ynode *steps)
{
    struct expand_ctx own = *ctx;

    own.check_keys = false;
    return expand_steps(&own, doc, steps);
}

const struct dialect dialect_testarea = {
    .name = "testarea",
    .description = "vLLM test-area file",
    .shape = stream_steps_shape,
    .layout = &bk_layout,
    .input_schema = "testarea",
    .rendered_schema = "buildkite-rendered",
    .platform = "Buildkite",
    .job_noun = "step",
    .key_noun = "key",
    .fanout_field = "parallelism",
    .fanout_jobs = "shards",
    .reference_field = "depends_on",
    .keys_per_file = false,
    .bad_references_fail = false,
    .max_jobs_per_document = BK_JOBS_PER_UPLOAD,
    .max_jobs_total = BK_JOBS_PER_BUILD,
    .open = ta_open,
    .next = ta_next,
    .close = ta_close,
    .expand = ta_expand,
    .edges = depends_edges,
    .normalize = depends_normalize,
    .references = depends_each,
    .rewrite = bk_rewrite,
    .each_job = bk_each_job,
    .each_text = bk_each_text,
    .shard_index_variable = "BUILDKITE_PARALLEL_JOB",
    .shard_count_variable = "BUILDKITE_PARALLEL_JOB_COUNT",
};
