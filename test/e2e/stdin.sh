# Input from stdin ("-" or no file), and from a pipe given as a path.
set -eu
F="$ROOT/fixtures/basic-parallelism"
"$FANOUT" render - <"$F/input.yaml" >a.yaml
cmp a.yaml "$F/expected.yaml"
"$FANOUT" render <"$F/input.yaml" >b.yaml
cmp b.yaml "$F/expected.yaml"
cat "$F/input.yaml" | "$FANOUT" render /dev/stdin >c.yaml
cmp c.yaml "$F/expected.yaml"
# Messages about stdin name it.
set +e
printf 'steps:\n  - command: x\n    parallelism: 0\n' | "$FANOUT" render 2>err.txt
rc=$?
set -e
[ $rc = 2 ]
grep -q '^<stdin>:3:18: error: parallelism must be' err.txt
