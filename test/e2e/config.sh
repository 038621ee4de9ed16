# .fanout.yml: found from a subdirectory up to the repository root (not above it), its
# defaults, rule levels and known keys applied, its mistakes reported with a suggestion;
# check's stale message is a command that works when pasted.
set -eu
mkdir -p repo/ci/sub && cd repo && mkdir .git
cat >ci/sub/p.yml <<'YML'
steps:
  - label: Tests
    key: tests
    depends_on: image-build
    parallelism: 2
    command: pytest --num-shards=2 --shard-id=$$BUILDKITE_PARALLEL_JOB
  - label: Lint
    depends_on: other-upload
    command: make lint
YML
cat >.fanout.yml <<'YML'
rules:
  dangling-depends-on: error
known_keys: [image-build]
defaults:
  render:
    upload: true
YML
cd ci/sub
# found two levels up; image-build is known; other-upload's warning is now an error
set +e
"$FANOUT" render --no-snippet p.yml >out.yml 2>err.txt
rc=$?
set -e
[ $rc = 1 ] || { echo "render exit $rc"; cat err.txt; exit 1; }
grep -q "error: depends_on names 'other-upload'" err.txt
! grep -q "image-build" err.txt
# the defaults (upload) apply, and the command line still wins over the level
"$FANOUT" render --ignore dangling-depends-on p.yml >out.yml
grep -qF -- '--shard-id=$$BUILDKITE_PARALLEL_JOB' out.yml
# not above the repository root
mv ../../.fanout.yml ../../../.fanout.yml
set +e
"$FANOUT" render --no-snippet p.yml >/dev/null 2>err.txt
rc=$?
set -e
[ $rc = 0 ] && grep -q "warning: depends_on names 'image-build'" err.txt
mv ../../../.fanout.yml ../../.fanout.yml

# mistakes: an unknown key, rule or option, each with a suggestion, exit 2
for bad in 'check: []' 'rules: {danglng-depends-on: off}' 'defaults: {render: {uplaod: true}}' \
           'defaults: {rendr: {}}' 'rules: {dangling-depends-on: loud}' \
           'defaults: {render: {platform: amdx}}'; do
    printf '%s\n' "$bad" >../../.fanout.yml
    set +e
    "$FANOUT" render --no-snippet p.yml >/dev/null 2>err.txt
    rc=$?
    set -e
    [ $rc = 2 ] || { echo "$bad: exit $rc"; cat err.txt; exit 1; }
    grep -q '\.fanout\.yml:[0-9]*:[0-9]*: error: .*\[config\]' err.txt || { echo "$bad:"; cat err.txt; exit 1; }
done
printf 'check: []\ndefaults: {render: {uplaod: true}}\n' >../../.fanout.yml
"$FANOUT" render --no-snippet p.yml >/dev/null 2>err.txt || true
grep -q "unknown key 'check' (checks, shards, rules, known_keys, defaults, limits), did you mean 'checks'?" err.txt
printf 'defaults: {render: {uplaod: true}}\n' >../../.fanout.yml
"$FANOUT" render --no-snippet p.yml >/dev/null 2>err.txt || true
grep -q "render has no option 'uplaod', did you mean 'upload'?" err.txt
# a bad value is one message at its line, without the command line's usage hint
printf 'defaults:\n  render:\n    format: jsn\n' >../../.fanout.yml
"$FANOUT" render --no-snippet p.yml >/dev/null 2>err.txt && exit 1
echo "../../.fanout.yml:3:13: error: unknown --format (yaml or json): jsn [config]" >want.txt
diff want.txt err.txt

# check: the stale message names a command that rewrites the file when pasted
rm ../../.fanout.yml
"$FANOUT" render --upload p.yml >committed.yml
sed -i 's/pytest/pytest -x/' p.yml
set +e
"$FANOUT" check --upload --rendered committed.yml p.yml >diff.txt 2>err.txt
rc=$?
set -e
[ $rc = 1 ]
fix=$(sed -n "s/.*run '\(.*\)' to update it.*/\1/p" err.txt)
[ "$fix" = "fanout check --write --upload --rendered committed.yml p.yml" ] || { echo "hint: $fix"; exit 1; }
eval "\"\$FANOUT\" ${fix#fanout }" 2>/dev/null
"$FANOUT" check --upload --rendered committed.yml p.yml

# the config's check pairs are relative to the config, wherever check runs
printf 'checks:\n  - sources: ci/sub/p.yml\n    rendered: ci/rendered.yml\n' >../../.fanout.yml
"$FANOUT" check --write >/dev/null 2>&1
[ -f ../rendered.yml ]
"$FANOUT" check 2>/dev/null

# a .fanout.yml that cannot be read is an error, not an absent config (issue 26)
for kind in loop dangling directory; do
    rm -rf ../../.fanout.yml
    case $kind in
    loop) ln -s .fanout.yml ../../.fanout.yml ;;
    dangling) ln -s nowhere.yml ../../.fanout.yml ;;
    directory) mkdir ../../.fanout.yml ;;
    esac
    set +e
    "$FANOUT" render p.yml >/dev/null 2>err.txt
    rc=$?
    set -e
    [ $rc = 2 ] && grep -q '\.fanout\.yml: error: .*\[io\]' err.txt || { echo "$kind: exit $rc"; cat err.txt; exit 1; }
done

# a path the config's defaults give is read from the config's directory, as git reads a
# path in a config file, wherever fanout runs: --rayci-config FILE, -o FILE, --changed
# FILE, --env-file FILE; a bare word stays a name (--rayci-config ray-pr)
rm -rf ../../.fanout.yml
mkdir -p ../../cfg
cp "$ROOT/fixtures/rayci-config-file/config.yaml" ../../cfg/rayci.yaml
cp "$ROOT/fixtures/rayci-config-file/steps.rayci.yml" steps.rayci.yml
printf 'ci/sub/p.yml\n' >../../cfg/changed.txt
printf 'QUEUE=from-env-file\n' >../../cfg/env
cat >../../.fanout.yml <<'YML'
defaults:
  render:
    rayci_config: cfg/rayci.yaml
    output: cfg/out.yml
    changed: cfg/changed.txt
    env_file: cfg/env
YML
"$FANOUT" render steps.rayci.yml 2>err.txt || { cat err.txt; exit 1; }
cmp ../../cfg/out.yml "$ROOT/fixtures/rayci-config-file/expected.yaml"
printf 'defaults:\n  render:\n    rayci_config: ray-branch\n' >../../.fanout.yml
! "$FANOUT" render steps.rayci.yml >/dev/null 2>err.txt
grep -q "rayci's ray-branch config has no runner queue" err.txt
