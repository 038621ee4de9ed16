# Every SGLang corpus workflow renders to its golden rendering (fixtures/gha-corpus), and
# each golden rendering renders to itself.
set -eu
for f in "$SHARED"/corpus/sglang/workflows/*.yml; do
    want="$ROOT/fixtures/gha-corpus/$(basename "$f")"
    "$FANOUT" render "$f" >got.yml 2>/dev/null
    cmp -s "$want" got.yml || { echo "$f:"; diff -u "$want" got.yml | head -20; exit 1; }
    "$FANOUT" render "$want" >again.yml 2>/dev/null
    cmp -s "$want" again.yml || { echo "$want is not a fixed point"; exit 1; }
done
