/* pipediff_codec: a job as a side spools it (its digest, the job packed) and, read back,
 * its comparable fields as entries (see pipediff_internal.h), the fields its dialect's
 * `diff` table names treated as it says (identity, defaults, env, commands, own items). */
#include "pipediff_internal.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/arrays.h"
#include "fanout/strhash.h"
#include "fanout/strset.h"
#include "fanout/yscalar.h"

/* An entry: where it is written (`at`: its key, else its value; `v` its value), then its
 * name, its value as shown and as JSON. */
static int blob_entry(struct blob *b, enum entry_type type, const struct ynode *at, const struct ynode *v,
                      const char *name, size_t nlen, const char *value, const char *json)
{
    uint8_t t = (uint8_t)type;
    /* a literal block's lines are the value's, one for one, from its position on */
    uint32_t where[3] = {ynode_pos(at).file, ynode_pos(at).line,
                         v && v->kind == YNODE_SCALAR && v->style == YNODE_LITERAL ? ynode_pos(v).line : 0};

    return pd_blob_add(b, &t, 1) == 0 && pd_blob_add(b, where, sizeof(where)) == 0 && pd_blob_str(b, name, nlen) == 0 &&
                   pd_blob_str(b, value, strlen(value)) == 0 && pd_blob_str(b, json, strlen(json)) == 0
               ? 0
               : -1;
}

/* The first of `keys` (NULL: none) that `map` has, its value in *value. */
static const char *get_any(const struct ynode *map, const char *const *keys, struct ynode **value)
{
    *value = NULL;
    return keys && ynode_is_map(map) ? ynode_get_any(map, keys, value) : NULL;
}

/* What a reviewer calls one of a job's own items (a workflow job's step: its name, else
 * its id, its action, the first line of its script), else its place. */
static void item_name(char *buf, size_t cap, const struct dialect_diff *dd, const struct ynode *step,
                      size_t index)
{
    struct ynode *v;
    size_t len;
    const char *key = get_any(step, dd->item_names, &v), *t = ynode_scalar(v, &len);

    if (!t || !len) {
        snprintf(buf, cap, "#%zu", index + 1);
        return;
    }
    if (memchr(t, '\n', len))
        len = (size_t)((const char *)memchr(t, '\n', len) - t);
    if (len > 60)
        len = 60;
    /* the first of the names is the item's own, quoted */
    snprintf(buf, cap, key == dd->item_names[0] ? "\"%.*s\"" : "%.*s", (int)len, t);
}

/* What a reader calls a job: its label (a workflow job's name), else its prompt. */
const char *pd_job_title(const struct dialect_diff *dd, const struct ynode *job, size_t *len)
{
    struct ynode *v;

    if (!ynode_is_map(job))
        return NULL;
    if (!get_any(job, dd->labels, &v))
        get_any(job, dd->prompts, &v);
    return ynode_scalar(v, len);
}

ssize_t pd_json_write(void *user, const char *buf, size_t n)
{
    struct side *s = user;

    return pd_blob_add(&s->json, buf, n) == 0 ? (ssize_t)n : -1;
}

const char *pd_json_of(struct side *s, const struct ynode *n)
{
    char *p;
    size_t o = 0;
    bool quoted = false, escaped = false;

    s->json.len = 0;
    emit_node(s->json_em, n);
    emit_flush(s->json_em);
    if (fflush(s->json_file) != 0 || pd_blob_add(&s->json, "", 1) != 0)
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

/* Whether field `name` with value `v` is left out of the comparison: at its default
 * (one of its dialect's values that mean what its absence means), or named by
 * --ignore-field. */
static bool quiet(const struct side *s, const char *name, size_t len, const struct ynode *v)
{
    size_t vlen = 0;
    const char *t = ynode_scalar(v, &vlen);
    const struct dialect_default *defaults = s->dialect->diff->defaults;

    if (s->fields)
        strset_add(s->fields, name, len); /* check_ignored's (pipediff.c): an --ignore-field typo */
    for (size_t i = 0; i < s->pd->n_ignore_fields; i++) {
        if (pd_is_name(name, len, s->pd->ignore_fields[i]))
            return true;
    }
    for (size_t i = 0; t && defaults && defaults[i].field; i++) {
        /* `false` and `0` as written plain: a quoted "false" is a string */
        if (pd_is_name(name, len, defaults[i].field) && pd_is_name(t, vlen, defaults[i].value) &&
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
        snprintf(line, sizeof(line), "%.*s%s", (int)text_utf8_cut(t, first, VALUE_MAX), t,
                 first > VALUE_MAX ? "..." : nl && nl + 1 < t + len ? " ..." : "");
        if (blob_entry(&s->blob, E_COMMAND, v, NULL, what, strlen(what), line, "") != 0)
            return -1;
    }
    return 0;
}

static int serialize_step_field(struct side *s, const char *step, const struct ynode *key,
                                const struct ynode *value, bool entries)
{
    char name[200], *v;
    size_t len;
    const char *k = ynode_scalar(key, &len), *text = ynode_scalar(value, NULL), *json;
    struct text t;
    int rc;

    if ((k && quiet(s, k, len, value)) || !entries)
        return 0;
    snprintf(name, sizeof(name), "%s\x1f%.*s", step, (int)(len > 100 ? 100 : len), k ? k : "");
    if (!(json = pd_json_of(s, value)))
        return -1;
    if (text)
        return blob_entry(&s->blob, E_SUBFIELD, key, value, name, strlen(name), text, json);
    pd_show(&t, value);
    if (!(v = malloc(strlen(t.buf) + 20)))
        return -1;
    sprintf(v, "%s\x1f%016llx", t.buf, (unsigned long long)pd_node_hash(value, 0));
    rc = blob_entry(&s->blob, E_SUBFIELD, key, value, name, strlen(name), v, json);
    free(v);
    return rc;
}

/* The SUB entries of a job's own items (a workflow job's steps), each with its fields
 * and the first command it runs; a repeated name gets " #2", " #3"... */
static int serialize_items(struct side *s, const struct ynode *steps, uint64_t *h, bool entries)
{
    const struct dialect_diff *dd = s->dialect->diff;
    char (*names)[80] = calloc(ynode_len(steps) ? ynode_len(steps) : 1, sizeof(*names));
    struct text t;
    const char *json;
    int rc = 0;

    if (!names)
        return -1;
    for (size_t i = 0; i < ynode_len(steps) && rc == 0; i++) {
        const struct ynode *step = ynode_item(steps, i);
        struct ynode *runs;
        const char *what;
        unsigned seen = 1;

        item_name(names[i], sizeof(names[i]) - 8, dd, step, i);
        for (size_t k = 0; k < i; k++)
            seen += strncmp(names[k], names[i], strlen(names[i])) == 0 &&
                    (names[k][strlen(names[i])] == '\0' || names[k][strlen(names[i])] == ' ');
        if (seen > 1)
            snprintf(names[i] + strlen(names[i]), 8, " #%u", seen % 100000);
        if (entries) {
            pd_show(&t, step);
            rc = (json = pd_json_of(s, step)) ? blob_entry(&s->blob, E_SUB, step, NULL, names[i], strlen(names[i]), t.buf, json) : -1;
        }
        *h ^= pd_entry_hash(names[i], strlen(names[i]), step, 0xC2B2AE3D27D4EB4Full);
        for (size_t f = 0; rc == 0 && ynode_is_map(step) && f < ynode_len(step); f++)
            rc = serialize_step_field(s, names[i], ynode_key(step, f), ynode_value(step, f), entries);
        /* what it runs, for an added job's report */
        if (rc == 0 && entries && (what = get_any(step, dd->item_commands, &runs)) != NULL)
            rc = serialize_commands(s, what, runs);
    }
    free(names);
    return rc;
}

/* The ENV entries of env `v`, but the shard variables (the platform's: every name that
 * begins with the index variable's, as the count variable's does). */
/* Whether --ignore-field names entry `name` (len bytes) of a job's env by its path
 * (`env.HF_HOME`, as a top-level env's is named); each path noted for the warning about
 * a name nothing has. */
static bool env_ignored(const struct side *s, const char *name, size_t len)
{
    const char *env = s->dialect->diff->env;
    size_t n = strlen(env);
    char path[160];

    if (!s->fields || len + n + 2 > sizeof(path))
        return false;
    snprintf(path, sizeof(path), "%s.%.*s", env, (int)len, name);
    strset_add(s->fields, path, n + 1 + len);
    for (size_t i = 0; i < s->pd->n_ignore_fields; i++) {
        if (pd_is_name(path, n + 1 + len, s->pd->ignore_fields[i]))
            return true;
    }
    return false;
}

static int serialize_env(struct side *s, const struct ynode *v, uint64_t *h, bool entries)
{
    const char *shard_var = s->dialect->shard_index_variable;
    struct text t;
    const char *json;

    for (size_t e = 0; e < ynode_len(v); e++) {
        size_t elen;
        const char *ename = ynode_scalar(ynode_key(v, e), &elen);

        if (!ename || (shard_var && !strncmp(ename, shard_var, strlen(shard_var))) || env_ignored(s, ename, elen))
            continue;
        if (elen > 100)
            elen = 100;
        if (entries) {
            pd_show(&t, ynode_value(v, e));
            if (!(json = pd_json_of(s, ynode_value(v, e))) ||
                blob_entry(&s->blob, E_ENV, ynode_key(v, e), ynode_value(v, e), ename, elen, t.buf, json) != 0)
                return -1;
        }
        *h ^= pd_entry_hash(ename, elen, ynode_value(v, e), 0xD6E8FEB86659FD93ull);
    }
    return 0;
}

const struct dialect_command *pd_command_field(const struct dialect_diff *dd, const char *name, size_t len)
{
    for (const struct dialect_command *c = dd->commands; c && c->field; c++) {
        if (pd_is_name(name, len, c->field))
            return c;
    }
    return NULL;
}

/* The COMMAND entries of field `name` when its dialect says it holds what the job runs. */
static int serialize_job_commands(struct side *s, const char *name, size_t len, const struct ynode *v)
{
    const struct dialect_command *c = pd_command_field(s->dialect->diff, name, len);

    return c ? serialize_commands(s, c->shown, v) : 0;
}

/* The entries of `step` into s->blob (with `entries`; else none); *digest covers those
 * that decide whether it changed. */
static int serialize(struct side *s, const struct ynode *step, uint64_t *digest, bool entries)
{
    const struct dialect_diff *dd = s->dialect->diff;
    struct blob *b = &s->blob;
    uint64_t h = 0xcbf29ce484222325ull;
    struct text t;
    const char *json;

    b->len = 0;
    if (!ynode_is_map(step)) {
        if (entries) {
            pd_show(&t, step);
            if (!(json = pd_json_of(s, step)) || blob_entry(b, E_STEP, step, NULL, "", 0, t.buf, json) != 0)
                return -1;
        }
        *digest = pd_node_hash(step, h);
        return 0;
    }
    for (size_t i = 0; i < ynode_len(step); i++) {
        size_t len = 0;
        const char *name = ynode_scalar(ynode_key(step, i), &len);
        const struct ynode *v = ynode_value(step, i);
        bool compared, env;

        if (!name)
            continue;
        if (len > 100)
            len = 100;
        compared = !quiet(s, name, len, v);
        if (entries) {
            pd_show(&t, v);
            if (t.cut) /* the digest of the whole value tells a change past the cut */
                snprintf(t.buf + strlen(t.buf), sizeof(t.buf) - strlen(t.buf), "\x1f%016llx",
                         (unsigned long long)pd_node_hash(v, 0));
            if (!(json = pd_json_of(s, v)) ||
                blob_entry(b, compared ? E_FIELD : E_QUIET, ynode_key(step, i), v, name, len, t.buf, json) != 0 ||
                serialize_job_commands(s, name, len, v) != 0)
                return -1;
        }
        if (!compared)
            continue;
        /* a job's own items count one by one, the env by its entries, the identity not at
         * all */
        if (pd_is_field(dd->items, name, len) && ynode_is_seq(v)) {
            if (serialize_items(s, v, &h, entries) != 0)
                return -1;
            continue;
        }
        env = pd_is_field(dd->env, name, len);
        if (!env && !pd_in_list(dd->identity, name, len))
            h ^= pd_entry_hash(name, len, v, 0x9E3779B97F4A7C15ull + i);
        if (env && ynode_is_map(v) && serialize_env(s, v, &h, entries) != 0)
            return -1;
    }
    *digest = h;
    return 0;
}

/* A node (NULL too) packed as it is, small (the spool holds every job of both sides, and
 * its bytes are written and read through the page cache: the most of a diff's I/O): one
 * byte for kind, style, verbatim and whether its file is the previous node's (0xff:
 * NULL), then LEB128 numbers: its file when another, its line as the difference from
 * the previous node's (zigzag: a job's nodes are on nearby lines, a byte where the line
 * itself takes three in a large file), its column, and the length of its text or the
 * count of its children; then the text or the children. A job packs from file 0, line 0.
 * Unpacked, it is the same tree to every reader here. */
#define SAME_FILE 0x40

struct pack_at {
    unsigned file, line; /* the previous node's */
};

static size_t pack_number(uint8_t *out, uint64_t v)
{
    size_t n = 0;

    if (v <= 0x7f) { /* most: a column, a line's step, a short text's length */
        out[0] = (uint8_t)v;
        return 1;
    }

    do {
        out[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}

static int pack(struct blob *b, const struct ynode *n, struct pack_at *prev)
{
    /* the head and a scalar's text are written in place: a job packs about twenty nodes,
     * and every job of both sides is packed */
    size_t text = n && ynode_is_scalar(n) ? n->u.scalar.len : 0;
    /* the room asked of pd_blob_reserve only when it is short: a call a node was 4.6M
     * instructions of a diff at 1 MB */
    uint8_t *at = (uint8_t *)(b->buf && b->len + 1 + 4 * 10 + text <= b->cap ? b->buf + b->len
                                                                            : pd_blob_reserve(b, 1 + 4 * 10 + text));
    size_t len = 1;
    int64_t down;

    if (!at)
        return -1;
    if (!n) {
        at[0] = 0xff;
        b->len += 1;
        return 0;
    }
    at[0] = (uint8_t)(n->kind | n->style << 2 | (n->verbatim ? 1 : 0) << 5 | (n->pos.file == prev->file ? SAME_FILE : 0));
    if (n->pos.file != prev->file)
        len += pack_number(at + len, n->pos.file);
    down = (int64_t)n->pos.line - (int64_t)prev->line;
    len += pack_number(at + len, down < 0 ? (uint64_t)(-down) * 2 - 1 : (uint64_t)down * 2);
    len += pack_number(at + len, n->pos.col);
    len += pack_number(at + len, ynode_is_scalar(n) ? text : ynode_len(n));
    prev->file = n->pos.file;
    prev->line = n->pos.line;
    if (text)
        memcpy(at + len, n->u.scalar.text, text);
    b->len += len + text;
    if (ynode_is_scalar(n))
        return 0;
    for (size_t i = 0; i < ynode_len(n); i++) {
        if ((ynode_is_map(n) && pack(b, ynode_key(n, i), prev) != 0) ||
            pack(b, ynode_is_map(n) ? ynode_value(n, i) : ynode_item(n, i), prev) != 0)
            return -1;
    }
    return 0;
}

/* The LEB128 number at *p (before end), *p moved past it; *ok false when it runs past. */
static uint64_t unpack_number(const char **p, const char *end, bool *ok)
{
    uint64_t v = 0;

    for (unsigned shift = 0; *ok && *p < end && shift < 64; shift += 7) {
        uint8_t byte = (uint8_t) * (*p)++;

        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return v;
    }
    *ok = false;
    return 0;
}

/* The node packed at *p (before end) into doc, *p moved past it; *ok false when the
 * bytes end early or the arena is out of memory. */
static struct ynode *unpack(struct ynode_doc *doc, const char **p, const char *end, struct pack_at *prev, bool *ok)
{
    uint8_t head;
    struct ypos pos;
    uint64_t len, down;
    struct ynode *n;

    if (!*ok || *p >= end)
        return *ok = false, NULL;
    head = (uint8_t) * (*p)++;
    if (head == 0xff)
        return NULL;
    pos.file = head & SAME_FILE ? prev->file : (unsigned)unpack_number(p, end, ok);
    down = unpack_number(p, end, ok);
    pos.line = (unsigned)(down & 1 ? prev->line - (down + 1) / 2 : prev->line + down / 2);
    pos.col = (unsigned)unpack_number(p, end, ok);
    len = unpack_number(p, end, ok);
    if (!*ok)
        return NULL;
    prev->file = pos.file;
    prev->line = pos.line;
    if ((head & 3) == YNODE_SCALAR) {
        if ((uint64_t)(end - *p) < len || !(n = ynode_new_scalar(doc, *p, len, (enum ynode_style)(head >> 2 & 7), pos)))
            return *ok = false, NULL;
        *p += len;
    } else if (!(n = (head & 3) == YNODE_MAP ? ynode_new_map(doc, pos) : ynode_new_seq(doc, pos))) {
        return *ok = false, NULL;
    }
    n->verbatim = head >> 5 & 1;
    for (uint64_t i = 0; i < len && !ynode_is_scalar(n) && *ok; i++) {
        struct ynode *k = ynode_is_map(n) ? unpack(doc, p, end, prev, ok) : NULL, *v = unpack(doc, p, end, prev, ok);

        if (*ok && (ynode_is_map(n) ? ynode_append_pair(doc, n, k, v) : ynode_append(doc, n, v)) != 0)
            *ok = false;
    }
    return n;
}

/* A job as it renders: its digest, and the job packed into `out` for the spool. Its
 * entries (the texts a report shows, and JSON) are made from that only when a
 * comparison reads it back (pd_entries_read): most jobs of a diff are unchanged. */
int pd_serialize(struct side *s, const struct ynode *step, uint64_t *digest, struct blob *out)
{
    struct pack_at from = {0, 0};

    return serialize(s, step, digest, false) != 0 ? -1 : pack(out, step, &from);
}

/* The entries of the job packed at `off` (`len` bytes) of s's spool. On failure *es is
 * still freeable. */
int pd_entries_read(struct side *s, uint64_t off, uint32_t len, struct entries *es)
{
    char *packed = malloc(len ? len : 1), *raw = NULL, *p;
    const char *at = packed;
    struct ynode_doc *doc = ynode_doc_create();
    struct ynode *job = NULL;
    struct pack_at from = {0, 0};
    uint64_t digest;
    bool ok = packed && doc;
    size_t cap = 0;

    memset(es, 0, sizeof(*es));
    if (ok && pd_spool_read(s, off, packed, len) != 0)
        ok = false;
    if (ok)
        job = unpack(doc, &at, packed + len, &from, &ok);
    if (ok && (serialize(s, job, &digest, true) != 0 || !(raw = malloc(s->blob.len ? s->blob.len : 1))))
        ok = false;
    if (ok)
        memcpy(raw, s->blob.buf, s->blob.len);
    len = (uint32_t)s->blob.len;
    free(packed);
    ynode_doc_destroy(doc);
    if (!ok) {
        free(raw);
        return -1;
    }
    es->text = raw;
    for (p = raw; p < raw + len;) {
        struct entry e;
        const char **parts[3] = {&e.name, &e.value, &e.json};
        uint32_t n;

        e.type = (enum entry_type)(uint8_t)*p++;
        memcpy(&e.file, p, sizeof(e.file));
        memcpy(&e.line, p + 4, sizeof(e.line));
        memcpy(&e.body, p + 8, sizeof(e.body));
        p += 12;
        for (int part = 0; part < 3; part++) {
            memcpy(&n, p, sizeof(n));
            memmove(p, p + sizeof(n), n);
            p[n] = '\0';
            *parts[part] = p;
            p += sizeof(n) + n;
        }
        if (es->n == cap) {
            struct entry *v = array_grow(es->v, &cap, es->n + 1, 16, sizeof(*v));

            if (!v)
                return -1;
            es->v = v;
        }
        es->v[es->n++] = e;
    }
    return 0;
}

void pd_entries_free(struct entries *es)
{
    free(es->v);
    free(es->text);
}

const struct entry *pd_entry_find(const struct entries *es, enum entry_type type,
                                  const char *name)
{
    for (size_t i = 0; i < es->n; i++) {
        if (es->v[i].type == type && strcmp(es->v[i].name, name) == 0)
            return &es->v[i];
    }
    return NULL;
}

/* A configuration's values as "name=value" texts, each ended by a 0x1e byte (a value
 * that is no scalar reads "..."). */
int pd_row_text(struct blob *b, const struct ynode *row)
{
    static const char sep = 0x1e;

    for (size_t k = 0; k < ynode_len(row); k++) {
        size_t kl, vl;
        const char *key = ynode_scalar(ynode_key(row, k), &kl), *v = ynode_scalar(ynode_value(row, k), &vl);

        if (!v)
            v = "...", vl = 3;
        if (pd_blob_add(b, key, kl) != 0 || pd_blob_add(b, "=", 1) != 0 || pd_blob_add(b, v, vl) != 0 ||
            pd_blob_add(b, &sep, 1) != 0)
            return -1;
    }
    return 0;
}

/* A field's entry: compared, else left out (at its default, or ignored). */
const struct entry *pd_field_entry(const struct entries *es, const char *name)
{
    const struct entry *e = pd_entry_find(es, E_FIELD, name);

    return e ? e : pd_entry_find(es, E_QUIET, name);
}

bool pd_has_type(const struct entries *es, enum entry_type type)
{
    for (size_t i = 0; i < es->n; i++) {
        if (es->v[i].type == type)
            return true;
    }
    return false;
}
