/* fields: the fields of vLLM's generator's step model and of a mirror's overrides, their
 * types, and the checks of a step against them (an unknown field is an error, with the
 * closest known one suggested, and dropped as the generator drops it; a field the
 * generator does not read, a note). */
#include <stdio.h>
#include <string.h>

#include "fanout/diag.h"
#include "fanout/suggest.h"
#include "fanout/ynode.h"

#include "pyscalar.h"
#include "testarea_internal.h"

/* Each as pydantic (lax) takes what PyYAML read (pyscalar.h): a string is a string only,
 * an integer or a boolean is written back as the generator's yaml.dump writes the model's
 * value (`010` is 8, `"yes"` true). */
enum ftype {
    F_STR,   /* a string */
    F_INT,   /* an integer */
    F_BOOL,  /* true or false */
    F_STRS,  /* a list of strings */
    F_DEPS,  /* a list of keys, or null */
    F_CMDS,  /* a list of commands */
    F_MAP,   /* a mapping */
    F_ENV,   /* Dict[str, str]: a mapping of strings */
    F_PAR,   /* parallelism: an integer (its range is the expansion's), 0 none */
    F_PARN,  /* a mirror's parallelism: 1..1000, or null for one job */
    F_COUNT, /* Field(gt=0, strict=True): an integer above 0, as PyYAML read it */
};

struct field {
    const char *name;
    enum ftype type;
    /* The generator's model has no such field: it is dropped without a word. */
    bool ignored;
    /* Optional in the model: null is its default (the field is dropped; a depends_on's null
     * is its type's, as the file's depends_on reads it). */
    bool nullable;
    /* A mirror's override the AMD step's pydantic model reads (BuildkiteCommandStep, through
     * _create_amd_step): its lax types, as a step's own fields. */
    bool model;
};

/* The fields of the generator's step model (ci-infra step.py `Step`: pydantic, unknown
 * fields dropped silently, so an unknown field here is an error: a typo the generator
 * would ignore), plus the ones the corpus writes that the model does not read (a note
 * says so). */
static const struct field step_fields[] = {
    /* name                      type     ignored nullable model */
    {"label",                     F_STR,   false, false, false},
    {"key",                       F_STR,   false, true,  false},
    {"group",                     F_STR,   false, false, false},
    {"commands",                  F_CMDS,  false, true,  false},
    {"command",                   F_CMDS,  true,  true,  false},
    {"depends_on",                F_DEPS,  false, false, false},
    {"device",                    F_STR,   false, true,  false},
    {"timeout_in_minutes",        F_INT,   false, true,  false},
    {"parallelism",               F_PAR,   false, true,  false},
    {"optional",                  F_BOOL,  false, true,  false},
    {"soft_fail",                 F_BOOL,  false, true,  false},
    {"source_file_dependencies",  F_STRS,  false, true,  false},
    {"env",                       F_ENV,   false, true,  false},
    {"working_dir",               F_STR,   false, true,  false},
    {"num_devices",               F_INT,   false, true,  false},
    {"num_gpus",                  F_INT,   true,  true,  false},
    {"num_nodes",                 F_INT,   false, true,  false},
    {"gpu",                       F_STR,   true,  true,  false},
    {"no_gpu",                    F_BOOL,  false, true,  false},
    {"no_plugin",                 F_BOOL,  false, true,  false},
    {"dind",                      F_BOOL,  false, false, false},
    {"autorun_on_main",           F_BOOL,  true,  true,  false},
    {"mount_buildkite_agent",     F_BOOL,  false, true,  false},
    {"retry",                     F_MAP,   false, true,  false},
    {"agent_tags",                F_ENV,   false, true,  false},
    {"concurrency",               F_COUNT, false, true,  false},
    {"concurrency_group",         F_STR,   false, true,  false},
    {"mirror",                    F_MAP,   false, true,  false},
    /* the runtime-shard and test-selection lines of the model */
    {"automatic_shard",           F_BOOL,  false, true,  false},
    {"trace_represented_job_key", F_STR,   false, true,  false},
    {"trace_gpu",                 F_BOOL,  false, true,  false},
    {"trace_collector_sha256",    F_STR,   false, true,  false},
    {"trace_subprocess_coverage", F_BOOL,  false, true,  false},
    {"trace_capture_class",       F_STR,   false, true,  false},
    {NULL,                        F_STR,   false, false, false},
};

/* What the generator reads of `mirror.amd` (buildkite_step.py: a plain dict, so these
 * are the keys it looks up; `retry` is not one of them: mirrors get the AMD retry). Most
 * values it uses as PyYAML made them (min(timeout, 180), `if dind:`); parallelism
 * (ci-infra#473), concurrency and soft_fail go into the AMD step's model. */
static const struct field mirror_fields[] = {
    {"label",                     F_STR,   false, false, false},
    {"device",                    F_STR,   false, false, false},
    {"timeout_in_minutes",        F_INT,   false, false, false},
    {"depends_on",                F_DEPS,  false, false, false},
    {"dind",                      F_BOOL,  false, false, false},
    {"source_file_dependencies",  F_STRS,  false, false, false},
    {"commands",                  F_CMDS,  false, false, false},
    {"working_dir",               F_STR,   false, false, false},
    {"soft_fail",                 F_BOOL,  false, false, true},
    {"optional",                  F_BOOL,  false, false, false},
    {"parallelism",               F_PARN,  false, false, true},
    {"env",                       F_ENV,   false, false, false},
    {"num_devices",               F_INT,   false, false, false},
    {"num_gpus",                  F_INT,   false, false, false},
    {"num_nodes",                 F_INT,   false, false, false},
    {"no_plugin",                 F_BOOL,  false, false, false},
    {"no_gpu",                    F_BOOL,  false, false, false},
    {"concurrency",               F_INT,   false, false, true},
    {"concurrency_group",         F_STR,   false, false, false},
    {"agent_tags",                F_ENV,   false, false, false},
    {NULL,                        F_STR,   false, false, false},
};

/* The JSON Schema type a field's value is written as, by enum ftype (NULL: one of several). */
static const char *const schema_types[] = {
    [F_STR] = "string",   [F_INT] = "integer", [F_BOOL] = "boolean", [F_STRS] = "array",
    [F_DEPS] = "array",   [F_CMDS] = "array",  [F_MAP] = "object",   [F_ENV] = "object",
    [F_PAR] = "integer",  [F_PARN] = NULL,     [F_COUNT] = "integer",
};

static const struct ta_field_info *field_infos(const struct field *fields, struct ta_field_info *out)
{
    size_t i = 0;

    for (; fields[i].name; i++) {
        out[i].name = fields[i].name;
        out[i].type = fields[i].ignored ? NULL : schema_types[fields[i].type]; /* read by nobody: any */
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

bool ta_is_string(const struct ynode *v)
{
    return py_scalar_type(v) == PY_STR;
}

/* A mapping of strings to strings (pydantic's Dict[str, str]). */
static bool is_string_map(const struct ynode *v)
{
    if (!ynode_is_map(v))
        return false;
    for (size_t i = 0; i < ynode_len(v); i++) {
        if (!ta_is_string(ynode_key(v, i)) || !ta_is_string(ynode_value(v, i)))
            return false;
    }
    return true;
}

static bool is_string_list(const struct ynode *v)
{
    if (!ynode_is_seq(v))
        return false;
    for (size_t i = 0; i < ynode_len(v); i++) {
        if (!ta_is_string(ynode_item(v, i)))
            return false;
    }
    return true;
}

/* A number or boolean field as the generator reads it: a step's through pydantic's lax
 * types (`model`); a mirror's overrides are a plain dict, whose values the generator uses as
 * PyYAML made them (min("30", 180) fails, a string "false" is true), so only an int is an
 * integer there, and only a boolean a boolean. */
static bool read_int(const struct ynode *v, bool model, long long *n)
{
    return model ? py_lax_int(v, n) : py_strict_int(v, n);
}

static bool read_bool(const struct ynode *v, bool model, bool *b)
{
    return (model || py_scalar_type(v) == PY_BOOL) && py_lax_bool(v, b);
}

/* A count 1..1000 (the expansion's bounds). */
static bool is_count(const struct ynode *v, bool model)
{
    long long n;

    return read_int(v, model, &n) && n >= 1 && n <= 1000;
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
        return "a list of step keys";
    case F_CMDS:
        return "a list of commands";
    case F_MAP:
        return "a mapping";
    case F_ENV:
        return "a mapping of strings to strings";
    case F_PAR:
        return "an integer";
    case F_PARN:
        return "an integer from 1 to 1000, or null for one job";
    case F_COUNT:
        return "an integer above 0 (the model's strict int: not quoted, not a float)";
    }
    return "an integer from 1 to 1000";
}

static bool type_ok(enum ftype type, const struct ynode *v, bool model)
{
    long long n;
    bool b;

    switch (type) {
    case F_STR:
        return ta_is_string(v);
    case F_INT:
        return read_int(v, model, &n);
    case F_BOOL:
        return read_bool(v, model, &b);
    case F_STRS:
        return is_string_list(v);
    case F_DEPS:
        return !v || ynode_is_null(v) || is_string_list(v);
    case F_CMDS:
        return is_string_list(v);
    case F_MAP:
        return ynode_is_map(v);
    case F_ENV:
        return is_string_map(v);
    case F_PAR:
        return read_int(v, model, &n);
    case F_PARN:
        return ynode_is_null(v) || is_count(v, model);
    case F_COUNT:
        return py_strict_int(v, &n) && n > 0;
    }
    return false;
}

/* The text the generator writes for a number or boolean field's value (its model's value
 * through yaml.dump: `8` for `010`, `true` for `"yes"`), in `buf`; NULL when `v` is already
 * written so, is null, or is not one (a parallelism the expansion refuses). */
static const char *written_back(enum ftype type, const struct ynode *v, bool model, char buf[24])
{
    long long n;
    bool b;

    if (type == F_BOOL && !ynode_is_string(v) && (ynode_scalar_is(v, "true") || ynode_scalar_is(v, "false")))
        return NULL; /* the common case, without a read */
    if (type == F_BOOL && read_bool(v, model, &b))
        return strcpy(buf, b ? "true" : "false");
    if ((type == F_INT || type == F_PAR || type == F_PARN || type == F_COUNT) && !ynode_int(v, &n) &&
        !ynode_is_null(v) && read_int(v, model && type != F_COUNT, &n)) {
        snprintf(buf, 24, "%lld", n);
        return buf;
    }
    return NULL;
}

/* Why PyYAML's reading of `v` fails a field (`model`: a step's): " (... PyYAML: a float)",
 * or "" when its text says why (a string that is no number, an integer out of range). */
static const char *read_as(const struct ynode *v, enum ftype type, bool model, char *buf, size_t cap)
{
    enum py_type t = py_scalar_type(v);
    bool number = type == F_INT || type == F_PAR || type == F_PARN || type == F_COUNT, b;
    long long n;

    /* a quoted "30": what a step's field would take */
    if (t == PY_STR && !model && (number ? py_lax_int(v, &n) : type == F_BOOL && py_lax_bool(v, &b))) {
        snprintf(buf, cap, " (vLLM's generator uses a mirror's overrides as PyYAML reads them: a string)");
        return buf;
    }
    if ((t == PY_STR && type != F_COUNT) || (t == PY_INT && number))
        return "";
    snprintf(buf, cap, " (vLLM's generator reads it with PyYAML: %s%s)", py_type_name(t),
             type == F_STR || type == F_STRS || type == F_DEPS || type == F_CMDS ? "; quote it" : "");
    return buf;
}

static const struct field *find_field(const struct field *fields, const char *key, size_t len)
{
    for (; fields->name; fields++) {
        if (strlen(fields->name) == len && memcmp(fields->name, key, len) == 0)
            return fields;
    }
    return NULL;
}

/* The error for the first item of a list, or key or value of a mapping (env, agent_tags),
 * that is no string; 0 when there is none. */
static int not_strings(const struct testarea *ta, const struct ynode *v, const char *prefix, const char *name)
{
    char why[96];

    for (size_t i = 0; i < ynode_len(v); i++) {
        const struct ynode *k = ynode_is_map(v) ? ynode_key(v, i) : NULL;
        const struct ynode *item = k ? ynode_value(v, i) : ynode_item(v, i);
        const struct ynode *bad = k && !ta_is_string(k) ? k : !ta_is_string(item) ? item : NULL;
        const char *what = !ynode_is_map(v) ? "items" : bad == k ? "keys" : "values", *t;
        size_t len;

        if (!bad)
            continue;
        if ((t = ynode_scalar(bad, &len)) != NULL && !ynode_is_null(bad))
            return ta_error_at(ta, bad, "%s%s %s must be strings, got '%.*s'%s", prefix, name, what, SHORT(len), t,
                               read_as(bad, F_STR, true, why, sizeof(why)));
        return ta_error_at(ta, bad ? bad : k, "%s%s %s must be strings, got %s", prefix, name, what,
                           !bad || ynode_is_null(bad) ? "nothing" : ynode_is_map(bad) ? "a mapping" : "a list");
    }
    return 0;
}

/* Checks every key of `map` against `fields` (`model`: a step's, read through pydantic's
 * types; else a mirror's plain dict), removing an unknown one, writing numbers and booleans
 * as the generator does. In messages `what` names the mapping and `prefix` goes before field
 * names. The range of a step's parallelism is left to the expansion. */
static int check_fields(const struct testarea *ta, struct ynode_doc *doc, struct ynode *map,
                        const struct field *fields, const char *what, const char *prefix, bool model)
{
    for (size_t i = 0; i < ynode_len(map); i++) {
        const struct ynode *k = ynode_key(map, i), *v = ynode_value(map, i);
        size_t len, vlen = 0;
        const char *name = ynode_scalar(k, &len);
        const struct field *f = name ? find_field(fields, name, len) : NULL;
        const char *vt, *back;
        char buf[24], why[96];
        long long jobs;
        bool lax;

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
            continue; /* pydantic drops it unread: any value */
        }
        lax = model || f->model;
        if (f->nullable && ynode_is_null(v)) {
            ynode_remove_at(map, i--);
            continue;
        }
        if ((f->type == F_ENV ? ynode_is_map(v)
                              : ynode_is_seq(v) && (f->type == F_STRS || f->type == F_DEPS || f->type == F_CMDS)) &&
            not_strings(ta, v, prefix, f->name) != 0)
            return -1;
        if (!type_ok(f->type, v, lax)) {
            vt = ynode_scalar(v, &vlen);
            if (vt && !ynode_is_null(v))
                return ta_error_at(ta, v ? v : k, "%s%s must be %s, got '%.*s'%s", prefix, f->name,
                                   type_name(f->type), SHORT(vlen), vt, read_as(v, f->type, lax, why, sizeof(why)));
            return ta_error_at(ta, v ? v : k, "%s%s must be %s, got %s", prefix, f->name, type_name(f->type),
                               !v || ynode_is_null(v) ? "nothing" : ynode_is_map(v) ? "a mapping" : "a list");
        }
        if (f->type == F_PAR && read_int(v, lax, &jobs) && jobs == 0) { /* `if step.parallelism:` */
            ynode_remove_at(map, i--);
            continue;
        }
        if ((back = written_back(f->type, v, lax, buf)) != NULL) {
            struct ynode *n = ynode_new_plain(doc, back, ynode_pos(v));

            if (!n)
                return ta_error_at(ta, v, "%s", "out of memory");
            ynode_set_value(map, i, n);
        }
    }
    return 0;
}

/* The `amd` overrides of a step's mirror (NULL when it has none), after checking the
 * mirror's shape. -1 after an error. */
static int read_mirror(const struct testarea *ta, struct ynode_doc *doc, struct ynode *step, const struct ynode **amd)
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
        if (check_fields(ta, doc, v, mirror_fields, "mirror.amd", "mirror.amd.", false) != 0)
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
    return type_ok(F_DEPS, v, true);
}

/* step.py's model validator (validate_multi_node, ci-infra 3e4cfe4b): the generator stops on
 * a step it refuses. Its fields are read already (numbers written in decimal). */
static int model_rules(const struct testarea *ta, const struct ynode *step)
{
    const struct ynode *nodes = ynode_get(step, "num_nodes"), *concurrency = ynode_get(step, "concurrency");
    const struct ynode *group = ynode_get(step, "concurrency_group");
    long long n = 0, devices = 0;
    size_t len = 0;
    const char *t = ynode_scalar(group, &len);

    if (ynode_int(nodes, &n) && n && !(ynode_int(ynode_get(step, "num_devices"), &devices) && devices))
        return ta_error_at(ta, nodes, "%s", "num_nodes needs num_devices (the step model: 'num_devices' must "
                                            "be defined if 'num_nodes' is defined)");
    if (!concurrency != !group)
        return ta_error_at(ta, concurrency ? concurrency : group, "%s", "concurrency and concurrency_group go "
                           "together (the step model: they 'must be defined together')");
    while (t && len && (*t == ' ' || (*t >= '\t' && *t <= '\r') || (*t >= 0x1C && *t <= 0x1F)))
        t++, len--; /* str.strip()'s ASCII white space */
    if (group && !len)
        return ta_error_at(ta, group, "%s", "concurrency_group must not be blank (the step model: 'must be a "
                                            "nonempty string')");
    return 0;
}

int ta_check_step(const struct testarea *ta, struct ynode_doc *doc, struct ynode *step,
                  const struct ynode **overrides)
{
    if (check_fields(ta, doc, step, step_fields, "a test-area step", "", true) != 0 || model_rules(ta, step) != 0)
        return -1;
    return read_mirror(ta, doc, step, overrides);
}
