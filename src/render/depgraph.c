#include "fanout/depgraph.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/strhash.h"
#include "fanout/text.h"
#include "fanout/xsort.h"

struct hkey {
    uint64_t h1, h2;
};

struct edge {
    struct hkey from, to;
    struct ypos pos;
    char from_text[KEYINDEX_TEXT + 4]; /* for messages, maybe cut */
};

struct depgraph {
    struct xsort *edges;
    bool failed;
};

static int hkey_cmp(const struct hkey *a, const struct hkey *b)
{
    if (a->h1 != b->h1)
        return a->h1 < b->h1 ? -1 : 1;
    return a->h2 < b->h2 ? -1 : a->h2 > b->h2;
}

/* By source, then target, then position: a total order, as xsort requires. */
static int edge_cmp(const void *pa, const void *pb)
{
    const struct edge *a = pa, *b = pb;
    int c;

    if ((c = hkey_cmp(&a->from, &b->from)) || (c = hkey_cmp(&a->to, &b->to)))
        return c;
    if (a->pos.file != b->pos.file)
        return a->pos.file < b->pos.file ? -1 : 1;
    if (a->pos.line != b->pos.line)
        return a->pos.line < b->pos.line ? -1 : 1;
    return a->pos.col < b->pos.col ? -1 : a->pos.col > b->pos.col;
}

struct depgraph *depgraph_create(size_t mem_budget)
{
    struct depgraph *g = calloc(1, sizeof(*g));

    if (g && !(g->edges = xsort_create(sizeof(struct edge), edge_cmp, mem_budget))) {
        free(g);
        g = NULL;
    }
    return g;
}

void depgraph_destroy(struct depgraph *g)
{
    if (!g)
        return;
    xsort_destroy(g->edges);
    free(g);
}

int depgraph_add(struct depgraph *g, const char *from, size_t flen, const char *to, size_t tlen,
                 struct ypos pos)
{
    struct edge e;

    memset(&e, 0, sizeof(e));
    strhash_pair(from, flen, &e.from.h1, &e.from.h2);
    strhash_pair(to, tlen, &e.to.h1, &e.to.h2);
    e.pos = pos;
    text_shown(e.from_text, from, flen, KEYINDEX_TEXT);
    if (xsort_add(g->edges, &e) != 0) {
        g->failed = true;
        return -1;
    }
    return 0;
}

/* The loaded graph: edges sorted by source; nodes are the distinct sources. */
struct loaded {
    struct edge *edges;
    size_t n_edges;
    size_t *first;   /* per node: index of its first edge; first[n_nodes] = n_edges */
    size_t n_nodes;
    long *target;    /* per edge: the node it leads to, -1 for a key with no edges */
};

static long find_node(const struct loaded *l, const struct hkey *k)
{
    size_t lo = 0, hi = l->n_nodes;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = hkey_cmp(&l->edges[l->first[mid]].from, k);

        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int load(struct depgraph *g, struct loaded *l)
{
    const struct edge *e;
    size_t cap = 0;

    memset(l, 0, sizeof(*l));
    if (g->failed || xsort_finish(g->edges) != 0)
        return -1;
    while ((e = xsort_next(g->edges)) != NULL) {
        if (l->n_edges == DEPGRAPH_MAX_EDGES)
            return -1;
        if (l->n_edges == cap) {
            struct edge *grown = array_grow(l->edges, &cap, l->n_edges + 1, 256, sizeof(*grown));

            if (!grown)
                return -1;
            l->edges = grown;
        }
        l->edges[l->n_edges++] = *e;
    }
    if (xsort_failed(g->edges))
        return -1;
    l->first = malloc((l->n_edges + 1) * sizeof(*l->first));
    l->target = malloc((l->n_edges + 1) * sizeof(*l->target));
    if (!l->first || !l->target)
        return -1;
    for (size_t i = 0; i < l->n_edges; i++) {
        if (i == 0 || hkey_cmp(&l->edges[i - 1].from, &l->edges[i].from) != 0)
            l->first[l->n_nodes++] = i;
    }
    l->first[l->n_nodes] = l->n_edges;
    for (size_t i = 0; i < l->n_edges; i++)
        l->target[i] = find_node(l, &l->edges[i].to);
    return 0;
}

static void unload(struct loaded *l)
{
    free(l->edges);
    free(l->first);
    free(l->target);
}

long depgraph_cycles(struct depgraph *g, size_t max, depgraph_cycle_fn fn, void *user)
{
    struct loaded l;
    struct frame {
        size_t node, next; /* next: index of the next edge to follow */
    } *stack = NULL;
    unsigned char *color = NULL; /* 0 new, 1 on the stack, 2 done */
    const char **keys = NULL;
    long found = 0;

    if (load(g, &l) != 0)
        goto fail;
    stack = malloc((l.n_nodes + 1) * sizeof(*stack));
    color = calloc(l.n_nodes + 1, 1);
    keys = malloc((l.n_nodes + 2) * sizeof(*keys));
    if (!stack || !color || !keys)
        goto fail;
    for (size_t root = 0; root < l.n_nodes && (size_t)found < max; root++) {
        size_t depth = 0;

        if (color[root])
            continue;
        color[root] = 1;
        stack[depth++] = (struct frame){root, l.first[root]};
        while (depth > 0 && (size_t)found < max) {
            struct frame *top = &stack[depth - 1];
            size_t e;
            long to;

            if (top->next == l.first[top->node + 1]) {
                color[top->node] = 2;
                depth--;
                continue;
            }
            e = top->next++;
            to = l.target[e];
            if (to < 0 || color[to] == 2)
                continue;
            if (color[to] == 0) {
                color[to] = 1;
                stack[depth++] = (struct frame){(size_t)to, l.first[to]};
                continue;
            }
            /* back to a node on the stack: the stack from it is a cycle */
            {
                size_t from = depth, n = 0;

                while (from > 0 && stack[from - 1].node != (size_t)to)
                    from--;
                for (size_t i = from - 1; i < depth; i++)
                    keys[n++] = l.edges[l.first[stack[i].node]].from_text;
                keys[n++] = keys[0];
                fn(user, keys, n, l.edges[e].pos);
                found++;
            }
        }
    }
    free(stack);
    free(color);
    free(keys);
    unload(&l);
    return found;
fail:
    free(stack);
    free(color);
    free(keys);
    unload(&l);
    return -1;
}
