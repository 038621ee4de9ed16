# -o: a regular file is replaced atomically (through a symlink: the link's target);
# anything else (a device, a FIFO, an open descriptor) is written through, never replaced.
set -eu
F="$ROOT/fixtures/basic-parallelism"
want="$F/expected.yaml"
# a symlink: its target gets the rendering, the link stays a link
echo old >real.yml
ln -s real.yml link.yml
"$FANOUT" render -o link.yml "$F/input.yaml"
[ -L link.yml ] || { echo "the symlink was replaced"; exit 1; }
cmp real.yml "$want"
# a dangling symlink: the file it names is created
ln -s made.yml dangling.yml
"$FANOUT" render -o dangling.yml "$F/input.yaml"
[ -L dangling.yml ] && cmp made.yml "$want"
# a FIFO: written through to its reader
mkfifo fifo
cat fifo >from-fifo.yml &
"$FANOUT" render -o fifo "$F/input.yaml"
wait
[ -p fifo ] || { echo "the FIFO was replaced"; exit 1; }
cmp from-fifo.yml "$want"
# /dev/stdout: the descriptor, not a file
"$FANOUT" render -o /dev/stdout "$F/input.yaml" | cmp - "$want"
"$FANOUT" render -o /dev/stdout "$F/input.yaml" >stdout.yml
cmp stdout.yml "$want"
# a symlink to /dev/null stays one, and so does /dev/null (when we may write it)
ln -s /dev/null null.yml
"$FANOUT" render -o null.yml "$F/input.yaml"
[ -L null.yml ] && [ -c /dev/null ]
# /dev/full: the write fails, exit 2, one message
rc=0
"$FANOUT" render -o /dev/full "$F/input.yaml" 2>err.txt || rc=$?
[ "$rc" = 2 ] || { echo "/dev/full: exit $rc"; exit 1; }
grep -q '^/dev/full: error: write error: No space left on device \[io\]$' err.txt
[ -c /dev/full ]
# a directory and a symlink loop are refused
mkdir dir
rc=0; "$FANOUT" render -o dir "$F/input.yaml" 2>err.txt || rc=$?
[ "$rc" = 2 ] && grep -q '^dir: error: cannot write: Is a directory \[io\]$' err.txt
ln -s l1 l2; ln -s l2 l1
rc=0; "$FANOUT" render -o l1 "$F/input.yaml" 2>err.txt || rc=$?
[ "$rc" = 2 ] && grep -q 'Too many levels of symbolic links' err.txt
# stdout closed: a write error, exit 2; a reader that goes away (| head): the end
# coreutils have, SIGPIPE (141 in a shell), quietly
rc=0; "$FANOUT" render "$F/input.yaml" >&- 2>err.txt || rc=$?
[ "$rc" = 2 ] && grep -q '^<stdout>: error: standard output was closed when fanout started \[io\]$' err.txt
awk 'BEGIN { print "steps:"; for (i = 0; i < 30000; i++) printf "  - command: step %d\n", i }' >big.yml
{ rc=0; "$FANOUT" render --no-validate big.yml 2>err.txt || rc=$?; echo $rc >rc.txt; } | head -c 1 >/dev/null
rc=$(cat rc.txt)
[ "$rc" = 141 ] || { echo "closed pipe: exit $rc"; exit 1; }
! grep -q "error" err.txt || { echo "closed pipe: an error message"; cat err.txt; exit 1; }
echo ok
