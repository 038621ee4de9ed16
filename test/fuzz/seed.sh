#!/bin/sh
# seed.sh TARGET DIR: writes a seed corpus for one fuzz harness into DIR, from the
# project's fixtures and ../shared/corpus (inputs in the harness's own framing).
set -eu
target=$1
dir=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SHARED="$ROOT/../shared"
mkdir -p "$dir"
inputs() { # every YAML file we can learn from
    find "$ROOT/fixtures" "$ROOT/test/conformance/workflow/cases" -name '*.y*ml' -size -64k
    [ -d "$SHARED/corpus" ] && find "$SHARED/corpus/vllm" "$SHARED/corpus/sglang" \
        "$SHARED/corpus/buildkite-schema-tests" -name '*.y*ml' -size -64k
    true
}
emit() { # emit NAME: stdin becomes the seed NAME (a path: made flat)
    cat >"$dir/$(echo "$1" | sed 's#^.*/\(fixtures\|corpus\)/##; s#[^A-Za-z0-9._-]#_#g')"
}
case "$target" in
render)
    for f in $(inputs); do
        # options byte: auto dialect; test-area files also with the dialect forced
        { printf '\000'; cat "$f"; } | emit "$f"
        case "$f" in */test_areas/*|*/ta-*) { printf '\002'; cat "$f"; } | emit "$f-testarea" ;; esac
        case "$f" in */sglang/*|*/gha-*|*/workflow/cases/*) { printf '\003'; cat "$f"; } | emit "$f-gha" ;; esac
    done
    # Inputs over 64 KiB, past which the source is read in chunks (a scalar, a block
    # scalar's end or a character across a chunk's end): vLLM's AMD pipeline, and an SGLang
    # workflow after comment lines that move its scalars across the first chunk's end.
    big="$SHARED/corpus/vllm/test-amd.yaml" gha="$SHARED/corpus/sglang/workflows/pr-test-amd.yml"
    [ -f "$big" ] && { printf '\000'; cat "$big"; } | emit "$big-past-64k"
    [ -f "$gha" ] && { printf '\003'; awk 'BEGIN { for (i = 0; i < 800; i++) printf "# line %d of a comment before the workflow, to cross 64 KiB\n", i }'; cat "$gha"; } | emit "$gha-past-64k"
    ;;
schema)
    for s in "$ROOT"/schemas/*.json "$SHARED"/schemas-upstream/*.json; do
        [ -f "$s" ] || continue
        for f in $(inputs | head -n 40); do
            { cat "$s"; printf '\377'; cat "$f"; } | emit "$f-$(basename "$s")"
        done
    done
    ;;
diff)
    for d in "$ROOT"/fixtures/diff-*/; do
        b=$(ls "$d" | grep '^base' | head -n 1); h=$(ls "$d" | grep '^head' | head -n 1)
        [ -f "$d/$b" ] && [ -f "$d/$h" ] || continue
        { printf '\000'; cat "$d/$b"; printf '\377'; cat "$d/$h"; } | emit "$d"
    done
    prev=
    for f in $(inputs | head -n 60); do
        [ -n "$prev" ] && { printf '\001'; cat "$prev"; printf '\377'; cat "$f"; } | emit "pair-$f"
        prev=$f
    done
    ;;
shards)
    # tests lists and durations in each form, with a few algorithm/format bytes
    for f in "$ROOT"/fixtures/shards-assign*/*.txt "$ROOT"/fixtures/shards-assign*/*.json \
             "$ROOT"/fixtures/shards-assign*/*.tsv "$ROOT"/fixtures/shards-plan/*.tsv; do
        [ -f "$f" ] || continue
        case "$f" in *.json|*.tsv) kind=8 ;; *) kind=0 ;; esac
        for algo in 0 2 3 4 6 7; do
            { printf "\\$(printf '%03o' $((kind + algo + 16)))"; head -c 60000 "$f"; } | emit "$f-$algo"
        done
    done
    [ -f "$SHARED/corpus/sglang/test-srt-run_suite-suites.tsv" ] &&
        { printf '\014'; cat "$SHARED/corpus/sglang/test-srt-run_suite-suites.tsv"; } | emit suites-tsv
    ;;
shardflags)
    # the commands of the corpora's steps and jobs: whole files, each holds flags in context
    for f in $(inputs | grep -e sglang -e vllm -e shard); do
        head -c 60000 "$f" | emit "$f"
    done
    for c in 'pytest --num-shards=4 --shard-id=1' 'pytest --splits 3 --group 2' \
             'python3 run_suite.py --auto-partition-size 5 --auto-partition-id "$I"' \
             'x --total-partitions=2 --partition-id=0; pytest --num-shards 2' \
             "pytest --shard-id='1' --num-shards=\"2\" é--num-shards=3"; do
        printf '%s' "$c" | emit "cmd-$(printf '%s' "$c" | cksum | cut -d' ' -f1)"
    done
    ;;
expr)
    # the expressions of the workflows, each as an expression, a condition, a template
    # and an if: value (fuzz_expr.c: the first byte's low bits)
    n=0
    for f in $(inputs | grep -e sglang -e gha-); do
        grep -o '\${{[^}]*}}' "$f" | sort -u | while IFS= read -r t; do
            e=$(printf '%s' "$t" | sed 's/^\${{ *//; s/ *}}$//')
            n=$((n + 1))
            { printf '\000'; printf '%s' "$e"; } | emit "$(basename "$f")-$n-expr"
            { printf '\001'; printf '%s' "$e"; } | emit "$(basename "$f")-$n-cond"
            { printf '\002'; printf '%s' "$t"; } | emit "$(basename "$f")-$n-template"
        done
    done
    { printf '\004'; printf '%s' '{"size":3,"arr":[0,1,2],"s":"x","n":null,"t":true}'; } | emit json
    ;;
gha)
    # every workflow, with the workflow it calls (uses: ./.github/workflows/X.yml beside
    # it) as the callee, else none; options byte 0 (YAML, validated), and 1 (JSON) for a call
    for f in $(find "$ROOT/fixtures" "$ROOT/test/conformance/workflow/cases" -name '*.y*ml' -size -64k;
               [ -d "$SHARED/corpus" ] && find "$SHARED/corpus/sglang" "$SHARED/corpus/realworld" \
                   -path '*workflows*' -name '*.y*ml' -size -64k); do
        grep -q '^jobs:' "$f" || continue
        callee=$(sed -n 's#^ *uses: *\./\.github/workflows/\([^ @]*\).*#\1#p' "$f" | head -n 1)
        if [ -n "$callee" ] && [ -f "$(dirname "$f")/$callee" ]; then
            for o in 0 1; do
                { printf "\\00$o"; cat "$f"; printf '\377'; cat "$(dirname "$f")/$callee"; } | emit "$f-$o-call"
            done
        else
            { printf '\000'; cat "$f"; } | emit "$f"
        fi
    done
    ;;
buildkite)
    # pipelines: the fixtures' (not test-area files, not workflows) and the corpora's
    for f in $(find "$ROOT/fixtures" -name '*.y*ml' -size -64k -not -name '.fanout.yml';
               [ -d "$SHARED/corpus" ] && find "$SHARED/corpus/vllm" "$SHARED/corpus/realworld" \
                   -path '*buildkite*' -name '*.y*ml' -size -64k); do
        grep -q -e '^jobs:' -e '^tests:' "$f" && continue
        { printf '\000'; cat "$f"; } | emit "$f"
        grep -q -e matrix -e parallelism -e '\$' "$f" && { printf '\240'; cat "$f"; } | emit "$f-upload-env"
    done
    ;;
config)
    # each fixture's .fanout.yml with its pipeline, for render, validate and shards check
    for c in $(find "$ROOT/fixtures" -name .fanout.yml); do
        d=$(dirname "$c")
        p=$(ls "$d"/*.y*ml 2>/dev/null | head -n 1)
        for o in 0 1 2 3; do
            { printf "\\00$o"; cat "$c"; printf '\377'; [ -n "$p" ] && cat "$p"; } | emit "$c-$o"
        done
    done
    ;;
glob)
    # the table tests' rows, each in the dialect of its table: pattern, 0xFF, path
    for t in picomatch:0 github:1 buildkite:2; do
        grep -v '^#' "$ROOT/test/glob/${t%%:*}.tsv" | awk -F '\t' -v d="${t#*:}" -v dir="$dir" -v name="${t%%:*}" '
            { f = dir "/" name "-" NR; printf "%c%s\377%s", d + 0, $1, $2 > f; close(f) }'
    done
    ;;
durations)
    # diff's durations files in each form (TSV, JSON, JUnit XML), good and bad
    for f in "$ROOT"/fixtures/diff-runners-durations*/*.tsv "$ROOT"/fixtures/diff-runners-durations*/*.json \
             "$ROOT"/fixtures/diff-runners-durations*/*.xml; do
        [ -f "$f" ] && emit "$f" <"$f"
    done
    ;;
conditional)
    # the table tests' rows: the expression (escapes kept: the fuzzer reads them as text),
    # 0xFF, the build's values
    for t in reference fanout; do
        grep -v '^#' "$ROOT/test/conditional/$t.tsv" | awk -F '\t' -v dir="$dir" -v name="$t" '
            { f = dir "/" name "-" NR; printf "%s\377%s", $1, $2 > f; close(f) }'
    done
    ;;
change)
    # each test-area file of the fixtures and vLLM's, with a change list: a fixture's own,
    # one of its source dependencies, none; the first byte's bits as fuzz_change.c reads them
    n=0
    for f in $(find "$ROOT/fixtures" "$ROOT/../shared/corpus/vllm/test_areas" -path '*test_areas/*.y*ml' 2>/dev/null | sort); do
        n=$((n + 1))
        dep=$(grep -m 1 -A 1 'source_file_dependencies' "$f" | tail -n 1 | sed 's/^[ -]*//; s/"//g')
        { printf "\\00$((n % 8))"; [ -f "$(dirname "$f")/../changed.txt" ] && cat "$(dirname "$f")/../changed.txt"; printf '\377'; cat "$f"; } | emit "$f-own"
        { printf "\\002%s\n\377" "$dep/x.py"; cat "$f"; } | emit "$f-dep"
        { printf '\016\377'; cat "$f"; } | emit "$f-none"
    done
    ;;
blocktext)
    # the YAML files with a block scalar
    for f in $(inputs); do
        grep -q -E '[|>][-+1-9]*[[:space:]]*$' "$f" && emit "$f" <"$f"
    done
    ;;
quotedtext)
    # the YAML files with a single-quoted scalar, and the table of random bodies' documents
    # (those without a \xNN escape, which sh's printf %b does not read)
    for f in $(inputs); do
        grep -q "'" "$f" && emit "$f" <"$f"
    done
    n=0
    while IFS='	' read -r body text; do
        n=$((n + 1))
        case $body in *'\x'*) continue ;; esac
        printf "k: '%b'\n" "$body" | emit "case-$n"
    done <"$ROOT/test/conformance/quotedtext/cases.txt"
    ;;
*)
    echo "seed.sh: unknown target $target" >&2; exit 2 ;;
esac
echo "seed.sh: $(ls "$dir" | wc -l) seeds for $target"
