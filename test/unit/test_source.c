#include <libfyaml.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fanout/source.h"
#include "fanout/stream.h"
#include "unit.h"

static bool clean(const char *s, size_t len, size_t *bad, unsigned *line, unsigned *col)
{
    return source_check_utf8((const unsigned char *)s, len, bad, line, col);
}

/* A source's size is known once a read has reached its end (the gha dialect keeps a
 * called workflow by it, not by stat of its name, which diff --base renames). */
START_TEST(size_read_after_the_end)
{
    static const char text[] = "a: 1\nb: 2\n";
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    struct source *src = source_open_text("REF:x.yml", text, sizeof(text) - 1, d);
    struct stream *s;
    struct ynode_doc *doc = NULL;

    ck_assert_ptr_nonnull(src);
    ck_assert_uint_eq(source_size_read(src), UINT64_MAX);
    ck_assert_ptr_nonnull(s = stream_open(src, 0, d));
    ck_assert_int_ge(stream_document(s, &doc), 0);
    stream_close(s);
    ck_assert_uint_eq(source_size_read(src), sizeof(text) - 1);
    ynode_doc_destroy(doc);
    source_close(src);
    diag_destroy(d);
}
END_TEST

START_TEST(utf8_accepts_valid)
{
    const char ok[] = "\xef\xbb\xbf" "a: \xc3\xa9\n\xe2\x82\xac \xf0\x9f\x98\x80\n";

    ck_assert(clean(ok, sizeof(ok) - 1, NULL, NULL, NULL));
    /* U+FEFF within a line is text to every reader (YAML 1.2.2 5.2: in a quoted scalar) */
    ck_assert(clean("a: \"b\xef\xbb\xbf\"\n", 10, NULL, NULL, NULL));
    ck_assert(clean("a: \"b\n  \xef\xbb\xbf\"\n", 13, NULL, NULL, NULL));
}
END_TEST

START_TEST(utf8_rejects_bad)
{
    static const struct {
        const char *s;
        size_t len, bad;
        unsigned line, col;
    } cases[] = {
        {"a\nb\xff", 4, 3, 2, 2},          /* invalid byte */
        {"ab\0c", 4, 2, 1, 3},              /* NUL */
        {"\xc0\xaf", 2, 0, 1, 1},           /* overlong */
        {"x\xed\xa0\x80", 4, 2, 1, 2},      /* surrogate: the second byte is out of range */
        {"\xf4\x90\x80\x80", 4, 1, 1, 1},   /* above U+10FFFF */
        {"ok\xe2\x82", 4, 4, 1, 3},         /* cut off at the end */
        {"%\x83", 2, 1, 1, 2},              /* libfyaml's known hang */
        {"\xef\xbb\xbf\xef\xbb\xbf" "a", 7, 3, 1, 1}, /* a second BOM (the first takes no column) */
        {"a:\n\xef\xbb\xbf", 6, 3, 2, 1},   /* a BOM at a line's start (yaml.v3 skips it there) */
        {"a:\r\n\xef\xbb\xbf" "b", 8, 4, 2, 1},
        {"\xef\xbb\xbf" "a:\n\xef\xbb\xbf", 9, 6, 2, 1},
        {"a\rb\r\xff", 5, 4, 3, 1},          /* a CR alone breaks a line, as libfyaml counts */
        {"a\r\nb\xff", 5, 4, 2, 2},          /* a CR LF is one break */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t bad;
        unsigned line, col;

        ck_assert_msg(!clean(cases[i].s, cases[i].len, &bad, &line, &col), "case %zu", i);
        ck_assert_uint_eq(bad, cases[i].bad);
        ck_assert_uint_eq(line, cases[i].line);
        ck_assert_uint_eq(col, cases[i].col);
    }
}
END_TEST

/* Parses `len` bytes of `text` through a source, as the stream does; returns the events
 * seen, and the messages in *msgs (caller frees). */
static int parse_through_source(const char *text, size_t len, char **msgs)
{
    char path[] = "/tmp/fanout-src-XXXXXX";
    int fd = mkstemp(path), events = 0;
    size_t mlen;
    FILE *err = open_memstream(msgs, &mlen);
    struct diag *d = diag_create(err, DIAG_TEXT);
    struct fy_diag_cfg dcfg;
    struct fy_diag *fyd;
    struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET};
    struct fy_parser *fyp;
    struct source *src;
    struct fy_event *fye;

    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL; /* libfyaml's own warnings are not what this test reads */
    fyd = fy_diag_create(&dcfg);
    cfg.diag = fyd;
    fyp = fy_parser_create(&cfg);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    src = source_open(path, d);
    ck_assert_ptr_nonnull(src);
    ck_assert_int_eq(source_attach(src, fyp), 0);
    while ((fye = fy_parser_parse(fyp)) != NULL) {
        events++;
        fy_parser_event_free(fyp, fye);
    }
    fy_parser_destroy(fyp);
    fy_diag_destroy(fyd);
    source_close(src);
    diag_destroy(d);
    fclose(err);
    unlink(path);
    return events;
}

/* libfyaml 0.7.12 loops forever when it is handed `%` and then an incomplete sequence;
 * the reader holds such bytes back (the test's timeout is the hang detector). */
START_TEST(reader_never_hands_on_half_a_character)
{
    static const char *const inputs[] = {"%\xc3", "%\x83", "%\"\xa6", "a: 1\n%\xe2\x82"};
    char *msgs;

    for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
        parse_through_source(inputs[i], strlen(inputs[i]), &msgs);
        ck_assert_msg(strstr(msgs, "[utf8]") != NULL, "case %zu: %s", i, msgs);
        free(msgs);
    }
}
END_TEST

/* Characters cut by the reader's buffer boundaries arrive whole: a long value of 2-, 3-
 * and 4-byte characters parses clean and keeps every byte. */
START_TEST(reader_joins_characters_across_reads)
{
    static const char *const chars[] = {"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"};
    char *msgs;

    for (size_t c = 0; c < 4; c++) {
        size_t clen = strlen(chars[c]), n = 3 + 200000 * clen + 1, o = 0;
        char *text = malloc(n);

        memcpy(text, "a: ", 3);
        for (o = 3; o + clen < n; o += clen)
            memcpy(text + o, chars[c], clen);
        text[o++] = '\n';
        ck_assert_int_eq(parse_through_source(text, o, &msgs), 8); /* stream, doc, map, 2 scalars */
        ck_assert_str_eq(msgs, "");
        free(msgs);
        free(text);
    }
}
END_TEST

/* A byte order mark at a line's start is refused when a read ends inside it too: the byte
 * before it was taken from the read it ended in, one of its own bytes, and the mark let
 * through (libfyaml read `\uFEFFsteps` as the key, Buildkite's reader skips the mark). */
START_TEST(reader_refuses_a_bom_cut_by_a_read)
{
    for (size_t cut = 1; cut <= 2; cut++) {
        size_t head = 65536 - cut, n = head + 12;
        char *text = malloc(n), *msgs;

        text[0] = '#';
        memset(text + 1, 'x', head - 2);
        text[head - 1] = '\n';
        memcpy(text + head, "\xef\xbb\xbf" "steps: 1\n", 12);
        parse_through_source(text, n, &msgs);
        ck_assert_msg(strstr(msgs, "byte order mark") != NULL, "cut %zu: %s", cut, msgs);
        free(msgs);
        free(text);
    }
}
END_TEST

/* What follows a multi-byte character in the same read is handed on too (it was once
 * held back as if incomplete, and lost at the end of the input). */
START_TEST(reader_keeps_what_follows_a_character)
{
    static const char text[] = "a: \xe2\x80\x94 # \xc3\xa9\nb: 2\nc: 3\n";
    char *msgs;

    ck_assert_int_eq(parse_through_source(text, sizeof(text) - 1, &msgs), 12);
    ck_assert_str_eq(msgs, "");
    free(msgs);
}
END_TEST

/* Many short lines: libfyaml asks for whatever room its buffer has left, down to a few
 * bytes, and every byte must arrive. */
START_TEST(reader_serves_any_request_size)
{
    size_t n = 0, cap = 60000 * 16;
    char *text = malloc(cap), *msgs;

    for (int i = 0; i < 60000; i++)
        n += (size_t)snprintf(text + n, cap - n, "k%d: v%d\n", i, i);
    ck_assert_int_eq(parse_through_source(text, n, &msgs), 6 + 2 * 60000);
    ck_assert_str_eq(msgs, "");
    free(msgs);
    free(text);
}
END_TEST

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");

    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    ck_assert_int_eq(fclose(f), 0);
}

/* One read of `src` as a called workflow is read: its first document only. */
static void read_first_document(struct source *src, struct diag *d)
{
    struct stream *s = stream_open(src, 0, d);
    struct ynode_doc *doc = NULL;

    ck_assert_ptr_nonnull(s);
    ck_assert_int_ge(stream_document(s, &doc), 0);
    ynode_doc_destroy(doc);
    stream_close(s);
}

/* Every read of an input is checked against the others, whoever reads it: a rewrite
 * between two reads is caught when it changes a byte both saw (even one left out of the
 * digest's last unfinished 8-byte word), or the length of one that read to the end. */
START_TEST(reads_that_disagree_are_caught)
{
    static const struct {
        const char *first, *then;
        bool changed;
    } cases[] = {
        {"a: 12345678\nb: x\n", "a: 12345678\nb: x\n", false},
        {"a: 12345678\nb: x\n", "a: 12345678\nb: y\n", true},
        {"a: 12345678\nb: x\n", "a: 12345678\nb: x \n", true},
        {"a: 12345678\nb: x\n", "a: 1234567\n", true},
        {"a: 1\n", "", true},
        {"", "a: 1\n", true},
    };
    char path[] = "/tmp/fanout-reads-XXXXXX";
    int fd = mkstemp(path);
    struct diag *d = diag_create(stderr, DIAG_TEXT);

    ck_assert_int_ge(fd, 0);
    close(fd);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct source *src;

        write_file(path, cases[i].first);
        src = source_open(path, d);
        read_first_document(src, d);
        read_first_document(src, d); /* a second read of the same bytes */
        ck_assert(!source_changed(src));
        write_file(path, cases[i].then);
        read_first_document(src, d);
        ck_assert_msg(source_changed(src) == cases[i].changed, "case %zu", i);
        source_close(src);
    }
    unlink(path);
    diag_destroy(d);
}
END_TEST

/* A read that stopped early (a first document, a dialect's detection) is compared as far
 * as it went: a later whole read that disagrees there is caught. */
START_TEST(a_partial_read_is_compared_as_far_as_it_went)
{
    char path[] = "/tmp/fanout-partial-XXXXXX";
    int fd = mkstemp(path);
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    size_t big = 1 << 20;
    char *text = malloc(big + 32);
    struct source *src;

    ck_assert_int_ge(fd, 0);
    close(fd);
    strcpy(text, "a: 1\n---\nb: ");
    memset(text + strlen(text), 'x', big);
    strcpy(text + 12 + big, "\n");
    write_file(path, text);
    src = source_open(path, d);
    read_first_document(src, d);
    text[3] = '2';
    write_file(path, text);
    ck_assert(!source_changed(src));
    read_first_document(src, d);
    ck_assert(source_changed(src));
    source_close(src);
    free(text);
    unlink(path);
    diag_destroy(d);
}
END_TEST

START_TEST(slurp_checks_like_the_reader)
{
    char path[] = "/tmp/fanout-slurp-XXXXXX";
    int fd = mkstemp(path);
    char *msgs = NULL, *text;
    size_t mlen, len;
    FILE *err = open_memstream(&msgs, &mlen);
    struct diag *d = diag_create(err, DIAG_TEXT);

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "{\"type\": 1}\0x", 14), 14);
    close(fd);
    text = source_slurp(path, &len, NULL, d);
    ck_assert_ptr_null(text);
    fflush(err);
    ck_assert_msg(strstr(msgs, ":1:12: error: NUL byte in input [utf8]") != NULL, "%s", msgs);
    diag_destroy(d);
    fclose(err);
    free(msgs);
    unlink(path);
}
END_TEST

/* A non-seekable input is checked as it is read and kept only up to its limit: an
 * endless valid stream ends with one `size` error once past it, having read little
 * more than the limit (it was spooled whole before anything was checked). */
START_TEST(spool_is_bounded)
{
    int fds[2];
    pid_t child;
    char path[64], *msgs = NULL, buf[4096];
    size_t mlen, total = 0, n;
    FILE *err = open_memstream(&msgs, &mlen);
    struct diag *d = diag_create(err, DIAG_TEXT);
    struct source *src;

    ck_assert_int_eq(pipe(fds), 0);
    child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        static const char line[] = "- command: x\n";

        close(fds[0]);
        while (write(fds[1], line, sizeof(line) - 1) > 0)
            ;
        _exit(0);
    }
    close(fds[1]);
    snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
    src = source_open(path, d);
    ck_assert_ptr_nonnull(src);
    source_set_spool_limit(src, 1u << 20);
    ck_assert_int_eq(source_rewind(src), 0);
    while ((n = source_read(src, buf, sizeof(buf))) > 0)
        total += n;
    ck_assert(source_failed(src));
    ck_assert_uint_le(total, 1u << 20);
    fflush(err);
    ck_assert_msg(strstr(msgs, "error: more than 1 MiB from a pipe or device") != NULL, "%s", msgs);
    source_close(src);
    close(fds[0]);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    diag_destroy(d);
    fclose(err);
    free(msgs);
}
END_TEST

/* source_read hands on every byte, checked, and reads again from the start after a
 * rewind; an excerpt comes from the same bytes. */
START_TEST(read_and_excerpt)
{
    static const char text[] = "a: 1\nb: caf\xc3\xa9 # x\n";
    char *msgs = NULL, got[64];
    size_t mlen, n, len;
    FILE *err = open_memstream(&msgs, &mlen);
    struct diag *d = diag_create(err, DIAG_TEXT);
    struct source *src = source_open_text("<excerpt-test>", text, sizeof(text) - 1, d);
    struct diag_excerpt ex;

    for (int pass = 0; pass < 2; pass++) {
        ck_assert_int_eq(source_rewind(src), 0);
        for (len = 0; (n = source_read(src, got + len, 3)) > 0;)
            len += n;
        ck_assert_uint_eq(len, sizeof(text) - 1);
        ck_assert(!memcmp(got, text, len));
    }
    ck_assert(source_excerpt("<excerpt-test>", 2, 7, &ex));
    ck_assert_str_eq(ex.text, "b: caf\xc3\xa9 # x");
    ck_assert_uint_eq(ex.caret, 6); /* the 7th character, after one of two bytes */
    ck_assert(!source_excerpt("<excerpt-test>", 3, 1, &ex) || ex.text[0] == '\0');
    source_close(src);
    ck_assert(!source_excerpt("<excerpt-test>", 1, 1, &ex)); /* closed, and no such file */
    diag_destroy(d);
    fclose(err);
    free(msgs);
}
END_TEST

/* Lines end as libfyaml ends them (CR LF, LF, a CR alone), so an excerpt is the line a
 * parser's position names, without its break. */
START_TEST(excerpt_line_breaks)
{
    static const char text[] = "a: 1\rb: 2\r\nc: 3\nd: 4\r";
    static const char *const lines[] = {"a: 1", "b: 2", "c: 3", "d: 4"};
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    struct source *src = source_open_text("<breaks-test>", text, sizeof(text) - 1, d);
    struct diag_excerpt ex;
    char *rest;
    size_t len;

    for (unsigned line = 1; line <= 4; line++) {
        ck_assert(source_excerpt("<breaks-test>", line, 1, &ex));
        ck_assert_str_eq(ex.text, lines[line - 1]);
    }
    ck_assert(source_excerpt("<breaks-test>", 2, 4, &ex)); /* from the mark, backwards */
    ck_assert_str_eq(ex.text, "b: 2");
    ck_assert_int_eq(source_rewind(src), 0);
    while (source_read(src, (char[64]){0}, 64) > 0)
        ;
    rest = source_lines(src, 3, 64, &len);
    ck_assert_ptr_nonnull(rest);
    ck_assert_str_eq(rest, "c: 3\nd: 4\r");
    free(rest);
    source_close(src);
    diag_destroy(d);
}
END_TEST

/* Lines found across the excerpt reader's buffers (16 KiB), LF-only ones (a memchr a
 * line) then a CR LF, in any order. */
START_TEST(excerpt_far_lines)
{
    static const unsigned lines[] = {5002, 1, 2341, 5000, 5001, 4681, 2342};
    size_t len = 0;
    char *text = malloc(5000 * 7 + 16), want[16];
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    struct source *src;
    struct diag_excerpt ex;

    for (unsigned i = 1; i <= 5000; i++)
        len += (size_t)sprintf(text + len, "l%05u\n", i);
    len += (size_t)sprintf(text + len, "cr\r\nlast\n");
    src = source_open_text("<far-test>", text, len, d);
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        ck_assert(source_excerpt("<far-test>", lines[i], 1, &ex));
        snprintf(want, sizeof(want), "l%05u", lines[i]);
        ck_assert_str_eq(ex.text, lines[i] == 5001 ? "cr" : lines[i] == 5002 ? "last" : want);
    }
    source_close(src);
    diag_destroy(d);
    free(text);
}
END_TEST

/* A line longer than the window: the excerpt is DIAG_EXCERPT_CHARS characters around
 * the column, whatever the line's length. */
START_TEST(excerpt_window)
{
    size_t len = 1000000;
    char *text = malloc(len + 1);
    struct diag *d = diag_create(stderr, DIAG_TEXT);
    struct source *src;
    struct diag_excerpt ex;

    for (size_t i = 0; i < len; i++)
        text[i] = (char)('a' + i % 26);
    text[len] = '\n';
    src = source_open_text("<window-test>", text, len + 1, d);
    ck_assert(source_excerpt("<window-test>", 1, 500001, &ex));
    ck_assert_uint_eq(strlen(ex.text), DIAG_EXCERPT_CHARS);
    ck_assert_uint_eq(ex.caret, DIAG_EXCERPT_CHARS / 2);
    ck_assert_int_eq(ex.text[ex.caret], text[500000]);
    source_close(src);
    diag_destroy(d);
    free(text);
}
END_TEST

Suite *source_suite(void)
{
    Suite *s = suite_create("source");
    TCase *tc = tcase_create("utf8");

    tcase_add_test(tc, utf8_accepts_valid);
    tcase_add_test(tc, size_read_after_the_end);
    tcase_add_test(tc, utf8_rejects_bad);
    tcase_add_test(tc, reader_never_hands_on_half_a_character);
    tcase_add_test(tc, reader_joins_characters_across_reads);
    tcase_add_test(tc, reader_refuses_a_bom_cut_by_a_read);
    tcase_add_test(tc, reader_serves_any_request_size);
    tcase_add_test(tc, reader_keeps_what_follows_a_character);
    tcase_add_test(tc, reads_that_disagree_are_caught);
    tcase_add_test(tc, a_partial_read_is_compared_as_far_as_it_went);
    tcase_add_test(tc, slurp_checks_like_the_reader);
    tcase_add_test(tc, spool_is_bounded);
    tcase_add_test(tc, read_and_excerpt);
    tcase_add_test(tc, excerpt_window);
    tcase_add_test(tc, excerpt_line_breaks);
    tcase_add_test(tc, excerpt_far_lines);
    suite_add_tcase(s, tc);
    return s;
}

