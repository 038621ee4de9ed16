#include "fanout/check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fanout/inputs.h"
#include "fanout/output.h"
#include "fanout/scratch.h"
#include "fanout/textdiff.h"
#include "fanout/ynode.h"

/* Whether two files hold the same bytes (read from their start). */
static int same_bytes(FILE *a, FILE *b, bool *same)
{
    char ba[65536], bb[65536];
    size_t na, nb;

    if (fseeko(a, 0, SEEK_SET) != 0 || fseeko(b, 0, SEEK_SET) != 0)
        return -1;
    do {
        na = fread(ba, 1, sizeof(ba), a);
        nb = fread(bb, 1, sizeof(bb), b);
        if (na != nb || memcmp(ba, bb, na) != 0) {
            *same = false;
            return ferror(a) || ferror(b) ? -1 : 0;
        }
    } while (na > 0);
    *same = true;
    return ferror(a) || ferror(b) ? -1 : 0;
}

/* Copies the contents of `from` into the output and commits it (atomically, the old
 * file's mode kept). */
static int write_copy(FILE *from, struct output *o)
{
    char buf[65536];
    size_t n;

    if (fseeko(from, 0, SEEK_SET) != 0) {
        output_abort(o);
        return -1;
    }
    while ((n = fread(buf, 1, sizeof(buf), from)) > 0) {
        if (fwrite(buf, 1, n, output_stream(o)) != n)
            break;
    }
    return output_commit(o);
}

/* A committed rendering is a file: a FIFO would hang the compare, a device cannot be
 * replaced. */
static void not_regular(const char *rendered, mode_t mode, struct diag *d)
{
    diag_report(d, DIAG_ERROR, DIAG_INPUT, rendered, 0, 0, RULE_IO,
                "is %s, not a regular file: check compares the sources' rendering with a committed file",
                S_ISFIFO(mode) ? "a FIFO" : S_ISDIR(mode) ? "a directory" : S_ISSOCK(mode) ? "a socket" : "a device");
}

/* The committed rendering, for reading: NULL after reporting, or *missing and /dev/null.
 * Opened without blocking and checked to be a regular file once open, so that a FIFO
 * that takes its place meanwhile cannot hang the check. */
static FILE *open_committed(const char *rendered, bool *missing, struct diag *d)
{
    int fd = open(rendered, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    struct stat sb;
    FILE *fp;

    if (fd < 0 && errno == ENOENT) {
        *missing = true;
        return fopen("/dev/null", "rb");
    }
    if (fd < 0 || fstat(fd, &sb) != 0) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, rendered, 0, 0, RULE_IO, "cannot open: %s", strerror(errno));
    } else if (!S_ISREG(sb.st_mode)) {
        not_regular(rendered, sb.st_mode, d);
    } else if ((fp = fdopen(fd, "rb")) != NULL) {
        return fp;
    } else {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, rendered, 0, 0, RULE_IO, "cannot open: %s", strerror(errno));
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

int check_one(const char *const *sources, size_t n, const char *rendered,
              const struct render_opts *opts, bool write, const char *fix, FILE *out, struct diag *d)
{
    struct render_opts o = *opts;
    FILE *fresh = NULL, *old = NULL;
    struct output *target = NULL;
    struct stat sb;
    char *new_name = NULL;
    /* the rendering is no source of itself: a SOURCE directory that holds it stands for
     * its other files (as for the config's checks); named as a SOURCE it is refused */
    const char **skip = malloc((opts->n_not_inputs + 1) * sizeof(*skip));
    bool missing = false, same = false;
    int rc = DIAG_INPUT;

    if (!skip) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_INTERNAL, "out of memory");
        return DIAG_INPUT;
    }
    if (opts->n_not_inputs)
        memcpy(skip, opts->not_inputs, opts->n_not_inputs * sizeof(*skip));
    skip[opts->n_not_inputs] = rendered;
    o.not_inputs = skip;
    o.n_not_inputs = opts->n_not_inputs + 1;

    /* Refused before anything is rendered: what is not a regular file; with --write the
     * target is open first, so that a source that is the target is refused when it is
     * opened. */
    if (stat(rendered, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        not_regular(rendered, sb.st_mode, d);
        goto done;
    }
    if (write && !(target = output_open(rendered, d)))
        goto done;
    if (!(fresh = scratch_file())) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_IO, "cannot create a temporary file in %s: %s",
                    scratch_dir(), strerror(errno));
        goto done;
    }
    /* the rendering goes to a temporary file, whatever its size */
    o.output = NULL;
    o.stream = fresh;
    rc = render_paths(sources, n, &o, d);
    if (rc != 0 || fflush(fresh) != 0)
        goto done;
    rc = DIAG_INPUT;
    if (!(old = open_committed(rendered, &missing, d)))
        goto done;
    if (same_bytes(old, fresh, &same) != 0) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, rendered, 0, 0, RULE_IO, "cannot read: %s", strerror(errno));
        goto done;
    }
    rc = 0;
    if (same && !missing)
        goto done;
    if (write) {
        struct output *committing = target;

        target = NULL;
        if (write_copy(fresh, committing) != 0) {
            rc = DIAG_INPUT;
            goto done;
        }
        diag_say(d, "wrote", rendered);
        goto done;
    }
    new_name = malloc(strlen(rendered) + sizeof(" (rendered now)"));
    if (!new_name) {
        rc = DIAG_INPUT;
        goto done;
    }
    sprintf(new_name, "%s (rendered now)", rendered);
    rc = textdiff_files(out, missing ? "/dev/null" : rendered, old, new_name, fresh) < 0 ? DIAG_INPUT
                                                                                       : DIAG_FINDING;
    diag_report(d, DIAG_ERROR, DIAG_FINDING, rendered, 0, 0, RULE_STALE, "%s; run '%s' to update it",
                missing ? "does not exist" : "is stale", fix);
done:
    output_abort(target); /* fresh, or failed: the committed file stays as it was */
    free(new_name);
    free(skip);
    if (old)
        fclose(old);
    if (fresh)
        fclose(fresh);
    return rc;
}

static bool option_bool(const struct ynode *v, bool *out)
{
    if (ynode_scalar_is(v, "true"))
        *out = true;
    else if (ynode_scalar_is(v, "false"))
        *out = false;
    else
        return false;
    return true;
}

static int config_error(struct diag *d, const char *config, const struct ynode *at, const char *msg)
{
    struct ypos p = ynode_pos(at);

    diag_report(d, DIAG_ERROR, DIAG_INPUT, config, p.line, p.col, RULE_CONFIG, "%s", msg);
    return 2;
}

/* The paths of one check, relative to the config's directory (malloc'd). */
struct check_paths {
    char **sources;
    size_t n;
    char *rendered;
};

static void check_paths_free(struct check_paths *p)
{
    for (size_t i = 0; p->sources && i < p->n; i++)
        free(p->sources[i]);
    free(p->sources);
    free(p->rendered);
}

/* The options of the dialects that take a word (`platform: amd`) an entry of `checks`
 * gives, on top of the run's: into `*own`, a copy of them (made on first use). */
static int read_dialect_options(const struct ynode *e, const char *config, struct render_opts *o,
                                struct dialect_options **own, struct diag *d)
{
    for (size_t i = 0; i < ynode_len(e); i++) {
        const char *key = ynode_scalar(ynode_key(e, i), NULL), *arg = ynode_scalar(ynode_value(e, i), NULL);
        const struct dialect_option *opt;
        char name[64], msg[160];
        size_t n = 0;

        snprintf(name, sizeof(name), "%s", key ? key : "");
        for (char *c = name; *c; c++)
            *c = *c == '_' ? '-' : *c;
        if (!(opt = dialect_option_find(name)) || !opt->choices)
            continue; /* not a check's (the config's own check says what it lacks) */
        if (dialect_option_choice(opt, arg) < 0) {
            n = (size_t)snprintf(msg, sizeof(msg), "%s is ", key);
            for (size_t k = 0; opt->choices[k] && n < sizeof(msg); k++)
                n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%s%s", k == 0 ? "" : opt->choices[k + 1] ? ", " : " or ",
                                      opt->choices[k]);
            return config_error(d, config, ynode_value(e, i), msg);
        }
        if (!*own && !(*own = dialect_options_copy(o->dialect_options)))
            return 2;
        dialect_options_parse(*own, opt, arg, 0, NULL);
        o->dialect_options = *own;
    }
    return 0;
}

/* Reads one entry of `checks` into its paths and options (the dialects' into *own). */
static int read_entry(const struct ynode *e, const char *config, struct render_opts *o, struct check_paths *p,
                      struct dialect_options **own, struct diag *d)
{
    const struct ynode *src = ynode_get(e, "sources"), *v;
    const char *rendered;
    size_t count = ynode_is_seq(src) ? ynode_len(src) : 1;

    if (!ynode_is_map(e))
        return config_error(d, config, e, "a check is a mapping with sources and rendered");
    if (!(rendered = ynode_scalar(ynode_get(e, "rendered"), NULL)))
        return config_error(d, config, e, "a check needs 'rendered' (the committed rendering)");
    if (!ynode_is_scalar(src) && !(ynode_is_seq(src) && count))
        return config_error(d, config, src ? src : e, "a check needs 'sources' (a path or a list)");
    if (!(p->rendered = inputs_path_from(config, rendered)) ||
        !(p->sources = calloc(count, sizeof(*p->sources))))
        return 2;
    for (; p->n < count; p->n++) {
        const char *path = ynode_scalar(ynode_is_seq(src) ? ynode_item(src, p->n) : src, NULL);

        if (!path)
            return config_error(d, config, ynode_item(src, p->n), "sources are paths");
        if (!(p->sources[p->n] = inputs_path_from(config, path)))
            return 2;
    }
    if ((v = ynode_get(e, "upload")) && !option_bool(v, &o->upload))
        return config_error(d, config, v, "upload is true or false");
    if ((v = ynode_get(e, "format"))) {
        if (ynode_scalar_is(v, "yaml"))
            o->format = EMIT_YAML;
        else if (ynode_scalar_is(v, "json"))
            o->format = EMIT_JSON;
        else
            return config_error(d, config, v, "format is yaml or json");
    }
    return read_dialect_options(e, config, o, own, d);
}

char **check_config_rendered(const struct ynode *root, const char *config, size_t *n)
{
    const struct ynode *checks = ynode_get(root, "checks");
    char **paths = calloc(ynode_len(checks) + 1, sizeof(*paths));

    *n = 0;
    for (size_t i = 0; paths && i < ynode_len(checks); i++) {
        const char *rendered = ynode_scalar(ynode_get(ynode_item(checks, i), "rendered"), NULL);

        /* a malformed entry is check's to report, when it runs */
        if (rendered && (paths[*n] = inputs_path_from(config, rendered)) != NULL)
            (*n)++;
    }
    return paths;
}

int check_config(const struct ynode *root, const char *config, const struct render_opts *base, bool write,
                 const char *fix, FILE *out, struct diag *d)
{
    const struct ynode *checks = ynode_get(root, "checks");
    int worst = 0;

    if (!ynode_is_seq(checks) || !ynode_len(checks))
        worst = config_error(d, config, checks ? checks : root,
                             "the config needs 'checks': a list of {sources, rendered}");
    for (size_t i = 0; worst < 2 && i < ynode_len(checks); i++) {
        struct render_opts o = *base;
        struct check_paths p = {NULL, 0, NULL};
        struct dialect_options *own = NULL;
        int rc = read_entry(ynode_item(checks, i), config, &o, &p, &own, d);

        if (rc == 0)
            rc = check_one((const char *const *)p.sources, p.n, p.rendered, &o, write, fix, out, d);
        check_paths_free(&p);
        dialect_options_destroy(own);
        worst = rc > worst ? rc : worst;
    }
    return worst;
}
