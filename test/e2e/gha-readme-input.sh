# The README's `fanout render --input partitions=...` example, run as the README writes it
# on SGLang's _pr-test-stage-amd.yml: one --input leaves the other inputs to their
# defaults (`--timeout-per-file 1200`) or, without one, an expression
# (`timeout-minutes: ${{ inputs.run_timeout_minutes }}`), so the file renders: its three
# partitions, a fixed point.
set -eu
value=$(sed -n "s|^fanout render --input partitions='\(.*\)' \.github/workflows/_pr-test-stage-amd\.yml\$|\1|p" "$ROOT/README.md")
[ -n "$value" ] || { echo "README.md: no --input partitions='...' _pr-test-stage-amd.yml example"; exit 1; }
input="partitions=$value"
f="$SHARED/corpus/sglang/workflows/_pr-test-stage-amd.yml"
"$FANOUT" render -q --input "$input" "$f" >got.yml || { echo "the README's example fails"; exit 1; }
for want in '  run-0:' '  run-1:' '  run-2:' '--timeout-per-file 1200' \
    'timeout-minutes: ${{ inputs.run_timeout_minutes }}'; do
    grep -qF -- "$want" got.yml || { echo "rendering lacks: $want"; exit 1; }
done
"$FANOUT" render -q --input "$input" got.yml >again.yml
cmp -s got.yml again.yml || { echo "the rendering is not a fixed point"; exit 1; }
