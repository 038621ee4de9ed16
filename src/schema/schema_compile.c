/* schema_compile: a schema node and its keywords compiled into a `schema_node`, once
 * per node however often it is reached (through $refs too): the keywords' values
 * checked (a keyword of the wrong type is an error, never ignored), properties sorted
 * for binary search, patterns translated from ECMA-262 and JIT-compiled, the limits and
 * the subschemas each in their field. */
#include "schema_internal.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"

#define MAX_COMPILE_DEPTH 2000 /* nested schema_compile_node() calls */

void schema_compile_error(struct schema *s, struct ynode *at, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    struct ypos pos = ynode_pos(at);

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (!s->failed && s->diag) /* a lazy schema has none: no problem is expected */
        diag_report(s->diag, DIAG_ERROR, DIAG_INPUT, s->name, pos.line, pos.col, RULE_SCHEMA, "%s", msg);
    s->failed = true;
}

static bool is_true_false(struct ynode *n, bool *value)
{
    if (!n || !ynode_is_scalar(n) || ynode_is_string(n))
        return false;
    if (ynode_scalar_is(n, "true")) {
        *value = true;
        return true;
    }
    if (ynode_scalar_is(n, "false")) {
        *value = false;
        return true;
    }
    return false;
}

/* The keywords the compiler reads (keyword_types' first), found in one pass over a
 * node's keys: a lookup of each of forty was most of a node's compile. */
#define SCHEMA_KEYWORDS(X) \
    X(REF, "$ref") X(ID, "$id") X(SCHEMA, "$schema") X(COMMENT, "$comment") X(TITLE, "title") \
    X(DESCRIPTION, "description") X(FORMAT, "format") X(PATTERN, "pattern") \
    X(PROPERTIES, "properties") X(PATTERN_PROPERTIES, "patternProperties") \
    X(DEFINITIONS, "definitions") X(DEPENDENCIES, "dependencies") X(ENUM, "enum") \
    X(EXAMPLES, "examples") X(REQUIRED, "required") X(TYPE, "type") X(CONST, "const") \
    X(ADDITIONAL_PROPERTIES, "additionalProperties") X(PROPERTY_NAMES, "propertyNames") \
    X(MIN_PROPERTIES, "minProperties") X(MAX_PROPERTIES, "maxProperties") X(ITEMS, "items") \
    X(ADDITIONAL_ITEMS, "additionalItems") X(CONTAINS, "contains") X(MIN_ITEMS, "minItems") \
    X(MAX_ITEMS, "maxItems") X(UNIQUE_ITEMS, "uniqueItems") X(MINIMUM, "minimum") \
    X(MAXIMUM, "maximum") X(EXCLUSIVE_MINIMUM, "exclusiveMinimum") \
    X(EXCLUSIVE_MAXIMUM, "exclusiveMaximum") X(MULTIPLE_OF, "multipleOf") \
    X(MIN_LENGTH, "minLength") X(MAX_LENGTH, "maxLength") X(ALL_OF, "allOf") X(ANY_OF, "anyOf") \
    X(ONE_OF, "oneOf") X(NOT, "not") X(IF, "if") X(THEN, "then") X(ELSE, "else")
enum keyword {
#define X(id, text) K_##id,
    SCHEMA_KEYWORDS(X)
#undef X
    K_COUNT
};
static const struct schema_keyword keywords[K_COUNT] = {
#define X(id, text) SCHEMA_KEYWORD(text),
    SCHEMA_KEYWORDS(X)
#undef X
};

/* A schema node's keywords: each one's value (NULL: absent, or written without one) and
 * which are present. */
struct keywords {
    struct ynode *value[K_COUNT];
    uint64_t present;
};

uint64_t schema_keywords_read(const struct ynode *n, const struct schema_keyword *table, size_t count,
                              struct ynode **value)
{
    uint64_t present = 0;

    memset(value, 0, count * sizeof(*value));
    for (size_t i = 0; i < ynode_len(n); i++) {
        size_t len;
        const char *key = ynode_scalar(ynode_key(n, i), &len);

        for (size_t id = 0; key && id < count; id++) {
            if (table[id].len == len && !memcmp(table[id].text, key, len)) {
                if (!(present >> id & 1)) /* the first, as a lookup finds */
                    value[id] = ynode_value(n, i);
                present |= (uint64_t)1 << id;
                break;
            }
        }
    }
    return present;
}

/* The value of keyword `id` in `k`, or NULL. */
static struct ynode *value_of(const struct keywords *k, enum keyword id)
{
    return k->value[id];
}

enum kw_type { KW_STRING, KW_MAP, KW_LIST, KW_STRINGS };

/* The keywords whose value type the compiler would not otherwise see (draft-07's
 * metaschema); numbers, counts, booleans and subschemas are checked where they are
 * read. A keyword of the wrong type is an error, never ignored. */
static const struct {
    enum keyword id;
    enum kw_type type;
} keyword_types[] = {
    {K_REF, KW_STRING},      {K_ID, KW_STRING},          {K_SCHEMA, KW_STRING},
    {K_COMMENT, KW_STRING},  {K_TITLE, KW_STRING},       {K_DESCRIPTION, KW_STRING},
    {K_FORMAT, KW_STRING},   {K_PATTERN, KW_STRING},     {K_PROPERTIES, KW_MAP},
    {K_PATTERN_PROPERTIES, KW_MAP}, {K_DEFINITIONS, KW_MAP}, {K_DEPENDENCIES, KW_MAP},
    {K_ENUM, KW_LIST},       {K_EXAMPLES, KW_LIST},      {K_REQUIRED, KW_STRINGS},
};

static bool is_string(struct ynode *n)
{
    return n && ynode_is_scalar(n) && schema_type_of(n, NULL) == T_STRING;
}

/* A list of strings; reports the first item that is not one. */
static bool check_strings(struct schema *s, struct ynode *list, const char *kw)
{
    for (size_t i = 0; i < ynode_len(list); i++) {
        if (!is_string(ynode_item(list, i))) {
            schema_compile_error(s, ynode_item(list, i), "%s must be a list of strings", kw);
            return false;
        }
    }
    return true;
}

/* Where a message about keyword `kw` of `n` (its value `v`) points: the value, or the
 * key of one written without a value. */
static struct ynode *keyword_at(struct ynode *n, struct ynode *v, const char *kw)
{
    return v ? v : ynode_key(n, (size_t)ynode_find(n, kw, strlen(kw)));
}

static bool check_keyword_types(struct schema *s, struct ynode *n, const struct keywords *k)
{
    for (size_t i = 0; i < sizeof(keyword_types) / sizeof(keyword_types[0]); i++) {
        const char *kw = keywords[keyword_types[i].id].text;
        struct ynode *v = k->value[keyword_types[i].id];

        if (!(k->present >> keyword_types[i].id & 1))
            continue;
        switch (keyword_types[i].type) {
        case KW_STRING:
            if (!is_string(v)) {
                schema_compile_error(s, keyword_at(n, v, kw), "%s must be a string", kw);
                return false;
            }
            break;
        case KW_MAP:
            if (!v || !ynode_is_map(v)) {
                schema_compile_error(s, keyword_at(n, v, kw), "%s must be a mapping", kw);
                return false;
            }
            break;
        case KW_LIST:
        case KW_STRINGS:
            if (!v || !ynode_is_seq(v)) {
                schema_compile_error(s, keyword_at(n, v, kw), "%s must be a list", kw);
                return false;
            }
            if (keyword_types[i].type == KW_STRINGS && !check_strings(s, v, kw))
                return false;
            break;
        }
    }
    return true;
}

static bool number_of(struct ynode *n, double *out)
{
    unsigned t = schema_type_of(n, out);

    return (t & T_NUMBER) != 0;
}

static bool count_of(struct schema *s, struct ynode *n, const char *kw, long long *out)
{
    double v;

    if (!number_of(n, &v) || v < 0 || v != floor(v)) {
        schema_compile_error(s, n, "%s must be a non-negative integer", kw);
        return false;
    }
    /* a count past long long's range (`maxLength: 1e62`) is one no input reaches: a
     * conversion would be undefined (the schema fuzzer) */
    *out = v >= 0x1p63 ? LLONG_MAX : (long long)v;
    return true;
}

static struct schema_node **compile_list(struct schema *s, struct ynode *l, const char *kw, size_t *n)
{
    size_t count = ynode_len(l);
    struct schema_node **out;

    *n = 0;
    if (!ynode_is_seq(l) || !count) {
        schema_compile_error(s, l, "%s must be a non-empty list of schemas", kw);
        return NULL;
    }
    if (!(out = calloc(count, sizeof(*out)))) {
        s->failed = true;
        return NULL;
    }
    for (size_t i = 0; i < count; i++)
        out[i] = schema_compile_node(s, ynode_item(l, i));
    *n = count;
    return out;
}

static unsigned type_bit(struct schema *s, struct ynode *n)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"null", T_NULL},     {"boolean", T_BOOLEAN}, {"object", T_OBJECT},
                 {"array", T_ARRAY},   {"number", T_NUMBER},   {"string", T_STRING},
                 {"integer", T_INTEGER}};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (ynode_scalar_is(n, names[i].name))
            return names[i].bit;
    }
    schema_compile_error(s, n, "%s", "unknown type");
    return 0;
}

/* ECMA-262 patterns on PCRE2 (notes/libraries.md): UTF, `$` only at the very end,
 * \uXXXX, [^] and [], `.` excluding all line terminators, ASCII \d and \w; and \s / \S
 * widened to ECMA's whitespace set. */
/* (Under PCRE2_ALT_BSUX, code points are written \\uXXXX.) */
static const char ECMA_SPACE[] =
    "\\t\\n\\u000B\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F"
    "\\u205F\\u3000\\uFEFF";

static char *ecma_to_pcre(const char *src)
{
    size_t cap = strlen(src) * (sizeof(ECMA_SPACE) + 4) + 1, o = 0;
    char *out = malloc(cap);
    bool in_class = false;

    if (!out)
        return NULL;
    for (const char *p = src; *p; p++) {
        if (*p == '\\' && p[1]) {
            if ((p[1] == 's' || p[1] == 'S') && !(in_class && p[1] == 'S')) {
                o += (size_t)sprintf(out + o, "%s%s%s", in_class ? "" : (p[1] == 's' ? "[" : "[^"),
                                     ECMA_SPACE, in_class ? "" : "]");
            } else {
                out[o++] = *p;
                out[o++] = p[1];
            }
            p++;
            continue;
        }
        if (*p == '[' && !in_class)
            in_class = true;
        else if (*p == ']' && in_class)
            in_class = false;
        out[o++] = *p;
    }
    out[o] = '\0';
    return out;
}

static pcre2_code *compile_pattern(struct schema *s, struct ynode *n)
{
    char *src = schema_text_of(n), *translated;
    pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
    pcre2_code *re = NULL;
    int err;
    PCRE2_SIZE off;

    if (!src || !cc) {
        schema_compile_error(s, n, "%s", "pattern must be a string");
        goto done;
    }
    translated = ecma_to_pcre(src);
    pcre2_set_compile_extra_options(cc, PCRE2_EXTRA_ALT_BSUX);
    pcre2_set_newline(cc, PCRE2_NEWLINE_ANY);
    re = translated ? pcre2_compile((PCRE2_SPTR)translated, PCRE2_ZERO_TERMINATED,
                                    PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_ALT_BSUX |
                                        PCRE2_ALLOW_EMPTY_CLASS,
                                    &err, &off, cc)
                    : NULL;
    free(translated);
    if (!re) {
        PCRE2_UCHAR msg[160];

        pcre2_get_error_message(err, msg, sizeof(msg));
        schema_compile_error(s, n, "unsupported pattern '%s': %s", src, (const char *)msg);
    }
done:
    free(src);
    pcre2_compile_context_free(cc);
    return re;
}

/* The character of a class at src[*i] (before `end`), moved past: a printable ASCII
 * character, or an escaped punctuation character, which ECMA-262 (22.2, IdentityEscape)
 * and PCRE2 both read as itself; -1 for anything else (\d, a nested '[', non-ASCII). */
static int class_char(const char *src, size_t *i, size_t end)
{
    unsigned char c = (unsigned char)src[(*i)++];

    if (c < 0x20 || c >= 0x7F || c == '[' || c == ']')
        return -1;
    if (c != '\\')
        return c;
    if (*i == end || !strchr("-\\]^[./$*+?(){}|,:_#", src[*i]))
        return -1;
    return (unsigned char)src[(*i)++];
}

/* The class of `src` when it is `^[...]+$` of such characters and ranges of them: 256
 * flags by byte; NULL for any other pattern (PCRE2 answers it) or out of memory. */
static bool *simple_class(const char *src)
{
    size_t len = strlen(src), end, i = 2;
    bool *in;

    if (len < 6 || strncmp(src, "^[", 2) != 0 || src[2] == '^' || strcmp(src + len - 3, "]+$") != 0)
        return NULL;
    end = len - 3;
    if (!(in = calloc(256, sizeof(*in))))
        return NULL;
    while (i < end) {
        int lo = class_char(src, &i, end), hi;

        if (lo >= 0 && i + 1 < end && src[i] == '-') { /* a range; a '-' last is itself */
            i++;
            hi = class_char(src, &i, end);
        } else {
            hi = lo;
        }
        if (lo < 0 || hi < lo) {
            free(in);
            return NULL;
        }
        for (int c = lo; c <= hi; c++)
            in[c] = true;
    }
    return in;
}

static int prop_cmp(const void *pa, const void *pb)
{
    const struct prop *a = pa, *b = pb;

    return prop_order(a->name, a->len, b->name, b->len);
}

static int compile_properties(struct schema *s, struct schema_node *sn, struct ynode *v)
{
    size_t count = ynode_len(v), i = 0;

    if (count && !(sn->props = calloc(count, sizeof(*sn->props))))
        return -1;
    for (; i < count; i++) {
        size_t len;
        const char *name = ynode_scalar(ynode_key(v, i), &len);

        /* the name may hold a NUL ("\u0000"): copied by length */
        if (!(sn->props[i].name = malloc(len + 1)))
            return -1;
        memcpy(sn->props[i].name, name, len);
        sn->props[i].name[len] = '\0';
        sn->props[i].len = len;
        sn->props[i].schema = schema_compile_node(s, ynode_value(v, i));
    }
    sn->n_props = i;
    if (!sn->n_props) /* props is NULL for "properties": {} */
        return 0;
    qsort(sn->props, sn->n_props, sizeof(*sn->props), prop_cmp);
    if (!(sn->by_length = calloc(PROP_LENGTHS + 1, sizeof(*sn->by_length))))
        return -1;
    for (size_t len = 0, at = 0; len <= PROP_LENGTHS; len++) {
        while (at < sn->n_props && sn->props[at].len < len)
            at++;
        sn->by_length[len] = (unsigned)at;
    }
    return 0;
}

static int compile_pattern_properties(struct schema *s, struct schema_node *sn, struct ynode *v)
{
    size_t count = ynode_len(v), i = 0;

    if (count && !(sn->pprops = calloc(count, sizeof(*sn->pprops))))
        return -1;
    for (; i < count; i++) {
        sn->pprops[i].re = compile_pattern(s, ynode_key(v, i));
        sn->pprops[i].src = ynode_scalar(ynode_key(v, i), NULL);
        if (sn->pprops[i].re)
            sn->pprops[i].md = pcre2_match_data_create_from_pattern(sn->pprops[i].re, NULL);
        sn->pprops[i].schema = schema_compile_node(s, ynode_value(v, i));
    }
    sn->n_pprops = i;
    return 0;
}

/* The names, NULL-terminated, for streaming callers (schema_required). */
static int compile_required(struct schema_node *sn, struct ynode *v)
{
    size_t count = ynode_len(v);

    sn->required = v;
    sn->required_names = calloc(count + 1, sizeof(*sn->required_names));
    if (!sn->required_names)
        return -1;
    for (size_t i = 0; i < count; i++) {
        if (!(sn->required_names[i] = schema_text_of(ynode_item(v, i))))
            return -1;
    }
    return 0;
}

/* Each dependency a list of names or a schema; stops at a list that is not of strings. */
static int compile_dependencies(struct schema *s, struct schema_node *sn, struct ynode *v)
{
    size_t count = ynode_len(v), i = 0;

    if (count && !(sn->deps = calloc(count, sizeof(*sn->deps))))
        return -1;
    for (; i < count; i++) {
        size_t len;
        const char *name = ynode_scalar(ynode_key(v, i), &len);
        struct ynode *dv = ynode_value(v, i);

        if (ynode_is_seq(dv) && !check_strings(s, dv, "a dependency"))
            break;
        sn->deps[i].name = strndup(name, len);
        sn->deps[i].len = len;
        if (ynode_is_seq(dv))
            sn->deps[i].names = dv;
        else
            sn->deps[i].schema = schema_compile_node(s, dv);
    }
    sn->n_deps = i;
    return 0;
}

/* 0, or -1 when out of memory. */
static int compile_object_keywords(struct schema *s, struct schema_node *sn, const struct keywords *k)
{
    struct ynode *v;

    if ((v = value_of(k, K_PROPERTIES)) != NULL && compile_properties(s, sn, v) != 0)
        return -1;
    if ((v = value_of(k, K_PATTERN_PROPERTIES)) != NULL && compile_pattern_properties(s, sn, v) != 0)
        return -1;
    if ((v = value_of(k, K_ADDITIONAL_PROPERTIES)) != NULL)
        sn->additional_props = schema_compile_node(s, v);
    if ((v = value_of(k, K_PROPERTY_NAMES)) != NULL)
        sn->property_names = schema_compile_node(s, v);
    if ((v = value_of(k, K_REQUIRED)) != NULL && compile_required(sn, v) != 0)
        return -1;
    if ((v = value_of(k, K_MIN_PROPERTIES)) != NULL)
        count_of(s, v, "minProperties", &sn->min_props);
    if ((v = value_of(k, K_MAX_PROPERTIES)) != NULL)
        count_of(s, v, "maxProperties", &sn->max_props);
    if ((v = value_of(k, K_DEPENDENCIES)) != NULL)
        return compile_dependencies(s, sn, v);
    return 0;
}

static void compile_array_keywords(struct schema *s, struct schema_node *sn, const struct keywords *k)
{
    struct ynode *v;

    if ((v = value_of(k, K_ITEMS)) != NULL) {
        if (ynode_is_seq(v)) {
            size_t count = ynode_len(v);

            sn->items_is_list = true;
            sn->item_list = calloc(count ? count : 1, sizeof(*sn->item_list));
            if (!sn->item_list)
                s->failed = true;
            for (size_t i = 0; sn->item_list && i < count; i++)
                sn->item_list[i] = schema_compile_node(s, ynode_item(v, i));
            sn->n_item_list = sn->item_list ? count : 0;
        } else {
            sn->items = schema_compile_node(s, v);
        }
    }
    if ((v = value_of(k, K_ADDITIONAL_ITEMS)) != NULL)
        sn->additional_items = schema_compile_node(s, v);
    if ((v = value_of(k, K_CONTAINS)) != NULL)
        sn->contains = schema_compile_node(s, v);
    if ((v = value_of(k, K_MIN_ITEMS)) != NULL)
        count_of(s, v, "minItems", &sn->min_items);
    if ((v = value_of(k, K_MAX_ITEMS)) != NULL)
        count_of(s, v, "maxItems", &sn->max_items);
    if ((v = value_of(k, K_UNIQUE_ITEMS)) != NULL && !is_true_false(v, &sn->unique_items))
        schema_compile_error(s, v, "%s", "uniqueItems must be true or false");
}

static void compile_scalar_keywords(struct schema *s, struct schema_node *sn, const struct keywords *k)
{
    struct ynode *v;
    static const struct {
        const char *kw;
        enum keyword id;
        size_t has, val;
    } nums[] = {
        {"minimum", K_MINIMUM, offsetof(struct schema_node, has_min), offsetof(struct schema_node, minimum)},
        {"maximum", K_MAXIMUM, offsetof(struct schema_node, has_max), offsetof(struct schema_node, maximum)},
        {"exclusiveMinimum", K_EXCLUSIVE_MINIMUM, offsetof(struct schema_node, has_xmin), offsetof(struct schema_node, xminimum)},
        {"exclusiveMaximum", K_EXCLUSIVE_MAXIMUM, offsetof(struct schema_node, has_xmax), offsetof(struct schema_node, xmaximum)},
        {"multipleOf", K_MULTIPLE_OF, offsetof(struct schema_node, has_multiple), offsetof(struct schema_node, multiple_of)},
    };

    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
        if ((v = value_of(k, nums[i].id)) == NULL)
            continue;
        if (!number_of(v, (double *)((char *)sn + nums[i].val)))
            schema_compile_error(s, v, "%s must be a number", nums[i].kw);
        else
            *(bool *)((char *)sn + nums[i].has) = true;
    }
    if (sn->has_multiple && sn->multiple_of <= 0)
        schema_compile_error(s, value_of(k, K_MULTIPLE_OF), "%s", "multipleOf must be greater than 0");
    if ((v = value_of(k, K_MIN_LENGTH)) != NULL)
        count_of(s, v, "minLength", &sn->min_length);
    if ((v = value_of(k, K_MAX_LENGTH)) != NULL)
        count_of(s, v, "maxLength", &sn->max_length);
    if ((v = value_of(k, K_PATTERN)) != NULL) {
        sn->pattern = compile_pattern(s, v);
        sn->pattern_src = schema_text_of(v);
        if (sn->pattern) {
            sn->pattern_md = pcre2_match_data_create_from_pattern(sn->pattern, NULL);
            sn->pattern_memo = calloc(PATTERN_MEMO, sizeof(*sn->pattern_memo));
            sn->pattern_class = simple_class(sn->pattern_src ? sn->pattern_src : "");
        }
    }
}

/* A new node for `n`, registered (found again by the next reach of `n`, and given its
 * index for the cycle search); NULL when out of memory. */
static struct schema_node *new_node(struct schema *s, struct ynode *n)
{
    struct schema_node *sn;

    /* room in s->all first: a node made and then left out of it had no owner (a lazy
     * schema's compile of it read through NULL) and was never freed */
    if (s->n_all == s->cap_all) {
        struct schema_node **all = array_grow(s->all, &s->cap_all, s->n_all + 1, 64, sizeof(*all));

        if (!all) {
            s->failed = true;
            return NULL;
        }
        s->all = all;
    }
    if (!(sn = calloc(1, sizeof(*sn))) || schema_ptrmap_put(&s->compiled, n, sn) != 0) {
        free(sn);
        s->failed = true;
        return NULL;
    }
    sn->index = s->n_all;
    s->all[s->n_all++] = sn;
    sn->src = n;
    sn->owner = s;
    sn->min_items = sn->min_length = sn->min_props = -1;
    sn->max_items = sn->max_length = sn->max_props = -1;
    return sn;
}

/* `$ref` (its value `v`, written in `n`): its target compiled. */
static void compile_ref(struct schema *s, struct schema_node *sn, struct ynode *n, struct ynode *v)
{
    char *ref = schema_text_of(v);
    struct ynode *target = ref ? schema_resolve_ref(s, n, ref) : NULL;

    if (!target)
        schema_compile_error(s, v, "cannot resolve $ref '%s' (remote references are not fetched)",
                             ref ? ref : "");
    else
        sn->ref = schema_compile_node(s, target);
    free(ref);
}

/* `type`, `enum` and `const`: the keywords about the whole value. */
static void compile_value_keywords(struct schema *s, struct schema_node *sn, struct ynode *n, const struct keywords *k)
{
    struct ynode *v;

    if ((v = value_of(k, K_TYPE)) != NULL) {
        if (ynode_is_seq(v)) {
            for (size_t i = 0; i < ynode_len(v); i++)
                sn->types |= type_bit(s, ynode_item(v, i));
        } else {
            sn->types = type_bit(s, v);
        }
    }
    if ((v = value_of(k, K_ENUM)) != NULL)
        sn->enum_values = v;
    if (k->present >> K_CONST & 1) {
        sn->const_value = value_of(k, K_CONST);
        if (!sn->const_value) /* `const:` with nothing is null; keep a marker */
            sn->const_value = n;
    }
}

/* allOf, anyOf, oneOf, not, if/then/else. */
static void compile_combinators(struct schema *s, struct schema_node *sn, const struct keywords *k)
{
    struct ynode *v;

    if ((v = value_of(k, K_ALL_OF)) != NULL)
        sn->all_of = compile_list(s, v, "allOf", &sn->n_all_of);
    if ((v = value_of(k, K_ANY_OF)) != NULL)
        sn->any_of = compile_list(s, v, "anyOf", &sn->n_any_of);
    if ((v = value_of(k, K_ONE_OF)) != NULL)
        sn->one_of = compile_list(s, v, "oneOf", &sn->n_one_of);
    if ((v = value_of(k, K_NOT)) != NULL)
        sn->not_ = schema_compile_node(s, v);
    if ((v = value_of(k, K_IF)) != NULL) {
        sn->if_ = schema_compile_node(s, v);
        if ((v = value_of(k, K_THEN)) != NULL)
            sn->then_ = schema_compile_node(s, v);
        if ((v = value_of(k, K_ELSE)) != NULL)
            sn->else_ = schema_compile_node(s, v);
    }
}

/* The keywords of node `sn` (schema node `n`); its subschemas compiled, or registered
 * pending in a lazy schema. */
static void compile_keywords(struct schema *s, struct schema_node *sn, struct ynode *n)
{
    struct keywords k;
    struct ynode *v;

    if (is_true_false(n, &sn->bool_value)) {
        sn->is_bool = true;
        return;
    }
    if (!n || !ynode_is_map(n)) {
        schema_compile_error(s, n, "%s", "a schema must be an object or a boolean");
        return;
    }
    k.present = schema_keywords_read(n, keywords, K_COUNT, k.value);
    if (!check_keyword_types(s, n, &k))
        return;
    if ((v = k.value[K_REF]) != NULL) {
        compile_ref(s, sn, n, v);
        return; /* draft-07: $ref's siblings are ignored */
    }
    compile_value_keywords(s, sn, n, &k);
    if (compile_object_keywords(s, sn, &k) != 0)
        s->failed = true;
    compile_array_keywords(s, sn, &k);
    compile_scalar_keywords(s, sn, &k);
    sn->needs_scalar_type = sn->types || sn->has_min || sn->has_max || sn->has_xmin ||
                            sn->has_xmax || sn->has_multiple || sn->min_length >= 0 ||
                            sn->max_length >= 0 || sn->pattern;
    compile_combinators(s, sn, &k);
}

static struct schema_node *compile_node(struct schema *s, struct ynode *n)
{
    struct schema_node *sn = schema_ptrmap_get(&s->compiled, n);

    if (sn)
        return sn;
    if (!(sn = new_node(s, n)))
        return NULL;
    if (s->lazy)
        sn->pending = true;
    else
        compile_keywords(s, sn, n);
    return sn;
}

void schema_compile_pending(struct schema_node *sn)
{
    sn->pending = false;
    compile_keywords(sn->owner, sn, sn->src);
}

/* compile_node with a bound on its recursion: the document nests at most
 * STREAM_MAX_DEPTH deep, but a chain of $refs to one definition after another can be
 * as long as the schema, and must not run the stack out. */
struct schema_node *schema_compile_node(struct schema *s, struct ynode *n)
{
    struct schema_node *sn;

    if (s->depth == MAX_COMPILE_DEPTH) {
        schema_compile_error(s, n, "a chain of more than %d nested subschemas and $refs", MAX_COMPILE_DEPTH);
        return NULL;
    }
    s->depth++;
    sn = compile_node(s, n);
    s->depth--;
    return sn;
}
