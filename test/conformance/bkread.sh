#!/bin/sh
# The Buildkite reading differential (bkread/differential.py): random pipelines of keys
# and values YAML spells many ways, read by buildkite/go-pipeline's own ordered package
# (bkread/oracle.go, built at run time against a go-pipeline checkout, GO_PIPELINE: a
# work tree, or a git directory whose HEAD is read) before and after fanout renders them:
# the agent must read the rendering to the very values it reads the input to, and find
# the strings it makes already written as strings. Needs Go and Debian's
# golang-gopkg-yaml.v3-dev and golang-github-google-go-cmp-dev (GOPATH mode, no module
# download); skipped, with a message, when any is missing. BKREAD_CASES (default 1500)
# and BKREAD_SEED (default 1) pick the pipelines.
# Usage: bkread.sh PATH/TO/fanout
set -eu
fanout=$1
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "bkread differential: skipped ($1)"; exit 0; }
[ -n "${GO_PIPELINE:-}" ] || skip "set GO_PIPELINE to a buildkite/go-pipeline checkout"
command -v go >/dev/null 2>&1 || skip "needs go"
gocode=/usr/share/gocode/src
[ -d "$gocode/gopkg.in/yaml.v3" ] && [ -d "$gocode/github.com/google/go-cmp" ] ||
    skip "needs golang-gopkg-yaml.v3-dev and golang-github-google-go-cmp-dev"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pkg="$tmp/src/github.com/buildkite/go-pipeline"
mkdir -p "$pkg/ordered" "$pkg/warning" "$tmp/src/github.com/google" "$tmp/src/oracle"
ln -s "$gocode/gopkg.in" "$tmp/src/gopkg.in"
ln -s "$gocode/github.com/google/go-cmp" "$tmp/src/github.com/google/go-cmp"
# ordered's decoding (yaml.go, map.go, tuple.go, json.go) and warning; unmarshal.go
# (struct decoding, which oracle.go's string fields stand for) needs a newer Go than
# Debian's 1.19, and its tests are not needed
for dir in ordered warning; do
    if [ -d "$GO_PIPELINE/$dir" ]; then
        files=$(cd "$GO_PIPELINE/$dir" && ls ./*.go)
    else
        files=$(git --git-dir="$GO_PIPELINE" ls-tree --name-only HEAD "$dir/" 2>/dev/null | sed "s|^$dir/|./|") ||
            skip "no $dir/ in $GO_PIPELINE"
    fi
    for f in $files; do
        case "$f" in *_test.go | ./unmarshal.go) continue ;; esac
        if [ -d "$GO_PIPELINE/$dir" ]; then
            cp "$GO_PIPELINE/$dir/$f" "$pkg/$dir/$f"
        else
            git --git-dir="$GO_PIPELINE" show "HEAD:$dir/${f#./}" >"$pkg/$dir/$f"
        fi
    done
done
cp "$here/bkread/oracle.go" "$tmp/src/oracle/main.go"
(cd "$tmp/src/oracle" && GO111MODULE=off GOPATH="$tmp" GOCACHE="$tmp/cache" go build -o "$tmp/oracle" .) 2>"$tmp/build.err" ||
    { cat "$tmp/build.err" >&2; echo "bkread differential: the oracle does not build" >&2; exit 1; }
python3 "$here/bkread/differential.py" "$fanout" "$tmp/oracle" "$tmp" "${BKREAD_CASES:-1500}" "${BKREAD_SEED:-1}"
