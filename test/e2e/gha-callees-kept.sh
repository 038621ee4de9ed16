# Called workflows are kept as read for their next call (calls.c): at most 64, of files
# of at most 4 MiB together. 70 small callees put out the first six, and six of 900 KB
# put each other out by size; each called again after must render as at its first call,
# with the inputs of the new call. The expected rendering is written here, not by fanout.
set -eu
mkdir -p wf
callee() { # callee NAME PAD_BYTES
    {
        printf 'on:\n  workflow_call:\n    inputs:\n      n:\n        type: string\n'
        awk -v n="$2" 'BEGIN { for (i = 0; i < n; i += 80) printf "# %077d\n", i }'
        printf 'jobs:\n  %s:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo %s ${{ inputs.n }}\n' "$1" "$1"
    } >"wf/_$1.yml"
}
calls="" k=0
for i in $(seq 1 70); do callee "s$i" 0; calls="$calls s$i"; done
for i in $(seq 1 6); do callee "b$i" 900000; calls="$calls b$i"; done
calls="$calls s1 s6 s7 b1 b6 s1"
{
    printf 'on: pull_request\njobs:\n'
    for w in $calls; do
        k=$((k + 1))
        printf '  c%d:\n    uses: ./.github/workflows/_%s.yml\n    with:\n      n: call-%d\n' "$k" "$w" "$k"
    done
} >wf/pr.yml
k=0
{
    printf 'on: pull_request\njobs:\n'
    for w in $calls; do
        k=$((k + 1))
        printf '  c%d-%s:\n    name: c%d / %s\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo %s call-%d\n' \
            "$k" "$w" "$k" "$w" "$w" "$k"
    done
} >expected.yml
# the callees are inputs too (only they are inlined): the caller is the first document
"$FANOUT" render wf/pr.yml wf/_*.yml >got.yml 2>err.txt
[ ! -s err.txt ]
awk '/^---$/ { exit } { print }' got.yml | cmp expected.yml -
