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

# config_bomb DIALECT ITEMS JOBS [LEVELS]: an alias of about 10,000 nodes (LEVELS 4: 90,000) in each of
# ITEMS items, each made into JOBS jobs: DIALECT gha (a JOBS x JOBS matrix) or bk
# (`parallelism: JOBS`). The stream's bound on one item's aliases times its jobs.
config_bomb() {
    awk -v d="$1" -v items="$2" -v jobs="$3" -v levels="${4:-3}" 'BEGIN {
        printf d == "gha" ? "on: push\nenv:\n" : "x:\n"
        printf "  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for (l = 1; l < levels; l++) {
            printf "  a%d: &a%d [*a%d", l, l, l - 1; for (k = 1; k < 10; k++) printf ", *a%d", l - 1; print "]"
        }
        printf "%s:\n", d == "gha" ? "jobs" : "steps"
        for (i = 0; i < items; i++) {
            if (d == "gha") {
                printf "  j%d:\n    runs-on: x\n    strategy:\n      matrix:\n        a: [0", i
                for (k = 1; k < jobs; k++) printf ", %d", k
                printf "]\n        b: [0"; for (k = 1; k < jobs; k++) printf ", %d", k
                printf "]\n    steps:\n      - uses: a/b@v1\n        with:\n          k: [*a%d", levels - 1
            } else {
                printf "  - command: x\n    key: k%d\n    parallelism: %d\n    env:\n      K: [*a%d", i, jobs, levels - 1
            }
            for (k = 1; k < 9; k++) printf ", *a%d", levels - 1
            print "]"
        }
    }'
}
