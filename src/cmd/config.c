#define _XOPEN_SOURCE 700 /* realpath */
#include "fanout/config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fanout/rules.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/suggest.h"

#define CONFIG_NAME ".fanout.yml"
#define MAX_LEVELS_UP 64

struct config {
    char *path;
    struct ynode_doc *doc;
};

static const char *const sections[] = {"checks", "shards", "rules", "known_keys", "defaults", NULL};
static const char *const commands[] = {"render", "diff", "check", "validate", "shards check", NULL};
static const char *const levels[] = {"error", "warning", "off", NULL};

int config_error(const struct config *c, struct diag *d, const struct ynode *at, const char *fmt, ...)
{
    struct ypos p = ynode_pos(at);
    va_list ap;

    va_start(ap, fmt);
    diag_vreport(d, DIAG_ERROR, DIAG_INPUT, c->path, p.line, p.col, RULE_CONFIG, fmt, ap);
    va_end(ap);
    return 2;
}

/* "unknown <what> 'x' (a, b or c), did you mean 'y'?" at `key`. */
static int unknown(const struct config *c, struct diag *d, const struct ynode *key, const char *what,
                   const char *const *names)
{
    size_t len, o = 0;
    const char *word = ynode_scalar(key, &len);
    char list[256], phrase[SUGGEST_PHRASE_MAX];

    if (!word)
        return config_error(c, d, key, "a %s must be a string", what);
    list[0] = '\0';
    for (size_t i = 0; names[i] && o < sizeof(list); i++)
        o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i ? ", " : "", names[i]);
    return config_error(c, d, key, "unknown %s '%s' (%s)%s", what, word, list,
                        suggest_phrase(suggest_closest(word, len, names, suggest_limit(len)), phrase));
}

static bool one_of(const struct ynode *n, const char *const *names)
{
    for (size_t i = 0; names[i]; i++) {
        if (ynode_scalar_is(n, names[i]))
            return true;
    }
    return false;
}

/* The config's shape: its sections, the rule levels, the commands of `defaults`. */
static int check_shape(const struct config *c, struct diag *d)
{
    const struct ynode *root = ynode_doc_root(c->doc), *rules, *keys, *defaults;

    if (!ynode_is_map(root))
        return config_error(c, d, root, "the config is a mapping (%s)", "checks, shards, rules, known_keys, defaults");
    for (size_t i = 0; i < ynode_len(root); i++) {
        if (!one_of(ynode_key(root, i), sections))
            return unknown(c, d, ynode_key(root, i), "key", sections);
    }
    if ((rules = ynode_get(root, "rules")) != NULL) {
        if (!ynode_is_map(rules))
            return config_error(c, d, rules, "rules is a mapping of rule to error, warning or off");
        for (size_t i = 0; i < ynode_len(rules); i++) {
            const struct ynode *k = ynode_key(rules, i);
            const char *name = ynode_scalar(k, NULL);
            char phrase[SUGGEST_PHRASE_MAX];

            if (!name || rules_find(name) == RULE_NONE)
                return config_error(c, d, k, "unknown rule '%s' (fanout help rules)%s", name ? name : "",
                                    suggest_phrase(name ? rules_suggest(name) : NULL, phrase));
            if (!one_of(ynode_value(rules, i), levels))
                return config_error(c, d, ynode_value(rules, i), "a rule's level is error, warning or off");
        }
    }
    if ((keys = ynode_get(root, "known_keys")) != NULL) {
        for (size_t i = 0; ynode_is_seq(keys) && i < ynode_len(keys); i++) {
            if (!ynode_is_scalar(ynode_item(keys, i)))
                return config_error(c, d, ynode_item(keys, i), "known_keys are keys (shell globs)");
        }
        if (!ynode_is_seq(keys))
            return config_error(c, d, keys, "known_keys is a list of keys (shell globs)");
    }
    if ((defaults = ynode_get(root, "defaults")) != NULL) {
        if (!ynode_is_map(defaults))
            return config_error(c, d, defaults, "defaults is a mapping of command to its options");
        for (size_t i = 0; i < ynode_len(defaults); i++) {
            if (!one_of(ynode_key(defaults, i), commands))
                return unknown(c, d, ynode_key(defaults, i), "command", commands);
            if (!ynode_is_map(ynode_value(defaults, i)))
                return config_error(c, d, ynode_value(defaults, i), "a command's defaults are a mapping of option to value");
        }
    }
    return 0;
}

/* .fanout.yml from here up to the repository root (malloc'd path), or NULL. Anything
 * of that name is the config, a link that leads nowhere (or in a loop) and a directory
 * too: reading it then fails (exit 2), rather than the run going on without it. */
static char *discover(void)
{
    char prefix[3 * MAX_LEVELS_UP + 1] = "", path[sizeof(prefix) + sizeof(CONFIG_NAME) + 8];
    char here[PATH_MAX], *real;
    struct stat sb;

    for (int up = 0; up < MAX_LEVELS_UP; up++) {
        snprintf(path, sizeof(path), "%s" CONFIG_NAME, prefix);
        if (lstat(path, &sb) == 0)
            return strdup(path);
        snprintf(path, sizeof(path), "%s.git", prefix);
        if (access(path, F_OK) == 0)
            return NULL; /* the repository's root: no further */
        if (!(real = realpath(*prefix ? prefix : ".", here)) || !strcmp(real, "/"))
            return NULL;
        strcat(prefix, "../");
    }
    return NULL;
}

int config_load(const char *given, struct diag *d, struct config **out)
{
    struct config *c = NULL;
    struct source *src = NULL;
    struct stream *s = NULL;
    int rc = 2;

    *out = NULL;
    if (!(c = calloc(1, sizeof(*c))))
        goto done;
    if (!(c->path = given ? strdup(given) : discover())) {
        rc = given ? 2 : 0;
        goto done;
    }
    if (!(src = source_open(c->path, d)) || !(s = stream_open(src, 0, d)) || stream_document(s, &c->doc) < 0)
        goto done;
    if (!c->doc) {
        rc = config_error(c, d, NULL, "the config is empty");
        goto done;
    }
    if ((rc = check_shape(c, d)) == 0) {
        *out = c;
        c = NULL;
    }
done:
    stream_close(s);
    source_close(src);
    config_destroy(c);
    return rc;
}

void config_destroy(struct config *c)
{
    if (!c)
        return;
    ynode_doc_destroy(c->doc);
    free(c->path);
    free(c);
}

const char *config_path(const struct config *c)
{
    return c->path;
}

const struct ynode *config_root(const struct config *c)
{
    return ynode_doc_root(c->doc);
}

const struct ynode *config_section(const struct config *c, const char *key)
{
    return c ? ynode_get(ynode_doc_root(c->doc), key) : NULL;
}

const struct ynode *config_defaults(const struct config *c, const char *command)
{
    return ynode_get(config_section(c, "defaults"), command);
}
