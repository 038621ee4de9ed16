# `fanout expr` prints a string value whole, as GitHub turns it into text: a NUL inside
# it is a byte of the output, not its end (issue 21).
set -eu
"$FANOUT" expr "fromJSON('\"a\\u0000b\"')" >out.bin
printf 'a\000b\n' | cmp - out.bin
"$FANOUT" expr "x\${{ fromJSON('\"\\u0000\"') }}y" >out.bin
printf 'x\000y\n' | cmp - out.bin
# JSON escapes it.
[ "$("$FANOUT" expr --format json "fromJSON('\"a\\u0000b\"')")" = '"a\u0000b"' ]
# --format json prints a value GitHub holds whatever its length: 3 x 400,000 characters
# is past what one evaluation may make, but no evaluation makes it here.
s=$(head -c 400000 /dev/zero | tr '\0' x)
printf '{"matrix": {"arr": ["%s", "%s", "%s"]}}\n' "$s" "$s" "$s" >big.json
"$FANOUT" expr --format json --contexts big.json 'matrix.arr' >out.json
[ "$(wc -c <out.json)" -gt 1200000 ]
# toJSON past the runner's memory cap is an expression error.
set +e
"$FANOUT" expr --contexts big.json 'toJSON(matrix.arr)' >/dev/null 2>err.txt
rc=$?
set -e
[ $rc = 2 ]
grep -q 'error: The maximum allowed memory size was exceeded while evaluating toJSON' err.txt
