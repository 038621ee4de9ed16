# render --changed on Buildkite if_changed: buildkite/agent 5c21980
# clicommand/pipeline_upload_test.go TestIfChangedApplicator, every case: its six steps
# (a string, an include/exclude mapping, a list, `**`), each change, and the steps the
# agent skips (`skip` set, if_changed removed).
set -eu
cat >pipeline.yml <<'YAML'
steps:
  - command: always runs
  - command: only runs when files in foo changed
    if_changed: foo/**
  - command: only runs when files in foo changed, except for baz
    if_changed:
      include: foo/**
      exclude: foo/baz
  - command: only runs when files in bar changed
    if_changed: bar/**
  - command: only runs when files in foo or bar changed
    if_changed: [foo/**, bar/**]
  - command: only runs when any files changed
    if_changed: "**"
YAML
# The commands a rendering skips, by their first word after "only runs when", one line.
skipped() {
    awk '/^  - command:/ { c = $0; sub(/.*command: /, "", c) } /^    skip:/ { printf "%s;", c }' "$1"
}
check() { # name, changed files (space-separated), the skipped steps
    printf '%s' "$2" | tr ' ' '\n' >changed.txt
    "$FANOUT" render --changed changed.txt pipeline.yml >out.yaml
    got=$(skipped out.yaml)
    [ "$got" = "$3" ] || { echo "$1: skipped '$got', want '$3'"; exit 1; }
    if grep -q "if_changed:" out.yaml; then echo "$1: if_changed left in"; exit 1; fi
}
all="only runs when files in foo changed;only runs when files in foo changed, except for baz;only runs when files in bar changed;only runs when files in foo or bar changed;only runs when any files changed;"
check "no changes" "" "$all"
check "change in qux" "qux" "only runs when files in foo changed;only runs when files in foo changed, except for baz;only runs when files in bar changed;only runs when files in foo or bar changed;"
check "change in foo/README.md" "foo/README.md" "only runs when files in bar changed;"
check "change in foo/baz" "foo/baz" "only runs when files in foo changed, except for baz;only runs when files in bar changed;"
check "change in bar/README.md" "bar/README.md" "only runs when files in foo changed;only runs when files in foo changed, except for baz;"
check "changes in foo/hello.go, foo/baz, and bar/README.md" "foo/hello.go foo/baz bar/README.md" ""

# "disabled": without --changed, every if_changed stays as written
"$FANOUT" render pipeline.yml >plain.yaml
[ "$(grep -c "if_changed:" plain.yaml)" = 5 ]
# --build alone gives no changed files: if_changed stays too
"$FANOUT" render --build branch=main pipeline.yml | cmp - plain.yaml
