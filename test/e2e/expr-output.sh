# `fanout expr` prints a string value whole, as GitHub turns it into text: a NUL inside
# it is a byte of the output, not its end (issue 21).
set -eu
"$FANOUT" expr "fromJSON('\"a\\u0000b\"')" >out.bin
printf 'a\000b\n' | cmp - out.bin
"$FANOUT" expr "x\${{ fromJSON('\"\\u0000\"') }}y" >out.bin
printf 'x\000y\n' | cmp - out.bin
# JSON escapes it.
[ "$("$FANOUT" expr --format json "fromJSON('\"a\\u0000b\"')")" = '"a\u0000b"' ]
