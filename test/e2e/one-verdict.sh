# One verdict whatever the command (issue 22 item 7): an input with one problem gets the
# same exit code and names the same rule from render, validate, check and (for shard
# coverage) shards check; -q changes what is printed, never the exit code.
set -u
fails=0

# verdict NAME RULE WANT [options]: every command on NAME.yml exits WANT and names RULE.
verdict() {
    name=$1 rule=$2 want=$3
    shift 3
    : >"$name.rendered.yml"
    for cmd in render validate check; do
        case $cmd in
        check) "$FANOUT" check "$@" --rendered "$name.rendered.yml" "$name.yml" >out.txt 2>err.txt ;;
        *) "$FANOUT" $cmd "$@" "$name.yml" >out.txt 2>err.txt ;;
        esac
        rc=$?
        # check's stale rendering is exit 1 too: its verdict on the rules shows in what it says
        expect=$want
        [ "$cmd" = check ] && [ "$want" = 0 ] && expect=1
        if [ "$rc" != "$expect" ]; then
            echo "$name: $cmd $* exits $rc, render's verdict is $want"; fails=$((fails + 1))
        fi
        if [ -n "$rule" ] && ! grep -q "\[$rule\]" err.txt; then
            echo "$name: $cmd $* does not say [$rule]:"; head -5 err.txt; fails=$((fails + 1))
        fi
    done
    if [ "$rule" = shard-coverage ]; then
        "$FANOUT" shards check "$@" "$name.yml" >out.txt 2>err.txt
        rc=$?
        [ "$rc" = "$want" ] || { echo "$name: shards check exits $rc, expected $want"; fails=$((fails + 1)); }
    fi
}

printf 'steps:\n  - label: t\n    command: pytest --num-shards=4 --shard-id=$$BUILDKITE_PARALLEL_JOB\n    parallelism: 2\n' >coverage.yml
verdict coverage shard-coverage 1
verdict coverage shard-coverage 1 -q
cat >partition.yml <<'YML'
on: push
jobs:
  t:
    runs-on: x
    strategy:
      matrix:
        part: [0, 1]
    steps:
      - run: python3 run_suite.py --auto-partition-id ${{ matrix.part }} --auto-partition-size 3
YML
verdict partition shard-coverage 1
printf 'steps:\n  - command: make\n    labell: x\n' >unknown.yml
verdict unknown unknown-key 1
printf 'steps:\n  - command: make\n    depends_on: nowhere\n' >dangling.yml
verdict dangling dangling-depends-on 0
verdict dangling dangling-depends-on 1 --strict
verdict dangling "" 1 --strict -q
printf 'steps:\n  - command: make\n    key: a\n  - command: make\n    key: a\n' >collision.yml
verdict collision key-collision 1
printf 'steps: [\n' >broken.yml
verdict broken yaml 2

[ $fails = 0 ] || exit 1
