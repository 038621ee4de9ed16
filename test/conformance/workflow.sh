#!/bin/sh
# `fanout validate` against GitHub's own workflow parser (@actions/workflow-parser, version
# pinned by workflow/package-lock.json; workflow/oracle.mjs says what is compared):
#  1. the hand-made cases of workflow/cases/ (one per schema construct and context rule),
#     each with the parser's verdict recorded in its first line: fanout's exit status must
#     agree (run without node too);
#  2. with node: the parser reads the cases again (a recorded verdict that no longer holds
#     fails), every workflow of ../shared/corpus/realworld (MANIFEST kind gha),
#     ../shared/corpus/sglang and SchemaStore's workflow tests: fanout accepts exactly the
#     files the parser accepts; so it does on 1,000 workflows generated from the schema
#     (workflow/gen.mjs, seeded; the schema check alone); fanout's `cron` finding agrees
#     with the language service's isValidCron on 3,000 random crons (workflow/cron.mjs);
#     and the parser accepts every rendering fanout writes.
# A disagreement listed in workflow/known-disagreements.tsv (path, reason) is shown, not
# failed; a listed one that agrees again is pointed out. Usage: workflow.sh PATH/TO/fanout
# The package is installed into build/npm/workflow-parser (WORKFLOW_NPM_DIR) when missing.
set -eu
fanout=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
corpus=$root/../shared/corpus
npm_dir=${WORKFLOW_NPM_DIR:-$root/build/npm/workflow-parser}
known=$here/workflow/known-disagreements.tsv
want=$(sed -n 's/.*"@actions\/workflow-parser": "\(.*\)".*/\1/p' "$here/workflow/package.json")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# accepts or rejects, as `fanout validate` exits; `crashed` for any other status (a
# sanitizer's report, a signal)
fanout_verdict() {
    rc=0
    "$fanout" validate "$1" >/dev/null 2>&1 || rc=$?
    case $rc in 0) echo accepts ;; 1 | 2) echo rejects ;; *) echo "crashed($rc)" ;; esac
}

# Compares fanout with GitHub on each "NAME<TAB>FILE<TAB>GITHUB-VERDICT" line of $1 (NAME:
# the path under the corpus, or cases/FILE), disagreements to stderr; prints the tally
# "agree known failed".
compare() {
    while IFS='	' read -r name file github; do
        printf '%s\t%s\t%s\n' "$name" "${github%% *}" "$(fanout_verdict "$file")"
    done <"$1" |
        awk -F '\t' -v known="$known" '
            BEGIN { while ((getline line <known) > 0) { split(line, f, "\t"); reason[f[1]] = f[2] } }
            $3 ~ /^crashed/ { print "  " $1 ": fanout " $3 >"/dev/stderr"; bad++; next }
            $2 == $3 { agree++; if ($1 in reason) print "  " $1 ": agrees now; remove it from the known list" >"/dev/stderr"; next }
            $1 in reason { listed++; next }
            { print "  " $1 ": GitHub " $2 ", fanout " $3 >"/dev/stderr"; bad++ }
            END { print agree + 0, listed + 0, bad + 0 }'
}

# 1. the cases as recorded
for f in "$here"/workflow/cases/*.yml; do
    printf 'cases/%s\t%s\t%s\n' "$(basename "$f")" "$f" "$(sed -n '1s/^# github: //p' "$f")"
done >"$tmp/cases.tsv"
set -- $(compare "$tmp/cases.tsv")
[ "$3" = 0 ] || failed=1
echo "workflow conformance: $1 of $(wc -l <"$tmp/cases.tsv") hand-made cases as GitHub's parser decided ($2 known disagreements)"

. "$here/npm.sh"
npm_pinned "workflow conformance: GitHub's parser" "$here/workflow" "$npm_dir" || exit "$failed"
oracle() {
    node "$here/workflow/oracle.mjs" "$npm_dir"
}

# 2a. the recorded verdicts still hold
cut -f2 "$tmp/cases.tsv" | oracle | paste "$tmp/cases.tsv" - |
    awk -F '\t' '$3 != $4 { print "  " $1 ": recorded \"" $3 "\", the parser says \"" $4 "\""; n++ }
                 END { exit n > 0 }' >&2 || failed=1

# 2b. the corpus
{
    awk '$4 == "gha" { r = $1; sub("/", "+", r); print "realworld/" r "/" $3 }' "$corpus/realworld/MANIFEST"
    (cd "$corpus" && ls sglang/workflows/*.yml schemastore-github-workflow-tests/src/test/github-workflow/*.yaml \
        schemastore-github-workflow-tests/src/negative_test/github-workflow/*.yaml)
} >"$tmp/names"
sed "s|^|$corpus/|" "$tmp/names" >"$tmp/files"
oracle <"$tmp/files" >"$tmp/corpus.github"
paste "$tmp/names" "$tmp/files" "$tmp/corpus.github" >"$tmp/corpus.tsv"
set -- $(compare "$tmp/corpus.tsv")
[ "$3" = 0 ] || failed=1
echo "workflow conformance: fanout validate and GitHub's parser $want agree on $1 of $(wc -l <"$tmp/corpus.tsv") real workflows ($2 known disagreements)"

# 2c. generated workflows, against the schema alone, all in one run of fanout
mkdir "$tmp/gen"
node "$here/workflow/gen.mjs" "$root/schemas/github-workflow-v1.json" "$tmp/gen" "${WORKFLOW_GENERATED:-1000}" 1
ls "$tmp"/gen/*.yml >"$tmp/gen.files"
rc=0
"$fanout" validate --dialect gha --schema github-workflow-v1 --no-snippet $(cat "$tmp/gen.files") \
    >/dev/null 2>"$tmp/gen.err" || rc=$?
[ "$rc" -le 2 ] || { echo "  fanout validate of the generated workflows: exit $rc" >&2; tail -5 "$tmp/gen.err" >&2; failed=1; }
awk -F : '/: error: / { print $1 }' "$tmp/gen.err" | sort -u >"$tmp/gen.rejected"
oracle <"$tmp/gen.files" | paste "$tmp/gen.files" - |
    awk -F '\t' -v rejected="$tmp/gen.rejected" '
        BEGIN { while ((getline f <rejected) > 0) no[f] = 1 }
        { github = substr($2, 1, 7); fanout = ($1 in no) ? "rejects" : "accepts"; n++
          if (github == fanout) { agree++; if (fanout == "accepts") ok++ } else print "  " $1 ": GitHub " $2 ", fanout " fanout >"/dev/stderr" }
        END { printf "workflow conformance: %d of %d generated workflows agree (%d accepted by both)\n", agree, n, ok
              exit agree != n }' || failed=1

# 2d. crons: fanout's `cron` finding against GitHub's language service's isValidCron, on
# random crons (workflow/cron.mjs, seeded), all in one run of fanout
mkdir "$tmp/cron"
node "$here/workflow/cron.mjs" "$npm_dir" "$tmp/cron" "${WORKFLOW_CRONS:-3000}" 1
rc=0
"$fanout" validate --no-snippet "$tmp"/cron/*.yml >/dev/null 2>"$tmp/cron.err" || rc=$?
[ "$rc" -le 2 ] || { echo "  fanout validate of the crons: exit $rc" >&2; tail -5 "$tmp/cron.err" >&2; failed=1; }
awk -F : '/\[cron\]$/ { print $1 }' "$tmp/cron.err" | sort -u >"$tmp/cron.rejected"
awk -F '\t' -v rejected="$tmp/cron.rejected" '
    BEGIN { while ((getline f <rejected) > 0) no[f] = 1 }
    { fanout = ($1 in no) ? "invalid" : "valid"; n++; if ($2 == "valid") valid++
      if (fanout == $2) agree++; else print "  " $1 ": GitHub " $2 ", fanout " fanout >"/dev/stderr" }
    END { printf "workflow conformance: %d of %d crons as GitHub'"'"'s language service reads them (%d valid)\n", agree, n, valid
          exit agree != n }' "$tmp/cron/cron.tsv" || failed=1

# 2e. GitHub's parser accepts what fanout renders
n=0
: >"$tmp/renderings"
while IFS='	' read -r name file github; do
    n=$((n + 1))
    rc=0
    "$fanout" render "$file" -o "$tmp/r$n.yml" >/dev/null 2>&1 || rc=$?
    case $rc in
    0) printf '%s\t%s\n' "$name" "$tmp/r$n.yml" >>"$tmp/renderings" ;;
    1 | 2) ;;
    *) echo "  fanout render $name: exit $rc" >&2; failed=1 ;;
    esac
done <"$tmp/corpus.tsv"
cut -f2 "$tmp/renderings" | oracle | paste "$tmp/renderings" - >"$tmp/rendered.tsv"
awk -F '\t' '$3 != "accepts" { print "  the rendering of " $1 ": " $3; n++ } END { exit n > 0 }' \
    "$tmp/rendered.tsv" >&2 || failed=1
echo "workflow conformance: GitHub's parser accepts $(grep -c '	accepts$' "$tmp/rendered.tsv") of $(wc -l <"$tmp/rendered.tsv") renderings"
exit "$failed"
