# Usage: help, version, unknown commands and options.
set -eu
"$FANOUT" --help | grep -q '^usage: fanout render'
"$FANOUT" render --help | grep -q -- '--upload'
"$FANOUT" --version | grep -q '^fanout [0-9]'
for args in "" "frobnicate" "render --nope x" "render -o"; do
    set +e
    # shellcheck disable=SC2086
    "$FANOUT" $args >out.txt 2>err.txt </dev/null
    rc=$?
    set -e
    [ $rc = 2 ] || { echo "'$args' exit $rc"; exit 1; }
    grep -q '^fanout: error: ' err.txt || { echo "'$args' no message"; exit 1; }
    [ ! -s out.txt ]
done
# An option the command does not take is named, not its value (issue 12).
set +e
"$FANOUT" validate --format json x.yml >/dev/null 2>err.txt
rc=$?
set -e
[ $rc = 2 ]
grep -qx "fanout: error: unknown option for this command: --format" err.txt
"$FANOUT" render -o x.yml --schema s.json 2>err.txt >/dev/null || true
grep -qx "fanout: error: unknown option for this command: --schema" err.txt
# Each command has its own help.
"$FANOUT" expr --help | grep -q -- '--matrix'
! "$FANOUT" render --help | grep -q -- '--rendered'
