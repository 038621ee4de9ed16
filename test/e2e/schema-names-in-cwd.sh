# A dialect's schemas are the bundled ones: a file in the current directory named like
# one (buildkite, buildkite-rendered, github-workflow-v1, testarea...) was loaded in its
# place by render and validate (a pipeline then failed against `{"type": "string"}`, or
# with that file's YAML error). `validate --schema NAME` still reads a file NAME first,
# as documented.
set -eu
printf 'steps:\n  - command: make\n    parallelism: 2\n' >p.yml
printf 'on: push\njobs:\n  t:\n    runs-on: x\n    steps: [{run: make}]\n' >w.yml
mkdir clean
for f in p.yml w.yml; do
    (cd clean && "$FANOUT" render "../$f" >"../$f.render" 2>&1 && "$FANOUT" validate "../$f" >"../$f.validate" 2>&1)
done
for s in $(cd "$ROOT/schemas" && ls | sed 's/\.json$//'); do echo '{"type": "string"}' >"$s"; done
echo 'garbage: [' >buildkite
for f in p.yml w.yml; do
    "$FANOUT" render "$f" >out 2>&1
    cmp "$f.render" out
    "$FANOUT" validate "$f" >out 2>&1
    cmp "$f.validate" out
done
# an explicit --schema names the file
set +e
"$FANOUT" validate --schema buildkite-rendered p.yml >/dev/null 2>err.txt
rc=$?
set -e
[ "$rc" = 1 ]
grep -q 'must be string' err.txt
