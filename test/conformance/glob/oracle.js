// The glob differential's oracle: picomatch 2.3.1 (pinned by expr/package-lock.json) with
// the options dorny/paths-filter passes (src/filter.ts: `{dot: true}`), on each case line
// of gen.js: `1` when the path matches, `0` when not, `E` when picomatch throws or does
// not return within 2 s (it loops for ever on some patterns: dorny/paths-filter would
// hang), `T` when the match itself takes over 2 s (a backtracking regex).
// Usage: node oracle.js NPM_DIR < cases.tsv
const vm = require('vm');
const picomatch = require(require('path').join(process.argv[2], 'node_modules', 'picomatch'));
const unesc = s => s.replace(/\\(.)/g, (m, c) => c === 't' ? '\t' : c === 'n' ? '\n' : c);
const lines = require('fs').readFileSync(0, 'utf8').split('\n').filter(l => l.length);
const ctx = vm.createContext({ picomatch });
const run = (code, vars) => {
  Object.assign(ctx, vars);
  return vm.runInContext(code, ctx, { timeout: 2000 });
};
const out = [];
for (const line of lines) {
  const tab = line.indexOf('\t');
  const pattern = unesc(line.slice(0, tab)), path = unesc(line.slice(tab + 1));
  let isMatch;
  try {
    isMatch = run('picomatch(pattern, { dot: true })', { pattern });
  } catch (e) {
    out.push('E');
    continue;
  }
  try {
    out.push(run('isMatch(path)', { isMatch, path }) ? '1' : '0');
  } catch (e) {
    out.push('T');
  }
}
process.stdout.write(out.join('\n') + '\n');
