# Block scalars of an input read in chunks (over 64 KiB): each is read from the bytes
# handed whatever chunk it is in, as libfyaml gives it, the same text as the same scalar
# in the first chunk; the last one ends the input on a line with a tab and a wide
# character (its end's column is no byte offset).
set -eu
steps() {
    cat <<'EOF'
    steps:
      - run: |
          echo "one	tab"
          echo 'é wide'

          echo kept
      - run: >-
          folded
          lines

          and a paragraph
      - run: |+
          kept trailing

EOF
}
{
    printf 'on: push\njobs:\n  a:\n    runs-on: x\n'
    steps
    i=0
    while [ $i -lt 1400 ]; do
        printf '# padding line %04d, past the first chunk of the input ...........\n' $i
        i=$((i + 1))
    done
    printf '  z:\n    runs-on: x\n'
    steps
    printf '  last:\n    runs-on: x\n    steps:\n      - run: |\n          echo "end\té"'
} >big.yml
[ "$(wc -c <big.yml)" -gt 70000 ]
"$FANOUT" render big.yml >out.yml 2>err.txt || { cat err.txt; exit 1; }
awk '/^  a:$/ {on = 1; next} /^  [a-z]+:$/ {on = 0} on' out.yml >a.txt
awk '/^  z:$/ {on = 1; next} /^  [a-z]+:$/ {on = 0} on' out.yml >z.txt
grep -q 'echo kept' a.txt
cmp a.txt z.txt
grep -qF "$(printf 'echo "end\té"')" out.yml
