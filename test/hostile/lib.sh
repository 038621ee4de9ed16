# Generators for the hostile-input table (cases.tsv). Plain sh and awk only.

# repeat TEXT N: TEXT written N times, no newline
repeat() { awk -v t="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", t }'; }

# step_with KEY VALUE: a pipeline with one command step whose KEY is VALUE (raw YAML)
step_with() { printf 'steps:\n  - command: make\n    %s: %s\n' "$1" "$2"; }

# bomb LEVELS WIDTH SHAPE: an alias bomb; SHAPE seq, map or merge
bomb() {
    awk -v l="$1" -v w="$2" -v shape="$3" 'BEGIN {
        if (shape == "seq") printf "a0: &a0 [x]\n"; else printf "a0: &a0 {x: 1}\n"
        for (i = 1; i <= l; i++) {
            if (shape == "seq") { printf "a%d: &a%d [", i, i; for (j = 0; j < w; j++) printf "%s*a%d", j ? ", " : "", i - 1; print "]" }
            else if (shape == "map") { printf "a%d: &a%d {", i, i; for (j = 0; j < w; j++) printf "%sk%d: *a%d", j ? ", " : "", j, i - 1; print "}" }
            else { printf "a%d: &a%d\n  <<: *a%d\n", i, i, i - 1; for (j = 0; j < w; j++) printf "  k%d_%d: *a%d\n", i, j, i - 1 }
        }
        printf "steps:\n  - command: x\n    env: *a%d\n", l }'
}

# pipeline N: N plain command steps
pipeline() { awk -v n="$1" 'BEGIN { print "steps:"; for (i = 0; i < n; i++) printf "  - key: s%d\n    command: make %d\n", i, i }'; }

# fd_pos PID FILE: the read offset of PID's descriptor on FILE (0 when not open yet)
fd_pos() {
    for fd in /proc/"$1"/fd/*; do
        if [ "$(readlink "$fd" 2>/dev/null)" = "$2" ]; then
            awk '/^pos:/ { print $2 }' /proc/"$1"/fdinfo/"${fd##*/}"; return
        fi
    done
    echo 0
}

# gha_caller FILE CALLEE: a workflow whose job `call` (between two plain jobs) calls
# CALLEE; its `uses:` value is at FILE:5:11
gha_caller() {
    printf 'on: push\njobs:\n  first: {runs-on: x, steps: [{run: x}]}\n  call:\n    uses: %s\n  last: {runs-on: x, steps: [{run: x}]}\n' "$2" >"$1"
}

# one_error AT CMD...: CMD's exit code, when it wrote nothing to stdout and exactly one
# error, at AT (file:line:col); else 99. Its stderr is passed on either way.
one_error() {
    _at=$1; shift
    "$@" >.one.out 2>.one.err; _rc=$?
    cat .one.err >&2
    [ ! -s .one.out ] || { echo "one_error: something was written to stdout" >&2; return 99; }
    [ "$(grep -c ': error: ' .one.err)" = 1 ] || { echo "one_error: not exactly one error" >&2; return 99; }
    grep -q "^$_at: error: " .one.err || { echo "one_error: the error is not at $_at" >&2; return 99; }
    return $_rc
}
