#include <stdlib.h>

#include "unit.h"

int main(void)
{
    SRunner *sr = srunner_create(placeholder_suite());
    int failed;

    srunner_add_suite(sr, yscalar_suite());
    srunner_add_suite(sr, emit_suite());
    srunner_add_suite(sr, expand_suite());
    srunner_add_suite(sr, depends_suite());
    srunner_add_suite(sr, source_suite());
    srunner_add_suite(sr, keyindex_suite());
    srunner_add_suite(sr, xsort_suite());
    srunner_add_suite(sr, testarea_suite());
    srunner_add_suite(sr, rayci_suite());
    srunner_add_suite(sr, support_suite());
    srunner_add_suite(sr, schema_suite());
    srunner_add_suite(sr, textdiff_suite());
    srunner_add_suite(sr, stream_suite());
    srunner_add_suite(sr, depgraph_suite());
    srunner_add_suite(sr, shardmap_suite());
    srunner_add_suite(sr, expr_suite());
    srunner_add_suite(sr, matrix_suite());
    srunner_add_suite(sr, assign_suite());
    srunner_add_suite(sr, shards_suite());
    srunner_add_suite(sr, bkmatrix_suite());
    srunner_add_suite(sr, suggest_suite());
    srunner_add_suite(sr, change_suite());
    srunner_add_suite(sr, inputs_suite());
    srunner_add_suite(sr, builds_suite());
    srunner_add_suite(sr, shellword_suite());
    srunner_add_suite(sr, text_suite());
    srunner_add_suite(sr, branches_suite());
    srunner_add_suite(sr, render_suite());
    srunner_add_suite(sr, tmplschema_suite());
    srunner_add_suite(sr, interpolate_suite());
    srunner_add_suite(sr, dialect_suite());
    srunner_add_suite(sr, gha_suite());
    srunner_add_suite(sr, blocktext_suite());
    srunner_add_suite(sr, bkscalar_suite());
    srunner_add_suite(sr, bkread_suite());
    srunner_add_suite(sr, pyscalar_suite());
    srunner_add_suite(sr, quotedtext_suite());
    srunner_add_suite(sr, ghachanged_suite());
    srunner_add_suite(sr, validate_suite());
    srunner_add_suite(sr, pipediff_suite());
    srunner_add_suite(sr, options_suite());
    srunner_add_suite(sr, lint_suite());
    srunner_add_suite(sr, config_suite());
    srunner_add_suite(sr, jobs_suite());
    srunner_add_suite(sr, glob_suite());
    srunner_add_suite(sr, conditional_suite());
    srunner_add_suite(sr, runners_suite());
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    /* A filter (CK_RUN_SUITE, ...) that matches nothing must not pass silently. */
    if (srunner_ntests_run(sr) == 0)
        failed = 1;
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
