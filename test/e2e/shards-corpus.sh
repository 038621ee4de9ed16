#!/bin/sh
# shard-coverage on the real corpus: clean (notes allowed), and the two classic mistakes
# made in the real files are found with the message docs/shards.md shows.
set -eu
C="$SHARED/corpus"
for input in "$C/vllm/test_areas" "$C/vllm/test-pipeline.yaml" "$C/vllm/test-amd.yaml" \
             "$C/vllm/release-pipeline.yaml" "$C/vllm/hardware_tests" "$C/vllm/intel_jobs" \
             "$C/vllm/ci_config.yaml" "$C/sglang/workflows"; do
    "$FANOUT" shards check "$input" 2>err.txt || { echo "shards check $input failed:"; cat err.txt; exit 1; }
    if grep 'error:' err.txt; then echo "finding on the real $input"; exit 1; fi
done

# vLLM: Extended Pooling down to parallelism 2 with the count hard-coded at 4
sed -e '/key: language-models-test-extended-pooling/,/mirror:/s/parallelism: 4/parallelism: 2/' \
    -e '/key: language-models-test-extended-pooling/,/mirror:/s/--num-shards=\$\$BUILDKITE_PARALLEL_JOB_COUNT/--num-shards=4/' \
    "$C/vllm/test_areas/models_language.yaml" > models_language.yaml
rc=0
"$FANOUT" shards check models_language.yaml 2>err.txt || rc=$?
[ "$rc" = 1 ] || { echo "exit $rc"; cat err.txt; exit 1; }
grep -qx 'models_language.yaml:153:7: error: language-models-test-extended-pooling: --num-shards=4 but 2 jobs: shards 2, 3 never run \[shard-coverage\]' err.txt ||
    { cat err.txt; exit 1; }
[ "$(grep -c ": error: " err.txt)" = 1 ] || { cat err.txt; exit 1; }

# SGLang: the 2-GPU diffusion matrix cut to two parts, --total-partitions left at 3
mkdir -p wf
cp "$C"/sglang/workflows/_*.yml wf/
sed '/multimodal-gen-test-2-gpu-amd:/,/total-partitions/s/part: \[0, 1, 2\]/part: [0, 1]/' \
    "$C/sglang/workflows/pr-test-amd.yml" > wf/pr-test-amd.yml
rc=0
"$FANOUT" shards check wf/pr-test-amd.yml 2>err.txt || rc=$?
[ "$rc" = 1 ] || { echo "exit $rc"; cat err.txt; exit 1; }
grep -qx 'wf/pr-test-amd.yml:774:3: error: multimodal-gen-test-2-gpu-amd: --total-partitions 3 but matrix part has 2 values: partition 2 never runs \[shard-coverage\]' err.txt ||
    { cat err.txt; exit 1; }
[ "$(grep -c error: err.txt)" = 1 ] || { cat err.txt; exit 1; }
