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
# each file in its own dialect, those of a dialect together: the pipeline, the test
# area's group and the workflow, one document each
"$FANOUT" render . >out.yml 2>err.txt || { cat err.txt; exit 1; }
[ "$(grep -c '^---$' out.yml)" = 2 ]
grep -q '^  - command: make$' out.yml
grep -q '^  - group: G$' out.yml
grep -q '^  a:$' out.yml
# a committed rendering the config checks is not a source (issue 24 item 2): rendered
# again it would collide with its own sources; `check` at the root passes, then fails
# when a source changes
"$FANOUT" render -o .buildkite/rendered.yml .
printf 'checks:\n  - sources: .\n    rendered: .buildkite/rendered.yml\n' >.fanout.yml
"$FANOUT" render . | cmp -s - .buildkite/rendered.yml
"$FANOUT" check >out.txt 2>err.txt || { cat out.txt err.txt; exit 1; }
printf '  - command: make lint\n' >>.buildkite/pipeline.yml
set +e
"$FANOUT" check >out.txt 2>err.txt
rc=$?
set -e
[ $rc = 1 ]
grep -q '^+  - command: make lint$' out.txt
# without the config the rendering is an input like any other file
rm .fanout.yml
"$FANOUT" render . 2>err.txt >/dev/null && exit 1
grep -q '^./.buildkite/rendered.yml:' err.txt
rm .buildkite/rendered.yml
# a repository with workflows only renders them
rm -r .buildkite
"$FANOUT" render . >out.yml
grep -q '^  a:' out.yml
# a FIFO named like YAML in a walked directory is not opened (it would block the run
# until a writer came): an io error at once, for every command that walks
if mkfifo .github/workflows/pipe.yml 2>/dev/null; then
    for cmd in render validate jobs "shards check"; do
        set +e
        # shellcheck disable=SC2086  # cmd is a word list on purpose
        timeout 10 "$FANOUT" $cmd . >/dev/null 2>err.txt
        rc=$?
        set -e
        [ $rc = 2 ] || { echo "$cmd on a FIFO: exit $rc"; exit 1; }
        grep -q '^./.github/workflows/pipe.yml: error: not a regular file .*\[io\]$' err.txt
    done
    rm .github/workflows/pipe.yml
fi
