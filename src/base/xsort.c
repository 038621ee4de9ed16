#include "fanout/arrays.h"
#include "fanout/scratch.h"
#include "fanout/xsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct run {
    long offset;     /* file offset of the next unread record */
    size_t left;     /* records of this run still in the file */
    char *buf;
    size_t n, i;     /* records in buf, index of the current one */
};

struct xsort {
    size_t rec_size;
    xsort_cmp cmp;
    xsort_key key; /* NULL: runs are sorted by sort_in_place */
    char *spare;   /* with a key: the radix sort's second buffer */
    size_t budget;
    char *buf;
    size_t n, cap;
    FILE *tmp;
    struct run *runs;
    size_t n_runs, cap_runs;
    bool reading, failed;
    /* merge state */
    size_t *heap; /* run indices, ordered by their current record */
    size_t heap_n;
    char *out;    /* the record handed out last */
    size_t pos;   /* in-memory reading position */
};

struct xsort *xsort_create(size_t rec_size, xsort_cmp cmp, size_t mem_budget)
{
    struct xsort *xs = calloc(1, sizeof(*xs));

    if (!xs)
        return NULL;
    xs->rec_size = rec_size;
    xs->cmp = cmp;
    xs->budget = mem_budget;
    xs->cap = mem_budget / rec_size;
    if (xs->cap < 4)
        xs->cap = 4;
    xs->buf = malloc(xs->cap * rec_size);
    xs->out = malloc(rec_size);
    if (!xs->buf || !xs->out) {
        xsort_destroy(xs);
        return NULL;
    }
    return xs;
}

void xsort_destroy(struct xsort *xs)
{
    if (!xs)
        return;
    for (size_t i = 0; i < xs->n_runs; i++)
        free(xs->runs[i].buf);
    free(xs->runs);
    free(xs->heap);
    free(xs->buf);
    free(xs->spare);
    free(xs->out);
    if (xs->tmp)
        fclose(xs->tmp);
    free(xs);
}

bool xsort_failed(const struct xsort *xs)
{
    return xs->failed;
}

size_t xsort_runs(const struct xsort *xs)
{
    return xs->n_runs;
}

static int fail(struct xsort *xs)
{
    xs->failed = true;
    return -1;
}

int xsort_set_key(struct xsort *xs, xsort_key key)
{
    if (xs->n || !(xs->spare = malloc(xs->cap * xs->rec_size)))
        return fail(xs);
    xs->key = key;
    return 0;
}

/* A record copied in words when its size allows: memcpy of a size known only at run
 * time is a call per record. */
static void copy_rec(char *dst, const char *src, size_t size)
{
    if (size % 8) {
        memcpy(dst, src, size);
        return;
    }
    for (size_t i = 0; i < size; i += 8)
        memcpy(dst + i, src + i, 8);
}

/* The buffer sorted by the key, least significant byte first (a byte that is the same
 * in every key takes no pass), then each run of equal keys by `cmp`. */
static void radix_sort(struct xsort *xs)
{
    size_t count[8][256] = {{0}}, size = xs->rec_size, n = xs->n;
    char *src = xs->buf, *dst = xs->spare;
    uint64_t first;

    if (n == 0)
        return;
    first = xs->key(src);
    for (size_t i = 0; i < n; i++) {
        uint64_t k = xs->key(src + i * size);

        for (unsigned b = 0; b < 8; b++)
            count[b][(k >> (8 * b)) & 255]++;
    }
    for (unsigned b = 0; b < 8; b++) {
        size_t at = 0;
        char *t;

        if (count[b][(first >> (8 * b)) & 255] == n)
            continue;
        for (unsigned d = 0; d < 256; d++) {
            size_t c = count[b][d];

            count[b][d] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++) {
            const char *rec = src + i * size;

            copy_rec(dst + count[b][(xs->key(rec) >> (8 * b)) & 255]++ * size, rec, size);
        }
        t = src;
        src = dst;
        dst = t;
    }
    xs->buf = src;
    xs->spare = dst;
    for (size_t i = 0, j; i < n; i = j) {
        uint64_t k = xs->key(src + i * size);

        for (j = i + 1; j < n && xs->key(src + j * size) == k; j++)
            ;
        if (j - i > 1)
            qsort(src + i * size, j - i, size, xs->cmp);
    }
}

static inline void swap_rec(char *a, char *b, size_t size)
{
    if (size % 8) {
        for (size_t i = 0; i < size; i++) {
            char t = a[i];

            a[i] = b[i];
            b[i] = t;
        }
        return;
    }
    for (size_t i = 0; i < size; i += 8) {
        uint64_t x, y;

        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        memcpy(a + i, &y, 8);
        memcpy(b + i, &x, 8);
    }
}

/* Records [0, n) of `base` as a heap whose root is the greatest, from `i` down. */
static void heap_down(const struct xsort *xs, char *base, size_t n, size_t i)
{
    size_t size = xs->rec_size;

    for (size_t c; (c = 2 * i + 1) < n; i = c) {
        if (c + 1 < n && xs->cmp(base + c * size, base + (c + 1) * size) < 0)
            c++;
        if (xs->cmp(base + i * size, base + c * size) >= 0)
            return;
        swap_rec(base + i * size, base + c * size, size);
    }
}

/* Sorts n records of `base` in place (introsort: quicksort on the median of three,
 * heapsort past 2 log2 n levels, insertion below 16 records). qsort sorted a copy of
 * pointers to them: its scratch, 16 bytes a record, was as many pages again to touch
 * for a key index's records. xs->out holds the pivot, then the record inserted. */
static void sort_in_place(const struct xsort *xs, char *base, size_t n, unsigned depth)
{
    size_t size = xs->rec_size;

    while (n > 16) {
        char *a = base, *m = base + n / 2 * size, *z = base + (n - 1) * size;
        size_t i, j;

        if (depth-- == 0) {
            for (i = n / 2; i-- > 0;)
                heap_down(xs, base, n, i);
            for (i = n - 1; i > 0; i--) {
                swap_rec(base, base + i * size, size);
                heap_down(xs, base, i, 0);
            }
            return;
        }
        if (xs->cmp(m, a) < 0)
            swap_rec(m, a, size);
        if (xs->cmp(z, m) < 0) {
            swap_rec(z, m, size);
            if (xs->cmp(m, a) < 0)
                swap_rec(m, a, size);
        }
        memcpy(xs->out, m, size);
        /* Hoare's partition: [0, j] <= pivot <= [j + 1, n), neither empty */
        for (i = 0, j = n - 1;; i++, j--) {
            while (xs->cmp(base + i * size, xs->out) < 0)
                i++;
            while (xs->cmp(xs->out, base + j * size) < 0)
                j--;
            if (i >= j)
                break;
            swap_rec(base + i * size, base + j * size, size);
        }
        /* the smaller side by recursion, the larger by the loop: log2 n deep at most */
        if (j + 1 < n - j - 1) {
            sort_in_place(xs, base, j + 1, depth);
            base += (j + 1) * size;
            n -= j + 1;
        } else {
            sort_in_place(xs, base + (j + 1) * size, n - j - 1, depth);
            n = j + 1;
        }
    }
    /* insertion: each record out of place goes down once, the others moved up */
    for (size_t i = 1; i < n; i++) {
        size_t k = i;

        if (xs->cmp(base + i * size, base + (i - 1) * size) >= 0)
            continue;
        memcpy(xs->out, base + i * size, size);
        while (k > 0 && xs->cmp(xs->out, base + (k - 1) * size) < 0)
            k--;
        memmove(base + (k + 1) * size, base + k * size, (i - k) * size);
        memcpy(base + k * size, xs->out, size);
    }
}

static void sort_buffer(struct xsort *xs)
{
    size_t i = 1;

    /* records often come in order (a rendering's jobs by place, steps grouped by
     * identity): then a pass of n comparisons leaves them be, and no sort's scratch
     * (qsort's is a copy of them) is touched */
    while (i < xs->n && xs->cmp(xs->buf + (i - 1) * xs->rec_size, xs->buf + i * xs->rec_size) <= 0)
        i++;
    if (i >= xs->n)
        return;
    if (xs->key) {
        radix_sort(xs);
    } else {
        unsigned depth = 0;

        for (size_t n = xs->n; n > 1; n >>= 1)
            depth += 2;
        sort_in_place(xs, xs->buf, xs->n, depth);
    }
}

/* Sorts the buffer and appends it to the temporary file as one run. */
static int spill(struct xsort *xs)
{
    struct run *r;

    if (xs->n == 0)
        return 0;
    if (!xs->tmp && !(xs->tmp = scratch_file()))
        return fail(xs);
    if (xs->n_runs == xs->cap_runs) {
        struct run *runs = array_grow(xs->runs, &xs->cap_runs, xs->n_runs + 1, 8, sizeof(*runs));

        if (!runs)
            return fail(xs);
        xs->runs = runs;
    }
    sort_buffer(xs);
    if (fseek(xs->tmp, 0, SEEK_END) != 0)
        return fail(xs);
    r = &xs->runs[xs->n_runs];
    memset(r, 0, sizeof(*r));
    r->offset = ftell(xs->tmp);
    r->left = xs->n;
    if (r->offset < 0 || fwrite(xs->buf, xs->rec_size, xs->n, xs->tmp) != xs->n)
        return fail(xs);
    xs->n_runs++;
    xs->n = 0;
    return 0;
}

int xsort_add(struct xsort *xs, const void *rec)
{
    if (xs->failed || xs->reading)
        return fail(xs);
    if (xs->n == xs->cap && spill(xs) != 0)
        return -1;
    memcpy(xs->buf + xs->n * xs->rec_size, rec, xs->rec_size);
    xs->n++;
    return 0;
}

/* Reads the next chunk of run `r`; false when it is used up. */
static bool refill(struct xsort *xs, struct run *r, size_t chunk)
{
    size_t want = r->left < chunk ? r->left : chunk;

    r->i = 0;
    r->n = 0;
    if (want == 0)
        return false;
    if (fseek(xs->tmp, r->offset, SEEK_SET) != 0 ||
        fread(r->buf, xs->rec_size, want, xs->tmp) != want) {
        xs->failed = true;
        return false;
    }
    r->n = want;
    r->left -= want;
    r->offset += (long)(want * xs->rec_size);
    return true;
}

static const void *current(const struct xsort *xs, size_t run)
{
    const struct run *r = &xs->runs[run];

    return r->buf + r->i * xs->rec_size;
}

static bool heap_less(const struct xsort *xs, size_t a, size_t b)
{
    return xs->cmp(current(xs, xs->heap[a]), current(xs, xs->heap[b])) < 0;
}

static void sift_down(struct xsort *xs, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i, t;

        if (l < xs->heap_n && heap_less(xs, l, m))
            m = l;
        if (r < xs->heap_n && heap_less(xs, r, m))
            m = r;
        if (m == i)
            return;
        t = xs->heap[i];
        xs->heap[i] = xs->heap[m];
        xs->heap[m] = t;
        i = m;
    }
}

static size_t chunk_records(const struct xsort *xs)
{
    size_t chunk = xs->budget / xs->rec_size / (xs->n_runs ? xs->n_runs : 1);

    return chunk ? chunk : 1;
}

int xsort_finish(struct xsort *xs)
{
    if (xs->failed)
        return -1;
    xs->reading = true;
    if (xs->n_runs == 0) {
        sort_buffer(xs);
        return 0;
    }
    if (spill(xs) != 0)
        return -1;
    /* The merge reuses the budget: one read buffer per run. */
    free(xs->buf);
    free(xs->spare);
    xs->buf = xs->spare = NULL;
    xs->heap = malloc(xs->n_runs * sizeof(*xs->heap));
    if (!xs->heap)
        return fail(xs);
    for (size_t i = 0; i < xs->n_runs; i++) {
        struct run *r = &xs->runs[i];

        r->buf = malloc(chunk_records(xs) * xs->rec_size);
        if (!r->buf || !refill(xs, r, chunk_records(xs)))
            return fail(xs);
        xs->heap[xs->heap_n++] = i;
    }
    for (size_t i = xs->heap_n / 2; i-- > 0;)
        sift_down(xs, i);
    return 0;
}

const void *xsort_next(struct xsort *xs)
{
    struct run *r;

    if (xs->failed || !xs->reading)
        return NULL;
    if (xs->n_runs == 0) {
        if (xs->pos == xs->n)
            return NULL;
        return xs->buf + xs->pos++ * xs->rec_size;
    }
    if (xs->heap_n == 0)
        return NULL;
    r = &xs->runs[xs->heap[0]];
    memcpy(xs->out, current(xs, xs->heap[0]), xs->rec_size);
    if (++r->i == r->n && !refill(xs, r, chunk_records(xs))) {
        if (xs->failed)
            return NULL;
        xs->heap[0] = xs->heap[--xs->heap_n];
    }
    if (xs->heap_n)
        sift_down(xs, 0);
    return xs->out;
}
