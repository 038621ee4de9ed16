# What reaches the terminal (issue 26): text from the input or the command line in a
# message (a key, a file name) cannot start a line of its own, move the cursor or colour
# the terminal, or pass for a GitHub workflow command, in any --error-format.
set -eu
# a key holding ESC, CR, LF, %0A, a forged message, `::set-output` and the legacy `##[`
printf 'steps:\n  - command: x\n    "k\\e[31m\\u009b\\r\\nfake.yml:1:1: error: forged [yaml]\\n::set-output name=a::b %%0A ##[add-mask]": 1\n' >in.yml
# a file name holding the same
name=$(printf 'f\033[31m\r\n::set-output name=f::v %%0A.yml')
cp in.yml "$name"
for format in text github json; do
    "$FANOUT" render --error-format "$format" --color always in.yml "$name" >/dev/null 2>"err.$format" || true
    python3 - "$format" "err.$format" <<'PY'
import json, re, sys
fmt, path = sys.argv[1], sys.argv[2]
raw = open(path, 'rb').read()
lines = raw.decode('utf-8').split('\n')
assert lines[-1] == '', 'no final newline'
lines = lines[:-1]
# the forged parts arrive, but escaped
assert b'set-output' in raw and b'forged' in raw, raw
colour = re.compile(r'\x1b\[[0-9;]*m')   # --color always: fanout's own colours only
for line in lines:
    plain = colour.sub('', line) if fmt == 'text' else line
    bad = [c for c in plain if ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f]
    assert not bad, (fmt, line, bad)
    # the runner: `::` after white space starts a command; `##[` anywhere (legacy form)
    if fmt != 'github':
        assert not plain.lstrip().startswith('::'), (fmt, line)
        assert '##[' not in plain, (fmt, line)
if fmt == 'text':
    messages = [l for l in lines if not l.startswith('  ')]
    assert len(messages) == 2, lines
    for l in messages:
        assert re.match(r'^(in\.yml|f\\x1B\[31m\\r\\n::set-output name=f::v %0A\.yml):3:6: ', colour.sub('', l)), l
elif fmt == 'github':
    assert len(lines) == 2, lines
    for l in lines:
        # one command per line; the file property cannot end early (`:` and `,` escaped)
        m = re.match(r'^::warning file=([^:,]*),line=3,col=6::(.*) \[unknown-key\]$', l)
        assert m, l
        assert '%0D%0A' in m.group(2) and '%250A' in m.group(2) and '\\x1B' in m.group(2), l
    assert lines[1].startswith('::warning file=f\\x1B[31m%0D%0A%3A%3Aset-output name=f%3A%3Av %250A.yml,'), lines[1]
else:
    assert len(lines) == 2, lines
    got = [json.loads(l) for l in lines]
    assert got[1]['file'] == 'f\x1b[31m\r\n::set-output name=f::v %0A.yml', got[1]['file']
    assert "'k\x1b[31m\x9b\r\nfake.yml:1:1: error: forged [yaml]\n::set-output name=a::b %0A ##[add-" in got[0]['message'], got
PY
done
# usage errors name the argument escaped too
"$FANOUT" render "$(printf -- '-\033[2J\n::error::x')" 2>err.txt && exit 1
[ "$(wc -l <err.txt)" = 2 ] && ! grep -q "$(printf '\033')" err.txt
