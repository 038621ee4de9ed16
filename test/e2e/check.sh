# fanout check: fresh, stale (with a diff), --write (atomic, mode kept), a missing
# rendering, a target that cannot be replaced, and the .fanout.yml config.
set -eu
mkdir -p .buildkite
cp "$ROOT/fixtures/demo/pipeline.yml" .buildkite/pipeline.yml
"$FANOUT" render -o .buildkite/rendered.yml .buildkite/pipeline.yml
run() { set +e; "$@" >out.txt 2>err.txt; rc=$?; set -e; }

run "$FANOUT" check .buildkite/pipeline.yml --rendered .buildkite/rendered.yml
[ $rc = 0 ] && [ ! -s out.txt ] && [ ! -s err.txt ]

sed -i 's/parallelism: 3/parallelism: 2/' .buildkite/pipeline.yml
cp .buildkite/rendered.yml before.yml
run "$FANOUT" check .buildkite/pipeline.yml --rendered .buildkite/rendered.yml
[ $rc = 1 ] || { echo "stale exit $rc"; cat err.txt; exit 1; }
grep -q '^--- .buildkite/rendered.yml$' out.txt
grep -q '^+++ .buildkite/rendered.yml (rendered now)$' out.txt
grep -q '^-  - label: ":nvidia: Language Models (Extended Pooling) Shard 3/3"$' out.txt
grep -q '^+      - pytest -v -s models/language/pooling --num-shards=2 --shard-id=1$' out.txt
grep -q 'error: is stale; run .fanout check --write' err.txt
cmp before.yml .buildkite/rendered.yml   # untouched without --write

chmod 640 .buildkite/rendered.yml
run "$FANOUT" check --write .buildkite/pipeline.yml --rendered .buildkite/rendered.yml
[ $rc = 0 ] || { echo "--write exit $rc"; cat err.txt; exit 1; }
[ "$(stat -c %a .buildkite/rendered.yml)" = 640 ]
"$FANOUT" render .buildkite/pipeline.yml | cmp - .buildkite/rendered.yml
[ -z "$(ls .buildkite | grep fanout- || true)" ]
run "$FANOUT" check .buildkite/pipeline.yml --rendered .buildkite/rendered.yml
[ $rc = 0 ]

# A missing rendering is stale; --write creates it.
run "$FANOUT" check .buildkite/pipeline.yml --rendered .buildkite/new.yml
[ $rc = 1 ] && grep -q '^--- /dev/null$' out.txt && grep -q 'does not exist' err.txt
run "$FANOUT" check --write .buildkite/pipeline.yml --rendered .buildkite/new.yml
[ $rc = 0 ] && [ -f .buildkite/new.yml ]

# A target that cannot be replaced: an error (exit 2), the old state kept.
mkdir -p ro
if [ "$(id -u)" = 0 ]; then
    mkdir ro/rendered.yml   # even root cannot rename a file over a directory
else
    cp before.yml ro/rendered.yml && chmod 555 ro
fi
run "$FANOUT" check --write .buildkite/pipeline.yml --rendered ro/rendered.yml
[ $rc = 2 ] || { echo "read-only target exit $rc"; cat err.txt; exit 1; }
grep -q '^ro/rendered.yml: error: ' err.txt
chmod 755 ro

# Pairs from .fanout.yml
cat >.fanout.yml <<'YAML'
checks:
  - sources: [.buildkite/pipeline.yml]
    rendered: .buildkite/rendered.yml
  - sources: .buildkite/pipeline.yml
    rendered: .buildkite/upload.yml
    upload: true
YAML
"$FANOUT" render --upload -o .buildkite/upload.yml .buildkite/pipeline.yml
run "$FANOUT" check
[ $rc = 0 ] || { echo "config exit $rc"; cat err.txt; exit 1; }
echo "# edited" >>.buildkite/upload.yml
run "$FANOUT" check
[ $rc = 1 ] && grep -q '^-# edited$' out.txt
printf 'checks: nope\n' >bad.yml
run "$FANOUT" check --config bad.yml
[ $rc = 2 ] && grep -q "^bad.yml:1:9: error: the config needs 'checks'" err.txt
run "$FANOUT" check --config missing.yml
[ $rc = 2 ] && grep -q '^missing.yml: error: cannot open' err.txt

# A check's dialect options that take a word go through the options' own parser, over
# the command line's; the fix command repeats the command line's.
mkdir -p ta
printf 'group: G\nsteps:\n  - label: a\n    commands: [x]\n    parallelism: 3\n    mirror:\n      amd:\n        device: mi325_1\n        parallelism: 2\n' >ta/a.yml
"$FANOUT" render --mirror-parallelism inherit -o ta.yml ta 2>/dev/null
printf 'checks:\n  - sources: ta\n    rendered: ta.yml\n    mirror_parallelism: inherit\n' >ta.fanout.yml
run "$FANOUT" check --config ta.fanout.yml
[ $rc = 0 ] || { echo "check's mirror_parallelism: exit $rc"; cat err.txt; exit 1; }
printf 'checks:\n  - sources: ta\n    rendered: ta.yml\n    mirror_parallelism: mine\n' >ta.fanout.yml
run "$FANOUT" check --no-snippet --config ta.fanout.yml
[ $rc = 2 ] && grep -q '^ta.fanout.yml:4:25: error: mirror_parallelism is own or inherit \[config\]$' err.txt || {
    echo "check's bad mirror_parallelism:"; cat err.txt; exit 1; }
run "$FANOUT" check --platform amd --mirror-parallelism own --rendered ta.yml ta
[ $rc = 1 ] && grep -q "run 'fanout check --write --platform amd --rendered ta.yml ta'" err.txt || {
    echo "fix command of dialect options:"; cat err.txt; exit 1; }
run "$FANOUT" check --platform amd --mirror-parallelism inherit --rendered ta.yml ta
[ $rc = 1 ] && grep -q "run 'fanout check --write --platform amd --mirror-parallelism inherit --rendered ta.yml ta'" err.txt || {
    echo "fix command of dialect options:"; cat err.txt; exit 1; }
# --rendered inside a SOURCE directory is no source of itself (as the config's checks):
# the check compares the directory's other files, and the fix it prints works
mkdir -p inside
cp "$ROOT/fixtures/demo/pipeline.yml" inside/pipeline.yml
"$FANOUT" render -o inside/rendered.yml inside/pipeline.yml
run "$FANOUT" check inside --rendered inside/rendered.yml
[ $rc = 0 ] || { echo "rendering inside its source directory:"; cat err.txt; exit 1; }
sed -i 's/parallelism: 3/parallelism: 2/' inside/pipeline.yml
run "$FANOUT" check inside --rendered inside/rendered.yml
[ $rc = 1 ] && grep -q "run 'fanout check --write --rendered inside/rendered.yml inside'" err.txt || { cat err.txt; exit 1; }
run "$FANOUT" check --write inside --rendered inside/rendered.yml
[ $rc = 0 ] || { echo "the printed fix failed:"; cat err.txt; exit 1; }
run "$FANOUT" check inside --rendered inside/rendered.yml
[ $rc = 0 ]
# named as a SOURCE it is still refused
run "$FANOUT" check --write inside/rendered.yml --rendered inside/rendered.yml
[ $rc = 2 ] && grep -q 'an input is never overwritten \[io\]$' err.txt
