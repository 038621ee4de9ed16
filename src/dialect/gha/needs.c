/* needs: a job's `needs`, the references between the jobs of a workflow: normalized to a
 * list, visited for the key index and the "waits for" graph, and rewritten so that a
 * need of an expanded job (or an inlined call) names all of its jobs. */
#include <string.h>

#include "gha_internal.h"

/* `needs` read as a list: `needs: x` is a list of one; a null has none. A mapping is one
 * entry that is not a name (reported where references are read). */
size_t gha_needs_len(const struct ynode *needs)
{
    return ynode_is_seq(needs) ? ynode_len(needs) : needs && !ynode_is_null(needs) ? 1 : 0;
}

const struct ynode *gha_needs_at(const struct ynode *needs, size_t i)
{
    return ynode_is_seq(needs) ? ynode_item(needs, i) : needs;
}

/* `needs: x` as `needs: [x]`, the one form the rest reads. */
int gha_normalize(struct ynode_doc *doc, struct ynode *items)
{
    for (size_t i = 0; ynode_is_map(items) && i < ynode_len(items); i++) {
        struct ynode *job = ynode_value(items, i);
        struct ynode *needs = ynode_get(job, "needs"), *list;

        if (!ynode_is_scalar(needs) || ynode_is_null(needs))
            continue;
        if (!(list = ynode_new_seq(doc, ynode_pos(needs))) || ynode_append(doc, list, needs) != 0 ||
            ynode_set(doc, job, "needs", list) != 0)
            return -1;
    }
    return 0;
}

int gha_references(const struct ynode *items, struct diag *d, const char *const *files,
                   dialect_visit_fn visit, void *user)
{
    for (size_t i = 0; ynode_is_map(items) && i < ynode_len(items); i++) {
        const struct ynode *needs = ynode_get(ynode_value(items, i), "needs");

        for (size_t k = 0; k < gha_needs_len(needs); k++) {
            const struct ynode *n = gha_needs_at(needs, k);
            size_t len;
            const char *t = ynode_scalar(n, &len);
            int rc;

            if (!t) {
                struct ypos p = ynode_pos(n);

                diag_at(d, DIAG_ERROR, DIAG_INPUT, files, p, RULE_NEEDS,
                        "needs entries must be job ids");
                return -1;
            }
            if ((rc = visit(user, t, len, ynode_pos(n))) != 0)
                return rc;
        }
    }
    return 0;
}

int gha_edges(const struct ynode *items, dialect_edge_fn fn, void *user, bool *local_cycle)
{
    for (size_t i = 0; ynode_is_map(items) && i < ynode_len(items); i++) {
        size_t flen;
        const char *from = ynode_scalar(ynode_key(items, i), &flen);
        const struct ynode *needs = ynode_get(ynode_value(items, i), "needs");

        for (size_t k = 0; k < gha_needs_len(needs); k++) {
            size_t tlen;
            const char *to = ynode_scalar(gha_needs_at(needs, k), &tlen);
            int rc;

            if (!to)
                continue;
            if ((rc = fn(user, from, flen, to, tlen, ynode_pos(gha_needs_at(needs, k)))) != 0)
                return rc;
            *local_cycle |= tlen == flen && memcmp(to, from, flen) == 0;
        }
    }
    return 0;
}

int gha_rewrite(const struct dialect_ctx *ctx, struct ynode_doc *doc, struct ynode *items,
                dialect_shards_fn shards_of, void *user)
{
    for (size_t i = 0; ynode_is_map(items) && i < ynode_len(items); i++) {
        struct ynode *needs = ynode_get(ynode_value(items, i), "needs");

        for (size_t k = 0; ynode_is_seq(needs) && k < ynode_len(needs); k++) {
            struct ynode *n = ynode_item(needs, k);
            size_t len;
            const char *t = ynode_scalar(n, &len);
            unsigned jobs = t ? shards_of(user, t, len) : 0;
            char name[2 * GHA_NAME_MAX + 16];

            const struct call *call;

            if (!jobs)
                continue;
            if (jobs == DIALECT_KEY_LEFT_OUT) { /* GitHub runs the job without it */
                ynode_remove_at(needs, k--);
                continue;
            }
            call = gha_call_find(ctx->state, ynode_pos(n).file, t, len);
            ynode_remove_at(needs, k);
            for (unsigned s = 0; s < jobs; s++) {
                size_t nl = call && s < call->n ? strnlen(call->jobs[s], sizeof(name) - 1)
                                                : dialect_key_name(name, sizeof(name), t, len, s);
                struct ynode *one = ynode_new_string(doc, call && s < call->n ? call->jobs[s] : name, nl, ynode_pos(n));

                if (!one || ynode_insert(doc, needs, k + s, one) != 0)
                    return -1;
            }
            k += jobs - 1;
        }
    }
    return 0;
}
