# render --changed-from REF: the changed files from git (the merge base with REF to the
# work tree, as vLLM's generator lists them) gate the test-area steps; the usage errors
# of the change options.
set -eu
. "$ROOT/test/e2e/lib/git.sh"
git_scratch "render --changed-from test"
mkdir repo
cd repo
git init -q .
mkdir -p .buildkite/test_areas docs vllm
printf 'group: G\nsteps:\n- label: Core\n  key: core\n  source_file_dependencies: [vllm/]\n  commands: [pytest core]\n- label: Docs\n  key: docs\n  source_file_dependencies: [docs/]\n  commands: [mkdocs build]\n' \
    >.buildkite/test_areas/g.yaml
echo a >docs/index.md
echo a >vllm/a.py
git add -A
git commit -qm one
git checkout -qb topic
echo b >>vllm/a.py
git commit -qam two
git checkout -q main
echo b >>docs/index.md
git commit -qam main-moves-on
git checkout -q topic
# an uncommitted change counts too, as the generator's `git add .; git diff` sees it
echo c >>vllm/a.py

# topic changed vllm/ only since it left main: Docs gets its block step, Core runs
"$FANOUT" render --changed-from main --explain .buildkite/test_areas >../out.yaml 2>../err.txt
grep -q "'docs' does not run for this change: no changed file is under its source_file_dependencies" ../err.txt
grep -q 'key: block-docs' ../out.yaml
if grep -q 'block-core' ../out.yaml; then exit 1; fi
# main...topic: what topic committed since the merge base (the work tree's change aside)
printf 'vllm/a.py\n' >../want.txt
"$FANOUT" render --changed ../want.txt .buildkite/test_areas >../from-file.yaml
"$FANOUT" render --changed-from main...topic .buildkite/test_areas >../from-range.yaml
cmp ../from-file.yaml ../from-range.yaml
cmp ../from-file.yaml ../out.yaml

# a change of nothing (an empty list): every step waits behind its block step
: >../empty.txt
"$FANOUT" render --changed ../empty.txt .buildkite/test_areas >../empty.yaml
[ "$(grep -c 'block:' ../empty.yaml)" = 2 ]

# usage: --explain alone, both sources, --build without '=', an unknown revision, a
# missing list: exit 2
for args in "--explain" "--changed ../want.txt --changed-from main" "--build RUN_ALL" \
    "--changed-from no-such-ref" "--changed ../missing.txt"; do
    set +e
    # shellcheck disable=SC2086  # a word list on purpose
    "$FANOUT" render $args .buildkite/test_areas >/dev/null 2>../err.txt
    rc=$?
    set -e
    [ $rc = 2 ] || { echo "render $args: exit $rc"; cat ../err.txt; exit 1; }
done
