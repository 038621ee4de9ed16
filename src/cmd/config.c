#define _XOPEN_SOURCE 700 /* realpath */
#include "fanout/config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fanout/inputs.h"
#include "fanout/rules.h"
#include "fanout/shardflags.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "fanout/suggest.h"
#include "options.h"

#define CONFIG_NAME ".fanout.yml"
#define MAX_LEVELS_UP 64

struct config {
    char *path;
    struct ynode_doc *doc;
};

static const char *const sections[] = {"checks", "shards", "rules", "known_keys", "defaults", "limits", NULL};
/* The job counts `limits` may raise (or lower), in struct dialect_limits' order. */
static const char *const limit_names[] = {"jobs_per_step", "jobs_per_upload", "jobs_per_build", NULL};
#define MAX_LIMIT 1000000
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

/* A limit's value: an integer 1..MAX_LIMIT; 0 when it is not one. */
static unsigned limit_value(const struct ynode *v)
{
    size_t len;
    const char *t = ynode_scalar(v, &len);
    unsigned long n = 0;

    if (!t || ynode_is_string(v) || len == 0 || len > 7)
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (t[i] < '0' || t[i] > '9')
            return 0;
        n = n * 10 + (unsigned long)(t[i] - '0');
    }
    return n >= 1 && n <= MAX_LIMIT ? (unsigned)n : 0;
}

static int check_limits(const struct config *c, struct diag *d, const struct ynode *limits)
{
    if (!ynode_is_map(limits))
        return config_error(c, d, limits, "limits is a mapping (%s)", "jobs_per_step, jobs_per_upload, jobs_per_build");
    for (size_t i = 0; i < ynode_len(limits); i++) {
        if (!one_of(ynode_key(limits, i), limit_names))
            return unknown(c, d, ynode_key(limits, i), "limit", limit_names);
        if (!limit_value(ynode_value(limits, i)))
            return config_error(c, d, ynode_value(limits, i), "a limit is a number of jobs, 1 to %d", MAX_LIMIT);
    }
    return 0;
}

/* The config's shape: its sections, the rule levels, the commands of `defaults`. */
static int check_shape(const struct config *c, struct diag *d)
{
    const struct ynode *root = ynode_doc_root(c->doc), *rules, *keys, *defaults;

    if (!ynode_is_map(root))
        return config_error(c, d, root, "the config is a mapping (%s)", "checks, shards, rules, known_keys, defaults, limits");
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
    if (ynode_get(root, "limits") && check_limits(c, d, ynode_get(root, "limits")) != 0)
        return 2;
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

/* ---- the config applied to a command's options ---- */

const char *config_given(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "--config") && i + 1 < argc)
            return argv[i + 1];
        if (!strncmp(argv[i], "--config=", 9))
            return argv[i] + 9;
    }
    return NULL;
}

/* One option from the config's defaults (`name: arg`); what is wrong with it is reported
 * at `at`, where it must be fixed ("Try 'fanout --help'" would point at the wrong place). */
static int apply_option(struct cli *c, const struct cmd_entry *cmd, const struct opt *o,
                        const struct config *cfg, struct diag *d, const struct ynode *at, const char *name,
                        const char *arg)
{
    char message[1024] = "";
    int rc;

    cmd_usage_hold(message, sizeof(message));
    rc = opt_apply(o, c, cmd, arg);
    cmd_usage_hold(NULL, 0);
    if (rc != 0 && message[0])
        config_error(cfg, d, at, "%s", message);
    else if (rc != 0) /* the option reported its own error (a file it reads) */
        config_error(cfg, d, at, "the value of %s (above)", name);
    return rc;
}

/* A switch in the defaults: `true` gives it, `false` turns off what it turns on
 * (`validate: false` is --no-validate) and leaves any other switch as it is. */
static int apply_switch(struct cli *c, const struct cmd_entry *cmd, const struct opt *o,
                        const struct config *cfg, struct diag *d, const struct ynode *k,
                        const struct ynode *v)
{
    bool on = ynode_scalar_is(v, "true");
    struct opt off;

    if (!on && !ynode_scalar_is(v, "false"))
        return config_error(cfg, d, v, "%s is true or false", ynode_scalar(k, NULL));
    if (on)
        return apply_option(c, cmd, o, cfg, d, v, ynode_scalar(k, NULL), NULL);
    if (o->kind != OPT_SET || !o->value)
        return 0;
    off = *o;
    off.value = false;
    return apply_option(c, cmd, &off, cfg, d, v, ynode_scalar(k, NULL), NULL);
}

/* A path the config gives to `o`, as git reads a path in a config file: from the
 * config's directory (the config may be found in a directory above), unless absolute
 * or `-`; a bare word given to an option that also takes a name (--schema NAME,
 * --rayci-config NAME) is a name. The value as written, or a path the run keeps (NULL
 * when out of memory). */
static const char *from_config(struct cli *c, const struct opt *o, const struct config *cfg, const char *arg)
{
    enum option_path kind = o->dialect ? o->dialect->path : o->path;
    char *made;

    if (kind == OPTION_NOT_PATH || !strcmp(arg, "-") || arg[0] == '/' || !strchr(config_path(cfg), '/') ||
        (kind == OPTION_PATH_OR_NAME && !strpbrk(arg, "./")))
        return arg;
    if (!(made = inputs_path_from(config_path(cfg), arg)) ||
        cmd_append_word((const char ***)&c->config_paths, &c->n_config_paths, made) != 0) {
        free(made);
        return NULL;
    }
    return made;
}

/* An option with a value in the defaults: a list is the option repeated. */
static int apply_values(struct cli *c, const struct cmd_entry *cmd, const struct opt *o,
                        const struct config *cfg, struct diag *d, const struct ynode *k,
                        const struct ynode *v)
{
    for (size_t j = 0; j < (ynode_is_seq(v) ? ynode_len(v) : 1); j++) {
        const struct ynode *item = ynode_is_seq(v) ? ynode_item(v, j) : v;
        const char *arg = ynode_scalar(item, NULL);

        if (!arg)
            return config_error(cfg, d, v, "%s takes a value or a list of values", ynode_scalar(k, NULL));
        if (!(arg = from_config(c, o, cfg, arg)))
            return config_error(cfg, d, item, "%s", "out of memory");
        if (apply_option(c, cmd, o, cfg, d, item, ynode_scalar(k, NULL), arg) != 0)
            return CMD_EXIT_USAGE;
    }
    return 0;
}

/* The defaults of `defaults.<command>`, each as its option (a config cannot name another
 * config). */
static int apply_defaults(struct cli *c, const struct cmd_entry *cmd, const struct opt_list *own,
                          const struct config *cfg, struct diag *d)
{
    const struct ynode *defaults = config_defaults(cfg, cmd->name);
    const struct opt *config = opt_find(own, "config");
    const char *names[OPT_MAX + 1];

    opt_names(own, config, names);
    for (size_t i = 0; i < ynode_len(defaults); i++) {
        const struct ynode *k = ynode_key(defaults, i), *v = ynode_value(defaults, i);
        const struct opt *o;
        char name[64], *p;
        int rc;

        snprintf(name, sizeof(name), "%s", ynode_scalar(k, NULL) ? ynode_scalar(k, NULL) : "");
        for (p = name; *p; p++)
            *p = *p == '_' ? '-' : *p;
        if (!(o = opt_find(own, name)) || o == config) {
            char phrase[SUGGEST_PHRASE_MAX];

            return config_error(cfg, d, k, "%s has no option '%s'%s", cmd->name, ynode_scalar(k, NULL),
                                suggest_phrase(suggest_closest(name, strlen(name), names,
                                                               suggest_limit(strlen(name))), phrase));
        }
        rc = o->has_arg ? apply_values(c, cmd, o, cfg, d, k, v) : apply_switch(c, cmd, o, cfg, d, k, v);
        if (rc != 0)
            return CMD_EXIT_USAGE;
    }
    return 0;
}

/* The config's job limits (checked by check_limits) for render's lint and the dialects. */
static void apply_limits(struct cli *c, const struct ynode *limits)
{
    unsigned *slot[] = {&c->limits.jobs_per_step, &c->limits.jobs_per_upload, &c->limits.jobs_per_build};

    for (size_t i = 0; i < ynode_len(limits); i++) {
        for (size_t k = 0; limit_names[k]; k++) {
            if (ynode_scalar_is(ynode_key(limits, i), limit_names[k]))
                *slot[k] = limit_value(ynode_value(limits, i));
        }
    }
    if (limits)
        c->render.limits = &c->limits;
}

int config_apply(struct cli *c, const struct cmd_entry *cmd, const struct opt_list *own,
                 const struct config *cfg, struct diag *d)
{
    const struct ynode *rules = config_section(cfg, "rules"), *keys = config_section(cfg, "known_keys");

    if (apply_defaults(c, cmd, own, cfg, d) != 0)
        return CMD_EXIT_USAGE;
    /* the command line may still give BASE's and HEAD's */
    memset(c->dialect_given, 0, sizeof(c->dialect_given));
    for (size_t i = 0; i < ynode_len(rules); i++) {
        const char *level = ynode_scalar(ynode_value(rules, i), NULL);

        if (cmd_rule_level(c, ynode_scalar(ynode_key(rules, i), NULL),
                           !strcmp(level, "off") ? DIAG_LEVEL_OFF
                           : !strcmp(level, "error") ? DIAG_LEVEL_ERROR : DIAG_LEVEL_WARNING,
                           "the config's rules") != 0)
            return CMD_EXIT_USAGE;
    }
    for (size_t i = 0; i < ynode_len(keys); i++) {
        if (cmd_append_word(&c->known_keys, &c->n_known_keys, ynode_scalar(ynode_item(keys, i), NULL)) != 0)
            return CMD_EXIT_USAGE;
    }
    apply_limits(c, config_section(cfg, "limits"));
    return 0;
}

int config_shard_rules(struct cli *c, const struct config *cfg, struct diag *d)
{
    const struct ynode *list = config_section(cfg, "shards");

    if (!(c->shards = shardflags_create())) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_INTERNAL, "out of memory");
        return CMD_EXIT_USAGE;
    }
    if (!list || shardflags_configure(c->shards, list, config_path(cfg), d) == 0)
        return 0;
    return CMD_EXIT_USAGE;
}
