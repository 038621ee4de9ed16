#!/bin/sh
# The hostile-input table: every line of cases.tsv is one case,
#   name <TAB> exit code <TAB> rule <TAB> shell command
# run with sh in a fresh directory, with $FANOUT (the binary), $ROOT and the helpers of
# lib.sh. The case passes when the command exits with the code (a list like 0|2 allows
# either), stderr names the rule as "[rule]" (- : no "error:" on stderr at all; * : any
# message), and each of its processes uses at most $HOSTILE_SECONDS (default 10) of CPU time
# (ulimit -S -t: SIGXCPU), the whole case at most five times that in wall time (a hang that waits uses
# no CPU). CPU time, not wall time, is the bound: on a shared machine a case that pays
# for page faults waits on its neighbours (uploads-alias-copies: 0.8 s of CPU, 13 s of
# wall time at load 8 on 2 cores). A `#` line is a comment.
set -u
: "${FANOUT:?set FANOUT to the fanout binary}"
case "$FANOUT" in /*) ;; *) FANOUT="$(pwd)/$FANOUT" ;; esac
ROOT=$(pwd)
HERE="$ROOT/test/hostile"
LIMIT=${HOSTILE_SECONDS:-10}
export FANOUT ROOT HERE
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 n=0
tab=$(printf '\t')
while IFS="$tab" read -r name want rule cmd; do
    case "$name" in ''|'#'*) continue ;; esac
    n=$((n + 1))
    dir="$tmp/$n"
    mkdir -p "$dir"
    start=$(date +%s)
    (cd "$dir" && ulimit -S -t "$LIMIT" && timeout -k 2 "$((5 * LIMIT))" sh -c ". \"\$HERE/lib.sh\"; $cmd" >"$dir/.out" 2>"$dir/.err" </dev/null)
    rc=$?
    secs=$(($(date +%s) - start))
    why=
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        why="took more than $((5 * LIMIT)) s"
    elif [ "$rc" = 152 ]; then # SIGXCPU
        why="took more than ${LIMIT} s of CPU"
    else
        case "|$want|" in *"|$rc|"*) ;; *) why="exit $rc, expected $want" ;; esac
    fi
    if [ -z "$why" ]; then
        if [ "$rule" = '*' ]; then
            :
        elif [ "$rule" = - ]; then
            ! grep -q 'error:' "$dir/.err" || why="unexpected error"
        else
            grep -qF "[$rule]" "$dir/.err" || why="no [$rule] message"
        fi
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $name: $why (${secs}s)"
        head -c 600 "$dir/.err" | sed 's/^/    /'
    fi
    rm -rf "$dir"
done <"$HERE/cases.tsv"
echo "hostile: $pass passed, $fail failed ($n cases)"
[ "$fail" = 0 ] && [ "$n" -ge 60 ]
