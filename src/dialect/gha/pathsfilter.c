/* pathsfilter: a dorny/paths-filter step (v2, v3, v4) evaluated on the change, as its
 * source does it (dorny/paths-filter at b41dfa9, v4.0.1 = fbd0ab8, v3.0.3 = d1c1ffe;
 * src/filter.ts `Filter.load`, `parseFilterItemYaml`, `isMatch`; src/main.ts
 * `isPathInput`, `exportResults`): the `filters` input is YAML of named filters, each a
 * pattern, a list of them (nested lists from `*aliases` flattened) or `change-types:
 * pattern(s)`; every pattern is picomatch with { dot: true } (GLOB_PICOMATCH); a file
 * matches a filter when some rule (`predicate-quantifier: every`: every rule) matches
 * it. Its outputs: each filter 'true'/'false', `<filter>_count`, and `changes` (the
 * JSON array of the filters that matched, unless a filter is named so). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fanout/arrays.h"
#include "fanout/change.h"
#include "fanout/glob.h"
#include "fanout/source.h"
#include "fanout/stream.h"

#include "gha_internal.h"

/* The change types a rule accepts (ChangeStatus), as bits; 0: any. A changed file from a
 * name list is taken as `added` or `modified` (either accepts it): the list does not say
 * which, and a deleted file is rarely what a filter is for. */
enum { PF_ADDED = 1, PF_MODIFIED = 2, PF_OTHER = 4 };

struct rule {
    unsigned status;
    struct glob **g; /* picomatch of an array: any of them */
    size_t n;
};

struct filter {
    const char *name;
    size_t len;
    struct rule *rules;
    size_t n, cap;
};

struct filters {
    struct filter *f;
    size_t n;
};

static void filters_free(struct filters *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        for (size_t r = 0; r < fs->f[i].n; r++) {
            for (size_t k = 0; k < fs->f[i].rules[r].n; k++)
                glob_free(fs->f[i].rules[r].g[k]);
            free(fs->f[i].rules[r].g);
        }
        free(fs->f[i].rules);
    }
    free(fs->f);
}

/* `added|Modified` as bits (split on '|', trimmed, lower case). */
static unsigned status_of(const char *k, size_t len)
{
    unsigned bits = 0;

    for (size_t i = 0; i < len;) {
        size_t n = 0, b;

        while (i + n < len && k[i + n] != '|')
            n++;
        b = i;
        while (b < i + n && (k[b] == ' ' || k[b] == '\t'))
            b++;
        size_t e = i + n;
        while (e > b && (k[e - 1] == ' ' || k[e - 1] == '\t'))
            e--;
        if (e > b)
            bits |= (e - b == 5 && !strncasecmp(k + b, "added", 5))      ? PF_ADDED
                    : (e - b == 8 && !strncasecmp(k + b, "modified", 8)) ? PF_MODIFIED
                                                                          : PF_OTHER;
        i += n + 1;
    }
    return bits;
}

/* A rule of the patterns `p` (a string, or a list of strings). false when the action
 * would refuse it (another type, a pattern picomatch throws on) or out of memory. */
static bool add_rule(struct filter *f, unsigned status, const struct ynode *p)
{
    size_t n = ynode_is_seq(p) ? ynode_len(p) : 1;
    struct rule r = {status, calloc(n ? n : 1, sizeof(struct glob *)), 0};

    if (!r.g)
        return false;
    for (size_t i = 0; i < n; i++) {
        const struct ynode *item = ynode_is_seq(p) ? ynode_item(p, i) : p;
        size_t len;
        const char *t = ynode_is_scalar(item) ? ynode_scalar(item, &len) : NULL;
        struct glob_error err;

        if (!t || !(r.g[r.n] = glob_compile(GLOB_PICOMATCH, t, len, &err)))
            goto refused;
        r.n++;
    }
    if (f->n == f->cap) {
        struct rule *grown = array_grow(f->rules, &f->cap, f->n + 1, 4, sizeof(*grown));

        if (!grown)
            goto refused;
        f->rules = grown;
    }
    f->rules[f->n++] = r;
    return true;
refused:
    for (size_t i = 0; i < r.n; i++)
        glob_free(r.g[i]);
    free(r.g);
    return false;
}

/* parseFilterItemYaml: a string, a list (flattened), or a mapping of change types to
 * patterns. */
static bool parse_item(struct filter *f, const struct ynode *item)
{
    if (ynode_is_seq(item)) {
        for (size_t i = 0; i < ynode_len(item); i++) {
            if (!parse_item(f, ynode_item(item, i)))
                return false;
        }
        return true;
    }
    if (ynode_is_scalar(item))
        return ynode_scalar(item, NULL) && add_rule(f, 0, item);
    if (!ynode_is_map(item))
        return false;
    for (size_t i = 0; i < ynode_len(item); i++) {
        size_t len;
        const char *k = ynode_scalar(ynode_key(item, i), &len);
        const struct ynode *p = ynode_value(item, i);

        if (!k || !(ynode_is_scalar(p) || ynode_is_seq(p)) || !add_rule(f, status_of(k, len), p))
            return false;
    }
    return true;
}

/* The filters of the YAML text; false when the action would fail on it. */
static bool filters_read(struct filters *fs, const struct ynode_doc *doc)
{
    const struct ynode *root = doc ? ynode_doc_root(doc) : NULL;

    if (!ynode_is_map(root) || !(fs->f = calloc(ynode_len(root) + 1, sizeof(*fs->f))))
        return false;
    for (size_t i = 0; i < ynode_len(root); i++) {
        struct filter *f = &fs->f[fs->n];

        if (!(f->name = ynode_scalar(ynode_key(root, i), &f->len)))
            return false;
        fs->n++;
        if (!parse_item(f, ynode_value(root, i)))
            return false;
    }
    return true;
}

static bool rule_matches(const struct rule *r, const char *file, size_t len)
{
    if (r->status && !(r->status & (PF_ADDED | PF_MODIFIED)))
        return false;
    for (size_t i = 0; i < r->n; i++) {
        if (glob_match(r->g[i], file, len))
            return true;
    }
    return false;
}

/* Filter.isMatch: some rule (every rule) matches the file. */
static bool filter_matches(const struct filter *f, bool every, const char *file)
{
    size_t len = strlen(file);

    for (size_t i = 0; i < f->n; i++) {
        if (rule_matches(&f->rules[i], file, len) != every)
            return !every;
    }
    return every;
}

static int set_text(struct expr_value *o, const char *k, size_t klen, const char *v)
{
    return expr_object_set(o, k, klen, expr_string(v, strlen(v)));
}

/* exportResults: the outputs of the matched filters. NULL when out of memory. */
static struct expr_value *outputs_of(const struct filters *fs, bool every, bool list_files,
                                     const struct change *c)
{
    struct expr_value *o = expr_object();
    char *changes = malloc(3), key[512], count[32];
    size_t clen = 1;
    bool named_changes = false;
    int rc = o && changes ? 0 : -1;

    if (changes)
        changes[0] = '[';
    for (size_t i = 0; i < fs->n && rc == 0; i++) {
        const struct filter *f = &fs->f[i];
        size_t hits = 0;

        for (size_t k = 0; k < change_count(c); k++)
            hits += filter_matches(f, every, change_file(c, k));
        named_changes = named_changes || (f->len == 7 && !memcmp(f->name, "changes", 7));
        snprintf(count, sizeof(count), "%zu", hits);
        rc |= set_text(o, f->name, f->len, hits ? "true" : "false");
        rc |= set_text(o, key, (size_t)snprintf(key, sizeof(key), "%.*s_count", (int)f->len, f->name), count);
        if (list_files) /* `<filter>_files` in the format asked for: not written out here */
            rc |= expr_object_set(o, key, (size_t)snprintf(key, sizeof(key), "%.*s_files", (int)f->len, f->name),
                                  expr_unknown());
        if (hits && rc == 0) { /* JSON.stringify of a name: quoted, \ and " escaped */
            char *grown = realloc(changes, clen + 2 * f->len + 5);

            if (!(changes = grown ? grown : changes) || !grown) {
                rc = -1;
                break;
            }
            if (clen > 1)
                changes[clen++] = ',';
            changes[clen++] = '"';
            for (size_t b = 0; b < f->len; b++) {
                if (f->name[b] == '"' || f->name[b] == '\\')
                    changes[clen++] = '\\';
                changes[clen++] = f->name[b];
            }
            changes[clen++] = '"';
        }
    }
    if (rc == 0 && !named_changes) {
        changes[clen++] = ']';
        rc = expr_object_set(o, "changes", 7, expr_string(changes, clen));
    }
    free(changes);
    if (rc != 0) {
        expr_unref(o);
        return NULL;
    }
    return o;
}

bool gha_is_paths_filter(const struct ynode *step)
{
    const char *uses = ynode_scalar(ynode_get(step, "uses"), NULL);

    return uses && !strncmp(uses, "dorny/paths-filter@", 19);
}

int gha_paths_filter(const struct ynode *step, const struct change *c, struct expr_value **outputs,
                     const char **why)
{
    const struct ynode *with = ynode_get(step, "with");
    size_t len;
    const char *text = ynode_scalar(ynode_get(with, "filters"), &len);
    const char *quantifier = ynode_scalar(ynode_get(with, "predicate-quantifier"), NULL);
    const char *list = ynode_scalar(ynode_get(with, "list-files"), NULL);
    struct diag *quiet = NULL;
    struct source *src = NULL;
    struct stream *st = NULL;
    struct ynode_doc *doc = NULL;
    struct filters fs = {0};
    int rc = 0;

    *outputs = NULL;
    *why = NULL;
    if (!text || gha_has_expression(ynode_get(with, "filters")))
        *why = "its filters are not known here";
    else if (!memchr(text, '\n', len) && !memchr(text, ':', len)) /* isPathInput */
        *why = "its filters are read from a file in the repository";
    else if (quantifier && *quantifier && strcmp(quantifier, "some") && strcmp(quantifier, "every"))
        *why = "its predicate-quantifier is neither some nor every";
    if (*why)
        return 0;
    /* The text is YAML of its own: its problems are the action's to report at run time. */
    if (!(quiet = diag_create_buffered(DIAG_TEXT)) || !(src = source_open_text("filters", text, len, quiet)) ||
        !(st = stream_open(src, 0, quiet)) || stream_document(st, &doc) < 0 || !filters_read(&fs, doc))
        *why = "its filters do not read as the action reads them";
    else if (!(*outputs = outputs_of(&fs, quantifier && !strcmp(quantifier, "every"),
                                     list && *list && strcasecmp(list, "none"), c)))
        rc = -1;
    else
        rc = 1;
    filters_free(&fs);
    ynode_doc_destroy(doc);
    stream_close(st);
    source_close(src);
    diag_destroy(quiet);
    return rc;
}
