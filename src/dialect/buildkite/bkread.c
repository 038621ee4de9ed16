/* bkread: a pipeline's keys and plain scalars as Buildkite's agent reads them (bkread.h). */
#include "bkread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/strset.h"
#include "fanout/text.h"
#include "fanout/ynode.h"
#include "fanout/yscalar.h"

#include "bkscalar.h"
#include "steps.h"

struct bkread {
    struct diag *diag;
    const char *const *names;
    struct strset *seen; /* a mapping's keys, when one of them changed */
};

struct bkread *bkread_create(void)
{
    struct bkread *k = calloc(1, sizeof(*k));

    if (k && !(k->seen = strset_create())) {
        free(k);
        return NULL;
    }
    return k;
}

void bkread_destroy(struct bkread *k)
{
    if (!k)
        return;
    strset_destroy(k->seen);
    free(k);
}

void bkread_begin(struct bkread *k, struct diag *d, const char *const *names)
{
    k->diag = d;
    k->names = names;
}

/* Whether the plain scalar `t` may be one yaml.v3 or YAML 1.2 types as other than a
 * string: a number, `.inf`, `~`, or one of the spellings of true, false and null (all 5
 * bytes at most). Most scalars are words and are told here without bkscalar's reading. */
static bool maybe_typed(const char *t, size_t len)
{
    switch (*t) {
    case 't': case 'T': case 'f': case 'F': case 'n': case 'N':
        return len <= 5;
    case '~': case '.': case '+': case '-':
        return true;
    default:
        return *t >= '0' && *t <= '9';
    }
}

static int out_of_memory(struct bkread *k, const struct ynode *at)
{
    diag_at(k->diag, DIAG_ERROR, DIAG_INPUT, k->names, ynode_pos(at), RULE_INTERNAL, "out of memory");
    return -1;
}

/* The key *slot as the agent reads it: replaced by a string when it is not one. 1 when
 * it changed, 0 when not, -1 after an error. */
static int canonical(struct bkread *k, struct ynode_doc *doc, struct ynode **slot)
{
    const struct ynode *key = *slot;
    char buf[BK_SCALAR_BUF], as[48];
    const char *t;
    size_t len;
    struct ynode *made;

    if (!ynode_is_scalar(key) || ynode_is_string(key) || !key->u.scalar.text ||
        (key->u.scalar.len && !maybe_typed(key->u.scalar.text, key->u.scalar.len)))
        return 0;
    switch (bk_scalar_text(key, buf, &t, &len)) {
    case BK_SCALAR_NULL:
        diag_at(k->diag, DIAG_ERROR, DIAG_INPUT, k->names, ynode_pos(key), RULE_YAML,
                "a null key: Buildkite's agent refuses the pipeline (\"null not supported as a map key\")");
        return -1;
    case BK_SCALAR_BOOL:
    case BK_SCALAR_INT:
    case BK_SCALAR_UINT:
        break;
    case BK_SCALAR_FLOAT: /* Go's %e; bkscalar's shortest text reads back as the value */
        if (strcmp(t, "NaN") && strcmp(t, "+Inf") && strcmp(t, "-Inf"))
            len = (size_t)snprintf(as, sizeof(as), "%e", strtod(t, NULL)), t = as;
        break;
    default: /* a string, or a timestamp: as written */
        return 0;
    }
    if (!(made = ynode_new_string(doc, t, len, ynode_pos(key))))
        return out_of_memory(k, key);
    *slot = made;
    return 1;
}

/* How the agent reads a field's value (go-pipeline's types): a value of its own type
 * (`any`: RemainingFields, plugins, matrix); a string (a `string` field: fmt.Sprint of a
 * number or boolean, "" of a null, which ordered.Unmarshal zeroes); one the agent leaves
 * out when it is empty (`omitempty`: a command step's key and label); one that stays
 * null (`*string`: a group's name); a string or a list of strings (`[]string`); a
 * mapping of strings (`map[string]string`: env); a list of steps; a command step's
 * cache; a matrix (values of their own type, which the agent makes strings of for its
 * tokens: bkscalar.h). */
enum field { F_ANY, F_STRING, F_OMITTED, F_NULLABLE, F_STRINGS, F_STRING_MAP, F_STEPS, F_CACHE, F_MATRIX };

/* `number-text`: the plain number `n` the agent makes the string `text` of (a string
 * field, a matrix value) where the two differ, so the job gets other text than written. */
static void number_text(struct bkread *k, const struct ynode *n, const char *text, size_t len)
{
    diag_at(k->diag, DIAG_WARNING, DIAG_FINDING, k->names, ynode_pos(n), RULE_NUMBER_TEXT,
            "%.*s is the number %.*s to Buildkite's agent (gopkg.in/yaml.v3), which makes the string "
            "\"%.*s\" of it here: quote it to keep %.*s", (int)text_utf8_cut(n->u.scalar.text, n->u.scalar.len, 40),
            n->u.scalar.text, (int)len, text, (int)len, text, (int)text_utf8_cut(n->u.scalar.text, n->u.scalar.len, 40),
            n->u.scalar.text);
}

/* Whether the plain scalar `n` is one ordered.Unmarshal makes no string of: it makes
 * strings of strings, numbers and booleans only, not of a timestamp or an integer past
 * int64 ("cannot unmarshal from src time.Time", "... uint64"). Its Go type, or NULL. */
static const char *unstringable(const struct ynode *n)
{
    char buf[BK_SCALAR_BUF];
    const char *t;
    size_t len;

    if (!ynode_is_scalar(n) || ynode_is_string(n) || !n->u.scalar.text || !n->u.scalar.len ||
        yscalar_canonical_decimal(n->u.scalar.text, n->u.scalar.len) ||
        !(n->u.scalar.text[0] >= '0' && n->u.scalar.text[0] <= '9'))
        return NULL;
    switch (bk_scalar_text(n, buf, &t, &len)) {
    case BK_SCALAR_TIMESTAMP:
        return "time.Time";
    case BK_SCALAR_UINT:
        return "uint64";
    default:
        return NULL;
    }
}

/* The agent's error for the unstringable `n` (of Go type `go_type`) in a string field:
 * `fails` the upload (an error, the pipeline's env: Parse fails), or the step's (a
 * warning: steps.go stepFromMap uploads it as written, an unknown step, and warns). */
static int no_string(struct bkread *k, const struct ynode *n, const char *go_type, bool fails)
{
    diag_at(k->diag, fails ? DIAG_ERROR : DIAG_WARNING, fails ? DIAG_INPUT : DIAG_FINDING, k->names, ynode_pos(n),
            RULE_TYPE, "%.*s is %s to Buildkite's agent (gopkg.in/yaml.v3), which cannot make the string this "
            "field takes of it (\"cannot unmarshal from src %s\"): %s; quote it",
            (int)text_utf8_cut(n->u.scalar.text, n->u.scalar.len, 40), n->u.scalar.text,
            *go_type == 't' ? "a timestamp" : "an integer past int64", go_type,
            fails ? "the upload fails" : "it uploads the step as written (its values as they are, not strings), with a "
                                         "warning");
    return fails ? -1 : 0;
}

/* The plain scalar *slot as the agent reads it, of its own type (F_ANY, F_MATRIX) or as
 * a string (F_STRING, F_OMITTED, F_NULLABLE; a null "" but in the last): replaced when
 * its text is not the agent's value's. 0, or -1 after an error. */
static int canonical_value(struct bkread *k, struct ynode_doc *doc, struct ynode **slot, enum field f)
{
    const struct ynode *n = *slot;
    const char *t = n->u.scalar.text;
    size_t len = n->u.scalar.len;
    bool null_is_empty = f == F_STRING || f == F_OMITTED;
    enum bk_scalar kind;
    char buf[BK_SCALAR_BUF];
    struct ynode *made;

    if (ynode_is_string(n) || !t || (len && !maybe_typed(t, len)) || (!len && !null_is_empty))
        return 0;
    if (f == F_OMITTED || f == F_NULLABLE)
        f = F_STRING;
    if (f != F_STRING && yscalar_canonical_decimal(t, len))
        return 0; /* a decimal integer, as most counts are written */
    switch ((kind = bk_scalar_text(n, buf, &t, &len))) {
    case BK_SCALAR_BOOL:
    case BK_SCALAR_INT:
    case BK_SCALAR_FLOAT:
        if (kind != BK_SCALAR_BOOL && (f == F_STRING || f == F_MATRIX) &&
            (len != n->u.scalar.len || memcmp(t, n->u.scalar.text, len)))
            number_text(k, n, t, len);
        if (f == F_STRING) { /* fmt.Sprint: Go's shortest float, `+Inf` */
            made = ynode_new_string(doc, t, len, ynode_pos(n));
            break;
        }
        if (!strcmp(t, "-0")) /* a float, which JSON writes -0 (an integer 0 would be 0) */
            t = "-0.0", len = 4;
        if (!strcmp(t, "+Inf") || !strcmp(t, "-Inf") || !strcmp(t, "NaN")) {
            /* the agent uploads JSON, which has none: encoding/json fails on it */
            diag_at(k->diag, DIAG_ERROR, DIAG_INPUT, k->names, ynode_pos(n), RULE_TYPE,
                    "%.*s is %s to Buildkite's agent, which fails to upload it (\"json: unsupported "
                    "value: %s\"); quote it for a string", (int)n->u.scalar.len, n->u.scalar.text,
                    *t == 'N' ? "not a number" : "an infinity", t);
            return -1;
        }
        /* fall through */
    case BK_SCALAR_UINT:
        if (f == F_STRING) /* the pipeline's env (a step with one is read untyped: read_step) */
            return kind == BK_SCALAR_UINT ? no_string(k, n, "uint64", true) : 0;
        if (len == n->u.scalar.len && !memcmp(t, n->u.scalar.text, len))
            return 0;
        made = ynode_new_scalar(doc, t, len, YNODE_PLAIN, ynode_pos(n));
        break;
    case BK_SCALAR_NULL:
        if (!null_is_empty)
            return 0;
        made = ynode_new_string(doc, "", 0, ynode_pos(n));
        break;
    case BK_SCALAR_STRING: /* quoted where YAML 1.2 would read a number (`1e400`) */
        if (yscalar_type(t, len) == YS_STRING)
            return 0;
        made = ynode_new_string(doc, t, len, ynode_pos(n));
        break;
    case BK_SCALAR_TIMESTAMP: /* elsewhere read again alike */
        return f == F_STRING ? no_string(k, n, "time.Time", true) : 0;
    default:
        return 0;
    }
    if (!made)
        return out_of_memory(k, n);
    *slot = made;
    return 0;
}

int bkread_repeated_key(struct strset *seen, const struct ynode *map, const struct ynode **repeated)
{
    strset_clear(seen);
    for (size_t i = 0; i < ynode_len(map); i++) {
        const struct ynode *key = ynode_key(map, i);
        int rc = ynode_is_scalar(key) && key->u.scalar.text ? strset_add(seen, key->u.scalar.text, key->u.scalar.len)
                                                            : 0;

        if (rc != 0) {
            *repeated = key;
            return rc;
        }
    }
    return 0;
}

/* Two keys of `map` the agent reads as one (one of them was just changed): the agent keeps
 * the first one's place and the last one's value (ordered/yaml.go sets each key of a
 * mapping into an ordered.Map as it reads it), and so does the rendering. */
static int keep_last(struct bkread *k, struct ynode *map)
{
    const struct ynode *key;
    int rc;

    while ((rc = bkread_repeated_key(k->seen, map, &key)) > 0) {
        size_t later = 0, first = 0;

        while (ynode_key(map, later) != key)
            later++;
        while (!ynode_scalar_is_n(ynode_key(map, first), key->u.scalar.text, key->u.scalar.len))
            first++;
        diag_at(k->diag, DIAG_WARNING, DIAG_FINDING, k->names, ynode_pos(key), RULE_DUPLICATE_KEY,
                "key '%.*s' given twice as buildkite-agent reads its keys: it keeps this value, in the first "
                "one's place", (int)text_utf8_cut(key->u.scalar.text, key->u.scalar.len, 60), key->u.scalar.text);
        ynode_set_value(map, first, ynode_value(map, later));
        ynode_remove_at(map, later);
    }
    return rc < 0 ? out_of_memory(k, key) : 0;
}

/* The fields of go-pipeline's types that are not `any`, by key (its length first: most
 * keys are none of these, and are told by it). */
struct typed_field {
    const char *key;
    size_t len;
    enum field f;
};
#define FIELD(key, f) {key, sizeof(key) - 1, f}

static const struct typed_field pipeline_fields[] = {FIELD("env", F_STRING_MAP), {NULL, 0, F_ANY}};
/* CommandStep (step_command.go: Commands []string with the alias command) */
static const struct typed_field command_fields[] = {
    FIELD("key", F_OMITTED),   FIELD("id", F_OMITTED),        FIELD("identifier", F_OMITTED),
    FIELD("label", F_OMITTED), FIELD("name", F_OMITTED),      FIELD("command", F_STRINGS),
    FIELD("commands", F_STRINGS), FIELD("env", F_STRING_MAP), FIELD("cache", F_CACHE),
    FIELD("matrix", F_MATRIX), {NULL, 0, F_ANY}};
/* GroupStep (step_group.go: Key string omitempty, Group *string) */
static const struct typed_field group_fields[] = {
    FIELD("key", F_OMITTED),     FIELD("id", F_OMITTED),      FIELD("identifier", F_OMITTED),
    FIELD("group", F_NULLABLE),  FIELD("label", F_NULLABLE),  FIELD("name", F_NULLABLE),
    FIELD("steps", F_STEPS),     {NULL, 0, F_ANY}};
/* Cache (step_command_cache.go) */
static const struct typed_field cache_fields[] = {
    FIELD("name", F_STRING), FIELD("size", F_STRING), FIELD("paths", F_STRINGS), {NULL, 0, F_ANY}};
static const struct typed_field untyped_fields[] = {{NULL, 0, F_ANY}};

static int walk(struct bkread *k, struct ynode_doc *doc, struct ynode **slot, enum field f);

/* How `fields` types the value of `key` (`other`: a key none of them names). */
static enum field field_of(const struct typed_field *fields, const struct ynode *key, enum field other)
{
    const char *t = ynode_is_scalar(key) ? key->u.scalar.text : NULL;
    size_t len = t ? key->u.scalar.len : 0;

    for (; t && fields->key; fields++) {
        if (fields->len == len && fields->key[0] == t[0] && !memcmp(fields->key, t, len))
            return fields->f;
    }
    return other;
}

/* Whether the agent leaves out value `v` of a field of kind `f`: an empty string where
 * the field is `omitempty`. */
static bool omitted(enum field f, const struct ynode *v)
{
    return f == F_OMITTED && ynode_is_string(v) && !v->u.scalar.len;
}

/* Mapping `map`: each key as the agent reads it, then its value as `fields` types it
 * (`other`: a value of a key they do not name). */
static int read_map(struct bkread *k, struct ynode_doc *doc, struct ynode *map, const struct typed_field *fields,
                    enum field other)
{
    bool changed = false;

    /* the keys first: a value the agent does not keep (a key given again) is not read */
    for (size_t i = 0; i < ynode_len(map); i++) {
        int rc = canonical(k, doc, &map->u.map.pairs[i].key);

        if (rc < 0)
            return -1;
        changed |= rc > 0;
    }
    if (changed && keep_last(k, map) != 0)
        return -1;
    for (size_t i = 0; i < ynode_len(map); i++) {
        struct ynode_pair *p = &map->u.map.pairs[i];
        enum field f = field_of(fields, p->key, other);

        if (walk(k, doc, &p->value, f) != 0)
            return -1;
        if (omitted(f, p->value))
            ynode_remove_at(map, i--);
    }
    return 0;
}

/* The first scalar of a string field of `step` (`fields` its type's; a cache's too) that
 * is unstringable, with its Go type in *go_type; NULL when none is. */
static const struct ynode *unstringable_field(const struct ynode *step, const struct typed_field *fields,
                                              const char **go_type)
{
    for (size_t i = 0; i < ynode_len(step); i++) {
        enum field f = field_of(fields, ynode_key(step, i), F_ANY);
        const struct ynode *v = ynode_value(step, i), *in;

        if (f == F_CACHE && ynode_is_map(v) && (in = unstringable_field(v, cache_fields, go_type)))
            return in;
        if (f == F_ANY || f == F_STEPS || f == F_MATRIX)
            continue;
        if (ynode_is_scalar(v) && (*go_type = unstringable(v)))
            return v;
        for (size_t j = 0; (ynode_is_seq(v) || ynode_is_map(v)) && j < ynode_len(v); j++) {
            const struct ynode *x = ynode_is_seq(v) ? ynode_item(v, j) : ynode_value(v, j);

            if ((*go_type = unstringable(x)))
                return x;
        }
    }
    return NULL;
}

/* The fields of the mapping `step` as the agent types them: a command step's or a
 * group's (told by keys that are words, `command`, `group`, whichever reading), or none
 * (every value of its own type) for another step and for one with a string field the
 * agent cannot make a string of (*bad that value, of Go type *go_type). */
static const struct typed_field *step_fields(const struct ynode *step, const struct ynode **bad,
                                             const char **go_type)
{
    const struct typed_field *fields;

    *bad = NULL;
    switch (bk_step_kind(step)) {
    case BK_COMMAND:
        fields = command_fields;
        break;
    case BK_GROUP:
        fields = group_fields;
        break;
    default:
        return untyped_fields;
    }
    return (*bad = unstringable_field(step, fields, go_type)) ? untyped_fields : fields;
}

/* A step: its fields as its type has them. */
static int read_step(struct bkread *k, struct ynode_doc *doc, struct ynode **slot)
{
    struct ynode *step = *slot;
    const struct typed_field *fields;
    const struct ynode *bad;
    const char *go_type;

    if (!ynode_is_map(step))
        return walk(k, doc, slot, F_ANY);
    fields = step_fields(step, &bad, &go_type);
    if (bad)
        no_string(k, bad, go_type, false);
    return read_map(k, doc, step, fields, F_ANY);
}

void bkread_omit_empty(struct ynode *step)
{
    const struct typed_field *fields = NULL;
    const struct ynode *bad;
    const char *go_type;

    for (size_t i = 0; ynode_is_map(step) && i < ynode_len(step); i++) {
        const struct ynode *v = ynode_value(step, i);

        if (!ynode_is_scalar(v) || v->u.scalar.len) /* most values: typing the step waits */
            continue;
        if (!fields)
            fields = step_fields(step, &bad, &go_type);
        if (omitted(field_of(fields, ynode_key(step, i), F_ANY), v))
            ynode_remove_at(step, i--);
    }
}

/* The node *slot, read as field kind `f`, and everything under it. */
static int walk(struct bkread *k, struct ynode_doc *doc, struct ynode **slot, enum field f)
{
    struct ynode *n = *slot;

    if (ynode_is_scalar(n))
        return canonical_value(k, doc, slot, f == F_STRINGS || f == F_CACHE ? F_STRING : f);
    if (ynode_is_seq(n)) {
        for (size_t i = 0; i < ynode_len(n); i++) {
            int rc = f == F_STEPS ? read_step(k, doc, &n->u.seq.items[i])
                     : walk(k, doc, &n->u.seq.items[i], f == F_STRINGS || f == F_CACHE ? F_STRING
                                                        : f == F_MATRIX ? F_MATRIX : F_ANY);

            if (rc != 0)
                return -1;
        }
        return 0;
    }
    if (!ynode_is_map(n))
        return 0;
    return read_map(k, doc, n, f == F_CACHE ? cache_fields : untyped_fields,
                    f == F_STRING_MAP ? F_STRING : f == F_MATRIX ? F_MATRIX : F_ANY);
}

int bkread_item(void *user, struct stream_item *item)
{
    struct bkread *k = user;
    struct ynode *root = item->doc ? ynode_doc_root(item->doc) : NULL;

    if (!root)
        return 0;
    if (item->kind == STREAM_STEP && ynode_is_seq(root) && ynode_len(root))
        return read_step(k, item->doc, &root->u.seq.items[0]);
    return ynode_is_map(root) ? read_map(k, item->doc, root, pipeline_fields, F_ANY) : walk(k, item->doc, &root, F_ANY);
}
