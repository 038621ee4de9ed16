#!/bin/sh
# The glob differential: fanout's picomatch dialect (src/base/glob_picomatch.c) against
# picomatch 2.3.1 itself, with the options dorny/paths-filter passes ({dot: true}),
# pinned by expr/package-lock.json. GLOB_CASES generated (pattern, path) pairs
# (glob/gen.js, seeded by GLOB_SEED) are answered by both: match, no match, or the
# pattern refused; every pair must agree, except those where picomatch's own match ran
# over 2 s (counted and shown, not compared).
# Usage: glob.sh PATH/TO/glob-driver. Skipped (saying so) without node; picomatch is
# installed into build/npm (EXPR_NPM_DIR, shared with expr.sh) when missing.
set -eu
driver=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
npm_dir=${EXPR_NPM_DIR:-$root/build/npm}
. "$here/npm.sh"
npm_pinned "glob differential" "$here/expr" "$npm_dir" || exit 0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
node "$here/glob/gen.js" "${GLOB_CASES:-3000}" "${GLOB_SEED:-1}" >"$tmp/cases.tsv"
node "$here/glob/oracle.js" "$npm_dir" <"$tmp/cases.tsv" >"$tmp/picomatch.out"
"$driver" picomatch <"$tmp/cases.tsv" >"$tmp/fanout.out"
paste "$tmp/picomatch.out" "$tmp/fanout.out" "$tmp/cases.tsv" | awk -F '\t' '
    $1 == "T" { slow++; next }
    { n++ }
    $1 == $2 { agree++; next }
    ++shown <= 10 { printf "  pattern %s, path %s: picomatch %s, fanout %s\n", $3, $4, $1, $2 }
    END {
        printf "glob differential (picomatch 2.3.1, {dot: true}): %d/%d agree", agree, n
        if (slow) printf " (%d not compared: picomatch took over 2 s)", slow
        printf "\n"
        exit (agree == n && n > 0) ? 0 : 1
    }'
