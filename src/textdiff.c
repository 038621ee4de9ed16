#include "fanout/textdiff.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define CONTEXT 3
#define MAX_EDIT 2000 /* Myers' trace is O(D^2) ints: cap D */

struct line {
    const char *s;
    size_t len; /* without the newline */
    bool newline;
};

struct lines {
    struct line *v;
    size_t n;
};

enum op { EQ, DEL, INS };

struct edit {
    enum op op;
    size_t a, b; /* line numbers (0-based) in a and b */
};

static int split(const char *s, size_t len, struct lines *out)
{
    size_t cap = 16;

    out->n = 0;
    out->v = malloc(cap * sizeof(*out->v));
    if (!out->v)
        return -1;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(s + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - s) : len;

        if (out->n == cap) {
            struct line *v = realloc(out->v, (cap *= 2) * sizeof(*v));

            if (!v)
                return -1;
            out->v = v;
        }
        out->v[out->n].s = s + i;
        out->v[out->n].len = end - i;
        out->v[out->n].newline = nl != NULL;
        out->n++;
        i = end + 1;
    }
    return 0;
}

static bool same(const struct line *x, const struct line *y)
{
    return x->len == y->len && x->newline == y->newline && memcmp(x->s, y->s, x->len) == 0;
}

struct script {
    struct edit *v;
    size_t n, cap;
};

static int push(struct script *sc, enum op op, size_t a, size_t b)
{
    if (sc->n == sc->cap) {
        size_t cap = sc->cap ? sc->cap * 2 : 64;
        struct edit *v = realloc(sc->v, cap * sizeof(*v));

        if (!v)
            return -1;
        sc->v = v;
        sc->cap = cap;
    }
    sc->v[sc->n].op = op;
    sc->v[sc->n].a = a;
    sc->v[sc->n].b = b;
    sc->n++;
    return 0;
}

/* Myers' shortest edit script of a[a0..a1) against b[b0..b1), appended in order. */
static int myers(const struct lines *A, size_t a0, size_t a1, const struct lines *B, size_t b0,
                 size_t b1, struct script *sc)
{
    long n = (long)(a1 - a0), m = (long)(b1 - b0), max = n + m, found = -1;
    long *v, **trace;
    struct script rev = {0};
    int rc = -1;

    if (max > 0) {
        long lim = max < MAX_EDIT ? max : MAX_EDIT;

        v = calloc((size_t)(2 * max + 3), sizeof(*v));
        trace = calloc((size_t)lim + 1, sizeof(*trace));
        if (!v || !trace) {
            free(v);
            free(trace);
            return -1;
        }
        for (long d = 0; d <= lim && found < 0; d++) {
            trace[d] = malloc((size_t)(2 * d + 1) * sizeof(long));
            if (!trace[d])
                goto cleanup;
            for (long k = -d; k <= d; k++)
                trace[d][k + d] = v[k + max + 1];
            for (long k = -d; k <= d; k += 2) {
                long x, y;

                if (k == -d || (k != d && v[k - 1 + max + 1] < v[k + 1 + max + 1]))
                    x = v[k + 1 + max + 1];
                else
                    x = v[k - 1 + max + 1] + 1;
                y = x - k;
                while (x < n && y < m && same(&A->v[a0 + (size_t)x], &B->v[b0 + (size_t)y])) {
                    x++;
                    y++;
                }
                v[k + max + 1] = x;
                if (x >= n && y >= m) {
                    found = d;
                    break;
                }
            }
        }
        if (found >= 0) {
            long x = n, y = m;

            for (long d = found; d > 0; d--) {
                long k = x - y, pk, px, py;
                long *pv = trace[d]; /* v as it was before step d */

                if (k == -d || (k != d && pv[k - 1 + d] < pv[k + 1 + d]))
                    pk = k + 1;
                else
                    pk = k - 1;
                px = pv[pk + d];
                py = px - pk;
                while (x > px && y > py) {
                    if (push(&rev, EQ, a0 + (size_t)--x, b0 + (size_t)--y) != 0)
                        goto cleanup;
                }
                if (pk == k + 1) {
                    if (push(&rev, INS, a0 + (size_t)x, b0 + (size_t)--y) != 0)
                        goto cleanup;
                } else if (push(&rev, DEL, a0 + (size_t)--x, b0 + (size_t)y) != 0) {
                    goto cleanup;
                }
            }
            while (x > 0 && y > 0) {
                if (push(&rev, EQ, a0 + (size_t)--x, b0 + (size_t)--y) != 0)
                    goto cleanup;
            }
            for (size_t i = rev.n; i-- > 0;) {
                if (push(sc, rev.v[i].op, rev.v[i].a, rev.v[i].b) != 0)
                    goto cleanup;
            }
            rc = 0;
        }
cleanup:
        for (long d = 0; d <= lim; d++)
            free(trace[d]);
        free(trace);
        free(v);
        free(rev.v);
        if (found >= 0 || rc == 0)
            return rc;
    }
    /* Too different (or nothing to do): everything old out, everything new in. */
    for (size_t i = a0; i < a1; i++) {
        if (push(sc, DEL, i, b0) != 0)
            return -1;
    }
    for (size_t j = b0; j < b1; j++) {
        if (push(sc, INS, a1, j) != 0)
            return -1;
    }
    return 0;
}

static void put_line(FILE *out, char mark, const struct line *l)
{
    fputc(mark, out);
    fwrite(l->s, 1, l->len, out);
    fputc('\n', out);
    if (!l->newline)
        fputs("\\ No newline at end of file\n", out);
}

static void hunk(FILE *out, const struct script *sc, size_t from, size_t to, const struct lines *A,
                 const struct lines *B)
{
    size_t a_start = sc->v[from].a, b_start = sc->v[from].b, a_count = 0, b_count = 0;

    for (size_t i = from; i < to; i++) {
        a_count += sc->v[i].op != INS;
        b_count += sc->v[i].op != DEL;
    }
    fprintf(out, "@@ -%zu,%zu +%zu,%zu @@\n", a_count ? a_start + 1 : a_start, a_count,
            b_count ? b_start + 1 : b_start, b_count);
    for (size_t i = from; i < to; i++) {
        const struct edit *e = &sc->v[i];

        if (e->op == EQ)
            put_line(out, ' ', &A->v[e->a]);
        else if (e->op == DEL)
            put_line(out, '-', &A->v[e->a]);
        else
            put_line(out, '+', &B->v[e->b]);
    }
}

int textdiff_unified(FILE *out, const char *a_name, const char *a, size_t alen,
                     const char *b_name, const char *b, size_t blen)
{
    struct lines A = {0}, B = {0};
    struct script sc = {0};
    size_t pre = 0, suf = 0;
    int rc = -1;

    if (alen == blen && memcmp(a, b, alen) == 0)
        return 0;
    if (split(a, alen, &A) != 0 || split(b, blen, &B) != 0)
        goto done;
    while (pre < A.n && pre < B.n && same(&A.v[pre], &B.v[pre]))
        pre++;
    while (suf < A.n - pre && suf < B.n - pre && same(&A.v[A.n - 1 - suf], &B.v[B.n - 1 - suf]))
        suf++;
    for (size_t i = 0; i < pre; i++) {
        if (push(&sc, EQ, i, i) != 0)
            goto done;
    }
    if (myers(&A, pre, A.n - suf, &B, pre, B.n - suf, &sc) != 0)
        goto done;
    for (size_t i = 0; i < suf; i++) {
        if (push(&sc, EQ, A.n - suf + i, B.n - suf + i) != 0)
            goto done;
    }
    fprintf(out, "--- %s\n+++ %s\n", a_name, b_name);
    /* hunks: runs of changes with up to CONTEXT equal lines around them, merged when
     * their contexts touch */
    for (size_t i = 0; i < sc.n;) {
        size_t start, end, last_change;

        while (i < sc.n && sc.v[i].op == EQ)
            i++;
        if (i == sc.n)
            break;
        start = i > CONTEXT ? i - CONTEXT : 0;
        last_change = i;
        for (end = i; end < sc.n; end++) {
            if (sc.v[end].op != EQ)
                last_change = end;
            else if (end - last_change > 2 * CONTEXT)
                break;
        }
        end = last_change + 1 + CONTEXT < sc.n ? last_change + 1 + CONTEXT : sc.n;
        hunk(out, &sc, start, end, &A, &B);
        i = end;
    }
    rc = 1;
done:
    free(A.v);
    free(B.v);
    free(sc.v);
    return rc;
}
