# Renames are looked for among at most 1,000 removed and 1,000 added steps (RENAME_MAX in
# pipediff.c, docs/reference.md): 1,000 renamed keys are renames; past that, each step
# is reported as removed or added, and memory does not grow with the square.
set -eu
gen() { # PREFIX COUNT: a pipeline of COUNT steps keyed PREFIX-<i>
    awk -v p="$1" -v n="$2" 'BEGIN { print "steps:"; for (i = 0; i < n; i++) printf "  - key: %s-%d\n    command: make t%d\n", p, i, i }'
}
gen old 1000 >base.yml
gen new 1000 >head.yml
rc=0
"$FANOUT" diff base.yml head.yml >out.txt || rc=$?
[ $rc = 1 ] || { echo "diff exit $rc"; exit 1; }
grep -qx '~ old-7 -> new-7 \[head.yml:16\]: renamed' out.txt
tail -n 1 out.txt | grep -qx '0 added, 0 removed, 1000 renamed, 0 changed, 0 moved, 0 re-sharded'
gen old 1001 >base.yml
gen new 1001 >head.yml
rc=0
"$FANOUT" diff base.yml head.yml >out.txt || rc=$?
[ $rc = 1 ] || { echo "diff exit $rc"; exit 1; }
tail -n 1 out.txt | grep -qx '1001 added, 1001 removed, 0 renamed, 0 changed, 0 moved, 0 re-sharded'
