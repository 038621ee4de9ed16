#!/bin/sh
# Puts bench/out/table.md (written by `make bench`) and the machine line into README.md
# between the bench markers, so that the README's numbers are never typed by hand.
set -eu
table=bench/out/table.md
machine=bench/out/machine.txt
[ -f "$table" ] && [ -f "$machine" ] || { echo "run make bench first" >&2; exit 2; }
awk -v table="$table" -v machine="$machine" '
    /<!-- bench:start -->/ { print; getline m < machine; print ""; print "Measured by `make bench` (" m "):"; print "";
                             while ((getline l < table) > 0) print l; print ""; skip = 1; next }
    /<!-- bench:end -->/ { skip = 0 }
    !skip { print }' README.md >README.md.new
mv README.md.new README.md
