# Temporary files (a piped input's copy, render's spool, diff's records, sort runs) go
# in $TMPDIR, as sort(1) and git put theirs (glibc's tmpfile() ignores it and writes in
# /tmp, which a runner may keep small): with TMPDIR naming no directory, a run that needs
# one fails naming it, exit 2, nothing written; with TMPDIR a directory it works.
set -eu
# exits2 COMMAND...: the command fails with exit status 2
exits2() {
    "$@" && return 1
    [ $? = 2 ]
}
mkdir scratch
printf 'steps:\n  - command: make\n    parallelism: 2\n' >p.yml
printf 'steps:\n  - command: make\n    parallelism: 3\n' >q.yml
"$FANOUT" render p.yml >want.yml
TMPDIR=$PWD/scratch "$FANOUT" render - <p.yml >out.yml
cmp want.yml out.yml
exits2 env TMPDIR=$PWD/none "$FANOUT" render - <p.yml >out2.yml 2>err.txt
[ ! -s out2.yml ]
grep -q "^<stdin>: error: cannot create a temporary file in $PWD/none: No such file or directory \[io\]$" err.txt
exits2 env TMPDIR=$PWD/none "$FANOUT" render -o out3.yml p.yml q.yml 2>err.txt
[ ! -e out3.yml ]
grep -q "cannot create a temporary file in $PWD/none: No such file or directory \[io\]$" err.txt
exits2 env TMPDIR=$PWD/none "$FANOUT" check p.yml --rendered out.yml 2>err.txt
grep -q "cannot create a temporary file in $PWD/none: No such file or directory \[io\]$" err.txt
exits2 env TMPDIR=$PWD/none "$FANOUT" diff p.yml q.yml >/dev/null 2>err.txt
grep -q "^fanout: error: cannot create a temporary file in $PWD/none: No such file or directory \[io\]$" err.txt
# diff --base: git's output goes through temporary files too (it said "cannot run git")
mkdir repo
cp p.yml repo/
(cd repo && git init -q && git add p.yml && git -c user.name=t -c user.email=t@t commit -qm p && cp ../q.yml p.yml)
exits2 sh -c 'cd repo && TMPDIR=$PWD/../none "$FANOUT" diff --base HEAD p.yml' >/dev/null 2>err.txt
grep -q "cannot create a temporary file in .*/none: No such file or directory \[io\]$" err.txt
# an empty TMPDIR is unset
TMPDIR= "$FANOUT" render - <p.yml >out4.yml
cmp out.yml out4.yml
