/* options: the GitHub dialect's options, the contexts known for the whole run
 * (--input, --var, --github, --event, --matrix, --contexts FILE), and each workflow's
 * `inputs` completed by what it declares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/source.h"
#include "fanout/stream.h"

#include "gha_internal.h"

enum gha_option { GHA_OPT_INPUT, GHA_OPT_VAR, GHA_OPT_GITHUB, GHA_OPT_EVENT, GHA_OPT_MATRIX, GHA_OPT_CONTEXTS };

const struct dialect_option gha_options[] = {
    [GHA_OPT_INPUT] = {"input", true, NULL, false, DIALECT_OPTION_RENDER | DIALECT_OPTION_EXPRESSIONS,
                       "      --input NAME=VALUE     workflows: a known `inputs` value (VALUE read as a YAML\n"
                       "                             scalar; repeatable)\n",
                       "no-validate", OPTION_NOT_PATH},
    [GHA_OPT_VAR] = {"var", true, NULL, false, DIALECT_OPTION_RENDER | DIALECT_OPTION_EXPRESSIONS,
                     "      --var NAME=VALUE       workflows: a known `vars` value\n", "no-validate", OPTION_NOT_PATH},
    [GHA_OPT_GITHUB] = {"github", true, NULL, false, DIALECT_OPTION_RENDER | DIALECT_OPTION_EXPRESSIONS,
                        "      --github KEY=VALUE     workflows: a known `github` value (github.ref=...)\n",
                        "no-validate", OPTION_NOT_PATH},
    [GHA_OPT_EVENT] = {"event", true, NULL, false, DIALECT_OPTION_RENDER | DIALECT_OPTION_EXPRESSIONS,
                       "      --event NAME           workflows: github.event_name\n", "no-validate", OPTION_NOT_PATH},
    [GHA_OPT_MATRIX] = {"matrix", true, NULL, false, DIALECT_OPTION_EXPRESSIONS,
                        "      --matrix KEY=VALUE     a known `matrix` value\n", "no-validate", OPTION_NOT_PATH},
    [GHA_OPT_CONTEXTS] = {"contexts", true, NULL, false, DIALECT_OPTION_RENDER | DIALECT_OPTION_EXPRESSIONS,
                          "      --contexts FILE        known contexts: a JSON or YAML mapping of context name\n"
                          "                             to value ({matrix: {part: 1}, inputs: {...}})\n",
                          "no-validate", OPTION_PATH},
    {NULL, false, NULL, false, 0, NULL, NULL, OPTION_NOT_PATH},
};

/* The object under `parent` named `key` (`len` bytes), made when missing; NULL when out of
 * memory. */
static struct expr_value *object_under(struct expr_value *parent, const char *key, size_t len)
{
    struct expr_value *o = expr_get(parent, key, len);

    if (o && expr_kind_of(o) == EXPR_OBJECT)
        return o;
    if (!(o = expr_object()) || expr_object_set(parent, key, len, o) != 0)
        return NULL;
    return o;
}

/* `--input NAME=VALUE` into contexts[context][NAME], VALUE typed as a plain YAML scalar;
 * for `github`, a NAME with dots is a path (`event.action`: github.event.action), as no
 * key of the github context has a dot. */
static int set_context_value(struct gha_options *o, const char *context, const char *arg, const char *opt,
                             const struct dialect_option_io *io)
{
    const char *eq = strchr(arg, '=');
    struct ynode_doc *doc = ynode_doc_create();
    struct ypos none = {0, 0, 0};
    struct ynode *n = doc && eq ? ynode_new_plain(doc, eq + 1, none) : NULL;
    struct expr_value *v = n ? expr_from_ynode(n) : NULL;
    struct expr_value *ctx = object_under(o->contexts, context, strlen(context));
    const char *dot;

    ynode_doc_destroy(doc);
    if (!eq || eq == arg) {
        expr_unref(v);
        return io->usage(opt, "needs NAME=VALUE");
    }
    while (ctx && !strcmp(context, "github") && (dot = memchr(arg, '.', (size_t)(eq - arg))) != NULL && dot > arg &&
           dot + 1 < eq) {
        ctx = object_under(ctx, arg, (size_t)(dot - arg));
        arg = dot + 1;
    }
    if (!v || !ctx) {
        expr_unref(v);
        return io->usage("out of memory", NULL);
    }
    return expr_object_set(ctx, arg, (size_t)(eq - arg), v) == 0 ? 0 : io->usage("out of memory", NULL);
}

/* --contexts FILE: each top-level pair of the mapping is a context. */
static int read_contexts(struct gha_options *o, const char *path, const struct dialect_option_io *io)
{
    struct diag *d = diag_create(stderr, io->format);
    struct source *src = d ? source_open(path, d) : NULL;
    struct stream *s = src ? stream_open(src, 0, d) : NULL;
    struct ynode_doc *doc = NULL;
    const struct ynode *root;
    int rc = DIAG_INPUT;

    if (!s || stream_document(s, &doc) < 0)
        goto done;
    root = doc ? ynode_doc_root(doc) : NULL;
    if (!ynode_is_map(root)) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, ynode_pos(root).line, ynode_pos(root).col,
                    RULE_CONTEXTS, "must be a mapping of context name to value");
        goto done;
    }
    rc = 0;
    for (size_t i = 0; i < ynode_len(root) && rc == 0; i++) {
        size_t len;
        const char *name = ynode_scalar(ynode_key(root, i), &len);

        rc = expr_object_set(o->contexts, name, len, expr_from_ynode(ynode_value(root, i)));
    }
    if (rc != 0) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, RULE_INTERNAL, "out of memory");
        rc = DIAG_INPUT;
    }
done:
    ynode_doc_destroy(doc);
    stream_close(s);
    source_close(src);
    diag_destroy(d);
    return rc;
}

int gha_option(void *own, const struct dialect_option *opt, const char *arg,
               const struct dialect_option_io *io)
{
    static const char *const contexts[] = {
        [GHA_OPT_INPUT] = "inputs", [GHA_OPT_VAR] = "vars", [GHA_OPT_GITHUB] = "github", [GHA_OPT_MATRIX] = "matrix"};
    struct gha_options *o = own;
    enum gha_option id = (enum gha_option)(opt - gha_options);
    char name[64], event[256];

    if (!o->contexts && !(o->contexts = expr_object()))
        return io->usage("out of memory", NULL);
    snprintf(name, sizeof(name), "--%s", opt->name);
    switch (id) {
    case GHA_OPT_CONTEXTS:
        return read_contexts(o, arg, io);
    case GHA_OPT_EVENT:
        snprintf(event, sizeof(event), "event_name=%s", arg);
        return set_context_value(o, "github", event, name, io);
    case GHA_OPT_INPUT:
    case GHA_OPT_VAR:
    case GHA_OPT_GITHUB:
    case GHA_OPT_MATRIX:
        break;
    }
    return set_context_value(o, contexts[id], arg, name, io);
}

void gha_options_free(void *own)
{
    expr_unref(((struct gha_options *)own)->contexts);
}

/* The expression contexts the options give (NULL when none). */
const struct expr_value *gha_contexts(const void *own)
{
    const struct expr_value *known = own ? ((const struct gha_options *)own)->contexts : NULL;

    return expr_len(known) ? known : NULL;
}

/* The inputs a workflow declares (`on.workflow_call.inputs`, `on.workflow_dispatch.inputs`)
 * that `given` does not name, added to it: an input not given takes its default, as GitHub
 * gives it; one without a default stays unknown (docs: "inputs context"). -1 when out of
 * memory. */
static int complete_inputs(struct expr_value *given, const struct ynode *on)
{
    static const char *const events[] = {"workflow_call", "workflow_dispatch"};

    for (size_t e = 0; e < sizeof(events) / sizeof(events[0]); e++) {
        const struct ynode *decl = ynode_get(ynode_get(on, events[e]), "inputs");

        for (size_t i = 0; ynode_is_map(decl) && i < ynode_len(decl); i++) {
            size_t len;
            const char *name = ynode_scalar(ynode_key(decl, i), &len);
            const struct ynode *def = ynode_get(ynode_value(decl, i), "default");

            if (name && !expr_get(given, name, len) &&
                expr_object_set(given, name, len, def ? expr_from_ynode(def) : expr_unknown()) != 0)
                return -1;
        }
    }
    return 0;
}

int gha_workflow_inputs(void *state, struct stream_item *item)
{
    struct gha_state *st = state;
    const struct ynode *root = item->doc ? ynode_doc_root(item->doc) : NULL;
    const struct expr_value *given = expr_get(st->run, "inputs", 6);
    struct expr_value *inputs;
    unsigned file = item->pos.file;

    if (item->kind != STREAM_PAIR || !given || !ynode_has(root, "on"))
        return 0;
    if (file >= st->n_files) {
        struct expr_value **grown = realloc(st->files, (file + 1) * sizeof(*grown));

        if (!grown)
            return -1;
        memset(grown + st->n_files, 0, (file + 1 - st->n_files) * sizeof(*grown));
        st->files = grown;
        st->n_files = file + 1;
    }
    if (!(inputs = expr_object()))
        return -1;
    for (size_t i = 0; i < expr_len(given); i++) {
        size_t len;
        const char *k = expr_key(given, i, &len);

        if (expr_object_set(inputs, k, len, expr_ref(expr_member(given, i))) != 0) {
            expr_unref(inputs);
            return -1;
        }
    }
    if (complete_inputs(inputs, ynode_get(root, "on")) != 0) {
        expr_unref(inputs);
        return -1;
    }
    expr_unref(st->files[file]);
    return (st->files[file] = gha_with_inputs(st->run, inputs)) ? 0 : -1;
}

const struct expr_value *gha_file_contexts(const struct gha_state *st, unsigned file)
{
    return file < st->n_files && st->files[file] ? st->files[file] : st->run;
}
