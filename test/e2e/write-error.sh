# A rendering that cannot be written (a full disk: /dev/full) is an input/output error,
# exit 2 with one message, whether it came from pass 1's spool or from pass 2.
set -eu
[ -w /dev/full ] || { echo "no /dev/full"; exit 77; }
printf 'steps:\n  - key: a\n    parallelism: 2\n    command: x\n  - depends_on: a\n    command: y\n' >backward.yml
printf 'steps:\n  - depends_on: a\n    command: y\n  - key: a\n    parallelism: 2\n    command: x\n' >forward.yml
for f in backward.yml forward.yml; do
    rc=0
    "$FANOUT" render "$f" >/dev/full 2>err.txt || rc=$?
    [ "$rc" = 2 ] || { echo "$f: exit $rc, expected 2"; cat err.txt; exit 1; }
    [ "$(grep -c 'error:' err.txt)" = 1 ] || { echo "$f: expected one error"; cat err.txt; exit 1; }
    grep -q '^<stdout>: error: .*\[io\]$' err.txt
done
