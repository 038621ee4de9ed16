# `make install` with DESTDIR and PREFIX: the binary, the man page, the docs and the
# bash and zsh completions each land where they belong, and nothing outside DESTDIR.
set -eu
command -v make >/dev/null 2>&1 || { echo "make is not installed; install test skipped"; exit 77; }
dest="$PWD/dest"
make -s -C "$ROOT" install DESTDIR="$dest" PREFIX=/usr >make.out 2>&1 || { cat make.out; exit 1; }

for f in \
    usr/bin/fanout \
    usr/share/man/man1/fanout.1 \
    usr/share/doc/fanout/reference.md \
    usr/share/bash-completion/completions/fanout \
    usr/share/zsh/site-functions/_fanout; do
    [ -f "$dest/$f" ] || { echo "missing: $f"; find "$dest" -type f; exit 1; }
done
for md in "$ROOT"/docs/*.md; do
    cmp -s "$md" "$dest/usr/share/doc/fanout/$(basename "$md")" || { echo "not installed: docs/$(basename "$md")"; exit 1; }
done
# every file an installed page links to is installed beside it (docs/diff.schema.json)
for md in "$dest"/usr/share/doc/fanout/*.md; do
    for target in $(grep -o '](\([A-Za-z0-9_.-]*\)[)#]' "$md" | sed 's/^](//; s/[)#]$//' | sort -u); do
        [ -f "$dest/usr/share/doc/fanout/$target" ] || { echo "$(basename "$md") links to $target, not installed"; exit 1; }
    done
done
cmp -s "$ROOT/build/fanout" "$dest/usr/bin/fanout"
cmp -s "$ROOT/docs/fanout.1" "$dest/usr/share/man/man1/fanout.1"
cmp -s "$ROOT/completions/fanout.bash" "$dest/usr/share/bash-completion/completions/fanout"
cmp -s "$ROOT/completions/_fanout" "$dest/usr/share/zsh/site-functions/_fanout"
[ -x "$dest/usr/bin/fanout" ]
"$dest/usr/bin/fanout" --version | grep -q '^fanout '
# modes: the binary executable, the rest read-only data
for f in usr/share/man/man1/fanout.1 usr/share/doc/fanout/reference.md \
    usr/share/bash-completion/completions/fanout usr/share/zsh/site-functions/_fanout; do
    [ ! -x "$dest/$f" ] || { echo "$f is executable"; exit 1; }
done
# the installed bash completion registers itself
if command -v bash >/dev/null 2>&1; then
    bash -c '. "$1" && complete -p fanout' sh "$dest/usr/share/bash-completion/completions/fanout" | grep -q -- '-F _fanout fanout'
fi
# only files under the prefix
stray=$(find "$dest" -mindepth 1 -maxdepth 1 ! -name usr)
[ -z "$stray" ] || { echo "installed outside PREFIX: $stray"; exit 1; }
echo "install: ok"
