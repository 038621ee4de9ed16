/* Which strings of a pipeline the agent interpolates, and with what, follows
 * buildkite/go-pipeline (pipeline.go's Interpolate and interpolateEnvBlock, interpolate.go,
 * and each type's interpolate method: step_command.go, step_command_matrix.go,
 * step_command_cache.go, checkout.go, secret.go, plugin.go, step_group.go); the
 * environment and the order of documents and files follow the agent's
 * clicommand/pipeline_upload.go. Cited in docs/buildkite.md. */
#include "bkinterp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/source.h"
#include "fanout/strhash.h"
#include "fanout/text.h"
#include "fanout/yscalar.h"

#include "bkread.h"
#include "interpolate.h"
#include "steps.h"

/* ---- a table of variables ---- */

enum var_state {
    VAR_SET,     /* with a value */
    VAR_UNKNOWN, /* set by the pipeline's env from what is not known */
    VAR_SEEN,    /* a name only (the names noted, the names a document used) */
};

struct var {
    char *name, *value; /* name NULL: a free slot */
    size_t len, value_len;
    enum var_state state;
};

struct varmap {
    struct var *slots;
    size_t cap, n; /* cap: 0 or a power of two */
};

static struct var *varmap_find(const struct varmap *m, const char *name, size_t len)
{
    if (!m->cap)
        return NULL;
    for (size_t i = strhash_fnv1a(name, len) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct var *v = &m->slots[i];

        if (!v->name)
            return NULL;
        if (v->len == len && !memcmp(v->name, name, len))
            return v;
    }
}

/* The variable `name`, added (state VAR_SEEN, no value) when it is not there; NULL when
 * out of memory. */
static struct var *varmap_put(struct varmap *m, const char *name, size_t len)
{
    struct var *v = varmap_find(m, name, len);

    if (v)
        return v;
    if ((m->n + 1) * 4 > m->cap * 3) {
        struct varmap grown = {calloc(m->cap ? m->cap * 2 : 16, sizeof(struct var)), m->cap ? m->cap * 2 : 16, 0};

        if (!grown.slots)
            return NULL;
        for (size_t i = 0; i < m->cap; i++) {
            struct var *old = &m->slots[i];
            size_t j;

            if (!old->name)
                continue;
            j = strhash_fnv1a(old->name, old->len) & (grown.cap - 1);
            while (grown.slots[j].name)
                j = (j + 1) & (grown.cap - 1);
            grown.slots[j] = *old;
            grown.n++;
        }
        free(m->slots);
        *m = grown;
    }
    for (size_t i = strhash_fnv1a(name, len) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        v = &m->slots[i];
        if (v->name)
            continue;
        if (!(v->name = malloc(len + 1)))
            return NULL;
        memcpy(v->name, name, len);
        v->name[len] = '\0';
        v->len = len;
        v->value = NULL;
        v->value_len = 0;
        v->state = VAR_SEEN;
        m->n++;
        return v;
    }
}

/* Sets `name` to value[0..len) (NULL: to what is not known). 0, or -1 when out of memory. */
static int varmap_set(struct varmap *m, const char *name, size_t name_len, const char *value, size_t len)
{
    struct var *v = varmap_put(m, name, name_len);
    char *copy = value ? malloc(len + 1) : NULL;

    if (!v || (value && !copy)) {
        free(copy);
        return -1;
    }
    if (copy) {
        memcpy(copy, value, len);
        copy[len] = '\0';
    }
    free(v->value);
    v->value = copy;
    v->value_len = len;
    v->state = value ? VAR_SET : VAR_UNKNOWN;
    return 0;
}

static void varmap_clear(struct varmap *m)
{
    for (size_t i = 0; i < m->cap; i++) {
        free(m->slots[i].name);
        free(m->slots[i].value);
    }
    free(m->slots);
    memset(m, 0, sizeof(*m));
}

static int varmap_copy(struct varmap *to, const struct varmap *from)
{
    varmap_clear(to);
    for (size_t i = 0; i < from->cap; i++) {
        const struct var *v = &from->slots[i];

        if (v->name && varmap_set(to, v->name, v->len, v->state == VAR_SET ? v->value : NULL, v->value_len) != 0)
            return -1;
    }
    return 0;
}

/* ---- the variables the options give ---- */

struct bkinterp_vars {
    struct varmap map;
    bool complete; /* --env-from-environment: a variable not in `map` is unset */
    bool off;      /* --no-interpolation */
};

struct bkinterp_vars *bkinterp_vars_create(void)
{
    return calloc(1, sizeof(struct bkinterp_vars));
}

void bkinterp_vars_destroy(struct bkinterp_vars *v)
{
    if (!v)
        return;
    varmap_clear(&v->map);
    free(v);
}

/* A value fanout can write: UTF-8 without NUL (the agent would send it in JSON). */
static bool clean(const char *s, size_t len)
{
    return source_check_utf8((const unsigned char *)s, len, NULL, NULL, NULL);
}

const char *bkinterp_vars_set(struct bkinterp_vars *v, const char *arg)
{
    const char *eq = strchr(arg, '=');

    if (!eq || eq == arg)
        return "needs NAME=VALUE:";
    if (!clean(arg, strlen(arg)))
        return "takes UTF-8 text only:";
    if (varmap_set(&v->map, arg, (size_t)(eq - arg), eq + 1, strlen(eq + 1)) != 0)
        return "out of memory:";
    return NULL;
}

int bkinterp_vars_take_environment(struct bkinterp_vars *v, char *const *environ)
{
    v->complete = true;
    for (size_t i = 0; environ && environ[i]; i++) {
        const char *e = environ[i], *eq = strchr(e, '=');

        /* as the agent's env.Split: no '=', or one at the start, is no variable */
        if (!eq || eq == e || varmap_find(&v->map, e, (size_t)(eq - e)) || !clean(e, strlen(e)))
            continue;
        if (varmap_set(&v->map, e, (size_t)(eq - e), eq + 1, strlen(eq + 1)) != 0)
            return -1;
    }
    return 0;
}

void bkinterp_vars_off(struct bkinterp_vars *v)
{
    v->off = true;
}

/* ---- --env-file ---- */

struct envfile {
    const char *path;
    struct diag *diag;
    unsigned line;
    const char *line_start;
};

__attribute__((format(printf, 3, 4)))
static int envfile_error(const struct envfile *f, const char *at, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    diag_vreport(f->diag, DIAG_ERROR, DIAG_INPUT, f->path, f->line, (unsigned)(at - f->line_start) + 1,
                 RULE_ENV_FILE, fmt, ap);
    va_end(ap);
    return -1;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Appends code point `r` as UTF-8. */
static size_t put_utf8(char *out, unsigned long r)
{
    if (r < 0x80)
        return out[0] = (char)r, 1;
    if (r < 0x800)
        return out[0] = (char)(0xC0 | (r >> 6)), out[1] = (char)(0x80 | (r & 0x3F)), 2;
    if (r < 0x10000)
        return out[0] = (char)(0xE0 | (r >> 12)), out[1] = (char)(0x80 | ((r >> 6) & 0x3F)),
               out[2] = (char)(0x80 | (r & 0x3F)), 3;
    out[0] = (char)(0xF0 | (r >> 18));
    out[1] = (char)(0x80 | ((r >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((r >> 6) & 0x3F));
    out[3] = (char)(0x80 | (r & 0x3F));
    return 4;
}

/* A Go double-quoted string (strconv.Unquote: what %q writes) from p (at its '"') to
 * `end`, into out (at most as long as the input); its length, or -1 after an error. */
static long go_unquote(const struct envfile *f, const char *p, const char *end, char *out)
{
    size_t n = 0;

    for (p++; p < end && *p != '"'; p++) {
        const char *esc = p;
        int digits = 0, base = 16;
        unsigned long r = 0;

        if (*p != '\\') {
            out[n++] = *p;
            continue;
        }
        if (++p == end)
            break;
        switch (*p) {
        case 'a': out[n++] = '\a'; continue;
        case 'b': out[n++] = '\b'; continue;
        case 'f': out[n++] = '\f'; continue;
        case 'n': out[n++] = '\n'; continue;
        case 'r': out[n++] = '\r'; continue;
        case 't': out[n++] = '\t'; continue;
        case 'v': out[n++] = '\v'; continue;
        case '\\': case '"': case '\'': out[n++] = *p; continue;
        case 'x': digits = 2; break;
        case 'u': digits = 4; break;
        case 'U': digits = 8; break;
        default:
            if (*p < '0' || *p > '7')
                return envfile_error(f, esc, "unknown escape '\\%c' in a quoted value", *p);
            digits = 3, base = 8, p--;
        }
        for (int i = 0; i < digits; i++) {
            int d = ++p < end ? hex_digit(*p) : -1;

            if (d < 0 || d >= base)
                return envfile_error(f, esc, "'\\%c' needs %d %s digits", esc[1], digits,
                                     base == 8 ? "octal" : "hex");
            r = r * (unsigned long)base + (unsigned long)d;
        }
        if ((esc[1] == 'x' || base == 8) && r <= 0xFF)
            out[n++] = (char)r; /* a byte */
        else if (r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF) || base == 8)
            return envfile_error(f, esc, "escape '%.*s' is no character", (int)(p + 1 - esc), esc);
        else
            n += put_utf8(out + n, r);
    }
    if (p == end)
        return envfile_error(f, end, "the quoted value does not end");
    for (p++; p < end && (*p == ' ' || *p == '\t'); p++)
        ;
    if (p < end && *p != '#')
        return envfile_error(f, p, "text after the quoted value");
    return (long)n;
}

static bool is_name_char(char c)
{
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* One line, without its newline. 0, or -1 after an error. */
static int envfile_line(struct bkinterp_vars *v, const struct envfile *f, const char *p, const char *end)
{
    const char *name, *eq, *value;
    char *decoded = NULL;
    long n;
    int rc;

    if (end > p && end[-1] == '\r')
        end--;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p == '#')
        return 0;
    if (end - p > 7 && !memcmp(p, "export ", 7))
        for (p += 7; p < end && *p == ' '; p++)
            ;
    name = p;
    if (p >= end || !(eq = memchr(p, '=', (size_t)(end - p)))) {
        while (p < end && is_name_char(*p))
            p++;
        if (p == end) /* a name without a value: the agent's list of its own settings */
            return 0;
        return envfile_error(f, p, "not NAME=VALUE");
    }
    for (p = name; p < eq; p++) {
        if (*p == ' ' || *p == '\t')
            return envfile_error(f, p, "a space in a variable name");
    }
    if (eq == name)
        return envfile_error(f, eq, "a variable without a name");
    value = eq + 1;
    if (value < end && (*value == '"' || *value == '\'')) {
        const char *close = *value == '\'' ? memchr(value + 1, '\'', (size_t)(end - value - 1)) : NULL;

        if (*value == '\'' && !close)
            return envfile_error(f, end, "the quoted value does not end");
        if (*value == '\'') {
            rc = varmap_set(&v->map, name, (size_t)(eq - name), value + 1, (size_t)(close - value - 1));
            goto done;
        }
        if (!(decoded = malloc((size_t)(end - value) + 1)))
            return envfile_error(f, value, "out of memory");
        if ((n = go_unquote(f, value, end, decoded)) < 0) {
            free(decoded);
            return -1;
        }
        if (memchr(decoded, '\0', (size_t)n) || !clean(decoded, (size_t)n)) {
            free(decoded);
            return envfile_error(f, value, "the value is not UTF-8 text (or holds a NUL)");
        }
        rc = varmap_set(&v->map, name, (size_t)(eq - name), decoded, (size_t)n);
        free(decoded);
        goto done;
    }
    rc = varmap_set(&v->map, name, (size_t)(eq - name), value, (size_t)(end - value));
done:
    return rc == 0 ? 0 : envfile_error(f, name, "out of memory");
}

int bkinterp_vars_read(struct bkinterp_vars *v, const char *path, struct diag *d)
{
    size_t len;
    char *text = source_slurp(path, &len, NULL, d);
    struct envfile f = {path, d, 0, NULL};
    const char *p, *end;
    int rc = 0;

    if (!text)
        return -1;
    for (p = text, end = text + len; rc == 0 && p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl ? nl : end;

        f.line++;
        f.line_start = p;
        rc = envfile_line(v, &f, p, line_end);
        p = nl ? nl + 1 : end;
    }
    free(text);
    return rc;
}

/* ---- one run ---- */

struct bkinterp {
    const struct bkinterp_vars *given; /* NULL: none */
    bool off, complete;
    struct diag *diag;
    const char *const *names;
    struct varmap vars;     /* the given ones, then what the pipelines' env blocks set */
    struct varmap noted;    /* the variables noted as not given */
    size_t notes;
    struct varmap doc_used; /* the names a document's steps read, until its env */
    bool in_steps, late_env_warned;
    size_t growth, walked;  /* bytes interpolation added in this pass, and read */
    struct strset *keys_seen; /* a mapping's keys, once interpolated (check_keys) */
    char **patterns;        /* keys only known at upload, as interp_glob patterns */
    size_t n_patterns;
    unsigned long long match_budget;
};

struct bkinterp *bkinterp_create(const struct bkinterp_vars *given)
{
    struct bkinterp *b = calloc(1, sizeof(*b));

    if (b && !(b->keys_seen = strset_create())) {
        free(b);
        b = NULL;
    }
    if (!b)
        return NULL;
    b->given = given;
    b->off = given && given->off;
    b->complete = given && given->complete;
    /* matching references to patterns costs their product: bounded for hostile input */
    b->match_budget = 50000000ull;
    return b;
}

void bkinterp_destroy(struct bkinterp *b)
{
    if (!b)
        return;
    varmap_clear(&b->vars);
    varmap_clear(&b->noted);
    varmap_clear(&b->doc_used);
    for (size_t i = 0; i < b->n_patterns; i++)
        free(b->patterns[i]);
    free(b->patterns);
    strset_destroy(b->keys_seen);
    free(b);
}

void bkinterp_begin(struct bkinterp *b, struct diag *d, const char *const *names)
{
    b->diag = d;
    b->names = names;
    b->growth = b->walked = 0;
    b->in_steps = false;
    varmap_clear(&b->doc_used);
    /* out of memory here leaves fewer variables known: they are kept as written */
    if (!b->given || varmap_copy(&b->vars, &b->given->map) != 0)
        varmap_clear(&b->vars);
}

/* ---- the walk over an item ---- */

struct walk {
    struct bkinterp *b;
    struct ynode_doc *doc;
    const struct ynode *scalar; /* being interpolated */
    bool parallel;              /* in a step with parallelism */
    bool unknown;               /* the scalar kept an expansion */
    bool recording;             /* lookups count as the document's use of a name */
};

static void report(struct walk *w, enum diag_severity sev, enum diag_class cls, size_t offset,
                   enum rule_id rule, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void report(struct walk *w, enum diag_severity sev, enum diag_class cls, size_t offset,
                   enum rule_id rule, const char *fmt, ...)
{
    struct ypos p = ynode_text_pos(w->scalar, offset);
    va_list ap;

    va_start(ap, fmt);
    diag_vat(w->b->diag, sev, cls, w->b->names, p, rule, fmt, ap);
    va_end(ap);
}

static bool is_shard_variable(const char *name, size_t len)
{
    return (len == 22 && !memcmp(name, "BUILDKITE_PARALLEL_JOB", 22)) ||
           (len == 28 && !memcmp(name, "BUILDKITE_PARALLEL_JOB_COUNT", 28));
}

static enum interp_var lookup(void *user, const char *name, size_t len, const char **value,
                              size_t *value_len)
{
    struct walk *w = user;
    const struct var *v = varmap_find(&w->b->vars, name, len);

    /* Whatever the uploading job has (usually nothing), it is not each shard's: the
     * agent would write the same value into every one. (A step without parallelism
     * reading them is steplint's warning already.) */
    if (w->parallel && w->recording && is_shard_variable(name, len))
        report(w, DIAG_ERROR, DIAG_FINDING, (size_t)(name - w->scalar->u.scalar.text) - (name[-1] == '{' ? 2 : 1),
               RULE_SHARD_VARIABLES,
               "$%.*s is interpolated by buildkite-agent pipeline upload, from the uploading job's "
               "environment, so every shard would get the same value: write $$%.*s for each job's own",
               (int)len, name, (int)len, name);
    if (w->recording && w->b->in_steps) {
        struct var *used = varmap_put(&w->b->doc_used, name, len); /* out of memory: a message less */

        if (used && v && v->state == VAR_SET)
            used->state = VAR_SET; /* its value was written into the rendering */
    }
    if (v && v->state == VAR_SET) {
        *value = v->value;
        *value_len = v->value_len;
        return INTERP_SET;
    }
    return v || !w->b->complete ? INTERP_UNKNOWN : INTERP_UNSET;
}

/* An expansion kept as written: a note the first time its variable is met. */
static void on_unknown(void *user, const char *name, size_t name_len, size_t at, size_t len)
{
    struct walk *w = user;
    struct bkinterp *b = w->b;

    w->unknown = true;
    /* the shard variables have their own error (lookup) */
    if (is_shard_variable(name, name_len))
        return;
    /* a variable the pipeline's env sets from one not given was noted there */
    if (varmap_find(&b->vars, name, name_len) || varmap_find(&b->noted, name, name_len))
        return;
    if (!varmap_put(&b->noted, name, name_len) || ++b->notes > BKINTERP_MAX_NOTES + 1)
        return;
    if (b->notes > BKINTERP_MAX_NOTES)
        report(w, DIAG_NOTE, DIAG_FINDING, at, RULE_INTERPOLATION, "more variables are not given; "
               "their notes are left out");
    else
        report(w, DIAG_NOTE, DIAG_FINDING, at, RULE_INTERPOLATION,
               "%.*s is not given: '%.*s%s' is kept as written, for buildkite-agent pipeline upload "
               "to fill in (--env %.*s=VALUE gives it)", (int)name_len, name,
               (int)text_utf8_cut(w->scalar->u.scalar.text + at, len, 60), w->scalar->u.scalar.text + at, len > 60 ? "..." : "",
               (int)name_len, name);
}

/* `text` (malloc'd, taken) with each byte that is not UTF-8 as U+FFFD: a substring may
 * cut a character, and the agent's JSON encoder writes U+FFFD for it. NULL when out of
 * memory. */
static char *valid_utf8(char *text, size_t len, size_t *out_len)
{
    char *out, *from = text;
    size_t n = 0, bad;

    *out_len = len;
    if (source_check_utf8((const unsigned char *)text, len, &bad, NULL, NULL))
        return text;
    if (!(out = malloc(len * 3 + 1))) {
        free(text);
        return NULL;
    }
    while (len && !source_check_utf8((const unsigned char *)from, len, &bad, NULL, NULL)) {
        memcpy(out + n, from, bad);
        memcpy(out + n + bad, "\xEF\xBF\xBD", 3);
        n += bad + 3;
        from += bad + 1;
        len -= bad + 1;
    }
    memcpy(out + n, from, len);
    *out_len = n + len;
    out[*out_len] = '\0';
    free(text);
    return out;
}

/* interp_scalar's scalar *slot, text `t`, which has something to interpolate. */
static int interp_text(struct walk *w, struct ynode **slot, bool is_key, const char *t, size_t len)
{
    struct ynode *n = *slot, *made;
    size_t out_len, clean_len;
    struct interp_error err;
    char *out = NULL, *cleaned;
    int rc;

    w->scalar = n;
    rc = interp_partial(t, len, lookup, on_unknown, w, &out, &out_len, &err);
    if (rc == INTERP_FAILED || rc == INTERP_LIMIT) {
        report(w, DIAG_ERROR, DIAG_INPUT, err.offset, RULE_INTERPOLATION, "%s (%s)", err.message,
               rc == INTERP_FAILED ? "buildkite-agent pipeline upload fails on it"
                                   : "a limit of fanout's, against interpolation bombs");
        return -1;
    }
    if (rc == INTERP_OK && !out)
        return 0;
    cleaned = rc == INTERP_OK ? valid_utf8(out, out_len, &clean_len) : NULL;
    if (!cleaned) {
        report(w, DIAG_ERROR, DIAG_INPUT, 0, RULE_INTERNAL, "out of memory");
        return -1;
    }
    w->b->growth += clean_len > len ? clean_len - len : 0;
    if (w->b->growth > BKINTERP_MAX_GROWTH + w->b->walked) {
        free(cleaned);
        report(w, DIAG_ERROR, DIAG_INPUT, 0, RULE_INTERPOLATION, "interpolation adds more than %u MiB "
               "and more than the strings it read (an interpolation bomb?)", BKINTERP_MAX_GROWTH >> 20);
        return -1;
    }
    /* A plain scalar stays plain when it still reads as what it spells (`parallelism: $N`
     * is a number once N is); anything else is a string. */
    if (n->style == YNODE_PLAIN && clean_len &&
        (yscalar_style(cleaned, clean_len, is_key) == YS_PLAIN ||
         (!is_key && yscalar_type(cleaned, clean_len) != YS_STRING && yscalar_type(cleaned, clean_len) != YS_NULL)))
        made = ynode_new_scalar(w->doc, cleaned, clean_len, YNODE_PLAIN, n->pos);
    else
        made = ynode_new_string(w->doc, cleaned, clean_len, n->pos);
    free(cleaned);
    if (!made) {
        report(w, DIAG_ERROR, DIAG_INPUT, 0, RULE_INTERNAL, "out of memory");
        return -1;
    }
    *slot = made;
    return 0;
}

/* The scalar *slot interpolated; replaced when its text changes. 0, or -1 after an error.
 * Most scalars have nothing to interpolate: told here, without interp_text's frame
 * (55,000 scalars of a 1 MB pipeline). */
static inline int interp_scalar(struct walk *w, struct ynode **slot, bool is_key)
{
    const struct ynode *n = *slot;

    w->unknown = false;
    if (!ynode_is_scalar(n) || !n->u.scalar.text)
        return 0;
    w->b->walked += n->u.scalar.len;
    if (!interp_needed(n->u.scalar.text, n->u.scalar.len))
        return 0;
    return interp_text(w, slot, is_key, n->u.scalar.text, n->u.scalar.len);
}

/* How the agent interpolates a field (go-pipeline's types): the key and the value, the
 * value only, neither, or the value by the rules of its own type. */
enum field { F_ALL, F_VALUE, F_KEEP, F_STEPS, F_CACHE, F_CHECKOUT, F_ENV };

/* The mappings whose fields have rules of their own. */
enum holder { H_ANY, H_PIPELINE, H_STEP, H_CACHE, H_CHECKOUT };

/* How the agent interpolates the field `key` of `map`, a mapping of kind `in`. */
static enum field field_of(enum holder in, const struct ynode *map, const struct ynode *key)
{
    switch (in) {
    case H_PIPELINE: /* secrets: not interpolated at the top level */
        return ynode_scalar_is(key, "env") ? F_ENV : ynode_scalar_is(key, "secrets") ? F_KEEP
               : ynode_scalar_is(key, "checkout") ? F_CHECKOUT : F_ALL;
    case H_STEP: /* a step's type is looked at only for the fields that depend on it */
        if (ynode_scalar_is(key, "steps"))
            return bk_step_kind(map) == BK_GROUP ? F_STEPS : F_ALL;
        if (!ynode_scalar_is(key, "signature") && !ynode_scalar_is(key, "cache") &&
            !ynode_scalar_is(key, "checkout"))
            return F_ALL;
        if (bk_step_kind(map) != BK_COMMAND)
            return F_ALL;
        /* NB: do not interpolate Signature (step_command.go) */
        return ynode_scalar_is(key, "signature") ? F_KEEP : ynode_scalar_is(key, "cache") ? F_CACHE : F_CHECKOUT;
    case H_CACHE: /* Cache.interpolate: name, paths and size */
        return ynode_scalar_is(key, "name") || ynode_scalar_is(key, "paths") || ynode_scalar_is(key, "size")
                   ? F_VALUE : F_KEEP;
    case H_CHECKOUT: /* Checkout.interpolate: its remaining fields, not the typed ones */
        return ynode_scalar_is(key, "skip") || ynode_scalar_is(key, "submodules") ||
               ynode_scalar_is(key, "ssh_secret") || ynode_scalar_is(key, "depth") ? F_KEEP : F_ALL;
    case H_ANY:
        break;
    }
    return F_ALL;
}

static int interp_map(struct walk *w, struct ynode *map, enum holder in);

/* Everything under *slot, keys too. */
static int interp_all(struct walk *w, struct ynode **slot)
{
    struct ynode *n = *slot;

    if (ynode_is_scalar(n))
        return interp_scalar(w, slot, false);
    if (ynode_is_map(n))
        return interp_map(w, n, H_ANY);
    for (size_t i = 0; i < ynode_len(n); i++) {
        if (interp_all(w, &n->u.seq.items[i]) != 0)
            return -1;
    }
    return 0;
}

/* Interpolated keys must stay unique (the rendering is YAML). */
static int check_keys(struct walk *w, const struct ynode *map)
{
    const struct ynode *key;
    int rc = bkread_repeated_key(w->b->keys_seen, map, &key);

    if (rc == 0)
        return 0;
    w->scalar = key;
    if (rc < 0)
        report(w, DIAG_ERROR, DIAG_INPUT, 0, RULE_INTERNAL, "out of memory");
    else
        report(w, DIAG_ERROR, DIAG_INPUT, 0, RULE_DUPLICATE_KEY,
               "key '%.*s' twice in this mapping once interpolated (buildkite-agent would keep only one of them)",
               (int)text_utf8_cut(key->u.scalar.text, key->u.scalar.len, 60), key->u.scalar.text);
    return -1;
}

/* The pipeline's env: each entry interpolated, then set for what follows (the agent's
 * interpolateEnvBlock: its value replaces a given one). */
static int interp_env(struct walk *w, struct ynode *env)
{
    struct bkinterp *b = w->b;

    if (!ynode_is_map(env))
        return interp_all(w, &env);
    for (size_t i = 0; i < ynode_len(env); i++) {
        struct ynode_pair *p = &env->u.map.pairs[i];
        bool key_unknown, value_unknown;
        const struct var *used;
        size_t klen, len = 0;
        const char *k, *set;
        char *value = NULL;
        struct interp_error err;
        int rc = INTERP_OK;

        if (interp_scalar(w, &p->key, true) != 0)
            return -1;
        key_unknown = w->unknown;
        if (interp_all(w, &p->value) != 0)
            return -1;
        value_unknown = w->unknown || !ynode_is_scalar(p->value); /* a null is "" (bkread) */
        if (key_unknown || !(k = ynode_scalar(p->key, &klen)))
            continue;
        if (b->in_steps && !b->late_env_warned && (used = varmap_find(&b->doc_used, k, klen))) {
            /* Kept as written above, the agent still fills it in right; a value given to
             * fanout and written into the steps is not the one the agent would use. */
            b->late_env_warned = true;
            w->scalar = p->key;
            report(w, used->state == VAR_SET ? DIAG_WARNING : DIAG_NOTE, DIAG_FINDING, 0, RULE_INTERPOLATION,
                   "the top-level env sets %.*s after steps that use it: buildkite-agent applies env "
                   "before the steps, fanout reads in order, so %s (move env above steps)",
                   (int)text_utf8_cut(k, klen, 60), k,
                   used->state == VAR_SET ? "the steps above got the value given to fanout instead"
                                          : "the steps above keep it as written");
        }
        /* the value the agent sets: the text interpolated, escapes and all (without a `$`,
         * the text itself); NULL: not known */
        set = value_unknown ? NULL : ynode_scalar(p->value, &len);
        if (set && memchr(set, '$', len)) {
            w->recording = false;
            rc = interp_expand(set, len, lookup, w, &value, &len, &err);
            w->recording = true;
            set = rc == INTERP_OK ? value : NULL;
        }
        if (rc == INTERP_NOMEM || varmap_set(&b->vars, k, klen, set, len) != 0) {
            free(value);
            w->scalar = p->key;
            report(w, DIAG_ERROR, DIAG_INPUT, 0, RULE_INTERNAL, "out of memory");
            return -1;
        }
        free(value);
    }
    return check_keys(w, env);
}

static int interp_step(struct walk *w, struct ynode **slot);

/* A mapping's pairs by `in`'s rules. */
static int interp_map(struct walk *w, struct ynode *map, enum holder in)
{
    bool keys_changed = false;

    for (size_t i = 0; i < ynode_len(map); i++) {
        struct ynode_pair *p = &map->u.map.pairs[i];
        struct ynode *key = p->key, *v = p->value;
        enum field f = field_of(in, map, key);
        int rc = 0;

        if (f == F_ALL && interp_scalar(w, &p->key, true) != 0)
            return -1;
        keys_changed |= p->key != key;
        switch (f) {
        case F_ALL:
        case F_VALUE:
            rc = interp_all(w, &p->value);
            break;
        case F_KEEP:
            break;
        case F_STEPS:
            for (size_t j = 0; rc == 0 && ynode_is_seq(v) && j < ynode_len(v); j++)
                rc = interp_step(w, &v->u.seq.items[j]);
            if (!ynode_is_seq(v))
                rc = interp_all(w, &p->value);
            break;
        case F_CACHE:
        case F_CHECKOUT:
            rc = ynode_is_map(v) ? interp_map(w, v, f == F_CACHE ? H_CACHE : H_CHECKOUT) : interp_all(w, &p->value);
            break;
        case F_ENV:
            rc = interp_env(w, v);
            break;
        }
        if (rc != 0)
            return -1;
    }
    return keys_changed ? check_keys(w, map) : 0;
}

/* Adds the pattern of a key only known at upload (out of memory or past the limits: a
 * warning it would have spared may show). */
static void add_pattern(struct bkinterp *b, const struct ynode *key)
{
    size_t len;
    const char *t = ynode_scalar(key, &len);
    char *glob = t && interp_needed(t, len) && b->n_patterns < BKINTERP_MAX_PATTERNS ? interp_glob(t, len) : NULL;
    char **grown;

    if (!glob || strlen(glob) > BKINTERP_MAX_PATTERN ||
        !(grown = realloc(b->patterns, (b->n_patterns + 1) * sizeof(*grown)))) {
        free(glob);
        return;
    }
    b->patterns = grown;
    b->patterns[b->n_patterns++] = glob;
}

/* A step by the rules of its type. */
static int interp_step(struct walk *w, struct ynode **slot)
{
    struct ynode *step = *slot, *key = NULL;
    bool outer = w->parallel;
    int rc;

    if (!ynode_is_map(step))
        return interp_all(w, slot);
    w->parallel = ynode_has(step, "parallelism");
    rc = interp_map(w, step, H_STEP);
    if (rc == 0)
        bkread_omit_empty(step);
    /* a step of its own (a fan-out's jobs get other keys): the key a depends_on names */
    if (rc == 0 && !w->parallel && !ynode_has(step, "matrix") && ynode_get_any(step, bk_key_keys, &key))
        add_pattern(w->b, key);
    w->parallel = outer;
    return rc;
}

int bkinterp_item(void *user, struct stream_item *item)
{
    struct bkinterp *b = user;
    struct walk w = {.b = b, .doc = item->doc, .recording = true};
    struct ynode *root = item->doc ? ynode_doc_root(item->doc) : NULL;

    if (b->off)
        return 0;
    switch (item->kind) {
    case STREAM_DOC_START:
        b->in_steps = b->late_env_warned = false;
        varmap_clear(&b->doc_used);
        return 0;
    case STREAM_STEPS_START:
        b->in_steps = true;
        return 0;
    case STREAM_PAIR:
        return interp_map(&w, root, H_PIPELINE);
    case STREAM_STEP:
        return ynode_len(root) ? interp_step(&w, &root->u.seq.items[0]) : 0;
    case STREAM_STEPS_END:
    case STREAM_DOC_END:
        break;
    }
    return 0;
}

/* ---- keys only known at upload ---- */

/* Whether `text` matches an interp_glob pattern: literal bytes, `\` escaping the next,
 * `*` any run. The pattern's states are simulated over the text (O(text x pattern), both
 * bounded, and the run's budget caps their sum). */
static bool glob_matches(struct bkinterp *b, const char *glob, const char *text, size_t len)
{
    char lit[BKINTERP_MAX_PATTERN + 1];
    bool star[BKINTERP_MAX_PATTERN + 1], on[BKINTERP_MAX_PATTERN + 2], next[BKINTERP_MAX_PATTERN + 2];
    size_t n = 0, alive;

    for (const char *g = glob; *g; g++) {
        star[n] = *g == '*';
        lit[n++] = *g == '\\' && g[1] ? *++g : *g;
    }
    if (b->match_budget < (unsigned long long)(len + 1) * (n + 1))
        return false;
    b->match_budget -= (unsigned long long)(len + 1) * (n + 1);
    memset(on, 0, n + 2);
    on[0] = true;
    for (size_t i = 0; i < n && on[i] && star[i]; i++) /* a `*` may match nothing */
        on[i + 1] = true;
    for (size_t c = 0; c < len; c++) {
        memset(next, 0, n + 2);
        for (size_t i = 0; i < n; i++) {
            if (on[i] && star[i])
                next[i] = true;
            else if (on[i] && lit[i] == text[c])
                next[i + 1] = true;
        }
        alive = 0;
        for (size_t i = 0; i <= n; i++) {
            if (i < n && next[i] && star[i])
                next[i + 1] = true;
            alive += (on[i] = next[i]);
        }
        if (!alive)
            return false;
    }
    return on[n];
}

bool bkinterp_key_may_name(struct bkinterp *b, const char *key, size_t len)
{
    for (size_t i = 0; b && i < b->n_patterns; i++) {
        if (glob_matches(b, b->patterns[i], key, len))
            return true;
    }
    return false;
}
