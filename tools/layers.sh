#!/bin/sh
# layers.sh [ROOT]: checks that fanout's tree keeps its layers (`make layers`, run by
# `make test`):
#  - every `#include "..."` of src/ and include/fanout/ is an edge tools/layers.txt allows
#    (a folder to itself, or to a folder its line names); a private header ("name.h") is
#    its own folder's, so no file elsewhere can include a dialect's private header;
#  - no header includes itself through others, and the allowed edges have no cycle;
#  - docs/design.md's module table names every module (src/<folder>/<module>.c, a
#    `prefix` standing for prefix_*.c) in its folder's rows, and no module that is gone.
# Prints each problem and exits 1 when there is one.
set -eu
cd "${1:-.}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

find src -name '*.c' | sort >"$tmp/modules"
find src include/fanout -name '*.[ch]' -o -name '*.def' | sort >"$tmp/files"
# "file included" pairs, as written
while read -r f; do
    sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" | sed "s|^|$f |"
done <"$tmp/files" >"$tmp/includes"

awk -v tmp="$tmp" '
FILENAME == ARGV[1] {                    # tools/layers.txt
    sub(/#.*/, "")
    if ($1 == "header") { header[$2] = $3; next }
    if (!NF) next
    folder = $1; sub(/:$/, "", folder)
    known[folder] = 1
    for (i = 2; i <= NF; i++) {
        allowed[folder, $i] = 1
        print folder, $i >(tmp "/allowed-edges")
    }
    next
}
FILENAME == ARGV[2] {                    # the modules: src/<folder>/<name>.c
    folder = $0; sub(/^src\//, "", folder); sub(/\/[^\/]*$/, "", folder)
    name = $0; sub(/.*\//, "", name); sub(/\.c$/, "", name)
    module[name] = folder
    prefix = name; sub(/_.*/, "", prefix)
    if (prefix != name) module_prefix[prefix] = folder
    next
}
{                                        # "file included"
    pairs[++n] = $0
}
END {
    close(tmp "/allowed-edges")
    for (i = 1; i <= n; i++) {
        split(pairs[i], w, " ")
        from = folder_of(w[1])
        if (w[2] ~ /^fanout\//) {
            target = "include/" w[2]
            to = folder_of(target)
        } else if (w[2] ~ /\//) {
            problem(w[1] ": includes \"" w[2] "\": a header is fanout/NAME.h or a private one of its own folder")
            continue
        } else {
            target = w[1]; sub(/[^\/]*$/, "", target); target = target w[2]
            to = folder_of(w[1])
            if ((getline line <target) < 0) {
                problem(w[1] ": includes \"" w[2] "\", which is no header of its own folder")
                continue
            }
            close(target)
        }
        print w[1], target >(tmp "/file-edges")
        if (from == "" || to == "")
            continue
        if (!(from in known))
            problem(w[1] ": src/" from " is no folder of tools/layers.txt")
        else if (from != to && !((from, to) in allowed))
            problem(w[1] ": includes " w[2] " (" from " -> " to ", which tools/layers.txt does not allow)")
    }
    close(tmp "/file-edges")
    exit bad
}
# The folder a file belongs to ("" after reporting that it belongs to none).
function folder_of(f,   name) {
    if (f ~ /^src\//) {
        sub(/^src\//, "", f); sub(/\/[^\/]*$/, "", f)
        return f
    }
    name = f; sub(/.*\//, "", name); sub(/\.(h|def)$/, "", name)
    if (name in module) return module[name]
    if (name in module_prefix) return module_prefix[name]
    if (name in header) return header[name]
    problem(f ": no module src/**/" name ".c (nor a `header` line in tools/layers.txt)")
    return ""
}
function problem(msg) {
    if (!(msg in said)) print "layers: " msg
    said[msg] = 1
    bad = 1
}
' tools/layers.txt "$tmp/modules" "$tmp/includes" || fail=1

if ! tsort "$tmp/allowed-edges" >/dev/null 2>"$tmp/err"; then
    echo "layers: the edges of tools/layers.txt have a cycle:"; cat "$tmp/err"; fail=1
fi
if ! tsort "$tmp/file-edges" >/dev/null 2>"$tmp/err"; then
    echo "layers: headers include each other in a cycle:"; cat "$tmp/err"; fail=1
fi

# docs/design.md's module table: `| layer | module | job |` rows, the layer cell empty
# when it is the row above's.
awk -v modules="$tmp/modules" '
/^\| layer/ { table = 1; next }
table && /^\| *---/ { next }
table && !/^\|/ { table = 0 }
table {
    split($0, cell, "|")
    layer = cell[2]; gsub(/[ `]/, "", layer)
    if (layer != "") current = layer
    rest = cell[3]
    while (match(rest, /`[^`]*`/)) {
        name = substr(rest, RSTART + 1, RLENGTH - 2)
        rest = substr(rest, RSTART + RLENGTH)
        sub(/<[^>]*>$/, "", name)        # cmd_<name>: every cmd_*.c
        listed[current, name] = 1
        row[++n] = current SUBSEP name
    }
}
END {
    while ((getline f <modules) > 0) {
        folder = f; sub(/^src\//, "", folder); sub(/\/[^\/]*$/, "", folder)
        name = f; sub(/.*\//, "", name); sub(/\.c$/, "", name)
        prefix = name; sub(/_.*/, "", prefix)
        if ((folder, name) in listed || (folder, prefix) in listed || (folder, prefix "_") in listed)
            found[folder, name] = found[folder, prefix] = found[folder, prefix "_"] = 1
        else {
            print "layers: docs/design.md: no row for " f " (module `" name "` in layer `" folder "`)"
            bad = 1
        }
    }
    for (i = 1; i <= n; i++) {
        split(row[i], p, SUBSEP)
        if (!(row[i] in found) && system("test -f include/fanout/" p[2] ".h") != 0) {
            print "layers: docs/design.md: module `" p[2] "` in layer `" p[1] "` has no src/" p[1] "/" p[2] ".c"
            bad = 1
        }
    }
    exit bad
}
' docs/design.md || fail=1

[ -z "${fail:-}" ] || exit 1
echo "layers: ok ($(wc -l <"$tmp/files") files, $(wc -l <"$tmp/includes") includes)"
