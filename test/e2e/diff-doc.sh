# docs/diff.md's examples are what fanout prints: each code block after a line naming a
# fixture ("fixtures/NAME ...") is that fixture's expected.out, which `make e2e` runs.
set -eu
n=0
awk -v root="$ROOT" '
    fence == "" && /^fixtures\/diff-[a-z-]+/ { split($1, p, "/"); name = p[2]; next }
    fence == "" && name != "" && /^```+$/ { fence = $0; out = "block." name; printf "" >out; next }
    fence != "" && $0 == fence { close(out); print name; fence = ""; name = ""; next }
    fence != "" { print >out }
' "$ROOT/docs/diff.md" >names.txt
while read -r name; do
    cmp -s "block.$name" "$ROOT/fixtures/$name/expected.out" ||
        { echo "docs/diff.md: the example of fixtures/$name is not its expected.out:"; diff -u "$ROOT/fixtures/$name/expected.out" "block.$name"; exit 1; }
    n=$((n + 1))
done <names.txt
[ "$n" -ge 7 ] || { echo "docs/diff.md: $n examples checked, expected 7"; exit 1; }
