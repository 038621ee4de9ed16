#define _XOPEN_SOURCE 700 /* nftw */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/change.h"
#include "fanout/dialect.h"
#include "fanout/emit.h"
#include "fanout/source.h"
#include "fanout/stream.h"
#include "unit.h"

long unit_alloc_countdown = -1;
size_t unit_alloc_size;
long unit_tmpfiles_left = -1;
bool unit_jit_failing;
unsigned unit_jit_calls;

/* Whether this allocation is the one to fail. */
static bool alloc_fails(size_t bytes)
{
    if (unit_alloc_size && bytes != unit_alloc_size)
        return false;
    return unit_alloc_countdown >= 0 && unit_alloc_countdown-- == 0;
}

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size);
FILE *__real_scratch_file(void);
FILE *__wrap_scratch_file(void);

void *__wrap_calloc(size_t n, size_t size)
{
    if (alloc_fails(n * size))
        return NULL;
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    if (alloc_fails(size))
        return NULL;
    return __real_realloc(p, size);
}

int __real_pcre2_jit_compile_8(pcre2_code *re, uint32_t options);
int __wrap_pcre2_jit_compile_8(pcre2_code *re, uint32_t options);

int __wrap_pcre2_jit_compile_8(pcre2_code *re, uint32_t options)
{
    unit_jit_calls++;
    return unit_jit_failing ? PCRE2_ERROR_NOMEMORY : __real_pcre2_jit_compile_8(re, options);
}

FILE *__wrap_scratch_file(void)
{
    if (unit_tmpfiles_left == 0)
        return NULL;
    if (unit_tmpfiles_left > 0)
        unit_tmpfiles_left--;
    return __real_scratch_file();
}

struct ynode_doc *doc_from(const char *yaml)
{
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    struct source *src = source_open_text("<test>", yaml, strlen(yaml), d);
    struct stream *s = src ? stream_open(src, 0, d) : NULL;
    struct ynode_doc *doc = NULL;

    ck_assert_msg(s && stream_document(s, &doc) > 0 && doc, "test input does not parse: %s", yaml);
    stream_close(s);
    source_close(src);
    diag_destroy(d);
    return doc;
}

char *emit_to_string(const struct ynode *node, int json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct emitter *e = emit_create(fp, json ? EMIT_JSON : EMIT_YAML, &dialect_buildkite_layout);

    emit_node(e, node);
    ck_assert_int_eq(emit_error(e), 0);
    emit_destroy(e);
    fclose(fp);
    return buf;
}

void temp_file_write(char *path, const char *text)
{
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

struct change *change_of(const char *list)
{
    char path[] = "/tmp/fanout-change-XXXXXX";
    struct change *c = change_create();
    struct diag *d = diag_create(stderr, DIAG_TEXT);

    temp_file_write(path, list ? list : "");
    ck_assert_int_eq(change_read_file(c, path, d), 0);
    unlink(path);
    diag_destroy(d);
    return c;
}

static void (*each_fn)(const char *path, const char *text, size_t len, void *ctx);
static void *each_ctx;
static size_t each_files;

static int each_file(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    size_t len = strlen(path), n;
    FILE *fp;
    char *text;

    (void)ftw;
    if (type != FTW_F || !((len > 4 && !strcmp(path + len - 4, ".yml")) || (len > 5 && !strcmp(path + len - 5, ".yaml"))))
        return 0;
    if (!(fp = fopen(path, "rb")) || !(text = malloc((size_t)sb->st_size + 1)))
        ck_abort_msg("cannot read %s", path);
    n = fread(text, 1, (size_t)sb->st_size, fp);
    fclose(fp);
    each_files++;
    /* libfyaml wants text without a NUL (the source refuses one before it parses) */
    if (!memchr(text, '\0', n))
        each_fn(path, text, n, each_ctx);
    free(text);
    return 0;
}

size_t unit_each_corpus_yaml(void (*fn)(const char *path, const char *text, size_t len, void *ctx), void *ctx)
{
    each_fn = fn;
    each_ctx = ctx;
    each_files = 0;
    ck_assert_int_eq(nftw("../shared/corpus", each_file, 16, FTW_PHYS), 0);
    ck_assert_int_eq(nftw("fixtures", each_file, 16, FTW_PHYS), 0);
    return each_files;
}
