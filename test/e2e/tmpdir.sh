# Temporary files (a piped input's copy, render's spool, diff's records, sort runs) go
# in $TMPDIR, as sort(1) and git put theirs (glibc's tmpfile() ignores it and writes in
# /tmp, which a runner may keep small): with TMPDIR naming no directory, a run that needs
# one fails naming it, exit 2, nothing written; with TMPDIR a directory it works.
set -eu
mkdir scratch
printf 'steps:\n  - command: make\n    parallelism: 2\n' >p.yml
printf 'steps:\n  - command: make\n    parallelism: 3\n' >q.yml
"$FANOUT" render p.yml >want.yml
TMPDIR=$PWD/scratch "$FANOUT" render - <p.yml >out.yml
cmp want.yml out.yml
set +e
TMPDIR=$PWD/none "$FANOUT" render - <p.yml >out2.yml 2>err.txt
rc=$?
set -e
[ "$rc" = 2 ]
[ ! -s out2.yml ]
grep -q "^<stdin>: error: cannot create a temporary file in $PWD/none: No such file or directory \[io\]$" err.txt
set +e
TMPDIR=$PWD/none "$FANOUT" render -o out3.yml p.yml q.yml 2>err.txt
rc=$?
set -e
[ "$rc" = 2 ]
[ ! -e out3.yml ]
grep -q "cannot create a temporary file in $PWD/none \[io\]$" err.txt
set +e
TMPDIR=$PWD/none "$FANOUT" diff p.yml q.yml >/dev/null 2>err.txt
rc=$?
set -e
[ "$rc" = 2 ]
grep -q "^fanout: error: cannot create a temporary file in $PWD/none: No such file or directory \[io\]$" err.txt
# diff --base: git's output goes through temporary files too (it said "cannot run git")
mkdir repo
cp p.yml repo/
(cd repo && git init -q && git add p.yml && git -c user.name=t -c user.email=t@t commit -qm p && cp ../q.yml p.yml)
set +e
(cd repo && TMPDIR=$PWD/../none "$FANOUT" diff --base HEAD p.yml >/dev/null 2>../err.txt)
rc=$?
set -e
[ "$rc" = 2 ]
grep -q "cannot create a temporary file in .*/none: No such file or directory \[io\]$" err.txt
# an empty TMPDIR is unset
TMPDIR= "$FANOUT" render - <p.yml >out4.yml
cmp out.yml out4.yml
