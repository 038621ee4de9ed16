#!/bin/sh
# make bench: throughput and peak RSS of `fanout render` on synthetic pipelines of
# 1 MB, 100 MB and 1 GB, next to `fy-tool --dump` (libfyaml's own parse + emit) on the
# same file; then the vLLM test-area directory (median of 5 runs).
# Output to /dev/null, warm page cache. BENCH_SIZES overrides the sizes (bytes).
set -eu
OUT=bench/out
mkdir -p "$OUT"
cc -O2 -o "$OUT/gen" bench/gen.c
FANOUT=build/fanout
SIZES=${BENCH_SIZES:-"1000000 100000000 1000000000"}
# fy-tool holds the whole document (about 30x the file in RAM): cap it so the 1 GB run
# fails cleanly instead of swapping the machine.
FYTOOL_KB=${FYTOOL_KB:-16000000}

measure() { # label file cmd... -> "label  seconds  MB/s  peakRSS"
    label=$1; file=$2; shift 2
    bytes=$(stat -c %s "$file")
    if /usr/bin/time -f "%e %M" -o "$OUT/time.txt" "$@" >/dev/null 2>"$OUT/err.txt"; then
        read -r secs kb <"$OUT/time.txt"
        awk -v l="$label" -v b="$bytes" -v s="$secs" -v k="$kb" 'BEGIN {
            printf "%-34s %8.2f s %8.1f MB/s %9.1f MB peak RSS\n", l, s, (s > 0 ? b / 1e6 / s : 0), k / 1024 }'
    else
        printf "%-34s failed: %s\n" "$label" "$(tail -n 1 "$OUT/err.txt")"
    fi
}

echo "fanout bench ($(nproc) cores, $(uname -m)); output to /dev/null"
for size in $SIZES; do
    f="$OUT/pipeline-$size.yml"
    [ -f "$f" ] || "$OUT/gen" "$size" >"$f"
    mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.0f", b / 1e6 }')
    cat "$f" >/dev/null
    measure "fanout render ${mb} MB" "$f" "$FANOUT" render "$f"
    measure "fy-tool --dump ${mb} MB" "$f" sh -c "ulimit -v $FYTOOL_KB; exec fy-tool --dump \"\$0\"" "$f"
done

TA=../shared/corpus/vllm/test_areas
ms() { # median wall time of 11 runs of a command, in milliseconds
    for i in 1 2 3 4 5 6 7 8 9 10 11; do
        t0=$(date +%s%N)
        "$@" >/dev/null 2>&1
        t1=$(date +%s%N)
        echo $(((t1 - t0) / 1000))
    done | sort -n | awk '{ t[NR] = $1 } END { printf "%.1f", t[6] / 1000 }'
}
if [ -d "$TA" ]; then
    "$FANOUT" render --upload "$TA" >"$OUT/ta-rendered.yml" 2>/dev/null
    printf "%-34s %8s ms median of 11 runs\n" "fanout render test_areas (35 files)" "$(ms "$FANOUT" render "$TA")"
    printf "%-34s %8s ms median of 11 runs\n" "  same, --no-validate" "$(ms "$FANOUT" render --no-validate "$TA")"
    printf "%-34s %8s ms median of 11 runs\n" "fanout validate test_areas" "$(ms "$FANOUT" validate "$TA")"
    printf "%-34s %8s ms median of 11 runs\n" "fanout validate their rendering" "$(ms "$FANOUT" validate "$OUT/ta-rendered.yml")"
    printf "%-34s %8s ms median of 11 runs\n" "fy-tool --dump of the same files" "$(ms sh -c "for f in $TA/*.yaml; do fy-tool --dump \$f; done")"
fi
