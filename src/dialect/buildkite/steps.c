#include "steps.h"

#include <string.h>

#include "fanout/dialect.h"
#include "fanout/suggest.h"

const char *const bk_label_keys[] = {"label", "name", NULL};
const char *const bk_key_keys[] = {"key", "id", "identifier", NULL};

/* A key name with its length: the lists are searched for every key of every step. */
struct key {
    const char *name;
    size_t len;
};

#define K(s) {s, sizeof(s) - 1}

static const struct key common_keys[] = {
    K("key"), K("id"), K("identifier"), K("depends_on"), K("allow_dependency_failure"),
    K("if"), K("branches"), K("label"), K("name"), K("type"), K("if_changed"), {NULL, 0}};
static const struct key command_keys[] = {
    K("command"), K("commands"), K("agents"), K("agent_query_rules"), K("env"),
    K("plugins"), K("artifact_paths"), K("artifacts"), K("parallelism"), K("matrix"),
    K("skip"), K("soft_fail"), K("retry"), K("timeout_in_minutes"), K("timeout"),
    K("priority"), K("concurrency"), K("concurrency_group"), K("concurrency_method"),
    K("cancel_on_build_failing"), K("notify"), K("secrets"), K("cache"), K("checkout"),
    K("image"), K("signature"), {NULL, 0}};
static const struct key wait_keys[] = {
    K("wait"), K("waiter"), K("continue_on_failure"), {NULL, 0}};
static const struct key block_keys[] = {
    K("block"), K("input"), K("manual"), K("prompt"), K("fields"), K("blocked_state"),
    K("allowed_teams"), {NULL, 0}};
static const struct key trigger_keys[] = {
    K("trigger"), K("build"), K("async"), K("skip"), K("soft_fail"), K("parallelism"),
    {NULL, 0}};
static const struct key group_keys[] = {
    K("group"), K("steps"), K("notify"), K("skip"), {NULL, 0}};

static bool in_list(const struct key *list, const char *key, size_t len)
{
    for (; list->name; list++) {
        if (list->len == len && list->name[0] == key[0] && memcmp(list->name, key, len) == 0)
            return true;
    }
    return false;
}

static bool has(const struct ynode *step, const char *key)
{
    return ynode_has(step, key);
}

static enum bk_kind kind_from_type(const struct ynode *type)
{
    static const struct {
        const char *name;
        enum bk_kind kind;
    } types[] = {
        {"command", BK_COMMAND}, {"script", BK_COMMAND}, {"wait", BK_WAIT},
        {"waiter", BK_WAIT},     {"block", BK_BLOCK},    {"manual", BK_BLOCK},
        {"input", BK_INPUT},     {"trigger", BK_TRIGGER}, {"group", BK_GROUP},
    };

    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if (ynode_scalar_is(type, types[i].name))
            return types[i].kind;
    }
    return BK_UNKNOWN;
}

enum bk_kind bk_step_kind(const struct ynode *step)
{
    if (!step)
        return BK_INVALID;
    if (ynode_is_scalar(step)) {
        if (ynode_scalar_is(step, "wait") || ynode_scalar_is(step, "waiter"))
            return BK_WAIT;
        if (ynode_scalar_is(step, "block") || ynode_scalar_is(step, "manual"))
            return BK_BLOCK;
        if (ynode_scalar_is(step, "input"))
            return BK_INPUT;
        return BK_INVALID;
    }
    if (!ynode_is_map(step))
        return BK_INVALID;
    if (has(step, "type"))
        return kind_from_type(ynode_get(step, "type"));
    if (has(step, "command") || has(step, "commands") || has(step, "plugins"))
        return BK_COMMAND;
    if (has(step, "wait") || has(step, "waiter"))
        return BK_WAIT;
    if (has(step, "block") || has(step, "manual"))
        return BK_BLOCK;
    if (has(step, "input"))
        return BK_INPUT;
    if (has(step, "trigger"))
        return BK_TRIGGER;
    if (has(step, "group"))
        return BK_GROUP;
    return BK_UNKNOWN;
}

const char *bk_kind_name(enum bk_kind kind)
{
    switch (kind) {
    case BK_COMMAND:
        return "command";
    case BK_WAIT:
        return "wait";
    case BK_BLOCK:
        return "block";
    case BK_INPUT:
        return "input";
    case BK_TRIGGER:
        return "trigger";
    case BK_GROUP:
        return "group";
    case BK_UNKNOWN:
        return "unknown";
    case BK_INVALID:
        break;
    }
    return "invalid";
}

/* The keys of a step type's list, into names (NULL-terminated); their number. */
static size_t list_names(const struct key *list, const char **names, size_t n)
{
    for (; list->name; list++)
        names[n++] = list->name;
    names[n] = NULL;
    return n;
}

/* The keys a step type has besides the common ones; NULL for none (unknown, invalid). */
static const struct key *kind_keys(enum bk_kind kind)
{
    switch (kind) {
    case BK_COMMAND:
        return command_keys;
    case BK_WAIT:
        return wait_keys;
    case BK_BLOCK:
    case BK_INPUT:
        return block_keys;
    case BK_TRIGGER:
        return trigger_keys;
    case BK_GROUP:
        return group_keys;
    case BK_UNKNOWN:
    case BK_INVALID:
        break;
    }
    return NULL;
}

const char *bk_key_suggest(enum bk_kind kind, const char *key, size_t len)
{
    const char *names[96];
    size_t n = list_names(common_keys, names, 0);

    if (kind_keys(kind))
        list_names(kind_keys(kind), names, n);
    return suggest_closest(key, len, names, suggest_limit(len));
}

const char *bk_type_key_suggest(const char *key, size_t len)
{
    /* bk_step_kind's keys */
    static const char *const type_keys[] = {"command", "commands", "plugins", "wait", "waiter", "block", "manual",
                                            "input", "trigger", "group", NULL};

    return suggest_closest(key, len, type_keys, suggest_limit(len));
}

bool bk_known_key(enum bk_kind kind, const char *key, size_t len)
{
    return in_list(common_keys, key, len) || (kind_keys(kind) && in_list(kind_keys(kind), key, len));
}

const char *bk_label_field(const struct ynode *step, enum bk_kind kind)
{
    struct ynode *v = NULL;
    const char *name;

    if (kind == BK_BLOCK || kind == BK_INPUT) {
        name = kind == BK_BLOCK ? "block" : "input";
        if (ynode_is_scalar(ynode_get(step, name)))
            return name;
    }
    if (kind == BK_GROUP && ynode_is_scalar(ynode_get(step, "group")))
        return "group";
    name = ynode_get_any(step, bk_label_keys, &v);
    return ynode_is_scalar(v) ? name : NULL;
}

bool dialect_buildkite_command_key(const char *key, size_t len)
{
    return bk_known_key(BK_COMMAND, key, len);
}
