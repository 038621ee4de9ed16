#!/bin/sh
# make bench-instr: the instructions fanout executes, counted by valgrind's callgrind,
# for rendering the vLLM test areas, SGLang's six GitHub Actions workflows (the workflow
# path: expressions, matrices, the template schema), a 1 MB matrix-heavy synthetic
# workflow (bench/gen_workflow.c: its rendering is seven times its size), a 1 MB
# synthetic pipeline, and the diff of that pipeline with one change per 100 steps
# (bench/head.sh, as make bench diffs it), and one process's fixed costs (start-up, the
# bundled schemas, the option lists: as a pre-commit hook or an editor runs fanout, a
# process a file) on a 1-step pipeline and a small real workflow, and the realworld corpus's
# 332 GitHub workflows in one run (as make bench's row; one names a later matrix job, so
# pass 2 runs, reading that workflow alone), and validate of the 1 MB pipeline (render's
# checks and Buildkite's schema in one read, issue 27's "20x ajv at 1 MB"), against the budget in
# bench/instr-budget.txt. Counts are exact and repeatable for one binary, its inputs and
# its libraries (times are not): a count more than 5% over budget fails. glibc is told to
# pick its baseline string functions, so the count does not depend on the CPU's
# extensions. UPDATE=1 writes the measured counts as the new budget. The same count for
# the plain libfyaml event parse of the 1 MB file (bench/parse.c) gives issue 27's
# "within 2x of a parse" goal (issue 13's was 3x) as an exact ratio, which CPU times on a
# shared machine cannot (they move by 15-40% between runs at 1 MB); above 2x fails. The workflows'
# ratios to their parse are printed too (issue 27 wants them within 2x), not gated; the
# matrix workflow's also to the parse of its input and its rendering (a floor for a
# rendering seven times its input).
set -eu
FANOUT=${FANOUT:-build/fanout}
BUDGET=bench/instr-budget.txt
OUT=bench/out
mkdir -p "$OUT"
cc -O2 -o "$OUT/gen" bench/gen.c
cc -O2 -o "$OUT/parse" bench/parse.c $(pkg-config --cflags --libs libfyaml)
cc -O2 -o "$OUT/gen_workflow" bench/gen_workflow.c
[ -f "$OUT/pipeline-1000000.yml" ] || "$OUT/gen" 1000000 >"$OUT/pipeline-1000000.yml"
[ -f "$OUT/workflow-1000000.yml" ] || "$OUT/gen_workflow" 1000000 >"$OUT/workflow-1000000.yml"
sh bench/head.sh "$OUT/pipeline-1000000.yml" "$OUT/head-1000000.yml"
printf 'steps:\n  - command: make\n' >"$OUT/one-step.yml"
TA=../shared/corpus/vllm/test_areas
GHA=../shared/corpus/sglang/workflows
RW=../shared/corpus/realworld
# the realworld corpus's GitHub workflows, as make bench renders them in one run
awk -v d="$RW" '$4 == "gha" { r = $1; sub("/", "+", r); print d "/" r "/" $3 }' "$RW/MANIFEST" >"$OUT/realworld.txt"
export GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-AVX,-AVX512F,-AVX512BW,-AVX512VL,-BMI2,-ERMS,-FSRM,-SSE4_2,-SSSE3,-SSE4_1

count() { # count NAME PROGRAM ARGS...: prints "NAME instructions"
    name=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.$name" "$@" >/dev/null 2>&1 || true
    printf '%s %s\n' "$name" "$(callgrind_annotate "$OUT/callgrind.$name" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')"
}

{
    count render-test-areas "$FANOUT" render "$TA"
    count render-sglang "$FANOUT" render "$GHA"
    count render-1mb "$FANOUT" render "$OUT/pipeline-1000000.yml"
    count render-matrix-1mb "$FANOUT" render "$OUT/workflow-1000000.yml"
    count diff-1mb "$FANOUT" diff "$OUT/pipeline-1000000.yml" "$OUT/head-1000000.yml"
    count render-one-step "$FANOUT" render "$OUT/one-step.yml"
    count render-one-workflow "$FANOUT" render ../shared/corpus/realworld/actions+runner/.github/workflows/close-bugs-bot.yml
    # shellcheck disable=SC2046 # one word a path
    count render-realworld "$FANOUT" render $(cat "$OUT/realworld.txt")
    count validate-1mb "$FANOUT" validate -q "$OUT/pipeline-1000000.yml"
} >"$OUT/instr.txt"
"$FANOUT" render "$OUT/workflow-1000000.yml" >"$OUT/workflow-1000000.rendered.yml" || true
{
    count parse-1mb "$OUT/parse" "$OUT/pipeline-1000000.yml"
    count parse-sglang "$OUT/parse" "$GHA"/*.yml
    count parse-matrix-1mb "$OUT/parse" "$OUT/workflow-1000000.yml"
    count parse-matrix-1mb-rendered "$OUT/parse" "$OUT/workflow-1000000.rendered.yml"
    # shellcheck disable=SC2046
    count parse-realworld "$OUT/parse" $(cat "$OUT/realworld.txt")
} >"$OUT/instr-parse.txt"

if [ -n "${UPDATE:-}" ]; then
    cp "$OUT/instr.txt" "$BUDGET"
    echo "bench-instr: budget written to $BUDGET"
    cat "$BUDGET"
    exit 0
fi
fail=0
while read -r name got; do
    want=$(awk -v n="$name" '$1 == n { print $2 }' "$BUDGET")
    if [ -z "$want" ]; then
        echo "bench-instr: $name has no budget in $BUDGET (make bench-instr UPDATE=1)"; fail=1; continue
    fi
    verdict=$(awk -v g="$got" -v w="$want" 'BEGIN {
        r = g / w
        v = r > 1.05 ? "OVER" : (r < 0.95 ? "under (lower the budget: make bench-instr UPDATE=1)" : "ok")
        printf "%+.1f%% %s", (r - 1) * 100, v }')
    printf 'bench-instr: %-18s %12s instructions, budget %12s: %s\n' "$name" "$got" "$want" "$verdict"
    case "$verdict" in *OVER*) fail=1 ;; esac
done <"$OUT/instr.txt"
ratio=$(awk '{ n[$1] = $2 } END { printf "%.2f", n["render-1mb"] / n["parse-1mb"] }' "$OUT/instr.txt" "$OUT/instr-parse.txt")
verdict=$(awk -v r="$ratio" 'BEGIN { print (r > 2 ? "OVER 2x" : "ok") }')
printf 'bench-instr: render-1mb / parse-1mb  %sx the instructions of a plain libfyaml event parse: %s\n' "$ratio" "$verdict"
case "$verdict" in OVER*) fail=1 ;; esac
printf 'bench-instr: diff-1mb / render-1mb  %sx the instructions of one render (both sides, both threads; not gated)\n' \
    "$(awk '{ n[$1] = $2 } END { printf "%.2f", n["diff-1mb"] / n["render-1mb"] }' "$OUT/instr.txt")"
printf 'bench-instr: render-sglang / parse-sglang  %sx the instructions of a plain libfyaml event parse (not gated)\n' \
    "$(awk '{ n[$1] = $2 } END { printf "%.2f", n["render-sglang"] / n["parse-sglang"] }' "$OUT/instr.txt" "$OUT/instr-parse.txt")"
printf 'bench-instr: render-realworld / parse-realworld  %sx the instructions of a plain libfyaml event parse (not gated; called workflows are read at each call too)\n' \
    "$(awk '{ n[$1] = $2 } END { printf "%.2f", n["render-realworld"] / n["parse-realworld"] }' "$OUT/instr.txt" "$OUT/instr-parse.txt")"
awk '{ n[$1] = $2 } END {
    printf "bench-instr: render-matrix-1mb / parse-matrix-1mb  %.2fx the instructions of a plain libfyaml event parse, %.2fx the parse of the input and of the rendering (not gated)\n",
        n["render-matrix-1mb"] / n["parse-matrix-1mb"], n["render-matrix-1mb"] / (n["parse-matrix-1mb"] + n["parse-matrix-1mb-rendered"]) }' \
    "$OUT/instr.txt" "$OUT/instr-parse.txt"
exit $fail
