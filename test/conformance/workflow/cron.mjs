// The crons of test/conformance/workflow.sh's cron differential: random ones (seeded),
// each a workflow file in DIR with GitHub's language service's verdict
// (@actions/workflow-parser model/converter/cron.js isValidCron, which its converter
// turns into "Invalid cron expression") in cron.tsv: "<file>\tvalid|invalid".
// Usage: node cron.mjs NPM_DIR DIR COUNT SEED
import fs from "node:fs";
import path from "node:path";
import url from "node:url";

const npm = process.argv[2];
const {isValidCron} = await import(url.pathToFileURL(path.join(npm, "node_modules/@actions/workflow-parser/dist/model/converter/cron.js")).href);
const dir = process.argv[3];
let seed = Number(process.argv[5] || 1);
const rnd = n => { seed |= 0; seed = seed + 0x6D2B79F5 | 0; let t = Math.imul(seed ^ seed >>> 15, 1 | seed);
  t = t + Math.imul(t ^ t >>> 7, 61 | t) ^ t; return (((t ^ t >>> 14) >>> 0) % n); };
// mostly pieces GitHub takes, so that some of the crons are valid, and some it
// may not (out of range, names, JavaScript's numbers: 1.5, 0x1F, 1e1, +3, a tab)
const good = ["*", "0", "1", "2", "5", "6", "10", "12", "15", "30", "*/5", "1-5", "mon-fri", "jan", "sun"];
const atoms = ["*", "0", "1", "5", "7", "12", "23", "24", "31", "32", "59", "60", "-1", "1.5", "0x1F", "1e1", "jan", "DEC", "mon", "Sun", "sat", "foo", "", "+3", " 1", "\t2", "007", "Infinity"];
const piece = d => {
  const k = rnd(10);
  if (d > 2 || k < 7) return rnd(12) ? good[rnd(good.length)] : atoms[rnd(atoms.length)];
  if (k < 8) return piece(d + 1) + "-" + piece(d + 1);
  if (k < 9) return piece(d + 1) + "/" + piece(d + 1);
  return piece(d + 1) + "," + piece(d + 1);
};
const out = [];
for (let i = 0; i < Number(process.argv[4] || 2000); i++) {
  const n = rnd(10) < 8 ? 5 : rnd(7);
  const fields = []; for (let f = 0; f < n; f++) fields.push(piece(0));
  const sep = () => rnd(10) < 8 ? " " : "  ";
  let c = fields.join(sep()); if (rnd(20) == 0) c = " " + c;
  const file = path.join(dir, `c${String(i).padStart(4, "0")}.yml`);
  fs.writeFileSync(file, `on:\n  schedule:\n    - cron: ${JSON.stringify(c)}\njobs:\n  a:\n    runs-on: x\n    steps: [{run: y}]\n`);
  out.push(file + "\t" + (isValidCron(c) ? "valid" : "invalid"));
}
fs.writeFileSync(path.join(dir, "cron.tsv"), out.join("\n") + "\n");
