/* bkkeys: mapping keys as Buildkite's agent reads them (bkkeys.h). */
#include "bkkeys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/strset.h"
#include "fanout/text.h"
#include "fanout/ynode.h"

#include "bkscalar.h"

struct bkkeys {
    struct diag *diag;
    const char *const *names;
    struct strset *seen; /* a mapping's keys, when one of them changed */
};

struct bkkeys *bkkeys_create(void)
{
    struct bkkeys *k = calloc(1, sizeof(*k));

    if (k && !(k->seen = strset_create())) {
        free(k);
        return NULL;
    }
    return k;
}

void bkkeys_destroy(struct bkkeys *k)
{
    if (!k)
        return;
    strset_destroy(k->seen);
    free(k);
}

void bkkeys_begin(struct bkkeys *k, struct diag *d, const char *const *names)
{
    k->diag = d;
    k->names = names;
}

/* Whether the plain key `t` may be one yaml.v3 types as other than a string: a number,
 * `.inf`, `~`, or one of the spellings of true, false and null (all 5 bytes at most).
 * Most keys are words and are told here without bkscalar's reading. */
static bool maybe_typed(const char *t, size_t len)
{
    switch (*t) {
    case 't': case 'T': case 'f': case 'F': case 'n': case 'N':
        return len <= 5;
    case '~': case '.': case '+': case '-':
        return true;
    default:
        return *t >= '0' && *t <= '9';
    }
}

/* The key *slot as the agent reads it: replaced by a string when it is not one. 1 when
 * it changed, 0 when not, -1 after an error. */
static int canonical(struct bkkeys *k, struct ynode_doc *doc, struct ynode **slot)
{
    const struct ynode *key = *slot;
    char buf[BK_SCALAR_BUF], as[48];
    const char *t;
    size_t len;
    struct ynode *made;

    if (!ynode_is_scalar(key) || ynode_is_string(key) || !key->u.scalar.text ||
        (key->u.scalar.len && !maybe_typed(key->u.scalar.text, key->u.scalar.len)))
        return 0;
    switch (bk_scalar_text(key, buf, &t, &len)) {
    case BK_SCALAR_NULL:
        diag_at(k->diag, DIAG_ERROR, DIAG_INPUT, k->names, ynode_pos(key), RULE_YAML,
                "a null key: Buildkite's agent refuses the pipeline (\"null not supported as a map key\")");
        return -1;
    case BK_SCALAR_BOOL:
    case BK_SCALAR_INT:
    case BK_SCALAR_UINT:
        break;
    case BK_SCALAR_FLOAT: /* Go's %e; bkscalar's shortest text reads back as the value */
        if (strcmp(t, "NaN") && strcmp(t, "+Inf") && strcmp(t, "-Inf"))
            len = (size_t)snprintf(as, sizeof(as), "%e", strtod(t, NULL)), t = as;
        break;
    default: /* a string, or a timestamp: as written */
        return 0;
    }
    if (!(made = ynode_new_string(doc, t, len, ynode_pos(key)))) {
        diag_at(k->diag, DIAG_ERROR, DIAG_INPUT, k->names, ynode_pos(key), RULE_INTERNAL, "out of memory");
        return -1;
    }
    *slot = made;
    return 1;
}

/* Two keys of `map` the agent reads as one (one of them was just changed). */
static int check_unique(struct bkkeys *k, const struct ynode *map)
{
    int rc = 0;

    strset_clear(k->seen);
    for (size_t i = 0; rc == 0 && i < ynode_len(map); i++) {
        const struct ynode *key = ynode_key(map, i);
        int seen = ynode_is_scalar(key) ? strset_add(k->seen, key->u.scalar.text, key->u.scalar.len) : 0;

        if (seen < 0) {
            diag_at(k->diag, DIAG_ERROR, DIAG_INPUT, k->names, ynode_pos(key), RULE_INTERNAL, "out of memory");
            rc = -1;
        } else if (seen > 0) {
            diag_at(k->diag, DIAG_ERROR, DIAG_INPUT, k->names, ynode_pos(key), RULE_DUPLICATE_KEY,
                    "key '%.*s' twice in this mapping as Buildkite's agent reads its keys (it keeps "
                    "only the last value)", (int)text_utf8_cut(key->u.scalar.text, key->u.scalar.len, 60),
                    key->u.scalar.text);
            rc = -1;
        }
    }
    return rc;
}

static int walk(struct bkkeys *k, struct ynode_doc *doc, struct ynode *n)
{
    bool changed = false;

    if (ynode_is_seq(n)) {
        for (size_t i = 0; i < ynode_len(n); i++) {
            if (walk(k, doc, ynode_item(n, i)) != 0)
                return -1;
        }
        return 0;
    }
    if (!ynode_is_map(n))
        return 0;
    for (size_t i = 0; i < ynode_len(n); i++) {
        int rc = canonical(k, doc, &n->u.map.pairs[i].key);

        if (rc < 0 || walk(k, doc, ynode_value(n, i)) != 0)
            return -1;
        changed |= rc > 0;
    }
    return changed ? check_unique(k, n) : 0;
}

int bkkeys_item(struct bkkeys *k, struct stream_item *item)
{
    return item->doc ? walk(k, item->doc, ynode_doc_root(item->doc)) : 0;
}
