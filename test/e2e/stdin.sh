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

# A mapping too large to check for duplicate keys cheaply is refused, not scanned forever.
awk 'BEGIN { print "steps:"; print "  - command: x"; print "    env:"; for (i = 0; i <= 20000; i++) print "      K" i ": v" }' >big.yml
set +e
"$FANOUT" render big.yml >/dev/null 2>err.txt
rc=$?
set -e
[ $rc = 2 ]
grep -q '^big.yml:20004:7: error: a mapping with more than 20000 keys \[depth\]$' err.txt

# stdin beside a file is read once, by the rendering: each input's own dialect is told
# from what the rendering reads, not by reading stdin ahead of it (a lost stdin renders
# the file alone).
printf 'steps:\n  - command: b\n' >o.yml
printf 'steps:\n  - command: a\n' | "$FANOUT" render - o.yml >out.yml
grep -q '^  - command: a$' out.yml
grep -q '^  - command: b$' out.yml
