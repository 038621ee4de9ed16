# fanout diff --format json is what docs/diff.schema.json says, checked with fanout
# itself on the inputs of every diff fixture (each kind of change, compact lines, renames,
# workflows) and of issue 8's SGLang scenario; and the schema refuses what it must.
set -eu
S="$ROOT/docs/diff.schema.json"
n=0
for dir in "$ROOT"/fixtures/diff-*/ "$ROOT"/fixtures/gha-sglang-scenario/; do
    if [ -f "$dir/cmd" ]; then
        # shellcheck disable=SC2046  # the fixture's words
        set -- $(cat "$dir/cmd")
    else
        set -- diff before.yml after.yml
    fi
    [ "$1" = diff ] || continue
    shift
    # its options and operands, its own --format left out
    args=
    while [ $# -gt 0 ]; do
        case "$1" in
            --format) shift ;;
            *) args="$args $1" ;;
        esac
        shift
    done
    rc=0
    # shellcheck disable=SC2086  # a word list
    (cd "$dir" && "$FANOUT" diff --format json $args </dev/null) >out.json 2>/dev/null || rc=$?
    [ $rc != 2 ] || continue
    "$FANOUT" validate --schema "$S" out.json || { echo "$dir: its JSON does not match docs/diff.schema.json"; exit 1; }
    n=$((n + 1))
done
[ $n -ge 15 ] || { echo "only $n diffs checked"; exit 1; }

# A change without its line, a field change without a value, a count as a text: refused.
D="$ROOT/fixtures/diff-json-values"
"$FANOUT" diff --format json "$D/base.yaml" "$D/head.yaml" >good.json || [ $? = 1 ]
"$FANOUT" validate --schema "$S" good.json
for bad in 's/, "line": 5//' 's/"old": 10, "new": 20/"x": 1/' 's/"changed": 2,/"changed": "2",/'; do
    sed "$bad" good.json >bad.json
    ! cmp -s good.json bad.json || { echo "sed '$bad' changed nothing"; exit 1; }
    if "$FANOUT" validate --schema "$S" bad.json >/dev/null 2>&1; then
        echo "the schema accepts: sed '$bad'"
        exit 1
    fi
done
