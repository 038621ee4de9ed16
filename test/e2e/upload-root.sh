# `pipeline upload PATH` is read from the checkout's root (the nearest directory holding
# .git): of two walked files ending in other.yml, the one at the root joins the uploader's
# build (a key collision), the other stays apart; with no checkout neither joins
# (fixtures/dir-upload-ambiguous).
set -eu
mkdir -p co/ci
printf 'steps:\n  - key: x\n    command: buildkite-agent pipeline upload other.yml\n' >co/ci/p1.yml
printf 'steps:\n  - key: x\n    command: echo root\n' >co/other.yml
printf 'steps:\n  - key: y\n    command: echo ci\n' >co/ci/other.yml
rc=0; "$FANOUT" validate co >/dev/null 2>err || rc=$?
[ "$rc" = 0 ] || { echo "no checkout: want rc 0, got $rc"; cat err; exit 1; }
mkdir co/.git
rc=0; "$FANOUT" validate co >/dev/null 2>err || rc=$?
[ "$rc" = 1 ] && grep -q "co/other.yml:2:10: error: key 'x' is already used by the step at co/ci/p1.yml:2:10 \[key-collision\]" err ||
    { echo "checkout: want the root's other.yml in p1.yml's build (rc 1), got $rc"; cat err; exit 1; }
