# diff --format sarif (issue 23 item 9): the report is one SARIF 2.1.0 log on stdout that
# the OASIS schema (test/sarif/, read by fanout's own validator) accepts: each change a
# result at HEAD's line of what changed (as --format github annotates it), a change with
# no file a notification of the invocation, as is the summary.
set -eu
SCHEMA="$ROOT/test/sarif/sarif-schema-2.1.0.json"

# `fanout diff --format sarif` in fixture $1 (its operands: the rest) into log.sarif,
# exit 1 (they differ), valid SARIF.
log() {
    dir=$1
    shift
    rc=0
    (cd "$ROOT/fixtures/$dir" && "$FANOUT" diff --format sarif "$@") >log.sarif 2>/dev/null || rc=$?
    [ "$rc" = 1 ] || { echo "$dir: exit $rc, expected 1"; cat log.sarif; exit 1; }
    "$FANOUT" validate --schema "$SCHEMA" log.sarif || { echo "$dir: not SARIF 2.1.0"; cat log.sarif; exit 1; }
}

holds() {
    python3 - "$1" <<'PY'
import json, sys
run, = json.load(open('log.sarif'))['runs']
results = run['results']
where = [(r['ruleId'], r['locations'][0]['physicalLocation']['artifactLocation']['uri'],
          r['locations'][0]['physicalLocation']['region']['startLine']) for r in results]
notes = [n['message']['text'] for n in run['invocations'][0]['toolExecutionNotifications']]
rules = [r['id'] for r in run['tool']['driver']['rules']]
exec(sys.argv[1])
PY
}

# a changed step field and a script's changed line: HEAD's lines 12 and 17, not the job's 6
log diff-github-step-line base.yml head.yml
holds '
assert where == [("diff-changed", "head.yml", 12), ("diff-changed", "head.yml", 17)], where
assert notes == ["0 added, 0 removed, 0 renamed, 1 changed, 0 moved, 0 re-sharded"], notes
assert rules == ["diff-changed"], rules
'
# a removed job: at the first line of HEAD's file, saying so; one of a deleted file and
# the summary: notifications (a file only BASE has says nothing of its own settings)
log diff-github-removed base head
holds '
assert where == [("diff-removed", "head/.github/workflows/ci.yml", 1)], where
assert "first line of its file" in results[0]["message"]["text"], results
assert notes[0].startswith("- nightly ") and "on no file" in notes[0], notes
assert notes[1] == "0 added, 2 removed, 0 renamed, 0 changed, 0 moved, 0 re-sharded", notes
'
# an added step and a changed field of a Buildkite pipeline
log diff-github base.yaml head.yaml
holds '
assert [w[0] for w in where] == ["diff-changed", "diff-removed", "diff-added"], where
assert where[0] == ("diff-changed", "head.yaml", 8) and where[1] == ("diff-removed", "head.yaml", 1), where
'
# a rule finding the change introduces: a result of its rule at its level and its line
# (the old gap HEAD keeps is no result)
log diff-findings-new base.yaml head.yaml
holds '
assert where[-1] == ("shard-coverage", "head.yaml", 15), where
assert [r["level"] for r in results if r["ruleId"] == "shard-coverage"] == ["error"], results
assert "shard-coverage" in rules, rules
'
# a finding of a JSON Schema keyword (no meaning of its own in the rule table): its rule
# described as the keyword that failed (a NULL description crashed the report)
log diff-schema-keyword base.yml head.yml
holds '
assert where[-1] == ("minimum", "head.yml", 4), where
described = {r["id"]: r["shortDescription"]["text"] for r in run["tool"]["driver"]["rules"]}
assert described["minimum"] == "a schema violation: the JSON Schema keyword minimum failed", described
'
# a removed job at the needs that named it (HEAD's line 15), not its file's first line
log diff-github-removed-caller base head
holds '
assert ("diff-removed", "head/.github/workflows/ci.yml", 15) in where, where
'
