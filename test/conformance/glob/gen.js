// The glob differential's cases: generated (pattern, path) pairs, seeded, one a line as
// `pattern<TAB>path` with backslash, tab and newline escaped (glob_driver reads them).
// Patterns are drawn from picomatch's syntax (stars, globstars, classes, POSIX classes,
// braces and ranges, extglobs, negation, escapes, quotes, ./ prefixes, regex characters);
// a third of the paths are written from the pattern itself, so that many match.
// Usage: node gen.js COUNT [SEED]
const count = Number(process.argv[2] || 2000);
let seed = Number(process.argv[3] || 1);
// mulberry32
const rand = n => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) % n;
};
const pick = a => a[rand(a.length)];

const atoms = ['a', 'b', 'c', 'ab', 'x.js', '.', '.a', '-', '_', '1', '2', 'é', ' ', '$', '^', '=', '#',
  '*', '*', '**', '?', '[ab]', '[a-c]', '[!a]', '[^a]', '[]', '[]a]', '[a-]', '[[:alpha:]]', '[[:digit:]x]',
  '{a,b}', '{a,}', '{1..3}', '{a..c}', '{,b}', '{a}', '{', '}', ',', '!(a)', '!(*.js)', '@(a|b)', '+(a)',
  '*(b)', '?(c)', '!(a/b)', '(', ')', '(a|b)', '|', '+', '\\*', '\\?', '\\a', '\\.', '\\[', '\\\\', '"a*"',
  '"', '%', '[a', 'a]', '(?:a)', '(?=a)', '@', '!', '.js', '.md', '*.js', '**/', '/'];
const segs = ['a', 'b', 'c', 'ab', 'abc', 'x.js', 'y.md', '.a', '.github', '..', '.', '1', '2', '3',
  '-', 'a-b', 'é', 'a b', '$', '(a)', '[ab]', '*', 'a.b.c', 'README.md', 'a|b', '+', '{a,b}', ''];

function pattern() {
  let p = rand(8) === 0 ? '!' : rand(10) === 0 ? './' : '';
  const n = 1 + rand(5);
  for (let i = 0; i < n; i++) {
    p += pick(atoms);
    if (rand(3) === 0) p += '/';
  }
  return p;
}

// A path that the pattern probably matches: its wildcards filled in.
function instance(p) {
  return p.replace(/^!|^\.\//, '')
    .replace(/\*\*\/?/g, () => rand(2) ? '' : pick(segs) + '/' + pick(segs) + '/')
    .replace(/\*/g, () => pick(['', 'a', 'xy', '.z']))
    .replace(/\?/g, () => pick(['a', '.', '1']))
    .replace(/\[[^\]]*\]/g, () => pick(['a', 'b', '1', 'x']))
    .replace(/[{}()@!+|\\"]/g, () => rand(3) ? '' : 'a')
    .replace(/,/g, () => '');
}

function path() {
  const n = 1 + rand(4);
  const parts = [];
  for (let i = 0; i < n; i++) parts.push(pick(segs));
  let s = parts.join('/');
  if (rand(12) === 0) s = './' + s;
  if (rand(12) === 0) s += '/';
  return s;
}

const esc = s => s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
const out = [];
while (out.length < count) {
  const p = pattern();
  for (let k = 0; k < 3 && out.length < count; k++) {
    const s = k === 0 ? instance(p) : k === 1 && rand(4) === 0 ? p : path();
    out.push(esc(p) + '\t' + esc(s));
  }
}
process.stdout.write(out.join('\n') + '\n');
