# Issue 25's acceptance on SGLang: the scenario change (fixtures/gha-sglang-scenario) as a
# pull request touching only .github/workflows/pr-test-amd.yml: check-changes' paths
# filter lists that file for main_package, sgl_kernel and jit_kernel but not
# multimodal_gen, so both diffusion jobs the change edits will not run for it.
set -eu
S="$ROOT/fixtures/gha-sglang-scenario"
W="$SHARED/corpus/sglang/workflows"
for side in base head; do
    mkdir -p "$side/.github/workflows"
    cp "$W"/*.yml "$side/.github/workflows/"
    # the called gate workflow is not in the corpus: a stand-in that runs
    printf 'on: workflow_call\njobs:\n  gate:\n    runs-on: ubuntu-latest\n    steps:\n      - run: "true"\n' \
        >"$side/.github/workflows/pr-gate.yml"
done
cp "$S/before.yml" base/.github/workflows/pr-test-amd.yml
cp "$S/after.yml" head/.github/workflows/pr-test-amd.yml
echo .github/workflows/pr-test-amd.yml >changed.txt
set +e
"$FANOUT" diff --changed changed.txt --event pull_request --github ref=refs/heads/main base head >out.txt 2>err.txt
rc=$?
set -e
[ $rc = 1 ] || { echo "diff exit $rc"; cat err.txt; exit 1; }
for job in multimodal-gen-test-1-gpu-amd multimodal-gen-test-2-gpu-amd; do
    grep -q "^~ $job \[head/.github/workflows/pr-test-amd.yml:[0-9]* \"[^\"]*\"\]: changed, but will not run for this change: its if: is false (needs.check-changes.outputs.multimodal_gen is 'false'" out.txt ||
        { echo "no not-run line for $job"; cat out.txt; exit 1; }
done
[ "$(grep -c 'will not run for this change' out.txt)" = 2 ]
tail -n 1 out.txt | grep -q ', 2 not run for this change$'
# no other workflow reads as changed: HEAD is compared as a whole, only marked
! grep -q 'pr-test.yml\|rocm720' out.txt
