# The GitHub problem matcher the Action registers (.github/fanout-matcher.json): its
# regexp, read from the file and used as written (JavaScript's RegExp; the runner's .NET
# regexes read this one alike), takes real text messages of fanout apart into file, line,
# column, severity, message and rule, and leaves the source line under a message alone.
set -eu
command -v node >/dev/null 2>&1 || { echo "node is not installed; problem matcher test skipped"; exit 77; }
printf 'steps:\n  - command: x\n    colour: red\n  - command: y\n    key: a:b\n  - command: z\n    key: a:b\n' >in.yml
"$FANOUT" render in.yml >/dev/null 2>err.txt && exit 1
"$FANOUT" render missing.yml 2>>err.txt && exit 1
printf 'x: [1\n' >"name: with: colons.yml"
"$FANOUT" render "name: with: colons.yml" 2>>err.txt && exit 1
node - "$ROOT/.github/fanout-matcher.json" err.txt <<'JS'
const fs = require('fs');
const [matcherFile, errFile] = process.argv.slice(2);
const { problemMatcher: [m] } = JSON.parse(fs.readFileSync(matcherFile, 'utf8'));
const p = m.pattern[0];
const re = new RegExp(p.regexp);
const got = [];
for (const line of fs.readFileSync(errFile, 'utf8').split('\n').filter(Boolean)) {
    const g = re.exec(line);
    if (!g) continue;
    got.push([g[p.file], g[p.line], g[p.column], g[p.severity], g[p.message], g[p.code]].map(x => x ?? null));
}
const want = [
    ['in.yml', '3', '5', 'warning', "unknown key 'colour' in a command step (reported once per file)", 'unknown-key'],
    ['in.yml', '7', '10', 'error', "key 'a:b' is already used by the step at in.yml:5:10", 'key-collision'],
    ['missing.yml', null, null, 'error', 'cannot open: No such file or directory', 'io'],
    ['name: with: colons.yml', '2', '1', 'error', 'flow sequence without a closing bracket', 'yaml'],
];
const same = (a, b) => a.every((x, i) => b[i] === null ? true : x === b[i]);
if (m.owner !== 'fanout' || got.length !== want.length || !got.every((g, i) => same(g, want[i]))) {
    console.log('matched:', JSON.stringify(got, null, 1));
    process.exit(1);
}
// what the messages themselves say, the snippet lines under them matched by nothing
const messages = fs.readFileSync(errFile, 'utf8').split('\n').filter(l => l && !l.startsWith('  '));
if (messages.length !== got.length) { console.log('unmatched messages:', messages); process.exit(1); }
JS
