// Generated workflows for test/conformance/workflow.sh: random documents walked down
// GitHub's own workflow schema (the bundled schemas/github-workflow-v1.json), mostly
// valid, with wrong types, unknown keys, keys differing only in case and expressions
// naming any context or function mixed in, so that both verdicts and every construct
// are exercised. Writes N files (JSON, which both YAML readers read alike) into DIR.
// Usage: node gen.mjs SCHEMA DIR N [SEED]
import fs from "node:fs";
import path from "node:path";

const [schemaFile, dir, count, seedArg] = process.argv.slice(2);
const defs = JSON.parse(fs.readFileSync(schemaFile, "utf8")).definitions;
let seed = Number(seedArg ?? 1) >>> 0;
// mulberry32: a small seeded generator, so a failure can be reproduced
function random() {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = list => list[Math.floor(random() * list.length)];
const contexts = ["github", "inputs", "vars", "needs", "strategy", "matrix", "secrets", "steps", "job", "runner",
                  "env", "jobs", "foo"];
const calls = ["hashFiles('x')", "always()", "failure()", "success()", "cancelled()", "failure(1)",
               "toJSON(github)", "bogus()"];

function expression() {
    const r = random();
    if (r < 0.5) return `\${{ ${pick(random() < 0.7 ? contexts.slice(0, 4) : contexts)}.x }}`;
    if (r < 0.7) return `\${{ ${pick(calls)} }}`;
    if (r < 0.8) return "${{ 'text' }}";
    if (r < 0.85) return `before \${{ ${pick(contexts)}.y }} after`;
    if (r < 0.9) return "${{ }}";
    if (r < 0.95) return "${{ github.x";
    return "${{ insert }}";
}

// A value of no particular type.
function any(depth) {
    const r = random();
    if (r < 0.2) return pick([1, 2.5, 0, -3]);
    if (r < 0.35) return pick([true, false]);
    if (r < 0.45) return null;
    if (r < 0.6) return pick(["", "word", "read", "true", "5"]);
    if (r < 0.75 || depth > 4) return expression();
    if (r < 0.87) return [any(depth + 1)];
    return {[pick(["a", "b", "x-y"])]: any(depth + 1)};
}

function value(name, depth) {
    switch (name) {
    case "any": return any(depth);
    case "null": return null;
    case "boolean": return pick([true, false]);
    case "number": return pick([1, 0, 3.5]);
    case "string": return pick(["s", "", "x y"]);
    case "sequence": return [any(depth + 1)];
    case "mapping": return {k: any(depth + 1)};
    }
    /* not at the top: a document that is no mapping, or `jobs` that is none, stops
       fanout's reader (a pipeline-shape error) before the files after it */
    if (depth > 1 && random() < 0.01) return any(depth);
    const def = defs[name];
    const kind = Object.keys(def).find(k => k !== "description" && k !== "context");
    const spec = def[kind];
    switch (kind) {
    case "null": return null;
    case "boolean": return random() < 0.8 ? pick([true, false]) : expression();
    case "number": return random() < 0.8 ? pick([1, 10, 0.5]) : expression();
    case "string":
        if (spec.constant) return spec.constant;
        return random() < 0.6 ? pick(["text", "a b", "x"]) : expression();
    case "allowed-values": return random() < 0.9 ? pick(spec) : "nope";
    case "one-of": return value(pick(spec), depth);
    case "sequence": {
        const out = [];
        for (let i = depth > 5 ? 0 : Math.floor(random() * 3); i > 0; i--) out.push(value(spec["item-type"], depth + 1));
        return out;
    }
    case "mapping": {
        const out = {};
        if (depth > 6) return out;
        for (const [key, prop] of Object.entries(spec.properties ?? {})) {
            const type = typeof prop === "string" ? prop : prop.type;
            if ((typeof prop === "object" && prop.required && random() < 0.95) || random() < 0.25)
                out[key] = value(type, depth + 1);
        }
        if (spec["loose-key-type"]) {
            for (let i = Math.floor(random() * 3); i > 0; i--)
                out[pick([`K${i}`, `k${i}`, "", "${{ github.k }}"])] = value(spec["loose-value-type"], depth + 1);
        }
        const r = random(), first = Object.keys(out)[0];
        if (r < 0.01) out.unknwn = 1;
        else if (r < 0.02 && first) out[first.toUpperCase() !== first ? first.toUpperCase() : first.toLowerCase()] = 1;
        return out;
    }
    }
    throw new Error(`definition kind ${kind}`);
}

for (let i = 0; i < Number(count); i++) {
    const doc = value("workflow-root-strict", 0);
    if (random() < 0.9 && !("on" in doc))
        doc.on = "push";
    fs.writeFileSync(path.join(dir, `g${String(i).padStart(4, "0")}.yml`), JSON.stringify(doc) + "\n");
}
