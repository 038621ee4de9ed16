# bash completion for fanout                                   -*- shell-script -*-
#
# `make install` puts this file in $(PREFIX)/share/bash-completion/completions/fanout,
# where bash-completion loads it on the first `fanout <TAB>`; or `source` it from ~/.bashrc.
#
# The options of each command, and the values of those that take a fixed set
# (--format, --dialect, --platform, --color, --mirror-parallelism, --error-format), are
# read from `fanout COMMAND --help` at completion time, so they follow the binary being
# completed (the first word of the line: `fanout`, `./build/fanout`...): an option line
# of the help starts with spaces and `-`, names an argument after one space
# (`--output FILE`, `--color auto|always|never`) and a flag has none. Rule names for
# --ignore come from `fanout help rules`. Self-contained: bash-completion's helpers are
# not needed.

_fanout_commands=(render validate check diff expr jobs shards help)
_fanout_shards_commands=(check assign plan)

_fanout_schemas='buildkite buildkite-rendered rayci testarea github-workflow-v1 github-workflow json-schema-draft-07'

# _fanout_parse_help < HELP: one line per option line of a --help text,
# "NAME[ NAME...]<TAB>ARG" (ARG empty for a flag).
_fanout_parse_help() {
    local line rest name names arg
    while IFS= read -r line; do
        [[ $line =~ ^[[:space:]]+- ]] || continue
        rest=${line#"${line%%[![:space:]]*}"}
        names='' arg=''
        while [[ $rest == -* ]]; do
            name=${rest%%[ ,]*}
            names+="$name "
            rest=${rest#"$name"}
            if [[ $rest == ", -"* ]]; then
                rest=${rest#, }
                continue
            fi
            if [[ $rest == " "[![:space:]]* ]]; then
                rest=${rest# }
                arg=${rest%%[[:space:]]*}
            fi
            break
        done
        printf '%s\t%s\n' "${names% }" "$arg"
    done
}

# _fanout_options FANOUT COMMAND...: the option table of a command (see above).
_fanout_options() {
    local fanout=$1 table
    shift
    table=$("$fanout" "$@" --help 2>/dev/null </dev/null | _fanout_parse_help)
    printf '%s\n' "$table" '-h --help	'
}

# _fanout_arg TABLE OPTION: the argument OPTION takes (empty: a flag); status 1 when
# TABLE has no such option.
_fanout_arg() {
    local line names name
    while IFS= read -r line; do
        names=${line%%$'\t'*}
        for name in $names; do
            if [[ $name == "$2" ]]; then
                printf '%s' "${line#*$'\t'}"
                return 0
            fi
        done
    done <<<"$1"
    return 1
}

# _fanout_words: the words of the line as fanout sees them, into _fanout_w (array) and
# _fanout_i (the index of the word being completed). Bash splits `--format=json` and
# `pytest-shard@0.1.2` at `=`, `:` and `@` (COMP_WORDBREAKS); these pieces are joined
# again when COMP_LINE shows no blank between them.
_fanout_words() {
    local i w rest trimmed gap pos=0
    _fanout_w=() _fanout_i=-1
    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        w=${COMP_WORDS[i]}
        gap=1
        if [[ -n ${COMP_LINE-} ]]; then
            rest=${COMP_LINE:pos}
            trimmed=${rest#"${rest%%[![:space:]]*}"}
            gap=$((${#rest} - ${#trimmed}))
            pos=$((pos + gap + ${#w}))
        fi
        if ((i > 1 && gap == 0)) && [[ $w == [=:@]* || ${_fanout_w[${#_fanout_w[@]} - 1]} == *[=:@] ]]; then
            _fanout_w[${#_fanout_w[@]} - 1]+=$w
        else
            _fanout_w+=("$w")
        fi
        ((i == COMP_CWORD)) && _fanout_i=$((${#_fanout_w[@]} - 1))
        ((i >= COMP_CWORD)) && break
    done
    ((_fanout_i >= 0)) || { _fanout_w+=(''); _fanout_i=$((${#_fanout_w[@]} - 1)); }
}

# _fanout_reply FULL CUR WORD...: COMPREPLY from the WORDs that start with FULL (the
# whole word being completed), each cut to what replaces CUR (bash's last piece of it).
_fanout_reply() {
    local full=$1 cur=$2 lead w
    shift 2
    lead=${full%"$cur"}
    for w in "$@"; do
        [[ $w == "$full"* ]] && COMPREPLY+=("${w#"$lead"}")
    done
}

# _fanout_files FULL CUR [-d]: file (or directory) names; FULL may be `--opt=NAME`.
_fanout_files() {
    local lead='' name=$1 files=()
    if [[ $1 == --*=* ]]; then
        lead=${1%%=*}=
        name=${1#*=}
    fi
    compopt -o filenames 2>/dev/null
    mapfile -t files < <(compgen "${3:--f}" -- "$name")
    _fanout_reply "$1" "$2" "${files[@]/#/$lead}"
}

# _fanout_values FANOUT TABLE OPTION ARG FULL CUR [PREFIX]: the values of OPTION.
_fanout_values() {
    local fanout=$1 option=$3 arg=$4 full=$5 cur=$6 prefix=${7-} v values=() line
    case $option in
    --schema)
        _fanout_files "$full" "$cur"
        for v in $_fanout_schemas; do values+=("$prefix$v"); done
        _fanout_reply "$full" "$cur" "${values[@]}"
        return ;;
    --ignore)
        while IFS= read -r line; do
            [[ $line == usage:* || -z $line ]] && break
            [[ $line =~ ^([a-z][a-z0-9-]*)[[:space:]] ]] && values+=("$prefix${BASH_REMATCH[1]}")
        done < <("$fanout" help rules 2>/dev/null </dev/null)
        _fanout_reply "$full" "$cur" "${values[@]}"
        return ;;
    esac
    if [[ $arg =~ ^[a-z0-9@._-]+(\|[a-z0-9@._-]+)+$ ]]; then
        local IFS='|'
        for v in $arg; do values+=("$prefix$v"); done
        unset IFS
        _fanout_reply "$full" "$cur" "${values[@]}"
    elif [[ $arg == DIR* ]]; then
        _fanout_files "$full" "$cur" -d
    elif [[ $arg == *FILE* ]]; then
        _fanout_files "$full" "$cur"
    fi
}

_fanout() {
    local _fanout_w _fanout_i fanout cur full prev cmd=() i w table arg opts=() line name
    COMPREPLY=()
    _fanout_words
    cur=${COMP_WORDS[COMP_CWORD]}
    # readline completes the text after a word break: after `--format=` that is nothing
    [[ -n $cur && -z ${cur//[=:@]/} ]] && cur=''
    full=${_fanout_w[_fanout_i]}
    prev=''
    ((_fanout_i > 0)) && prev=${_fanout_w[_fanout_i - 1]}
    fanout=${_fanout_w[0]}
    # shellcheck disable=SC2088  # a literal ~ as typed
    [[ $fanout == "~/"* ]] && fanout=$HOME/${fanout#"~/"}
    command -v -- "$fanout" >/dev/null 2>&1 || fanout=fanout

    # the command: the first word that is no option, and for `shards` the next one
    for ((i = 1; i < _fanout_i; i++)); do
        w=${_fanout_w[i]}
        if ((${#cmd[@]} == 0)); then
            [[ $w == -* ]] && continue
            cmd=("$w")
            [[ $w == shards ]] || break
        else
            cmd+=("$w")
            break
        fi
    done
    if ((${#cmd[@]} == 0)); then
        if [[ $full == -* ]]; then
            _fanout_reply "$full" "$cur" --help --version
        else
            _fanout_reply "$full" "$cur" "${_fanout_commands[@]}"
        fi
        return 0
    fi
    case ${cmd[0]} in
    shards)
        if ((${#cmd[@]} == 1)); then
            _fanout_reply "$full" "$cur" "${_fanout_shards_commands[@]}"
            return 0
        fi ;;
    help)
        ((_fanout_i == 2)) && _fanout_reply "$full" "$cur" "${_fanout_commands[@]}" rules
        return 0 ;;
    render | validate | check | diff | expr | jobs) ;;
    *) return 0 ;;
    esac

    table=$(_fanout_options "$fanout" "${cmd[@]}")
    # --opt=VALUE
    if [[ $full == --*=* ]]; then
        if arg=$(_fanout_arg "$table" "${full%%=*}") && [[ -n $arg ]]; then
            _fanout_values "$fanout" "$table" "${full%%=*}" "$arg" "$full" "$cur" "${full%%=*}="
        fi
        return 0
    fi
    # the value of the option before
    if [[ $prev == -* ]] && arg=$(_fanout_arg "$table" "$prev") && [[ -n $arg ]]; then
        _fanout_values "$fanout" "$table" "$prev" "$arg" "$full" "$cur"
        return 0
    fi
    if [[ $full == -* ]]; then
        while IFS= read -r line; do
            for name in ${line%%$'\t'*}; do opts+=("$name"); done
        done <<<"$table"
        _fanout_reply "$full" "$cur" "${opts[@]}"
        return 0
    fi
    case "${cmd[*]}" in
    expr | "shards assign" | "shards plan") ;;   # an expression; no operands
    *) _fanout_files "$full" "$cur" ;;
    esac
    return 0
}

complete -F _fanout fanout
