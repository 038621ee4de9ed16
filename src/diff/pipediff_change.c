#define _GNU_SOURCE /* open_memstream, asprintf */
/* pipediff_change: how a changed field reads, whole where a reader needs it: a list's
 * items added and removed, a multi-line text (or a command list) as a unified diff of its
 * lines (textdiff's), else both values on one line, cut around their first difference
 * when long. The values come back whole from their JSON: only the changed fields of the
 * step compared are read. */
#include "pipediff_internal.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/textdiff.h"

void pd_change_free(struct change *ch)
{
    free(ch->detail);
    free(ch->field);
    free(ch->old_v);
    free(ch->new_v);
    free(ch->old_w);
    free(ch->new_w);
    free(ch->old_json);
    free(ch->new_json);
    free(ch->hunks);
    free(ch->added);
    free(ch->removed);
    free(ch->items_json);
    memset(ch, 0, sizeof(*ch));
}

/* Whether a value's form depends on more than its shown text: cut, a list, a text with
 * a line break. */
static bool needs_tree(const struct pd_value *v)
{
    return v->json && (v->cut || v->json[0] == '[' || (v->json[0] == '"' && strstr(v->json, "\\n")));
}

/* A value as lines, each ended by a line break: a text's, or (`commands`) a list's
 * texts' one after the other; NULL when it is neither (or out of memory: *failed). */
static char *lines_of(const struct ynode *n, bool commands, bool *failed)
{
    size_t count = ynode_is_seq(n) ? ynode_len(n) : 1, len, blen;
    char *buf = NULL;
    FILE *m;

    if (ynode_is_seq(n) ? !commands : !ynode_is_string(n))
        return NULL;
    for (size_t i = 0; i < count; i++) {
        if (!ynode_is_scalar(ynode_is_seq(n) ? ynode_item(n, i) : n))
            return NULL;
    }
    if (!(m = open_memstream(&buf, &blen))) {
        *failed = true;
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        const char *t = ynode_scalar(ynode_is_seq(n) ? ynode_item(n, i) : n, &len);

        fwrite(t, 1, len, m);
        if (!len || t[len - 1] != '\n')
            fputc('\n', m);
    }
    if (fclose(m) != 0) {
        free(buf);
        *failed = true;
        return NULL;
    }
    return buf;
}

static bool several_lines(const char *t)
{
    const char *nl = strchr(t, '\n');

    return nl && nl[1];
}

/* The lines form: the hunks of ta against tb, and "FIELD: N lines removed, M added".
 * 0 (nothing set when they are alike as lines: only a last line break differs), or -1
 * when out of memory. */
static int lines_change(struct change *ch, const char *ta, const char *tb)
{
    char *h = NULL;
    size_t len;
    unsigned out = 0, in = 0;
    FILE *m = open_memstream(&h, &len);
    int rc;

    if (!m)
        return -1;
    rc = textdiff_texts(m, ta, strlen(ta), tb, strlen(tb));
    if (fclose(m) != 0 || rc != 0) {
        free(h);
        return -1;
    }
    if (!len) {
        free(h);
        return 0;
    }
    for (const char *p = h; *p; p = strchr(p, '\n') + 1) {
        out += *p == '-';
        in += *p == '+';
    }
    h[len - 1] = '\0'; /* its last line break: the formats end a line each their own way */
    ch->hunks = h;
    if (out && in)
        rc = asprintf(&ch->detail, "%s: %u line%s removed, %u added", ch->field, out, out > 1 ? "s" : "", in);
    else
        rc = asprintf(&ch->detail, "%s: %u line%s %s", ch->field, out + in, out + in > 1 ? "s" : "",
                      out ? "removed" : "added");
    if (rc < 0)
        ch->detail = NULL;
    return rc < 0 ? -1 : 0;
}

/* Whether n is a list of items: scalars, or mappings of scalars (a reference written as a
 * mapping, `{step: build-1, allow_failure: true}`). */
static bool scalars(const struct ynode *n)
{
    for (size_t i = 0; i < ynode_len(n); i++) {
        const struct ynode *item = ynode_item(n, i);

        for (size_t k = 0; ynode_is_map(item) && k < ynode_len(item); k++) {
            if (!ynode_is_scalar(ynode_value(item, k)))
                return false;
        }
        if (!ynode_is_scalar(item) && !(ynode_is_map(item) && ynode_len(item)))
            return false;
    }
    return ynode_is_seq(n);
}

/* An item of either list, for sorting them together: a scalar by its text, a mapping
 * by how it is shown (`shown`, malloc'd). */
struct item {
    const struct ynode *n;
    unsigned side;
    size_t index;
    char *shown;
};

static int item_cmp(const void *pa, const void *pb)
{
    const struct item *a = pa, *b = pb;
    size_t la, lb;
    const char *ta, *tb;
    int c;

    if (!a->shown != !b->shown)
        return a->shown ? 1 : -1;
    if (a->shown)
        return strcmp(a->shown, b->shown);
    ta = ynode_scalar(a->n, &la);
    tb = ynode_scalar(b->n, &lb);
    if (ynode_is_string(a->n) != ynode_is_string(b->n))
        return ynode_is_string(a->n) ? 1 : -1;
    if ((c = memcmp(ta, tb, la < lb ? la : lb)) != 0 || la == lb)
        return c;
    return la < lb ? -1 : 1;
}

/* A scalar read back from JSON as JSON: a string quoted, else as it is (a number, true,
 * false or null). */
static void write_json_scalar(FILE *json, const struct ynode *n)
{
    if (ynode_is_string(n))
        diag_write_json_string(json, ynode_scalar(n, NULL));
    else
        fputs(ynode_scalar(n, NULL), json);
}

/* Writes the items of `list` that `shared` does not mark: as shown into `shown` (one a
 * line), as JSON into `json`, after `sign` into `detail` (*listed: items written there). */
static int write_items(const struct ynode *list, const bool *shared, const char *sign, FILE *shown, FILE *json,
                       FILE *detail, unsigned *listed, struct blob *b)
{
    bool first = true;

    fputc('[', json);
    for (size_t i = 0; i < ynode_len(list); i++) {
        const struct ynode *n = ynode_item(list, i);
        const char *t = pd_show_whole(b, n), *raw = ynode_scalar(n, NULL);

        if (shared[i])
            continue;
        if (!t)
            return -1;
        fprintf(shown, "%s\n", t);
        fprintf(detail, "%s%s %s", (*listed)++ ? ", " : " ", sign, t);
        fputs(first ? "" : ", ", json);
        first = false;
        if (raw) {
            write_json_scalar(json, n);
            continue;
        }
        for (size_t k = 0; k < ynode_len(n); k++) {
            fputs(k ? ", " : "{", json);
            write_json_scalar(json, ynode_key(n, k));
            fputs(": ", json);
            write_json_scalar(json, ynode_value(n, k));
        }
        fputc('}', json);
    }
    fputc(']', json);
    return 0;
}

/* The items form: the items of list b that a has not (added) and of a that b has not
 * (removed), as sets (by sorting both: time n log n), but those `skip` passes over. 0
 * (nothing set when neither has an item the other has not: a list reordered or an item
 * repeated), 1 when the items only one has are all passed over, or -1 when out of
 * memory. */
static int items_change(struct change *ch, const struct ynode *a, const struct ynode *b, const struct pd_skip *skip)
{
    size_t na = ynode_len(a), nb = ynode_len(b), n = na + nb, dl = 0, al = 0, rl = 0, jl = 0;
    struct item *v = malloc((n ? n : 1) * sizeof(*v));
    bool *shared = calloc(n ? n : 1, 1), any = false, skipped = false;
    char *detail = NULL, *json = NULL;
    FILE *md = NULL, *ma = NULL, *mr = NULL, *mj = NULL;
    struct blob blob = {0};
    unsigned listed = 0;
    int rc = -1, closed;

    if (!v || !shared)
        goto done;
    for (size_t i = 0; i < n; i++) {
        const char *t;

        v[i].side = i >= na;
        v[i].index = i < na ? i : i - na;
        v[i].n = ynode_item(i < na ? a : b, v[i].index);
        v[i].shown = NULL;
        if (ynode_is_map(v[i].n) && (!(t = pd_show_whole(&blob, v[i].n)) || !(v[i].shown = strdup(t)))) {
            n = i; /* those before are freed */
            goto done;
        }
    }
    qsort(v, n, sizeof(*v), item_cmp);
    /* a run of equal items with both sides in it is shared */
    for (size_t i = 0, j; i < n; i = j) {
        unsigned sides = 0;

        for (j = i; j < n && !item_cmp(&v[i], &v[j]); j++)
            sides |= 1u << v[j].side;
        /* an item that only says a fan-out changed reads as both sides' */
        for (size_t k = i; k < j && sides != 3 && skip; k++) {
            if (skip->item(skip->user, a, b, v[k].n, v[k].side)) {
                sides = 3;
                skipped = true;
            }
        }
        for (size_t k = i; k < j; k++)
            shared[v[k].side ? na + v[k].index : v[k].index] = sides == 3;
        any |= sides != 3;
    }
    if (!any) {
        rc = skipped;
        goto done;
    }
    if (!(md = open_memstream(&detail, &dl)) || !(ma = open_memstream(&ch->added, &al)) ||
        !(mr = open_memstream(&ch->removed, &rl)) || !(mj = open_memstream(&json, &jl)))
        goto done;
    fprintf(md, "%s:", ch->field);
    fputs("\"items\": {\"added\": ", mj);
    rc = write_items(b, shared + na, "+", ma, mj, md, &listed, &blob);
    fputs(", \"removed\": ", mj);
    rc |= write_items(a, shared, "-", mr, mj, md, &listed, &blob);
    fputc('}', mj);
done:
    /* all closed whatever the first gives: a buffer is final only then */
    closed = md ? fclose(md) : 0;
    closed |= ma ? fclose(ma) : 0;
    closed |= mr ? fclose(mr) : 0;
    closed |= mj ? fclose(mj) : 0;
    if (md && rc == 0 && closed == 0) {
        ch->detail = detail;
        ch->items_json = json;
    } else {
        free(detail);
        free(json);
        rc = md ? -1 : rc;
    }
    free(blob.buf);
    for (size_t i = 0; v && i < n; i++)
        free(v[i].shown);
    free(v);
    free(shared);
    return rc;
}

/* A value whole on one line: as shown, or from its tree when what is shown is cut or is
 * a text's lines. NULL when out of memory. */
static char *whole_text(const struct pd_value *v, const struct ynode *n)
{
    struct blob b = {0};
    const char *t;
    char *w;

    if (!v->json)
        return strdup("(none)");
    if (!v->cut && !(v->raw && strchr(v->shown, '\n')))
        return strdup(v->shown);
    t = pd_show_whole(&b, n);
    w = t ? strdup(t) : NULL;
    free(b.buf);
    return w;
}

/* The scalar form: "FIELD: OLD -> NEW", long values cut around their first difference. */
static int scalar_change(struct change *ch)
{
    bool ca = false, cb = false;

    if (!(ch->old_v = pd_window(ch->old_w, ch->new_w, &ca)) || !(ch->new_v = pd_window(ch->new_w, ch->old_w, &cb)))
        return -1;
    ch->cut = ca || cb;
    if (asprintf(&ch->detail, "%s: %s -> %s", ch->field, ch->old_v, ch->new_v) < 0) {
        ch->detail = NULL;
        return -1;
    }
    return 0;
}

int pd_value_change(struct change *ch, const char *field, bool commands, const struct pd_value *a,
                    const struct pd_value *b)
{
    return pd_value_change_skip(ch, field, commands, a, b, NULL) == 0 ? 0 : -1;
}

int pd_value_change_skip(struct change *ch, const char *field, bool commands, const struct pd_value *a,
                         const struct pd_value *b, const struct pd_skip *skip)
{
    struct ynode_doc *da = NULL, *db = NULL;
    const struct ynode *na = NULL, *nb = NULL;
    char *ta = NULL, *tb = NULL;
    bool failed = false;
    int rc = -1;

    memset(ch, 0, sizeof(*ch));
    if (!(ch->field = strdup(field)) || (a->json && !(ch->old_json = strdup(a->json))) ||
        (b->json && !(ch->new_json = strdup(b->json))))
        goto done;
    if ((needs_tree(a) && !(da = pd_json_read(a->json))) || (needs_tree(b) && !(db = pd_json_read(b->json))))
        goto done;
    na = da ? ynode_doc_root(da) : NULL;
    nb = db ? ynode_doc_root(db) : NULL;
    /* whole on one line in every form: several jobs' changes may read as the words they
     * differ by */
    if (!(ch->old_w = whole_text(a, na)) || !(ch->new_w = whole_text(b, nb)))
        goto done;
    if (na && nb) {
        ta = lines_of(na, commands, &failed);
        tb = lines_of(nb, commands, &failed);
        if (failed || (ta && tb && (several_lines(ta) || several_lines(tb)) && lines_change(ch, ta, tb) != 0))
            goto done;
        if (!ch->hunks && !commands && scalars(na) && scalars(nb) && (rc = items_change(ch, na, nb, skip)) != 0)
            goto done;
    }
    rc = ch->detail ? 0 : scalar_change(ch);
done:
    free(ta);
    free(tb);
    ynode_doc_destroy(da);
    ynode_doc_destroy(db);
    if (rc != 0)
        pd_change_free(ch);
    return rc;
}

void pd_finding_form(struct finding *f, const struct change *ch)
{
    f->part[P_HUNKS] = ch->hunks;
    f->part[P_ADDED] = ch->added;
    f->part[P_REMOVED] = ch->removed;
}

int pd_change_parts(struct finding *f, const struct change *ch, char **full)
{
    f->part[P_FIELD] = ch->field;
    f->part[P_OLD] = ch->old_v;
    f->part[P_NEW] = ch->new_v;
    f->part[P_OLD_JSON] = ch->old_json;
    f->part[P_NEW_JSON] = ch->new_json;
    f->part[P_EXTRA_JSON] = ch->items_json;
    pd_finding_form(f, ch);
    *full = NULL;
    if (ch->cut && asprintf(full, "old: %s\nnew: %s", ch->old_json ? ch->old_json : "(none)",
                            ch->new_json ? ch->new_json : "(none)") < 0) {
        *full = NULL;
        return -1;
    }
    f->part[P_FULL] = *full;
    return 0;
}
