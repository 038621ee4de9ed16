#!/bin/sh
# The GitHub Action (action.yml): `fanout diff` of a pull request's base and head.
#
# For each path, checks the base commit's copy out into a temporary directory (the
# clone is not touched: a temporary index, `git checkout-index`; a base the clone lacks,
# as in actions/checkout's depth-1 clone, is fetched from origin), then runs
#   fanout diff --format github   BASE_COPY PATH   annotations, on stdout
#   fanout diff --format markdown BASE_COPY PATH   appended to $GITHUB_STEP_SUMMARY
# from the workspace, so annotations name the head's files as the repository does
# (base-only files are named `base:PATH` in messages, plain PATH in annotations).
# A path that only one side has is compared with an empty pipeline.
#
# POSIX sh. It reads only these environment variables, so it runs outside Actions too:
#   FANOUT               the fanout binary (default: `fanout` on PATH)
#   GITHUB_WORKSPACE     the checkout of the head, inside a git work tree (default: .)
#   GITHUB_STEP_SUMMARY  the file the Markdown report is appended to (unset or empty:
#                        no Markdown run)
#   GITHUB_ACTIONS       `true`: fanout's messages as annotations (--error-format
#                        github, which INPUT_ARGS can override), and fanout's problem
#                        matcher (.github/fanout-matcher.json) registered, so that the
#                        job's later steps that run fanout get annotations from its
#                        text messages too
#   RUNNER_TEMP          where the temporary directory goes (default: $TMPDIR or /tmp)
#   INPUT_BASE           the base commit: a sha, branch or tag (required; the action's
#                        default is the pull request's base sha)
#   INPUT_PATHS          files or directories to compare, relative to the workspace,
#                        separated by blanks or newlines (default: .buildkite)
#   INPUT_ARGS           more `fanout diff` options, split at blanks (no quoting, no
#                        globbing: `--known-key image-* --platform nvidia`)
#   INPUT_FAIL_ON_DIFF   `true`: exit 1 when the jobs differ; `false` (default):
#                        --exit-zero, a difference is only reported
# Exit status: the worst of the runs: 0 same (or different, without fail-on-diff),
# 1 different with fail-on-diff, or a rule finding the head introduces, 2 an error (a side does not render, a bad input, git).
set -eu

fail() {
    printf 'fanout action: error: %s\n' "$*" >&2
    exit 2
}

FANOUT=${FANOUT:-fanout}
command -v "$FANOUT" >/dev/null 2>&1 || fail "no fanout binary: set FANOUT (now '$FANOUT')"
case "$FANOUT" in
    */*) FANOUT=$(cd "$(dirname "$FANOUT")" && pwd)/$(basename "$FANOUT") ;;
esac
workspace=${GITHUB_WORKSPACE:-.}
summary=${GITHUB_STEP_SUMMARY:-}
base=${INPUT_BASE:-}
paths=${INPUT_PATHS:-.buildkite}
args=${INPUT_ARGS:-}
case "${INPUT_FAIL_ON_DIFF:-false}" in
    true | True | TRUE) exit_zero= ;;
    false | False | FALSE | '') exit_zero=--exit-zero ;;
    *) fail "fail-on-diff must be true or false, not '$INPUT_FAIL_ON_DIFF'" ;;
esac
errors=
if [ "${GITHUB_ACTIONS:-}" = true ]; then
    errors='--error-format github'
    echo "::add-matcher::$(cd "$(dirname "$0")/.." && pwd)/.github/fanout-matcher.json"
fi
[ -n "$base" ] || fail "no base commit: set the action's 'base' input (INPUT_BASE); its default, the pull request's base, is empty outside pull_request events"
case "$summary" in
    '' | /*) ;;
    *) summary=$(pwd)/$summary ;;
esac

cd "$workspace" || fail "cannot enter the workspace '$workspace'"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || fail "the workspace '$workspace' is not a git work tree (run actions/checkout first)"
top=$(git rev-parse --show-toplevel)
sub=$(git rev-parse --show-prefix)

# the base commit; a shallow clone may not have it yet
if ! base_sha=$(git rev-parse -q --verify "$base^{commit}" 2>/dev/null); then
    git remote get-url origin >/dev/null 2>&1 || fail "base '$base' is not in this clone, and there is no origin to fetch it from"
    git fetch -q --no-tags --depth=1 origin "$base" || fail "cannot fetch base '$base' from origin"
    base_sha=$(git rev-parse -q --verify "FETCH_HEAD^{commit}") || fail "base '$base' is not a commit"
fi
head_sha=$(git rev-parse -q --verify 'HEAD^{commit}' 2>/dev/null || echo '(no commit)')

tmp=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/fanout-action.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' HUP INT TERM
mkdir "$tmp/base"
: >"$tmp/empty.yml"

# The paths, one per word, globbing off while they are split.
set -f
# shellcheck disable=SC2086  # split on purpose
set -- $paths
set +f
[ $# -gt 0 ] || fail "no paths to compare (INPUT_PATHS is blank)"
for p in "$@"; do
    case "$p" in
        /*) fail "path '$p' is absolute: give it relative to the workspace" ;;
        -*) fail "path '$p' starts with '-'" ;;
    esac
done

# The base's copy of the paths: their files through a temporary index.
GIT_INDEX_FILE="$tmp/index" git read-tree "$base_sha" || fail "cannot read the tree of base $base_sha"
GIT_INDEX_FILE="$tmp/index" git ls-files -z --full-name -- "$@" >"$tmp/base.list"
(cd "$top" && GIT_INDEX_FILE="$tmp/index" git checkout-index -z --stdin --prefix="$tmp/base/") <"$tmp/base.list" ||
    fail "cannot check out the base's files"
rm -f "$tmp/index"

# In what fanout prints, the base copy's directory: `file=` keeps the repository path
# (annotations attach to it), elsewhere it reads `base:PATH`.
base_dir="$tmp/base/$sub"
pat=$(printf '%s\n' "$base_dir" | sed 's/[]\/$*.^|[]/\\&/g')
unbase() {
    sed -e "s|file=$pat|file=|g" -e "s|$pat|base:|g" "$1"
}

worst=0
note() {
    [ "$1" -le "$worst" ] || worst=$1
}
short() {
    printf '%.12s' "$1"
}

for p in "$@"; do
    b="$base_dir$p"
    h="$p"
    if [ ! -e "$b" ] && [ ! -e "$h" ]; then
        printf 'fanout action: error: %s: neither the base (%s) nor the head has it\n' "$p" "$(short "$base_sha")" >&2
        note 2
        continue
    fi
    [ -e "$b" ] || b="$tmp/empty.yml"
    [ -e "$h" ] || h="$tmp/empty.yml"

    # annotations (and, in Actions, messages as annotations)
    rc=0
    # shellcheck disable=SC2086  # option words
    "$FANOUT" diff --format github $errors $args $exit_zero -- "$b" "$h" >"$tmp/out" 2>"$tmp/err" || rc=$?
    unbase "$tmp/out"
    unbase "$tmp/err" >&2
    note "$rc"

    # the report, into the job summary
    [ -n "$summary" ] || continue
    rc=0
    # shellcheck disable=SC2086
    "$FANOUT" diff --format markdown $args --error-format text --color never $exit_zero -- "$b" "$h" >"$tmp/out" 2>"$tmp/err" || rc=$?
    {
        unbase "$tmp/out"
        if [ "$rc" -ge 2 ]; then
            # shellcheck disable=SC2016  # Markdown backquotes
            printf '### fanout: `%s` does not render\n\n~~~~~~~~\n' "$p"
            unbase "$tmp/err"
            printf '~~~~~~~~\n'
        fi
        # shellcheck disable=SC2016
        printf '\n<sub>fanout diff of `%s`: base %s, head %s</sub>\n\n' "$p" "$(short "$base_sha")" "$(short "$head_sha")"
    } >>"$summary" || fail "cannot write the job summary '$summary'"
    note "$rc"
done
[ -n "$summary" ] || echo "fanout action: GITHUB_STEP_SUMMARY is not set: no Markdown report" >&2
exit "$worst"
