#!/bin/sh
# The matrix differential: fanout's expansion of `strategy.matrix` against an oracle
# transcribed from GitHub's own C# (matrix/oracle.js says from where), with filters and
# ${{ }} evaluated by @actions/expressions (pinned by matrix/package-lock.json). 1,200
# generated workflows (matrix/gen.js, seeded; MATRIX_CASES to change) are rendered by
# fanout and compared job by job: the number of jobs, their order, matrix values,
# display names and strategy context, that the rendering displays on GitHub the name
# fanout shows, or that both reject the workflow (matrix/compare.js). Prints the
# agreement count and the disagreements by class; fails on a class not listed in
# matrix/known-disagreements.tsv or with more cases than listed there.
# Usage: matrix.sh PATH/TO/fanout. Skipped when node is absent; the packages are
# installed into build/npm/matrix (MATRIX_NPM_DIR) when missing.
set -eu
fanout=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
npm_dir=${MATRIX_NPM_DIR:-$root/build/npm/matrix}

. "$here/npm.sh"
npm_pinned "matrix differential" "$here/matrix" "$npm_dir" || exit 0

if [ -n "${MATRIX_KEEP:-}" ]; then # keep the cases and renderings there, to look into them
    tmp=$MATRIX_KEEP
    rm -rf "$tmp/cases" "$tmp/out" "$tmp/self" "$tmp"/batch.*
    mkdir -p "$tmp"
else
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
fi
mkdir "$tmp/cases" "$tmp/out"
node "$here/matrix/gen.js" "$tmp/cases" "${MATRIX_CASES:-1200}"

# Rendered 50 at a time, but a workflow GitHub rejects alone (fanout writes nothing for
# a run with an error); a batch that fails is rendered case by case, so that each refusal
# is known with its message.
render_alone() {
    for f in "$@"; do
        id=$(basename "$f" .yml)
        rc=0
        "$fanout" render -q "$f" >"$tmp/out/$id.yml" 2>"$tmp/out/$id.err" || rc=$?
        if [ "$rc" != 0 ]; then
            rm "$tmp/out/$id.yml"
            echo "$rc" >"$tmp/out/$id.rc"
        fi
    done
}
ls "$tmp"/cases/*.yml >"$tmp/all"
node "$here/matrix/oracle.js" "$npm_dir" --rejected $(cat "$tmp/all") >"$tmp/rejected"
render_alone $(cat "$tmp/rejected")
grep -v -x -F -f "$tmp/rejected" "$tmp/all" | split -l 50 - "$tmp/batch."
for batch in "$tmp"/batch.*; do
    rc=0
    "$fanout" render -q $(cat "$batch") >"$tmp/out/${batch##*.}.yml" 2>/dev/null || rc=$?
    if [ "$rc" != 0 ]; then
        rm "$tmp/out/${batch##*.}.yml"
        render_alone $(cat "$batch")
    fi
done
# the comparison itself first: a rendering written from the oracle must agree in full
mkdir "$tmp/self"
node "$here/matrix/selfcheck.js" "$npm_dir" "$tmp/cases" "$tmp/self"
if ! node --max-semi-space-size=64 "$here/matrix/compare.js" "$npm_dir" "$tmp/cases" "$tmp/self" /dev/null 3 >"$tmp/self.out"; then
    sed 's/^/  self-check: /' "$tmp/self.out" >&2
    echo "matrix differential: the comparison disagrees with a rendering written from the oracle" >&2
    exit 1
fi
node --max-semi-space-size=64 "$here/matrix/compare.js" "$npm_dir" "$tmp/cases" "$tmp/out" "$here/matrix/known-disagreements.tsv" "${MATRIX_SHOW:-2}"
