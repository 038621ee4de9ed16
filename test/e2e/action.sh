# The GitHub Action's script (tools/action.sh) outside Actions, with the environment
# variables it reads: a pull request that takes a Buildkite step from parallelism 2 to 3,
# checked out as actions/checkout does (a depth-1 clone without the base commit).
set -eu
. "$ROOT/test/e2e/lib/git.sh"
git_scratch "action test"
# nothing of a surrounding Actions run, nor of the user's git configuration
unset GITHUB_ACTIONS GITHUB_WORKSPACE GITHUB_STEP_SUMMARY GITHUB_EVENT_NAME RUNNER_TEMP \
    INPUT_BASE INPUT_PATHS INPUT_ARGS INPUT_FAIL_ON_DIFF 2>/dev/null || :
git config --global --add safe.directory '*'
git config --global protocol.file.allow always
action="$ROOT/tools/action.sh"

pipeline() { # pipeline PARALLELISM
    cat <<YAML
steps:
  - label: "Tests %N/%t"
    key: tests
    parallelism: $1
    command: pytest --num-shards=\$\$BUILDKITE_PARALLEL_JOB_COUNT --shard-id=\$\$BUILDKITE_PARALLEL_JOB
  - wait
  - label: Report
    depends_on: tests
    command: ./report.sh
YAML
}

# upstream: the base commit, then the pull request's head
mkdir upstream
(
    cd upstream
    git init -q .
    mkdir .buildkite
    pipeline 2 >.buildkite/pipeline.yml
    printf 'steps:\n  - label: Old\n    key: old\n    command: ./old.sh\n' >.buildkite/old.yml
    git add -A
    git commit -qm base
    git rev-parse HEAD >../base.sha
    pipeline 3 >.buildkite/pipeline.yml
    git rm -q .buildkite/old.yml
    printf 'steps:\n  - label: Lint\n    key: lint\n    command: ./lint.sh\n' >.buildkite/extra.yml
    git add -A
    git commit -qm head
)
base=$(cat base.sha)
git clone -q --depth=1 "file://$PWD/upstream" ws
if git -C ws cat-file -e "$base^{commit}" 2>/dev/null; then
    echo "the depth-1 clone has the base commit: the fetch is not exercised"; exit 1
fi

run() { # run NAME [VAR=VALUE...]: tools/action.sh with the defaults below; NAME.out/.err/.rc
    name=$1
    shift
    rc=0
    env FANOUT="$FANOUT" GITHUB_WORKSPACE="$PWD/ws" GITHUB_STEP_SUMMARY="$PWD/$name.md" \
        INPUT_BASE="$base" "$@" sh "$action" >"$name.out" 2>"$name.err" || rc=$?
    echo "$rc" >"$name.rc"
}
expect() { # expect NAME RC
    if [ "$(cat "$1.rc")" != "$2" ]; then
        echo "$1: exit $(cat "$1.rc"), expected $2"
        sed 's/^/  out: /' "$1.out"; sed 's/^/  err: /' "$1.err"; exit 1
    fi
}
has() { # has FILE FIXED-STRING
    grep -qF -- "$2" "$1" || { echo "$1 lacks: $2"; sed 's/^/  /' "$1"; exit 1; }
}
clean() { # no temporary path leaks into what a reviewer reads
    for f in "$1.out" "$1.err" "$1.md"; do
        [ -f "$f" ] || continue
        if grep -q 'fanout-action\.' "$f"; then echo "$f names the temporary directory:"; cat "$f"; exit 1; fi
    done
}

# 1. the defaults (paths .buildkite, only report): the base is fetched, the Markdown
#    report lands in the summary, the annotations on stdout, exit 0
run pr
expect pr 0
has pr.out '::notice'
has pr.out 'parallelism 2 -> 3'
if grep -v '^::' pr.out | grep -q .; then echo "stdout has more than annotations:"; cat pr.out; exit 1; fi
has pr.md '### fanout: pipeline changes'
has pr.md 'parallelism 2 -> 3'
has pr.md 'lint'
has pr.md 'old'
has pr.md "base $(printf '%.12s' "$base")"
clean pr
# the clone is as it was: no worktree, no change, nothing left in the index
[ -z "$(git -C ws status --porcelain)" ] || { echo "the clone was changed:"; git -C ws status --porcelain; exit 1; }
[ "$(git -C ws worktree list | wc -l)" = 1 ] || { echo "a worktree was left:"; git -C ws worktree list; exit 1; }
git -C ws cat-file -e "$base^{commit}"   # fetched

# 2. fail-on-diff: the difference fails the step
run failing INPUT_FAIL_ON_DIFF=true
expect failing 1
has failing.out 'parallelism 2 -> 3'
has failing.md 'parallelism 2 -> 3'

# 3. args reach fanout diff; a summary is appended to, not replaced
cp pr.md args.md
run args INPUT_ARGS='--ignore-field label  --ignore-field command'
expect args 0
has args.md 'parallelism 2 -> 3'
[ "$(grep -c '### fanout: pipeline changes' args.md)" = 2 ] || { echo "the summary was not appended to"; exit 1; }
if grep -q ': label: ' args.out; then echo "--ignore-field label was not passed:"; cat args.out; exit 1; fi
grep -q ': label: ' pr.out || { echo "the label change is not reported without --ignore-field"; cat pr.out; exit 1; }

# 4. several paths, one only in the head and one only in the base: compared with an
#    empty pipeline; the base's file is named as in the repository
run paths INPUT_PATHS='.buildkite/extra.yml
.buildkite/old.yml'
expect paths 0
has paths.out 'lint'
has paths.out 'old'
# shellcheck disable=SC2016  # Markdown backquotes
has paths.md '`.buildkite/extra.yml`'
# shellcheck disable=SC2016
has paths.md '`.buildkite/old.yml`'
clean paths

# 5. the same commit on both sides: no change
run same INPUT_BASE=HEAD
expect same 0
has same.md 'No change'

# 6. a head that does not render: exit 2, the error in the log and in the summary
cp ws/.buildkite/pipeline.yml pipeline.yml.orig
printf 'steps:\n  - label: Broken\n    parallelism: 0\n    command: x\n' >ws/.buildkite/pipeline.yml
run broken
expect broken 2
has broken.err '.buildkite/pipeline.yml'
has broken.md 'does not render'
clean broken
# ... whatever fail-on-diff says, and as annotations in Actions
run broken-gha INPUT_FAIL_ON_DIFF=false GITHUB_ACTIONS=true
expect broken-gha 2
has broken-gha.err '::error file=.buildkite/pipeline.yml'
# the problem matcher registered for the job's later steps (test/e2e/problem-matcher.sh)
has broken-gha.out "::add-matcher::$ROOT/.github/fanout-matcher.json"
cp pipeline.yml.orig ws/.buildkite/pipeline.yml

# 7. bad inputs: no base (a push event), a base that does not exist, a path neither
#    side has, a bad fail-on-diff, no fanout
run nobase INPUT_BASE=
expect nobase 2
has nobase.err "set the action's 'base' input"
run badbase INPUT_BASE=0123456789abcdef0123456789abcdef01234567
expect badbase 2
run nopath INPUT_PATHS=.buildkite/nothing.yml
expect nopath 2
has nopath.err '.buildkite/nothing.yml'
run badflag INPUT_FAIL_ON_DIFF=maybe
expect badflag 2
run nofanout FANOUT=/nonexistent/fanout
expect nofanout 2
echo "action: ok"
