# Pass 1 writes the rendering as it checks, when every depends_on names a step before
# it and the sharded key map still holds it; otherwise pass 2 renders again.
# Every way must give the same bytes.
set -eu
gen() { # gen N: N steps, every other one sharded, some depending on an earlier one
    awk -v n="$1" 'BEGIN {
        print "steps:"
        for (i = 0; i < n; i++) {
            printf "  - key: step-%d\n    label: \"Step %d %%N\"\n    parallelism: %d\n    command: run --shard=$$BUILDKITE_PARALLEL_JOB\n", i, i, i % 2 ? 2 : 1
            if (i % 7 == 6)
                printf "    depends_on: step-%d\n", i - 3
        }
    }'
}
gen 20000 >backward.yml
# the same steps behind one that names the last step: only pass 2 can rewrite that
{ echo "steps:"; printf '  - label: first\n    depends_on: step-19999\n    command: first\n'; tail -n +2 backward.yml; } >forward.yml
# 30,000 sharded keys, more than the map holds, and a last step that names the first
# sharded one, which the map has forgotten by then: pass 2 renders it
{ gen 60000; printf '  - label: last\n    depends_on: step-1\n    command: last\n'; } >big.yml
"$FANOUT" render backward.yml >a.yml 2>/dev/null
"$FANOUT" render forward.yml >b.yml 2>/dev/null
"$FANOUT" render big.yml >c.yml 2>/dev/null
# b.yml = "steps:", the first step (5 lines), then a.yml's steps
head -n 6 b.yml | tail -n 5 >first.txt
grep -q '^      - step-19999-1$' first.txt
tail -n +7 b.yml >rest.yml
tail -n +2 a.yml | cmp - rest.yml
# c.yml starts with a.yml
head -n "$(wc -l <a.yml)" c.yml | cmp - a.yml
[ "$(grep -c '^    key: ' c.yml)" = 90000 ]
tail -n 4 c.yml | grep -q '^      - step-1-1$'
grep -q '^      - step-3-1$' a.yml
