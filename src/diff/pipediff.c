#define _GNU_SOURCE /* fopencookie: the rendering's text is hashed as it is written */
#include "fanout/pipediff.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/buildkite.h"
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
#define SORT_BUDGET (1u << 20)
#define AMD_PREFIX "amd-"

/* ---------- values on one line ---------- */

struct text {
    char buf[VALUE_MAX + 8];
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
 * left out: they show up as a re-sharding); STEP a whole step that is not a mapping. */

enum entry_type { E_FIELD, E_ENV, E_STEP };

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

/* The entries of `step`; *digest covers those that decide whether it changed. */
static int serialize(struct blob *b, const struct ynode *step, uint64_t *digest)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t mark;
    struct text t;

    b->len = 0;
    if (!ynode_is_map(step)) {
        show(&t, step);
        if (blob_entry(b, E_STEP, "", 0, t.buf) != 0)
            return -1;
        *digest = strhash_fnv1a(b->buf, b->len);
        return 0;
    }
    for (size_t i = 0; i < ynode_len(step); i++) {
        size_t len;
        const char *name = ynode_scalar(ynode_key(step, i), &len);
        const struct ynode *v = ynode_value(step, i);

        if (len > 100)
            len = 100;
        show(&t, v);
        mark = b->len;
        if (blob_entry(b, E_FIELD, name, len, t.buf) != 0)
            return -1;
        /* the whole env counts through its entries, the identity not at all */
        if (!is_identity(name, len) && !(len == 3 && !memcmp(name, "env", 3)))
            h ^= strhash_fnv1a(b->buf + mark, b->len - mark) * 0x9E3779B97F4A7C15ull + i;
        if (!(len == 3 && !memcmp(name, "env", 3)) || !ynode_is_map(v))
            continue;
        for (size_t e = 0; e < ynode_len(v); e++) {
            size_t elen;
            const char *ename = ynode_scalar(ynode_key(v, e), &elen);

            if (!strncmp(ename, SHARD_VAR_PREFIX, strlen(SHARD_VAR_PREFIX)))
                continue;
            if (elen > 100)
                elen = 100;
            show(&t, ynode_value(v, e));
            mark = b->len;
            if (blob_entry(b, E_ENV, ename, elen, t.buf) != 0)
                return -1;
            h ^= strhash_fnv1a(b->buf + mark, b->len - mark) * 0xD6E8FEB86659FD93ull;
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
    uint64_t data_off; /* the entries (shard 0 and unsharded steps only) */
    uint64_t id_off;   /* the identity's text */
    uint32_t data_len, id_len;
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

/* A logical step: a step as written, its shards together. */
struct logical {
    struct hkey lid;   /* the identity, with the repeat number */
    uint32_t first;    /* seq of its first step */
    uint32_t rank;     /* its place among the logical steps of its rendering */
    uint32_t shards, repeat;
    uint32_t parent;   /* the step "amd-" took its name from exists on this side */
    uint32_t data_len, id_len;
    uint64_t digest, data_off, id_off;
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

static unsigned env_number(const struct ynode *step, const char *name, bool *present)
{
    size_t len;
    const char *t = ynode_scalar(ynode_get(ynode_get(step, "env"), name), &len);
    char buf[16];

    *present = t && len > 0 && len < sizeof(buf);
    if (!*present)
        return 0;
    memcpy(buf, t, len);
    buf[len] = '\0';
    return (unsigned)strtoul(buf, NULL, 10);
}

/* A step's identity: its key without the shard suffix, else its label, else its type;
 * and which shard of how many it is (0 of 1 when not a shard of a keyed step). */
static const char *identify(const struct ynode *step, size_t *len, unsigned *shard, unsigned *shards)
{
    struct ynode *keynode = NULL, *label = NULL;
    bool has_job, has_count;
    unsigned job = env_number(step, "BUILDKITE_PARALLEL_JOB", &has_job);
    unsigned count = env_number(step, "BUILDKITE_PARALLEL_JOB_COUNT", &has_count);
    const char *t;

    *shard = 0;
    *shards = 1;
    ynode_get_any(step, bk_key_keys, &keynode);
    if ((t = ynode_scalar(keynode, len)) != NULL) {
        char suffix[16];
        int sl;

        if (!has_job || !has_count || count <= 1 || job >= count)
            return t;
        sl = snprintf(suffix, sizeof(suffix), "-%u", job);
        if (*len > (size_t)sl && !memcmp(t + *len - sl, suffix, (size_t)sl)) {
            *len -= (size_t)sl;
            *shard = job;
            *shards = count;
        }
        return t;
    }
    ynode_get_any(step, bk_label_keys, &label);
    if ((t = ynode_scalar(label, len)) != NULL)
        return t;
    if ((t = ynode_scalar(step, len)) != NULL)
        return t;
    t = bk_kind_name(bk_step_kind(step));
    *len = strlen(t);
    return t;
}

static int record_step(struct side *s, const struct ynode *step)
{
    struct step_rec r;
    unsigned shard, shards;
    size_t len;
    const char *id = identify(step, &len, &shard, &shards);
    char *prefixed;

    memset(&r, 0, sizeof(r));
    r.kind = REC_STEP;
    r.seq = s->seq++;
    r.shard = shard;
    r.shards = shards;
    strhash_pair(id, len, &r.id.h1, &r.id.h2);
    if (spool_write(s, id, len, &r.id_off) != 0)
        return -1;
    r.id_len = (uint32_t)len;
    if (shard == 0) {
        if (serialize(&s->blob, step, &r.digest) != 0 ||
            spool_write(s, s->blob.buf, s->blob.len, &r.data_off) != 0)
            return -1;
        r.data_len = (uint32_t)s->blob.len;
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
    for (size_t i = 0; i < ynode_len(root); i++) {
        const struct ynode *step = ynode_item(root, i);
        const struct ynode *children = ynode_get(step, "steps");

        if (bk_step_kind(step) == BK_GROUP && ynode_is_seq(children)) {
            for (size_t c = 0; c < ynode_len(children); c++) {
                if (record_step(s, ynode_item(children, c)) != 0)
                    goto fail;
            }
        } else if (record_step(s, step) != 0) {
            goto fail;
        }
    }
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
    s->text = s->hasher ? emit_create(s->hasher, EMIT_YAML) : NULL;
    s->failed = !s->steps || !s->spool || !s->text;
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

/* Groups the step records into logical steps, ranks them in rendering order and sorts
 * them by identity into s->logicals. */
static int group_side(struct side *s)
{
    struct xsort *by_seq = xsort_create(sizeof(struct logical), by_first, SORT_BUDGET);
    const struct step_rec *r;
    struct logical open = {0}; /* the sharded logical step being gathered */
    bool have_open = false, parent = false, have_group = false;
    struct hkey group = {0, 0};
    uint32_t repeat = 0, rank = 0;
    const struct logical *l;

    s->logicals = xsort_create(sizeof(struct logical), by_lid, SORT_BUDGET);
    if (!by_seq || !s->logicals || xsort_finish(s->steps) != 0)
        goto fail;
    while ((r = xsort_next(s->steps)) != NULL) {
        struct logical n;

        if (!have_group || hkey_cmp(&r->id, &group) != 0) {
            if (have_open && xsort_add(by_seq, &open) != 0)
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
        if (r->shards > 1 && have_open && open.shards == r->shards) {
            if (r->shard == 0) {
                open.data_off = r->data_off;
                open.data_len = r->data_len;
                open.digest = r->digest;
            }
            continue;
        }
        memset(&n, 0, sizeof(n));
        n.first = r->seq;
        n.shards = r->shards;
        n.parent = parent;
        n.digest = r->digest;
        n.data_off = r->data_off;
        n.data_len = r->data_len;
        n.id_off = r->id_off;
        n.id_len = r->id_len;
        if (r->shards > 1) {
            if (have_open && xsort_add(by_seq, &open) != 0)
                goto fail;
            n.repeat = 1;
            n.lid = logical_id(r->id, 1);
            open = n;
            have_open = true;
            continue;
        }
        n.repeat = ++repeat;
        n.lid = logical_id(r->id, n.repeat);
        if (xsort_add(by_seq, &n) != 0)
            goto fail;
    }
    if ((have_open && xsort_add(by_seq, &open) != 0) || xsort_failed(s->steps) ||
        xsort_finish(by_seq) != 0)
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
    return 0;
fail:
    xsort_destroy(by_seq);
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

/* "id: parallelism A -> B (shards x-y added)"; an AMD mirror reads "parent: mirror amd: A -> B". */
static void report_shards(struct report *r, const char *id, bool parent, unsigned a, unsigned b,
                          uint32_t rank)
{
    char line[512], range[64];

    parent = parent && !strncmp(id, AMD_PREFIX, sizeof(AMD_PREFIX) - 1);
    if (b > a)
        shard_range(range, sizeof(range), a > 1 ? a : 0, b);
    else
        shard_range(range, sizeof(range), b > 1 ? b : 0, a);
    snprintf(line, sizeof(line), "%s %u -> %u (%s %s)", parent ? "mirror amd:" : "parallelism", a,
             b, range, b > a ? "added" : "removed");
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

static bool report_field(struct report *r, const char *id, uint32_t rank, uint32_t *sub,
                         const struct entries *a, const struct entries *b, const char *name)
{
    const char *old_v, *new_v;
    char line[512];

    if (is_identity(name, strlen(name)))
        return false;
    if (!strcmp(name, "env") && same_env(a, b))
        return false;
    old_v = shown(a, name);
    new_v = shown(b, name);
    if (!strcmp(old_v, new_v))
        return false;
    snprintf(line, sizeof(line), "%s: %s -> %s", name, old_v, new_v);
    add_finding(r, PH_BASE, rank, (*sub)++, "changed", id, line, name, old_v, new_v);
    return true;
}

/* Reports each field whose value differs; true when any did. */
static bool report_fields(struct report *r, const char *id, uint32_t rank, const struct entries *a,
                          const struct entries *b)
{
    const struct entry *sa = entry_find(a, E_STEP, ""), *sb = entry_find(b, E_STEP, "");
    uint32_t sub = 1;
    bool any = false;

    if (sa || sb) {
        const char *va = sa ? sa->value : "(a step)", *vb = sb ? sb->value : "(a step)";
        char line[512];

        if (sa && sb && !strcmp(va, vb))
            return false;
        snprintf(line, sizeof(line), "%s -> %s", va, vb);
        add_finding(r, PH_BASE, rank, sub, "changed", id, line, "step", va, vb);
        return true;
    }
    for (size_t i = 0; i < a->n; i++) {
        if (a->v[i].type == E_FIELD && report_field(r, id, rank, &sub, a, b, a->v[i].name))
            any = true;
    }
    for (size_t i = 0; i < b->n; i++) {
        if (b->v[i].type == E_FIELD && !entry_find(a, E_FIELD, b->v[i].name) &&
            report_field(r, id, rank, &sub, a, b, b->v[i].name))
            any = true;
    }
    return any;
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
    if (b->shards != h->shards)
        report_shards(r, id, parent, b->shards, h->shards, b->rank);
    if (b->digest != h->digest || b->data_len != h->data_len) {
        struct entries ea, eb;

        if (entries_read(base->spool, b->data_off, b->data_len, &ea) != 0 ||
            entries_read(head->spool, h->data_off, h->data_len, &eb) != 0) {
            r->failed = true;
        } else if (report_fields(r, id, b->rank, &ea, &eb)) {
            r->changed++;
        }
        entries_free(&ea);
        entries_free(&eb);
    }
    free(id);
}

static void report_one_side(struct report *r, struct side *s, const struct logical *l, bool added)
{
    char *id = display_id(s->spool, l->id_off, l->id_len, l->repeat);
    const char *kind = added ? "added" : "removed";
    char line[64];

    if (!id) {
        r->failed = true;
        return;
    }
    if (l->shards > 1)
        snprintf(line, sizeof(line), "%s (%u shards)", kind, l->shards);
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
    struct render_sink sink = {side_item, side_reset, s};
    struct render_opts o = *opts;
    int rc;

    memset(s, 0, sizeof(*s));
    s->name = spec;
    s->diag = d;
    side_reset(s);
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

int pipediff_run(const char *base_spec, const char *head_spec, const struct render_opts *opts,
                 enum pd_format format, FILE *out, struct diag *d)
{
    struct side base, head;
    struct report r = {.format = format, .out = out, .json_first = true};
    char *md_text = NULL;
    size_t md_len = 0;
    FILE *md = NULL;
    bool same;
    int rc;

    memset(&head, 0, sizeof(head));
    rc = render_side(base_spec, opts, &base, d);
    if (rc == 0)
        rc = render_side(head_spec, opts, &head, d);
    if (rc != 0) {
        rc = DIAG_INPUT;
        goto done;
    }
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
    if (format == PD_JSON)
        fputs("{\n  \"changes\": [", out);
    if (format == PD_MARKDOWN && !(md = open_memstream(&md_text, &md_len)))
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
