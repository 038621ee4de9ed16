# Colour at a terminal unless NO_COLOR is set and not empty (no-color.org: "when present
# and not an empty string"); an empty NO_COLOR used to turn colour off for messages but
# not for `shards assign`. script(1) (util-linux, essential in Debian) gives fanout a
# terminal.
set -eu
esc=$(printf '\033')
printf 'steps:\n  - command: make\n    parallelism: 0\n' >bad.yml
printf 'a\nb\n' >ids.txt
term() { script -qec "$*" /dev/null; }
NO_COLOR= term "'$FANOUT' render bad.yml" >empty.txt || true
grep -q "$esc\[" empty.txt
NO_COLOR=1 term "'$FANOUT' render bad.yml" >set.txt || true
! grep -q "$esc" set.txt
grep -q 'error:' set.txt
NO_COLOR= term "'$FANOUT' shards assign -n 2 --tests ids.txt" >assign-empty.txt
NO_COLOR=1 term "'$FANOUT' shards assign -n 2 --tests ids.txt" >assign-set.txt
! grep -q "$esc" assign-set.txt
