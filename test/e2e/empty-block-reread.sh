# An empty block scalar followed by a line no deeper than its key (`A: |`, then `B: x`
# at A's indentation) is "" as YAML 1.2.2 8.1.1.1 and both platforms' readers (npm yaml,
# gopkg.in/yaml.v3) have it, with B kept; libfyaml 0.7.12 reads B's line into A, so the
# input is read again with the `|` handed as a plain scalar (stream.c: reread_past). Here
# past 128 KiB of an input read in chunks (libfyaml's own offsets start again there), from
# a pipe as from a file, several times in one input, with a wide character before the
# indicator (libfyaml counts columns in characters).
set -eu
{
    printf 'steps:\n'
    i=0
    while [ $i -lt 3000 ]; do
        printf '  - label: pad %04d\n    command: echo padding past the first chunks of the input\n' $i
        i=$((i + 1))
    done
    printf '  - label: late\n    env:\n      ÉTAPE: | # nothing\n      B: kept\n      C: |+\n\n      D: |\n    command: echo late\n'
    printf '  - label: last\n    command: >-\n    key: last\n'
} >big.yml
[ "$(wc -c <big.yml)" -gt 140000 ]
"$FANOUT" render big.yml >out.yml 2>err.txt || { cat err.txt; exit 1; }
! grep -q 'error' err.txt
awk '/label: late$/ {on = 1} on' out.yml >late.txt
cat >want.txt <<'EOF'
  - label: late
    command: echo late
    env:
      ÉTAPE: ""
      B: kept
      C: "\n"
      D: ""
  - label: last
    key: last
    command: ""
EOF
diff want.txt late.txt
"$FANOUT" render - <big.yml >pipe.yml 2>/dev/null
cmp out.yml pipe.yml
