# Issue 8's acceptance scenario, a real SGLang change (fixtures/gha-sglang-scenario/README.md),
# and every corpus workflow rendering cleanly. Expected values come from the sources.
set -eu
S="$ROOT/fixtures/gha-sglang-scenario"
W="$SHARED/corpus/sglang/workflows"

# before.yml is the corpus file with the unit-test job (and its entry in
# pr-test-amd-finish's needs) added: the fixtures diff-sglang-2gpu* diff it from after.yml.
awk '/^  multimodal-gen-unit-test-amd:/{skip=1} skip && /^  [a-z]/ && !/^  multimodal-gen-unit-test-amd:/{skip=0}
     !skip && !/^        multimodal-gen-unit-test-amd,$/' "$S/before.yml" | cmp - "$W/pr-test-amd.yml"

# After the change: the unit-test step is in part 0 only, with the status functions left.
"$FANOUT" render "$S/after.yml" >after.yml
awk '/^  multimodal-gen-test-1-gpu-amd-[0-9]+:/{job=$1} /name: Run diffusion unit tests/{print job}' after.yml >where.txt
[ "$(cat where.txt)" = "multimodal-gen-test-1-gpu-amd-0:" ] || { echo "unit step in: $(cat where.txt)"; exit 1; }
grep -A1 'name: Run diffusion unit tests' after.yml | grep -qx '        if: success() || failure()'
# The 2-GPU matrix has two jobs, told they are 2 partitions.
[ "$(grep -c '^  multimodal-gen-test-2-gpu-amd-[0-9]*:' after.yml)" = 2 ]
[ "$(grep -c -- '--total-partitions 2 ' after.yml)" = 2 ]
# pr-test-amd-finish needs every job of both matrices (4 + 2), not the matrix ids.
for j in multimodal-gen-test-1-gpu-amd-0 multimodal-gen-test-1-gpu-amd-3 multimodal-gen-test-2-gpu-amd-1; do
    awk '/^  pr-test-amd-finish:/{f=1} f && /^  [a-z]/ && !/pr-test-amd-finish/{f=0} f' after.yml | grep -qx "      - $j"
done
# The rendering renders to itself.
"$FANOUT" render after.yml >again.yml
cmp after.yml again.yml

# The diff a reviewer reads.
set +e
"$FANOUT" diff "$S/before.yml" "$S/after.yml" >diff.txt
rc=$?
set -e
[ $rc = 1 ] || { echo "diff exit $rc"; cat diff.txt; exit 1; }
grep -qxF -- "- multimodal-gen-unit-test-amd [$S/before.yml:774]: removed" diff.txt
# the lines without their file:line and label
sed -E 's/ \[[^]]*\]:/:/' diff.txt >plain.txt
grep -qxF 'multimodal-gen-test-2-gpu-amd: matrix 3 -> 2 jobs (part 2 removed)' plain.txt
grep -qxF '~ multimodal-gen-test-1-gpu-amd (part 0): step "Run diffusion unit tests" added' plain.txt
# the script's changed line in a unified diff under the line (both jobs left changed it alike)
grep -A8 -xF '~ multimodal-gen-test-2-gpu-amd: step "Run diffusion server tests (2-GPU)": run: 1 line removed, 1 added' plain.txt >hunk.txt
grep -qxF '    -    --total-partitions 3 \' hunk.txt
grep -qxF '    +    --total-partitions 2 \' hunk.txt
# the job removed; not the 2-GPU matrix's third job, which its own line reports (issue 23.4)
grep -qxF '~ pr-test-amd-finish: needs: - multimodal-gen-unit-test-amd' plain.txt
# The same findings in the other formats.
"$FANOUT" diff --format json "$S/before.yml" "$S/after.yml" >diff.json || [ $? = 1 ]
grep -q '"removed": 1,' diff.json
grep -q '"step": "multimodal-gen-test-1-gpu-amd", "jobs": "part 0"' diff.json
"$FANOUT" diff --format github "$S/before.yml" "$S/after.yml" >diff.gh || [ $? = 1 ]
grep -q "^::notice file=$S/after.yml,line=781,title=fanout diff%3A shards multimodal-gen-test-2-gpu-amd::multimodal-gen-test-2-gpu-amd \\[.*\\]: matrix 3 -> 2 jobs (part 2 removed)\$" diff.gh

# Every corpus workflow renders (and validates: render checks input and rendering), and a
# matrix job becomes as many jobs as its vectors multiply to.
for f in "$W"/*.yml; do
    "$FANOUT" render "$f" >one.yml 2>one.err || { echo "$f"; cat one.err; exit 1; }
    ! grep -q ': error:' one.err
done
"$FANOUT" render "$W/pr-test-amd.yml" >amd.yml
want=$(awk '/^        part: \[/{sub(/#.*/, ""); gsub(/[^0-9,]/, ""); n += split($0, a, ",")} END{print n}' "$W/pr-test-amd.yml")
got=$(grep -cE '^          (- |  )part: [0-9]+$' amd.yml)
[ "$want" = "$got" ] || { echo "pr-test-amd.yml: $got matrix jobs, expected $want"; exit 1; }
# Several workflows render together (job ids are each workflow's own).
"$FANOUT" render "$W" >all.yml
# check works on workflows as on pipelines: fresh, then stale with a diff.
"$FANOUT" render "$S/before.yml" >committed.yml
"$FANOUT" check "$S/before.yml" --rendered committed.yml
set +e
"$FANOUT" check "$S/after.yml" --rendered committed.yml >stale.diff 2>stale.err
rc=$?
set -e
[ $rc = 1 ] || { echo "check on a stale rendering: exit $rc"; exit 1; }
grep -q -- '--total-partitions 2' stale.diff

# A real reusable workflow inlined: SGLang's AMD stage called with three partitions
# becomes its three partition jobs, `--auto-partition-id 0..2 --auto-partition-size 3`.
mkdir -p call
cp "$W/_pr-test-stage-amd.yml" call/
cat >call/caller.yml <<'YAML'
on: pull_request
jobs:
  stage-b-test-large-2-gpu-amd:
    uses: ./.github/workflows/_pr-test-stage-amd.yml
    with:
      suite: stage-b-test-large-2-gpu
      runner_arch: mi325
      gpu_count: 2
      rocm_version: rocm700
      partitions: '{"size":3,"arr":[0,1,2]}'
      max_parallel: 3
      checkout_ref: ${{ github.sha }}
      run_timeout_minutes: 60
  finish:
    needs: stage-b-test-large-2-gpu-amd
    runs-on: ubuntu-latest
    steps:
      - run: echo done
YAML
# github.sha is a run-time value: without it the call is kept, with a note
"$FANOUT" render call/caller.yml call/_pr-test-stage-amd.yml >kept.yml 2>kept.err
grep -q 'not inlined: an input of ./.github/workflows/_pr-test-stage-amd.yml depends on run-time values' kept.err
"$FANOUT" render --github sha=abc123 call/caller.yml call/_pr-test-stage-amd.yml >inlined.yml
[ "$(grep -c '^  stage-b-test-large-2-gpu-amd-run-[0-2]:$' inlined.yml)" = 3 ]
for p in 0 1 2; do grep -q -- "--auto-partition-id $p --auto-partition-size 3" inlined.yml; done
awk '/^  finish:/{f=1} f' inlined.yml | grep -qx '      - stage-b-test-large-2-gpu-amd-run-2'
# README's example of this diff is what fanout prints, from the fixture's folder
(cd "$S" && "$FANOUT" diff before.yml after.yml >"$OLDPWD/readme-run.txt" 2>/dev/null) || [ $? = 1 ]
sed -n '/^~ multimodal-gen-test-1-gpu-amd (part 0)/,/^0 added, 1 removed/p' "$ROOT/README.md" >readme-block.txt
cmp -s readme-run.txt readme-block.txt || { echo "README's SGLang diff example is not fanout's output:"; diff -u readme-run.txt readme-block.txt; exit 1; }
