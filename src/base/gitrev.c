/* gitrev: a revision's files from git, in a temporary directory (gitrev.h). git itself
 * reads the repository (packs, worktrees, alternates are its business): `rev-parse` or
 * `merge-base` names the commit, `ls-tree` lists the files, `cat-file blob` writes each. */
#define _GNU_SOURCE /* asprintf */
#include "fanout/gitrev.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fanout/arrays.h"
#include "fanout/inputs.h"
#include "fanout/scratch.h"

extern char **environ;

struct gitrev {
    char *root;    /* the temporary directory */
    char *operand; /* root/PATH */
    char *name;    /* "REF:" */
    char **made;   /* the directories and files made, in order: removed last first */
    size_t n_made, cap_made;
};

static void report(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(struct diag *d, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    diag_vreport(d, DIAG_ERROR, DIAG_INPUT, "fanout", 0, 0, RULE_IO, fmt, ap);
    va_end(ap);
}

/* Runs git with `argv`, its output into `out_fd`. 0, or -1 after reporting what git
 * said (its first line) or why it could not run. */
static int git_run(const char *const argv[], int out_fd, struct diag *d)
{
    posix_spawn_file_actions_t fa;
    FILE *err = scratch_file();
    char said[512] = "";
    pid_t pid;
    int status = 0, rc = -1;
    size_t n;

    if (!err) {
        report(d, "cannot create a temporary file in %s: %s", scratch_dir(), strerror(errno));
        return -1;
    }
    if (posix_spawn_file_actions_init(&fa) != 0) {
        report(d, "cannot run git %s: %s", argv[1], strerror(errno));
        fclose(err);
        return -1;
    }
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, fileno(err), STDERR_FILENO);
    errno = posix_spawnp(&pid, "git", &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (errno != 0) {
        report(d, "cannot run git %s: %s (diff --base reads the revision with git)", argv[1], strerror(errno));
    } else if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        rewind(err);
        if (!fgets(said, sizeof(said), err))
            snprintf(said, sizeof(said), "exit status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        said[strcspn(said, "\n")] = '\0';
        for (n = 0; argv[n + 1]; n++)
            ;
        report(d, "git %s %s: %s", argv[1], argv[n], said);
    } else {
        rc = 0;
    }
    fclose(err);
    return rc;
}

/* git's standard output, whole and NUL-terminated (*len its length); NULL after
 * reporting. */
static char *git_output(const char *const argv[], size_t *len, struct diag *d)
{
    FILE *out = scratch_file();
    char *buf = NULL;
    long size;

    if (!out) {
        report(d, "cannot create a temporary file in %s: %s", scratch_dir(), strerror(errno));
        return NULL;
    }
    if (git_run(argv, fileno(out), d) == 0) {
        if (fseek(out, 0, SEEK_END) != 0 || (size = ftell(out)) < 0 || fseek(out, 0, SEEK_SET) != 0 ||
            !(buf = malloc((size_t)size + 1)) || fread(buf, 1, (size_t)size, out) != (size_t)size) {
            report(d, "cannot read what git %s wrote: %s", argv[1], strerror(errno));
            free(buf);
            buf = NULL;
        } else {
            buf[size] = '\0';
            *len = (size_t)size;
        }
    }
    fclose(out);
    return buf;
}

/* The commit `ref` names: `A...B` is their merge base, as git diff reads it. */
static char *commit_of(const char *ref, struct diag *d)
{
    const char *dots = strstr(ref, "...");
    char *spec = NULL, *a = NULL, *out;
    size_t len = 0;

    if (dots) {
        const char *b = *(dots + 3) ? dots + 3 : "HEAD";

        if (!(a = dots > ref ? strndup(ref, (size_t)(dots - ref)) : strdup("HEAD")))
            return NULL;
        out = git_output((const char *const[]){"git", "merge-base", "--", a, b, NULL}, &len, d);
        free(a);
    } else {
        if (asprintf(&spec, "%s^{commit}", ref) < 0)
            return NULL;
        out = git_output((const char *const[]){"git", "rev-parse", "--verify", "--end-of-options", spec,
                                              NULL},
                         &len, d);
        free(spec);
    }
    if (out && (len = strcspn(out, "\n")) == 0) {
        report(d, "git names no commit for '%s'", ref);
        free(out);
        return NULL;
    }
    if (out)
        out[len] = '\0';
    return out;
}

static int remember(struct gitrev *g, char *path)
{
    if (g->n_made == g->cap_made) {
        char **grown = array_grow(g->made, &g->cap_made, g->n_made + 1, 32, sizeof(*grown));

        if (!grown) {
            free(path);
            return -1;
        }
        g->made = grown;
    }
    g->made[g->n_made++] = path;
    return 0;
}

/* root/name, made with its directories; the file's descriptor, or -1. */
static int make_file(struct gitrev *g, const char *name)
{
    char *path;
    int fd;

    if (asprintf(&path, "%s/%s", g->root, name) < 0)
        return -1;
    for (char *slash = path + strlen(g->root) + 1; (slash = strchr(slash, '/')) != NULL; slash++) {
        char *dir;

        *slash = '\0';
        if (mkdir(path, 0700) == 0) {
            if (!(dir = strdup(path)) || remember(g, dir) != 0) {
                free(path);
                return -1;
            }
        } else if (errno != EEXIST) {
            free(path);
            return -1;
        }
        *slash = '/';
    }
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || remember(g, path) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Whether `name` (relative to the current directory) is one of `skip`: the same path
 * once both are absolute and the work tree's links resolved. */
static bool skipped(const char *cwd, const char *name, const char *const *skip, size_t n_skip)
{
    char here[PATH_MAX + 2], there[PATH_MAX];

    if ((size_t)snprintf(here, sizeof(here), "%s/%s", cwd, name) >= sizeof(here))
        return false;
    for (size_t i = 0; i < n_skip; i++) {
        if (realpath(skip[i], there) && !strcmp(here, there))
            return true;
    }
    return false;
}

/* Writes the blobs `ls-tree -z` listed in `list`: a YAML file, or the path itself. The
 * number written, or -1 after reporting. */
static long write_blobs(struct gitrev *g, const char *path, char *list, size_t len, const char *const *skip,
                        size_t n_skip, struct diag *d)
{
    char cwd[PATH_MAX];
    long written = 0;

    if (!getcwd(cwd, sizeof(cwd))) {
        report(d, "cannot read the current directory: %s", strerror(errno));
        return -1;
    }
    for (char *rec = list; rec < list + len; rec += strlen(rec) + 1) {
        /* "<mode> <type> <object>\t<name>" */
        char *tab = strchr(rec, '\t'), *sha = strrchr(rec, ' ');
        const char *name = tab ? tab + 1 : "";
        int fd;

        if (!tab || !sha || sha > tab || strncmp(rec, "100", 3) != 0) /* a link or a submodule */
            continue;
        *tab = '\0';
        if (name[0] == '/' || !strncmp(name, "../", 3) || strstr(name, "/../")) {
            report(d, "%s is outside the current directory: diff --base compares what is under it", path);
            return -1;
        }
        if ((!inputs_name_has_suffix(name, strlen(name), inputs_yaml_suffixes) && strcmp(name, path) != 0) ||
            skipped(cwd, name, skip, n_skip))
            continue;
        if ((fd = make_file(g, name)) < 0) {
            report(d, "cannot write %s of the revision: %s", name, strerror(errno));
            return -1;
        }
        if (git_run((const char *const[]){"git", "cat-file", "blob", sha + 1, NULL}, fd, d) != 0 || close(fd) != 0)
            return -1;
        written++;
    }
    return written;
}

struct gitrev *gitrev_open(const char *ref, const char *path, const char *const *skip, size_t n_skip,
                           struct diag *d)
{
    static const char *const ci_dirs[] = {".buildkite", ".github/workflows"};
    struct gitrev *g = calloc(1, sizeof(*g));
    char *commit = commit_of(ref, d), *list = NULL;
    size_t len = 0;
    long written = 0;
    bool below = strcmp(path, ".") != 0;

    if (!g || !commit)
        goto fail;
    if (asprintf(&g->root, "%s/fanout-base.XXXXXX", scratch_dir()) < 0 ||
        !mkdtemp(g->root) || asprintf(&g->name, "%s:", ref) < 0 ||
        (below ? asprintf(&g->operand, "%s/%s", g->root, path) : asprintf(&g->operand, "%s", g->root)) < 0) {
        report(d, "cannot make a temporary directory for %s: %s", ref, strerror(errno));
        goto fail;
    }
    /* the current directory stands for its CI directories when the revision has them,
     * as a repository's root does for render (inputs.h) */
    for (size_t i = 0; !below && i < 2 && written >= 0; i++) {
        long more;

        if (!(list = git_output((const char *const[]){"git", "ls-tree", "-r", "-z", commit, "--", ci_dirs[i], NULL},
                                &len, d)))
            goto fail;
        more = write_blobs(g, path, list, len, skip, n_skip, d);
        written = more < 0 ? more : written + more;
        free(list);
    }
    if (written == 0) {
        if (!(list = git_output((const char *const[]){"git", "ls-tree", "-r", "-z", commit, "--", path, NULL}, &len, d)))
            goto fail;
        written = write_blobs(g, path, list, len, skip, n_skip, d);
        free(list);
    }
    if (written < 0)
        goto fail;
    if (written == 0) {
        report(d, "%s has no YAML file under %s", ref, path);
        goto fail;
    }
    free(commit);
    return g;
fail:
    free(commit);
    gitrev_close(g);
    return NULL;
}

const char *gitrev_operand(const struct gitrev *g)
{
    return g->operand;
}

const char *gitrev_root(const struct gitrev *g)
{
    return g->root;
}

const char *gitrev_name(const struct gitrev *g)
{
    return g->name;
}

char *gitrev_changed(const char *ref, size_t *len, struct diag *d)
{
    const char *dots = strstr(ref, "...");
    char *spec = NULL, *base, *out = NULL;

    /* REF alone is REF...: where HEAD left it */
    if (!dots && asprintf(&spec, "%s...", ref) < 0)
        return NULL;
    base = commit_of(spec ? spec : ref, d);
    free(spec);
    if (!base)
        return NULL;
    /* the vLLM generator's list_file_diff (ci-infra git_utils.py get_list_file_diff) */
    if (dots && dots[3])
        out = git_output((const char *const[]){"git", "diff", "--name-only", "-z", "--diff-filter=ACMDR", base,
                                              dots + 3, "--", NULL}, len, d);
    else
        out = git_output((const char *const[]){"git", "diff", "--name-only", "-z", "--diff-filter=ACMDR", base,
                                              "--", NULL}, len, d);
    free(base);
    return out;
}

void gitrev_close(struct gitrev *g)
{
    if (!g)
        return;
    while (g->n_made) {
        char *path = g->made[--g->n_made];

        remove(path);
        free(path);
    }
    if (g->root)
        rmdir(g->root);
    free(g->made);
    free(g->root);
    free(g->operand);
    free(g->name);
    free(g);
}
