#include "fanout/textdiff.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"

#define CONTEXT 3
/* Myers' trace is O(D^2) ints: D is capped (past it the middle is shown all out, all
 * in), for files at FILE_EDIT, for a field's value at TEXT_EDIT (pipediff shows many) */
#define FILE_EDIT 2000
#define TEXT_EDIT 200

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
            struct line *v = array_grow(out->v, &cap, out->n + 1, 16, sizeof(*v));

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
        struct edit *v = array_grow(sc->v, &sc->cap, sc->n + 1, 64, sizeof(*v));

        if (!v)
            return -1;
        sc->v = v;
    }
    sc->v[sc->n].op = op;
    sc->v[sc->n].a = a;
    sc->v[sc->n].b = b;
    sc->n++;
    return 0;
}

/* Myers' shortest edit script of a[a0..a1) against b[b0..b1), appended in order. */
static int myers(const struct lines *A, size_t a0, size_t a1, const struct lines *B, size_t b0,
                 size_t b1, long max_edit, struct script *sc)
{
    long n = (long)(a1 - a0), m = (long)(b1 - b0), max = n + m, found = -1;
    long *v, **trace;
    struct script rev = {0};
    int rc = -1;

    if (max > 0) {
        long lim = max < max_edit ? max : max_edit;

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
                 const struct lines *B, size_t a_base, size_t b_base)
{
    size_t a_start = sc->v[from].a, b_start = sc->v[from].b, a_count = 0, b_count = 0;

    for (size_t i = from; i < to; i++) {
        a_count += sc->v[i].op != INS;
        b_count += sc->v[i].op != DEL;
    }
    fprintf(out, "@@ -%zu,%zu +%zu,%zu @@\n", a_base + (a_count ? a_start + 1 : a_start), a_count,
            b_base + (b_count ? b_start + 1 : b_start), b_count);
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

/* The hunks of A against B (edits found up to `max_edit`); line numbers are shown
 * `a_base`/`b_base` further on (the texts are the middle of longer ones). 0, or -1 when
 * out of memory. */
static int hunks(FILE *out, const struct lines *A, const struct lines *B, size_t a_base,
                 size_t b_base, long max_edit)
{
    struct script sc = {0};
    size_t pre = 0, suf = 0;
    int rc = -1;

    while (pre < A->n && pre < B->n && same(&A->v[pre], &B->v[pre]))
        pre++;
    while (suf < A->n - pre && suf < B->n - pre && same(&A->v[A->n - 1 - suf], &B->v[B->n - 1 - suf]))
        suf++;
    for (size_t i = 0; i < pre; i++) {
        if (push(&sc, EQ, i, i) != 0)
            goto done;
    }
    if (myers(A, pre, A->n - suf, B, pre, B->n - suf, max_edit, &sc) != 0)
        goto done;
    for (size_t i = 0; i < suf; i++) {
        if (push(&sc, EQ, A->n - suf + i, B->n - suf + i) != 0)
            goto done;
    }
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
        hunk(out, &sc, start, end, A, B, a_base, b_base);
        i = end;
    }
    rc = 0;
done:
    free(sc.v);
    return rc;
}

int textdiff_texts(FILE *out, const char *a, size_t alen, const char *b, size_t blen)
{
    struct lines la = {0}, lb = {0};
    int rc = split(a, alen, &la) == 0 && split(b, blen, &lb) == 0 ? hunks(out, &la, &lb, 0, 0, TEXT_EDIT) : -1;

    free(la.v);
    free(lb.v);
    return rc;
}

/* ---- two files, in bounded memory ---- */

/* One side of a file diff: what is known about the file and where its parts are. */
struct file_side {
    FILE *fp;
    off_t size;
    off_t prefix_end;       /* byte offset where the first differing line starts */
    off_t ctx[CONTEXT];     /* offsets of the last CONTEXT prefix lines (a ring) */
    off_t middle_end;       /* where the common suffix (whole lines) starts */
    size_t lines_before;    /* lines in the common prefix */
};

static int read_at(FILE *fp, off_t off, char *buf, size_t n)
{
    return fseeko(fp, off, SEEK_SET) == 0 && fread(buf, 1, n, fp) == n ? 0 : -1;
}

/* The common prefix in whole lines: line by line, up to the first that differs. */
static int common_prefix(struct file_side *a, struct file_side *b)
{
    char *la = NULL, *lb = NULL;
    size_t ca = 0, cb = 0, n = 0;
    off_t off = 0;

    if (fseeko(a->fp, 0, SEEK_SET) != 0 || fseeko(b->fp, 0, SEEK_SET) != 0)
        return -1;
    for (;;) {
        ssize_t na = getline(&la, &ca, a->fp), nb = getline(&lb, &cb, b->fp);

        if (na < 0 || nb < 0 || na != nb || memcmp(la, lb, (size_t)na) != 0 || la[na - 1] != '\n')
            break;
        a->ctx[n % CONTEXT] = b->ctx[n % CONTEXT] = off;
        off += na;
        n++;
    }
    free(la);
    free(lb);
    a->prefix_end = b->prefix_end = off;
    a->lines_before = b->lines_before = n;
    return ferror(a->fp) || ferror(b->fp) ? -1 : 0;
}

/* The common suffix in whole lines, after the prefix in both files. */
static int common_suffix(struct file_side *a, struct file_side *b)
{
    char ba[8192], bb[8192];
    off_t room = a->size - a->prefix_end < b->size - b->prefix_end ? a->size - a->prefix_end
                                                                   : b->size - b->prefix_end;
    off_t len = 0, align;

    while (len < room) {
        size_t n = room - len < (off_t)sizeof(ba) ? (size_t)(room - len) : sizeof(ba), i;

        if (read_at(a->fp, a->size - len - (off_t)n, ba, n) != 0 ||
            read_at(b->fp, b->size - len - (off_t)n, bb, n) != 0)
            return -1;
        for (i = n; i > 0 && ba[i - 1] == bb[i - 1]; i--)
            ;
        len += (off_t)(n - i);
        if (i > 0)
            break;
    }
    /* whole lines: unless both sides break a line right before it, the suffix starts
     * after its first newline */
    align = 0;
    if (len > 0) {
        char before_a = '\n', before_b = '\n';

        if (a->size - len > a->prefix_end && read_at(a->fp, a->size - len - 1, &before_a, 1) != 0)
            return -1;
        if (b->size - len > b->prefix_end && read_at(b->fp, b->size - len - 1, &before_b, 1) != 0)
            return -1;
        while (align < len && !(before_a == '\n' && before_b == '\n')) {
            size_t n = len - align < (off_t)sizeof(ba) ? (size_t)(len - align) : sizeof(ba);
            char *nl;

            if (read_at(a->fp, a->size - len + align, ba, n) != 0)
                return -1;
            nl = memchr(ba, '\n', n);
            if (nl) {
                align += (nl - ba) + 1;
                break;
            }
            align += (off_t)n;
        }
    }
    a->middle_end = a->size - len + align;
    b->middle_end = b->size - len + align;
    return 0;
}

/* Reads [from, to) of a file, extended by up to CONTEXT whole lines after it. */
static char *read_span(FILE *fp, off_t from, off_t to, size_t *len)
{
    char *buf = NULL, *line = NULL;
    size_t cap = 0, used, lines = 0;
    ssize_t n;

    used = (size_t)(to - from);
    if (!(buf = malloc(used + 1)) || read_at(fp, from, buf, used) != 0) {
        free(buf);
        return NULL;
    }
    while (lines < CONTEXT && (n = getline(&line, &cap, fp)) > 0) {
        char *grown = realloc(buf, used + (size_t)n + 1);

        if (!grown) {
            free(buf);
            free(line);
            return NULL;
        }
        buf = grown;
        memcpy(buf + used, line, (size_t)n);
        used += (size_t)n;
        lines++;
    }
    free(line);
    *len = used;
    return buf;
}

/* Lines of [from, to) of a file (to < 0: up to CONTEXT lines from `from` on), written
 * with `mark` when `out` is not NULL; how many there were. */
static size_t lines_of(FILE *out, FILE *fp, off_t from, off_t to, char mark)
{
    char *line = NULL;
    size_t cap = 0, count = 0;
    ssize_t n;

    if (fseeko(fp, from, SEEK_SET) != 0)
        return 0;
    while ((to < 0 ? count < CONTEXT : from < to) && (n = getline(&line, &cap, fp)) > 0) {
        struct line l = {line, (size_t)n, false};

        if (line[n - 1] == '\n') {
            l.len--;
            l.newline = true;
        }
        if (out)
            put_line(out, mark, &l);
        from += n;
        count++;
    }
    free(line);
    return count;
}

/* Writes the middle as one hunk: everything old out, everything new in (a middle too
 * large to search for the shortest edit), with the context around it from the old side. */
static void stream_hunk(FILE *out, struct file_side *a, struct file_side *b, off_t a_from, size_t base)
{
    size_t before = lines_of(NULL, a->fp, a_from, a->prefix_end, ' ');
    size_t del = lines_of(NULL, a->fp, a->prefix_end, a->middle_end, '-');
    size_t add = lines_of(NULL, b->fp, b->prefix_end, b->middle_end, '+');
    size_t after = lines_of(NULL, a->fp, a->middle_end, -1, ' ');
    size_t a_count = before + del + after, b_count = before + add + after;

    fprintf(out, "@@ -%zu,%zu +%zu,%zu @@\n", base + (a_count ? 1 : 0), a_count, base + (b_count ? 1 : 0),
            b_count);
    lines_of(out, a->fp, a_from, a->prefix_end, ' ');
    lines_of(out, a->fp, a->prefix_end, a->middle_end, '-');
    lines_of(out, b->fp, b->prefix_end, b->middle_end, '+');
    lines_of(out, a->fp, a->middle_end, -1, ' ');
}

int textdiff_files(FILE *out, const char *a_name, FILE *a, const char *b_name, FILE *b)
{
    struct file_side A = {.fp = a}, B = {.fp = b};
    size_t ctx = 0, alen = 0, blen = 0;
    off_t a_from, b_from;
    char *ta = NULL, *tb = NULL;
    struct lines la = {0}, lb = {0};
    int rc = -1;

    if (fseeko(a, 0, SEEK_END) != 0 || fseeko(b, 0, SEEK_END) != 0)
        return -1;
    A.size = ftello(a);
    B.size = ftello(b);
    if (common_prefix(&A, &B) != 0)
        return -1;
    if (A.prefix_end == A.size && B.prefix_end == B.size)
        return 0;
    if (common_suffix(&A, &B) != 0)
        return -1;
    /* up to CONTEXT prefix lines go along, as context */
    ctx = A.lines_before < CONTEXT ? A.lines_before : CONTEXT;
    a_from = ctx ? A.ctx[(A.lines_before - ctx) % CONTEXT] : A.prefix_end;
    b_from = ctx ? B.ctx[(B.lines_before - ctx) % CONTEXT] : B.prefix_end;
    fprintf(out, "--- %s\n+++ %s\n", a_name, b_name);
    if (A.middle_end - a_from > TEXTDIFF_FILE_MIDDLE || B.middle_end - b_from > TEXTDIFF_FILE_MIDDLE) {
        stream_hunk(out, &A, &B, a_from, A.lines_before - ctx);
        rc = ferror(a) || ferror(b) ? -1 : 1;
        goto done;
    }
    if (!(ta = read_span(a, a_from, A.middle_end, &alen)) || !(tb = read_span(b, b_from, B.middle_end, &blen)) ||
        split(ta, alen, &la) != 0 || split(tb, blen, &lb) != 0)
        goto done;
    rc = hunks(out, &la, &lb, A.lines_before - ctx, B.lines_before - ctx, FILE_EDIT) == 0 ? 1 : -1;
done:
    free(ta);
    free(tb);
    free(la.v);
    free(lb.v);
    return rc;
}
