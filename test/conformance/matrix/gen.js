// Generates the workflows of the matrix differential (test/conformance/matrix.sh): each
// one job with a `strategy.matrix` (and sometimes `fail-fast`, `max-parallel`, a `name`
// with or without ${{ matrix.x }}) and one step whose `run` shows the strategy context.
// Deterministic: a fixed seed, no clock. Usage: node gen.js DIR [COUNT] [SEED]
// Writes DIR/mNNNN.yml; the workflow's `name` is its case id (mNNNN).
//
// What is covered: vectors of numbers (large, negative, float, 16+ digits, hex, octal,
// .inf/.nan, -0), strings (case variants, quoted numbers and keywords, unicode, commas,
// long ones with multi-byte characters for the cut at 100), booleans, null, mappings,
// lists; exclude entries (whole, partial, object partial, {} / [] values, null leaves,
// keys spelled in another case); include entries that extend, add, match on keys an
// earlier entry added, hold {} / [] filter values; include-only matrices; ${{ }} in
// vector items, whole vectors and include values; the 256-job limit; and matrices GitHub
// rejects (empty vector or entry, unknown exclude key, no vector); and a strategy without
// a matrix.
// Left out, because @actions/expressions differs from GitHub's runtime there: strings
// whose case mapping is not one character to one (German sharp s, ligatures), and
// integer-like or "__proto__" mapping keys.
import fs from "node:fs";
import path from "node:path";

const [dir, countArg, seedArg] = process.argv.slice(2);
const COUNT = Number(countArg || 1200);
let seed = Number(seedArg || 0x6d617478) | 0;

function rand() { // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = n => Math.floor(rand() * n);
const pick = a => a[int(a.length)];
const chance = p => rand() < p;
const between = (lo, hi) => lo + int(hi - lo + 1);
function sample(a, n) {
    const c = a.slice(), out = [];
    while (out.length < n && c.length) out.push(c.splice(int(c.length), 1)[0]);
    return out;
}

// A YAML scalar that is a string whatever it holds.
const quote = s => s.includes("'") || /[\u0000-\u001f]/.test(s) ? JSON.stringify(s) : `'${s}'`;

// ---- atoms: a written scalar and other spellings GitHub may find equal to it ----
// (`alt` spellings are what filters use: equal under `==` for GitHub, or deliberately
// not: a 16+-digit number written the same way never matches, G15 drops its digits.)
const A = (y, ...alt) => ({ y, alt });
const numbers = [
    A("0", "0.0", "'0'", "-0", "false"), A("1", "1.0", "'1'", "1e0", "+1", "true"), A("2", "2.0", "'2'"),
    A("3", "'3'"), A("10", "1e1", "'10'", "010"), A("-1", "-1.0", "'-1'"), A("-42", "'-42'"),
    A("+5", "5"), A("012", "12"), A("1.5", "1.50", "'1.5'", "15e-1"), A("0.1", ".1", "'0.1'"),
    A("2.50", "2.5"), A("3.10", "3.1", "'3.1'"), A("1e3", "1000", "'1000'"), A("1.0", "1"),
    A("-0", "0"), A("0.30000000000000004", "0.3"), A("12345678901234567", "12345678901234567", "12345678901234568"),
    A("9007199254740993", "9007199254740993"), A("1234567890123456789", "1234567890123456789"),
    A("123456789012345", "123456789012345"), A("1234567890123456", "1234567890123456"),
    A("0.1234567890123456789", "0.1234567890123456789"), A("1e20", "100000000000000000000"),
    A("1e-7", "0.0000001"), A("0.0001", "1e-4"), A("0.00001", "1e-5"), A("1e15", "1000000000000000"),
    A("999999999999999", "999999999999999"), A("0x1F", "31", "'31'"), A("0xff", "255", "0xFF"),
    A("0xFFFFFFFF", "-1"), A("0o17", "15"), A(".inf", "'Infinity'", ".Inf"), A("-.inf", "-.INF"),
    A(".nan", ".nan", "'NaN'"), A("1e400", ".inf"), A("3.14159265358979", "3.14159265358979"),
    A("100", "1e2"), A("256", "256.0"),
];
const strings = [
    A("linux", "Linux", "LINUX", "'linux'"), A("Linux", "linux"), A("ubuntu-latest", "UBUNTU-LATEST"),
    A("windows-2022", "Windows-2022"), A("macos", "MacOS"), A("'1'", "1", "'01'"), A("'1.0'", "1", "'1'"),
    A("'01'", "1", "'1'"), A("''", "null", "0", "false", "''"), A("' '", "0", "''"), A("'true'", "true", "'TRUE'"),
    A("'null'", "null", "'NULL'"), A("yes", "'yes'", "YES"), A("no", "NO"), A("on", "'on'"), A("off", "OFF"),
    A("'~'", "~"), A("\"it's\"", "\"IT'S\""), A("\"a 'b' c\"", "\"A 'B' C\""), A("é", "É"), A("É", "é"),
    A("naïve", "NAÏVE"), A("σ", "Σ", "ς"), A("Σ", "σ"), A("中文", "中文"), A("🚀", "'🚀'"), A("'a, b'", "'A, B'"),
    A("'(x)'", "'(X)'"), A("a b", "A B"), A("'x#y'", "'X#Y'"), A("gcc", "GCC"), A("clang", "Clang"),
    A("'3.10'", "3.1", "'3.10'"), A("'1e3'", "1000"), A("' 2 '", "2"), A("Debug", "debug"), A("Release", "RELEASE"),
    A("\"tab\\there\"", "\"TAB\\tHERE\""), A("'-'", "'-'"), A("'ı'", "'I'", "'ı'"), A("'İ'", "'i'"),
    A("'x'", "'X'"), A("Ñandú", "ñandú"),
];
const booleans = [A("true", "True", "1", "'true'"), A("false", "FALSE", "0", "''"), A("True", "true"), A("FALSE", "false")];
const nulls = [A("null", "~", "''", "0", "false"), A("~", "null"), A("Null", "NULL")];

// Long strings for the cut at 100 UTF-16 code units: ASCII runs broken by 2-, 3- and
// 4-byte UTF-8 characters (é, 中, 🚀 a surrogate pair), of every length around the cut.
function longString(len) {
    const parts = ["a", "b", "-", "é", "中", "🚀", "x", "y", "😀", "ö"];
    let s = "";
    while (s.length < len) s += chance(0.7) ? "abcdefghij"[int(10)] : pick(parts);
    return s;
}

// ---- values: { y: YAML flow text, alt(): another spelling or a partial, kind } ----
function scalar(pool) {
    const a = pick(pool);
    return { y: a.y, kind: "scalar", alt: () => pick(a.alt.length && chance(0.7) ? a.alt : [a.y]) };
}
function mapping(depth) {
    const keys = sample(["a", "b", "name", "ver", "x", "A", "os", "cc"], between(0, 3))
        .filter((k, i, all) => all.findIndex(o => o.toUpperCase() === k.toUpperCase()) === i);
    const vals = keys.map(() => value(depth + 1));
    return {
        kind: "mapping",
        y: "{" + keys.map((k, i) => `${k}: ${vals[i].y}`).join(", ") + "}",
        keys, vals,
        alt() { // the whole, a part, or every key in another case
            const r = rand();
            const ks = r < 0.5 ? sample(keys.map((k, i) => i), between(1, Math.max(1, keys.length))) : keys.map((k, i) => i);
            const up = r > 0.9;
            return "{" + ks.filter(i => i < keys.length)
                .map(i => `${up ? keys[i].toUpperCase() : keys[i]}: ${vals[i].alt()}`).join(", ") + "}";
        },
    };
}
function list(depth) {
    const vals = Array.from({ length: between(0, 3) }, () => value(depth + 1));
    return { kind: "list", y: "[" + vals.map(v => v.y).join(", ") + "]", alt: () => "[" + vals.map(v => v.alt()).join(", ") + "]" };
}
function value(depth = 0) {
    const r = rand();
    if (r < 0.34) return scalar(numbers);
    if (r < 0.72) return scalar(strings);
    if (r < 0.80) return scalar(booleans);
    if (r < 0.86) return scalar(nulls);
    if (depth < 2 && r < 0.94) return mapping(depth);
    if (depth < 2) return list(depth);
    return scalar(strings);
}
function longValue() {
    const s = longString(between(20, 110));
    return { kind: "scalar", y: quote(s), alt: () => quote(chance(0.5) ? s : s.toUpperCase()) };
}
// ${{ }} where GitHub evaluates it (a literal expression: no context is known)
function exprValue() {
    const v = pick([
        ["${{ 'linux' }}", "linux"], ["${{ 1.5 }}", "1.5"], ["${{ 16 }}", "16"], ["v${{ 1 }}", "v1"],
        ["${{ true }}", "true"], ["${{ null }}", "null"], ["${{ fromJSON('{\"a\": 1}') }}", "{a: 1}"],
        ["${{ format('{0}-{1}', 'a', 2) }}", "a-2"], ["x-${{ 1.50 }}-y", "x-1.5-y"],
        ["${{ fromJSON('[1, \"b\"]') }}", "[1, b]"], ["${{ 'it''s' }}", "\"it's\""],
        ["${{ 0.1 }}", "0.1"], ["${{ 12345678901234567 }}", "12345678901234567"], ["${{ -0 }}", "-0"],
    ]);
    return { kind: "scalar", y: quote(v[0]), alt: () => chance(0.5) ? quote(v[0]) : v[1] };
}

const VECTOR_KEYS = ["os", "node", "python", "compiler", "config", "shard", "arch", "flag", "v", "py-version"];
const EXTRA_KEYS = ["extra", "label", "run", "Extra", "experimental", "cmd", "note", "os2"];

function other(k) { // the key in another case, sometimes
    return chance(0.12) ? (k === k.toUpperCase() ? k.toLowerCase() : k.toUpperCase()) : k;
}
const flowMap = pairs => "{" + pairs.map(([k, y]) => `${k}: ${y}`).join(", ") + "}";

function makeCase(id) {
    const lines = [`name: ${id}`, "on: push", "jobs:"];
    const jobId = pick(["test", "build", "lint", "job_x", "Test", "unit-tests"]);
    lines.push(`  ${jobId}:`);

    const nameKind = rand();
    const mode = rand() < 0.08 ? "include-only" : rand() < 0.05 ? "invalid" : rand() < 0.04 ? "big"
        : rand() < 0.02 ? "no-matrix" : "product";
    const withLong = mode === "product" && chance(0.12); // a vector of long strings
    // vectors
    const vectors = [];
    if (mode !== "include-only" && mode !== "no-matrix") {
        // "big": two vectors whose product is near GitHub's limit of 256 jobs
        const bigA = between(12, 20), bigB = Math.round(between(236, 276) / bigA);
        const n = mode === "big" ? 2 : between(1, 3);
        for (const [i, k] of sample(VECTOR_KEYS, n).entries()) {
            const size = mode === "big" ? [bigA, bigB][i] : pick([1, 1, 2, 2, 2, 3, 3, 4, 5]);
            let vals;
            if (i === 0 && withLong) vals = Array.from({ length: size }, longValue);
            else if (chance(0.08)) vals = Array.from({ length: size }, exprValue);
            else vals = Array.from({ length: size }, () => value());
            vectors.push({ key: k, vals });
        }
    }
    // the job's name: none (the job id), written, or with ${{ matrix.x }}
    if (nameKind < 0.35) {
        // none
    } else if (nameKind < 0.7) {
        lines.push(`    name: ${quote(pick(["Build", "CI / unit", "t", "Tests (py)", "é-job", longString(between(40, 99))]))}`);
    } else {
        const nameKeys = vectors.filter((v, i) => !(i === 0 && withLong)).map(v => v.key);
        const k = nameKeys.length && chance(0.85) ? pick(nameKeys) : pick(["nokey", "extra"]);
        lines.push(`    name: ${quote(pick([
            `Build \${{ matrix.${k} }}`, `\${{ matrix.${k} }}`, `\${{ matrix.${k} }} on \${{ strategy.job-index }}`,
            `\${{ format('{0}/{1}', matrix.${k}, strategy.job-total) }}`, `x \${{ matrix.${k} }}`,
        ]))}`);
    }
    lines.push("    runs-on: ubuntu-latest", "    strategy:");
    if (chance(0.3)) lines.push(`      fail-fast: ${pick(["true", "false"])}`);
    if (chance(0.3)) lines.push(`      max-parallel: ${pick(["0", "-1", "1", "2", "3.7", "300"])}`);

    const matrix = [];
    const block = chance(0.3); // vectors as block sequences
    for (const v of vectors) {
        if (v.vals[0] && /fromJSON\('\[/.test(v.vals[0].y) && chance(0.5)) {
            matrix.push(`${v.key}: ${v.vals[0].y}`); // the whole vector an expression
            v.vals = [];
            continue;
        }
        if (block) matrix.push(`${v.key}:`, ...v.vals.map(x => `  - ${x.y}`));
        else matrix.push(`${v.key}: [${v.vals.map(x => x.y).join(", ")}]`);
    }
    const usable = vectors.filter(v => v.vals.length);
    const added = []; // extra keys earlier include entries added

    // exclude
    const excludes = [];
    if (usable.length && chance(0.5)) {
        for (let i = between(1, 3); i > 0; i--) {
            const r = rand();
            const keys = sample(usable, between(1, usable.length));
            excludes.push(flowMap(keys.map(v => {
                const x = pick(v.vals);
                if (r < 0.06) return [other(v.key), pick(["{}", "[]"])];
                if (r < 0.10) return [other(v.key), pick(["{x: null}", "[null]", "{a: ~}"])];
                if (r < 0.18) return [other(v.key), value().y]; // anything
                return [other(v.key), x.alt()];
            })));
        }
    }
    // include
    const includes = [];
    const nInclude = mode === "include-only" ? between(1, 4) : chance(0.55) ? between(1, 4) : 0;
    for (let i = 0; i < nInclude; i++) {
        const pairs = [];
        const r = rand();
        if (mode === "include-only") {
            for (const k of sample([...VECTOR_KEYS.slice(0, 4), ...EXTRA_KEYS.slice(0, 3)], between(1, 3)))
                pairs.push([k, value().y]);
        } else if (r < 0.45 && usable.length) { // extend (or, with another value, add)
            for (const v of sample(usable, between(1, usable.length)))
                pairs.push([other(v.key), chance(0.8) ? pick(v.vals).alt() : value().y]);
        } else if (r < 0.55 && usable.length) { // {} or [] as a filter value: matches all
            pairs.push([other(pick(usable).key), pick(["{}", "[]", "{x: null}"])]);
        } else if (r < 0.65 && added.length) { // match on a key an earlier entry added
            pairs.push([other(pick(added)), value().y]);
        } else if (usable.length) { // a configuration of its own
            for (const v of sample(usable, between(1, usable.length))) pairs.push([v.key, value().y]);
        }
        for (const k of sample(EXTRA_KEYS, between(mode === "include-only" ? 0 : 1, 2))) {
            if (pairs.some(([p]) => p.toUpperCase() === k.toUpperCase())) continue;
            pairs.push([k, chance(0.1) ? exprValue().y : chance(0.1) ? longValue().y : value().y]);
            added.push(k);
        }
        if (pairs.length === 0) pairs.push(["extra", value().y]);
        includes.push(flowMap(pairs));
    }

    // what GitHub rejects
    if (mode === "invalid") {
        const r = int(7);
        if (r === 0) matrix.push(`${pick(["empty", "os2x"])}: []`);
        if (r === 1) excludes.push("{}");
        if (r === 2) excludes.push(`{nokey: 1}`);
        if (r === 3) includes.push("{}");
        if (r === 4) { matrix.length = 0; includes.length = 0; if (!excludes.length) excludes.push("{os: 1}"); }
        if (r === 5) { matrix.length = 0; includes.length = 0; matrix.push("include: []"); }
        if (r === 6) matrix.push(`bad: ${pick(["linux", "{a: 1}", "1"])}`);
    }
    if (mode === "big" && chance(0.5)) includes.push(flowMap([["os", "'appended'"], ["nothing", "1"]]));

    if (excludes.length) {
        if (block) matrix.push("exclude:", ...excludes.map(e => `  - ${e}`));
        else matrix.push(`exclude: [${excludes.join(", ")}]`);
    }
    if (includes.length) matrix.push("include:", ...includes.map(e => `  - ${e}`));
    if (mode === "no-matrix") { // GitHub runs the job once, matrix null
        if (!lines[lines.length - 1].startsWith("      ")) lines.push("      fail-fast: false");
    } else {
        if (matrix.length === 0) matrix.push("include: [{extra: 1}]");
        lines.push("      matrix:", ...matrix.map(l => "        " + l));
    }
    lines.push("    steps:",
        "      - run: echo ${{ strategy.job-index }}/${{ strategy.job-total }}/${{ strategy.max-parallel }}/${{ strategy.fail-fast }}");
    return lines.join("\n") + "\n";
}

fs.mkdirSync(dir, { recursive: true });
for (let i = 0; i < COUNT; i++) {
    const id = "m" + String(i).padStart(4, "0");
    fs.writeFileSync(path.join(dir, id + ".yml"), makeCase(id));
}
