/* Which inputs are one build: the files a directory walk found (inputs' walked), a
 * config's paths (inputs_path_from), Buildkite's uploads and rayci's directories. */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dialect/buildkite/uploads.h"
#include "fanout/dialect.h"
#include "fanout/inputs.h"
#include "fanout/strset.h"

#include "unit.h"

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
}

/* The builds of the inputs `specs` stand for: in->n of them in `build` (at most 8). */
static void builds_of(const char **specs, size_t n, struct inputs *in, unsigned *build, struct diag *d)
{
    struct source *src[8];

    ck_assert_int_eq(inputs_expand(specs, n, d, in), 0);
    ck_assert_uint_le(in->n, 8);
    for (size_t i = 0; i < in->n; i++) {
        ck_assert_ptr_nonnull(src[i] = source_open(in->paths[i], d));
        build[i] = 0;
    }
    ck_assert_int_eq(bk_uploads_builds(src, (const char *const *)in->paths, in->n, in->walked, build, d), 0);
    for (size_t i = 0; i < in->n; i++)
        source_close(src[i]);
}

/* A fresh directory `dir` (a mkdtemp template) and its `.buildkite` in `sub` (600 bytes). */
static void builds_dir(char *dir, char *sub)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(sub, 600, "%s/.buildkite", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
}

/* Removes the inputs' files and the directories made for them. */
static void builds_remove(struct inputs *in, const char *sub, const char *dir, struct diag *d)
{
    for (size_t i = 0; i < in->n; i++)
        unlink(in->paths[i]);
    inputs_free(in);
    rmdir(sub);
    rmdir(dir);
    diag_destroy(d);
}

/* A path from a config is read from its directory; an absolute one as written. */
START_TEST(paths_from_a_config)
{
    char *p;

    ck_assert_str_eq(p = inputs_path_from("../../.fanout.yml", "cfg/x.yaml"), "../../cfg/x.yaml");
    free(p);
    ck_assert_str_eq(p = inputs_path_from(".fanout.yml", "cfg/x.yaml"), "cfg/x.yaml");
    free(p);
    ck_assert_str_eq(p = inputs_path_from("/r/.fanout.yml", "/abs.yaml"), "/abs.yaml");
    free(p);
}
END_TEST

/* A directory's files are walked ones, a named file is not; the Buildkite files a
 * directory stands for are each a build, but for the one another's command uploads. */
START_TEST(uploads_join_builds)
{
    char dir[] = "/tmp/fanout-builds-XXXXXX", sub[600], named[600];
    const char *specs[2];
    struct inputs in;
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    unsigned build[8];

    builds_dir(dir, sub);
    write_file(sub, "a.yml", "steps:\n  # buildkite-agent pipeline upload .buildkite/c.yml (a comment)\n"
                             "  - command: buildkite-agent pipeline upload --replace .buildkite/b.yml\n");
    write_file(sub, "b.yml", "steps:\n  - command: b\n");
    write_file(sub, "c.yml", "steps:\n  - command: c\n");
    write_file(dir, "n.yml", "steps:\n  - command: n\n");
    snprintf(named, sizeof(named), "%s/n.yml", dir);
    specs[0] = sub;
    specs[1] = named;
    builds_of(specs, 2, &in, build, d);
    ck_assert_uint_eq(in.n, 4);
    ck_assert(strset_has(in.walked, in.paths[0], strlen(in.paths[0])));
    ck_assert_uint_eq(build[0], build[1]); /* a.yml uploads b.yml */
    ck_assert_uint_ne(build[0], build[2]); /* c.yml: named in a comment only */
    ck_assert_uint_ne(build[0], 0);
    ck_assert_uint_eq(build[3], 0); /* n.yml, named: the command line's build */
    builds_remove(&in, sub, dir, d);
}
END_TEST

/* A command is read as sh reads it, from the text YAML gives: a `#` in quotes is no
 * comment, a redirection's file and the words after a `;` are no upload's, a key and
 * the YAML quotes are not the command's, `up"load"` is `upload` (its scalar holds
 * `upload` elsewhere), a folded scalar is one line. */
START_TEST(uploads_as_sh_reads_them)
{
    static const char *const joined[] = {"d.yml", "e.yml", "f.yml", "i.yml", "j.yml"},
                             *const apart[] = {"g.yml", "h.yml"};
    char dir[] = "/tmp/fanout-builds-XXXXXX", sub[600];
    const char *specs[1];
    struct inputs in;
    struct diag *d = diag_create_buffered(DIAG_TEXT);
    unsigned build[8];

    builds_dir(dir, sub);
    write_file(sub, "a.yml",
               "steps:\n"
               "  - command: \"echo 'a # b' && buildkite-agent pipeline upload \\\".buildkite/d.yml\\\"\" # x\n"
               "  - \"command\": 'buildkite-agent pipeline upload .buildkite/e.yml'\n"
               "  - command: |\n"
               "      buildkite-agent pipeline upload .buildkite/f.yml > .buildkite/g.yml\n"
               "      buildkite-agent pipeline upload; cat .buildkite/h.yml\n"
               "      buildkite-agent pipeline up\"load\" .buildkite/i.yml\n"
               "  - command: >\n"
               "      buildkite-agent pipeline\n"
               "      upload .buildkite/j.yml\n");
    for (size_t k = 0; k < 5; k++)
        write_file(sub, joined[k], "steps:\n  - command: x\n");
    for (size_t k = 0; k < 2; k++)
        write_file(sub, apart[k], "steps:\n  - command: x\n");
    specs[0] = sub;
    builds_of(specs, 1, &in, build, d);
    ck_assert_uint_eq(in.n, 8);
    for (size_t i = 1; i < in.n; i++) /* a.yml, then d..j in name order: g and h apart */
        ck_assert_msg((build[i] == build[0]) == (i != 4 && i != 5), "%s", in.paths[i]);
    builds_remove(&in, sub, dir, d);
}
END_TEST

/* rayci: one build per directory of the walk, named files the command line's. */
START_TEST(builds_by_directory)
{
    const char *paths[] = {"bk/a.rayci.yml", "bk/b.rayci.yml", "bk/sub/c.rayci.yml", "bk/sub/d.rayci.yml",
                           "x.rayci.yml"};
    struct strset *walked = strset_create();
    unsigned build[5] = {0};

    for (size_t i = 0; i < 4; i++)
        ck_assert_int_ge(strset_add(walked, paths[i], strlen(paths[i])), 0);
    ck_assert_int_eq(dialect_builds_by_directory(NULL, paths, 5, walked, build, NULL), 0);
    ck_assert_uint_eq(build[0], build[1]);
    ck_assert_uint_eq(build[2], build[3]);
    ck_assert_uint_ne(build[0], build[2]);
    ck_assert_uint_ne(build[0], 0);
    ck_assert_uint_eq(build[4], 0);
    strset_destroy(walked);
}
END_TEST

Suite *builds_suite(void)
{
    Suite *s = suite_create("builds");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, paths_from_a_config);
    tcase_add_test(tc, uploads_join_builds);
    tcase_add_test(tc, uploads_as_sh_reads_them);
    tcase_add_test(tc, builds_by_directory);
    suite_add_tcase(s, tc);
    return s;
}
