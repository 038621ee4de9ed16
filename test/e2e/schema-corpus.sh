# The official schemas accept what their own test fixtures say is valid and reject the
# rest; fanout's rendering of vLLM's test areas is a valid Buildkite pipeline.
set -eu
BK="$SHARED/schemas-upstream/buildkite-pipeline.schema.json"
GH="$SHARED/schemas-upstream/github-workflow.schema.json"
failures=0
expect() { # expect RC FILE SCHEMA
    set +e
    "$FANOUT" validate --schema "$3" "$2" >out.txt 2>err.txt
    rc=$?
    set -e
    if [ "$rc" != "$1" ]; then
        echo "$2: exit $rc, expected $1"; head -5 err.txt; failures=$((failures + 1))
    fi
}
for f in "$SHARED"/corpus/buildkite-schema-tests/test/valid-pipelines/*.yml; do expect 0 "$f" "$BK"; done
for f in "$ROOT"/fixtures/schema-buildkite-inline/valid-*.json; do expect 0 "$f" "$BK"; done
for f in "$ROOT"/fixtures/schema-buildkite-inline/invalid-*.json; do expect 1 "$f" "$BK"; done
G="$SHARED/corpus/schemastore-github-workflow-tests/src"
for f in "$G"/test/github-workflow/*.yaml; do expect 0 "$f" "$GH"; done
for f in "$G"/negative_test/github-workflow/*.yaml; do expect 1 "$f" "$GH"; done
[ "$failures" = 0 ]

# The acceptance command of the schema work, as written (bash process substitution).
bash -c '"$FANOUT" validate --schema "$SHARED/schemas-upstream/buildkite-pipeline.schema.json" <("$FANOUT" render "$SHARED/corpus/vllm/test_areas" --upload 2>/dev/null)'

# One broken step: exactly one error line, at its position.
printf 'steps:\n  - label: ok\n    command: make\n  - label: broken\n    command: make test\n    timeout_in_minutes: soon\n  - wait\n' >broken.yml
expect 1 broken.yml "$BK"
[ "$(grep -c ": error: " err.txt)" = 1 ]
grep -q '^broken.yml:6:25: error: /steps/1/timeout_in_minutes: must be integer, got string '"'"'soon'"'"' \[type\]$' err.txt
