/* config: a `.fanout.yml` read and applied as the CLI does (cli_main with --config), for
 * a command run on a pipeline: a command byte, the config, FUZZ_SPLIT, the pipeline.
 * Command byte: bits 0-1 render, validate, shards check, render --format json; 2-3 the
 * message format (text, github, json, text). The run's cwd is fuzz_workflows_dir() and
 * its output goes to a file there (-o wins over the config's defaults), so that a config
 * cannot write elsewhere; its messages are checked by fuzz_check_messages and a JSON
 * rendering by fuzz_check_json. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/cli.h"
#include "fuzz.h"

FUZZ_YAML_MUTATOR(1)

/* What file descriptor `fd` holds, NUL-terminated, in *len bytes. */
static char *slurp(int fd, size_t *len)
{
    off_t end = lseek(fd, 0, SEEK_END);
    char *buf = malloc((size_t)(end > 0 ? end : 0) + 1);

    if (!buf || end < 0 || pread(fd, buf, (size_t)end, 0) != end)
        abort();
    buf[end] = '\0';
    *len = (size_t)end;
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[] = {"text", "github", "json", "text"};
    struct fuzz_file cfg, pipeline, out, err;
    char cwd[4096], output[200], *messages, *rendering;
    const uint8_t *rest;
    size_t cfg_len, rest_len, len;
    int saved_out, saved_err, fd, argc = 0;
    char *argv[16];
    uint8_t bits;

    if (size < 1 || fuzz_skip(data, size))
        return 0;
    bits = data[0];
    fuzz_split(data + 1, size - 1, &cfg_len, &rest, &rest_len);
    fuzz_file_open(&cfg, data + 1, cfg_len);
    fuzz_file_open(&pipeline, rest, rest_len);
    fuzz_file_open(&out, NULL, 0);
    fuzz_file_open(&err, NULL, 0);
    snprintf(output, sizeof(output), "%s/out.yml", fuzz_workflows_dir());
    argv[argc++] = "fanout";
    if ((bits & 3) == 2) {
        argv[argc++] = "shards";
        argv[argc++] = "check";
    } else {
        argv[argc++] = (bits & 3) == 1 ? "validate" : "render";
    }
    argv[argc++] = "--config";
    argv[argc++] = cfg.path;
    argv[argc++] = "--error-format";
    argv[argc++] = (char *)formats[(bits >> 2) & 3];
    argv[argc++] = "--no-snippet"; /* the oracle reads message lines only */
    if ((bits & 3) == 0 || (bits & 3) == 3) {
        argv[argc++] = "-o";
        argv[argc++] = output;
    }
    if ((bits & 3) == 3) {
        argv[argc++] = "--format";
        argv[argc++] = "json";
    }
    argv[argc++] = pipeline.path;
    argv[argc] = NULL;
    unlink(output);
    if (!getcwd(cwd, sizeof(cwd)) || chdir(fuzz_workflows_dir()) != 0)
        abort();
    fflush(stdout);
    fflush(stderr);
    saved_out = dup(1);
    saved_err = dup(2);
    dup2(out.fd, 1);
    dup2(err.fd, 2);
    cli_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    if (chdir(cwd) != 0)
        abort();
    messages = slurp(err.fd, &len);
    fuzz_check_messages(messages, len, (int)((bits >> 2) & 3) == 3 ? 0 : (int)((bits >> 2) & 3));
    free(messages);
    if ((bits & 3) == 3 && (fd = open(output, O_RDONLY)) >= 0) {
        rendering = slurp(fd, &len);
        fuzz_check_json(rendering, len);
        free(rendering);
        close(fd);
    }
    fuzz_file_close(&cfg);
    fuzz_file_close(&pipeline);
    fuzz_file_close(&out);
    fuzz_file_close(&err);
    return 0;
}
