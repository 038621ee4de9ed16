/* Buildkite's step-level branch patterns: every example of buildkite/docs
 * pages/pipelines/configure/branch-configuration.md ("Branch pattern examples" and the
 * step-level example pipeline), each with a branch it matches and one it does not. */
#include <string.h>

#include "../../src/dialect/buildkite/branches.h"
#include "unit.h"

static const struct {
    const char *patterns, *branch;
    bool matches;
} cases[] = {
    /* "`main` will match `main` only" */
    {"main", "main", true},
    {"main", "main2", false},
    {"main", "mai", false},
    /* "'!production' will match any branch that's not production" */
    {"!production", "main", true},
    {"!production", "production", false},
    // "'main features/*' will match main and any branch that starts with features/"
    {"main features/*", "main", true},
    {"main features/*", "features/x", true},
    {"main features/*", "features/a/b", true},
    {"main features/*", "features", false},
    /* "'*-test' will match any branch ending with -test, such as rails-update-test" */
    {"*-test", "rails-update-test", true},
    {"*-test", "rails-test-update", false},
    // "'stages/* !stages/production' ... such as stages/demo"
    {"stages/* !stages/production", "stages/demo", true},
    {"stages/* !stages/production", "stages/production", false},
    {"stages/* !stages/production", "main", false},
    /* "'v*.0' will match any branch that begins with a v and ends with a .0, such as v1.0" */
    {"v*.0", "v1.0", true},
    {"v*.0", "v1.0.1", false},
    /* "'v* !v1.*' ... such as v2.3, but not v1.1" */
    {"v* !v1.*", "v2.3", true},
    {"v* !v1.*", "v1.1", false},
    // the step-level example: "main feature/* !feature/beta release/*"
    {"main feature/* !feature/beta release/*", "release/1.2", true},
    {"main feature/* !feature/beta release/*", "feature/beta", false},
    {"main feature/* !feature/beta release/*", "feature/gamma", true},
    /* blank: all branches (the pipeline-level default, "`*` or blank") */
    {"", "anything", true},
    {"*", "any/thing", true},
    /* only the star and ! are special */
    {"v?", "v1", false},
    {"v?", "v?", true},
    {"a**b", "ab", true},
};

START_TEST(pattern)
{
    ck_assert_msg(bk_branches_match(cases[_i].patterns, strlen(cases[_i].patterns), cases[_i].branch) ==
                      cases[_i].matches,
                  "'%s' against %s", cases[_i].patterns, cases[_i].branch);
}
END_TEST

Suite *branches_suite(void)
{
    Suite *s = suite_create("branches");
    TCase *tc = tcase_create("core");

    tcase_add_loop_test(tc, pattern, 0, sizeof(cases) / sizeof(cases[0]));
    suite_add_tcase(s, tc);
    return s;
}
