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
