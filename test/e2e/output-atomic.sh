# -o writes the file whole, keeps its mode, and leaves it untouched on failure.
set -eu
F="$ROOT/fixtures/basic-parallelism"
"$FANOUT" render -o out.yaml "$F/input.yaml"
cmp out.yaml "$F/expected.yaml"
chmod 640 out.yaml
"$FANOUT" render -o out.yaml "$F/input.yaml"
[ "$(stat -c %a out.yaml)" = 640 ] || { echo "mode not kept"; exit 1; }
cp out.yaml before.yaml
# A failing render must not touch the target nor leave a temporary file behind.
if "$FANOUT" render -o out.yaml "$ROOT/fixtures/err-parallelism-zero/input.yaml" 2>err.txt; then
    echo "bad input rendered"; exit 1
fi
cmp out.yaml before.yaml
grep -q 'parallelism must be an integer' err.txt
[ -z "$(ls | grep fanout- || true)" ] || { echo "temporary file left behind"; exit 1; }
# Findings (exit 1) write nothing either.
set +e
"$FANOUT" render -o out.yaml "$ROOT/fixtures/err-key-collision/input.yaml" 2>/dev/null
rc=$?
set -e
[ $rc = 1 ] || { echo "collision exit $rc"; exit 1; }
cmp out.yaml before.yaml
# An unwritable directory is an I/O error (exit 2) with a message naming the target.
mkdir ro && chmod 555 ro
if [ "$(id -u)" != 0 ]; then
    set +e
    "$FANOUT" render -o ro/out.yaml "$F/input.yaml" 2>err.txt
    rc=$?
    set -e
    [ $rc = 2 ] && grep -q 'ro/out.yaml: error: cannot write' err.txt
fi
set +e
"$FANOUT" render -o missing-dir/out.yaml "$F/input.yaml" 2>err.txt
rc=$?
set -e
[ $rc = 2 ] || { echo "missing dir exit $rc"; exit 1; }
grep -q 'missing-dir/out.yaml: error: cannot write: No such file or directory \[io\]' err.txt
