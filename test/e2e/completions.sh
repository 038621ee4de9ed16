# The shell completions (completions/): the bash one parses, and its _fanout, driven
# with COMP_WORDS/COMP_CWORD/COMP_LINE as bash drives it, completes commands, each
# command's own options (read from the binary's --help), fixed option values and files;
# the zsh one parses and builds _arguments specs from the same help (zsh installed:
# otherwise that part is skipped, with a message).
set -eu
command -v bash >/dev/null 2>&1 || { echo "bash is not installed; completion test skipped"; exit 77; }
bash -n "$ROOT/completions/fanout.bash"

mkdir -p work/dir bin
: >work/pipeline.yml
: >work/other.yaml
ln -s "$FANOUT" bin/fanout

cat >drive.bash <<'EOF'
set -u
. "$ROOT/completions/fanout.bash"
complete -p fanout | grep -q -- '-F _fanout fanout' || { echo "not registered"; exit 1; }
fail=0
# t 'EXPECTED REPLIES' WORD... : complete the last WORD (bash's words: `--format=x` is
# three of them, `--format` `=` `x`); the line is the words joined, glued at = and @.
t() {
    local want=$1 line='' w prev=''
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    for w in "$@"; do
        if [[ -z $line ]]; then line=$w
        elif [[ $w == [=@]* || $prev == *[=@] ]]; then line+=$w
        else line+=" $w"; fi
        prev=$w
    done
    COMP_LINE=$line
    COMP_POINT=${#line}
    COMPREPLY=()
    _fanout
    [[ $want == __none__ ]] && return 0
    local got
    got=$(printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\n' ' ')
    want=$(printf '%s\n' $want | LC_ALL=C sort | tr '\n' ' ')
    if [[ $got != "$want" ]]; then
        echo "FAIL: '$line<TAB>': got [$got], want [$want]"
        fail=1
    fi
}
# has 'WORD' WORD... : like t, but WORD is one of the replies (and `lacks`: is not)
has() {
    local want=$1
    shift
    t __none__ "$@"
    printf '%s\n' "${COMPREPLY[@]}" | grep -qxF -- "$want" || { echo "FAIL: '${*}<TAB>' lacks $want: [${COMPREPLY[*]}]"; fail=1; }
}
lacks() {
    local want=$1
    shift
    t __none__ "$@"
    if printf '%s\n' "${COMPREPLY[@]}" | grep -qxF -- "$want"; then echo "FAIL: '${*}<TAB>' offers $want"; fail=1; fi
}
F=$FANOUT
cd work

t 'render' "$F" re
t 'render validate check diff expr jobs shards help' "$F" ''
t '--help --version' "$F" --
t 'check assign plan' "$F" shards ''
t 'assign' "$F" shards as
t '--platform' "$F" render --pl
t '--exit-zero' "$F" diff --exit
t 'text json github markdown sarif' "$F" diff --format ''
t 'yaml json' "$F" render --format ''
t 'yaml json' "$F" render -f ''
t 'text json markdown' "$F" shards assign --format ''
t 'text json markdown tsv' "$F" jobs --format ''
t 'pipeline.yml' "$F" jobs --strict pip
t 'markdown' "$F" diff --format = ma
t 'text json github markdown sarif' "$F" diff --format =
t 'auto buildkite testarea rayci gha' "$F" render --dialect ''
t 'all nvidia amd' "$F" check --platform ''
t 'auto always never' "$F" validate --color ''
t 'own inherit' "$F" diff --mirror-parallelism ''
t 'text github json sarif' "$F" validate --error-format ''
t 'inherit' "$F" diff --no-validate --mirror-parallelism own --mirror-parallelism i
t '0.1.2 0.1.1' "$F" shards assign --algo pytest-shard @
t 'pipeline.yml' "$F" render --upload pip
t 'pipeline.yml' "$F" render --output pip
t 'pipeline.yml' "$F" render --output = pip
t 'dir' "$F" diff d
t '' "$F" expr ''
t '' "$F" render --input ''
t 'render validate check diff expr jobs shards help rules' "$F" help ''
# each command's own options, as its --help lists them
has --upload "$F" render --
lacks --exit-zero "$F" render --
has --exit-zero "$F" diff --
has --ignore-field "$F" diff --
lacks --upload "$F" validate --
has --schema "$F" validate --
has --write "$F" check --
has --matrix "$F" expr --
has --help "$F" shards plan --
has --tests "$F" shards assign --
has -n "$F" shards plan -
has buildkite-rendered "$F" validate --schema ''
has pipeline.yml "$F" validate --schema ''
# options before a file, and the binary found on PATH
t '--platform' fanout render pipeline.yml --pl
t 'gha' fanout render --strict --dialect g
# rule names for --ignore, when the binary lists them (`fanout help rules`)
if "$F" help rules 2>/dev/null | grep -q '^dangling-depends-on '; then
    t 'dangling-depends-on' "$F" render --ignore dangl
fi
exit $fail
EOF
PATH="$PWD/bin:$PATH" ROOT="$ROOT" FANOUT="$FANOUT" bash drive.bash

if ! command -v zsh >/dev/null 2>&1; then
    echo "zsh is not installed: the zsh completion was not checked (bash: ok)"
    exit 0
fi
zsh -n "$ROOT/completions/_fanout"
# _fanout with the completion system's functions stubbed: what it hands to _arguments.
cat >drive.zsh <<'EOF'
setopt extendedglob
_arguments() { print -rl -- "$@" }
_describe() { print -rl -- "${(@P)argv[-1]}" }
_wanted() { # TAG EXPL DESCR compadd [-a ARRAY] [-- WORD...]: the words
    shift 4
    while (( $# )); do
        case $1 in
            -a) print -rl -- "${(@P)2}"; shift 2 ;;
            --) shift; print -rl -- "$@"; return ;;
            *) shift ;;
        esac
    done
}
. "$ROOT/completions/_fanout" || :
complete() { words=("$@"); CURRENT=$#; _fanout }
setopt errexit
F=$FANOUT
complete "$F" '' | grep -q '^render:'
complete "$F" '' | grep -q '^jobs:'
complete "$F" jobs '' | grep -q '^\*--format=\[.*\]:[^:]*:(text json markdown tsv)$'
complete "$F" shards '' | grep -q '^assign:'
complete "$F" diff --format '' >diff.specs
grep -qxF '*--format=[output format (default text)]:format:(text json github markdown sarif)' diff.specs
grep -qxF '*-f+[output format (default text)]:format:(text json github markdown sarif)' diff.specs
grep -qxF -- '--exit-zero[exit 0 when the renderings differ (errors still exit 2)]' diff.specs
grep -qxF '*:input file or directory:_files' diff.specs
complete "$F" render '' >render.specs
grep -q '^\*--dialect=\[.*\]:dialect:(auto buildkite testarea rayci gha)$' render.specs
grep -q '^\*--platform=\[.*\]:[^:]*:(all nvidia amd)$' render.specs
grep -q '^\*--color=\[.*\]:[^:]*:(auto always never)$' render.specs
grep -q '^\*--mirror-parallelism=\[.*\]:[^:]*:(own inherit)$' render.specs
grep -q '^\*--error-format=\[.*\]:[^:]*:(text github json sarif)$' render.specs
grep -q '^\*--output=\[.*\]:file:_files$' render.specs
grep -q '^(-q --quiet)--quiet\[' render.specs
# a description whole, over its continuation lines, its colons kept (issue 24)
grep -qxF -- '--upload[for `buildkite-agent pipeline upload`: keep $$BUILDKITE_PARALLEL_JOB references (env carries the values); test-area input: the working directory as a leading cd, fields only the generator reads dropped]' render.specs
if grep -q -- '--exit-zero' render.specs; then exit 1; fi
complete "$F" validate '' | grep -q '^\*--schema=\[.*\]:[^:]*:_fanout_schema$'
complete "$F" render '' | grep -q '^\*--ignore=\[.*\]:[^:]*:_fanout_rules$'
if "$F" help rules 2>/dev/null | grep -q '^dangling-depends-on '; then
    _fanout_rules | grep -qxF dangling-depends-on
fi
complete "$F" expr '' | grep -qxF '1:expression: '
complete "$F" shards assign '' >assign.specs
grep -q '^\*--algo=\[.*\]:[^:]*:(pytest-shard@0.1.2 pytest-shard@0.1.1 .*round-robin)$' assign.specs
grep -q '^\*--tests=\[.*\]:file:_files$' assign.specs
[ "$(grep -c -- '--tests=' assign.specs)" = 1 ]
EOF
ROOT="$ROOT" FANOUT="$FANOUT" zsh -f drive.zsh || { echo "zsh completion: a check failed"; exit 1; }
echo "completions: bash and zsh ok"
