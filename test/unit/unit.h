/* Suites of the unit test runner; one constructor per module under test. */
#ifndef FANOUT_TEST_UNIT_H
#define FANOUT_TEST_UNIT_H

#include <check.h>
#include <stdbool.h>
#include "fanout/ynode.h"

/* Failure injection: the unit binary is linked with --wrap=calloc,--wrap=realloc,
 * --wrap=scratch_file (Makefile), so that these calls of fanout's code go through helpers.c.
 * The calloc or realloc `unit_alloc_countdown` reaches 0 at fails (-1: none), counting
 * only those of `unit_alloc_size` bytes when it is set (libfyaml 0.7.12 crashes on some
 * failed allocations of its own); scratch_file fails once `unit_tmpfiles_left` calls have
 * succeeded (-1: never). */
extern long unit_alloc_countdown;
extern size_t unit_alloc_size;
extern long unit_tmpfiles_left;
/* --wrap=pcre2_jit_compile_8 too: while `unit_jit_failing`, every JIT compile fails as
 * without executable memory; each is counted in `unit_jit_calls`. */
extern bool unit_jit_failing;
extern unsigned unit_jit_calls;

Suite *placeholder_suite(void);
Suite *yscalar_suite(void);
Suite *emit_suite(void);
Suite *expand_suite(void);
Suite *depends_suite(void);
Suite *source_suite(void);
Suite *keyindex_suite(void);
Suite *xsort_suite(void);
Suite *testarea_suite(void);
Suite *rayci_suite(void);
Suite *support_suite(void);
Suite *schema_suite(void);
Suite *textdiff_suite(void);
Suite *stream_suite(void);
Suite *depgraph_suite(void);
Suite *shardmap_suite(void);
Suite *expr_suite(void);
Suite *matrix_suite(void);
Suite *assign_suite(void);
Suite *shards_suite(void);
Suite *bkmatrix_suite(void);
Suite *suggest_suite(void);
Suite *change_suite(void);
Suite *inputs_suite(void);
Suite *builds_suite(void);
Suite *shellword_suite(void);
Suite *text_suite(void);
Suite *branches_suite(void);
Suite *render_suite(void);
Suite *tmplschema_suite(void);
Suite *interpolate_suite(void);
Suite *dialect_suite(void);
Suite *gha_suite(void);
Suite *blocktext_suite(void);
Suite *bkscalar_suite(void);
Suite *bkread_suite(void);
Suite *pyscalar_suite(void);
Suite *quotedtext_suite(void);
Suite *ghachanged_suite(void);
Suite *validate_suite(void);
Suite *pipediff_suite(void);
Suite *options_suite(void);
Suite *lint_suite(void);
Suite *config_suite(void);
Suite *jobs_suite(void);
Suite *glob_suite(void);
Suite *conditional_suite(void);
Suite *runners_suite(void);

/* Helpers shared by the suites (helpers.c). */
/* The first document of `yaml`, read by fanout's own stream (positions and styles kept). */
struct ynode_doc *doc_from(const char *yaml);
/* Renders `node` with the emitter into a malloc'd string. */
char *emit_to_string(const struct ynode *node, int json);
/* `text` written to a new temporary file, whose name replaces the mkstemp template
 * `path` ("/tmp/fanout-x-XXXXXX"); the caller unlinks it. */
void temp_file_write(char *path, const char *text);
/* The change of the files `list` names ("a\nb\n", as --changed reads it; NULL: none). */
struct change *change_of(const char *list);
/* Calls fn with the text of every .yml and .yaml file of the corpus (../shared/corpus)
 * and of the fixtures that holds no NUL (which the source refuses before libfyaml sees
 * it), and `ctx`; returns how many files there are. */
size_t unit_each_corpus_yaml(void (*fn)(const char *path, const char *text, size_t len, void *ctx), void *ctx);

#endif
