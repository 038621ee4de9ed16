/* steplint: the findings on a Buildkite step as written (steplint.h). */
#include "steplint.h"

#include <string.h>

#include "fanout/strset.h"
#include "fanout/suggest.h"

#include "buildkite.h"
#include "placeholder.h"

/* Whether unknown key `k` was warned about before in `file` (a file's warnings are its
 * own; a run reads the files in order). */
static bool warned_before(struct bk_state *st, unsigned file, const char *k, size_t len)
{
    if (file != st->warned_file) {
        strset_clear(st->warned);
        st->warned_file = file;
    }
    return strset_add(st->warned, k, len) != 0;
}

/* Whether key k (len bytes) at place i of a step of `kind` is known: as the key at its
 * place in the step before (st->known), else by the type's lists (noted there). */
static bool known_key(struct bk_state *st, size_t i, enum bk_kind kind, const char *k, size_t len)
{
    struct bk_known *m = st ? &st->known : NULL;
    bool known;

    if (m && i < BK_KNOWN_KEYS && len && len == m->len[i] && !memcmp(k, m->text[i], len))
        return true;
    known = bk_known_key(kind, k, len);
    if (m && i < BK_KNOWN_KEYS) {
        m->len[i] = known && len <= BK_KNOWN_KEY_BYTES ? (unsigned char)len : 0;
        memcpy(m->text[i], k, m->len[i]);
    }
    return known;
}

void steplint_keys(const struct dialect_ctx *ctx, const struct ynode *step, enum bk_kind kind)
{
    struct bk_state *st = ctx->state;

    if (st && st->known.kind != (int)kind) { /* the keys known are another type's */
        memset(st->known.len, 0, sizeof(st->known.len));
        st->known.kind = (int)kind;
    }
    for (size_t i = 0; i < ynode_len(step); i++) {
        const struct ynode *key = ynode_key(step, i);
        size_t len;
        const char *k = ynode_scalar(key, &len);
        struct ypos pos = ynode_pos(key);

        const char *near;

        /* A misplaced parallelism or matrix gets its own error. */
        if (known_key(st, i, kind, k, len) || (len == 11 && !memcmp(k, "parallelism", 11)) ||
            (len == 6 && !memcmp(k, "matrix", 6)))
            continue;
        /* a typo of a key the step type has: the step would silently lose it */
        if ((near = bk_key_suggest(kind, k, len)) != NULL) {
            char phrase[SUGGEST_PHRASE_MAX];

            diag_at(ctx->diag, DIAG_ERROR, DIAG_FINDING, ctx->files, pos, RULE_UNKNOWN_KEY,
                    "unknown key '%.*s' in a %s step%s", BK_SHORT(len), k, bk_kind_name(kind),
                    suggest_phrase(near, phrase));
            continue;
        }
        if (st && warned_before(st, pos.file, k, len)) {
            diag_cover(ctx->diag, ctx->files, pos, RULE_UNKNOWN_KEY); /* the schema keeps quiet here too */
            continue;
        }
        diag_at(ctx->diag, DIAG_WARNING, DIAG_FINDING, ctx->files, pos, RULE_UNKNOWN_KEY,
                "unknown key '%.*s' in a %s step%s", BK_SHORT(len), k, bk_kind_name(kind),
                st ? " (reported once per file)" : "");
    }
}

bool steplint_type_typo(const struct dialect_ctx *ctx, const struct ynode *step)
{
    bool found = false;

    for (size_t i = 0; i < ynode_len(step); i++) {
        const struct ynode *key = ynode_key(step, i);
        size_t len;
        const char *k = ynode_scalar(key, &len);
        const char *near = k ? bk_type_key_suggest(k, len) : NULL;
        char phrase[SUGGEST_PHRASE_MAX];

        if (!near || bk_known_key(BK_UNKNOWN, k, len))
            continue;
        diag_at(ctx->diag, DIAG_ERROR, DIAG_FINDING, ctx->files, ynode_pos(key), RULE_UNKNOWN_KEY,
                "unknown key '%.*s' in a step that has no type key%s", BK_SHORT(len), k,
                suggest_phrase(near, phrase));
        found = true;
    }
    return found;
}

/* Whether the step's own env (a trigger's: its build's) sets BUILDKITE_PARALLEL_JOB, as
 * every job of a rendered parallel step does: its label is final, so a `%N` in it is a
 * literal one (a `%%N` filled), shown as written. */
static bool sets_shard_env(const struct ynode *step, enum bk_kind kind)
{
    const struct ynode *holder = kind == BK_TRIGGER ? ynode_get(step, "build") : step;

    return ynode_has(ynode_get(holder, "env"), "BUILDKITE_PARALLEL_JOB");
}

static void check_placeholders(const struct dialect_ctx *ctx, const struct ynode *step, enum bk_kind kind)
{
    const char *field = bk_label_field(step, kind);
    const struct ynode *label = field ? ynode_get(step, field) : NULL;
    size_t len;
    const char *t = ynode_scalar(label, &len);
    long at;
    struct ypos pos;

    if (!t || sets_shard_env(step, kind) || (at = ph_label_find(t, len)) < 0 ||
        dialect_options_value(ctx->options, &bk_options[BK_OPT_ALLOW_PLACEHOLDERS], ctx->side))
        return;
    pos = ynode_text_pos(label, (size_t)at);
    /* A step that cannot have parallelism (a block: vLLM's generator titles them "Run
     * <label>") is not a step someone forgot to shard: shown as written, a warning; none
     * for a block the test-area dialect made as the generator does (render --changed):
     * its label is the generator's, not the input's. */
    if (kind != BK_COMMAND && kind != BK_TRIGGER && label->style == YNODE_MADE)
        return;
    if (kind != BK_COMMAND && kind != BK_TRIGGER)
        diag_at(ctx->diag, DIAG_WARNING, DIAG_FINDING, ctx->files, pos, RULE_PLACEHOLDER,
                "label placeholder '%%%c' in a %s step, which has no parallelism "
                "(Buildkite shows it as written)", t[at + 1], bk_kind_name(kind));
    else
        diag_at(ctx->diag, DIAG_ERROR, DIAG_FINDING, ctx->files, pos, RULE_PLACEHOLDER,
                "label placeholder '%%%c' in a step without parallelism (Buildkite "
                "shows it as written; use --allow-placeholders to accept)", t[at + 1]);
}

/* The first scalar under `n` that reads a shard variable, or NULL. */
static const struct ynode *shard_variable_user(const struct ynode *n)
{
    size_t len;
    const char *t = ynode_scalar(n, &len);
    const struct ynode *found = NULL;

    if (t)
        return ph_vars_find(t, len) ? n : NULL;
    for (size_t i = 0; !found && i < ynode_len(n); i++)
        found = shard_variable_user(ynode_is_seq(n) ? ynode_item(n, i) : ynode_value(n, i));
    return found;
}

/* A step without parallelism (of any type; a matrix step's jobs are no parallel jobs)
 * that reads BUILDKITE_PARALLEL_JOB(_COUNT): Buildkite leaves them unset, unless the
 * step's env sets them (a rendered shard does). A warning: Buildkite runs the step, and
 * what an empty value means is the program's (ray's test_in_docker reads it as one
 * worker, worker 0; ci/ray_ci/test_in_docker.py: `int(workers) if workers else 1`). */
static void check_shard_variables(const struct dialect_ctx *ctx, const struct ynode *step, enum bk_kind kind)
{
    static const char *const fields[] = {"command", "commands", "env", "plugins"};
    const struct ynode *user = NULL;
    struct ypos p;

    if (sets_shard_env(step, kind))
        return;
    for (size_t i = 0; !user && i < sizeof(fields) / sizeof(fields[0]); i++)
        user = shard_variable_user(ynode_get(step, fields[i]));
    if (!user)
        return;
    p = ynode_pos(user);
    diag_at(ctx->diag, DIAG_WARNING, DIAG_FINDING, ctx->files, p, RULE_SHARD_VARIABLES,
            "BUILDKITE_PARALLEL_JOB is read by a %s: Buildkite does not set it (it reads empty)",
            ynode_has(step, "matrix") ? "matrix step (only parallelism makes parallel jobs)"
                                      : "step without parallelism");
}

void steplint_unsharded(const struct dialect_ctx *ctx, const struct ynode *step, enum bk_kind kind)
{
    check_placeholders(ctx, step, kind);
    check_shard_variables(ctx, step, kind);
}
