/* fields: the fields of vLLM's generator's step model and of a mirror's overrides, their
 * types, and the checks of a step against them (an unknown field is an error, with the
 * closest known one suggested, and dropped as the generator drops it; a field the
 * generator does not read, a note). */
#include <string.h>

#include "fanout/diag.h"
#include "fanout/suggest.h"
#include "fanout/ynode.h"
#include "fanout/yscalar.h"

#include "testarea_internal.h"

enum ftype {
    F_STR,   /* a scalar */
    F_INT,   /* a plain integer */
    F_BOOL,  /* true or false */
    F_STRS,  /* a list of scalars */
    F_DEPS,  /* a key, a list of keys, or null */
    F_CMDS,  /* a command or a list of commands */
    F_MAP,   /* a mapping */
    F_PAR,   /* parallelism: checked where it is used */
    F_PARN,  /* a mirror's parallelism: 1..1000, or null for one job */
};

struct field {
    const char *name;
    enum ftype type;
    /* The generator's model has no such field: it is dropped without a word. */
    bool ignored;
};

/* The fields of the generator's step model (ci-infra step.py `Step`: pydantic, unknown
 * fields dropped silently, so an unknown field here is an error: a typo the generator
 * would ignore), plus the ones the corpus writes that the model does not read (a note
 * says so). */
static const struct field step_fields[] = {
    {"label", F_STR, false},          {"key", F_STR, false},
    {"group", F_STR, false},          {"commands", F_CMDS, false},
    {"command", F_CMDS, true},        {"depends_on", F_DEPS, false},
    {"device", F_STR, false},         {"timeout_in_minutes", F_INT, false},
    {"parallelism", F_PAR, false},    {"optional", F_BOOL, false},
    {"soft_fail", F_BOOL, false},     {"source_file_dependencies", F_STRS, false},
    {"env", F_MAP, false},            {"working_dir", F_STR, false},
    {"num_devices", F_INT, false},    {"num_gpus", F_INT, true},
    {"num_nodes", F_INT, false},      {"gpu", F_STR, true},
    {"no_gpu", F_BOOL, false},        {"no_plugin", F_BOOL, false},
    {"dind", F_BOOL, false},          {"autorun_on_main", F_BOOL, true},
    {"mount_buildkite_agent", F_BOOL, false}, {"retry", F_MAP, false},
    {"agent_tags", F_MAP, false},     {"concurrency", F_INT, false},
    {"concurrency_group", F_STR, false}, {"mirror", F_MAP, false},
    /* the runtime-shard and test-selection lines of the model */
    {"automatic_shard", F_BOOL, false}, {"trace_represented_job_key", F_STR, false},
    {"trace_gpu", F_BOOL, false},     {"trace_collector_sha256", F_STR, false},
    {"trace_subprocess_coverage", F_BOOL, false}, {"trace_capture_class", F_STR, false},
    {NULL, F_STR, false},
};

/* What the generator reads of `mirror.amd` (buildkite_step.py: a plain dict, so these
 * are the keys it looks up; `retry` is not one of them: mirrors get the AMD retry). */
static const struct field mirror_fields[] = {
    {"label", F_STR, false},          {"device", F_STR, false},
    {"timeout_in_minutes", F_INT, false}, {"depends_on", F_DEPS, false},
    {"dind", F_BOOL, false},          {"source_file_dependencies", F_STRS, false},
    {"commands", F_CMDS, false},      {"working_dir", F_STR, false},
    {"soft_fail", F_BOOL, false},     {"optional", F_BOOL, false},
    {"parallelism", F_PARN, false},   {"env", F_MAP, false},
    {"num_devices", F_INT, false},    {"num_gpus", F_INT, false},
    {"num_nodes", F_INT, false},      {"no_plugin", F_BOOL, false},
    {"no_gpu", F_BOOL, false},        {"concurrency", F_INT, false},
    {"concurrency_group", F_STR, false}, {"agent_tags", F_MAP, false},
    {NULL, F_STR, false},
};

/* The JSON Schema type a field's value has, by enum ftype (NULL: one of several). */
static const char *const schema_types[] = {"string", "integer", "boolean", "array", NULL, NULL,
                                           "object", "integer", NULL};

static const struct ta_field_info *field_infos(const struct field *fields, struct ta_field_info *out)
{
    size_t i = 0;

    for (; fields[i].name; i++) {
        out[i].name = fields[i].name;
        out[i].type = schema_types[fields[i].type];
    }
    out[i].name = out[i].type = NULL;
    return out;
}

const struct ta_field_info *testarea_step_fields(void)
{
    static _Thread_local struct ta_field_info infos[sizeof(step_fields) / sizeof(step_fields[0])];

    return field_infos(step_fields, infos);
}

const struct ta_field_info *testarea_mirror_fields(void)
{
    static _Thread_local struct ta_field_info infos[sizeof(mirror_fields) / sizeof(mirror_fields[0])];

    return field_infos(mirror_fields, infos);
}

bool ta_is_scalar_value(const struct ynode *v)
{
    return ynode_is_scalar(v) && !ynode_is_null(v);
}

static bool is_scalar_list(const struct ynode *v)
{
    if (!ynode_is_seq(v))
        return false;
    for (size_t i = 0; i < ynode_len(v); i++) {
        if (!ta_is_scalar_value(ynode_item(v, i)))
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
    case F_PARN:
        return "an integer from 1 to 1000, or null for one job";
    }
    return "an integer from 1 to 1000";
}

static bool type_ok(enum ftype type, const struct ynode *v)
{
    long long n;

    switch (type) {
    case F_STR:
        return ta_is_scalar_value(v);
    case F_INT:
        return ynode_int(v, &n);
    case F_BOOL:
        return is_bool(v);
    case F_STRS:
        return is_scalar_list(v);
    case F_DEPS:
        return !v || ynode_is_null(v) || ta_is_scalar_value(v) || is_scalar_list(v);
    case F_CMDS:
        return ta_is_scalar_value(v) || is_scalar_list(v);
    case F_MAP:
        return ynode_is_map(v);
    case F_PAR:
        return ynode_int(v, &n) && n >= 1 && n <= 1000;
    case F_PARN:
        return ynode_is_null(v) || (ynode_int(v, &n) && n >= 1 && n <= 1000);
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

/* Checks every key of `map` against `fields`, removing an unknown one. In messages `what` names the mapping and
 * `prefix` goes before field names. parallelism is left to the expansion unless
 * `check_parallelism`. */
static int check_fields(const struct testarea *ta, struct ynode *map, const struct field *fields,
                        const char *what, const char *prefix, bool check_parallelism)
{
    for (size_t i = 0; i < ynode_len(map); i++) {
        const struct ynode *k = ynode_key(map, i), *v = ynode_value(map, i);
        size_t len, vlen = 0;
        const char *name = ynode_scalar(k, &len);
        const struct field *f = name ? find_field(fields, name, len) : NULL;
        const char *vt;

        if (!f) {
            const char *names[64];
            char phrase[SUGGEST_PHRASE_MAX];
            size_t n = 0;

            for (const struct field *g = fields; g->name && n + 1 < sizeof(names) / sizeof(names[0]); g++)
                names[n++] = g->name;
            names[n] = NULL;
            /* A finding, as an unknown key is in every dialect: the generator drops the
             * field, and so does the rendering. */
            diag_at(ta->diag, DIAG_ERROR, DIAG_FINDING, ta->files, ynode_pos(k), RULE_UNKNOWN_KEY,
                    "unknown field '%.*s' in %s%s", SHORT(len), name ? name : "", what,
                    suggest_phrase(name ? suggest_closest(name, len, names, suggest_limit(len)) : NULL, phrase));
            ynode_remove_at(map, i--);
            continue;
        }
        if (f->ignored) {
            struct ypos p = ynode_pos(k);

            diag_at(ta->diag, DIAG_NOTE, DIAG_FINDING, ta->files, p,
                    RULE_TESTAREA_IGNORED, "vLLM's generator does not read '%s' (no such field "
                    "in ci-infra's step model): %s", f->name,
                    f->type == F_CMDS ? "under it the step runs no command (write commands)"
                                      : "it has no effect on CI");
        }
        if (f->type == F_PAR && !check_parallelism)
            continue;
        if (type_ok(f->type, v))
            continue;
        vt = ynode_scalar(v, &vlen);
        if (vt && !ynode_is_null(v))
            return ta_error_at(ta, v ? v : k, "%s%s must be %s, got '%.*s'%s", prefix, f->name,
                               type_name(f->type), SHORT(vlen), vt, ynode_int_hint(v));
        return ta_error_at(ta, v ? v : k, "%s%s must be %s, got %s", prefix, f->name,
                           type_name(f->type),
                           !v || ynode_is_null(v) ? "nothing" : ynode_is_map(v) ? "a mapping" : "a list");
    }
    return 0;
}

/* The `amd` overrides of a step's mirror (NULL when it has none), after checking the
 * mirror's shape. -1 after an error. */
static int read_mirror(const struct testarea *ta, struct ynode *step, const struct ynode **amd)
{
    struct ynode *mirror = ynode_get(step, "mirror");

    *amd = NULL;
    for (size_t i = 0; i < ynode_len(mirror); i++) {
        const struct ynode *k = ynode_key(mirror, i);
        struct ynode *v = ynode_value(mirror, i);
        size_t len;
        const char *name = ynode_scalar(k, &len);

        if (!ynode_scalar_is(k, "amd"))
            return ta_error_at(ta, k, "mirror platform '%.*s' is not supported (only amd)",
                               SHORT(len), name ? name : "");
        if (!ynode_is_map(v))
            return ta_error_at(ta, v ? v : k, "%s", "mirror.amd must be a mapping of overrides");
        if (check_fields(ta, v, mirror_fields, "mirror.amd", "mirror.amd.", true) != 0)
            return -1;
        *amd = v;
    }
    return 0;
}

/* Whether every key of `step` is a field of the generator's step model, or a typo of
 * one (its error is this dialect's to report). */
bool ta_step_fields_known(const struct ynode *step)
{
    static _Thread_local const char *names[sizeof(step_fields) / sizeof(step_fields[0])];

    if (!names[0]) {
        for (size_t i = 0; step_fields[i].name; i++)
            names[i] = step_fields[i].name;
    }
    if (!ynode_is_map(step))
        return false;
    for (size_t i = 0; i < ynode_len(step); i++) {
        size_t len;
        const char *key = ynode_scalar(ynode_key(step, i), &len);
        const struct field *f = step_fields;

        while (f->name && !ynode_scalar_is(ynode_key(step, i), f->name))
            f++;
        if (!f->name && (!key || !suggest_closest(key, len, names, suggest_limit(len))))
            return false;
    }
    return true;
}

bool ta_is_depends_on(const struct ynode *v)
{
    return type_ok(F_DEPS, v);
}

int ta_check_step(const struct testarea *ta, struct ynode *step, const struct ynode **overrides)
{
    if (check_fields(ta, step, step_fields, "a test-area step", "", false) != 0)
        return -1;
    return read_mirror(ta, step, overrides);
}
