#define _GNU_SOURCE /* fopencookie: values are written as JSON straight into a buffer */
#include "fanout/pipediff.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/dialect.h"
#include "fanout/emit.h"
#include "fanout/inputs.h"
#include "fanout/strhash.h"
#include "fanout/xsort.h"
#include "fanout/ynode.h"
#include "fanout/yscalar.h"

/* How it stays bounded: each side is rendered into a sink that writes every job's
 * comparable fields (as the one-line texts a report shows, and as JSON) to a spool file
 * and one fixed-size record per job to an external sort. The records are grouped into
 * logical steps (shards together) in key order, ranked by their order in the rendering,
 * and the two sides are merge-joined by identity; only the steps whose digests differ
 * are read back from the spools. The steps only one side has go to a file each, and are
 * paired up as renames when there are at most RENAME_MAX of them a side. Findings are
 * written to a third spool and sorted back into the order a reader expects. Memory: the
 * sorts' budgets, the rename candidates' field digests (RENAME_MAX a side at most), and
 * for finding the moves a pair record (pair_rec) and 13 bytes per matched step. */

#define VALUE_MAX 160 /* characters of a value shown in a message */
#define STR_(x) #x
#define STR(x) STR_(x)
#define SORT_BUDGET (1u << 20)
#define AMD_PREFIX "amd-"
#define RENAME_MAX 1000   /* removed and added steps looked at for renames, at most, a side */
#define RENAME_PERCENT 80 /* of the fields either has, at least, alike in both, for a rename */
#define LABEL_MAX 80      /* characters of a label shown */
#define LIST_MAX 8        /* jobs and commands listed under an added step */
#define WHOLE_MAX 40      /* characters of values a compact line shows whole, not by words */
#define FNV_PRIME 0x100000001b3ull

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
        /* a string is shown alike however it was written: a rendering read again has
         * `--a,--b` plain where its source had it quoted */
        if ((ynode_is_string(n) || yscalar_type(s, len) == YS_STRING) &&
            (yscalar_style(s, len, true) != YS_PLAIN || memchr(s, ',', len))) {
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

/* ---------- a job's comparable fields, serialized ----------
 * Entries: a type byte, the name, the value as shown and the value as JSON (each a
 * 32-bit length and its bytes). FIELD is a field's value; QUIET a field left out of the
 * comparison (at its default, or --ignore-field), kept for the job's JSON; ENV one entry
 * of its env (the shard variables left out: they show up as a re-sharding); SUB one item
 * of a job's `steps` (a workflow job's steps, named by step_name), SUBFIELD each of its
 * fields ("<step>\x1f<field>": a scalar's whole text, else the value as shown and
 * "\x1f<digest>"); STEP a whole job that is not a mapping; COMMAND the first line of a
 * command it runs (named "command", "run" or "uses"), for an added step's report. */

enum entry_type { E_FIELD, E_QUIET, E_ENV, E_STEP, E_SUB, E_SUBFIELD, E_COMMAND };

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
                      const char *value, const char *json)
{
    uint8_t t = (uint8_t)type;

    return blob_add(b, &t, 1) == 0 && blob_str(b, name, nlen) == 0 &&
                   blob_str(b, value, strlen(value)) == 0 && blob_str(b, json, strlen(json)) == 0
               ? 0
               : -1;
}

static bool is_identity(const char *name, size_t len)
{
    return (len == 3 && !memcmp(name, "key", 3)) || (len == 2 && !memcmp(name, "id", 2)) ||
           (len == 10 && !memcmp(name, "identifier", 10));
}

static bool is_name(const char *name, size_t len, const char *want)
{
    return len == strlen(want) && !memcmp(name, want, len);
}

/* The length, at most `max`, of the start of s[0..len) that ends on a character's end
 * (a text cut for showing stays UTF-8). */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    while (max && (s[max] & 0xC0) == 0x80)
        max--;
    return max;
}

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
    const char *key = ynode_is_map(step) ? ynode_get_any(step, keys, &v) : NULL, *t = ynode_scalar(v, &len);

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

/* What a reader calls a job: its label (a workflow job's name), else its prompt. */
static const char *job_title(const struct ynode *job, size_t *len)
{
    static const char *const keys[] = {"label", "name", "block", "input", NULL};
    struct ynode *v = NULL;

    if (!ynode_is_map(job))
        return NULL;
    ynode_get_any(job, keys, &v);
    return ynode_scalar(v, len);
}

/* ---------- a side: the sink that records a rendering ---------- */

/* A job a matrix adjustment skips: its identity and values as record_step keeps them,
 * and the adjustment's reason ("" for `skip: true`). */
struct skipped_job {
    char *id, *row, *reason;
};

#define SKIPPED_MAX 4096
#define SKIPPED_BYTES (1u << 20)

struct side {
    const char *name; /* the operand, for messages */
    const struct dialect *dialect;
    const struct pd_opts *pd; /* the fields left out of the comparison */
    struct diag *diag;
    struct inputs in;         /* the files rendered: their names by file number */
    FILE *spool;
    uint64_t spool_len;
    struct xsort *steps;
    uint32_t seq;
    /* a digest of what the rendering holds besides its jobs (top-level settings, groups) */
    uint64_t outside;
    const struct ynode **jobs; /* the current item's jobs, by address */
    size_t n_jobs, cap_jobs;
    struct blob blob;
    struct blob json;          /* a value as JSON, written by `json_em` through `json_file` */
    FILE *json_file;
    struct emitter *json_em;
    bool failed;
    struct xsort *logicals; /* by lid, after grouping */
    FILE *shards;           /* the logical steps' shard tuples */
    uint64_t shards_len;
    FILE *unmatched;        /* the logical steps the other side has not (struct logical) */
    uint32_t n_unmatched;
    /* the jobs its matrices' adjustments skip (at most SKIPPED_MAX of them and about
     * SKIPPED_BYTES of text; past that a skipped job reads as removed) */
    struct skipped_job *skipped;
    size_t n_skipped, skipped_bytes;
    bool skipped_sorted;
};

static ssize_t json_write(void *user, const char *buf, size_t n)
{
    struct side *s = user;

    return blob_add(&s->json, buf, n) == 0 ? (ssize_t)n : -1;
}

/* `n` in JSON on one line, typed as `render --format json` types it (NUL-terminated in
 * s->json); NULL when it cannot be written. */
static const char *json_of(struct side *s, const struct ynode *n)
{
    char *p;
    size_t o = 0;
    bool quoted = false, escaped = false;

    s->json.len = 0;
    emit_node(s->json_em, n);
    emit_flush(s->json_em);
    if (fflush(s->json_file) != 0 || blob_add(&s->json, "", 1) != 0)
        return NULL;
    /* the emitter puts members on lines of their own: outside strings, a line break and
     * the indentation after it go (a space stays after a comma) */
    p = s->json.buf;
    for (size_t i = 0; p[i]; i++) {
        if (quoted) {
            quoted = escaped || p[i] != '"';
            escaped = !escaped && p[i] == '\\';
        } else if (p[i] == '"') {
            quoted = true;
        } else if (p[i] == '\n') {
            while (p[i + 1] == ' ')
                i++;
            if (o && p[o - 1] == ',')
                p[o++] = ' ';
            continue;
        }
        p[o++] = p[i];
    }
    p[o] = '\0';
    return p;
}

/* Values that mean what the field's absence means (the platform's default), so that
 * `soft_fail: false` and no soft_fail are the same job (docs/reference.md's table). */
static const struct {
    const char *field, *value;
} defaults[] = {
    {"soft_fail", "false"}, {"allow_dependency_failure", "false"}, {"cancel_on_build_failing", "false"},
    {"skip", "false"},      {"skip", ""},                          {"priority", "0"},
    {"async", "false"},     {"continue-on-error", "false"},
};

/* Whether field `name` with value `v` is left out of the comparison: at its default, or
 * named by --ignore-field. */
static bool quiet(const struct side *s, const char *name, size_t len, const struct ynode *v)
{
    size_t vlen = 0;
    const char *t = ynode_scalar(v, &vlen);

    for (size_t i = 0; i < s->pd->n_ignore_fields; i++) {
        if (is_name(name, len, s->pd->ignore_fields[i]))
            return true;
    }
    for (size_t i = 0; t && i < sizeof(defaults) / sizeof(*defaults); i++) {
        /* `false` and `0` as written plain: a quoted "false" is a string */
        if (is_name(name, len, defaults[i].field) && is_name(t, vlen, defaults[i].value) &&
            (!vlen || !ynode_is_string(v)))
            return true;
    }
    return false;
}

/* The first line of each command `v` holds (a text, or a list of texts), as COMMAND
 * entries named `what`. */
static int serialize_commands(struct side *s, const char *what, const struct ynode *v)
{
    size_t n = ynode_is_seq(v) ? ynode_len(v) : 1;

    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *t = ynode_scalar(ynode_is_seq(v) ? ynode_item(v, i) : v, &len), *nl;
        char line[VALUE_MAX + 8];
        size_t first;

        if (!t)
            continue;
        nl = memchr(t, '\n', len);
        first = nl ? (size_t)(nl - t) : len;
        /* "..." where the line goes on, " ..." where more lines follow */
        snprintf(line, sizeof(line), "%.*s%s", (int)utf8_cut(t, first, VALUE_MAX), t,
                 first > VALUE_MAX ? "..." : nl && nl + 1 < t + len ? " ..." : "");
        if (blob_entry(&s->blob, E_COMMAND, what, strlen(what), line, "") != 0)
            return -1;
    }
    return 0;
}

static int serialize_step_field(struct side *s, const char *step, const struct ynode *key,
                                const struct ynode *value)
{
    char name[200], *v;
    size_t len;
    const char *k = ynode_scalar(key, &len), *text = ynode_scalar(value, NULL), *json;
    struct text t;
    int rc;

    if (k && quiet(s, k, len, value))
        return 0;
    snprintf(name, sizeof(name), "%s\x1f%.*s", step, (int)(len > 100 ? 100 : len), k ? k : "");
    if (!(json = json_of(s, value)))
        return -1;
    if (text)
        return blob_entry(&s->blob, E_SUBFIELD, name, strlen(name), text, json);
    show(&t, value);
    if (!(v = malloc(strlen(t.buf) + 20)))
        return -1;
    sprintf(v, "%s\x1f%016llx", t.buf, (unsigned long long)node_hash(value, 0));
    rc = blob_entry(&s->blob, E_SUBFIELD, name, strlen(name), v, json);
    free(v);
    return rc;
}

/* The SUB entries of a job's steps; a repeated name gets " #2", " #3"... */
static int serialize_steps(struct side *s, const struct ynode *steps, uint64_t *h)
{
    char (*names)[80] = calloc(ynode_len(steps) ? ynode_len(steps) : 1, sizeof(*names));
    struct text t;
    const char *json;
    int rc = 0;

    if (!names)
        return -1;
    for (size_t i = 0; i < ynode_len(steps) && rc == 0; i++) {
        const struct ynode *step = ynode_item(steps, i), *runs;
        unsigned seen = 1;

        step_name(names[i], sizeof(names[i]) - 8, step, i);
        for (size_t k = 0; k < i; k++)
            seen += strncmp(names[k], names[i], strlen(names[i])) == 0 &&
                    (names[k][strlen(names[i])] == '\0' || names[k][strlen(names[i])] == ' ');
        if (seen > 1)
            snprintf(names[i] + strlen(names[i]), 8, " #%u", seen % 100000);
        show(&t, step);
        rc = (json = json_of(s, step)) ? blob_entry(&s->blob, E_SUB, names[i], strlen(names[i]), t.buf, json) : -1;
        *h ^= entry_hash(names[i], strlen(names[i]), step, 0xC2B2AE3D27D4EB4Full);
        for (size_t f = 0; rc == 0 && ynode_is_map(step) && f < ynode_len(step); f++)
            rc = serialize_step_field(s, names[i], ynode_key(step, f), ynode_value(step, f));
        /* what it runs, for an added job's report */
        if (rc == 0 && (runs = ynode_is_map(step) ? ynode_get(step, "run") : NULL))
            rc = serialize_commands(s, "run", runs);
        else if (rc == 0 && (runs = ynode_is_map(step) ? ynode_get(step, "uses") : NULL))
            rc = serialize_commands(s, "uses", runs);
    }
    free(names);
    return rc;
}

/* The entries of `step` into s->blob; *digest covers those that decide whether it
 * changed. */
static int serialize(struct side *s, const struct ynode *step, uint64_t *digest)
{
    struct blob *b = &s->blob;
    uint64_t h = 0xcbf29ce484222325ull;
    struct text t;
    const char *json;

    b->len = 0;
    if (!ynode_is_map(step)) {
        show(&t, step);
        if (!(json = json_of(s, step)) || blob_entry(b, E_STEP, "", 0, t.buf, json) != 0)
            return -1;
        *digest = node_hash(step, h);
        return 0;
    }
    for (size_t i = 0; i < ynode_len(step); i++) {
        size_t len = 0;
        const char *name = ynode_scalar(ynode_key(step, i), &len);
        const struct ynode *v = ynode_value(step, i);
        bool compared;

        if (!name)
            continue;
        if (len > 100)
            len = 100;
        compared = !quiet(s, name, len, v);
        show(&t, v);
        if (t.cut) /* the digest of the whole value tells a change past the cut */
            snprintf(t.buf + strlen(t.buf), sizeof(t.buf) - strlen(t.buf), "\x1f%016llx",
                     (unsigned long long)node_hash(v, 0));
        if (!(json = json_of(s, v)) || blob_entry(b, compared ? E_FIELD : E_QUIET, name, len, t.buf, json) != 0)
            return -1;
        if ((is_name(name, len, "command") || is_name(name, len, "commands")) &&
            serialize_commands(s, "command", v) != 0)
            return -1;
        if (!compared)
            continue;
        /* a job's steps count one by one, the env by its entries, the identity not at all */
        if (is_name(name, len, "steps") && ynode_is_seq(v)) {
            if (serialize_steps(s, v, &h) != 0)
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

            if (!ename || !strncmp(ename, SHARD_VAR_PREFIX, strlen(SHARD_VAR_PREFIX)))
                continue;
            if (elen > 100)
                elen = 100;
            show(&t, ynode_value(v, e));
            if (!(json = json_of(s, ynode_value(v, e))) || blob_entry(b, E_ENV, ename, elen, t.buf, json) != 0)
                return -1;
            h ^= entry_hash(ename, elen, ynode_value(v, e), 0xD6E8FEB86659FD93ull);
        }
    }
    *digest = h;
    return 0;
}

struct entry {
    enum entry_type type;
    const char *name, *value, *json; /* NUL-terminated copies in the entries' buffer */
};

struct entries {
    struct entry *v;
    size_t n;
    char *text;
};

/* Reads `len` bytes of entries at `off` of `spool`. On failure *es is still freeable. */
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
        const char **parts[3] = {&e.name, &e.value, &e.json};
        uint32_t n;

        e.type = (enum entry_type)(uint8_t)*p++;
        for (int part = 0; part < 3; part++) {
            memcpy(&n, p, sizeof(n));
            memmove(p, p + sizeof(n), n);
            p[n] = '\0';
            *parts[part] = p;
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

/* ---------- recording a side ---------- */

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
    uint64_t title_off; /* the job's own label (job_title), if any */
    uint32_t data_len, id_len, label_len, row_len, title_len;
    uint32_t file, line; /* where it is written */
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
    uint64_t digest, data_off, label_off, row_off, title_off;
    uint32_t data_len, label_len, row_len, title_len;
    uint32_t file, line;
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

static int spool_write(struct side *s, const void *p, size_t n, uint64_t *off)
{
    *off = s->spool_len;
    if (n && fwrite(p, 1, n, s->spool) != n)
        return -1;
    s->spool_len += n;
    return 0;
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
    const char *id = job->id, *title;
    size_t len = job->id_len, title_len = 0;
    struct step_rec r;
    char *prefixed;

    if (s->n_jobs == s->cap_jobs) {
        size_t cap = s->cap_jobs ? s->cap_jobs * 2 : 64;
        const struct ynode **grown = realloc(s->jobs, cap * sizeof(*grown));

        if (!grown)
            return -1;
        s->jobs = grown;
        s->cap_jobs = cap;
    }
    s->jobs[s->n_jobs++] = step;
    memset(&r, 0, sizeof(r));
    r.kind = REC_STEP;
    r.seq = s->seq++;
    r.shard = job->shard;
    r.shards = job->shards;
    r.file = job->pos.file;
    r.line = job->pos.line;
    strhash_pair(id, len, &r.id.h1, &r.id.h2);
    if (spool_write(s, id, len, &r.id_off) != 0)
        return -1;
    r.id_len = (uint32_t)len;
    if (serialize(s, step, &r.digest) != 0 || spool_write(s, s->blob.buf, s->blob.len, &r.data_off) != 0)
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
    if ((title = job_title(step, &title_len)) != NULL) {
        r.title_len = (uint32_t)utf8_cut(title, title_len, 4 * LABEL_MAX);
        if (spool_write(s, title, r.title_len, &r.title_off) != 0)
            return -1;
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

static int by_address(const void *pa, const void *pb)
{
    uintptr_t a = (uintptr_t) * (const struct ynode *const *)pa, b = (uintptr_t) * (const struct ynode *const *)pb;

    return a < b ? -1 : a > b;
}

static bool is_job(const struct side *s, const struct ynode *n)
{
    return s->n_jobs && bsearch(&n, s->jobs, s->n_jobs, sizeof(*s->jobs), by_address);
}

/* A digest of what `n` holds besides the current item's jobs (top-level settings, a
 * group's own fields), *held counting the nodes it covers. The jobs are compared one by
 * one, and whether a default or an ignored field is there must not count here either.
 * A mapping's pairs count in any order: a rendering writes a group's keys its own way. */
static uint64_t outside_hash(const struct side *s, const struct ynode *n, unsigned *held)
{
    uint64_t h;

    if (ynode_is_map(n)) {
        h = '{';
        for (size_t i = 0; i < ynode_len(n); i++) {
            if (is_job(s, ynode_value(n, i)))
                continue;
            ++*held;
            h += (node_hash(ynode_key(n, i), 0) ^ outside_hash(s, ynode_value(n, i), held)) * FNV_PRIME;
        }
        return h;
    }
    if (ynode_is_seq(n)) {
        h = '[';
        for (size_t i = 0; i < ynode_len(n); i++) {
            if (!is_job(s, ynode_item(n, i)))
                h = (h ^ outside_hash(s, ynode_item(n, i), held)) * FNV_PRIME;
        }
        return h;
    }
    ++*held;
    return node_hash(n, 0);
}

static int record_failed(struct side *s)
{
    s->failed = true;
    diag_report(s->diag, DIAG_ERROR, DIAG_INPUT, s->name, 0, 0, RULE_IO,
                "cannot record the rendering (out of memory or temporary space)");
    return -1;
}

static int side_item(void *user, const struct stream_item *item)
{
    struct side *s = user;
    const struct ynode *root = item->doc ? ynode_doc_root(item->doc) : NULL;
    unsigned held = 0;
    uint64_t h;

    if (item->kind != STREAM_STEP && item->kind != STREAM_PAIR)
        return 0;
    s->n_jobs = 0;
    if (item->kind == STREAM_STEP && s->dialect->each_job(root, record_step, s) < 0)
        goto fail;
    if (s->n_jobs)
        qsort(s->jobs, s->n_jobs, sizeof(*s->jobs), by_address);
    /* an item that is only jobs counts for nothing: a rendering read again has an item
     * per job where its source had one per step */
    h = outside_hash(s, root, &held);
    if (held)
        s->outside += (h ^ (h >> 29)) * 0x9E3779B97F4A7C15ull;
    return 0;
fail:
    return record_failed(s);
}

static void forget_skipped(struct side *s)
{
    for (size_t i = 0; i < s->n_skipped; i++) {
        free(s->skipped[i].id);
        free(s->skipped[i].row);
        free(s->skipped[i].reason);
    }
    s->n_skipped = s->skipped_bytes = 0;
    s->skipped_sorted = false;
}

/* Keeps what each_job says of a skipped job (its identity and values). */
static int record_skipped(void *user, const struct dialect_job *job)
{
    struct side *s = user;
    struct skipped_job *k = &s->skipped[s->n_skipped];

    if (!job->row || !job->label)
        return 0;
    s->blob.len = 0;
    if (row_text(&s->blob, job->row) != 0 || blob_add(&s->blob, "", 1) != 0 ||
        !(k->id = strndup(job->id, job->id_len)) || !(k->row = strdup(s->blob.buf)))
        return -1;
    return 0;
}

static int side_skipped(void *user, const struct ynode *job, const struct ynode *skip)
{
    struct side *s = user;
    struct ynode *items[1] = {(struct ynode *)job};
    const struct ynode seq = {.kind = YNODE_SEQ, .u.seq = {items, 1, 1}};
    bool plain_true = ynode_scalar_is(skip, "true") && skip->style == YNODE_PLAIN;
    const char *reason = plain_true ? "" : ynode_scalar(skip, NULL);
    struct skipped_job *k;

    if (s->n_skipped == SKIPPED_MAX || s->skipped_bytes > SKIPPED_BYTES)
        return 0;
    if (!s->skipped && !(s->skipped = malloc(SKIPPED_MAX * sizeof(*s->skipped))))
        goto fail;
    k = &s->skipped[s->n_skipped];
    *k = (struct skipped_job){NULL, NULL, NULL};
    if (s->dialect->each_job(&seq, record_skipped, s) < 0 || !(k->reason = strdup(reason ? reason : ""))) {
        free(k->id);
        free(k->row);
        goto fail;
    }
    if (k->id && k->row) {
        s->n_skipped++;
        s->skipped_bytes += strlen(k->id) + strlen(k->row) + strlen(k->reason);
    } else
        free(k->reason);
    return 0;
fail:
    return record_failed(s);
}

static void side_reset(void *user)
{
    struct side *s = user;

    xsort_destroy(s->steps);
    s->steps = xsort_create(sizeof(struct step_rec), step_rec_cmp, SORT_BUDGET);
    if (s->spool)
        fclose(s->spool);
    s->spool = tmpfile();
    s->spool_len = 0;
    s->seq = 0;
    s->outside = 0;
    s->failed = !s->steps || !s->spool || !s->json_em;
    forget_skipped(s);
}

static void side_begin(void *user, const struct dialect *dialect)
{
    struct side *s = user;

    s->dialect = dialect;
    side_reset(s);
}

static void side_free(struct side *s)
{
    emit_destroy(s->json_em); /* writes into json_file, which writes into s->json */
    if (s->json_file)
        fclose(s->json_file);
    xsort_destroy(s->steps);
    xsort_destroy(s->logicals);
    if (s->spool)
        fclose(s->spool);
    if (s->shards)
        fclose(s->shards);
    if (s->unmatched)
        fclose(s->unmatched);
    inputs_free(&s->in);
    forget_skipped(s);
    free(s->skipped);
    free(s->jobs);
    free(s->blob.buf);
    free(s->json.buf);
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
    struct shard_tuple t = {r->digest,   r->data_off,  r->label_off, r->row_off, r->title_off, r->data_len,
                            r->label_len, r->row_len, r->title_len, r->file,     r->line};

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

/* Markdown's headings, in its order (the other formats keep one list). */
enum group { G_ADDED, G_REMOVED, G_RENAMED, G_CHANGED, G_RESHARDED, G_MOVED };

static const char *const group_titles[] = {"Added", "Removed", "Renamed", "Changed", "Re-sharded", "Moved"};

struct finding_rec {
    uint32_t group, phase, rank, sub;
    uint32_t len;
    uint64_t off;
};

static int finding_cmp(const void *pa, const void *pb)
{
    const struct finding_rec *a = pa, *b = pb;

    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    if (a->phase != b->phase)
        return a->phase < b->phase ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->sub < b->sub ? -1 : a->sub > b->sub;
}

/* What a finding says: each part a text, or NULL. */
enum part {
    P_KIND,   /* added, removed, renamed, changed, shards (re-sharded), moved */
    P_ID,     /* the step's identity (HEAD's; BASE's for a removal) */
    P_FROM,   /* a rename: BASE's identity */
    P_JOBS,   /* the jobs of a fan-out a change is about ("shards 1-3"); NULL: the step */
    P_FILE,   /* where the step is written (HEAD; BASE for a removal) */
    P_LABEL,  /* its label */
    P_DETAIL, /* the text after "<id>: " */
    P_FIELD,  /* a changed field, its values as shown and as JSON (NULL: none that side) */
    P_OLD,
    P_NEW,
    P_OLD_JSON,
    P_NEW_JSON,
    P_EXTRA_JSON, /* more members of its JSON object ("\"count\": 4") */
    P_MORE,       /* lines under it (an added step's jobs and commands) */
    P_FULL,       /* lines only markdown shows, in <details> (full values, values by job) */
    N_PARTS
};

struct finding {
    const char *part[N_PARTS];
    uint32_t line;
    bool words; /* P_OLD and P_NEW are the words that differ, over several jobs */
};

/* A matched step, for the moves: its ranks, and HEAD's identity and jobs. */
struct pair_rec {
    uint32_t base_rank, head_rank;
    uint32_t repeat, id_len, shards;
    uint64_t id_off, tuples_off;
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
    unsigned added, removed, renamed, changed, moved, resharded;
    bool json_first;
    FILE *spool;         /* the findings' texts */
    uint64_t spool_len;
    struct xsort *findings;
    struct xsort *pairs;
    struct blob blob;
    bool failed;
};

/* Records finding `f`, to be printed in (group for markdown, phase, rank, sub) order. */
static void add_finding(struct report *r, enum phase phase, uint32_t rank, uint32_t sub, enum group group,
                        const struct finding *f)
{
    struct finding_rec rec = {r->format == PD_MARKDOWN ? group : 0, phase, rank, sub, 0, r->spool_len};
    uint8_t words = f->words;

    r->blob.len = 0;
    if (blob_add(&r->blob, &f->line, sizeof(f->line)) != 0 || blob_add(&r->blob, &words, 1) != 0)
        goto fail;
    for (int i = 0; i < N_PARTS; i++) {
        uint32_t none = UINT32_MAX;

        if (f->part[i] ? blob_str(&r->blob, f->part[i], strlen(f->part[i])) != 0
                       : blob_add(&r->blob, &none, sizeof(none)) != 0)
            goto fail;
    }
    rec.len = (uint32_t)r->blob.len;
    if (fwrite(r->blob.buf, 1, r->blob.len, r->spool) != r->blob.len || xsort_add(r->findings, &rec) != 0)
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
    if (!strcmp(kind, "changed") || !strcmp(kind, "renamed"))
        return "~ ";
    return "";
}

/* The line every format shows: "<sigil><id>[ (<jobs>)][ [<file>:<line>[ "<label>"]]]:
 * <detail>", a rename's id reading "<from> -> <id>". NULL when out of memory. */
static char *line_of(const struct finding *f)
{
    char *line = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&line, &len);
    const char *label = f->part[P_LABEL];

    if (!m)
        return NULL;
    fputs(sigil(f->part[P_KIND]), m);
    if (f->part[P_FROM])
        fprintf(m, "%s -> ", f->part[P_FROM]);
    fputs(f->part[P_ID], m);
    if (f->part[P_JOBS])
        fprintf(m, " (%s)", f->part[P_JOBS]);
    if (f->part[P_FILE]) {
        fprintf(m, " [%s:%u", f->part[P_FILE], f->line);
        if (label) {
            size_t n = utf8_cut(label, strlen(label), LABEL_MAX);

            fputs(" \"", m);
            for (size_t i = 0; i < n; i++)
                fprintf(m, label[i] == '"' || label[i] == '\\' ? "\\%c" : "%c", label[i]);
            fputs(label[n] ? "...\"" : "\"", m);
        }
        fputc(']', m);
    }
    fprintf(m, ": %s", f->part[P_DETAIL]);
    if (fclose(m) != 0) {
        free(line);
        return NULL;
    }
    return line;
}

/* Markdown: `s` as code, fenced with two backticks when it holds one. */
static void md_code(FILE *md, const char *s)
{
    fprintf(md, strchr(s, '`') ? "`` %s ``" : "`%s`", s);
}

/* What markdown would read as formatting (or HTML) in plain text. */
#define MD_SPECIAL "\\`*_[]<"

/* Markdown: `s` as plain text (what would format it escaped). */
static void md_text(FILE *md, const char *s)
{
    for (; *s; s++) {
        if (strchr(MD_SPECIAL, *s))
            fputc('\\', md);
        fputc(*s, md);
    }
}

/* Markdown: `lines` in a code block inside <details>, under a list item. */
static void md_details(FILE *md, const char *summary, const char *lines)
{
    unsigned run = 0, longest = 0;

    /* a fence longer than any run of backticks in the lines */
    for (const char *p = lines; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    fprintf(md, "  <details><summary>%s</summary>\n\n  %.*s\n", summary, (int)(longest < 3 ? 3 : longest + 1),
            "``````````````````````````````````````````````````````````````````````````````````````````");
    for (const char *p = lines; *p;) {
        size_t n = strcspn(p, "\n");

        fprintf(md, "  %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    fprintf(md, "  %.*s\n\n  </details>\n", (int)(longest < 3 ? 3 : longest + 1),
            "``````````````````````````````````````````````````````````````````````````````````````````");
}

static void print_markdown(FILE *md, const struct finding *f)
{
    const char *kind = f->part[P_KIND], *detail = f->part[P_DETAIL];
    size_t kl = strlen(kind), dl;

    fputs("- ", md);
    if (f->part[P_FROM]) {
        md_code(md, f->part[P_FROM]);
        fputs(" → ", md);
    }
    md_code(md, f->part[P_ID]);
    if (f->part[P_JOBS]) {
        fputs(" (", md);
        md_text(md, f->part[P_JOBS]);
        fputc(')', md);
    }
    if (f->part[P_FILE])
        fprintf(md, strchr(f->part[P_FILE], '`') ? " at `` %s:%u ``" : " at `%s:%u`", f->part[P_FILE], f->line);
    if (f->part[P_LABEL]) {
        fputs(" “", md);
        md_text(md, f->part[P_LABEL]);
        fputs("”", md);
    }
    if (f->part[P_FIELD]) {
        fputs(": **", md);
        md_text(md, f->part[P_FIELD]);
        fputs("**: ", md);
        md_code(md, f->part[f->words ? P_NEW : P_OLD]);
        fputs(f->words ? " (was " : " → ", md);
        md_code(md, f->part[f->words ? P_OLD : P_NEW]);
        fputs(f->words ? ")\n" : "\n", md);
    } else {
        /* the heading says the kind: "added (4 shards)" reads "4 shards" */
        if (!strncmp(detail, kind, kl) && (detail[kl] == '\0' || detail[kl] == ' '))
            detail += kl + (detail[kl] == ' ');
        dl = strlen(detail);
        if (dl > 2 && detail[0] == '(' && detail[dl - 1] == ')')
            detail++, dl -= 2;
        if (dl) {
            fputs(": ", md);
            for (size_t i = 0; i < dl; i++)
                fprintf(md, strchr(MD_SPECIAL, detail[i]) ? "\\%c" : "%c", detail[i]);
        }
        fputc('\n', md);
    }
    if (f->part[P_MORE])
        md_details(md, "what it runs", f->part[P_MORE]);
    else if (f->part[P_FULL])
        md_details(md, f->words ? "values by job" : "full values", f->part[P_FULL]);
}

static void print_json(struct report *r, const struct finding *f, const char *line)
{
    static const struct {
        enum part part;
        const char *name;
    } members[] = {{P_KIND, "kind"},   {P_ID, "step"},     {P_FROM, "from"},   {P_JOBS, "jobs"},
                   {P_FILE, "file"},   {P_LABEL, "label"}, {P_FIELD, "field"}};

    fputs(r->json_first ? "\n    {" : ",\n    {", r->out);
    r->json_first = false;
    for (size_t i = 0; i < sizeof(members) / sizeof(*members); i++) {
        if (!f->part[members[i].part])
            continue;
        fprintf(r->out, "%s\"%s\": ", i ? ", " : "", members[i].name);
        diag_write_json_string(r->out, f->part[members[i].part]);
        if (members[i].part == P_FILE)
            fprintf(r->out, ", \"line\": %u", f->line);
    }
    if (f->part[P_OLD_JSON])
        fprintf(r->out, ", \"old\": %s", f->part[P_OLD_JSON]);
    if (f->part[P_NEW_JSON])
        fprintf(r->out, ", \"new\": %s", f->part[P_NEW_JSON]);
    if (f->part[P_EXTRA_JSON])
        fprintf(r->out, ", %s", f->part[P_EXTRA_JSON]);
    fputs(", \"text\": ", r->out);
    diag_write_json_string(r->out, line);
    fputc('}', r->out);
}

/* Writes one finding in the report's format (markdown to `md`, under the summary). */
static int print_finding(struct report *r, FILE *md, const struct finding *f)
{
    char *line = line_of(f);

    if (!line)
        return -1;
    switch (r->format) {
    case PD_TEXT:
        fprintf(r->out, "%s\n", line);
        for (const char *p = f->part[P_MORE]; p && *p;) {
            size_t n = strcspn(p, "\n");

            fprintf(r->out, "    %.*s\n", (int)n, p);
            p += n + (p[n] == '\n');
        }
        break;
    case PD_GITHUB:
        fputs("::notice ", r->out);
        if (f->part[P_FILE]) {
            fputs("file=", r->out);
            diag_write_github_property(r->out, f->part[P_FILE]);
            fprintf(r->out, ",line=%u,", f->line);
        }
        fputs("title=", r->out);
        diag_write_github_property(r->out, "fanout diff: ");
        diag_write_github_property(r->out, f->part[P_KIND]);
        fputc(' ', r->out);
        diag_write_github_property(r->out, f->part[P_ID]);
        fputs("::", r->out);
        diag_write_github_escaped(r->out, line);
        if (f->part[P_MORE]) {
            fputs("%0A", r->out);
            diag_write_github_escaped(r->out, f->part[P_MORE]);
        }
        fputc('\n', r->out);
        break;
    case PD_MARKDOWN:
        print_markdown(md, f);
        break;
    case PD_JSON:
        print_json(r, f, line);
        break;
    }
    free(line);
    return 0;
}

/* Prints the findings in order (to `md` for markdown, which goes under the summary). */
static int print_findings(struct report *r, FILE *md)
{
    const struct finding_rec *rec;
    char *buf = NULL;
    size_t cap = 0;
    int rc = -1;
    uint32_t group = UINT32_MAX;

    if (xsort_finish(r->findings) != 0 || fflush(r->spool) != 0)
        return -1;
    while ((rec = xsort_next(r->findings)) != NULL) {
        struct finding f;
        char *p;

        if (rec->len + 1 > cap) {
            char *grown = realloc(buf, cap = rec->len + 1);

            if (!grown)
                goto done;
            buf = grown;
        }
        if (fseeko(r->spool, (off_t)rec->off, SEEK_SET) != 0 || fread(buf, 1, rec->len, r->spool) != rec->len)
            goto done;
        memset(&f, 0, sizeof(f));
        memcpy(&f.line, buf, sizeof(f.line));
        f.words = buf[sizeof(f.line)];
        p = buf + sizeof(f.line) + 1;
        for (int i = 0; i < N_PARTS; i++) {
            uint32_t n;

            memcpy(&n, p, sizeof(n));
            if (n == UINT32_MAX) {
                p += sizeof(n);
                continue;
            }
            memmove(p, p + sizeof(n), n);
            p[n] = '\0';
            f.part[i] = p;
            p += sizeof(n) + n;
        }
        if (r->format == PD_MARKDOWN && rec->group != group)
            fprintf(md, "%s#### %s\n\n", group == UINT32_MAX ? "" : "\n", group_titles[rec->group]);
        group = rec->group;
        if (print_finding(r, md, &f) != 0)
            goto done;
    }
    rc = xsort_failed(r->findings) ? -1 : 0;
done:
    free(buf);
    return rc;
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

/* The shard tuples of `l`; NULL when they cannot be read. */
static struct shard_tuple *read_tuples(struct side *s, const struct logical *l)
{
    struct shard_tuple *t = malloc((l->shards ? l->shards : 1) * sizeof(*t));

    if (t && (fseeko(s->shards, (off_t)l->tuples_off, SEEK_SET) != 0 ||
              fread(t, sizeof(*t), l->shards, s->shards) != l->shards)) {
        free(t);
        return NULL;
    }
    return t;
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

/* The name of file `file` of a side's rendering, as its messages give it. */
static const char *side_file(const struct side *s, uint32_t file)
{
    if (file >= s->in.n)
        return NULL;
    return strcmp(s->in.paths[file], "-") ? s->in.paths[file] : "<stdin>";
}

static bool is_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
    }
    return n > 0;
}

/* t[0..m) as one text, into buf: the text they all are, or a run of consecutive numbers
 * in one place ("--shard-id=1..3", "Shard 2..4"). False when they differ otherwise. */
static bool summarize(char *buf, size_t cap, char *const *t, unsigned m)
{
    size_t l0 = strlen(t[0]), min = l0, p = 0, s = 0;
    bool same = true, alike = true;
    long first = 0, prev = 0;

    for (unsigned j = 1; j < m; j++) {
        same = same && !strcmp(t[j], t[0]);
        min = strlen(t[j]) < min ? strlen(t[j]) : min;
    }
    if (same) {
        snprintf(buf, cap, "%s", t[0]);
        return true;
    }
    for (; p < min && alike; p += alike) {
        for (unsigned j = 1; j < m && alike; j++)
            alike = t[j][p] == t[0][p];
    }
    alike = true;
    for (; s < min - p && alike; s += alike) {
        for (unsigned j = 1; j < m && alike; j++)
            alike = t[j][strlen(t[j]) - 1 - s] == t[0][l0 - 1 - s];
    }
    /* a number is one whole: what the texts share of its digits goes back to it (and a
     * dotted one, a version, is no number to count: "3.10" and "3.11" are not "3.10..11") */
    while (p && (is_digits(t[0] + p - 1, 1) || t[0][p - 1] == '.'))
        p--;
    while (s && (is_digits(t[0] + l0 - s, 1) || t[0][l0 - s] == '.'))
        s--;
    for (unsigned j = 0; j < m; j++) {
        size_t n = strlen(t[j]) - p - s;
        const char *v = t[j] + p;
        long x;

        if (n > 9 || !is_digits(v, n) || (n > 1 && v[0] == '0'))
            return false;
        x = strtol(v, NULL, 10);
        if (j && x != prev + 1)
            return false;
        first = j ? first : x;
        prev = x;
    }
    snprintf(buf, cap, "%.*s%ld..%ld%s", (int)p, t[0], first, prev, t[0] + l0 - s);
    return true;
}

/* What separates words in a shown value: blanks, and a list's brackets and commas. */
static bool word_sep(char c)
{
    return c == ' ' || c == ',' || c == '[' || c == ']';
}

/* The words of `a` and `b` that differ, between the words they start and end with alike:
 * span[0] of a and span[1] of b ([from, to)). */
static void differing_words(const char *a, const char *b, size_t span[2][2])
{
    const char *v[2] = {a, b};
    size_t la = strlen(a), lb = strlen(b), p = 0, q = 0;

    while (p < la && p < lb && a[p] == b[p])
        p++;
    while (p && !word_sep(a[p - 1]))
        p--;
    while (q < la - p && q < lb - p && a[la - 1 - q] == b[lb - 1 - q])
        q++;
    while (q && !word_sep(a[la - q]))
        q--;
    span[0][0] = span[1][0] = p;
    span[0][1] = la - q;
    span[1][1] = lb - q;
    for (int k = 0; k < 2; k++) {
        while (span[k][0] < span[k][1] && word_sep(v[k][span[k][0]]))
            span[k][0]++;
        while (span[k][1] > span[k][0] && word_sep(v[k][span[k][1] - 1]))
            span[k][1]--;
    }
}

/* Where a finding points. */
struct where {
    const char *file; /* NULL: nowhere (the pipeline) */
    uint32_t line;
    char *label;      /* the jobs' labels as one (summarize), else the first's; NULL: none
                         (or the same as the identity) */
};

/* Where a finding about jobs `idx` (n of them; NULL: the first n) of tuples `t` of side
 * `s` points: the first one's file and line, and their labels. 0, or -1 when out of
 * memory. */
static int where_of(struct side *s, const struct shard_tuple *t, const unsigned *idx, unsigned n,
                    const char *id, struct where *w)
{
    char **titles = calloc(n ? n : 1, sizeof(*titles)), label[4 * LABEL_MAX + 32];
    int rc = -1;

    memset(w, 0, sizeof(*w));
    if (!titles || !n)
        goto done;
    w->file = side_file(s, t[idx ? idx[0] : 0].file);
    w->line = t[idx ? idx[0] : 0].line;
    for (unsigned i = 0; i < n; i++) {
        const struct shard_tuple *one = &t[idx ? idx[i] : i];

        if (!(titles[i] = spooled(s, one->title_off, one->title_len)))
            goto done;
    }
    if (*titles[0] && !summarize(label, sizeof(label), titles, n))
        snprintf(label, sizeof(label), "%s", titles[0]);
    if (*titles[0] && strcmp(label, id) != 0 && !(w->label = strdup(label)))
        goto done;
    rc = 0;
done:
    for (unsigned i = 0; titles && i < n; i++)
        free(titles[i]);
    free(titles);
    return rc;
}

/* The jobs of a fan-out a line is about, `idx` (ascending) of tuples `t`: "shard 2",
 * "shards 1-3", "shards 0, 2-3"; a matrix's by their labels ("part 0, part 2").
 * Malloc'd; NULL when out of memory. */
static char *jobs_text(struct side *s, const struct shard_tuple *t, const unsigned *idx, unsigned n)
{
    char *text = NULL, label[128];
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);

    if (!m)
        return NULL;
    if (t[idx[0]].label_len) {
        for (unsigned i = 0; i < n; i++) {
            if (ftello(m) > 2 * LABEL_MAX) {
                fprintf(m, ", ... (%u jobs)", n);
                break;
            }
            fprintf(m, "%s%s", i ? ", " : "", job_label(s, &t[idx[i]], idx[i], label, sizeof(label)));
        }
    } else {
        fprintf(m, "shard%s ", n > 1 ? "s" : "");
        for (unsigned i = 0, j; i < n; i = j + 1) {
            for (j = i; j + 1 < n && idx[j + 1] == idx[j] + 1;)
                j++;
            fprintf(m, j > i ? "%s%u-%u" : "%s%u", i ? ", " : "", idx[i], idx[j]);
        }
    }
    if (fclose(m) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static void finding_init(struct finding *f, const char *kind, const char *id, const struct where *w,
                         const char *detail)
{
    memset(f, 0, sizeof(*f));
    f->part[P_KIND] = kind;
    f->part[P_ID] = id;
    f->part[P_DETAIL] = detail;
    if (w) {
        f->part[P_FILE] = w->file;
        f->line = w->line;
        f->part[P_LABEL] = w->label;
    }
}

/* A step both sides have, being compared. */
struct step_ctx {
    struct side *base, *head;
    const struct logical *b, *h;
    struct shard_tuple *tb, *th; /* their jobs */
    const char *id;              /* HEAD's identity */
    struct where at;             /* HEAD's step: its first job, every job's label */
    enum group group;            /* where markdown lists its changes (changed, or renamed) */
    uint32_t sub;                /* the next finding's place under the step */
};

static void step_finding(struct report *r, struct step_ctx *x, enum group group, const struct finding *f)
{
    add_finding(r, PH_BASE, x->b->rank, x->sub++, x->group == G_RENAMED ? G_RENAMED : group, f);
}

/* "id: parallelism A -> B (shards x-y added)"; a matrix names its jobs, "id: matrix A -> B
 * jobs (part 2 removed)"; an AMD mirror reads "parent: mirror amd: A -> B". */
static void report_shards(struct report *r, struct step_ctx *x, bool parent, unsigned a, unsigned b)
{
    char line[512], range[320] = "", label[128], old_j[16], new_j[16];
    unsigned from = a < b ? a : b, to = a < b ? b : a;
    struct side *more = b > a ? x->head : x->base;
    const struct shard_tuple *t = b > a ? x->th : x->tb;
    struct finding f;
    size_t o = 0;

    parent = parent && !strncmp(x->id, AMD_PREFIX, sizeof(AMD_PREFIX) - 1);
    for (unsigned i = from > 1 ? from : 0; t[0].label_len && i < to && o < sizeof(range) - 8; i++)
        o += (size_t)snprintf(range + o, sizeof(range) - o, "%s%s", o ? ", " : "",
                              job_label(more, &t[i], i, label, sizeof(label)));
    if (o) {
        snprintf(line, sizeof(line), "%s %u -> %u %s (%s %s)", r->dialect->fanout_field, a, b,
                 r->dialect->fanout_jobs, range, b > a ? "added" : "removed");
    } else {
        unsigned lo = from > 1 ? from : 0;

        snprintf(range, sizeof(range), lo + 1 == to ? "shard %u" : "shards %u-%u", lo, to - 1);
        snprintf(line, sizeof(line), "%s %u -> %u (%s %s)", parent ? "mirror amd:" : r->dialect->fanout_field, a,
                 b, range, b > a ? "added" : "removed");
    }
    finding_init(&f, "shards", parent ? x->id + sizeof(AMD_PREFIX) - 1 : x->id, &x->at, line);
    snprintf(old_j, sizeof(old_j), "%u", a);
    snprintf(new_j, sizeof(new_j), "%u", b);
    f.part[P_OLD_JSON] = old_j;
    f.part[P_NEW_JSON] = new_j;
    step_finding(r, x, G_RESHARDED, &f);
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
            if (!other || strcmp(other->value, e->value) != 0 || strcmp(other->json, e->json) != 0)
                return false;
        }
    }
    return true;
}

/* The changes found in one job, before they are reported (a matched step's jobs are
 * compared one by one, then each field is reported once for the jobs that changed it). */
struct change {
    char *detail, *field, *old_v, *new_v;
    char *old_json, *new_json; /* NULL: no such value that side */
    bool cut;                  /* a value shown is cut at VALUE_MAX */
    bool done;                 /* reported */
};

struct changes {
    struct change *v;
    size_t n, cap;
    bool failed;
};

static char *dup_or_null(const char *s, bool *failed)
{
    char *d = s ? strdup(s) : NULL;

    *failed |= s && !d;
    return d;
}

static void changes_add(struct changes *c, const char *field, const char *old_v, const char *new_v,
                        const char *old_json, const char *new_json, bool cut, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

static void changes_add(struct changes *c, const char *field, const char *old_v, const char *new_v,
                        const char *old_json, const char *new_json, bool cut, const char *fmt, ...)
{
    char detail[512];
    struct change *one;
    bool failed = false;
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
    memset(one, 0, sizeof(*one));
    one->detail = dup_or_null(detail, &failed);
    one->field = dup_or_null(field, &failed);
    one->old_v = dup_or_null(old_v, &failed);
    one->new_v = dup_or_null(new_v, &failed);
    one->old_json = dup_or_null(old_json, &failed);
    one->new_json = dup_or_null(new_json, &failed);
    one->cut = cut;
    c->n++;
    c->failed |= failed;
}

static void changes_free(struct changes *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].detail);
        free(c->v[i].field);
        free(c->v[i].old_v);
        free(c->v[i].new_v);
        free(c->v[i].old_json);
        free(c->v[i].new_json);
    }
    free(c->v);
    memset(c, 0, sizeof(*c));
}

/* A job's env without the shard variables: as shown into t, and as JSON (malloc'd, NULL
 * when it has none). 0, or -1 when out of memory. */
static int env_of(const struct entries *es, struct text *t, char **json)
{
    size_t len;
    bool any = false;
    FILE *m = open_memstream(json, &len);

    memset(t, 0, sizeof(*t));
    if (!m)
        return -1;
    fputc('{', m);
    text_add(t, "{", 1);
    for (size_t i = 0; i < es->n; i++) {
        const struct entry *e = &es->v[i];

        if (e->type != E_ENV)
            continue;
        fputs(any ? ", " : "", m);
        diag_write_json_string(m, e->name);
        fprintf(m, ": %s", e->json);
        text_add(t, ", ", any ? 2 : 0);
        text_add(t, e->name, strlen(e->name));
        text_add(t, ": ", 2);
        text_add(t, e->value, strlen(e->value));
        any = true;
    }
    fputc('}', m);
    text_add(t, "}", 1);
    if (fclose(m) != 0 || !any) {
        free(*json);
        *json = NULL;
        snprintf(t->buf, sizeof(t->buf), "(none)");
        return any ? -1 : 0;
    }
    if (t->cut)
        strcat(t->buf, "...");
    return 0;
}

/* A field's entry: compared, else left out (at its default, or ignored). */
static const struct entry *field_entry(const struct entries *es, const char *name)
{
    const struct entry *e = entry_find(es, E_FIELD, name);

    return e ? e : entry_find(es, E_QUIET, name);
}

static void env_change(struct changes *c, const struct entries *a, const struct entries *b)
{
    struct text ta, tb;
    char *ja = NULL, *jb = NULL;

    if (env_of(a, &ta, &ja) != 0 || env_of(b, &tb, &jb) != 0)
        c->failed = true;
    else
        changes_add(c, "env", ta.buf, tb.buf, ja, jb, ta.cut || tb.cut, "env: %s -> %s", ta.buf, tb.buf);
    free(ja);
    free(jb);
}

static void field_change(struct changes *c, const struct entries *a, const struct entries *b,
                         const char *name)
{
    const struct entry *ca = entry_find(a, E_FIELD, name), *cb = entry_find(b, E_FIELD, name), *ea, *eb;
    const char *old_v, *new_v;

    if (is_identity(name, strlen(name)))
        return;
    if (!strcmp(name, "env")) {
        if (!same_env(a, b))
            env_change(c, a, b);
        return;
    }
    /* a field at its default on one side and absent on the other is not compared at all */
    if (ca && cb && !strcmp(ca->value, cb->value))
        return;
    ea = field_entry(a, name);
    eb = field_entry(b, name);
    old_v = ea ? ea->value : "(none)";
    new_v = eb ? eb->value : "(none)";
    {
        /* as shown: without the digest of a value cut at VALUE_MAX */
        int ol = (int)strcspn(old_v, "\x1f"), nl = (int)strcspn(new_v, "\x1f");
        const char *late = ol == nl && !strncmp(old_v, new_v, (size_t)ol)
                               ? " (they differ after the first " STR(VALUE_MAX) " characters)"
                               : "";
        char o[VALUE_MAX + 8], n[VALUE_MAX + 8];

        snprintf(o, sizeof(o), "%.*s", ol, old_v);
        snprintf(n, sizeof(n), "%.*s", nl, new_v);
        changes_add(c, name, o, n, ea ? ea->json : NULL, eb ? eb->json : NULL,
                    old_v[ol] != '\0' || new_v[nl] != '\0', "%s: %s -> %s%s", name, o, n, late);
    }
}

/* A value of a step's field as a reader sees it: without the digest, and of a text that
 * differs from `other`, the first line that differs; cut at VALUE_MAX. */
static bool step_value(char *buf, size_t cap, const char *v, const char *other)
{
    const char *end = strchr(v, '\x1f'), *line = v;
    size_t len = end ? (size_t)(end - v) : strlen(v);
    bool cut = end != NULL;

    if (!end && (strchr(v, '\n') || strchr(other, '\n'))) {
        /* the first line that differs */
        cut = true;
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
    return cut || len > VALUE_MAX;
}

/* The fields of step `name` that differ between a and b. */
static void step_field_changes(struct changes *c, const struct entries *a, const struct entries *b,
                               const char *name)
{
    size_t nlen = strlen(name);
    const struct entries *sides[2] = {a, b};

    for (int side = 0; side < 2; side++) {
        for (size_t i = 0; i < sides[side]->n; i++) {
            const struct entry *e = &sides[side]->v[i], *other, *ea, *eb;
            char field[300], old_v[VALUE_MAX + 8], new_v[VALUE_MAX + 8];
            const char *fa, *fb;
            bool cut;

            if (e->type != E_SUBFIELD || strncmp(e->name, name, nlen) != 0 || e->name[nlen] != '\x1f')
                continue;
            other = entry_find(sides[!side], E_SUBFIELD, e->name);
            if (side == 1 && other)
                continue; /* compared from a's side */
            ea = side == 0 ? e : other;
            eb = side == 0 ? other : e;
            fa = ea ? ea->value : "(none)";
            fb = eb ? eb->value : "(none)";
            if (!strcmp(fa, fb))
                continue;
            cut = step_value(old_v, sizeof(old_v), fa, fb);
            cut |= step_value(new_v, sizeof(new_v), fb, fa);
            snprintf(field, sizeof(field), "step %s: %s", name, e->name + nlen + 1);
            changes_add(c, field, old_v, new_v, ea ? ea->json : NULL, eb ? eb->json : NULL, cut, "%s: %s -> %s",
                        field, old_v, new_v);
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
            changes_add(c, field, e->value, "(none)", e->json, NULL, false, "step %s removed", e->name);
        else
            step_field_changes(c, a, b, e->name);
    }
    for (size_t i = 0; i < b->n; i++) {
        const struct entry *e = &b->v[i];

        snprintf(field, sizeof(field), "step %s", e->name);
        if (e->type == E_SUB && !entry_find(a, E_SUB, e->name))
            changes_add(c, field, "(none)", e->value, NULL, e->json, false, "step %s added", e->name);
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
            changes_add(c, "step", va, vb, sa ? sa->json : NULL, sb ? sb->json : NULL, false, "%s -> %s", va, vb);
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

static bool same_json(const char *a, const char *b)
{
    return a && b ? !strcmp(a, b) : a == b;
}

/* Reports change `ch` of m jobs (bi and hi: their indices on each side); `all`: every
 * compared job has it alike, and the line names no jobs. */
static void report_change(struct report *r, struct step_ctx *x, const struct change *ch, const unsigned *bi,
                          const unsigned *hi, unsigned m, bool all)
{
    char *jobs = all ? NULL : jobs_text(x->base, x->tb, bi, m), *full = NULL;
    struct where w = {NULL, 0, NULL};
    struct finding f;

    if ((!all && !jobs) || where_of(x->head, x->th, hi, m, x->id, &w) != 0)
        goto fail;
    finding_init(&f, "changed", x->id, &w, ch->detail);
    f.part[P_JOBS] = jobs;
    f.part[P_FIELD] = ch->field;
    f.part[P_OLD] = ch->old_v;
    f.part[P_NEW] = ch->new_v;
    f.part[P_OLD_JSON] = ch->old_json;
    f.part[P_NEW_JSON] = ch->new_json;
    if (ch->cut && asprintf(&full, "old: %s\nnew: %s", ch->old_json ? ch->old_json : "(none)",
                            ch->new_json ? ch->new_json : "(none)") < 0) {
        full = NULL;
        goto fail;
    }
    f.part[P_FULL] = full;
    step_finding(r, x, G_CHANGED, &f);
    goto done;
fail:
    r->failed = true;
done:
    free(jobs);
    free(w.label);
    free(full);
}

/* The words that differ in each job's old and new values (differing_words; short values
 * whole), summarized over the jobs into old_s and new_s; false when a job's differ from
 * the others' other than by a number in one place. */
static bool words_summary(struct change *const *chg, unsigned m, char *old_s, char *new_s, size_t cap)
{
    char **w = calloc(2 * (size_t)m, sizeof(*w));
    bool ok = w != NULL, whole = true;

    for (unsigned j = 0; j < m; j++)
        whole = whole && strlen(chg[j]->old_v) <= WHOLE_MAX && strlen(chg[j]->new_v) <= WHOLE_MAX;
    for (unsigned j = 0; ok && j < m; j++) {
        size_t span[2][2] = {{0, strlen(chg[j]->old_v)}, {0, strlen(chg[j]->new_v)}};

        if (!whole)
            differing_words(chg[j]->old_v, chg[j]->new_v, span);
        ok = span[0][1] > span[0][0] && span[1][1] > span[1][0] &&
             (w[j] = strndup(chg[j]->old_v + span[0][0], span[0][1] - span[0][0])) != NULL &&
             (w[m + j] = strndup(chg[j]->new_v + span[1][0], span[1][1] - span[1][0])) != NULL;
    }
    ok = ok && summarize(old_s, cap, w, m) && summarize(new_s, cap, w + m, m);
    for (unsigned j = 0; w && j < 2 * m; j++)
        free(w[j]);
    free(w);
    return ok;
}

/* One line for a field m jobs changed each their own way (`all`: every compared job),
 * reading `detail` (`words`: old_s and new_s are the words that differ), with every
 * job's values in the JSON ("by_job") and markdown's details. */
static void report_jobs(struct report *r, struct step_ctx *x, struct change *const *chg, const unsigned *bi,
                        const unsigned *hi, unsigned m, bool all, const char *detail, const char *old_s,
                        const char *new_s, bool words)
{
    char *jobs = all ? NULL : jobs_text(x->base, x->tb, bi, m), *json = NULL, *full = NULL, label[128];
    size_t json_len, full_len;
    FILE *mj = open_memstream(&json, &json_len), *mf = open_memstream(&full, &full_len);
    struct where w = {NULL, 0, NULL};
    struct finding f;
    int closed;

    if (!mj || !mf || (!all && !jobs) || where_of(x->head, x->th, hi, m, x->id, &w) != 0)
        goto fail;
    fputs("\"by_job\": [", mj);
    for (unsigned j = 0; j < m; j++) {
        job_label(x->base, &x->tb[bi[j]], bi[j], label, sizeof(label));
        fputs(j ? ", {\"job\": " : "{\"job\": ", mj);
        diag_write_json_string(mj, label);
        if (chg[j]->old_json)
            fprintf(mj, ", \"old\": %s", chg[j]->old_json);
        if (chg[j]->new_json)
            fprintf(mj, ", \"new\": %s", chg[j]->new_json);
        fputc('}', mj);
        fprintf(mf, "%s%s: %s -> %s", j ? "\n" : "", label, chg[j]->old_json ? chg[j]->old_json : "(none)",
                chg[j]->new_json ? chg[j]->new_json : "(none)");
    }
    fputc(']', mj);
    /* both closed whatever the first gives: a buffer is final only then */
    closed = fclose(mj);
    closed |= fclose(mf);
    mj = mf = NULL;
    if (closed != 0)
        goto fail;
    finding_init(&f, "changed", x->id, &w, detail);
    f.part[P_JOBS] = jobs;
    f.part[P_FIELD] = chg[0]->field;
    f.part[P_OLD] = old_s;
    f.part[P_NEW] = new_s;
    f.part[P_OLD_JSON] = chg[0]->old_json;
    f.part[P_NEW_JSON] = chg[0]->new_json;
    f.part[P_EXTRA_JSON] = json;
    f.part[P_FULL] = full;
    f.words = words;
    step_finding(r, x, G_CHANGED, &f);
    goto done;
fail:
    r->failed = true;
done:
    if (mj)
        fclose(mj);
    if (mf)
        fclose(mf);
    free(json);
    free(full);
    free(jobs);
    free(w.label);
}

/* Reports a field m jobs changed (`all`: every compared job): once when they changed it
 * alike (naming the jobs unless it is all of them), or so that it reads alike (the first
 * differing line of a script); once with the words that differ when they changed it
 * each their own way but for a number; else job by job. */
static void report_field(struct report *r, struct step_ctx *x, struct change *const *chg, const unsigned *bi,
                         const unsigned *hi, unsigned m, bool all)
{
    char old_s[2 * VALUE_MAX], new_s[2 * VALUE_MAX], detail[6 * VALUE_MAX];
    bool alike = true, reads_alike = true, cut = false;

    for (unsigned j = 0; j < m; j++) {
        reads_alike = reads_alike && !strcmp(chg[j]->detail, chg[0]->detail);
        alike = alike && same_json(chg[j]->old_json, chg[0]->old_json) && same_json(chg[j]->new_json, chg[0]->new_json);
        cut |= chg[j]->cut;
    }
    if (reads_alike && alike) {
        report_change(r, x, chg[0], bi, hi, m, all);
    } else if (reads_alike) {
        report_jobs(r, x, chg, bi, hi, m, all, chg[0]->detail, chg[0]->old_v, chg[0]->new_v, false);
    } else if (m > 1 && !cut && words_summary(chg, m, old_s, new_s, sizeof(old_s))) {
        snprintf(detail, sizeof(detail), "%s: %s (was %s)", chg[0]->field, new_s, old_s);
        report_jobs(r, x, chg, bi, hi, m, false, detail, old_s, new_s, true);
    } else {
        for (unsigned j = 0; j < m; j++)
            report_change(r, x, chg[j], &bi[j], &hi[j], 1, false);
    }
}

/* Compares the n jobs both sides have, base job pairs[k][0] with head job pairs[k][1],
 * and reports each changed field once for the jobs that changed it. Whether any did. */
static bool compare_jobs(struct report *r, struct step_ctx *x, const unsigned (*pairs)[2], unsigned n)
{
    struct changes *c = calloc(n ? n : 1, sizeof(*c));
    struct change **chg = calloc(n ? n : 1, sizeof(*chg));
    unsigned *bi = calloc(n ? n : 1, sizeof(*bi)), *hi = calloc(n ? n : 1, sizeof(*hi));
    bool any = false;

    if (!c || !chg || !bi || !hi) {
        r->failed = true;
        goto done;
    }
    for (unsigned k = 0; k < n && !r->failed; k++) {
        const struct shard_tuple *p = &x->tb[pairs[k][0]], *q = &x->th[pairs[k][1]];
        struct entries ea = {0}, eb = {0};

        if (p->digest == q->digest && p->data_len == q->data_len)
            continue;
        if (entries_read(x->base->spool, p->data_off, p->data_len, &ea) != 0 ||
            entries_read(x->head->spool, q->data_off, q->data_len, &eb) != 0)
            r->failed = true;
        else
            fields_changes(&c[k], &ea, &eb);
        entries_free(&ea);
        entries_free(&eb);
        r->failed |= c[k].failed;
        any |= c[k].n > 0;
    }
    /* field by field (in the order the first job that changed it has them), the jobs
     * that changed it together */
    for (unsigned k = 0; any && k < n && !r->failed; k++) {
        for (size_t i = 0; i < c[k].n; i++) {
            unsigned m = 0;

            if (c[k].v[i].done)
                continue;
            for (unsigned k2 = k; k2 < n; k2++) {
                for (size_t i2 = 0; i2 < c[k2].n; i2++) {
                    struct change *o = &c[k2].v[i2];

                    if (!o->done && !strcmp(o->field, c[k].v[i].field)) {
                        o->done = true;
                        chg[m] = o;
                        bi[m] = pairs[k2][0];
                        hi[m++] = pairs[k2][1];
                        break;
                    }
                }
            }
            report_field(r, x, chg, bi, hi, m, m == n);
        }
    }
done:
    for (unsigned k = 0; c && k < n; k++)
        changes_free(&c[k]);
    free(c);
    free(chg);
    free(bi);
    free(hi);
    return any && !r->failed;
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

/* A configuration as a summary names it, after `sep`, into buf: its label for one
 * dimension ("arm64"), else its values ("os=macos arch=arm64"). Returns what snprintf
 * does. */
static size_t configuration_name(const char *row, const char *label, const char *sep, char *buf, size_t cap)
{
    size_t o = (size_t)snprintf(buf, cap, "%s", sep);

    if (strchr(row, 0x1e) && !strchr(strchr(row, 0x1e) + 1, 0x1e))
        return o + (size_t)snprintf(buf + (o < cap ? o : cap), o < cap ? cap - o : 0, "%s", label);
    for (const char *p = row; *p; p = strchr(p, 0x1e) + 1)
        o += (size_t)snprintf(buf + (o < cap ? o : cap), o < cap ? cap - o : 0, "%s%.*s", p == row ? "" : " ",
                              (int)(strchr(p, 0x1e) - p), p);
    return o;
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
        if (!explained)
            o += configuration_name(rows[i], labels[i], o ? ", " : "", buf + o, cap - o);
    }
    if (o >= cap)
        memcpy(buf + cap - 4, "...", 4);
}

/* What HEAD's matrix adjustment said of configuration `row` of step `id` when it
 * skipped it ("" for `skip: true`), or NULL when it did not skip it. */
static int skipped_cmp(const void *pa, const void *pb)
{
    const struct skipped_job *a = pa, *b = pb;
    int c = strcmp(a->id, b->id);

    return c ? c : strcmp(a->row, b->row);
}

static const char *skip_reason(struct side *s, const char *id, const char *row)
{
    const struct skipped_job key = {(char *)id, (char *)row, NULL}, *found;

    if (!s->n_skipped)
        return NULL;
    if (!s->skipped_sorted) { /* recorded in rendering order; looked up once all are in */
        qsort(s->skipped, s->n_skipped, sizeof(*s->skipped), skipped_cmp);
        s->skipped_sorted = true;
    }
    found = bsearch(&key, s->skipped, s->n_skipped, sizeof(*s->skipped), skipped_cmp);
    return found ? found->reason : NULL;
}

/* BASE's configurations HEAD skips, no longer extra, into buf: "os=macos arch=arm64
 * skipped: no runners". */
static void skipped_text(struct side *head, const char *id, char **rows, char **labels, bool *extra,
                         unsigned n, char *buf, size_t cap)
{
    size_t o = 0;

    buf[0] = '\0';
    for (unsigned i = 0; i < n && o + 1 < cap; i++) {
        const char *reason = extra[i] ? skip_reason(head, id, rows[i]) : NULL;

        if (!reason)
            continue;
        extra[i] = false;
        o += configuration_name(rows[i], labels[i], o ? ", " : "", buf + o, cap - o);
        if (o + 1 < cap)
            o += (size_t)snprintf(buf + o, cap - o, " skipped%s%s", *reason ? ": " : "", reason);
    }
    if (o >= cap)
        memcpy(buf + cap - 4, "...", 4);
}

/* A matrix on both sides (Buildkite's and GitHub's are both a "matrix" of "jobs"):
 * configurations matched by their values, those of one side only summarised ("matrix
 * 4 -> 6 jobs (os=windows added)"), the others compared. */
static void compare_configurations(struct report *r, struct step_ctx *x, bool *changed, bool *resharded)
{
    const struct shard_tuple *t[2] = {x->tb, x->th};
    struct side *sides[2] = {x->base, x->head};
    unsigned n[2] = {x->b->shards, x->h->shards}, (*pairs)[2] = malloc((n[0] + 1) * sizeof(*pairs)), matched = 0;
    char **labels[2] = {calloc(n[0] + 1, sizeof(char *)), calloc(n[1] + 1, sizeof(char *))};
    char **rows[2] = {calloc(n[0] + 1, sizeof(char *)), calloc(n[1] + 1, sizeof(char *))};
    bool *extra[2] = {calloc(n[0] + 1, 1), calloc(n[1] + 1, 1)};
    char gained[2][320], skipped[320], *id = spooled(x->head, x->h->id_off, x->h->id_len);

    if (!pairs || !labels[0] || !labels[1] || !rows[0] || !rows[1] || !extra[0] || !extra[1] || !id)
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
        char line[3 * 320 + 64], old_j[16], new_j[16]; /* the three parts at most, whole */
        size_t o = (size_t)snprintf(line, sizeof(line), "matrix %u -> %u jobs (", n[0], n[1]);
        struct finding f;

        skipped_text(x->head, id, rows[0], labels[0], extra[0], n[0], skipped, sizeof(skipped));
        configurations_text(rows[1], labels[1], extra[1], n[1], rows[0], n[0], gained[1], sizeof(gained[1]));
        configurations_text(rows[0], labels[0], extra[0], n[0], rows[1], n[1], gained[0], sizeof(gained[0]));
        snprintf(line + o, sizeof(line) - o, "%s%s%s%s%s%s%s)", gained[1], *gained[1] ? " added" : "",
                 *gained[1] && *gained[0] ? "; " : "", gained[0], *gained[0] ? " removed" : "",
                 (*gained[1] || *gained[0]) && *skipped ? "; " : "", skipped);
        finding_init(&f, "shards", x->id, &x->at, line);
        snprintf(old_j, sizeof(old_j), "%u", n[0]);
        snprintf(new_j, sizeof(new_j), "%u", n[1]);
        f.part[P_OLD_JSON] = old_j;
        f.part[P_NEW_JSON] = new_j;
        step_finding(r, x, G_RESHARDED, &f);
        *resharded = true;
    }
    *changed = compare_jobs(r, x, (const unsigned (*)[2])pairs, matched);
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
    }
    free(pairs);
    free(id);
}

/* Compares a step both sides have; `from` is BASE's identity when HEAD renamed it
 * (`similarity`: the percentage of its compared fields alike), else NULL. */
static void compare_matched(struct report *r, struct side *base, struct side *head, const struct logical *b,
                            const struct logical *h, bool parent, const char *from, unsigned similarity)
{
    struct step_ctx x = {base, head, b, h, NULL, NULL, NULL, {NULL, 0, NULL}, from ? G_RENAMED : G_CHANGED, 0};
    char *id = display_id(head->spool, h->id_off, h->id_len, h->repeat);
    struct pair_rec pair = {b->rank, h->rank, h->repeat, h->id_len, h->shards, h->id_off, h->tuples_off};
    unsigned n = b->shards < h->shards ? b->shards : h->shards, (*pairs)[2] = malloc((n + 1) * sizeof(*pairs));
    bool changed = false, resharded = false;

    x.id = id;
    x.tb = read_tuples(base, b);
    x.th = read_tuples(head, h);
    if (!id || !pairs || !x.tb || !x.th || xsort_add(r->pairs, &pair) != 0 ||
        where_of(head, x.th, NULL, h->shards, id, &x.at) != 0)
        goto fail;
    if (from) {
        char extra[32];
        struct finding f;

        finding_init(&f, "renamed", id, &x.at, "renamed");
        f.part[P_FROM] = from;
        snprintf(extra, sizeof(extra), "\"similarity\": %u", similarity);
        f.part[P_EXTRA_JSON] = extra;
        step_finding(r, &x, G_RENAMED, &f);
    }
    if (b->matrix && h->matrix) {
        compare_configurations(r, &x, &changed, &resharded);
    } else {
        if (b->shards != h->shards) {
            report_shards(r, &x, parent, b->shards, h->shards);
            resharded = true;
        }
        for (unsigned k = 0; k < n; k++)
            pairs[k][0] = pairs[k][1] = k;
        changed = compare_jobs(r, &x, (const unsigned (*)[2])pairs, n);
    }
    /* a step counts once: a rename is a rename, whatever else changed with it */
    if (from) {
        r->renamed++;
    } else {
        r->changed += changed;
        r->resharded += resharded;
    }
    goto done;
fail:
    r->failed = true;
done:
    free(pairs);
    free(x.tb);
    free(x.th);
    free(x.at.label);
    free(id);
}

/* What a reader knows job i of step `id` by: its key, else its configuration's label,
 * else its own label, else its place ("shard 2"; the step's identity for a step of one
 * job); into buf. */
static const char *job_key(struct side *s, const struct shard_tuple *t, const struct entries *es, unsigned i,
                           unsigned n, const char *id, char *buf, size_t cap)
{
    const struct entry *key = field_entry(es, "key");
    char *title = NULL;

    if (key)
        snprintf(buf, cap, "%s", key->value);
    else if (t->label_len)
        job_label(s, t, i, buf, cap);
    else if (t->title_len && (title = spooled(s, t->title_off, t->title_len)) != NULL)
        snprintf(buf, cap, "%s", title);
    else if (n == 1)
        snprintf(buf, cap, "%s", id);
    else
        job_label(s, t, i, buf, cap);
    free(title);
    return buf;
}

/* A step one side has alone, described: its first job as a JSON object, *extra its
 * jobs' count and keys (JSON members), and *more the lines that tell a reviewer what an
 * added step runs (its jobs, where, its commands). Malloc'd; 0, or -1 when out of
 * memory or temporary space. */
static int describe_step(struct side *s, const struct shard_tuple *t, unsigned n, const char *id, char **object,
                         char **extra, char **more)
{
    static const char *const machine[] = {"agents", "device", "runs-on", NULL};
    size_t ol, el, ml, listed = 0, commands = 0;
    FILE *mo = open_memstream(object, &ol), *me = open_memstream(extra, &el), *mm = open_memstream(more, &ml);
    const struct entry *where = NULL;
    struct entries first = {0};
    char key[256];
    int rc = -1;

    if (!mo || !me || !mm || entries_read(s->spool, t[0].data_off, t[0].data_len, &first) != 0)
        goto done;
    fprintf(me, "\"count\": %u, \"keys\": [", n);
    fputs(n > 1 ? "jobs: " : "", mm);
    for (unsigned i = 0; i < n; i++) {
        struct entries es = {0};

        if (i && entries_read(s->spool, t[i].data_off, t[i].data_len, &es) != 0) {
            entries_free(&es);
            goto done;
        }
        job_key(s, &t[i], i ? &es : &first, i, n, id, key, sizeof(key));
        entries_free(&es);
        fputs(i ? ", " : "", me);
        diag_write_json_string(me, key);
        if (n > 1 && (i < LIST_MAX - 1 || i + 1 == n))
            fprintf(mm, "%s%s", i ? ", " : "", key);
        else if (n > 1 && i == LIST_MAX - 1)
            fputs(", ...", mm);
    }
    fputc(']', me);
    for (size_t e = 0; e < first.n; e++) {
        const struct entry *one = &first.v[e];

        if (one->type == E_STEP)
            fputs(one->json, mo);
        else if (one->type == E_FIELD || one->type == E_QUIET) {
            fputs(listed++ ? ", " : "{", mo);
            diag_write_json_string(mo, one->name);
            fprintf(mo, ": %s", one->json);
        }
    }
    if (!entry_find(&first, E_STEP, ""))
        fputs(listed ? "}" : "{}", mo);
    for (size_t k = 0; machine[k] && !where; k++)
        where = field_entry(&first, machine[k]);
    if (where)
        fprintf(mm, "%s%s: %.*s", n > 1 ? "\n" : "", where->name, (int)strcspn(where->value, "\x1f"), where->value);
    for (size_t e = 0; e < first.n; e++) {
        if (first.v[e].type == E_COMMAND && commands++ < LIST_MAX)
            fprintf(mm, "%s%s: %s", n > 1 || where || commands > 1 ? "\n" : "", first.v[e].name, first.v[e].value);
    }
    if (commands > LIST_MAX)
        fprintf(mm, "\n... (%zu more)", commands - LIST_MAX);
    rc = 0;
done:
    entries_free(&first);
    /* each stream closed whatever the others give: a buffer is final only then */
    if (mo && fclose(mo) != 0)
        rc = -1;
    if (me && fclose(me) != 0)
        rc = -1;
    if (mm && fclose(mm) != 0)
        rc = -1;
    if (rc == 0)
        return 0;
    if (mo)
        free(*object);
    if (me)
        free(*extra);
    if (mm)
        free(*more);
    *object = *extra = *more = NULL;
    return -1;
}

/* Reports a step side `s` has alone; `other` is the other side (whose matrix adjustments
 * may skip every job of a step BASE has). */
static void report_one_side(struct report *r, struct side *s, struct side *other, const struct logical *l,
                            bool added)
{
    char *id = display_id(s->spool, l->id_off, l->id_len, l->repeat), *object = NULL, *extra = NULL,
         *more = NULL, *bare = NULL, detail[96 + 2 * LABEL_MAX];
    struct shard_tuple *t = read_tuples(s, l);
    const char *kind = added ? "added" : "removed", *reason = NULL;
    struct where w = {NULL, 0, NULL};
    struct finding f;

    if (!id || !t || where_of(s, t, NULL, l->shards, id, &w) != 0 ||
        describe_step(s, t, l->shards, id, &object, &extra, &more) != 0)
        goto fail;
    if (!added && l->matrix && other->n_skipped) { /* read back only when there are skips to match */
        char *row = spooled(s, t[0].row_off, t[0].row_len);

        if (!row || !(bare = spooled(s, l->id_off, l->id_len))) {
            free(row);
            goto fail;
        }
        reason = skip_reason(other, bare, row);
        free(row);
    }
    if (reason && l->shards > 1) /* HEAD's adjustments skip every combination */
        snprintf(detail, sizeof(detail), "skipped (%u matrix jobs)%s%.*s", l->shards, *reason ? ": " : "",
                 2 * LABEL_MAX, reason);
    else if (reason)
        snprintf(detail, sizeof(detail), "skipped%s%.*s", *reason ? ": " : "", 2 * LABEL_MAX, reason);
    else if (l->shards > 1)
        snprintf(detail, sizeof(detail), "%s (%u %s)", kind, l->shards,
                 l->matrix ? "matrix jobs" : r->dialect->fanout_jobs);
    else
        snprintf(detail, sizeof(detail), "%s", kind);
    finding_init(&f, kind, id, &w, detail);
    f.part[added ? P_NEW_JSON : P_OLD_JSON] = object;
    f.part[P_EXTRA_JSON] = extra;
    f.part[P_MORE] = added && *more ? more : NULL;
    add_finding(r, added ? PH_HEAD : PH_BASE, l->rank, 0, added ? G_ADDED : G_REMOVED, &f);
    if (added)
        r->added++;
    else
        r->removed++;
    goto done;
fail:
    r->failed = true;
done:
    free(id);
    free(bare);
    free(t);
    free(w.label);
    free(object);
    free(extra);
    free(more);
}

/* A step one side has alone, as a rename candidate: its first job's compared fields. */
struct candidate {
    struct logical l;
    struct field_digest {
        uint64_t name, value;
    } *fields; /* by name */
    size_t n;
    bool paired;
};

static int by_rank(const void *pa, const void *pb)
{
    const struct candidate *a = pa, *b = pb;

    return a->l.rank < b->l.rank ? -1 : a->l.rank > b->l.rank;
}

static int by_name(const void *pa, const void *pb)
{
    const struct field_digest *a = pa, *b = pb;

    return a->name < b->name ? -1 : a->name > b->name;
}

/* The digests of c's first job's compared fields, but those that name it (its identity
 * and label): what a renamed step keeps. An env counts by its entries, a workflow job's
 * steps one by one. */
static int candidate_fields(struct side *s, struct candidate *c)
{
    struct shard_tuple t;
    struct entries es = {0};
    int rc = -1;

    if (fseeko(s->shards, (off_t)c->l.tuples_off, SEEK_SET) != 0 || fread(&t, sizeof(t), 1, s->shards) != 1 ||
        entries_read(s->spool, t.data_off, t.data_len, &es) != 0 ||
        !(c->fields = malloc((es.n ? es.n : 1) * sizeof(*c->fields))))
        goto done;
    for (size_t i = 0; i < es.n; i++) {
        const struct entry *e = &es.v[i];
        bool named = is_identity(e->name, strlen(e->name)) || !strcmp(e->name, "label") || !strcmp(e->name, "name");

        if (e->type == E_ENV || e->type == E_SUB || e->type == E_STEP ||
            (e->type == E_FIELD && !named && strcmp(e->name, "env") != 0 && strcmp(e->name, "steps") != 0)) {
            c->fields[c->n].name = strhash_fnv1a(e->name, strlen(e->name)) * FNV_PRIME + e->type;
            c->fields[c->n++].value = strhash_fnv1a(e->json, strlen(e->json));
        }
    }
    qsort(c->fields, c->n, sizeof(*c->fields), by_name);
    rc = 0;
done:
    entries_free(&es);
    return rc;
}

/* The percentage of the fields a or b has that both have with the same value. */
static unsigned similarity(const struct candidate *a, const struct candidate *b)
{
    size_t i = 0, j = 0, same = 0, all = 0;

    while (i < a->n || j < b->n) {
        all++;
        if (i < a->n && j < b->n && a->fields[i].name == b->fields[j].name)
            same += a->fields[i++].value == b->fields[j++].value;
        else if (j == b->n || (i < a->n && a->fields[i].name < b->fields[j].name))
            i++;
        else
            j++;
    }
    return all ? (unsigned)(same * 100 / all) : 0;
}

/* The steps one side has alone: each removed step (in BASE's order) is a rename of the
 * added step most alike, when RENAME_PERCENT of their fields are (looked for when each
 * side has at most RENAME_MAX of them); the others are removed or added. */
static void report_unmatched(struct report *r, struct side *base, struct side *head)
{
    struct side *sides[2] = {base, head};
    struct candidate *c[2] = {NULL, NULL};
    bool look = base->n_unmatched && head->n_unmatched && base->n_unmatched <= RENAME_MAX &&
                head->n_unmatched <= RENAME_MAX;

    for (int k = 0; k < 2; k++) {
        struct side *s = sides[k];

        if (fflush(s->unmatched) != 0 || fseeko(s->unmatched, 0, SEEK_SET) != 0 ||
            (look && !(c[k] = calloc(s->n_unmatched, sizeof(*c[k])))))
            goto fail;
        for (uint32_t i = 0; i < s->n_unmatched; i++) {
            struct logical l;

            if (fread(&l, sizeof(l), 1, s->unmatched) != 1)
                goto fail;
            if (!look) {
                report_one_side(r, s, sides[1 - k], &l, k == 1);
                continue;
            }
            c[k][i].l = l;
            if (candidate_fields(s, &c[k][i]) != 0)
                goto fail;
        }
        if (look)
            qsort(c[k], s->n_unmatched, sizeof(*c[k]), by_rank);
    }
    for (uint32_t i = 0; look && i < base->n_unmatched && !r->failed; i++) {
        unsigned best = 0, sim;
        uint32_t at = UINT32_MAX;
        char *from;

        for (uint32_t j = 0; j < head->n_unmatched; j++) {
            if (c[1][j].paired)
                continue;
            sim = similarity(&c[0][i], &c[1][j]);
            if (sim >= RENAME_PERCENT && sim > best) {
                best = sim;
                at = j;
            }
        }
        if (at == UINT32_MAX) {
            report_one_side(r, base, head, &c[0][i].l, false);
            continue;
        }
        c[1][at].paired = true;
        if (!(from = display_id(base->spool, c[0][i].l.id_off, c[0][i].l.id_len, c[0][i].l.repeat)))
            goto fail;
        compare_matched(r, base, head, &c[0][i].l, &c[1][at].l, c[0][i].l.parent || c[1][at].l.parent, from, best);
        free(from);
    }
    for (uint32_t j = 0; look && j < head->n_unmatched; j++) {
        if (!c[1][j].paired)
            report_one_side(r, head, base, &c[1][j].l, true);
    }
    goto done;
fail:
    r->failed = true;
done:
    for (int k = 0; k < 2; k++) {
        for (uint32_t i = 0; c[k] && i < sides[k]->n_unmatched; i++)
            free(c[k][i].fields);
        free(c[k]);
    }
}

static void unmatched_add(struct report *r, struct side *s, const struct logical *l)
{
    if (fwrite(l, sizeof(*l), 1, s->unmatched) != 1)
        r->failed = true;
    s->n_unmatched++;
}

/* Merge-joins the two sides' logical steps by identity; those of one side only are set
 * aside for report_unmatched. */
static void compare(struct report *r, struct side *base, struct side *head)
{
    /* each record stays valid until the next one of its own sort */
    const struct logical *b = xsort_next(base->logicals), *h = xsort_next(head->logicals);

    while (b || h) {
        int c = !b ? 1 : !h ? -1 : hkey_cmp(&b->lid, &h->lid);

        if (c < 0)
            unmatched_add(r, base, b);
        else if (c > 0)
            unmatched_add(r, head, h);
        else
            compare_matched(r, base, head, b, h, b->parent || h->parent, NULL, 0);
        if (c <= 0)
            b = xsort_next(base->logicals);
        if (c >= 0)
            h = xsort_next(head->logicals);
    }
    if (xsort_failed(base->logicals) || xsort_failed(head->logicals))
        r->failed = true;
}

/* The matched steps outside the longest run that kept its order moved. */
static int report_moves(struct report *r, struct side *head)
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
            uint32_t *ranks;
            struct pair_rec *ids;

            cap = cap ? cap * 2 : 1024;
            if (!(ranks = realloc(head_rank, cap * sizeof(*head_rank))))
                goto done;
            head_rank = ranks;
            if (!(ids = realloc(moved_ids, cap * sizeof(*moved_ids))))
                goto done;
            moved_ids = ids;
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
        const struct pair_rec *m = &moved_ids[i];
        struct logical l = {.shards = m->shards, .tuples_off = m->tuples_off};
        char line[128], old_j[16], new_j[16], *id;
        struct shard_tuple *t;
        struct where w;
        struct finding f;

        if (keep[i])
            continue;
        id = display_id(head->spool, m->id_off, m->id_len, m->repeat);
        t = id ? read_tuples(head, &l) : NULL;
        if (!t || where_of(head, t, NULL, m->shards, id, &w) != 0) {
            free(id);
            free(t);
            goto done;
        }
        snprintf(line, sizeof(line), "moved (step %u -> %u)", m->base_rank + 1, m->head_rank + 1);
        snprintf(old_j, sizeof(old_j), "%u", m->base_rank + 1);
        snprintf(new_j, sizeof(new_j), "%u", m->head_rank + 1);
        finding_init(&f, "moved", id, &w, line);
        f.part[P_OLD_JSON] = old_j;
        f.part[P_NEW_JSON] = new_j;
        r->moved++;
        add_finding(r, PH_MOVES, m->base_rank, 0, G_MOVED, &f);
        free(id);
        free(t);
        free(w.label);
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

static int render_side(const char *spec, const struct render_opts *opts, const struct pd_opts *pd,
                       struct side *s, struct diag *d)
{
    static const cookie_io_functions_t to_json = {NULL, json_write, NULL, NULL};
    struct render_sink sink = {side_begin, side_item, side_reset, s, side_skipped};
    struct render_opts o = *opts;
    int rc;

    memset(s, 0, sizeof(*s));
    s->name = spec;
    s->diag = d;
    s->pd = pd;
    /* the files by their numbers, for the findings' file:line */
    if (inputs_expand(&spec, 1, d, &s->in) != 0)
        return DIAG_INPUT;
    if ((s->json_file = fopencookie(s, "w", to_json)) != NULL)
        s->json_em = emit_create(s->json_file, EMIT_JSON, NULL);
    o.sink = &sink;
    /* findings (HEAD's shard coverage...) are reported and the side is still compared */
    rc = render_run((const char *const *)s->in.paths, s->in.n, &o, d);
    if (rc == DIAG_INPUT)
        return rc;
    if (s->failed || fflush(s->spool) != 0 || ferror(s->spool) || group_side(s) != 0 ||
        !(s->unmatched = tmpfile())) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, spec, 0, 0, RULE_IO,
                    "cannot record the rendering (out of memory or temporary space)");
        return DIAG_INPUT;
    }
    return 0;
}

static void print_summary(struct report *r, bool same, const char *md_text)
{
    char counts[160];

    snprintf(counts, sizeof(counts), "%u added, %u removed, %u renamed, %u changed, %u moved, %u re-sharded",
             r->added, r->removed, r->renamed, r->changed, r->moved, r->resharded);
    switch (r->format) {
    case PD_TEXT:
        fprintf(r->out, "%s%s\n", same ? "no changes: " : "", counts);
        break;
    case PD_GITHUB:
        fprintf(r->out, "::notice title=fanout diff::%s\n", counts);
        break;
    case PD_JSON:
        fprintf(r->out, "%s],\n  \"same\": %s,\n  \"added\": %u,\n  \"removed\": %u,\n  \"renamed\": %u,\n"
                        "  \"changed\": %u,\n  \"moved\": %u,\n  \"resharded\": %u\n}\n",
                r->json_first ? "" : "\n  ", same ? "true" : "false", r->added, r->removed, r->renamed,
                r->changed, r->moved, r->resharded);
        break;
    case PD_MARKDOWN:
        fprintf(r->out, "### fanout: pipeline changes\n\n");
        if (same)
            fprintf(r->out, "No change in the rendered pipeline.\n");
        else
            fprintf(r->out, "**%s**\n\n%s", counts, md_text ? md_text : "");
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
    int rc, findings;

    memset(&head, 0, sizeof(head));
    rc = render_side(base_spec, base_opts, pd, &base, d);
    if (rc == 0)
        rc = render_side(head_spec, head_opts, pd, &head, d);
    if (rc != 0) {
        rc = DIAG_INPUT;
        goto done;
    }
    findings = diag_exit_code(d, false);
    r.dialect = base.dialect;
    r.spool = tmpfile();
    r.findings = xsort_create(sizeof(struct finding_rec), finding_cmp, SORT_BUDGET);
    r.pairs = xsort_create(sizeof(struct pair_rec), pair_cmp, SORT_BUDGET);
    if (!r.spool || !r.findings || !r.pairs)
        goto fail;
    compare(&r, &base, &head);
    if (!r.failed)
        report_unmatched(&r, &base, &head);
    if (r.failed || report_moves(&r, &head) != 0 || r.failed)
        goto fail;
    if (base.outside != head.outside) {
        struct finding f;

        /* top-level settings (env, agents, notify...) and groups' own fields are outside
         * the jobs */
        finding_init(&f, "changed", "(pipeline)", NULL, "top-level settings or groups changed");
        add_finding(&r, PH_MOVES, UINT32_MAX, 0, G_CHANGED, &f);
        r.changed++;
    }
    same = !(r.added || r.removed || r.renamed || r.changed || r.moved || r.resharded);
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
    rc = same && !findings ? 0 : 1;
    goto done;
fail:
    diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_INTERNAL,
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
