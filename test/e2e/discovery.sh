# A repository's root stands for its CI configuration (issue 24 item 2): the files under
# .buildkite/ and those of .github/workflows/ itself, which a plain walk skips (hidden);
# nothing else of the repository.
set -eu
mkdir -p repo/.github/workflows/sub repo/.buildkite/test_areas repo/docs
printf 'on: push\njobs:\n  a: {runs-on: x, steps: [{run: y}]}\n' >repo/.github/workflows/ci.yml
printf 'this: is not read\n' >repo/.github/workflows/sub/not-read.yml
printf 'steps:\n  - command: make\n' >repo/.buildkite/pipeline.yml
printf 'group: G\nsteps:\n  - label: t\n    commands: [pytest]\n' >repo/.buildkite/test_areas/t.yaml
printf 'not: [a pipeline\n' >repo/docs/broken.yml
cd repo
# each file in its own dialect; docs/ and the workflows' subdirectory are not read
"$FANOUT" validate . 2>err.txt || { cat err.txt; exit 1; }
[ ! -s err.txt ]
# one rendering, one dialect: render says which files differ
set +e
"$FANOUT" render . >out.yml 2>err.txt
rc=$?
set -e
[ $rc = 2 ]
grep -q "^./.buildkite/test_areas/t.yaml: error: this is a vLLM test-area file and ./.buildkite/pipeline.yml a Buildkite pipeline" err.txt
# a repository with workflows only renders them
rm -r .buildkite
"$FANOUT" render . >out.yml
grep -q '^  a:' out.yml
