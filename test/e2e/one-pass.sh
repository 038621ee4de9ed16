# Pass 1 writes the rendering as it checks, when every depends_on names a step before
# it and the sharded keys fit the one-pass budget; otherwise pass 2 renders again.
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
# more sharded keys (30,000) than the one-pass budget holds: pass 1 gives up midway
gen 60000 >big.yml
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
grep -q '^      - step-3-1$' a.yml
