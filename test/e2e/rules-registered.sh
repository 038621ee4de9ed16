# Every rule a message can carry is registered (issue 26): the rule of every report in
# src/ (rules-registered.awk) is listed by `fanout help rules` (and so, by cli.sh, in
# reference.md's table), and `--ignore` accepts it. A schema violation is named by its
# JSON Schema keyword, which help rules sums up in one sentence: --ignore accepts those.
set -eu
awk -f "$ROOT/test/e2e/rules-registered.awk" "$ROOT"/include/fanout/*.h "$ROOT"/src/*/*.c >found.txt
if grep '^UNKNOWN ' found.txt; then
    echo "a report whose rule is no string literal (nor a macro of one, nor a wrapper's parameter)"
    exit 1
fi
# the reader finds the reports it must (a change to the sources' shape would hide them)
while read -r kind name file; do
    grep -q "^$kind $name .*$file:" found.txt || { echo "rules-registered.awk missed: $kind $name $file"; exit 1; }
done <<'END'
rule yaml src/yaml/stream.c
rule shard-variables src/expand/expand.c
rule job-shape src/dialect/gha.c
rule shard-coverage src/shards/coverage.c
keyword required src/schema/validate.c
keyword enum src/schema/schema.c
END
"$FANOUT" help rules | awk 'NF && !/^A schema|^Levels/ { print $1 }' | sort -u >listed.txt
awk '$1 == "rule" { print $2 }' found.txt | sort -u >rules.txt
missing=$(comm -23 rules.txt listed.txt | tr '\n' ' ')
[ -z "$missing" ] || { echo "reported but not in fanout help rules (src/cmd/rules.c): $missing"; exit 1; }
awk '{ print $2 }' found.txt | sort -u >names.txt
printf 'steps: []\n' >p.yml
set --
while read -r name; do
    set -- "$@" --ignore "$name"
done <names.txt
"$FANOUT" render "$@" p.yml >/dev/null 2>err.txt || { cat err.txt; exit 1; }
