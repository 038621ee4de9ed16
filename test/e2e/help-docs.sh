# `fanout --help`, each command's --help, fanout.1 and docs/reference.md list the same
# options, format values and exit codes (so that a new option cannot be documented in one
# place only): each option a command's --help lists has an entry in fanout.1's OPTIONS and
# is named in reference.md; each option those entries name is one a command takes.
set -eu
MAN="$ROOT/docs/fanout.1"
REF="$ROOT/docs/reference.md"
fail=0
commands="render validate check diff expr jobs shards_check shards_assign shards_plan"

# The long options of each command's --help (an option line starts with blanks, then
# `-x, --name` or `--name`).
: >help.all
for c in $commands; do
    # shellcheck disable=SC2046  # shards_check -> shards check, on purpose
    "$FANOUT" $(echo "$c" | tr _ ' ') --help >"help.$c"
    grep -E '^ +(-[a-zA-Z], )?--[a-z]' "help.$c" | sed -E 's/^ +(-[a-zA-Z], )?(--[a-z][a-z-]*).*/\2/' |
        sort -u >"opts.$c"
    cat "opts.$c" >>help.all
    # the usage line of `fanout --help` is the command's own
    usage=$(sed -n 1p "help.$c" | sed 's/^usage: //')
    "$FANOUT" --help | sed 's/^usage: //; s/^       //' | grep -qxF "$usage" ||
        { echo "fanout --help has not the usage line of $c: $usage"; fail=1; }
    # every command states the same exit status
    grep -qxF 'Exit status: 0 ok, 1 findings, 2 usage, input or I/O error (fanout(1)).' "help.$c" ||
        { echo "$c --help: no or another exit status line"; fail=1; }
done
sort -u help.all -o help.all

# fanout.1: the options its OPTIONS entries (.TP, then a .B/.BR/.BI line) name.
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$MAN" | awk 'prev == ".TP" { print } { prev = $0 }' |
    sed 's/\\-/-/g' | grep -oE -- '--[a-z][a-z-]+' | grep -vx -- '--help' | sort -u >man.all
comm -23 help.all man.all >missing.txt
[ ! -s missing.txt ] || { echo "in --help, no entry in fanout.1 OPTIONS:"; cat missing.txt; fail=1; }
comm -13 help.all man.all >extra.txt
[ ! -s extra.txt ] || { echo "fanout.1 OPTIONS entries no command takes:"; cat extra.txt; fail=1; }

# reference.md: every option a command takes is named; every option of its tables is taken.
for o in $(cat help.all); do
    grep -qE -- "$o([^a-z-]|\$)" "$REF" || { echo "in --help, not in reference.md: $o"; fail=1; }
done
grep -E '^\| `-' "$REF" | sed 's/\\|/ /g' | cut -d'|' -f2 | grep -oE -- '--[a-z][a-z-]+' |
    grep -vx -- '--help' | sort -u >ref.opts
comm -13 help.all ref.opts >extra.txt
[ ! -s extra.txt ] || { echo "reference.md option rows no command takes:"; cat extra.txt; fail=1; }

# --format: each command's values (from its --help) are those its synopsis shows in
# fanout.1 and reference.md, and fanout.1's -f entries name them all.
for c in diff jobs; do
    v=$(grep -oE -- '--format [a-z|]+' "help.$c" | head -1 | cut -d' ' -f2)
    sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$MAN" | sed 's/\\f[BIR]//g; s/\\-/-/g' |
        grep -A1 -E "^\.B fanout $c\$" | grep -qF -- "--format $v]" ||
        { echo "fanout.1 SYNOPSIS: $c --format is not $v"; fail=1; }
    sed -n '/^## Synopsis/,/^## /p' "$REF" | grep -qF -- "--format $v]" ||
        { echo "reference.md Synopsis: $c --format is not $v"; fail=1; }
done
grep -hoE -- '--format [a-z|]+' help.* | cut -d' ' -f2 | tr '|' '\n' | sort -u >formats.help
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$MAN" | grep -E '^\.BR -f' | tr -d '"' |
    sed -E 's/.*--format//' | tr ' |' '\n\n' | grep . | sort -u >formats.man
comm -23 formats.help formats.man >missing.txt
[ ! -s missing.txt ] || { echo "--format values missing from fanout.1's -f entries:"; cat missing.txt; fail=1; }

# Exit status: 0, 1 and 2 in fanout.1 and reference.md, nothing else.
sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$MAN" | grep -E '^\.B [0-9]+$' | cut -d' ' -f2 | tr '\n' ' ' >man.codes
[ "$(cat man.codes)" = "0 1 2 " ] || { echo "fanout.1 EXIT STATUS codes: $(cat man.codes)"; fail=1; }
sed -n '/^## Exit status/,/^## /p' "$REF" | grep -oE '^\| [0-9]+ ' | tr -d '| ' | tr '\n' ' ' >ref.codes
[ "$(cat ref.codes)" = "0 1 2 " ] || { echo "reference.md Exit status codes: $(cat ref.codes)"; fail=1; }
exit $fail
