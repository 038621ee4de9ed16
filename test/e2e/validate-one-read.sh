# validate checks the schema in render's read of the input (validate_along): the schema's
# findings come after every finding of render (whose key problems are only known at the
# end of the input), whether they are held (a few) or, past VALIDATE_ALONG_BUDGET, found
# again by a read of their own (many); the same lines either way.
set -eu
gen() { # gen N: a step whose depends_on no step defines, then N steps whose key the schema refuses
    awk -v n="$1" 'BEGIN {
        print "steps:"
        print "  - command: first\n    depends_on: nowhere"
        for (i = 0; i < n; i++)
            printf "  - command: run %d\n    key: \"bad key %d\"\n", i, i
    }'
}
for n in 20 20000; do
    gen "$n" >in-$n.yml
    set +e
    "$FANOUT" validate --error-format json in-$n.yml 2>err-$n.txt
    rc=$?
    set -e
    [ $rc = 1 ]
    grep -q '"rule":"dangling-depends-on"' err-$n.txt
    # no finding of render after the schema's first
    awk '/"rule":"pattern"/ { schema = 1; next } schema { exit 1 }' err-$n.txt
    [ "$(grep -c '"rule":"pattern"' err-$n.txt)" = "$n" ]
    tail -n 1 err-$n.txt | grep -q "/steps/$n/key: must match"
done
