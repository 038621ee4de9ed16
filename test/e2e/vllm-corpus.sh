# The real vLLM pipelines render, and every step with parallelism N becomes N steps.
# The expected counts come from the source text (awk), not from fanout.
set -eu
V="$SHARED/corpus/vllm"
"$FANOUT" render "$V/test-pipeline.yaml" >stub.yaml
[ "$(cat stub.yaml)" = "steps: []" ]

"$FANOUT" render "$V/test-amd.yaml" >amd.yaml 2>amd.err
# test-amd.yaml lists its steps at column 0 ("- label:") and gives parallelism at column 2.
want=$(awk '/^- /{n++} /^  parallelism: /{n += $2 - 1} END{print n}' "$V/test-amd.yaml")
got=$(grep -c '^  - ' amd.yaml)
[ "$want" = "$got" ] || { echo "test-amd.yaml: $got steps, expected $want"; exit 1; }
# Each parallel step shows up with every shard index once.
awk '/^  parallelism: /{print $2}' "$V/test-amd.yaml" | sort -n | uniq -c >want-par.txt
grep -A1 'BUILDKITE_PARALLEL_JOB: "0"' amd.yaml | awk '/_COUNT:/{gsub(/"/,"",$2); print $2}' | sort -n | uniq -c >got-par.txt
cmp want-par.txt got-par.txt
# No parallelism is left, and no shard variable is left in the shown view.
! grep -q 'parallelism:' amd.yaml
! grep -q '\$\$BUILDKITE_PARALLEL_JOB' amd.yaml
# Only warnings (the AMD template's own keys), no errors.
! grep -q ': error:' amd.err
# The rendering renders to itself.
"$FANOUT" render amd.yaml >again.yaml 2>/dev/null
cmp amd.yaml again.yaml

# `jobs .` in vLLM's .buildkite/ reads what its generator reads: the ci_config*.yaml are
# its configs (a note each, left out), and intel_jobs/ (ci_config_intel.yaml's) is a
# build of its own, whose keys repeat test_areas/' without a collision.
here=$(pwd)
(cd "$V" && "$FANOUT" jobs . >"$here/jobs.txt" 2>"$here/jobs.err") || { cat jobs.err; exit 1; }
[ "$(grep -c '\[not-a-pipeline\]$' jobs.err)" = 3 ]
! grep -q ': error:' jobs.err
grep -q 'intel_jobs/engine_intel.yaml' jobs.txt
# validate says what render says of the AMD template's keys: a warning once per file, and
# no schema error where a key repeats (additionalProperties shadowed, as render's is).
(cd "$V" && "$FANOUT" validate . >/dev/null 2>"$here/validate.err") || { cat validate.err; exit 1; }
! grep -q ': error:' validate.err
grep -q "unknown key 'mirror_hardwares'" validate.err
