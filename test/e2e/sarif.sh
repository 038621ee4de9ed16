# --error-format sarif (issue 24): whatever way a run ends, stderr is one SARIF 2.1.0 log
# that the OASIS schema (test/sarif/, draft-04, read by fanout's own draft-07 validator)
# accepts, with what each message said in its place.
set -eu
SCHEMA="$ROOT/test/sarif/sarif-schema-2.1.0.json"

# The log of `fanout ARGS...` (exit code $want) is valid SARIF; it is left in log.sarif.
sarif() {
    want=$1
    shift
    rc=0
    "$FANOUT" "$@" >/dev/null 2>log.sarif </dev/null || rc=$?
    [ "$rc" = "$want" ] || { echo "exit $rc, expected $want: fanout $*"; cat log.sarif; exit 1; }
    "$FANOUT" validate --schema "$SCHEMA" log.sarif || { echo "not SARIF 2.1.0: fanout $*"; cat log.sarif; exit 1; }
}

# What the log says, checked in Python ($1: the checks, on `log`).
holds() {
    python3 - "$1" <<'PY'
import json, sys
log = json.load(open('log.sarif'))
run, = log['runs']
results = run['results']
inv, = run['invocations']
notes = inv.get('toolExecutionNotifications', [])
rules = {r['id']: r['shortDescription']['text'] for r in run['tool']['driver']['rules']}
exec(sys.argv[1])
PY
}

# a failing render: a result per message, its rule in the driver's rules with its meaning
printf 'steps:\n  - command: x\n    colour: red\n  - command: y\n    key: a\n  - command: z\n    key: a\n' >bad.yml
sarif 1 render --error-format sarif bad.yml
holds '
import os, subprocess
assert log["version"] == "2.1.0"
driver = run["tool"]["driver"]
version = subprocess.run([os.environ["FANOUT"], "--version"], capture_output=True, text=True).stdout.split()[1]
assert driver["name"] == "fanout" and driver["version"] == version, driver
got = {r["ruleId"]: r for r in results}
assert [(r["ruleId"], r["level"]) for r in results] == [("unknown-key", "warning"), ("key-collision", "error")], results
loc = got["key-collision"]["locations"][0]["physicalLocation"]
assert loc == {"artifactLocation": {"uri": "bad.yml"}, "region": {"startLine": 7, "startColumn": 10}}, loc
assert got["key-collision"]["message"]["text"] == "key \x27a\x27 is already used by the step at bad.yml:5:10", results
assert set(rules) == {"unknown-key", "key-collision"} and rules["key-collision"] == "two rendered steps with one key", rules
assert inv == {"executionSuccessful": True, "exitCode": 1}, inv
'
# the same findings as the text format, one for one
"$FANOUT" render --no-snippet bad.yml 2>text.err && exit 1
[ "$(grep -c '' text.err)" = "$(python3 -c 'import json; print(len(json.load(open("log.sarif"))["runs"][0]["results"]))')" ]

# a clean run: an empty log all the same (code scanning wants a file)
printf 'steps:\n  - command: x\n' >ok.yml
sarif 0 render --error-format sarif ok.yml
holds 'assert results == [] and rules == {} and inv == {"executionSuccessful": True, "exitCode": 0}, log'

# a finding held back until the input is known clean (the rendering's schema), named by
# its JSON Schema keyword
printf 'steps:\n  - command: x\n    timeout_in_minutes: 0\n' >held.yml
sarif 1 render --error-format sarif held.yml
holds '
assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results] == [("minimum", 3)], log
assert rules == {"minimum": "a schema violation: the JSON Schema keyword minimum failed"}, rules
'
printf '{"type": "object", "required": ["name"]}\n' >schema.json
printf 'other: 1\n' >doc.yml
sarif 1 validate --error-format sarif --schema schema.json doc.yml
holds 'assert [r["ruleId"] for r in results] == ["required"] and "JSON Schema keyword required" in rules["required"], log'

# exit-2 input errors, by each way of choosing the format
sarif 2 render --error-format sarif missing.yml
holds 'assert results[0]["ruleId"] == "io" and "region" not in results[0]["locations"][0]["physicalLocation"], results'
sarif 2 render --error-format=sarif --env-file missing.env ok.yml
holds 'assert [r["ruleId"] for r in results] == ["io"], results'
printf 'defaults:\n  render:\n    error-format: sarif\n' >sarif.yml
sarif 2 render --config sarif.yml missing.yml
holds 'assert results[0]["ruleId"] == "io", results'
# ... and the config's error-format is the run's (it was read, then ignored)
printf 'defaults:\n  render:\n    error-format: json\n' >json.yml
"$FANOUT" render --config json.yml missing.yml 2>json.err && exit 1
python3 -c 'import json, sys; [json.loads(l) for l in open("json.err")]'
# the command line over the config
"$FANOUT" render --config sarif.yml --error-format text missing.yml 2>text.err && exit 1
grep -q '^missing.yml: error: cannot open' text.err

# what the run did, which is no problem (check --write's "wrote"): a note of the invocation
sarif 0 check --error-format sarif --write ok.yml --rendered ok.rendered.yml
holds 'assert not results and notes == [{"level": "note", "message": {"text": "wrote ok.rendered.yml"}}], log'

# usage errors once the format is chosen: notifications, the log whole
for args in "render --error-format sarif --bogus ok.yml" "render --error-format sarif --error-format yaml ok.yml" \
    "diff --error-format sarif ok.yml" "render --error-format sarif --dialect nope ok.yml" \
    "shards assign --error-format sarif --shards 0"; do
    # shellcheck disable=SC2086  # args is a word list on purpose
    sarif 2 $args
    holds 'assert not results and notes[0]["level"] == "error" and "--help" in notes[0]["message"]["text"], log'
done
holds 'assert inv["executionSuccessful"] is False and inv["exitCode"] == 2, inv'

# a run that stdout's reader left ends by SIGPIPE, its log whole
python3 -c 'print("steps:"); [print("  - command: echo %d" % i) for i in range(20000)]' >long.yml
{ "$FANOUT" render --error-format sarif --ignore job-limit long.yml 2>log.sarif || true; } | head -c 10 >/dev/null
"$FANOUT" validate --schema "$SCHEMA" log.sarif
holds 'assert inv == {"executionSuccessful": False, "exitSignalNumber": 13}, inv'

# what the input holds reaches the log as JSON text, escaped; a file name as a URI
name=$(printf 'a b:%%\033.yml')
printf 'steps:\n  - command: x\n    "k\\e[31m\\r\\n::error::x ##[x]": 1\n' >"$name"
sarif 0 render --error-format sarif "$name" "$PWD/ok.yml"
holds '
r, = results
assert r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "a%20b%3A%25%1B.yml", r
assert "k\x1b[31m\r\n::error::x ##[x]" in r["message"]["text"], r
'
grep -q "$(printf '\033')" log.sarif && { echo "a raw ESC in the log"; exit 1; }
grep -q '##\[' log.sarif && { echo "a workflow command in the log"; exit 1; }
printf 'steps:\n  - command: x\n    k: 1\n' >abs.yml
sarif 0 render --error-format sarif "$PWD/abs.yml"
holds 'assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("file:///"), results'
