# Usage: help, version, unknown commands and options.
set -eu
"$FANOUT" --help | grep -q '^usage: fanout render'
"$FANOUT" render --help | grep -q -- '--upload'
"$FANOUT" --version | grep -q '^fanout [0-9]'
# (fanout jobs: its formats are its own, and a usage error lists nothing.)
for args in "" "frobnicate" "render --nope x" "render -o" \
    "jobs --format yaml x.yml" "jobs --output x.txt x.yml" "jobs - -"; do
    set +e
    # shellcheck disable=SC2086
    "$FANOUT" $args >out.txt 2>err.txt </dev/null
    rc=$?
    set -e
    [ $rc = 2 ] || { echo "'$args' exit $rc"; exit 1; }
    grep -q '^fanout: error: ' err.txt || { echo "'$args' no message"; exit 1; }
    [ ! -s out.txt ] || { echo "'$args' printed"; exit 1; }
done
grep -qx "fanout: error: stdin ('-') is named more than once" err.txt
# An option the command does not take is named, not its value (issue 12).
set +e
"$FANOUT" validate --format json x.yml >/dev/null 2>err.txt
rc=$?
set -e
[ $rc = 2 ]
grep -qx "fanout: error: unknown option for this command: --format" err.txt
"$FANOUT" render -o x.yml --schema s.json 2>err.txt >/dev/null || true
grep -qx "fanout: error: unknown option for this command: --schema" err.txt
# An unknown short option is named as given, not the argument before it, with the way to
# pass an operand that starts with '-' (issue 26).
"$FANOUT" expr --format=json '-shard-id=x' 2>err.txt >/dev/null && exit 1
grep -qx "fanout: error: unknown option for expr (an operand that starts with '-' goes after '--'): -shard-id=x" err.txt
"$FANOUT" expr '-1 == -1' 2>err.txt >/dev/null && exit 1
grep -q ": -1 == -1\$" err.txt
[ "$("$FANOUT" expr -- '-1 == -1')" = true ]
"$FANOUT" render -qz x.yml 2>err.txt >/dev/null && exit 1
grep -q ": -qz\$" err.txt
# Each command has its own help.
"$FANOUT" expr --help | grep -q -- '--matrix'
! "$FANOUT" render --help | grep -q -- '--rendered'
[ "$("$FANOUT" render --help)" != "$("$FANOUT" diff --help)" ]
"$FANOUT" help diff | grep -q -- '--exit-zero'
# `fanout help rules` and docs/reference.md's message table name the same rules.
"$FANOUT" help rules | awk 'NF && !/^A schema|^Levels/ { print $1 }' | sort >rules.txt
sed -n '/^## Messages/,/^## Exit status/p' "$ROOT/docs/reference.md" |
    awk -F' [|] ' '/^[|] `/ && $2 ~ /^(error|warning|note)([,;]| |$)/ {
        n = split($1, w, "`"); for (i = 2; i <= n; i += 2) if (w[i] ~ /^[a-z0-9-]+$/) print w[i] }' |
    sort -u >documented.txt
diff rules.txt documented.txt || { echo "help rules and reference.md differ"; exit 1; }
# A typo of a command or an option gets a suggestion.
"$FANOUT" rendr x.yml 2>err.txt >/dev/null || true
grep -q 'unknown command (did you mean render?): rendr' err.txt
# -V is --version; `fanout shards` and `fanout help shards` list the subcommands, an
# unknown one gets a suggestion (issue 24).
[ "$("$FANOUT" -V)" = "$("$FANOUT" --version)" ]
"$FANOUT" help shards >out.txt
grep -q '^usage: fanout shards check ' out.txt
grep -q '^       fanout shards assign ' out.txt
grep -q '^       fanout shards plan ' out.txt
set +e
"$FANOUT" shards >out.txt 2>err.txt
rc=$?
set -e
[ $rc = 2 ] && [ ! -s out.txt ]
grep -q '^usage: fanout shards check ' err.txt
grep -qx 'fanout: error: shards needs a subcommand' err.txt
"$FANOUT" shards chek x.yml 2>err.txt >/dev/null && exit 1
grep -qx 'fanout: error: unknown shards subcommand (did you mean check?): chek' err.txt
# An --ignore-field name no job has is said, with the closest field the jobs have.
printf 'steps:\n  - command: a\n    label: x\n' >a.yml
printf 'steps:\n  - command: a\n    label: y\n' >b.yml
"$FANOUT" diff --ignore-field lable a.yml b.yml >/dev/null 2>err.txt && exit 1
grep -qx "fanout: warning: --ignore-field lable: no job, group or top-level setting of either side has that field, did you mean 'label'? \[ignore-field\]" err.txt
"$FANOUT" diff --ignore-field label a.yml b.yml >/dev/null 2>err.txt && exit 1
[ ! -s err.txt ]
"$FANOUT" jobs --format yaml x.yml 2>err.txt >/dev/null || true
grep -qx "fanout: error: unknown --format (text, json, markdown or tsv): yaml" err.txt
"$FANOUT" help jobs | grep -q -- '--format text|json|markdown|tsv'
# help and the version that cannot be written (a full disk) are an io error, not a success
if [ -w /dev/full ]; then
    for words in "--help" "--version" "help rules" "render --help" "shards check --help"; do
        set +e
        # shellcheck disable=SC2086  # words is a word list on purpose
        "$FANOUT" $words >/dev/full 2>err.txt
        rc=$?
        set -e
        [ $rc = 2 ] && grep -q '^<stdout>: error: write error: .* \[io\]$' err.txt || { echo "$words >/dev/full: exit $rc"; cat err.txt; exit 1; }
    done
fi
# An empty file name or ref is a usage error naming the option, not a message that
# starts with ':' (a check fix that could not work); an empty operand is named ''.
printf 'steps: [{command: x}]\n' >p.yml
for args in "render -o '' p.yml" "check --rendered '' p.yml" "render --config '' p.yml" "diff --base '' ."; do
    eval "\"\$FANOUT\" $args" >out.txt 2>err.txt && { echo "'$args' exit 0"; exit 1; }
    grep -q "^fanout: error: --[a-z]* needs a value, not an empty one\$" err.txt || { echo "'$args': $(cat err.txt)"; exit 1; }
done
"$FANOUT" render '' 2>err.txt >/dev/null && exit 1
grep -qx "'': error: cannot open: No such file or directory \[io\]" err.txt
printf 'a\n' >ids.txt
"$FANOUT" shards assign --nodeid-prefix '' --tests ids.txt -n 1 >/dev/null
# Once --error-format json is read, a usage error is a JSON line too (its reader parses
# every line), of no file; before it, text.
"$FANOUT" render --error-format json --platfrom x p.yml 2>err.txt >/dev/null && exit 1
python3 -c 'import json,sys; m=json.loads(open("err.txt").read()); assert m["file"] == "" and m["line"] == 0 and m["severity"] == "error" and "--platform?" in m["message"], m'
[ "$(wc -l <err.txt)" = 1 ]
"$FANOUT" render --platfrom x --error-format json p.yml 2>err.txt >/dev/null && exit 1
grep -q '^fanout: error: unknown option' err.txt
