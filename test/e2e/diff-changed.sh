# diff --changed / --changed-from / --base (issue 25 item 3): HEAD rendered once for the
# change, every job kept; a step the change edits that HEAD's CI will not run for it is
# one more line, in every format; BASE is never gated; the exit code is a difference's.
# shellcheck disable=SC2086  # $KNOWN is a word list
set -eu
F="$ROOT/fixtures/diff-changed-testarea"
KNOWN="--known-key image-build --known-key image-build-amd"
NOT_RUN="~ documentation-build [head/test_areas/docs.yaml:6 \"Documentation Build\"]: changed, but will not run for this change: no changed file is under its source_file_dependencies; block step 'block-documentation-build' waits before it"

# `fanout diff ARGS` in the fixture: stdout in out.txt, stderr in err.txt, exit $want
run() {
    want=$1
    shift
    rc=0
    (cd "$F" && "$FANOUT" diff $KNOWN "$@") >out.txt 2>err.txt || rc=$?
    [ "$rc" = "$want" ] || { echo "diff $*: exit $rc, expected $want"; cat out.txt err.txt; exit 1; }
}

# text: the not-run lines follow the step's changes; without the change, none, and the
# same lines otherwise (one rendering of HEAD, its jobs kept: no block step appears)
run 1 --changed changed.txt base head
grep -qxF "$NOT_RUN" out.txt
[ "$(grep -c 'but will not run for this change' out.txt)" = 4 ]
grep -v 'but will not run' out.txt | sed 's/, 4 not run for this change$//' >with.txt
run 1 base head
cmp with.txt out.txt
if grep -q 'block-' with.txt; then echo "a block step is compared"; exit 1; fi
# from stdin, as `git diff --name-only | fanout diff --changed -` reads it
rc=0
(cd "$F" && "$FANOUT" diff $KNOWN --changed - base head <changed.txt) >out.txt || rc=$?
[ $rc = 1 ] && grep -qxF "$NOT_RUN" out.txt
# ... but not as an operand too: standard input is read once
rc=0
(cd "$F" && "$FANOUT" diff --changed - base - <changed.txt) 2>err.txt || rc=$?
[ $rc = 2 ] && grep -q "both read standard input" err.txt

# a change that touches the docs: the docs steps run, only the optional ones do not
printf 'docs/index.md\n.buildkite/test_areas/models_language.yaml\n' >"$PWD/docs.txt"
run 1 --changed "$PWD/docs.txt" base head
[ "$(grep -c 'but will not run for this change' out.txt)" = 2 ]
if grep '^~ documentation' out.txt | grep -q 'will not run'; then exit 1; fi
tail -n 1 out.txt | grep -qx '1 added, 0 removed, 0 renamed, 4 changed, 0 moved, 0 re-sharded, 2 not run for this change'

# the exit code is a difference's: --exit-zero lets it pass
run 0 --changed changed.txt --exit-zero base head
grep -qxF "$NOT_RUN" out.txt

# --explain: HEAD's [not-run] notes on stderr, as render --explain writes them
run 1 --changed changed.txt --explain base head
grep -qF "head/test_areas/docs.yaml:6:3: note: 'documentation-build' does not run for this change: no changed file is under its source_file_dependencies; block step 'block-documentation-build' waits before it [not-run]" err.txt
run 2 --explain base head
grep -q 'it needs --changed, --changed-from or --build' err.txt

# github: a warning at the step's line; the counts say them
run 1 --changed changed.txt --format github base head
grep -qF "::warning file=head/test_areas/docs.yaml,line=6,title=fanout diff%3A not-run documentation-build::$NOT_RUN" out.txt
grep -qx '::notice title=fanout diff::1 added, 0 removed, 0 renamed, 4 changed, 0 moved, 0 re-sharded, 4 not run for this change' out.txt

# markdown: a section of their own, first
run 1 --changed changed.txt --format markdown base head
[ "$(grep '^#### ' out.txt | head -n 1)" = '#### Will not run for this change' ]
# shellcheck disable=SC2016  # markdown's backticks
grep '^- `documentation-links` at `head/test_areas/docs.yaml:13` ' out.txt |
    grep -qF 'Links”: added: no changed file is under its source\_file\_dependencies; block step '"'block-documentation-links' waits before it"

# json: kind not-run with its reason (docs/diff.schema.json), and not_run counted
run 1 --changed changed.txt --format json base head
"$FANOUT" validate --schema "$ROOT/docs/diff.schema.json" out.txt
grep -q '"kind": "not-run", "step": "documentation-build", .*"reason": "no changed file is under its source_file_dependencies; block step .block-documentation-build. waits before it", "edit": "changed"' out.txt
grep -qx '  "not_run": 4' out.txt
run 1 --format json base head
if grep -q '"not_run"' out.txt; then echo "not_run without a change"; exit 1; fi

# sarif: a warning result of rule diff-not-run, a valid SARIF 2.1.0 log
run 1 --changed changed.txt --format sarif base head
"$FANOUT" validate --schema "$ROOT/test/sarif/sarif-schema-2.1.0.json" out.txt
grep -q '"ruleId":"diff-not-run","level":"warning"' out.txt
grep -q '{"id":"diff-not-run",' out.txt

# --base REF in a scratch repository: the change is known without --changed (what the
# work tree changes since it left REF); --changed-from says the same
. "$ROOT/test/e2e/lib/git.sh"
git_scratch "diff --base with a change"
export TMPDIR="$PWD/tmp"
mkdir tmp repo
cd repo
git init -q .
mkdir -p .buildkite/test_areas docs vllm
cp "$F/base/test_areas/docs.yaml" "$F/base/test_areas/models_language.yaml" .buildkite/test_areas/
echo a >docs/index.md
echo a >vllm/a.py
git add -A
git commit -qm one
git checkout -qb topic
cp "$F/head/test_areas/docs.yaml" .buildkite/test_areas/
git commit -qam two

# the pull request edits the docs steps but no file under docs/
rc=0
"$FANOUT" diff $KNOWN --base main >../out.txt 2>../err.txt || rc=$?
[ $rc = 1 ] || { cat ../out.txt ../err.txt; exit 1; }
grep -qxF "~ documentation-build [./.buildkite/test_areas/docs.yaml:6 \"Documentation Build\"]: changed, but will not run for this change: no changed file is under its source_file_dependencies; block step 'block-documentation-build' waits before it" ../out.txt
grep -q '^~ documentation-links .*: added, but will not run for this change' ../out.txt
[ ! -s ../err.txt ] || { cat ../err.txt; exit 1; }
rc=0
"$FANOUT" diff $KNOWN --base main --changed-from main >../from.txt 2>&1 || rc=$?
[ $rc = 1 ] && cmp ../out.txt ../from.txt
# --changed overrides the change --base knows: a list that touches docs/ runs them
rc=0
"$FANOUT" diff $KNOWN --base main --changed ../docs.txt >../out.txt 2>&1 || rc=$?
[ $rc = 1 ] || { cat ../out.txt; exit 1; }
if grep -q 'will not run' ../out.txt; then cat ../out.txt; exit 1; fi
# the work tree's own change counts: now it touches docs/ too
echo b >>docs/index.md
rc=0
"$FANOUT" diff $KNOWN --base main >../out.txt 2>&1 || rc=$?
[ $rc = 1 ] || { cat ../out.txt; exit 1; }
if grep -q 'will not run' ../out.txt; then cat ../out.txt; exit 1; fi
git checkout -q docs/index.md
# --changed and --changed-from together: a usage error
rc=0
"$FANOUT" diff --base main --changed ../docs.txt --changed-from main 2>../err.txt || rc=$?
[ $rc = 2 ] && grep -q 'give one' ../err.txt
# nothing is left in TMPDIR, and the work tree is as it was
[ -z "$(ls -A "$TMPDIR")" ] || { ls -A "$TMPDIR"; exit 1; }
[ -z "$(git status --porcelain)" ]
