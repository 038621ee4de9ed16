// Compares fanout's renderings of the generated workflows with the oracle (oracle.js).
// For every case, GitHub's configurations of the matrix job against the jobs fanout wrote
// for it (`<id>` or `<id>-<n>`, in file order): their number; and for each, its `matrix`
// (what GitHub reads from the rendered one-row `include`; a job without one claims the
// null matrix), its display name (the written `name`; one with ${{ }} as GitHub evaluates
// it), its strategy context (what fanout substituted into the step's `run`), and that
// the rendered job, uploaded to GitHub, displays the name fanout shows; or that both
// reject the workflow. Each case's disagreements are named by classes (classify below,
// classes.js); a class listed in known-disagreements.tsv (CLASS<TAB>CASES<TAB>REASON) is
// shown but fails only with more cases than listed.
// Usage: node compare.js NPM_DIR CASES_DIR RENDER_DIR KNOWN.tsv [SHOW]
// RENDER_DIR: *.yml YAML streams fanout wrote (exit 0); NAME.rc and NAME.err for a case
// fanout rendered alone and refused. MATRIX_CASE=mNNNN shows that case's disagreements
// under each class's hooks instead.
import fs from "node:fs";
import path from "node:path";
import * as O from "./oracle.js";
import { classes, hooksOf } from "./classes.js";

const [npmDir, casesDir, renderDir, knownFile, showArg] = process.argv.slice(2);
const SHOW = Number(showArg || 2);
await O.load(npmDir);

// ---- fanout's side ----
const rendered = new Map(); // case id -> workflow tokens
const refused = new Map(); // case id -> { rc, message }
for (const f of fs.readdirSync(renderDir).sort()) {
    const p = path.join(renderDir, f);
    if (f.endsWith(".yml")) {
        for (const doc of O.readAll(fs.readFileSync(p, "utf8"))) {
            if (doc instanceof O.Dict && typeof doc.get("name") === "string") rendered.set(doc.get("name"), doc);
            else console.error(`  ${f}: a rendered document GitHub cannot read: ${doc.error || "no name"}`);
        }
    } else if (f.endsWith(".rc")) {
        const id = f.slice(0, -3);
        const err = fs.readFileSync(path.join(renderDir, id + ".err"), "utf8");
        refused.set(id, { rc: Number(fs.readFileSync(p, "utf8")), message: (err.split("\n").find(l => / error: /.test(l)) || err.split("\n")[0]).replace(/^[^ ]*: error: /, "") });
    }
}

function fanoutJobs(doc, jobId) {
    const jobs = doc.get("jobs");
    const out = [];
    if (!(jobs instanceof O.Dict)) return out;
    const own = new RegExp("^" + jobId.replace(/[-]/g, "\\-") + "(-[0-9]+)?$");
    for (const [id, job] of jobs) {
        if (!own.test(id)) continue;
        const name = job instanceof O.Dict ? job.get("name") : undefined;
        const steps = job instanceof O.Dict ? job.get("steps") : undefined;
        const run = Array.isArray(steps) && steps[0] instanceof O.Dict ? steps[0].get("run") : undefined;
        const m = typeof run === "string" ? /^echo (-?\d+)\/(-?\d+)\/([^/ ]+)\/(true|false)$/.exec(run) : null;
        const github = O.expandJob(id, job); // the rendering as GitHub would run it
        // the configuration fanout says the job is: its `include` row, or (a job kept with
        // its matrix as written, or without one) the null matrix
        const matrix = job instanceof O.Dict && job.get("strategy") instanceof O.Dict ? job.get("strategy").get("matrix") : undefined;
        const single = matrix instanceof O.Dict && matrix.size === 1 && Array.isArray(matrix.get("include")) && matrix.get("include").length === 1;
        out.push({
            id,
            // the name fanout shows: the written text, or what GitHub makes of a name with
            // ${{ }} (the rendered job's name, evaluated)
            name: typeof name === "string" ? name : name === undefined ? id
                : name && name.raw ? (github.error ? `(GitHub rejects the name: ${github.error})`
                    : github.configs.length === 1 ? github.configs[0].name : name.raw)
                : O.show(name),
            strategy: m ? { "fail-fast": m[4] === "true", "job-index": +m[1], "job-total": +m[2], "max-parallel": Number(m[3]) }
                        : { run: typeof run === "string" ? run : O.show(run) },
            github,
            values: single ? O.show(O.reread(matrix.get("include")[0])) : "null",
            single,
        });
    }
    return out;
}

// ---- compare ----
const texts = new Map(), fanoutSide = new Map(); // per case: its text, fanout's jobs
const text = id => {
    if (!texts.has(id)) texts.set(id, fs.readFileSync(path.join(casesDir, id + ".yml"), "utf8"));
    return texts.get(id);
};

// The disagreements of case `id` with the oracle made to behave as the classes `names`
// (none: GitHub itself).
function check(id, names) {
    const h = hooksOf(names);
    const wf = O.expandWorkflow(text(id), h);
    const [jobId, gh] = Object.entries(wf.jobs || {})[0] || [];
    const bad = [];
    const add = (what, github, fanout, k, labels = ["GitHub", "fanout"]) => bad.push({ id, what, github, fanout, k, labels });
    if (refused.has(id)) {
        const r = refused.get(id);
        if (r.rc > 2) add("crash", "-", `exit ${r.rc}: ${r.message}`);
        else if (!gh || !gh.error) add("fanout-rejects", gh ? `${gh.configs.length} jobs` : wf.error, r.message);
        return bad;
    }
    if (!rendered.has(id)) {
        add("missing", "-", "no rendered document named " + id);
        return bad;
    }
    if (!fanoutSide.has(id)) fanoutSide.set(id, fanoutJobs(rendered.get(id), jobId));
    const have = fanoutSide.get(id);
    if (!gh || gh.error) {
        add("github-rejects", gh ? gh.error : wf.error, `${have.length} jobs`);
        return bad;
    }
    const want = gh.configs;
    // a single include row fanout keeps as written has GitHub's values whatever fanout's
    // reading of them
    const github = names.length && have.length === 1 && have[0].id === jobId && have[0].single
        ? O.expandWorkflow(text(id)).jobs[jobId] : gh;
    if (want.length !== have.length) add("count", `${want.length} jobs`, `${have.length} jobs`);
    for (let k = 0; k < Math.min(want.length, have.length); k++) {
        const w = want[k], f = have[k];
        // what GitHub reads from fanout's `include` row: fanout writes the values, then
        // GitHub evaluates a ${{ }} that fanout kept
        const gm = github.configs && github.configs[k] ? github.configs[k].matrix : w.matrix;
        const gv = github !== gh ? gm : h.keepExpressions ? O.reread(gm) : gm;
        if (O.show(gv) !== f.values) add("values", O.show(gv), f.values, k);
        // (a name in which fanout kept a ${{ }} is displayed evaluated)
        const wn = h.keepExpressions && w.name.includes("${{") ? O.displayName(f.id, w.name, gv, w.strategy) : w.name;
        if (wn !== f.name) add("name", wn, f.name, k);
        if (JSON.stringify(w.strategy) !== JSON.stringify(f.strategy))
            add("strategy", JSON.stringify(w.strategy), JSON.stringify(f.strategy), k);
        if (names.length === 0 && !f.github.error && f.github.configs.length === 1 && f.github.configs[0].name !== f.name)
            add("rendering-name", f.name, f.github.configs[0].name, k, ["fanout shows", "GitHub displays the rendering as"]);
    }
    return bad;
}

// The classes of a case's disagreements: `rendering-name` by its own check, the others
// by a small set of classes whose hooks together make the oracle agree with fanout: one
// class if one does; else all of them, pruned of each class the others do without; else
// grown greedily (each step adds the class that leaves the fewest disagreements) and
// pruned the same way; `unexplained` when no set is found.
const ALL = classes.map(c => c.name);
const left = (id, names) => check(id, names).filter(d => d.what !== "rendering-name").length;
function prune(id, set) {
    for (const c of set.slice()) {
        const fewer = set.filter(x => x !== c);
        if (left(id, fewer) === 0) set = fewer;
    }
    return set;
}
function grow(id, n) {
    const set = [];
    while (n > 0) {
        let best = null, bestN = n;
        for (const c of ALL) {
            if (set.includes(c)) continue;
            const m = left(id, [...set, c]);
            if (m < bestN) { best = c; bestN = m; }
        }
        if (!best) return null;
        set.push(best);
        n = bestN;
    }
    return set;
}
function classify(id, bad) {
    const out = bad.some(d => d.what === "rendering-name") ? ["rendering-name"] : [];
    const rest = bad.filter(d => d.what !== "rendering-name");
    if (rest.length === 0) return out;
    const fatal = rest.find(d => d.what === "crash" || d.what === "missing");
    if (fatal) return [...out, fatal.what];
    for (const c of ALL) if (left(id, [c]) === 0) return [...out, c];
    if (left(id, ALL) === 0) return [...out, ...prune(id, ALL)];
    const grown = grow(id, rest.length);
    return [...out, ...(grown ? prune(id, grown) : ["unexplained"])];
}

if (process.env.MATRIX_CASE) { // one case's disagreements, with each class's hooks
    const id = process.env.MATRIX_CASE;
    for (const names of [[], ...ALL.map(c => [c]), ALL]) {
        console.log(`== ${names.length ? names.join(" + ") : "GitHub"}`);
        for (const d of check(id, names))
            console.log(`  ${d.k ?? ""} ${d.what}: GitHub ${d.github}\n  ${d.k ?? ""} ${" ".repeat(d.what.length)}  fanout ${d.fanout}`);
    }
    process.exit(0);
}

const byClass = new Map();
// agreement: matrices and jobs with no disagreement, and the same leaving out the
// rendering's displayed name (which no fanout name can agree with today)
let agree = 0, agreeBut = 0, jobsCompared = 0, jobsAgree = 0, jobsAgreeBut = 0;
const ids = fs.readdirSync(casesDir).filter(f => f.endsWith(".yml")).map(f => f.slice(0, -4)).sort();
for (const id of ids) {
    const bad = check(id, []);
    const gh = Object.values(O.expandWorkflow(text(id)).jobs || {})[0];
    const n = gh && gh.configs ? gh.configs.length : 0;
    const but = bad.filter(d => d.what !== "rendering-name");
    const jobsOk = list => list.some(d => d.k === undefined) ? 0 : n - new Set(list.map(d => d.k)).size;
    jobsCompared += n;
    jobsAgree += jobsOk(bad);
    jobsAgreeBut += jobsOk(but);
    if (but.length === 0) agreeBut++;
    if (bad.length === 0) { agree++; continue; }
    for (const cls of classify(id, bad)) {
        if (!byClass.has(cls)) byClass.set(cls, { cases: new Set(), list: [] });
        const c = byClass.get(cls);
        c.cases.add(id);
        // the disagreements this class accounts for: those its hooks remove (with other
        // classes in the case, possibly none alone: then the case's first)
        const left = ALL.includes(cls) ? new Set(check(id, [cls]).map(d => d.what + d.k)) : null;
        const mine = bad.filter(d => cls === "rendering-name" ? d.what === "rendering-name"
            : d.what !== "rendering-name" && (!left || !left.has(d.what + d.k)));
        c.list.push(...(mine.length ? mine : bad.filter(d => d.what !== "rendering-name").slice(0, 1)));
    }
}

// ---- report ----
const known = new Map();
if (fs.existsSync(knownFile)) {
    for (const line of fs.readFileSync(knownFile, "utf8").split("\n")) {
        if (line === "" || line.startsWith("#")) continue;
        const [cls, max, reason] = line.split("\t");
        known.set(cls, { max: Number(max), reason });
    }
}
// the counts are those of the default run (matrix.sh's 1,200 cases); with another number
// of cases a listed class is known whatever its count
const counted = ids.length === 1200;
let failed = false;
const clip = s => { s = String(s); return s.length > 160 ? s.slice(0, 157) + "..." : s; };
for (const [cls, { cases, list }] of [...byClass].sort((a, b) => b[1].cases.size - a[1].cases.size)) {
    const k = known.get(cls);
    const over = !k || (counted && cases.size > k.max);
    if (over) failed = true;
    const tag = !k ? "NEW" : over ? `MORE than the ${k.max} listed` : "known";
    console.log(`  ${cls}: ${cases.size} cases, ${list.length} disagreements (${tag})`);
    for (const d of list.slice(0, over ? Math.max(SHOW, 5) : SHOW)) {
        const head = `    ${d.id}${d.k !== undefined ? " job " + d.k : ""} ${d.what}: `;
        console.log(`${head}${d.labels[0]} ${clip(d.github)}`);
        console.log(`${" ".repeat(head.length)}${d.labels[1]} ${clip(d.fanout)}`);
    }
}
for (const [cls, k] of known) {
    const n = byClass.has(cls) ? byClass.get(cls).cases.size : 0;
    if (counted && n < k.max) console.log(`  ${cls}: ${n} cases now, ${k.max} listed: lower the count (or remove the line at 0)`);
}
console.log(`matrix differential: ${agree} of ${ids.length} matrices and ${jobsAgree} of ${jobsCompared} jobs agree with GitHub ` +
    `(${agreeBut} and ${jobsAgreeBut} leaving out the name the rendering displays); ${byClass.size} classes of disagreement`);
process.exit(failed ? 1 : 0);
