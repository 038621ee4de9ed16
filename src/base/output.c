#define _XOPEN_SOURCE 700 /* realpath */
#include "fanout/output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Links followed before giving up (the kernel's own limit for path resolution). */
#define MAX_LINKS 40

struct output {
    struct diag *diag;
    FILE *fp;
    char *path;   /* as given, for messages; NULL for stdout */
    char *target; /* the regular file replaced (symlinks followed); NULL: written through */
    char *tmp;
    int written;  /* its slot in `written`, or -1 */
};

/* The standard descriptors that were closed when fanout started (output_guard_std). */
static bool std_closed[3];

/* The regular files this run writes, which it must never read: standard output (when a
 * file) and each output while it is open. Few at a time: stdout and one output. */
static struct written_file {
    bool used;
    dev_t dev;
    ino_t ino;
    const char *name;
} written[4];

/* The temporary file being written, to remove on SIGINT, SIGTERM or SIGHUP: its path is
 * copied here beforehand, because a signal handler may only call async-signal-safe
 * functions (unlink, sigaction, raise). SIGKILL cannot be caught: it can leave one. */
static char pending_tmp[PATH_MAX];
static volatile sig_atomic_t pending_armed;

void output_stdout_gone(void)
{
    if (errno != EPIPE)
        return;
    diag_sarif_end(128 + SIGPIPE); /* stderr may still be read: its log ends whole */
    signal(SIGPIPE, SIG_DFL);
    raise(SIGPIPE);
}

static void io_error(struct diag *d, const char *path, const char *what)
{
    if (!strcmp(path, "<stdout>"))
        output_stdout_gone();
    diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, RULE_IO, "%s: %s", what, strerror(errno));
}

static int remember_written(const struct stat *sb, const char *name)
{
    for (int i = 0; i < (int)(sizeof(written) / sizeof(written[0])); i++) {
        if (!written[i].used) {
            written[i] = (struct written_file){true, sb->st_dev, sb->st_ino, name};
            return i;
        }
    }
    return -1;
}

void output_guard_std(void)
{
    struct stat sb;

    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            /* the access mode opposite to the descriptor's use (xz's tuklib_open_stdxxx,
             * gnulib's stdopen): writing to a closed stdout still fails */
            int got = open("/dev/null", O_NOCTTY | (fd == 0 ? O_WRONLY : O_RDONLY));

            if (got != fd)
                _exit(2); /* nowhere safe to say why; cannot happen with /dev/null */
            std_closed[fd] = true;
        }
    }
    if (!std_closed[1] && fstat(STDOUT_FILENO, &sb) == 0 && S_ISREG(sb.st_mode))
        remember_written(&sb, "<stdout>");
}

int output_check_input(int fd, const char *name, struct diag *d)
{
    struct stat sb;

    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    for (size_t i = 0; i < sizeof(written) / sizeof(written[0]); i++) {
        if (written[i].used && written[i].dev == sb.st_dev && written[i].ino == sb.st_ino) {
            diag_report(d, DIAG_ERROR, DIAG_INPUT, name, 0, 0, RULE_IO,
                        "is also where fanout writes (%s); an input is never overwritten", written[i].name);
            return -1;
        }
    }
    return 0;
}

/* The descriptor that `path`, a link, stands for when it is one of this process's
 * /proc/PID/fd links (/proc/self/fd/N, /dev/fd/N, the target of /dev/stdout); else -1. */
static int descriptor_link(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX], real[PATH_MAX], own[64], *end;
    long fd;

    if (!slash || (size_t)(slash - path) >= sizeof(dir))
        return -1;
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = '\0';
    snprintf(own, sizeof(own), "/proc/%ld/fd", (long)getpid());
    errno = 0;
    fd = strtol(slash + 1, &end, 10);
    if (*end || end == slash + 1 || errno || fd < 0 || fd > INT_MAX || !realpath(*dir ? dir : "/", real) ||
        strcmp(real, own) != 0)
        return -1;
    return (int)fd;
}

/* `path` with every symlink in its last component followed: the file a write through
 * the link would reach (it may not exist yet). NULL with errno set on failure, and
 * *closed set when the path leads to a standard descriptor closed at start.
 * *descriptor is set when a link on the way is one of /proc's links to an open file
 * (/dev/stdout, /dev/fd/N): such a path names a descriptor, not a file to replace. */
static char *follow_links(const char *path, bool *descriptor, bool *closed)
{
    char *cur = strdup(path);

    *descriptor = *closed = false;
    for (int hops = 0; cur; hops++) {
        char link[PATH_MAX];
        struct stat sb;
        ssize_t n;
        char *next;
        int fd;

        if (lstat(cur, &sb) != 0 || !S_ISLNK(sb.st_mode))
            return cur; /* absent, or not a link: this is the target */
        fd = descriptor_link(cur);
        if (fd >= 0 && fd <= 2 && std_closed[fd]) {
            free(cur);
            *closed = true;
            return NULL;
        }
        *descriptor = *descriptor || fd >= 0 || strncmp(cur, "/proc/", 6) == 0;
        if (hops == MAX_LINKS) {
            free(cur);
            errno = ELOOP;
            return NULL;
        }
        n = readlink(cur, link, sizeof(link) - 1);
        if (n < 0) {
            free(cur);
            return NULL;
        }
        link[n] = '\0';
        if (link[0] == '/' || !strchr(cur, '/')) {
            next = strdup(link);
        } else {
            /* relative to the directory holding the link */
            size_t dir = (size_t)(strrchr(cur, '/') - cur) + 1;

            next = malloc(dir + (size_t)n + 1);
            if (next) {
                memcpy(next, cur, dir);
                memcpy(next + dir, link, (size_t)n + 1);
            }
        }
        free(cur);
        cur = next;
    }
    return NULL;
}

/* Removes the pending temporary file, then dies of `sig` as if it were not caught. */
static void remove_pending_and_die(int sig)
{
    struct sigaction dfl;

    if (pending_armed)
        unlink(pending_tmp);
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    raise(sig); /* delivered when the handler returns */
}

/* Arms the removal of o->tmp on the signals that end a run, unless they are ignored
 * (`nohup`, a background job's SIGINT): then they do not end it. */
static void arm_removal(const struct output *o)
{
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    static bool installed;

    if (strlen(o->tmp) >= sizeof(pending_tmp))
        return;
    strcpy(pending_tmp, o->tmp);
    pending_armed = 1;
    for (size_t i = 0; !installed && i < sizeof(signals) / sizeof(signals[0]); i++) {
        struct sigaction old, sa;

        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = remove_pending_and_die;
        sigemptyset(&sa.sa_mask);
        if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(signals[i], &sa, NULL);
    }
    installed = true;
}

/* A regular file (or none yet) is replaced atomically: a temporary file next to it,
 * renamed over it on commit, with its mode kept. */
static int open_replacement(struct output *o)
{
    struct stat sb;
    mode_t mode;
    int fd;

    o->tmp = malloc(strlen(o->target) + sizeof(".fanout-XXXXXX"));
    if (!o->tmp)
        return -1;
    strcpy(o->tmp, o->target);
    strcat(o->tmp, ".fanout-XXXXXX");
    fd = mkstemp(o->tmp);
    if (fd < 0) {
        io_error(o->diag, o->path, "cannot write");
        return -1;
    }
    if (stat(o->target, &sb) == 0) {
        mode = sb.st_mode & 07777;
    } else {
        mode_t mask = umask(0);

        umask(mask);
        mode = 0666 & ~mask;
    }
    arm_removal(o);
    if (fchmod(fd, mode) != 0 || !(o->fp = fdopen(fd, "w"))) {
        io_error(o->diag, o->path, "cannot write");
        close(fd);
        unlink(o->tmp);
        pending_armed = 0;
        return -1;
    }
    return 0;
}

static void output_free(struct output *o)
{
    if (o->written >= 0)
        written[o->written].used = false;
    free(o->path);
    free(o->target);
    free(o->tmp);
    free(o);
}

struct output *output_open(const char *path, struct diag *d)
{
    struct output *o = calloc(1, sizeof(*o));
    struct stat sb;
    bool descriptor, closed = false;

    if (!o)
        return NULL;
    o->diag = d;
    o->written = -1;
    if (!path || strcmp(path, "-") == 0) {
        if (std_closed[STDOUT_FILENO]) {
            diag_report(d, DIAG_ERROR, DIAG_INPUT, "<stdout>", 0, 0, RULE_IO,
                        "standard output was closed when fanout started");
            free(o);
            return NULL;
        }
        o->fp = stdout;
        return o;
    }
    o->path = strdup(path);
    o->target = o->path ? follow_links(path, &descriptor, &closed) : NULL;
    if (closed) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, RULE_IO,
                    "names a standard descriptor that was closed when fanout started");
        goto fail;
    }
    if (!o->target) {
        io_error(d, path, "cannot write");
        goto fail;
    }
    /* what it reaches must not be read by this run (an input, a called workflow) */
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
        o->written = remember_written(&sb, o->path);
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        errno = EISDIR;
        io_error(d, path, "cannot write");
        goto fail;
    }
    if (descriptor || (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))) {
        /* A device, a FIFO, an open descriptor: what is written goes to it, in place. */
        free(o->target);
        o->target = NULL;
        if (!(o->fp = fopen(path, "w"))) {
            io_error(d, path, "cannot write");
            goto fail;
        }
        return o;
    }
    if (open_replacement(o) != 0)
        goto fail;
    return o;
fail:
    output_free(o);
    return NULL;
}

FILE *output_stream(struct output *o)
{
    return o->fp;
}

int output_commit(struct output *o)
{
    const char *name = o->path ? o->path : "<stdout>";
    int rc = 0;

    if (fflush(o->fp) != 0 || ferror(o->fp)) {
        io_error(o->diag, name, "write error");
        rc = -1;
    } else if (o->tmp && fsync(fileno(o->fp)) != 0) {
        io_error(o->diag, name, "write error");
        rc = -1;
    }
    if (o->path && fclose(o->fp) != 0 && rc == 0) {
        io_error(o->diag, name, "write error");
        rc = -1;
    }
    if (o->tmp) {
        if (rc == 0 && rename(o->tmp, o->target) != 0) {
            io_error(o->diag, name, "cannot replace");
            rc = -1;
        }
        if (rc != 0)
            unlink(o->tmp);
        pending_armed = 0;
    }
    output_free(o);
    return rc;
}

void output_abort(struct output *o)
{
    if (!o)
        return;
    if (o->path) {
        fclose(o->fp);
        if (o->tmp) {
            unlink(o->tmp);
            pending_armed = 0;
        }
    } else {
        fflush(o->fp);
    }
    output_free(o);
}
