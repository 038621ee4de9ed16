#define _GNU_SOURCE /* asprintf */
#include "fanout/scratch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *scratch_dir(void)
{
    const char *dir = getenv("TMPDIR");

    return dir && *dir ? dir : "/tmp";
}

FILE *scratch_file(void)
{
    char *path;
    int fd, saved;
    FILE *fp;

    if (asprintf(&path, "%s/fanout.XXXXXX", scratch_dir()) < 0)
        return NULL;
    fd = mkstemp(path);
    if (fd >= 0)
        unlink(path);
    saved = errno;
    free(path);
    if (fd < 0) {
        errno = saved;
        return NULL;
    }
    if (!(fp = fdopen(fd, "w+b"))) {
        saved = errno;
        close(fd);
        errno = saved;
    }
    return fp;
}
