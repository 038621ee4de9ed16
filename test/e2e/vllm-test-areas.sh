# vLLM's real test-area directory renders; step counts and the Extended Pooling shards
# are checked against numbers computed from the source text (awk), not by fanout.
set -eu
TA="$SHARED/corpus/vllm/test_areas"
"$FANOUT" render "$TA" >all.yaml 2>all.err
! grep -q ': error:' all.err

# Expected: per step, its parallelism (or 1), plus for a mirror the mirror's
# parallelism, else the step's. Steps start at column 0, step fields at 2, mirror
# fields at 6 (the layout of every file in the directory).
want=$(cd "$TA" && awk '
function flush() { if (instep) total += n + (mirror ? (mp ? mp : n) : 0) }
FNR == 1 { flush(); instep = 0 }
/^- / { flush(); instep = 1; n = 1; mirror = 0; mp = 0 }
/^  parallelism: / { n = $2 }
/^  mirror:/ { mirror = 1 }
/^      parallelism: / { mp = $2 }
END { flush(); print total }' *.yaml)
got=$(grep -c '^      - ' all.yaml)
[ "$want" = "$got" ] || { echo "rendered $got steps, expected $want"; exit 1; }
# One group per file, then the AMD group.
files=$(ls "$TA"/*.yaml | wc -l)
[ "$(grep -c '^  - group: ' all.yaml)" = $((files + 1)) ]
[ "$(grep '^  - group: ' all.yaml | tail -n 1)" = "  - group: Hardware-AMD Tests" ]
# Keys are unique.
[ -z "$(grep '^        key: ' all.yaml | sort | uniq -d)" ] || { echo "duplicate keys"; exit 1; }

# Extended Pooling: 4 NVIDIA shards, 2 AMD shards, each with its own shard id.
for i in 0 1 2 3; do
    grep -A5 "key: language-models-test-extended-pooling-$i\$" all.yaml >s.txt
    grep -q -- "--num-shards=4 --shard-id=$i" s.txt || { echo "NVIDIA shard $i"; cat s.txt; exit 1; }
done
! grep -q 'key: language-models-test-extended-pooling-4$' all.yaml
for i in 0 1; do
    grep -A5 "key: amd-language-models-test-extended-pooling-$i\$" all.yaml >s.txt
    grep -q -- "--num-shards=2 --shard-id=$i" s.txt || { echo "AMD shard $i"; cat s.txt; exit 1; }
done
! grep -q 'key: amd-language-models-test-extended-pooling-2$' all.yaml
grep -q 'label: ":amd: (MI300) Language Models (Extended Pooling) Shard 2"' all.yaml
grep -q 'label: ":nvidia: (H200) Language Models (Extended Pooling) Shard 4"' all.yaml

# Every file renders on its own too.
for f in "$TA"/*.yaml; do
    "$FANOUT" render "$f" >one.yaml 2>one.err || { echo "$f failed"; cat one.err; exit 1; }
done

# The rendering is a Buildkite pipeline fanout reads back, unchanged.
"$FANOUT" render --dialect buildkite all.yaml >again.yaml 2>again.err
cmp all.yaml again.yaml

# Platforms split the same steps.
"$FANOUT" render --platform nvidia "$TA" >nv.yaml 2>/dev/null
"$FANOUT" render --platform amd "$TA" >amd.yaml 2>/dev/null
nv=$(grep -c '^      - ' nv.yaml)
amd=$(grep -c '^      - ' amd.yaml)
[ $((nv + amd)) = "$got" ] || { echo "platforms: $nv + $amd != $got"; exit 1; }
! grep -q 'Hardware-AMD Tests' nv.yaml

# With the image builds rendered too, only the AMD image build is missing.
"$FANOUT" render "$SHARED/corpus/vllm/image_build" "$TA" >/dev/null 2>deps.err
[ "$(grep -c dangling-depends-on deps.err)" = 1 ]
grep -q "'image-build-amd'" deps.err
