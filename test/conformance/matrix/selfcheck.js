// The differential's test of itself: writes, for every case, the rendering a faithful
// renderer would write (from the oracle: one job per configuration, its name as a
// ${{ format() }} so that GitHub displays it as written, its values in YAML GitHub reads
// back exactly, the strategy context in the step), for compare.js to find in full
// agreement. A disagreement there is a fault of the comparison, not of fanout.
// Usage: node selfcheck.js NPM_DIR CASES_DIR OUT_DIR
import fs from "node:fs";
import path from "node:path";
import * as O from "./oracle.js";

const [npmDir, casesDir, outDir] = process.argv.slice(2);
await O.load(npmDir);

function yaml(v) {
    if (v === null) return "null";
    if (typeof v === "boolean") return String(v);
    if (typeof v === "number")
        return Number.isNaN(v) ? ".nan" : v === Infinity ? ".inf" : v === -Infinity ? "-.inf" : Object.is(v, -0) ? "-0" : String(v);
    if (typeof v === "string") return JSON.stringify(v);
    if (Array.isArray(v)) return "[" + v.map(yaml).join(", ") + "]";
    return "{" + [...v].map(([k, x]) => JSON.stringify(k) + ": " + yaml(x)).join(", ") + "}";
}
// (a lone ${{ 'text' }} would be read as the literal text, which GitHub suffixes with
// the values again; format() is evaluated)
const nameExpression = name => "${{ format('" + name.replace(/'/g, "''").replace(/[{}]/g, c => c + c) + "') }}";

for (const f of fs.readdirSync(casesDir).filter(f => f.endsWith(".yml"))) {
    const id = f.slice(0, -4);
    const [jobId, job] = Object.entries(O.expandWorkflow(fs.readFileSync(path.join(casesDir, f), "utf8")).jobs)[0];
    if (job.error) {
        fs.writeFileSync(path.join(outDir, id + ".rc"), "2\n");
        fs.writeFileSync(path.join(outDir, id + ".err"), `${f}: error: ${job.error}\n`);
        continue;
    }
    const lines = [`name: ${id}`, "on: push", "jobs:"];
    job.configs.forEach((c, k) => {
        const s = c.strategy;
        lines.push(`  ${c.matrix === null ? jobId : jobId + "-" + k}:`,
            `    name: ${JSON.stringify(nameExpression(c.name))}`, "    runs-on: ubuntu-latest");
        if (c.matrix !== null) lines.push("    strategy:", `      matrix: {include: [${yaml(c.matrix)}]}`);
        lines.push("    steps:",
            `      - run: ${JSON.stringify(`echo ${s["job-index"]}/${s["job-total"]}/${s["max-parallel"]}/${s["fail-fast"]}`)}`);
    });
    fs.writeFileSync(path.join(outDir, id + ".yml"), lines.join("\n") + "\n");
}
