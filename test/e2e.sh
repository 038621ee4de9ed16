#!/bin/sh
# End-to-end tests of the built binary.
#  1. Every fixtures/<case>/ directory is one case: `cmd` holds the fanout arguments
#     (default: `render input.yaml`), run inside the case directory; `expected.yaml`
#     (a rendering) or `expected.out` (anything else) is the exact stdout (absent:
#     stdout must be empty), `expected.err` the exact stderr (absent: stderr must be
#     empty), `expected.rc` the exit code (default 0). A successful YAML rendering must
#     also be a fixed point: rendering it again gives the same bytes (but a rendering
#     of several dialects, whose case holds a file `several-dialects` saying so: a file
#     is read back in one dialect).
#  2. test/e2e/*.sh: scripted cases (atomic output, stdin, the vLLM corpus, ...); a
#     script that exits 77 was skipped, and says why.
# Prints "N passed, N failed, N skipped" and exits non-zero when anything failed.
set -u
: "${FANOUT:?set FANOUT to the fanout binary}"
case "$FANOUT" in /*) ;; *) FANOUT="$(pwd)/$FANOUT" ;; esac
export FANOUT
ROOT=$(pwd)
export ROOT
SHARED="$ROOT/../shared"
export SHARED
pass=0
fail=0
skip=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

failed() {
    fail=$((fail + 1))
    echo "FAIL $1: $2"
}

for dir in "$ROOT"/fixtures/*/; do
    name=$(basename "$dir")
    [ -f "$dir/input.yaml" ] || [ -f "$dir/cmd" ] || continue
    want_out="$dir/expected.yaml"
    [ -f "$dir/expected.out" ] && want_out="$dir/expected.out"
    cmd="render input.yaml"
    [ -f "$dir/cmd" ] && cmd=$(cat "$dir/cmd")
    want_rc=0
    [ -f "$dir/expected.rc" ] && want_rc=$(cat "$dir/expected.rc")
    # shellcheck disable=SC2086  # cmd is a word list on purpose
    (cd "$dir" && "$FANOUT" $cmd >"$tmp/out" 2>"$tmp/err" </dev/null)
    rc=$?
    ok=1
    if [ "$rc" != "$want_rc" ]; then
        failed "$name" "exit $rc, expected $want_rc"; ok=0
    fi
    if [ $ok = 1 ]; then
        if [ -f "$want_out" ]; then
            cmp -s "$want_out" "$tmp/out" || { failed "$name" "stdout differs:"; diff -u "$want_out" "$tmp/out" | head -40; ok=0; }
        elif [ -s "$tmp/out" ]; then
            failed "$name" "unexpected stdout:"; head -20 "$tmp/out"; ok=0
        fi
    fi
    if [ $ok = 1 ]; then
        if [ -f "$dir/expected.err" ]; then
            cmp -s "$dir/expected.err" "$tmp/err" || { failed "$name" "stderr differs:"; diff -u "$dir/expected.err" "$tmp/err" | head -20; ok=0; }
        elif [ -s "$tmp/err" ]; then
            failed "$name" "unexpected stderr:"; head -20 "$tmp/err"; ok=0
        fi
    fi
    # A rendering of several dialects is one file of documents in different dialects,
    # which a file's one dialect cannot read back: its case says so in `several-dialects`.
    # A test-area rendering that Buildkite's agent reads otherwise than vLLM's generator
    # wrote it (a plain `1e3` the agent reads as 1000) says why in `read-otherwise`; a
    # rendering its platform refuses as an input (a workflow no job of which runs for the
    # event: `jobs: {}`) says why in `refused-as-input`.
    if [ $ok = 1 ] && [ "$rc" = 0 ] && [ -f "$dir/expected.yaml" ] && [ ! -f "$dir/several-dialects" ] &&
        [ ! -f "$dir/read-otherwise" ] && [ ! -f "$dir/refused-as-input" ] &&
        head -c1 "$dir/expected.yaml" | grep -qv '{'; then
        # A rendering's labels are final: a literal `%N` in a rendered shard (from `%%N`)
        # is no placeholder, so only a case that accepts placeholders re-renders with it.
        again_opts=--no-validate
        case " $cmd " in *" --allow-placeholders "*) again_opts="$again_opts --allow-placeholders" ;; esac
        # shellcheck disable=SC2086  # again_opts is a word list on purpose
        "$FANOUT" render $again_opts "$dir/expected.yaml" >"$tmp/again" 2>"$tmp/again.err"
        cmp -s "$dir/expected.yaml" "$tmp/again" || { failed "$name" "rendering is not a fixed point:"; diff -u "$dir/expected.yaml" "$tmp/again" | head -20; cat "$tmp/again.err"; ok=0; }
    fi
    [ $ok = 1 ] && pass=$((pass + 1))
done

for script in "$ROOT"/test/e2e/*.sh; do
    [ -f "$script" ] || continue
    name=$(basename "$script" .sh)
    mkdir -p "$tmp/$name"
    (cd "$tmp/$name" && sh "$script") >"$tmp/script.out" 2>&1
    rc=$?
    if [ $rc = 0 ]; then
        pass=$((pass + 1))
    elif [ $rc = 77 ]; then
        skip=$((skip + 1))
        echo "SKIP $name: $(tail -n 1 "$tmp/script.out")"
    else
        failed "$name" "script failed:"; tail -20 "$tmp/script.out"
    fi
done

echo "e2e: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
