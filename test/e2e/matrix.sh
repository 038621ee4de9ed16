# Buildkite matrix steps: the rendering is what Buildkite's official schema accepts, the
# docs' example gives its 8 jobs, and diff says the same of two renderings as of their
# sources.
set -eu
BK="$SHARED/schemas-upstream/buildkite-pipeline.schema.json"
for case in matrix-docs-example matrix-upstream matrix-tokens matrix-single; do
    "$FANOUT" render --upload "$ROOT/fixtures/$case/input.yaml" >"$case.yml" 2>/dev/null
    "$FANOUT" validate --schema "$BK" "$case.yml" || { echo "$case: rendering fails the official schema"; exit 1; }
done

# 2x2x2, one combination skipped, one added: 8 jobs, 8 keys, every label filled.
r=matrix-docs-example.yml
[ "$(grep -c "^  - label: " $r)" = 8 ] || { echo "$r: expected 8 jobs"; exit 1; }
[ "$(grep '^    key: build-' $r | sort -u | wc -l)" = 8 ]
! grep -q '{{' $r
grep -qx '      - build-7' $r

# Rendered again, a matrix job is one job: nothing changes.
"$FANOUT" render $r >again.yml
cmp -s $r again.yml || { echo "a rendering rendered again differs"; diff $r again.yml | head; exit 1; }

# diff of the renderings reads as the diff of the sources (but for the file:line each
# line points at, the rendering's, and a skipped job: only a source says why a job is
# missing, so in renderings it reads as removed).
D="$ROOT/fixtures/diff-matrix"
"$FANOUT" render "$D/base.yaml" >base.yml
"$FANOUT" render "$D/head.yaml" >head.yml
set +e
"$FANOUT" diff base.yml head.yml >rendered.txt
set -e
unlocated() { sed -E 's/ \[[^]]*\]:/:/' "$1"; }
unlocated rendered.txt >rendered.plain
unlocated "$D/expected.out" | sed 's/(fuzz skipped: flaky on main)/(fuzz removed)/' >expected.plain
cmp -s rendered.plain expected.plain || { echo "diff of renderings:"; diff expected.plain rendered.plain; exit 1; }

# docs/buildkite.md's example is the fixture matrix-doc-page, and its diff lines are the
# fixture diff-matrix's.
awk '/^```yaml/{n++; if(n==1){on=1; next}} /^```/{if(on){exit}} on' "$ROOT/docs/buildkite.md" >page.yaml
cmp -s page.yaml "$ROOT/fixtures/matrix-doc-page/input.yaml" || { echo "docs/buildkite.md example != fixture"; exit 1; }
awk '/^```text/{n++; if(n==1){on=1; next}} /^```/{if(on){exit}} on' "$ROOT/docs/buildkite.md" >page.txt
grep -vxFf "$D/expected.out" page.txt && { echo "docs/buildkite.md diff lines are not diff-matrix's"; exit 1; }
true
