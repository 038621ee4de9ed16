# SIGINT or SIGTERM while render -o or check --write has its temporary file next to the
# target (issue 26): the temporary file goes, the target stays as it was, and fanout
# dies of the signal. The input is a FIFO whose writer holds it open, so the run is
# caught while it reads.
set -eu
for sig in TERM:15 INT:2; do
    num=${sig#*:} sig=${sig%:*}
    for cmd in render check; do
        rm -f f out.yml out.yml.fanout-*
        echo old >out.yml
        mkfifo f
        { printf 'steps:\n  - command: x\n'; sleep 30; } >f &
        writer=$!
        # a background job of a shell without job control ignores SIGINT: give it back
        if [ $cmd = render ]; then
            env --default-signal=INT "$FANOUT" render -o out.yml f 2>err.txt &
        else
            env --default-signal=INT "$FANOUT" check --write f --rendered out.yml 2>err.txt &
        fi
        pid=$!
        i=0
        while [ -z "$(ls | grep '^out\.yml\.fanout-' || true)" ]; do
            i=$((i + 1))
            [ $i -lt 500 ] || { echo "$cmd: no temporary file"; kill $pid $writer; exit 1; }
            sleep 0.02
        done
        # the read has begun: the FIFO's content is taken
        sleep 0.2
        kill -$sig $pid
        rc=0
        wait $pid || rc=$?
        kill $writer 2>/dev/null || true
        wait $writer 2>/dev/null || true
        want=$((128 + num))
        [ $rc = $want ] || { echo "$cmd $sig: exit $rc, expected $want"; cat err.txt; exit 1; }
        [ "$(cat out.yml)" = old ] || { echo "$cmd $sig: the target changed"; exit 1; }
        left=$(ls | grep '^out\.yml\.fanout-' || true)
        [ -z "$left" ] || { echo "$cmd $sig: left $left"; exit 1; }
    done
done
