#include "fanout/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct output {
    struct diag *diag;
    FILE *fp;
    char *path; /* NULL for stdout */
    char *tmp;
};

struct output *output_open(const char *path, struct diag *d)
{
    struct output *o = calloc(1, sizeof(*o));
    struct stat sb;
    mode_t mode;
    int fd;

    if (!o)
        return NULL;
    o->diag = d;
    if (!path || strcmp(path, "-") == 0) {
        o->fp = stdout;
        return o;
    }
    o->path = strdup(path);
    o->tmp = malloc(strlen(path) + sizeof(".fanout-XXXXXX"));
    if (!o->path || !o->tmp)
        goto fail;
    strcpy(o->tmp, path);
    strcat(o->tmp, ".fanout-XXXXXX");
    fd = mkstemp(o->tmp);
    if (fd < 0) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, "io", "cannot write: %s",
                    strerror(errno));
        goto fail;
    }
    /* Keep the mode of the file being replaced; a new file gets the umask's default. */
    if (stat(path, &sb) == 0) {
        mode = sb.st_mode & 07777;
    } else {
        mode_t mask = umask(0);

        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0 || !(o->fp = fdopen(fd, "w"))) {
        diag_report(d, DIAG_ERROR, DIAG_INPUT, path, 0, 0, "io", "cannot write: %s",
                    strerror(errno));
        close(fd);
        unlink(o->tmp);
        goto fail;
    }
    return o;
fail:
    free(o->path);
    free(o->tmp);
    free(o);
    return NULL;
}

FILE *output_stream(struct output *o)
{
    return o->fp;
}

int output_commit(struct output *o)
{
    int rc = 0;

    if (!o->path) {
        if (fflush(o->fp) != 0 || ferror(o->fp)) {
            diag_report(o->diag, DIAG_ERROR, DIAG_INPUT, "<stdout>", 0, 0, "io",
                        "write error: %s", strerror(errno));
            rc = -1;
        }
        free(o);
        return rc;
    }
    if (fflush(o->fp) != 0 || ferror(o->fp) || fsync(fileno(o->fp)) != 0) {
        diag_report(o->diag, DIAG_ERROR, DIAG_INPUT, o->path, 0, 0, "io", "write error: %s",
                    strerror(errno));
        rc = -1;
    }
    if (fclose(o->fp) != 0 && rc == 0) {
        diag_report(o->diag, DIAG_ERROR, DIAG_INPUT, o->path, 0, 0, "io", "write error: %s",
                    strerror(errno));
        rc = -1;
    }
    if (rc == 0 && rename(o->tmp, o->path) != 0) {
        diag_report(o->diag, DIAG_ERROR, DIAG_INPUT, o->path, 0, 0, "io", "cannot replace: %s",
                    strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        unlink(o->tmp);
    free(o->path);
    free(o->tmp);
    free(o);
    return rc;
}

void output_abort(struct output *o)
{
    if (!o)
        return;
    if (o->path) {
        fclose(o->fp);
        unlink(o->tmp);
    } else {
        fflush(o->fp);
    }
    free(o->path);
    free(o->tmp);
    free(o);
}
