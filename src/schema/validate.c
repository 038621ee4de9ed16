#include "fanout/validate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/bundled.h"
#include "fanout/source.h"
#include "fanout/strset.h"
#include "fanout/dialect.h"
#include "fanout/tmplvalidate.h"
#include "fanout/ynode.h"

struct validator {
    const struct schema *schema;
    const struct schema_node *root;
    const struct stream_shape *shape; /* where a document keeps its items */
    const struct schema_node *items;  /* the schema of the items' container */
    const struct schema_node *step_schema; /* a list of items: each item's */
    bool streaming;
    struct diag *diag;
    const char *const *files;
    enum diag_class cls;
    unsigned errors;
    /* the current document */
    struct ypos doc_pos;
    size_t step_index;
    bool bare;
    struct strset *seen;        /* streaming: top-level keys seen */
    struct strset *members;     /* streaming a mapping of items: its keys seen */
    struct ypos items_pos;      /* where the items' container starts */
    struct ynode_doc *whole;    /* assembling: the document so far */
    struct ynode *whole_steps;
    struct tmplvalidate *tmpl;  /* a template schema (GitHub's workflow schema) reads it all */
    struct schema_memo *memo;   /* the quiet checks of the items, by their shapes */
};

static void report(void *user, const struct schema_error *e)
{
    struct validator *v = user;
    struct ypos p = ynode_pos(e->at);

    if (!p.line)
        p = v->doc_pos;
    diag_at(v->diag, DIAG_ERROR, v->cls, v->files, p, e->rule, "%s: %s", e->path[0] ? e->path : "(root)",
            e->message);
    v->errors++;
}

struct validator *validator_create(const struct schema *s, const struct stream_shape *shape,
                                   struct diag *d, const char *const *files, enum diag_class cls)
{
    struct validator *v = calloc(1, sizeof(*v));
    bool allowed, simple, streamable = false;

    if (!v)
        return NULL;
    v->schema = s;
    v->root = schema_root(s);
    v->shape = shape ? shape : stream_steps_shape;
    v->diag = d;
    v->files = files;
    v->cls = cls;
    v->items = schema_property(v->root, v->shape->key, strlen(v->shape->key), &allowed, &simple);
    if (v->shape->mapping)
        schema_member(v->items, "", 0, &(bool){true}, &streamable);
    else
        streamable = (v->step_schema = schema_items(v->items)) != NULL;
    v->streaming = simple && allowed && v->items && streamable;
    v->seen = strset_create();
    v->members = strset_create();
    v->memo = schema_memo_create();
    if (!v->seen || !v->members || !v->memo) {
        validator_destroy(v);
        return NULL;
    }
    return v;
}

void validator_destroy(struct validator *v)
{
    if (!v)
        return;
    tmplvalidate_destroy(v->tmpl);
    ynode_doc_destroy(v->whole);
    strset_destroy(v->seen);
    strset_destroy(v->members);
    schema_memo_destroy(v->memo);
    free(v);
}

unsigned validator_errors(const struct validator *v)
{
    return v->tmpl ? tmplvalidate_errors(v->tmpl) : v->errors;
}

static void pair_path(char *buf, size_t cap, const char *key, size_t len)
{
    size_t o = 0;

    buf[o++] = '/';
    for (size_t i = 0; i < len && o + 3 < cap; i++) {
        if (key[i] == '~' || key[i] == '/') {
            buf[o++] = '~';
            buf[o++] = key[i] == '~' ? '0' : '1';
        } else {
            buf[o++] = key[i];
        }
    }
    buf[o] = '\0';
}

static void error_here(struct validator *v, struct ypos p, enum rule_id keyword, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void error_here(struct validator *v, struct ypos p, enum rule_id keyword, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    diag_at(v->diag, DIAG_ERROR, v->cls, v->files, p, keyword, "%s", msg);
    v->errors++;
}

/* A key the schema does not allow (additionalProperties: false), at the key. */
static void not_allowed(struct validator *v, const struct ynode *k, const char *path,
                        const char *key, size_t len)
{
    error_here(v, ynode_pos(k), RULE_KW_ADDITIONAL_PROPERTIES, "%s: property '%.*s' is not allowed", path,
               (int)(len > 100 ? 100 : len), key);
}

/* Each name of `req` not in `seen` (which gets them all), at `pos`. */
static void missing_required(struct validator *v, const char *const *req, struct strset *seen,
                             const char *path, struct ypos pos)
{
    for (; req && *req; req++) {
        if (strset_add(seen, *req, strlen(*req)) == 0)
            error_here(v, pos, RULE_KW_REQUIRED, "%s: missing required property '%s'", path, *req);
    }
}

static void stream_pair(struct validator *v, struct ynode *pair)
{
    struct ynode *k = ynode_key(pair, 0);
    size_t len;
    const char *key = ynode_scalar(k, &len);
    bool allowed, simple;
    const struct schema_node *sub;
    char path[256];

    if (!key)
        return;
    strset_add(v->seen, key, len);
    sub = schema_property(v->root, key, len, &allowed, &simple);
    pair_path(path, sizeof(path), key, len);
    if (!allowed) {
        not_allowed(v, k, path, key, len);
    } else if (sub) {
        schema_validate(sub, ynode_value(pair, 0), path, report, v);
    }
}

static void stream_steps(struct validator *v, struct ynode *steps)
{
    for (size_t i = 0; i < ynode_len(steps); i++) {
        struct ynode *step = ynode_item(steps, i);
        char path[32];
        size_t index = v->step_index++;

        /* Most steps are valid: the path is only written for one that is not. */
        if (v->bare || schema_memo_is_valid(v->memo, v->step_schema, step))
            continue;
        snprintf(path, sizeof(path), "/steps/%zu", index);
        schema_validate(v->step_schema, step, path, report, v);
    }
}

/* One member of a mapping of items (a job): against the subschema its key selects; when
 * two apply, the member alone as an object against the container's schema. */
static void stream_member(struct validator *v, struct ynode *pair)
{
    struct ynode *k = ynode_key(pair, 0), *value = ynode_value(pair, 0);
    size_t len;
    const char *key = ynode_scalar(k, &len);
    bool allowed, streamable;
    const struct schema_node *sub;
    char path[256];

    if (!key)
        return;
    strset_add(v->members, key, len);
    sub = schema_member(v->items, key, len, &allowed, &streamable);
    pair_path(path, sizeof(path), v->shape->key, strlen(v->shape->key));
    if (!streamable) {
        schema_validate(v->items, pair, path, report, v);
        return;
    }
    pair_path(path + strlen(path), sizeof(path) - strlen(path), key, len);
    if (!allowed)
        not_allowed(v, k, path, key, len);
    else if (sub && !schema_is_valid(sub, value))
        schema_validate(sub, value, path, report, v);
}

/* The checks of the items' mapping that need all its members. */
static void stream_members_end(struct validator *v)
{
    size_t n = strset_count(v->members);
    long long min, max;
    char path[128];

    pair_path(path, sizeof(path), v->shape->key, strlen(v->shape->key));
    schema_property_counts(v->items, &min, &max);
    if (min >= 0 && (long long)n < min)
        error_here(v, v->items_pos, RULE_KW_MIN_PROPERTIES, "%s: must have at least %lld properties, got %zu",
                   path, min, n);
    if (max >= 0 && (long long)n > max)
        error_here(v, v->items_pos, RULE_KW_MAX_PROPERTIES, "%s: must have at most %lld properties, got %zu",
                   path, max, n);
    missing_required(v, schema_required(v->items), v->members, path, v->items_pos);
}

static void stream_doc_end(struct validator *v)
{
    missing_required(v, schema_required(v->root), v->seen, "(root)", v->doc_pos);
}

/* Assembling: copies every item into one document per input document. */
static int assemble(struct validator *v, const struct stream_item *item)
{
    struct ynode *root = v->whole ? ynode_doc_root(v->whole) : NULL;

    switch (item->kind) {
    case STREAM_DOC_START:
        v->whole = ynode_doc_create();
        root = v->whole ? ynode_new_map(v->whole, item->pos) : NULL;
        if (!root)
            return -1;
        ynode_doc_set_root(v->whole, root);
        v->whole_steps = NULL;
        return 0;
    case STREAM_PAIR: {
        struct ynode *pair = ynode_doc_root(item->doc);

        return ynode_append_pair(v->whole, root, ynode_copy(v->whole, ynode_key(pair, 0)),
                                 ynode_copy(v->whole, ynode_value(pair, 0)));
    }
    case STREAM_STEPS_START:
        v->whole_steps = v->shape->mapping ? ynode_new_map(v->whole, item->pos)
                                           : ynode_new_seq(v->whole, item->pos);
        if (!v->whole_steps)
            return -1;
        if (item->bare) {
            ynode_doc_set_root(v->whole, v->whole_steps);
            return 0;
        }
        return ynode_set(v->whole, root, v->shape->key, v->whole_steps);
    case STREAM_STEP: {
        struct ynode *items = ynode_doc_root(item->doc);

        for (size_t i = 0; i < ynode_len(items); i++) {
            int rc = ynode_is_map(items)
                         ? ynode_append_pair(v->whole, v->whole_steps,
                                             ynode_copy(v->whole, ynode_key(items, i)),
                                             ynode_copy(v->whole, ynode_value(items, i)))
                         : ynode_append(v->whole, v->whole_steps, ynode_copy(v->whole, ynode_item(items, i)));

            if (rc != 0)
                return -1;
        }
        return 0;
    }
    case STREAM_STEPS_END:
        return 0;
    case STREAM_DOC_END:
        schema_validate(v->root, ynode_doc_root(v->whole), "", report, v);
        ynode_doc_destroy(v->whole);
        v->whole = NULL;
        return 0;
    }
    return 0;
}

void validator_prove(struct validator *input, struct validator *rendering)
{
    if (input->tmpl && rendering->tmpl)
        tmplvalidate_prove(input->tmpl, rendering->tmpl); /* out of memory: each reads all */
}

void validator_item(struct validator *v, const struct stream_item *item)
{
    if (v->tmpl) {
        tmplvalidate_item(v->tmpl, item);
        return;
    }
    if (item->kind == STREAM_DOC_START) {
        v->doc_pos = item->pos;
        v->step_index = 0;
        v->bare = false;
        strset_clear(v->seen);
    }
    if (!v->streaming) {
        if (assemble(v, item) != 0) {
            diag_at(v->diag, DIAG_ERROR, DIAG_INPUT, v->files, item->pos, RULE_INTERNAL, "out of memory");
            v->errors++;
        }
        return;
    }
    switch (item->kind) {
    case STREAM_DOC_START:
        break;
    case STREAM_STEPS_END:
        if (v->shape->mapping)
            stream_members_end(v);
        break;
    case STREAM_PAIR:
        stream_pair(v, ynode_doc_root(item->doc));
        break;
    case STREAM_STEPS_START:
        strset_add(v->seen, v->shape->key, strlen(v->shape->key));
        strset_clear(v->members);
        v->items_pos = item->pos;
        if (item->bare) {
            v->bare = true;
            diag_at(v->diag, DIAG_ERROR, v->cls, v->files, item->pos, RULE_TYPE,
                    "(root): must be object, got an array "
                    "(a bare list of steps; write it under 'steps:')");
            v->errors++;
        }
        break;
    case STREAM_STEP:
        if (v->shape->mapping)
            stream_member(v, ynode_doc_root(item->doc));
        else
            stream_steps(v, ynode_doc_root(item->doc));
        break;
    case STREAM_DOC_END:
        stream_doc_end(v);
        break;
    }
}

const struct schema *validate_bundled_schema(const char *name, struct diag *d)
{
    /* Compiled once per process: diff and check render several times, and the rendered
     * schema is the larger part of a small render's work. Once a thread: a schema's
     * patterns hold their match data. */
    static _Thread_local struct {
        const char *name;
        struct schema *schema;
    } cache[8];
    static _Thread_local size_t cached;
    struct ynode *root = bundled_schema(name);
    struct ynode_doc *doc;

    for (size_t i = 0; i < cached; i++) {
        if (strcmp(cache[i].name, name) == 0)
            return cache[i].schema;
    }
    if (!root || cached == sizeof(cache) / sizeof(cache[0]))
        return NULL;
    if (!(doc = ynode_doc_wrap(root)))
        return NULL;
    cache[cached].schema = schema_compile_lazily(doc, name, d);
    if (!cache[cached].schema)
        return NULL;
    cache[cached].name = name;
    return cache[cached++].schema;
}

static bool is_file(const char *spec)
{
    FILE *fp = fopen(spec, "rb");

    if (fp)
        fclose(fp);
    return fp != NULL;
}

const struct schema *validate_load_schema(const char *spec, struct diag *d, struct schema **owned)
{
    const struct schema *bundled;

    *owned = NULL;
    if (is_file(spec))
        return *owned = schema_load_file(spec, d);
    bundled = bundled_schema(spec) ? validate_bundled_schema(spec, d) : NULL;
    if (!bundled && !diag_has_input_error(d))
        diag_report(d, DIAG_ERROR, DIAG_INPUT, spec, 0, 0, RULE_IO,
                    "no such schema file, nor a bundled schema of that name "
                    "(buildkite-rendered, testarea, github-workflow-v1, github-workflow, "
                    "json-schema-draft-07)");
    return bundled;
}

struct validator *validator_open(const char *spec, bool bundled, const struct stream_shape *shape,
                                 struct diag *d, struct diag *out, const char *const *files,
                                 enum diag_class cls, struct schema **owned)
{
    const char *root = tmplvalidate_root(spec);
    const struct schema *sch;
    const struct tmplschema *ts;
    struct validator *v;

    *owned = NULL;
    if (!root || (!bundled && is_file(spec))) {
        sch = bundled ? validate_bundled_schema(spec, d) : validate_load_schema(spec, d, owned);
        return sch ? validator_create(sch, shape, out, files, cls) : NULL;
    }
    if (!(ts = tmplschema_bundled(spec, d)) || !(v = calloc(1, sizeof(*v))))
        return NULL;
    if (!(v->tmpl = tmplvalidate_create(ts, root, shape, out, files, cls))) {
        free(v);
        return NULL;
    }
    return v;
}

static int validate_source(struct source *src, unsigned file, const struct stream_shape *shape,
                           struct validator *v, struct diag *d)
{
    struct stream *s = stream_open_shaped(src, file, shape, d);
    struct stream_item item;
    int more, rc = 0;

    if (!s)
        return -1;
    while ((more = stream_next(s, &item)) != 0) {
        if (more < 0) {
            rc = -1;
            break;
        }
        validator_item(v, &item);
        if (item.doc)
            ynode_doc_destroy(item.doc);
    }
    stream_close(s);
    return rc;
}

/* The validators of one run, one per schema and shape its files need (a directory can
 * hold pipelines, test-area files and workflows: each file is checked in its own
 * dialect). */
struct run_checks {
    struct {
        const char *schema;
        const struct stream_shape *shape;
        struct validator *v;
        struct schema *owned;
    } open[4];
    size_t n;
};

static struct validator *checks_for(struct run_checks *c, const char *schema, bool bundled,
                                    const struct stream_shape *shape, const char *const *names, struct diag *d)
{
    for (size_t i = 0; i < c->n; i++) {
        if (!strcmp(c->open[i].schema, schema) && c->open[i].shape == shape)
            return c->open[i].v;
    }
    if (c->n == sizeof(c->open) / sizeof(c->open[0]))
        return NULL; /* not reached: three dialects, one schema each */
    c->open[c->n].v = validator_open(schema, bundled, shape, d, d, names, DIAG_FINDING, &c->open[c->n].owned);
    if (!c->open[c->n].v)
        return NULL;
    c->open[c->n].schema = schema;
    c->open[c->n].shape = shape;
    return c->open[c->n++].v;
}

static void checks_close(struct run_checks *c)
{
    for (size_t i = 0; i < c->n; i++) {
        validator_destroy(c->open[i].v);
        schema_free(c->open[i].owned);
    }
}

/* The dialect `src` is read in: `given`, or its own (reported when it has none). */
static const struct dialect *dialect_of(struct source *src, const struct dialect *given, struct diag *d)
{
    const struct dialect *found;

    if (given)
        return given;
    switch (dialect_detect(src, &found, d)) {
    case DIALECT_FOUND:
        return found;
    case DIALECT_SILENT:
    case DIALECT_SKIP: /* dialect_detect_path's only */
        return &dialect_buildkite;
    case DIALECT_NONE:
        break;
    }
    dialect_report_none(src, d);
    return NULL;
}

int validate_run(const char *const *paths, size_t n, const char *schema,
                 const struct dialect *dialect, struct diag *d)
{
    struct source **sources = calloc(n ? n : 1, sizeof(*sources));
    const char **names = calloc(n ? n : 1, sizeof(*names));
    struct run_checks checks = {.n = 0};
    size_t opened = 0;

    if (!sources || !names)
        goto done;
    for (; opened < n; opened++) {
        sources[opened] = source_open(paths[opened], d);
        if (!sources[opened])
            goto done;
        names[opened] = source_name(sources[opened]);
    }
    for (size_t i = 0; i < n; i++) {
        const struct dialect *dl = dialect_of(sources[i], dialect, d);
        struct validator *v;

        if (!dl)
            continue;
        v = checks_for(&checks, schema ? schema : dl->input_schema ? dl->input_schema : dl->rendered_schema,
                       !schema, dl->shape, names, d);
        if (!v || validate_source(sources[i], (unsigned)i, dl->shape, v, d) != 0)
            break;
        /* it was read to detect its dialect too: the two reads must agree */
        if (source_changed(sources[i])) {
            diag_report(d, DIAG_ERROR, DIAG_INPUT, names[i], 0, 0, RULE_IO, "changed while it was being read");
            break;
        }
    }
done:
    checks_close(&checks);
    for (size_t i = 0; i < opened; i++)
        source_close(sources[i]);
    free(sources);
    free(names);
    return diag_exit_code(d, false);
}

/* ---- validate alongside another read ---- */

/* A held finding: its text at `file` and `msg` in the along's text (file SIZE_MAX:
 * none). */
struct held_finding {
    enum diag_severity sev;
    enum rule_id rule;
    unsigned line, col;
    size_t file, msg;
};

struct validate_along {
    const struct dialect *dialect;
    struct validator *v;
    struct schema *owned;
    struct diag *capture; /* the validator's diag: findings to `on_finding` */
    struct diag_sink sink;
    struct held_finding *held;
    size_t n_held, held_cap;
    char *text;
    size_t text_len, text_cap;
    bool dropped; /* past the budget: validate_run reads again */
};

/* Appends `s` (n bytes and a NUL) to the text; its offset, or SIZE_MAX past the budget
 * or out of memory. */
static size_t along_text(struct validate_along *a, const char *s, size_t n)
{
    size_t at = a->text_len;

    if (a->text_len + n + 1 + a->held_cap * sizeof(*a->held) > VALIDATE_ALONG_BUDGET)
        return SIZE_MAX;
    if (a->text_len + n + 1 > a->text_cap) {
        char *grown = array_grow(a->text, &a->text_cap, a->text_len + n + 1, 4096, 1);

        if (!grown)
            return SIZE_MAX;
        a->text = grown;
    }
    memcpy(a->text + at, s, n);
    a->text[at + n] = '\0';
    a->text_len += n + 1;
    return at;
}

static void along_drop(struct validate_along *a)
{
    a->dropped = true;
    free(a->held);
    free(a->text);
    a->held = NULL;
    a->text = NULL;
    a->n_held = a->held_cap = a->text_len = a->text_cap = 0;
}

static void on_finding(void *user, enum diag_severity sev, const char *file, unsigned line, unsigned col,
                       enum rule_id rule, const char *msg)
{
    struct validate_along *a = user;
    struct held_finding h = {sev, rule, line, col, SIZE_MAX, 0};

    if (a->dropped)
        return;
    if (a->n_held == a->held_cap) {
        struct held_finding *grown = array_grow(a->held, &a->held_cap, a->n_held + 1, 64, sizeof(*grown));

        if (!grown) {
            along_drop(a);
            return;
        }
        a->held = grown;
    }
    if ((file && (h.file = along_text(a, file, strlen(file))) == SIZE_MAX) ||
        (h.msg = along_text(a, msg, strlen(msg))) == SIZE_MAX) {
        along_drop(a);
        return;
    }
    a->held[a->n_held++] = h;
}

struct validate_along *validate_along_open(const struct dialect *dialect, const char *const *paths,
                                           struct diag *d)
{
    struct validate_along *a = calloc(1, sizeof(*a));

    if (!a)
        return NULL;
    a->dialect = dialect;
    a->sink = (struct diag_sink){on_finding, a};
    if (!(a->capture = diag_create_capture(d, &a->sink)) ||
        !(a->v = validator_open(dialect->input_schema ? dialect->input_schema : dialect->rendered_schema, true,
                                dialect->shape, d, a->capture, paths, DIAG_FINDING, &a->owned))) {
        diag_destroy(a->capture);
        free(a);
        return NULL;
    }
    return a;
}

void validate_along_item(void *user, const struct stream_item *item)
{
    struct validate_along *a = user;

    if (!a->dropped)
        validator_item(a->v, item);
}

int validate_along_finish(struct validate_along *a, const char *const *paths, size_t n, bool report,
                          struct diag *d)
{
    int rc = 0;

    validator_destroy(a->v);
    schema_free(a->owned);
    diag_destroy(a->capture);
    if (report && a->dropped)
        rc = validate_run(paths, n, NULL, a->dialect, d);
    else if (report) {
        for (size_t i = 0; i < a->n_held; i++) {
            const struct held_finding *h = &a->held[i];

            diag_report(d, h->sev, DIAG_FINDING, h->file == SIZE_MAX ? NULL : a->text + h->file, h->line,
                        h->col, h->rule, "%s", a->text + h->msg);
        }
        rc = diag_exit_code(d, false);
    }
    free(a->held);
    free(a->text);
    free(a);
    return rc;
}
