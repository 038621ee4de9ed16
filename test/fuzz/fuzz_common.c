#define _GNU_SOURCE
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int fuzz_file_open(struct fuzz_file *f, const uint8_t *data, size_t len)
{
    f->fd = memfd_create("fuzz", 0);
    if (f->fd < 0)
        abort();
    for (size_t done = 0; done < len;) {
        ssize_t n = write(f->fd, data + done, len - done);

        if (n <= 0)
            abort();
        done += (size_t)n;
    }
    snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
    return 0;
}

void fuzz_file_close(struct fuzz_file *f)
{
    close(f->fd);
}

void fuzz_split(const uint8_t *data, size_t size, size_t *a_len, const uint8_t **b, size_t *b_len)
{
    const uint8_t *cut = memchr(data, FUZZ_SPLIT, size);

    *a_len = cut ? (size_t)(cut - data) : size;
    *b = cut ? cut + 1 : data + size;
    *b_len = size - *a_len - (cut ? 1 : 0);
}

FILE *fuzz_null(void)
{
    static FILE *null;

    if (!null && !(null = fopen("/dev/null", "w")))
        abort();
    return null;
}

bool fuzz_skip(const uint8_t *data, size_t size)
{
#ifdef FUZZ_LIBFUZZER
    unsigned run = 0;

    for (size_t i = 0; i < size; i++) {
        run = data[i] == '\'' ? run + 1 : 0;
        if (run == 6)
            return true;
    }
#else
    (void)data;
    (void)size;
#endif
    return false;
}

static char workdir[64], workflows[160];
static char written[2][256];

static void remove_workdir(void)
{
    char path[128];

    for (size_t i = 0; i < 2; i++) {
        if (written[i][0])
            unlink(written[i]);
    }
    rmdir(workflows);
    snprintf(path, sizeof(path), "%s/.github", workdir);
    rmdir(path);
    rmdir(workdir);
}

const char *fuzz_workflows_dir(void)
{
    char path[128];

    if (workflows[0])
        return workflows;
    strcpy(workdir, "/tmp/fanout-fuzz-XXXXXX");
    if (!mkdtemp(workdir))
        abort();
    snprintf(path, sizeof(path), "%s/.github", workdir);
    snprintf(workflows, sizeof(workflows), "%s/workflows", path);
    if (mkdir(path, 0700) != 0 || mkdir(workflows, 0700) != 0)
        abort();
    atexit(remove_workdir);
    return workflows;
}

const char *fuzz_write_workflow(const char *name, const uint8_t *data, size_t len)
{
    char *path = written[name[0] == 'a' ? 0 : 1];
    FILE *fp;

    snprintf(path, sizeof(written[0]), "%s/%s", fuzz_workflows_dir(), name);
    if (!(fp = fopen(path, "wb")) || fwrite(data, 1, len, fp) != len || fclose(fp) != 0)
        abort();
    return path;
}
