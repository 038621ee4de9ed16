#include "fanout/check.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/source.h"
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

static bool option_bool(struct fy_node *v, bool *out)
{
    if (ynode_scalar_is(v, "true"))
        *out = true;
    else if (ynode_scalar_is(v, "false"))
        *out = false;
    else
        return false;
    return true;
}

static int config_error(struct diag *d, const char *config, struct fy_node *at, const char *msg)
{
    struct ypos p = ynode_pos(at);

    diag_report(d, DIAG_ERROR, DIAG_INPUT, config, p.line, p.col, "config", "%s", msg);
    return 2;
}

/* Reads one entry of `checks` into sources/rendered/options. */
static int read_entry(struct fy_node *e, const char *config, struct render_opts *o,
                      const char ***sources, size_t *n, const char **rendered, struct diag *d)
{
    struct fy_node *src = ynode_get(e, "sources"), *v;

    if (!fy_node_is_mapping(e))
        return config_error(d, config, e, "a check is a mapping with sources and rendered");
    *rendered = ynode_get(e, "rendered") ? fy_node_get_scalar0(ynode_get(e, "rendered")) : NULL;
    if (!*rendered)
        return config_error(d, config, e, "a check needs 'rendered' (the committed rendering)");
    if (src && fy_node_is_scalar(src)) {
        *sources = malloc(sizeof(**sources));
        if (!*sources)
            return 2;
        (*sources)[0] = fy_node_get_scalar0(src);
        *n = 1;
    } else if (src && fy_node_is_sequence(src) && !fy_node_sequence_is_empty(src)) {
        size_t count;
        struct fy_node **items = ynode_items(src, &count);

        *sources = calloc(count, sizeof(**sources));
        if (!items || !*sources) {
            free(items);
            return 2;
        }
        for (size_t i = 0; i < count; i++) {
            (*sources)[i] = fy_node_get_scalar0(items[i]);
            if (!(*sources)[i]) {
                int rc = config_error(d, config, items[i], "sources are paths");

                free(items);
                return rc;
            }
        }
        free(items);
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
    struct stream_item item;
    struct fy_node *checks = NULL;
    struct fy_document *doc = NULL;
    int worst = 0, more;

    if (!s) {
        source_close(src);
        return 2;
    }
    /* The config is small: keep its `checks` pair. */
    while ((more = stream_next(s, &item)) > 0) {
        if (item.kind == STREAM_PAIR && !checks &&
            ynode_scalar_is(fy_node_pair_key(fy_node_mapping_get_by_index(fy_document_root(item.doc), 0)), "checks")) {
            doc = item.doc;
            checks = fy_node_pair_value(fy_node_mapping_get_by_index(fy_document_root(doc), 0));
            continue;
        }
        if (item.doc)
            fy_document_destroy(item.doc);
    }
    if (more < 0)
        worst = 2;
    else if (!checks || !fy_node_is_sequence(checks) || fy_node_sequence_is_empty(checks))
        worst = config_error(d, config, checks, "the config needs 'checks': a list of {sources, rendered}");
    for (int i = 0; worst < 2 && checks && fy_node_is_sequence(checks) &&
                    i < fy_node_sequence_item_count(checks); i++) {
        struct render_opts o = *base;
        const char **sources = NULL, *rendered = NULL;
        size_t n = 0;
        int rc = read_entry(fy_node_sequence_get_by_index(checks, i), config, &o, &sources, &n,
                            &rendered, d);

        if (rc == 0)
            rc = check_one(sources, n, rendered, &o, write, out, d);
        free(sources);
        worst = rc > worst ? rc : worst;
    }
    if (doc)
        fy_document_destroy(doc);
    stream_close(s);
    source_close(src);
    return worst;
}
