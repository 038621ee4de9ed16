#include "fanout/output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
};

static void io_error(struct diag *d, const char *path, const char *what)
{
    diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, "io", "%s: %s", what, strerror(errno));
}

/* `path` with every symlink in its last component followed: the file a write through
 * the link would reach (it may not exist yet). NULL with errno set on failure.
 * *descriptor is set when a link on the way is one of /proc's links to an open file
 * (/dev/stdout, /dev/fd/N): such a path names a descriptor, not a file to replace. */
static char *follow_links(const char *path, bool *descriptor)
{
    char *cur = strdup(path);

    *descriptor = false;
    for (int hops = 0; cur; hops++) {
        char link[PATH_MAX];
        struct stat sb;
        ssize_t n;
        char *next;

        if (lstat(cur, &sb) != 0 || !S_ISLNK(sb.st_mode))
            return cur; /* absent, or not a link: this is the target */
        *descriptor = *descriptor || strncmp(cur, "/proc/", 6) == 0;
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
    if (fchmod(fd, mode) != 0 || !(o->fp = fdopen(fd, "w"))) {
        io_error(o->diag, o->path, "cannot write");
        close(fd);
        unlink(o->tmp);
        return -1;
    }
    return 0;
}

struct output *output_open(const char *path, struct diag *d)
{
    struct output *o = calloc(1, sizeof(*o));
    struct stat sb;
    bool descriptor;

    if (!o)
        return NULL;
    o->diag = d;
    if (!path || strcmp(path, "-") == 0) {
        o->fp = stdout;
        return o;
    }
    o->path = strdup(path);
    o->target = o->path ? follow_links(path, &descriptor) : NULL;
    if (!o->target) {
        io_error(d, path, "cannot write");
        goto fail;
    }
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
    free(o->path);
    free(o->target);
    free(o->tmp);
    free(o);
    return NULL;
}

FILE *output_stream(struct output *o)
{
    return o->fp;
}

static void output_free(struct output *o)
{
    free(o->path);
    free(o->target);
    free(o->tmp);
    free(o);
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
        if (o->tmp)
            unlink(o->tmp);
    } else {
        fflush(o->fp);
    }
    output_free(o);
}
