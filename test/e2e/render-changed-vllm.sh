# render --changed on vLLM's real test areas (the corpus at 0a21947, its ci_config.yaml
# beside test_areas/): issue 25's Extended Pooling acceptance, as the generator decides it
# (ci-infra 3e4cfe4 buildkite_step.py _step_should_run). At 0a21947 the H200 step is
# `optional: true`, which the generator blocks for every change but a nightly one; with
# `optional` taken out it runs for a change under tests/models/language/pooling/ and
# waits behind its block step for a change under docs/ only. run_all_patterns run every
# step that is not optional; VLLM_CI_ONLY_STEP_KEYS runs the steps it lists only.
set -eu
cp -R "$SHARED/corpus/vllm" vllm
key=language-models-test-extended-pooling
blocked() { # rendering, key: whether the step waits behind its block step
    grep -q "^        key: block-$2\$" "$1"
}
render() { # changed file, extra options...
    f=$1
    shift
    printf '%s\n' "$f" >changed.txt
    "$FANOUT" render --changed changed.txt "$@" vllm/test_areas >out.yaml 2>err.txt
}
render tests/models/language/pooling/test_embedding.py --explain
blocked out.yaml $key
grep -q "'$key' does not run for this change: it is optional" err.txt
render tests/models/language/pooling/test_embedding.py --build env.NIGHTLY=1
! blocked out.yaml $key
grep -q "^        key: $key-3\$" out.yaml

# the step without `optional`
sed -i '/^  key: language-models-test-extended-pooling$/,/^  source_file_dependencies:/{/^  optional: true$/d}' \
    vllm/test_areas/models_language.yaml
render tests/models/language/pooling/test_embedding.py
! blocked out.yaml $key
render docs/index.md --explain
blocked out.yaml $key
grep -q "'$key' does not run for this change: no changed file is under its source_file_dependencies" err.txt

# run_all_patterns: csrc/ runs every step that is not optional, csrc/cpu/ is excluded
render csrc/attention/a.cu --explain
! blocked out.yaml $key
grep -q "ci_config.yaml:[0-9]*:[0-9]*: note: run_all_patterns matches the changed file 'csrc/attention/a.cu'" err.txt
! grep -q 'no changed file is under' err.txt
render csrc/cpu/a.cpp
blocked out.yaml $key

# VLLM_CI_ONLY_STEP_KEYS: the listed steps only
render tests/models/language/pooling/test_embedding.py --build 'env.VLLM_CI_ONLY_STEP_KEYS=["other"]' --explain
blocked out.yaml $key
grep -q "'$key' does not run for this change: VLLM_CI_ONLY_STEP_KEYS does not list it" err.txt
