# fanout diff on a copy of vLLM's test areas: Extended Pooling at parallelism 1 (base)
# against the real 4 with its AMD mirror at 2 (head).
set -eu
cp -r "$SHARED/corpus/vllm/test_areas" head
chmod -R u+w head
cp -r head base
# base: parallelism 1, and no mirror parallelism (the mirror inherits 1)
awk '
/key: language-models-test-extended-pooling$/ { inpool = 1 }
inpool && /^  parallelism: 4$/ { print "  parallelism: 1"; next }
inpool && /^      parallelism: 2$/ { inpool = 0; next }
{ print }' head/models_language.yaml >base/models_language.yaml
! cmp -s head/models_language.yaml base/models_language.yaml
set +e
"$FANOUT" diff base head >out.txt 2>err.txt
rc=$?
set -e
[ $rc = 1 ] || { echo "exit $rc"; cat err.txt; exit 1; }
# each line names the step's file:line and label in HEAD
grep -qx 'language-models-test-extended-pooling \[head/models_language.yaml:[0-9]* ":nvidia: (H200) Language Models (Extended Pooling) Shard 1..4"\]: parallelism 1 -> 4 (shards 0-3 added)' out.txt
sed -E 's/ \[[^]]*\]:/:/' out.txt >plain.txt
grep -qx 'language-models-test-extended-pooling: mirror amd: 1 -> 2 (shards 0-1 added)' plain.txt
# nothing else moved, appeared or vanished
tail -n 1 out.txt | grep -qx '0 added, 0 removed, 0 renamed, 2 changed, 0 moved, 2 re-sharded'
"$FANOUT" diff head head >same.txt 2>/dev/null
grep -qx 'no changes: 0 added, 0 removed, 0 renamed, 0 changed, 0 moved, 0 re-sharded' same.txt
# a rendering compares equal to its sources
"$FANOUT" render head >head.yml 2>/dev/null
"$FANOUT" diff head head.yml >/dev/null 2>&1
