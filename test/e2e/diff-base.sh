# diff --base REF: BASE read from git in a scratch repository, after a commit, as a
# pre-commit hook or a CI lint job runs it; no second checkout, no file left behind.
set -eu
. "$ROOT/test/e2e/lib/git.sh"
git_scratch "diff --base test"
export TMPDIR="$PWD/tmp"
mkdir tmp repo
cd repo
git init -q .
mkdir .buildkite
printf 'steps:\n  - label: unit\n    key: unit\n    command: pytest\n    parallelism: 2\n  - label: lint\n    key: lint\n    command: ruff\n' \
    >.buildkite/pipeline.yml
# a committed rendering the config checks is no source: its keys would collide
"$FANOUT" render -o .buildkite/rendered.yml .buildkite/pipeline.yml
printf 'checks:\n  - sources: .buildkite/pipeline.yml\n    rendered: .buildkite/rendered.yml\n' >.fanout.yml
git add -A
git commit -qm one

# nothing changed: exit 0
"$FANOUT" diff --base HEAD >../out.txt
grep -q '^no changes: 0 added, 0 removed' ../out.txt

# the work tree against HEAD: the current directory stands for its CI directories
sed -i 's/parallelism: 2/parallelism: 3/' .buildkite/pipeline.yml
set +e
"$FANOUT" diff --base HEAD >../out.txt 2>../err.txt
rc=$?
set -e
[ $rc = 1 ] || { cat ../out.txt ../err.txt; exit 1; }
grep -q 'unit \[./.buildkite/pipeline.yml:2\]: parallelism 2 -> 3' ../out.txt
[ ! -s ../err.txt ] || { cat ../err.txt; exit 1; }

# after a commit, HEAD~1; a removed step is named where BASE had it: REF:PATH
printf 'steps:\n  - label: unit\n    key: unit\n    command: pytest\n    parallelism: 3\n' >.buildkite/pipeline.yml
git commit -qam two
set +e
"$FANOUT" diff --base HEAD~1 .buildkite/pipeline.yml >../out.txt 2>../err.txt
rc=$?
set -e
[ $rc = 1 ] || { cat ../out.txt ../err.txt; exit 1; }
grep -q '^- lint \[HEAD~1:.buildkite/pipeline.yml:6\]: removed' ../out.txt || { cat ../out.txt; exit 1; }

# A...B: from the merge base, as a pull request's diff reads
git checkout -q -b topic
printf '  - label: docs\n    key: docs\n    command: mkdocs build\n' >>.buildkite/pipeline.yml
git commit -qam three
git checkout -q main
printf '  - label: main-only\n    command: true\n' >>.buildkite/pipeline.yml
git commit -qam four
git checkout -q topic
set +e
"$FANOUT" diff --base main...topic .buildkite >../out.txt
set -e
grep -q '^+ docs ' ../out.txt
! grep -q 'main-only' ../out.txt

# errors: exit 2, one line each
set +e
"$FANOUT" diff --base no-such-ref 2>../err.txt; rc=$?
set -e
[ $rc = 2 ] && grep -q '^fanout: error: git rev-parse no-such-ref^{commit}: .*\[io\]$' ../err.txt
set +e
"$FANOUT" diff --base HEAD a b 2>../err.txt; rc=$?
set -e
[ $rc = 2 ] && grep -q 'with --base REF, diff takes one PATH' ../err.txt
set +e
"$FANOUT" diff --base HEAD no-such-dir 2>../err.txt; rc=$?
set -e
[ $rc = 2 ] && grep -q 'HEAD has no YAML file under no-such-dir' ../err.txt

# nothing is left in TMPDIR, and the work tree is as it was
[ -z "$(ls -A "$TMPDIR")" ] || { ls -A "$TMPDIR"; exit 1; }
[ -z "$(git status --porcelain)" ]
