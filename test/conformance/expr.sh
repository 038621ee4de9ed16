#!/bin/sh
# Differential test of the expression engine against GitHub's own evaluator, the npm
# package @actions/expressions (version pinned by expr/package-lock.json): the same
# generated expressions, with the same fully known contexts, must give the same value,
# or both an error. Then again in two stages, as a rendering and GitHub evaluate: fanout
# with one context unknown (matrix, github, env in turn), then the residual it wrote with
# all known; the result must still be GitHub's for the whole expression.
# Usage: test/conformance/expr.sh PATH/TO/expr_driver
# The package is installed into build/npm (EXPR_NPM_DIR) when missing.
set -eu
driver=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
npm_dir=${EXPR_NPM_DIR:-$root/build/npm}
. "$here/npm.sh"
npm_pinned "expr differential" "$here/expr" "$npm_dir" || exit 0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
node "$here/expr/gen.js" "$npm_dir" >"$tmp/expressions.jsonl"
node "$here/expr/oracle.js" "$npm_dir" "$here/expr/contexts.json" "$tmp/expressions.jsonl" >"$tmp/github.out"
status=0
for unknown in "" matrix github env; do
    "$driver" "$here/expr/contexts.json" "$tmp/expressions.jsonl" ${unknown:+--unknown $unknown} \
        >"$tmp/fanout.out"
    paste -d '\n' "$tmp/expressions.jsonl" "$tmp/github.out" "$tmp/fanout.out" | awk -v unknown="$unknown" '
        NR % 3 == 1 { expr = $0 }
        NR % 3 == 2 { github = $0 }
        NR % 3 == 0 {
            n++
            if (github == $0) { agree++; next }
            if (++shown <= 5) {
                print "  expression: " substr(expr, 1, 200)
                print "    GitHub: " substr(github, 1, 200)
                print "    fanout: " substr($0, 1, 200)
            }
        }
        END {
            printf "expr differential%s: %d/%d agree\n",
                unknown == "" ? "" : " (" unknown " unknown, then the residual)", agree, n
            exit (agree == n && n > 0) ? 0 : 1
        }' || status=1
done
exit $status
