# Upload-time interpolation (docs/buildkite.md): the whole environment, the options'
# errors, the config's defaults, an interpolated --upload rendering against Buildkite's
# official schema, and the same pipeline read by every command that renders.
set -eu
SCHEMA="$SHARED/schemas-upstream/buildkite-pipeline.schema.json"

cat >p.yml <<'EOF'
env:
  SHARDS: "2"
steps:
  - label: "test %n on ${OS:-linux}"
    key: test-${SUITE:-unit}
    parallelism: $SHARDS
    command: pytest --shard-id=$$BUILDKITE_PARALLEL_JOB --num-shards=$$BUILDKITE_PARALLEL_JOB_COUNT ${EXTRA-}
  - key: after
    depends_on: test-${SUITE:-unit}
    command: echo ${BUILDKITE_COMMIT:0:7} $HOME_DIR
EOF

# --env-from-environment: the environment is the upload's; what it lacks is unset.
env -i PATH="$PATH" SUITE=e2e HOME_DIR=/home/ci BUILDKITE_COMMIT=cfeeee3fa7fa1a63 \
    "$FANOUT" render --env-from-environment p.yml >out.yml 2>err.txt
[ ! -s err.txt ] || { cat err.txt; exit 1; }
grep -q '^    key: test-e2e-1$' out.yml
grep -q '^  - label: test 1 on linux$' out.yml
grep -qF 'command: "pytest --shard-id=1 --num-shards=2 "' out.yml
grep -q '^    command: echo cfeeee3 /home/ci$' out.yml
# --env wins over the environment, whichever comes first
env -i PATH="$PATH" SUITE=e2e "$FANOUT" render --env SUITE=cli --env-from-environment p.yml 2>/dev/null |
    grep -q 'key: test-cli-0'

# Not given: kept as written, one note per variable; the rendering is a fixed point.
"$FANOUT" render p.yml >kept.yml 2>err.txt
[ "$(grep -c 'note: ' err.txt)" = 5 ] || { cat err.txt; exit 1; }
[ "$(grep -c 'note: SUITE is not given' err.txt)" = 1 ]
grep -qF 'key: test-${SUITE:-unit}-0' kept.yml
grep -qF -- '- test-${SUITE:-unit}-1' kept.yml
"$FANOUT" render kept.yml 2>/dev/null | cmp -s - kept.yml

# The --upload rendering of an interpolated pipeline passes Buildkite's own schema (the
# source does not: `parallelism: $SHARDS` is a string before interpolation).
"$FANOUT" render --upload --env SUITE=unit --env EXTRA=-x --env OS=mac --env BUILDKITE_COMMIT=abc \
    --env HOME_DIR=/h p.yml >up.yml
"$FANOUT" validate --schema "$SCHEMA" up.yml
grep -q 'command: pytest --shard-id=\$\$BUILDKITE_PARALLEL_JOB --num-shards=\$\$BUILDKITE_PARALLEL_JOB_COUNT -x$' up.yml

# The options' errors: usage (2) with what is wrong.
for args in "--env NOEQUALS" "--env =v" "--env-file missing.env"; do
    set +e
    # shellcheck disable=SC2086
    "$FANOUT" render $args p.yml >/dev/null 2>err.txt
    rc=$?
    set -e
    [ $rc = 2 ] || { echo "'$args' exit $rc"; exit 1; }
done
grep -q 'missing.env: error: cannot open' err.txt
set +e
"$FANOUT" render --env "A=$(printf 'caf\351')" p.yml >/dev/null 2>err.txt
rc=$?
set -e
[ $rc = 2 ] && grep -q 'takes UTF-8 text only' err.txt

# The config's defaults give them too (a list repeats the option).
printf 'defaults:\n  render:\n    env: [SUITE=config, OS=bsd]\n' >.fanout.yml
"$FANOUT" render p.yml 2>/dev/null | grep -q 'label: test 0 on bsd'
"$FANOUT" render p.yml 2>/dev/null | grep -q 'key: test-config-0'
rm .fanout.yml

# One verdict whatever the command: a token the agent rejects is exit 2 in each.
printf 'steps:\n  - command: echo ${\n' >bad.yml
for cmd in "render" "validate" "shards check" "check --rendered none.yml"; do
    set +e
    # shellcheck disable=SC2086
    "$FANOUT" $cmd bad.yml >/dev/null 2>err.txt
    rc=$?
    set -e
    [ $rc = 2 ] || { echo "$cmd: exit $rc"; cat err.txt; exit 1; }
    grep -q "bad.yml:2:19: error: unterminated '\${' .*\[interpolation\]" err.txt || { echo "$cmd:"; cat err.txt; exit 1; }
done
set +e
"$FANOUT" diff bad.yml p.yml >/dev/null 2>err.txt
rc=$?
set -e
[ $rc = 2 ] && grep -q '\[interpolation\]' err.txt
