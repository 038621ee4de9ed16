#define _GNU_SOURCE /* fopencookie: the rendering's text is hashed as it is written */
#include "fanout/pipediff.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/dialect.h"
#include "fanout/strhash.h"
#include "fanout/xsort.h"
#include "fanout/ynode.h"
#include "fanout/yscalar.h"

/* How it stays bounded: each side is rendered into a sink that writes every step's
 * comparable fields (as the one-line texts a report shows) to a spool file and one
 * fixed-size record per step to an external sort. The records are grouped into logical
 * steps (shards together) in key order, ranked by their order in the rendering, and the
 * two sides are merge-joined by identity; only the steps whose digests differ are read
 * back from the spools. Findings are written to a third spool and sorted back into the
 * order a reader expects. Memory: the sorts' budgets, and 12 bytes per matched step for
 * finding the moves. */

#define VALUE_MAX 160 /* characters of a value shown in a message */
#define STR_(x) #x
#define STR(x) STR_(x)
#define SORT_BUDGET (1u << 20)
#define AMD_PREFIX "amd-"

/* ---------- values on one line ---------- */

struct text {
    char buf[VALUE_MAX + 32]; /* the value, "...", a digest */
    size_t len;
    bool cut;
};

static void text_add(struct text *t, const char *s, size_t n)
{
    if (t->len + n > VALUE_MAX) {
        n = VALUE_MAX > t->len ? VALUE_MAX - t->len : 0;
        t->cut = true;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

/* A node on one line, in YAML flow style. */
static void flow(struct text *t, const struct ynode *n)
{
    size_t len;
    const char *s;

    if (!n) {
        text_add(t, "null", 4);
    } else if (ynode_is_map(n)) {
        text_add(t, "{", 1);
        for (size_t i = 0; i < ynode_len(n) && !t->cut; i++) {
            if (i)
                text_add(t, ", ", 2);
            flow(t, ynode_key(n, i));
            text_add(t, ": ", 2);
            flow(t, ynode_value(n, i));
        }
        text_add(t, "}", 1);
    } else if (ynode_is_seq(n)) {
        text_add(t, "[", 1);
        for (size_t i = 0; i < ynode_len(n) && !t->cut; i++) {
            if (i)
                text_add(t, ", ", 2);
            flow(t, ynode_item(n, i));
        }
        text_add(t, "]", 1);
    } else {
        s = ynode_scalar(n, &len);
        if (ynode_is_string(n) && (yscalar_style(s, len, true) != YS_PLAIN || memchr(s, ',', len))) {
            text_add(t, "\"", 1);
            for (size_t i = 0; i < len && !t->cut; i++) {
                if (s[i] == '\n')
                    text_add(t, "\\n", 2);
                else if (s[i] == '"' || s[i] == '\\') {
                    text_add(t, "\\", 1);
                    text_add(t, s + i, 1);
                } else {
                    text_add(t, s + i, 1);
                }
            }
            text_add(t, "\"", 1);
        } else {
            text_add(t, s, len);
        }
    }
}

static void show(struct text *t, const struct ynode *n)
{
    memset(t, 0, sizeof(*t));
    flow(t, n);
    if (t->cut)
        strcat(t->buf, "...");
}

/* ---------- a step's comparable fields, serialized ----------
 * Entries: a type byte, the name, the value (each a 32-bit length and its bytes).
 * FIELD is a step field's value as shown; ENV one entry of its env (the shard variables
 * left out: they show up as a re-sharding); SUB one item of a job's `steps` (a workflow
 * job's steps, named by step_name) as shown, SUBFIELD each of its fields ("<step>\x1f<field>":
 * a scalar's whole text, else the value as shown and "\x1f<digest>"); STEP a whole step
 * that is not a mapping. */

enum entry_type { E_FIELD, E_ENV, E_STEP, E_SUB, E_SUBFIELD };

#define SHARD_VAR_PREFIX "BUILDKITE_PARALLEL_JOB"

struct blob {
    char *buf;
    size_t len, cap;
};

static int blob_add(struct blob *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        char *grown;

        while (cap < b->len + n)
            cap *= 2;
        if (!(grown = realloc(b->buf, cap)))
            return -1;
        b->buf = grown;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, p, n);
    b->len += n;
    return 0;
}

static int blob_str(struct blob *b, const char *s, size_t n)
{
    uint32_t len = (uint32_t)n;

    return blob_add(b, &len, sizeof(len)) == 0 && blob_add(b, s, n) == 0 ? 0 : -1;
}

static int blob_entry(struct blob *b, enum entry_type type, const char *name, size_t nlen,
                      const char *value)
{
    uint8_t t = (uint8_t)type;

    return blob_add(b, &t, 1) == 0 && blob_str(b, name, nlen) == 0 &&
                   blob_str(b, value, strlen(value)) == 0
               ? 0
               : -1;
}

static bool is_identity(const char *name, size_t len)
{
    return (len == 3 && !memcmp(name, "key", 3)) || (len == 2 && !memcmp(name, "id", 2)) ||
           (len == 10 && !memcmp(name, "identifier", 10));
}

#define FNV_PRIME 0x100000001b3ull

/* A digest of a whole value: the values shown are cut at VALUE_MAX, and a change past
 * the cut must still count. */
static uint64_t node_hash(const struct ynode *n, uint64_t h)
{
    size_t len;
    const char *t;
    bool quoted;

    if (!n)
        return (h ^ 'n') * FNV_PRIME;
    if (ynode_is_map(n) || ynode_is_seq(n)) {
        h = (h ^ (ynode_is_map(n) ? '{' : '[')) * FNV_PRIME;
        for (size_t i = 0; i < ynode_len(n); i++) {
            if (ynode_is_map(n))
                h = node_hash(ynode_key(n, i), h);
            h = node_hash(ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i), h);
        }
        return (h ^ '}') * FNV_PRIME;
    }
    t = ynode_scalar(n, &len);
    /* a string that reads the same written plain is the same value as that plain scalar
     * (a rendering writes `"x"` as x) */
    quoted = ynode_is_string(n) && yscalar_style(t, len, false) != YS_PLAIN;
    return ((h ^ (quoted ? 's' : 'p')) * FNV_PRIME ^ strhash_fnv1a(t, len)) * FNV_PRIME;
}

static uint64_t entry_hash(const char *name, size_t len, const struct ynode *v, uint64_t salt)
{
    return node_hash(v, strhash_fnv1a(name, len)) * salt;
}

/* What a reviewer calls an item of a job's steps: its name, else its id, its action, the
 * first line of its script, else its place. */
static void step_name(char *buf, size_t cap, const struct ynode *step, size_t index)
{
    static const char *const keys[] = {"name", "id", "uses", "run", NULL};
    struct ynode *v = NULL;
    size_t len;
    const char *key = ynode_get_any(step, keys, &v), *t = ynode_scalar(v, &len);

    if (!t || !len) {
        snprintf(buf, cap, "#%zu", index + 1);
        return;
    }
    if (memchr(t, '\n', len))
        len = (size_t)((const char *)memchr(t, '\n', len) - t);
    if (len > 60)
        len = 60;
    snprintf(buf, cap, strcmp(key, "name") == 0 ? "\"%.*s\"" : "%.*s", (int)len, t);
}

static int serialize_step_field(struct blob *b, const char *step, const struct ynode *key,
                                const struct ynode *value)
{
    char name[200], *v;
    size_t len;
    const char *k = ynode_scalar(key, &len), *text = ynode_scalar(value, NULL);
    struct text t;
    int rc;

    snprintf(name, sizeof(name), "%s\x1f%.*s", step, (int)(len > 100 ? 100 : len), k ? k : "");
    if (text)
        return blob_entry(b, E_SUBFIELD, name, strlen(name), text);
    show(&t, value);
    if (!(v = malloc(strlen(t.buf) + 20)))
        return -1;
    sprintf(v, "%s\x1f%016llx", t.buf, (unsigned long long)node_hash(value, 0));
    rc = blob_entry(b, E_SUBFIELD, name, strlen(name), v);
    free(v);
    return rc;
}

/* The SUB entries of a job's steps; a repeated name gets " #2", " #3"... */
static int serialize_steps(struct blob *b, const struct ynode *steps, uint64_t *h)
{
    char (*names)[80] = calloc(ynode_len(steps) ? ynode_len(steps) : 1, sizeof(*names));
    struct text t;
    int rc = 0;

    if (!names)
        return -1;
    for (size_t i = 0; i < ynode_len(steps) && rc == 0; i++) {
        const struct ynode *step = ynode_item(steps, i);
        unsigned seen = 1;

        step_name(names[i], sizeof(names[i]) - 8, step, i);
        for (size_t k = 0; k < i; k++)
            seen += strncmp(names[k], names[i], strlen(names[i])) == 0 &&
                    (names[k][strlen(names[i])] == '\0' || names[k][strlen(names[i])] == ' ');
        if (seen > 1)
            snprintf(names[i] + strlen(names[i]), 8, " #%u", seen % 100000);
        show(&t, step);
        rc = blob_entry(b, E_SUB, names[i], strlen(names[i]), t.buf);
        *h ^= entry_hash(names[i], strlen(names[i]), step, 0xC2B2AE3D27D4EB4Full);
        for (size_t f = 0; rc == 0 && ynode_is_map(step) && f < ynode_len(step); f++)
            rc = serialize_step_field(b, names[i], ynode_key(step, f), ynode_value(step, f));
    }
    free(names);
    return rc;
}

static bool is_name(const char *name, size_t len, const char *want)
{
    return len == strlen(want) && !memcmp(name, want, len);
}

/* The entries of `step`; *digest covers those that decide whether it changed. */
static int serialize(struct blob *b, const struct ynode *step, uint64_t *digest)
{
    uint64_t h = 0xcbf29ce484222325ull;
    struct text t;

    b->len = 0;
    if (!ynode_is_map(step)) {
        show(&t, step);
        if (blob_entry(b, E_STEP, "", 0, t.buf) != 0)
            return -1;
        *digest = node_hash(step, h);
        return 0;
    }
    for (size_t i = 0; i < ynode_len(step); i++) {
        size_t len;
        const char *name = ynode_scalar(ynode_key(step, i), &len);
        const struct ynode *v = ynode_value(step, i);

        if (len > 100)
            len = 100;
        show(&t, v);
        if (t.cut) /* the digest of the whole value tells a change past the cut */
            snprintf(t.buf + strlen(t.buf), sizeof(t.buf) - strlen(t.buf), "\x1f%016llx",
                     (unsigned long long)node_hash(v, 0));
        if (blob_entry(b, E_FIELD, name, len, t.buf) != 0)
            return -1;
        /* a job's steps count one by one, the env by its entries, the identity not at all */
        if (is_name(name, len, "steps") && ynode_is_seq(v)) {
            if (serialize_steps(b, v, &h) != 0)
                return -1;
            continue;
        }
        if (!is_identity(name, len) && !is_name(name, len, "env"))
            h ^= entry_hash(name, len, v, 0x9E3779B97F4A7C15ull + i);
        if (!is_name(name, len, "env") || !ynode_is_map(v))
            continue;
        for (size_t e = 0; e < ynode_len(v); e++) {
            size_t elen;
            const char *ename = ynode_scalar(ynode_key(v, e), &elen);

            if (!strncmp(ename, SHARD_VAR_PREFIX, strlen(SHARD_VAR_PREFIX)))
                continue;
            if (elen > 100)
                elen = 100;
            show(&t, ynode_value(v, e));
            if (blob_entry(b, E_ENV, ename, elen, t.buf) != 0)
                return -1;
            h ^= entry_hash(ename, elen, ynode_value(v, e), 0xD6E8FEB86659FD93ull);
        }
    }
    *digest = h;
    return 0;
}

struct entry {
    enum entry_type type;
    const char *name, *value; /* NUL-terminated copies in the entries' buffer */
};

struct entries {
    struct entry *v;
    size_t n;
    char *text;
};

/* Reads `len` bytes of entries at `off` of `spool`. */
static int entries_read(FILE *spool, uint64_t off, uint32_t len, struct entries *es)
{
    char *raw = malloc(len ? len : 1), *p;
    size_t cap = 0;

    memset(es, 0, sizeof(*es));
    if (!raw || fseeko(spool, (off_t)off, SEEK_SET) != 0 || fread(raw, 1, len, spool) != len) {
        free(raw);
        return -1;
    }
    /* names and values NUL-terminated in place: each is followed by a length or the end,
     * so shift them one byte left over their length prefix */
    es->text = raw;
    for (p = raw; p < raw + len;) {
        struct entry e;
        uint32_t n;
        char *s;

        e.type = (enum entry_type)(uint8_t)*p++;
        for (int part = 0; part < 2; part++) {
            memcpy(&n, p, sizeof(n));
            s = p;
            memmove(s, p + sizeof(n), n);
            s[n] = '\0';
            if (part == 0)
                e.name = s;
            else
                e.value = s;
            p += sizeof(n) + n;
        }
        if (es->n == cap) {
            struct entry *v = realloc(es->v, (cap = cap ? cap * 2 : 16) * sizeof(*v));

            if (!v)
                return -1;
            es->v = v;
        }
        es->v[es->n++] = e;
    }
    return 0;
}

static void entries_free(struct entries *es)
{
    free(es->v);
    free(es->text);
}

static const struct entry *entry_find(const struct entries *es, enum entry_type type,
                                      const char *name)
{
    for (size_t i = 0; i < es->n; i++) {
        if (es->v[i].type == type && strcmp(es->v[i].name, name) == 0)
            return &es->v[i];
    }
    return NULL;
}

/* ---------- a side: the sink that records a rendering ---------- */

struct hkey {
    uint64_t h1, h2;
};

static int hkey_cmp(const struct hkey *a, const struct hkey *b)
{
    if (a->h1 != b->h1)
        return a->h1 < b->h1 ? -1 : 1;
    return a->h2 < b->h2 ? -1 : a->h2 > b->h2;
}

/* A rendered step (groups flattened), or a marker saying that a step whose identity
 * prefixed with "amd-" is `id` exists (for naming an AMD mirror by its parent). */
enum { REC_MARK = 0, REC_STEP = 1 };

struct step_rec {
    struct hkey id;
    uint32_t kind, seq;
    uint32_t shard, shards;
    uint64_t digest;
    uint64_t data_off; /* the entries */
    uint64_t id_off;   /* the identity's text */
    uint64_t label_off; /* the configuration's label (a matrix job's values), if any */
    uint64_t row_off;   /* and its values by name (row_text) */
    uint32_t data_len, id_len, label_len, row_len;
};

static int step_rec_cmp(const void *pa, const void *pb)
{
    const struct step_rec *a = pa, *b = pb;
    int c = hkey_cmp(&a->id, &b->id);

    if (c)
        return c;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* One job of a logical step, in the side's shard spool (`shards` of them in a row). */
struct shard_tuple {
    uint64_t digest, data_off, label_off, row_off;
    uint32_t data_len, label_len, row_len;
};

/* A logical step: a step as written, its shards together. */
struct logical {
    struct hkey lid;   /* the identity, with the repeat number */
    uint32_t first;    /* seq of its first step */
    uint32_t rank;     /* its place among the logical steps of its rendering */
    uint32_t shards, repeat;
    uint32_t parent;   /* the step "amd-" took its name from exists on this side */
    uint32_t matrix;   /* its jobs are a matrix's configurations, told apart by label */
    uint32_t id_len;
    uint64_t id_off;
    uint64_t tuples_off; /* its shards' tuples in the shard spool */
};

static int by_first(const void *pa, const void *pb)
{
    const struct logical *a = pa, *b = pb;

    return a->first < b->first ? -1 : a->first > b->first;
}

static int by_lid(const void *pa, const void *pb)
{
    const struct logical *a = pa, *b = pb;
    int c = hkey_cmp(&a->lid, &b->lid);

    return c ? c : by_first(pa, pb);
}

struct side {
    const char *name;
    const struct dialect *dialect;
    struct diag *diag;
    FILE *hasher;          /* writes into `digest` */
    struct emitter *text;  /* the canonical text, written to `hasher` */
    FILE *spool;
    uint64_t spool_len;
    struct xsort *steps;
    uint32_t seq;
    struct strhash_stream digest; /* of the whole rendering's text */
    struct blob blob;
    bool failed;
    struct xsort *logicals; /* by lid, after grouping */
    FILE *shards;           /* the logical steps' shard tuples */
    uint64_t shards_len;
};

static int spool_write(struct side *s, const void *p, size_t n, uint64_t *off)
{
    *off = s->spool_len;
    if (n && fwrite(p, 1, n, s->spool) != n)
        return -1;
    s->spool_len += n;
    return 0;
}

static ssize_t hash_write(void *user, const char *buf, size_t n)
{
    struct side *s = user;

    strhash_stream_add(&s->digest, buf, n);
    return (ssize_t)n;
}

/* A configuration's values as "name=value" texts, each ended by a 0x1e byte (a value
 * that is no scalar reads "..."). */
static int row_text(struct blob *b, const struct ynode *row)
{
    static const char sep = 0x1e;

    for (size_t k = 0; k < ynode_len(row); k++) {
        size_t kl, vl;
        const char *key = ynode_scalar(ynode_key(row, k), &kl), *v = ynode_scalar(ynode_value(row, k), &vl);

        if (!v)
            v = "...", vl = 3;
        if (blob_add(b, key, kl) != 0 || blob_add(b, "=", 1) != 0 || blob_add(b, v, vl) != 0 ||
            blob_add(b, &sep, 1) != 0)
            return -1;
    }
    return 0;
}

static int record_step(void *user, const struct dialect_job *job)
{
    struct side *s = user;
    const struct ynode *step = job->node;
    const char *id = job->id;
    size_t len = job->id_len;
    struct step_rec r;
    char *prefixed;

    memset(&r, 0, sizeof(r));
    r.kind = REC_STEP;
    r.seq = s->seq++;
    r.shard = job->shard;
    r.shards = job->shards;
    strhash_pair(id, len, &r.id.h1, &r.id.h2);
    if (spool_write(s, id, len, &r.id_off) != 0)
        return -1;
    r.id_len = (uint32_t)len;
    if (serialize(&s->blob, step, &r.digest) != 0 ||
        spool_write(s, s->blob.buf, s->blob.len, &r.data_off) != 0)
        return -1;
    r.data_len = (uint32_t)s->blob.len;
    if (job->label) {
        r.label_len = (uint32_t)strlen(job->label);
        if (spool_write(s, job->label, r.label_len, &r.label_off) != 0)
            return -1;
    }
    if (job->row && job->label) {
        s->blob.len = 0;
        if (row_text(&s->blob, job->row) != 0 || spool_write(s, s->blob.buf, s->blob.len, &r.row_off) != 0)
            return -1;
        r.row_len = (uint32_t)s->blob.len;
    }
    if (xsort_add(s->steps, &r) != 0)
        return -1;
    /* the marker an "amd-<id>" step is looked up by */
    if (!(prefixed = malloc(len + sizeof(AMD_PREFIX))))
        return -1;
    memcpy(prefixed, AMD_PREFIX, sizeof(AMD_PREFIX) - 1);
    memcpy(prefixed + sizeof(AMD_PREFIX) - 1, id, len);
    memset(&r, 0, sizeof(r));
    r.kind = REC_MARK;
    strhash_pair(prefixed, len + sizeof(AMD_PREFIX) - 1, &r.id.h1, &r.id.h2);
    free(prefixed);
    return xsort_add(s->steps, &r);
}

static int side_item(void *user, const struct stream_item *item)
{
    struct side *s = user;
    const struct ynode *root = item->doc ? ynode_doc_root(item->doc) : NULL;

    /* "the renderings are the same" means the same text, which the emitter decides */
    emit_item(s->text, item);
    if (item->kind != STREAM_STEP)
        return 0;
    if (s->dialect->each_job(root, record_step, s) < 0)
        goto fail;
    return 0;
fail:
    s->failed = true;
    diag_report(s->diag, DIAG_ERROR, DIAG_INPUT, s->name, 0, 0, "io",
                "cannot record the rendering (out of memory or temporary space)");
    return -1;
}

static void side_reset(void *user)
{
    struct side *s = user;
    static const cookie_io_functions_t hashing = {NULL, hash_write, NULL, NULL};

    xsort_destroy(s->steps);
    s->steps = xsort_create(sizeof(struct step_rec), step_rec_cmp, SORT_BUDGET);
    if (s->spool)
        fclose(s->spool);
    s->spool = tmpfile();
    s->spool_len = 0;
    s->seq = 0;
    strhash_stream_init(&s->digest);
    emit_destroy(s->text);
    if (!s->hasher)
        s->hasher = fopencookie(s, "w", hashing);
    s->text = s->hasher ? emit_create(s->hasher, EMIT_YAML, s->dialect->layout) : NULL;
    s->failed = !s->steps || !s->spool || !s->text;
}

static void side_begin(void *user, const struct dialect *dialect)
{
    struct side *s = user;

    s->dialect = dialect;
    side_reset(s);
}

static void side_free(struct side *s)
{
    emit_destroy(s->text);
    if (s->hasher)
        fclose(s->hasher);
    xsort_destroy(s->steps);
    xsort_destroy(s->logicals);
    if (s->spool)
        fclose(s->spool);
    if (s->shards)
        fclose(s->shards);
    free(s->blob.buf);
}

/* The identity of a logical step: its steps' identity and, for the second and later
 * unsharded steps of one identity, the repeat number ("id#2"). */
static struct hkey logical_id(struct hkey id, uint32_t repeat)
{
    struct hkey k = id;

    if (repeat > 1) {
        k.h1 = (k.h1 ^ repeat) * 0x100000001b3ull;
        k.h2 = (k.h2 + repeat) * 0x9E3779B97F4A7C15ull;
    }
    return k;
}

static struct shard_tuple tuple_of(const struct step_rec *r)
{
    struct shard_tuple t = {r->digest, r->data_off, r->label_off, r->row_off, r->data_len, r->label_len, r->row_len};

    return t;
}

/* Writes the shard tuples of `l` (shards of them, by shard index) and adds it. */
static int close_logical(struct side *s, struct logical *l, const struct shard_tuple *tuples,
                         struct xsort *by_seq)
{
    size_t size = (size_t)l->shards * sizeof(*tuples);

    l->tuples_off = s->shards_len;
    if (fwrite(tuples, 1, size, s->shards) != size)
        return -1;
    s->shards_len += size;
    return xsort_add(by_seq, l);
}

static bool grow_tuples(struct shard_tuple **t, size_t *cap, size_t n)
{
    struct shard_tuple *grown;

    if (n <= *cap)
        return true;
    if (!(grown = realloc(*t, (n > *cap * 2 ? n : *cap * 2) * sizeof(*grown))))
        return false;
    *t = grown;
    *cap = n > *cap * 2 ? n : *cap * 2;
    return true;
}

/* Groups the step records into logical steps, ranks them in rendering order and sorts
 * them by identity into s->logicals; every job's digest and entries go to the shard
 * spool, so that matched steps compare shard by shard. */
static int group_side(struct side *s)
{
    struct xsort *by_seq = xsort_create(sizeof(struct logical), by_first, SORT_BUDGET);
    const struct step_rec *r;
    struct logical open = {0}; /* the sharded logical step being gathered */
    struct shard_tuple *tuples = NULL; /* its jobs, by shard index (a matrix's in order) */
    size_t cap_tuples = 0;
    bool have_open = false, parent = false, have_group = false;
    struct hkey group = {0, 0};
    uint32_t repeat = 0, rank = 0;
    const struct logical *l;

    s->logicals = xsort_create(sizeof(struct logical), by_lid, SORT_BUDGET);
    s->shards = tmpfile();
    s->shards_len = 0;
    if (!by_seq || !s->logicals || !s->shards || xsort_finish(s->steps) != 0)
        goto fail;
    while ((r = xsort_next(s->steps)) != NULL) {
        struct logical n;
        struct shard_tuple one;

        if (!have_group || hkey_cmp(&r->id, &group) != 0) {
            if (have_open && close_logical(s, &open, tuples, by_seq) != 0)
                goto fail;
            have_open = false;
            parent = false;
            repeat = 0;
            group = r->id;
            have_group = true;
        }
        if (r->kind == REC_MARK) {
            parent = true;
            continue;
        }
        /* A matrix's configurations are one logical step however many items hold them
         * (a rendering read again has one per job): they come in rendering order. */
        if (r->row_len && have_open && open.matrix) {
            if (!grow_tuples(&tuples, &cap_tuples, open.shards + 1))
                goto fail;
            tuples[open.shards++] = tuple_of(r);
            continue;
        }
        if (r->shards > 1 && have_open && open.shards == r->shards && !open.matrix) {
            if (r->shard < open.shards)
                tuples[r->shard] = tuple_of(r);
            continue;
        }
        memset(&n, 0, sizeof(n));
        n.first = r->seq;
        n.shards = r->row_len ? 1 : r->shards ? r->shards : 1;
        n.matrix = r->row_len != 0;
        n.parent = parent;
        n.id_off = r->id_off;
        n.id_len = r->id_len;
        if (n.shards > 1 || n.matrix) {
            if (have_open && close_logical(s, &open, tuples, by_seq) != 0)
                goto fail;
            if (!grow_tuples(&tuples, &cap_tuples, n.shards))
                goto fail;
            memset(tuples, 0, n.shards * sizeof(*tuples));
            if (n.matrix)
                tuples[0] = tuple_of(r);
            else if (r->shard < n.shards)
                tuples[r->shard] = tuple_of(r);
            n.repeat = 1;
            n.lid = logical_id(r->id, 1);
            open = n;
            have_open = true;
            continue;
        }
        n.repeat = ++repeat;
        n.lid = logical_id(r->id, n.repeat);
        one = tuple_of(r);
        if (close_logical(s, &n, &one, by_seq) != 0)
            goto fail;
    }
    if ((have_open && close_logical(s, &open, tuples, by_seq) != 0) || xsort_failed(s->steps) ||
        xsort_finish(by_seq) != 0 || fflush(s->shards) != 0)
        goto fail;
    while ((l = xsort_next(by_seq)) != NULL) {
        struct logical ranked = *l;

        ranked.rank = rank++;
        if (xsort_add(s->logicals, &ranked) != 0)
            goto fail;
    }
    if (xsort_failed(by_seq) || xsort_finish(s->logicals) != 0)
        goto fail;
    xsort_destroy(by_seq);
    free(tuples);
    return 0;
fail:
    xsort_destroy(by_seq);
    free(tuples);
    return -1;
}

/* ---------- findings ---------- */

enum phase { PH_BASE, PH_HEAD, PH_MOVES };

struct finding_rec {
    uint32_t phase, rank, sub;
    uint32_t len;
    uint64_t off;
};

static int finding_cmp(const void *pa, const void *pb)
{
    const struct finding_rec *a = pa, *b = pb;

    if (a->phase != b->phase)
        return a->phase < b->phase ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->sub < b->sub ? -1 : a->sub > b->sub;
}

/* A matched step, for the moves. */
struct pair_rec {
    uint32_t base_rank, head_rank;
    uint32_t repeat, id_len;
    uint64_t id_off;
};

static int pair_cmp(const void *pa, const void *pb)
{
    const struct pair_rec *a = pa, *b = pb;

    return a->base_rank < b->base_rank ? -1 : a->base_rank > b->base_rank;
}

struct report {
    const struct dialect *dialect; /* the base's: its words for a fan-out */
    enum pd_format format;
    FILE *out;
    unsigned added, removed, changed, moved, resharded;
    bool json_first;
    FILE *spool;         /* the findings' texts */
    uint64_t spool_len;
    struct xsort *findings;
    struct xsort *pairs;
    struct blob blob;
    bool failed;
};

/* Records one finding: `kind`, the step's display id, `detail`, and for a changed field
 * its name and old and new values. */
static void add_finding(struct report *r, enum phase phase, uint32_t rank, uint32_t sub,
                        const char *kind, const char *id, const char *detail, const char *field,
                        const char *old_v, const char *new_v)
{
    const char *parts[6] = {kind, id, detail, field ? field : "", old_v ? old_v : "", new_v ? new_v : ""};
    struct finding_rec f = {phase, rank, sub, 0, r->spool_len};
    uint8_t has_field = field != NULL;

    r->blob.len = 0;
    if (blob_add(&r->blob, &has_field, 1) != 0)
        goto fail;
    for (int i = 0; i < 6; i++) {
        if (blob_str(&r->blob, parts[i], strlen(parts[i])) != 0)
            goto fail;
    }
    f.len = (uint32_t)r->blob.len;
    if (fwrite(r->blob.buf, 1, r->blob.len, r->spool) != r->blob.len || xsort_add(r->findings, &f) != 0)
        goto fail;
    r->spool_len += r->blob.len;
    return;
fail:
    r->failed = true;
}

static const char *sigil(const char *kind)
{
    if (!strcmp(kind, "added"))
        return "+ ";
    if (!strcmp(kind, "removed"))
        return "- ";
    if (!strcmp(kind, "changed"))
        return "~ ";
    return "";
}

/* Writes one finding in the report's format. Text reads "<sigil><id>: <detail>". */
static void print_finding(struct report *r, FILE *md, const char *kind, const char *id,
                          const char *detail, const char *field, const char *old_v, const char *new_v)
{
    char line[1024];

    snprintf(line, sizeof(line), "%s%s: %s", sigil(kind), id, detail);
    switch (r->format) {
    case PD_TEXT:
        fprintf(r->out, "%s\n", line);
        break;
    case PD_GITHUB:
        fprintf(r->out, "::notice title=fanout diff (%s)::", kind);
        diag_write_github_escaped(r->out, line);
        fputc('\n', r->out);
        break;
    case PD_MARKDOWN:
        /* values may hold backticks: fence them with two and a space */
        if (field && (strchr(old_v, '`') || strchr(new_v, '`')))
            fprintf(md, "- %s `%s` **%s**: `` %s `` → `` %s ``\n", kind, id, field, old_v, new_v);
        else if (field)
            fprintf(md, "- %s `%s` **%s**: `%s` → `%s`\n", kind, id, field, old_v, new_v);
        else if (!strncmp(detail, kind, strlen(kind))) /* "added (4 shards)" */
            fprintf(md, "- %s `%s`%s\n", kind, id, detail + strlen(kind));
        else
            fprintf(md, "- %s `%s`: %s\n", kind, id, detail);
        break;
    case PD_JSON:
        fputs(r->json_first ? "\n    {" : ",\n    {", r->out);
        r->json_first = false;
        fputs("\"kind\": ", r->out);
        diag_write_json_string(r->out, kind);
        fputs(", \"step\": ", r->out);
        diag_write_json_string(r->out, id);
        if (field) {
            fputs(", \"field\": ", r->out);
            diag_write_json_string(r->out, field);
            fputs(", \"old\": ", r->out);
            diag_write_json_string(r->out, old_v);
            fputs(", \"new\": ", r->out);
            diag_write_json_string(r->out, new_v);
        }
        fputs(", \"text\": ", r->out);
        diag_write_json_string(r->out, line);
        fputc('}', r->out);
        break;
    }
}

/* Prints the findings in order (to `md` for markdown, which goes under the summary). */
static int print_findings(struct report *r, FILE *md)
{
    const struct finding_rec *f;
    char *buf = NULL;
    size_t cap = 0;

    if (xsort_finish(r->findings) != 0 || fflush(r->spool) != 0)
        return -1;
    while ((f = xsort_next(r->findings)) != NULL) {
        const char *parts[6];
        char *p;

        if (f->len + 1 > cap && !(buf = realloc(buf, cap = f->len + 1)))
            return -1;
        if (fseeko(r->spool, (off_t)f->off, SEEK_SET) != 0 || fread(buf, 1, f->len, r->spool) != f->len) {
            free(buf);
            return -1;
        }
        p = buf + 1;
        for (int i = 0; i < 6; i++) {
            uint32_t n;

            memcpy(&n, p, sizeof(n));
            memmove(p, p + sizeof(n), n);
            p[n] = '\0';
            parts[i] = p;
            p += sizeof(n) + n;
        }
        print_finding(r, md, parts[0], parts[1], parts[2], buf[0] ? parts[3] : NULL, parts[4], parts[5]);
    }
    free(buf);
    return xsort_failed(r->findings) ? -1 : 0;
}

/* ---------- comparing ---------- */

/* The display id of a logical step: its identity, "#n" for a repeat. */
static char *display_id(FILE *spool, uint64_t off, uint32_t len, uint32_t repeat)
{
    char *id = malloc(len + 16);

    if (!id || fseeko(spool, (off_t)off, SEEK_SET) != 0 || fread(id, 1, len, spool) != len) {
        free(id);
        return NULL;
    }
    if (repeat > 1)
        snprintf(id + len, 16, "#%u", repeat);
    else
        id[len] = '\0';
    return id;
}

static void shard_range(char *buf, size_t cap, unsigned from, unsigned to)
{
    if (from + 1 == to)
        snprintf(buf, cap, "shard %u", from);
    else
        snprintf(buf, cap, "shards %u-%u", from, to - 1);
}

/* The shard tuples of `l`; NULL when they cannot be read. */
static struct shard_tuple *read_tuples(struct side *s, const struct logical *l)
{
    struct shard_tuple *t = malloc(l->shards * sizeof(*t));

    if (t && (fseeko(s->shards, (off_t)l->tuples_off, SEEK_SET) != 0 ||
              fread(t, sizeof(*t), l->shards, s->shards) != l->shards)) {
        free(t);
        return NULL;
    }
    return t;
}

/* The label of a job ("part 2"), else "shard <i>"; into buf. */
static const char *job_label(struct side *s, const struct shard_tuple *t, unsigned i, char *buf, size_t cap)
{
    if (t->label_len && t->label_len < cap && fseeko(s->spool, (off_t)t->label_off, SEEK_SET) == 0 &&
        fread(buf, 1, t->label_len, s->spool) == t->label_len) {
        buf[t->label_len] = '\0';
        return buf;
    }
    snprintf(buf, cap, "shard %u", i);
    return buf;
}

/* "id: parallelism A -> B (shards x-y added)"; a matrix names its jobs, "id: matrix A -> B
 * jobs (part 2 removed)"; an AMD mirror reads "parent: mirror amd: A -> B". `more` is the
 * side with more jobs. */
static void report_shards(struct report *r, struct side *more, const struct logical *ml,
                          const char *id, bool parent, unsigned a, unsigned b, uint32_t rank)
{
    char line[512], range[320] = "", label[128];
    unsigned from = a < b ? a : b, to = a < b ? b : a;
    struct shard_tuple *t = read_tuples(more, ml);
    size_t o = 0;

    parent = parent && !strncmp(id, AMD_PREFIX, sizeof(AMD_PREFIX) - 1);
    for (unsigned i = from > 1 ? from : 0; t && t[0].label_len && i < to && o < sizeof(range) - 8; i++)
        o += (size_t)snprintf(range + o, sizeof(range) - o, "%s%s", o ? ", " : "",
                              job_label(more, &t[i], i, label, sizeof(label)));
    if (o)
        snprintf(line, sizeof(line), "%s %u -> %u %s (%s %s)", r->dialect->fanout_field, a, b,
                 r->dialect->fanout_jobs, range, b > a ? "added" : "removed");
    else {
        shard_range(range, sizeof(range), from > 1 ? from : 0, to);
        snprintf(line, sizeof(line), "%s %u -> %u (%s %s)",
                 parent ? "mirror amd:" : r->dialect->fanout_field, a, b, range,
                 b > a ? "added" : "removed");
    }
    free(t);
    r->resharded++;
    add_finding(r, PH_BASE, rank, 0, "shards", parent ? id + sizeof(AMD_PREFIX) - 1 : id, line, NULL,
                NULL, NULL);
}

/* The value of field `name` as shown, "(none)" when the step has no such field. */
static const char *shown(const struct entries *es, const char *name)
{
    const struct entry *e = entry_find(es, E_FIELD, name);

    return e ? e->value : "(none)";
}

/* Whether the env entries (shard variables aside) of a and b agree. */
static bool same_env(const struct entries *a, const struct entries *b)
{
    const struct entries *sides[2] = {a, b};

    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < sides[s]->n; i++) {
            const struct entry *e = &sides[s]->v[i], *other;

            if (e->type != E_ENV)
                continue;
            other = entry_find(sides[!s], E_ENV, e->name);
            if (!other || strcmp(other->value, e->value) != 0)
                return false;
        }
    }
    return true;
}

/* The changes found in one job, before they are reported (a matched step's jobs are
 * compared one by one, then reported once when they all changed alike). */
struct change {
    char *detail, *field, *old_v, *new_v;
};

struct changes {
    struct change *v;
    size_t n, cap;
    bool failed;
};

static void changes_add(struct changes *c, const char *field, const char *old_v, const char *new_v,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void changes_add(struct changes *c, const char *field, const char *old_v, const char *new_v,
                        const char *fmt, ...)
{
    char detail[512];
    struct change *one;
    va_list ap;

    if (c->n == c->cap) {
        struct change *grown = realloc(c->v, (c->cap = c->cap ? c->cap * 2 : 8) * sizeof(*grown));

        if (!grown) {
            c->failed = true;
            return;
        }
        c->v = grown;
    }
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    one = &c->v[c->n];
    one->detail = strdup(detail);
    one->field = strdup(field);
    one->old_v = strdup(old_v);
    one->new_v = strdup(new_v);
    if (!one->detail || !one->field || !one->old_v || !one->new_v) {
        free(one->detail);
        free(one->field);
        free(one->old_v);
        free(one->new_v);
        c->failed = true;
        return;
    }
    c->n++;
}

static void changes_free(struct changes *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].detail);
        free(c->v[i].field);
        free(c->v[i].old_v);
        free(c->v[i].new_v);
    }
    free(c->v);
    memset(c, 0, sizeof(*c));
}

static void field_change(struct changes *c, const struct entries *a, const struct entries *b,
                         const char *name)
{
    const char *old_v, *new_v;

    if (is_identity(name, strlen(name)))
        return;
    if (!strcmp(name, "env") && same_env(a, b))
        return;
    old_v = shown(a, name);
    new_v = shown(b, name);
    if (strcmp(old_v, new_v) != 0) {
        /* as shown: without the digest of a value cut at VALUE_MAX */
        int ol = (int)strcspn(old_v, "\x1f"), nl = (int)strcspn(new_v, "\x1f");
        const char *late = ol == nl && !strncmp(old_v, new_v, (size_t)ol)
                               ? " (they differ after the first " STR(VALUE_MAX) " characters)"
                               : "";
        char o[VALUE_MAX + 8], n[VALUE_MAX + 8];

        snprintf(o, sizeof(o), "%.*s", ol, old_v);
        snprintf(n, sizeof(n), "%.*s", nl, new_v);
        changes_add(c, name, o, n, "%s: %s -> %s%s", name, o, n, late);
    }
}

/* A value of a step's field as a reader sees it: without the digest, and of a text that
 * differs from `other`, the first line that differs; cut at VALUE_MAX. */
static void step_value(char *buf, size_t cap, const char *v, const char *other)
{
    const char *end = strchr(v, '\x1f'), *line = v;
    size_t len = end ? (size_t)(end - v) : strlen(v);

    if (!end && (strchr(v, '\n') || strchr(other, '\n'))) {
        /* the first line that differs */
        while (*line && *other) {
            const char *nl = strchr(line, '\n'), *onl = strchr(other, '\n');
            size_t ll = nl ? (size_t)(nl - line) : strlen(line);
            size_t ol = onl ? (size_t)(onl - other) : strlen(other);

            if (ll != ol || memcmp(line, other, ll) != 0 || !nl || !onl)
                break;
            line = nl + 1;
            other = onl + 1;
        }
        len = strchr(line, '\n') ? (size_t)(strchr(line, '\n') - line) : strlen(line);
        while (len && (*line == ' ' || *line == '\t'))
            line++, len--;
    }
    if (len > VALUE_MAX)
        snprintf(buf, cap, "%.*s...", VALUE_MAX, line);
    else
        snprintf(buf, cap, "%.*s", (int)len, line);
}

/* The fields of step `name` that differ between a and b. */
static void step_field_changes(struct changes *c, const struct entries *a, const struct entries *b,
                               const char *name)
{
    size_t nlen = strlen(name);
    const struct entries *sides[2] = {a, b};

    for (int side = 0; side < 2; side++) {
        for (size_t i = 0; i < sides[side]->n; i++) {
            const struct entry *e = &sides[side]->v[i], *other;
            char field[300], old_v[VALUE_MAX + 8], new_v[VALUE_MAX + 8];
            const char *fa, *fb;

            if (e->type != E_SUBFIELD || strncmp(e->name, name, nlen) != 0 || e->name[nlen] != '\x1f')
                continue;
            other = entry_find(sides[!side], E_SUBFIELD, e->name);
            if (side == 1 && other)
                continue; /* compared from a's side */
            fa = side == 0 ? e->value : other ? other->value : "(none)";
            fb = side == 0 ? (other ? other->value : "(none)") : e->value;
            if (!strcmp(fa, fb))
                continue;
            step_value(old_v, sizeof(old_v), fa, fb);
            step_value(new_v, sizeof(new_v), fb, fa);
            snprintf(field, sizeof(field), "step %s: %s", name, e->name + nlen + 1);
            changes_add(c, field, old_v, new_v, "%s: %s -> %s", field, old_v, new_v);
        }
    }
}

/* A job's steps, one by one: added, removed, changed (field by field). */
static void steps_changes(struct changes *c, const struct entries *a, const struct entries *b)
{
    char field[128];

    for (size_t i = 0; i < a->n; i++) {
        const struct entry *e = &a->v[i];

        if (e->type != E_SUB)
            continue;
        snprintf(field, sizeof(field), "step %s", e->name);
        if (!entry_find(b, E_SUB, e->name))
            changes_add(c, field, e->value, "(none)", "step %s removed", e->name);
        else
            step_field_changes(c, a, b, e->name);
    }
    for (size_t i = 0; i < b->n; i++) {
        const struct entry *e = &b->v[i];

        snprintf(field, sizeof(field), "step %s", e->name);
        if (e->type == E_SUB && !entry_find(a, E_SUB, e->name))
            changes_add(c, field, "(none)", e->value, "step %s added", e->name);
    }
}

static bool has_type(const struct entries *es, enum entry_type type)
{
    for (size_t i = 0; i < es->n; i++) {
        if (es->v[i].type == type)
            return true;
    }
    return false;
}

/* Every field whose value differs (a job's steps one by one). */
static void fields_changes(struct changes *c, const struct entries *a, const struct entries *b)
{
    const struct entry *sa = entry_find(a, E_STEP, ""), *sb = entry_find(b, E_STEP, "");
    bool by_step = has_type(a, E_SUB) || has_type(b, E_SUB);

    if (sa || sb) {
        const char *va = sa ? sa->value : "(a step)", *vb = sb ? sb->value : "(a step)";

        if (!sa || !sb || strcmp(va, vb) != 0)
            changes_add(c, "step", va, vb, "%s -> %s", va, vb);
        return;
    }
    for (size_t i = 0; i < a->n; i++) {
        if (a->v[i].type != E_FIELD)
            continue;
        if (by_step && !strcmp(a->v[i].name, "steps"))
            steps_changes(c, a, b);
        else
            field_change(c, a, b, a->v[i].name);
    }
    for (size_t i = 0; i < b->n; i++) {
        if (b->v[i].type != E_FIELD || entry_find(a, E_FIELD, b->v[i].name))
            continue;
        if (by_step && !strcmp(b->v[i].name, "steps"))
            steps_changes(c, a, b);
        else
            field_change(c, a, b, b->v[i].name);
    }
}

/* Whether every job changed in the same fields (then the step is reported once). */
static bool alike(const struct changes *c, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        if (c[i].n != c[0].n)
            return false;
        for (size_t k = 0; k < c[i].n; k++) {
            if (strcmp(c[i].v[k].field, c[0].v[k].field) != 0)
                return false;
        }
    }
    return true;
}

static void report_changes(struct report *r, const char *id, uint32_t rank, uint32_t *sub,
                           const struct changes *c)
{
    for (size_t k = 0; k < c->n; k++)
        add_finding(r, PH_BASE, rank, (*sub)++, "changed", id, c->v[k].detail, c->v[k].field,
                    c->v[k].old_v, c->v[k].new_v);
}

/* Compares the n jobs both sides have: base job pairs[k][0] with head job pairs[k][1]. */
static void compare_jobs(struct report *r, struct side *base, struct side *head, const struct shard_tuple *tb,
                         const struct shard_tuple *th, const unsigned (*pairs)[2], unsigned n,
                         uint32_t rank, const char *id)
{
    struct changes *c = calloc(n ? n : 1, sizeof(*c));
    uint32_t sub = 1;
    bool any = false;

    if (!c) {
        r->failed = true;
        return;
    }
    for (unsigned k = 0; k < n && !r->failed; k++) {
        const struct shard_tuple *x = &tb[pairs[k][0]], *y = &th[pairs[k][1]];
        struct entries ea, eb;

        if (x->digest == y->digest && x->data_len == y->data_len)
            continue;
        if (entries_read(base->spool, x->data_off, x->data_len, &ea) != 0 ||
            entries_read(head->spool, y->data_off, y->data_len, &eb) != 0)
            r->failed = true;
        else
            fields_changes(&c[k], &ea, &eb);
        entries_free(&ea);
        entries_free(&eb);
        r->failed |= c[k].failed;
        any |= c[k].n > 0;
    }
    if (!any || r->failed)
        goto done;
    r->changed++;
    if (alike(c, n)) {
        report_changes(r, id, rank, &sub, &c[0]);
        goto done;
    }
    for (unsigned k = 0; k < n; k++) {
        char label[128], *qualified;

        if (!c[k].n)
            continue;
        job_label(base, &tb[pairs[k][0]], pairs[k][0], label, sizeof(label));
        if (!(qualified = malloc(strlen(id) + strlen(label) + 4))) {
            r->failed = true;
            break;
        }
        sprintf(qualified, "%s (%s)", id, label);
        report_changes(r, qualified, rank, &sub, &c[k]);
        free(qualified);
    }
done:
    for (unsigned k = 0; k < n; k++)
        changes_free(&c[k]);
    free(c);
}

/* A spooled text (a label or a row) into a malloc'd string; NULL when out of memory. */
static char *spooled(struct side *s, uint64_t off, uint32_t len)
{
    char *t = malloc((size_t)len + 1);

    if (t && len && (fseeko(s->spool, (off_t)off, SEEK_SET) != 0 || fread(t, 1, len, s->spool) != len)) {
        free(t);
        return NULL;
    }
    if (t)
        t[len] = '\0';
    return t;
}

/* Whether row text `row` (row_text) has the pair `pair` ("name=value"). */
static bool row_has(const char *row, const char *pair, size_t len)
{
    for (const char *p = row; *p; p = strchr(p, 0x1e) + 1) {
        if ((size_t)(strchr(p, 0x1e) - p) == len && !memcmp(p, pair, len))
            return true;
    }
    return false;
}

/* What a side gained in its extra configurations, into buf: the values ("os=windows")
 * that only they have, when every one of them has such a value; else each of them
 * (its label for one dimension, else its values). */
static void configurations_text(char **rows, char **labels, const bool *extra, unsigned n, char **other_rows,
                                unsigned n_other, char *buf, size_t cap)
{
    size_t o = 0;
    bool explained = true;

    buf[0] = '\0';
    /* a value no job of the other side has, in every extra job (one value is the job) */
    for (unsigned i = 0; i < n && explained; i++) {
        const char *first = strchr(rows[i], 0x1e);

        if (!first || !first[1]) {
            explained = false;
            break;
        }
        bool has_new = false;

        for (const char *p = rows[i]; extra[i] && *p && !has_new; p = strchr(p, 0x1e) + 1) {
            size_t len = (size_t)(strchr(p, 0x1e) - p);
            bool seen = false;

            for (unsigned j = 0; j < n_other && !seen; j++)
                seen = row_has(other_rows[j], p, len);
            has_new = !seen;
        }
        explained = !extra[i] || has_new;
    }
    for (unsigned i = 0; i < n && o + 1 < cap; i++) {
        if (!extra[i])
            continue;
        for (const char *p = rows[i]; explained && *p && o + 1 < cap; p = strchr(p, 0x1e) + 1) {
            size_t len = (size_t)(strchr(p, 0x1e) - p);
            bool seen = false;
            char pair[300];

            for (unsigned j = 0; j < n_other && !seen; j++)
                seen = row_has(other_rows[j], p, len);
            snprintf(pair, sizeof(pair), "%.*s", (int)len, p);
            if (!seen && !strstr(buf, pair)) /* once per value */
                o += (size_t)snprintf(buf + o, cap - o, "%s%s", o ? ", " : "", pair);
        }
        if (!explained) {
            char *t = rows[i], *shown = strchr(t, 0x1e) && !strchr(strchr(t, 0x1e) + 1, 0x1e) ? labels[i] : NULL;

            if (shown)
                o += (size_t)snprintf(buf + o, cap - o, "%s%s", o ? ", " : "", shown);
            else {
                o += (size_t)snprintf(buf + o, cap - o, "%s", o ? ", " : "");
                for (const char *p = t; *p && o + 1 < cap; p = strchr(p, 0x1e) + 1)
                    o += (size_t)snprintf(buf + o, cap - o, "%s%.*s", p == t ? "" : " ",
                                          (int)(strchr(p, 0x1e) - p), p);
            }
        }
    }
    if (o >= cap)
        memcpy(buf + cap - 4, "...", 4);
}

/* A matrix on both sides (Buildkite's and GitHub's are both a "matrix" of "jobs"):
 * configurations matched by their values, those of one side only summarised ("matrix
 * 4 -> 6 jobs (os=windows added)"), the others compared. */
static void compare_configurations(struct report *r, struct side *base, struct side *head,
                                   const struct logical *b, const struct logical *h, const char *id)
{
    struct shard_tuple *t[2] = {read_tuples(base, b), read_tuples(head, h)};
    struct side *sides[2] = {base, head};
    unsigned n[2] = {b->shards, h->shards}, (*pairs)[2] = malloc((n[0] + 1) * sizeof(*pairs)), matched = 0;
    char **labels[2] = {calloc(n[0] + 1, sizeof(char *)), calloc(n[1] + 1, sizeof(char *))};
    char **rows[2] = {calloc(n[0] + 1, sizeof(char *)), calloc(n[1] + 1, sizeof(char *))};
    bool *extra[2] = {calloc(n[0] + 1, 1), calloc(n[1] + 1, 1)};
    char gained[2][320];

    if (!t[0] || !t[1] || !pairs || !labels[0] || !labels[1] || !rows[0] || !rows[1] || !extra[0] || !extra[1])
        goto fail;
    for (int k = 0; k < 2; k++) {
        for (unsigned i = 0; i < n[k]; i++) {
            if (!(labels[k][i] = spooled(sides[k], t[k][i].label_off, t[k][i].label_len)) ||
                !(rows[k][i] = spooled(sides[k], t[k][i].row_off, t[k][i].row_len)))
                goto fail;
            extra[k][i] = true;
        }
    }
    for (unsigned j = 0; j < n[1]; j++) {
        for (unsigned i = 0; i < n[0]; i++) {
            if (extra[0][i] && !strcmp(rows[0][i], rows[1][j])) {
                extra[0][i] = extra[1][j] = false;
                pairs[matched][0] = i;
                pairs[matched++][1] = j;
                break;
            }
        }
    }
    if (matched < n[0] || matched < n[1]) {
        char line[720];
        size_t o = (size_t)snprintf(line, sizeof(line), "matrix %u -> %u jobs (", n[0], n[1]);

        configurations_text(rows[1], labels[1], extra[1], n[1], rows[0], n[0], gained[1], sizeof(gained[1]));
        configurations_text(rows[0], labels[0], extra[0], n[0], rows[1], n[1], gained[0], sizeof(gained[0]));
        snprintf(line + o, sizeof(line) - o, "%s%s%s%s%s)", gained[1], *gained[1] ? " added" : "",
                 *gained[1] && *gained[0] ? "; " : "", gained[0], *gained[0] ? " removed" : "");
        r->resharded++;
        add_finding(r, PH_BASE, b->rank, 0, "shards", id, line, NULL, NULL, NULL);
    }
    compare_jobs(r, base, head, t[0], t[1], (const unsigned (*)[2])pairs, matched, b->rank, id);
    goto done;
fail:
    r->failed = true;
done:
    for (int k = 0; k < 2; k++) {
        for (unsigned i = 0; labels[k] && i < n[k]; i++)
            free(labels[k][i]);
        for (unsigned i = 0; rows[k] && i < n[k]; i++)
            free(rows[k][i]);
        free(labels[k]);
        free(rows[k]);
        free(extra[k]);
        free(t[k]);
    }
    free(pairs);
}

static void compare_matched(struct report *r, struct side *base, struct side *head,
                            const struct logical *b, const struct logical *h, bool parent)
{
    char *id = display_id(base->spool, b->id_off, b->id_len, b->repeat);
    struct pair_rec pair = {b->rank, h->rank, b->repeat, b->id_len, b->id_off};

    if (!id || xsort_add(r->pairs, &pair) != 0) {
        free(id);
        r->failed = true;
        return;
    }
    if (b->matrix && h->matrix) {
        compare_configurations(r, base, head, b, h, id);
    } else {
        unsigned n = b->shards < h->shards ? b->shards : h->shards, (*pairs)[2] = malloc((n + 1) * sizeof(*pairs));
        struct shard_tuple *tb = read_tuples(base, b), *th = read_tuples(head, h);

        if (b->shards != h->shards)
            report_shards(r, b->shards > h->shards ? base : head, b->shards > h->shards ? b : h, id,
                          parent, b->shards, h->shards, b->rank);
        for (unsigned k = 0; pairs && k < n; k++)
            pairs[k][0] = pairs[k][1] = k;
        if (pairs && tb && th)
            compare_jobs(r, base, head, tb, th, (const unsigned (*)[2])pairs, n, b->rank, id);
        else
            r->failed = true;
        free(pairs);
        free(tb);
        free(th);
    }
    free(id);
}

static void report_one_side(struct report *r, struct side *s, const struct logical *l, bool added)
{
    char *id = display_id(s->spool, l->id_off, l->id_len, l->repeat);
    const char *kind = added ? "added" : "removed";
    char line[96];

    if (!id) {
        r->failed = true;
        return;
    }
    if (l->shards > 1)
        snprintf(line, sizeof(line), "%s (%u %s)", kind, l->shards, l->matrix ? "matrix jobs" : r->dialect->fanout_jobs);
    else
        snprintf(line, sizeof(line), "%s", kind);
    if (added)
        r->added++;
    else
        r->removed++;
    add_finding(r, added ? PH_HEAD : PH_BASE, l->rank, 0, kind, id, line, NULL, NULL, NULL);
    free(id);
}

/* Merge-joins the two sides' logical steps by identity. */
static void compare(struct report *r, struct side *base, struct side *head)
{
    /* each record stays valid until the next one of its own sort */
    const struct logical *b = xsort_next(base->logicals), *h = xsort_next(head->logicals);

    while (b || h) {
        int c = !b ? 1 : !h ? -1 : hkey_cmp(&b->lid, &h->lid);

        if (c < 0)
            report_one_side(r, base, b, false);
        else if (c > 0)
            report_one_side(r, head, h, true);
        else
            compare_matched(r, base, head, b, h, b->parent || h->parent);
        if (c <= 0)
            b = xsort_next(base->logicals);
        if (c >= 0)
            h = xsort_next(head->logicals);
    }
    if (xsort_failed(base->logicals) || xsort_failed(head->logicals))
        r->failed = true;
}

/* The matched steps outside the longest run that kept its order moved. */
static int report_moves(struct report *r, FILE *base_spool)
{
    uint32_t *head_rank = NULL, *tails = NULL, *prev = NULL, len = 0;
    struct pair_rec *moved_ids = NULL;
    bool *keep = NULL;
    size_t n = 0, cap = 0;
    const struct pair_rec *p;
    int rc = -1;

    if (xsort_finish(r->pairs) != 0)
        return -1;
    while ((p = xsort_next(r->pairs)) != NULL) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            if (!(head_rank = realloc(head_rank, cap * sizeof(*head_rank))) ||
                !(moved_ids = realloc(moved_ids, cap * sizeof(*moved_ids))))
                goto done;
        }
        head_rank[n] = p->head_rank;
        moved_ids[n++] = *p;
    }
    tails = malloc((n + 1) * sizeof(*tails));
    prev = malloc((n + 1) * sizeof(*prev));
    keep = calloc(n + 1, sizeof(*keep));
    if (!tails || !prev || !keep)
        goto done;
    /* longest increasing subsequence of the head ranks (patience sorting) */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t lo = 0, hi = len;

        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;

            if (head_rank[tails[mid]] < head_rank[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        prev[i] = lo ? tails[lo - 1] : UINT32_MAX;
        tails[lo] = i;
        if (lo == len)
            len++;
    }
    for (uint32_t i = len ? tails[len - 1] : UINT32_MAX; i != UINT32_MAX; i = prev[i])
        keep[i] = true;
    for (size_t i = 0; i < n; i++) {
        char line[128], *id;

        if (keep[i])
            continue;
        id = display_id(base_spool, moved_ids[i].id_off, moved_ids[i].id_len, moved_ids[i].repeat);
        if (!id)
            goto done;
        snprintf(line, sizeof(line), "moved (step %u -> %u)", moved_ids[i].base_rank + 1,
                 moved_ids[i].head_rank + 1);
        r->moved++;
        add_finding(r, PH_MOVES, moved_ids[i].base_rank, 0, "moved", id, line, NULL, NULL, NULL);
        free(id);
    }
    rc = 0;
done:
    free(head_rank);
    free(moved_ids);
    free(tails);
    free(prev);
    free(keep);
    return rc;
}

static int render_side(const char *spec, const struct render_opts *opts, struct side *s,
                       struct diag *d)
{
    struct render_sink sink = {side_begin, side_item, side_reset, s};
    struct render_opts o = *opts;
    int rc;

    memset(s, 0, sizeof(*s));
    s->name = spec;
    s->diag = d;
    o.sink = &sink;
    rc = render_paths(&spec, 1, &o, d);
    if (rc != 0)
        return rc;
    if (!s->failed && s->text) {
        emit_finish(s->text);
        emit_flush(s->text);
        fflush(s->hasher);
    }
    if (s->failed || fflush(s->spool) != 0 || ferror(s->spool) || group_side(s) != 0) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, spec, 0, 0, "io",
                    "cannot record the rendering (out of memory or temporary space)");
        return DIAG_INPUT;
    }
    return 0;
}

static void print_summary(struct report *r, bool same, const char *md_text)
{
    switch (r->format) {
    case PD_TEXT:
        fprintf(r->out, "%s%u added, %u removed, %u changed, %u moved, %u re-sharded\n",
                same ? "no changes: " : "", r->added, r->removed, r->changed, r->moved, r->resharded);
        break;
    case PD_GITHUB:
        fprintf(r->out, "::notice title=fanout diff::%u added, %u removed, %u changed, %u moved, %u re-sharded\n",
                r->added, r->removed, r->changed, r->moved, r->resharded);
        break;
    case PD_JSON:
        fprintf(r->out, "%s],\n  \"same\": %s,\n  \"added\": %u,\n  \"removed\": %u,\n  \"changed\": %u,\n"
                        "  \"moved\": %u,\n  \"resharded\": %u\n}\n",
                r->json_first ? "" : "\n  ", same ? "true" : "false", r->added, r->removed, r->changed,
                r->moved, r->resharded);
        break;
    case PD_MARKDOWN:
        fprintf(r->out, "### fanout: pipeline changes\n\n");
        if (same)
            fprintf(r->out, "No change in the rendered pipeline.\n");
        else
            fprintf(r->out, "**%u added, %u removed, %u changed, %u moved, %u re-sharded**\n\n%s",
                    r->added, r->removed, r->changed, r->moved, r->resharded, md_text ? md_text : "");
        break;
    }
}

int pipediff_run(const char *base_spec, const char *head_spec, const struct render_opts *base_opts,
                 const struct render_opts *head_opts, const struct pd_opts *pd, FILE *out, struct diag *d)
{
    struct side base, head;
    struct report r = {.format = pd->format, .out = out, .json_first = true};
    char *md_text = NULL;
    size_t md_len = 0;
    FILE *md = NULL;
    bool same;
    int rc;

    memset(&head, 0, sizeof(head));
    rc = render_side(base_spec, base_opts, &base, d);
    if (rc == 0)
        rc = render_side(head_spec, head_opts, &head, d);
    if (rc != 0) {
        rc = DIAG_INPUT;
        goto done;
    }
    r.dialect = base.dialect;
    r.spool = tmpfile();
    r.findings = xsort_create(sizeof(struct finding_rec), finding_cmp, SORT_BUDGET);
    r.pairs = xsort_create(sizeof(struct pair_rec), pair_cmp, SORT_BUDGET);
    if (!r.spool || !r.findings || !r.pairs)
        goto fail;
    compare(&r, &base, &head);
    if (r.failed || report_moves(&r, base.spool) != 0 || r.failed)
        goto fail;
    same = !(r.added || r.removed || r.changed || r.moved || r.resharded);
    if (same && strhash_stream_digest(&base.digest) != strhash_stream_digest(&head.digest)) {
        /* top-level settings (env, agents, notify...) are outside the steps */
        add_finding(&r, PH_MOVES, UINT32_MAX, 0, "changed", "(pipeline)", "top-level settings changed",
                    NULL, NULL, NULL);
        r.changed++;
        same = false;
    }
    if (pd->format == PD_JSON)
        fputs("{\n  \"changes\": [", out);
    if (pd->format == PD_MARKDOWN && !(md = open_memstream(&md_text, &md_len)))
        goto fail;
    if (print_findings(&r, md ? md : out) != 0)
        goto fail;
    if (md)
        fclose(md);
    md = NULL;
    print_summary(&r, same, md_text);
    rc = same ? 0 : 1;
    goto done;
fail:
    diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, "internal",
                "cannot compare the renderings (out of memory or temporary space)");
    rc = DIAG_INPUT;
done:
    if (md)
        fclose(md);
    free(md_text);
    side_free(&base);
    side_free(&head);
    xsort_destroy(r.findings);
    xsort_destroy(r.pairs);
    if (r.spool)
        fclose(r.spool);
    free(r.blob.buf);
    return rc;
}
