/* Suites of the unit test runner; one constructor per module under test. */
#ifndef FANOUT_TEST_UNIT_H
#define FANOUT_TEST_UNIT_H

#include <check.h>
#include <libfyaml.h>

Suite *placeholder_suite(void);
Suite *yscalar_suite(void);
Suite *emit_suite(void);
Suite *expand_suite(void);
Suite *depends_suite(void);
Suite *source_suite(void);
Suite *keyindex_suite(void);
Suite *xsort_suite(void);
Suite *testarea_suite(void);
Suite *support_suite(void);
Suite *schema_suite(void);
Suite *textdiff_suite(void);
Suite *stream_suite(void);
Suite *depgraph_suite(void);

/* Helpers shared by the suites (helpers.c). */
struct fy_document *doc_from(const char *yaml);
/* Renders `node` with the emitter into a malloc'd string. */
char *emit_to_string(struct fy_node *node, int json);

#endif
