# Buildkite annotations (docs/reference.md, "Buildkite annotations"): the documented step,
# `fanout diff --format markdown ... | buildkite-agent annotate --style warning --context
# fanout`, run as written with a stand-in buildkite-agent that keeps its arguments and the
# annotation's body (the real one posts it to the build).
set -eu
mkdir -p bin base/.buildkite head/.buildkite
cat >bin/buildkite-agent <<'SH'
#!/bin/sh
printf '%s\n' "$*" >"$ANNOTATION.args"
cat >"$ANNOTATION.md"
SH
chmod +x bin/buildkite-agent
PATH="$PWD/bin:$PATH"
pipeline() { # pipeline PARALLELISM
    printf 'steps:\n  - label: "Tests %%N/%%t"\n    key: tests\n    parallelism: %s\n' "$1"
    printf '    command: pytest --num-shards=$$BUILDKITE_PARALLEL_JOB_COUNT --shard-id=$$BUILDKITE_PARALLEL_JOB\n'
    printf '  - label: Lint\n    command: make lint\n'
}
pipeline 2 >base/.buildkite/pipeline.yml
pipeline 3 >head/.buildkite/pipeline.yml

# the step of the docs, from the head's checkout, the base's beside it
annotate() { # annotate NAME: the docs' pipeline, its body in NAME.md
    (cd head && export ANNOTATION="../$1" &&
        "$FANOUT" diff --format markdown --exit-zero ../base/.buildkite .buildkite 2>"../$1.err" \
          | buildkite-agent annotate --style warning --context fanout)
    [ ! -s "$1.err" ] || { cat "$1.err"; exit 1; }
}
annotate changed
[ "$(cat changed.args)" = "annotate --style warning --context fanout" ]
cat >want.md <<'MD'
### fanout: pipeline changes

**0 added, 0 removed, 0 renamed, 1 changed, 0 moved, 1 re-sharded**

#### Changed

- `tests` (shards 0-1) at `.buildkite/pipeline.yml:2` “Tests 1..2/3”: **label**: `Tests 1..2/3` (was `Tests 1..2/2`)
  <details><summary>values by job</summary>

  ```
  shard 0: "Tests 1/2" -> "Tests 1/3"
  shard 1: "Tests 2/2" -> "Tests 2/3"
  ```

  </details>
- `tests` (shards 0-1) at `.buildkite/pipeline.yml:2` “Tests 1..2/3”: **command**: `pytest --num-shards=3 --shard-id=0..1` (was `pytest --num-shards=2 --shard-id=0..1`)
  <details><summary>values by job</summary>

  ```
  shard 0: "pytest --num-shards=2 --shard-id=0" -> "pytest --num-shards=3 --shard-id=0"
  shard 1: "pytest --num-shards=2 --shard-id=1" -> "pytest --num-shards=3 --shard-id=1"
  ```

  </details>

#### Re-sharded

- `tests` at `.buildkite/pipeline.yml:2` “Tests 1..3/3”: parallelism 2 -> 3 (shard 2 added)
MD
diff -u want.md changed.md

# no difference: the annotation says so (and replaces the last one: same context)
pipeline 2 >head/.buildkite/pipeline.yml
annotate same
printf '### fanout: pipeline changes\n\nNo change in the rendered pipeline.\n' | diff -u - same.md
