#include "fanout/check.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/textdiff.h"
#include "fanout/ynode.h"

int check_one(const char *const *sources, size_t n, const char *rendered,
              const struct render_opts *opts, bool write, FILE *out, struct diag *d)
{
    char *fresh = NULL, *old = NULL, *new_name = NULL;
    size_t fresh_len = 0, old_len = 0;
    bool missing;
    int rc = render_to_memory(sources, n, opts, d, &fresh, &fresh_len);

    if (rc != 0)
        goto done;
    old = source_slurp(rendered, &old_len, &missing, d);
    if (!old) {
        rc = DIAG_INPUT;
        goto done;
    }
    if (!missing && old_len == fresh_len && memcmp(old, fresh, old_len) == 0)
        goto done;
    if (write) {
        struct render_opts o = *opts;

        /* Straight into the file: output writes it atomically, its mode kept. */
        o.output = rendered;
        o.stream = NULL;
        rc = render_paths(sources, n, &o, d);
        if (rc == 0)
            fprintf(stderr, "fanout: wrote %s\n", rendered);
        goto done;
    }
    new_name = malloc(strlen(rendered) + sizeof(" (rendered now)"));
    if (!new_name) {
        rc = DIAG_INPUT;
        goto done;
    }
    sprintf(new_name, "%s (rendered now)", rendered);
    rc = textdiff_unified(out, missing ? "/dev/null" : rendered, old, old_len, new_name, fresh,
                          fresh_len) < 0 ? DIAG_INPUT : DIAG_FINDING;
    diag_report(d, DIAG_ERROR, DIAG_FINDING, rendered, 0, 0, "stale",
                "%s; run 'fanout check --write' (or fanout render -o %s) to update it",
                missing ? "does not exist" : "is stale", rendered);
done:
    free(new_name);
    free(fresh);
    free(old);
    return rc;
}

static bool option_bool(const struct ynode *v, bool *out)
{
    if (ynode_scalar_is(v, "true"))
        *out = true;
    else if (ynode_scalar_is(v, "false"))
        *out = false;
    else
        return false;
    return true;
}

static int config_error(struct diag *d, const char *config, const struct ynode *at, const char *msg)
{
    struct ypos p = ynode_pos(at);

    diag_report(d, DIAG_ERROR, DIAG_INPUT, config, p.line, p.col, "config", "%s", msg);
    return 2;
}

/* Reads one entry of `checks` into sources/rendered/options. */
static int read_entry(const struct ynode *e, const char *config, struct render_opts *o,
                      const char ***sources, size_t *n, const char **rendered, struct diag *d)
{
    const struct ynode *src = ynode_get(e, "sources"), *v;

    if (!ynode_is_map(e))
        return config_error(d, config, e, "a check is a mapping with sources and rendered");
    *rendered = ynode_scalar(ynode_get(e, "rendered"), NULL);
    if (!*rendered)
        return config_error(d, config, e, "a check needs 'rendered' (the committed rendering)");
    if (ynode_is_scalar(src)) {
        *sources = malloc(sizeof(**sources));
        if (!*sources)
            return 2;
        (*sources)[0] = ynode_scalar(src, NULL);
        *n = 1;
    } else if (ynode_is_seq(src) && ynode_len(src)) {
        size_t count = ynode_len(src);

        if (!(*sources = calloc(count, sizeof(**sources))))
            return 2;
        for (size_t i = 0; i < count; i++) {
            if (!((*sources)[i] = ynode_scalar(ynode_item(src, i), NULL)))
                return config_error(d, config, ynode_item(src, i), "sources are paths");
        }
        *n = count;
    } else {
        return config_error(d, config, src ? src : e, "a check needs 'sources' (a path or a list)");
    }
    if ((v = ynode_get(e, "upload")) && !option_bool(v, &o->upload))
        return config_error(d, config, v, "upload is true or false");
    if ((v = ynode_get(e, "format"))) {
        if (ynode_scalar_is(v, "yaml"))
            o->format = EMIT_YAML;
        else if (ynode_scalar_is(v, "json"))
            o->format = EMIT_JSON;
        else
            return config_error(d, config, v, "format is yaml or json");
    }
    if ((v = ynode_get(e, "platform"))) {
        if (ynode_scalar_is(v, "all"))
            o->platform = TA_ALL;
        else if (ynode_scalar_is(v, "nvidia"))
            o->platform = TA_NVIDIA;
        else if (ynode_scalar_is(v, "amd"))
            o->platform = TA_AMD;
        else
            return config_error(d, config, v, "platform is all, nvidia or amd");
    }
    return 0;
}

int check_config(const char *config, const struct render_opts *base, bool write, FILE *out,
                 struct diag *d)
{
    struct source *src = source_open(config, d);
    struct stream *s = src ? stream_open(src, 0, d) : NULL;
    struct ynode_doc *doc = NULL;
    const struct ynode *checks;
    int worst = 0;

    if (!s || stream_document(s, &doc) < 0) {
        stream_close(s);
        source_close(src);
        return 2;
    }
    checks = doc ? ynode_get(ynode_doc_root(doc), "checks") : NULL;
    if (!ynode_is_seq(checks) || !ynode_len(checks))
        worst = config_error(d, config, checks ? checks : doc ? ynode_doc_root(doc) : NULL,
                             "the config needs 'checks': a list of {sources, rendered}");
    for (size_t i = 0; worst < 2 && i < ynode_len(checks); i++) {
        struct render_opts o = *base;
        const char **sources = NULL, *rendered = NULL;
        size_t n = 0;
        int rc = read_entry(ynode_item(checks, i), config, &o, &sources, &n, &rendered, d);

        if (rc == 0)
            rc = check_one(sources, n, rendered, &o, write, out, d);
        free(sources);
        worst = rc > worst ? rc : worst;
    }
    ynode_doc_destroy(doc);
    stream_close(s);
    source_close(src);
    return worst;
}
