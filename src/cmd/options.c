/* options: the table-driven parser of a command's options. getopt_long does the reading
 * (abbreviations, `--name=value`, options after operands, `--`); the tables say what
 * each option is and where its value goes. */
#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "fanout/strhash.h"
#include "fanout/suggest.h"

/* A name's slot in `l`'s index: where it is, or the empty slot where it would go. */
static unsigned char *opt_slot(struct opt_list *l, const char *name)
{
    size_t i = (size_t)strhash_fnv1a(name, strlen(name)) & (OPT_SLOTS - 1);

    while (l->slots[i] && strcmp(l->items[l->slots[i] - 1].name, name) != 0)
        i = (i + 1) & (OPT_SLOTS - 1);
    return &l->slots[i];
}

void opt_list_clear(struct opt_list *l)
{
    l->n = 0;
    memset(l->slots, 0, sizeof(l->slots));
}

const struct opt *opt_find(const struct opt_list *l, const char *name)
{
    unsigned char at = *opt_slot((struct opt_list *)l, name);

    return at ? &l->items[at - 1] : NULL;
}

static int add_one(struct opt_list *l, const struct opt *o)
{
    unsigned char *slot = opt_slot(l, o->name);

    if (*slot)
        return 0;
    if (l->n == OPT_MAX)
        return -1;
    l->items[l->n++] = *o;
    *slot = (unsigned char)l->n;
    return 0;
}

/* Every dialect option, in dialect_option_at's order, listed at the first call (the
 * tables are constant): a command's list asks for each of them at each of its options.
 * NULL when the dialects declare more than DIALECT_MAX_OPTIONS (more than a run's counts
 * hold). */
static const struct dialect_option *const *dialect_options_listed(size_t *n)
{
    static const struct dialect_option *listed[DIALECT_MAX_OPTIONS + 1];
    static size_t n_listed;
    static bool done;

    for (; !done && n_listed <= DIALECT_MAX_OPTIONS; n_listed++) {
        if (!(listed[n_listed] = dialect_option_at(n_listed, NULL)))
            break;
    }
    done = true;
    *n = n_listed;
    return n_listed > DIALECT_MAX_OPTIONS ? NULL : listed;
}
/* Where a dialect option stands in a command's list: after the table's option its help
 * follows (its index), else where OPT_DIALECTS is, or last. */
enum { AT_DIALECTS = -1, AT_END = -2 };

/* The index of the option named `name` in `table`, else AT_DIALECTS. */
static long table_index(const struct opt *const *table, const char *name)
{
    for (size_t i = 0; table[i]; i++) {
        if (table[i]->kind != OPT_DIALECTS && !strcmp(table[i]->name, name))
            return (long)i;
    }
    return AT_DIALECTS;
}

/* The dialect options of `dialects`'s scope that stand `at` (where[] says where each
 * does). */
static int add_dialect_options(struct opt_list *l, const struct opt *dialects,
                               const struct dialect_option *const *all, const long *where, size_t n_all,
                               long at)
{
    for (size_t i = 0; dialects && i < n_all; i++) {
        if (where[i] != at || !(all[i]->scope & (unsigned)dialects->value))
            continue;
        if (add_one(l, &(const struct opt){.kind = OPT_CALL, .name = all[i]->name, .has_arg = all[i]->has_arg,
                                           .value = (int)i, .call = dialects->call, .help = all[i]->help,
                                           .dialect = all[i]}) != 0)
            return -1;
    }
    return 0;
}

int opt_list_add(struct opt_list *l, const struct opt *const *table)
{
    const struct opt *dialects = NULL;
    const struct dialect_option *const *all;
    long where[DIALECT_MAX_OPTIONS];
    size_t n_all;
    int rc = 0;

    if (!(all = dialect_options_listed(&n_all)))
        return -1;
    for (size_t i = 0; table[i]; i++)
        dialects = table[i]->kind == OPT_DIALECTS ? table[i] : dialects;
    for (size_t i = 0; dialects && i < n_all; i++)
        where[i] = all[i]->help_after ? table_index(table, all[i]->help_after) : AT_END;
    for (size_t i = 0; table[i] && rc == 0; i++) {
        if (table[i]->kind == OPT_DIALECTS)
            rc = add_dialect_options(l, dialects, all, where, n_all, AT_DIALECTS);
        else if ((rc = add_one(l, table[i])) == 0)
            rc = add_dialect_options(l, dialects, all, where, n_all, (long)i);
    }
    return rc ? rc : add_dialect_options(l, dialects, all, where, n_all, AT_END);
}

void opt_names(const struct opt_list *l, const struct opt *except, const char **names)
{
    size_t n = 0;

    for (size_t i = 0; i < l->n; i++) {
        if (&l->items[i] != except)
            names[n++] = l->items[i].name;
    }
    names[n] = NULL;
}

void opt_help(const struct opt_list *l, FILE *out)
{
    for (size_t i = 0; i < l->n; i++) {
        if (l->items[i].print_help)
            l->items[i].print_help(out);
        else if (l->items[i].help)
            fputs(l->items[i].help, out);
    }
}

int opt_apply(const struct opt *o, void *dest, const void *user, const char *arg)
{
    const struct opt_hit hit = {dest, user, o};

    switch (o->kind) {
    case OPT_SET:
        *(bool *)((char *)dest + o->offset) = o->value != 0;
        return 0;
    case OPT_STRING:
        /* a file, a directory or a git ref: '' names none, and a message about it would
         * start with ':' */
        if (!*arg && !o->value) {
            char what[80];

            snprintf(what, sizeof(what), "--%s needs a value, not an empty one", o->name);
            return cmd_usage_error(what, NULL);
        }
        *(const char **)((char *)dest + o->offset) = arg;
        return 0;
    case OPT_CALL:
    case OPT_DIALECTS:
        break;
    }
    return o->call(&hit, arg);
}

/* getopt's view of `known`: its long options (val: the position in `known`, past the
 * short options' letters) and the short ones. */
#define LONG_VAL 256
static void getopt_tables(const struct opt_list *known, struct option *longs, char *shorts)
{
    size_t n = 0, s = 0;

    shorts[s++] = ':';
    for (size_t i = 0; i < known->n; i++) {
        const struct opt *o = &known->items[i];

        longs[n++] = (struct option){o->name, o->has_arg ? required_argument : no_argument, NULL,
                                     LONG_VAL + (int)i};
        if (o->short_name) {
            shorts[s++] = o->short_name;
            if (o->has_arg)
                shorts[s++] = ':';
        }
    }
    longs[n++] = (struct option){"help", no_argument, NULL, 'h'};
    longs[n] = (struct option){NULL, 0, NULL, 0};
    shorts[s++] = 'h';
    shorts[s] = '\0';
}

/* The option of `known` that getopt returned as `val`. */
static const struct opt *known_option(const struct opt_list *known, int val)
{
    if (val >= LONG_VAL)
        return &known->items[val - LONG_VAL];
    for (size_t i = 0; i < known->n; i++) {
        if (known->items[i].short_name == val)
            return &known->items[i];
    }
    return NULL;
}

/* The argument getopt refused with '?'. An unknown long option is behind optind; so is
 * an unknown short option that was the last character of its argument, but one inside
 * an argument leaves optind on that argument (`-shard-id=x` fails at its `s`). */
static const char *refused_argument(char **argv)
{
    const char *last = argv[optind - 1];
    size_t len = strlen(last);

    if (!optopt || (last[0] == '-' && last[1] != '-' && len > 1 && (unsigned char)last[len - 1] == optopt))
        return last;
    return argv[optind];
}

/* "unknown option for render (did you mean --strict?): --strcit"; without a near
 * option, how to pass an operand that starts with '-' (`fanout expr -- '-1 == -1'`). */
static int unknown_option(const struct opt_list *own, const char *command, const char *arg)
{
    const char *names[OPT_MAX + 1], *near, *word;
    size_t len;
    char what[160];

    opt_names(own, NULL, names);
    word = arg + strspn(arg, "-");
    len = strcspn(word, "=");
    near = suggest_closest(word, len, names, suggest_limit(len));
    if (near)
        snprintf(what, sizeof(what), "unknown option for %s (did you mean --%s?):", command, near);
    else
        snprintf(what, sizeof(what),
                 "unknown option for %s (an operand that starts with '-' goes after '--'):", command);
    return cmd_usage_error(what, arg);
}

/* One option getopt returned: its value applied, or what is wrong with it said. */
static int one_option(const struct opt_list *own, const struct opt_list *known, const char *command,
                      void *dest, const void *user, int val, bool named_long, char **argv)
{
    const struct opt *o = val == ':' || val == '?' ? NULL : known_option(known, val);
    const struct opt *mine = o ? opt_find(own, o->name) : NULL;
    char name[64];

    if (val == ':')
        return cmd_usage_error("this option needs a value:", argv[optind - 1]);
    if (!o)
        return unknown_option(own, command, refused_argument(argv));
    if (!mine) {
        /* named as recognized: argv[optind - 1] may be its value (`--format json`) */
        if (named_long)
            snprintf(name, sizeof(name), "--%s", o->name);
        else
            snprintf(name, sizeof(name), "-%c", o->short_name);
        return cmd_usage_error("unknown option for this command:", name);
    }
    return opt_apply(mine, dest, user, optarg) != 0 ? CMD_EXIT_USAGE : 0;
}

int opt_parse(const struct opt_list *own, const struct opt_list *known, const char *command, void *dest,
              const void *user, int argc, char **argv, int *operands)
{
    struct option longs[OPT_MAX + 2];
    char shorts[3 * OPT_MAX + 3];
    int val, index = -1, rc;

    getopt_tables(known, longs, shorts);
    optind = 0; /* all of getopt's state anew: a parse that failed inside `-qx` leaves some */
    opterr = 0;
    while ((val = getopt_long(argc, argv, shorts, longs, &index)) != -1) {
        if (val == 'h')
            return OPT_HELP;
        if ((rc = one_option(own, known, command, dest, user, val, index >= 0, argv)) != 0)
            return rc;
        index = -1;
    }
    *operands = optind;
    return 0;
}
