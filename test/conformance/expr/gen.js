// Generates the expressions of the differential test, one JSON string a line:
// hand-picked cases (literals, number forms, paths, every operator and function, errors
// and limits), all comparisons between typed atoms, random trees and random edits of
// them (mostly syntax errors). Deterministic: a fixed seed, no clock.
// Usage: node gen.js NPM_DIR > expressions.jsonl
//
// Left out, because @actions/expressions differs there from GitHub's runtime and fanout
// follows the runtime: string literals with two or more '' escapes (the package's lexer
// unescapes only the first), objects with integer-like, "__proto__" or "constructor"
// keys (JavaScript object semantics), the function names "constructor" and "__proto__",
// and characters on which the package's case rules (toUpperCase for ==, < and the affix
// functions, toLowerCase for contains and keys) and the runtime's (.NET OrdinalIgnoreCase:
// each character's simple upper case, U+0131 and U+017F kept) tell different characters
// equal: the long s, final sigma, micro sign, Kelvin sign, sharp s, ... (caseAgrees
// below; test_expr.c pins the runtime's answers there). Also left
// out: a run of thousands of == (the package's recursive evaluator runs out of stack;
// fanout evaluates it, test_expr.c checks that).
import fs from "node:fs";
import path from "node:path";
import url from "node:url";

const npmDir = process.argv[2];
const { Lexer } = await import(url.pathToFileURL(
    path.join(npmDir, "node_modules/@actions/expressions/dist/index.js")).href);

let seed = 0x5eed2024;
function rand() { // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = a => a[Math.floor(rand() * a.length)];
const chance = p => rand() < p;
const quote = s => "'" + s.replace(/'/g, "''") + "'";

const out = new Set();
function add(e) { out.add(e); }

// ---- literals and numbers ----
const numbers = [
    "0", "1", "-1", "+1", "1.5", "-1.5", ".5", "-.5", "5.", "1e3", "1E3", "1e+3", "1e-3", "2.5e-7",
    "1e21", "1e-7", "1.5e-6", "123456789012345680000", "9007199254740993", "0.1", "0.30000000000000004",
    "0.3333333333333333", "3.14159", "1.7976931348623157e308", "5e-324", "1e400", "-1e400", "0x0",
    "0xff", "0XFF", "0x1F", "0x20000000000001", "0x1fffffffffffffff", "0b101", "0B11", "0o17", "0O7",
    "00", "007", "010", "0.0000152587890625", "-0.0000152587890625", "0.0000457763671875",
    "1.0000000000000002", "123.456", "1e15", "1e16", "123456789.123456789", "0.000001", "0.0000001",
    "4.35", "1.005", "2.675", "-0", "-0.0", "NaN", "Infinity", "-Infinity", "+Infinity", "1_000",
    "0x", "0xg", "1e", "1.2.3", "--1", "-0x10", "+0x10", "0b2", "0o8", "1n", ".", "-", "+", "1a", "08",
    "1.e5", ".e5", "9.999999999999999e22", "100000000000000000000", "1000000000000000000000",
    "0.1e-5", "12345678901234567890123", "4.940656458412465e-324", "2.2250738585072014e-308",
];
for (const n of numbers) {
    add(n);
    add(`format('{0}', ${n})`);
    add(`toJSON(${n})`);
    add(`${n} == ${n}`);
}
for (let i = 0; i < 60; i++) { // random doubles, printed by JavaScript
    const d = (rand() - 0.5) * Math.pow(10, Math.floor(rand() * 40) - 20);
    const s = pick([String(d), d.toPrecision(1 + Math.floor(rand() * 17)), d.toExponential(5)]);
    add(s.replace("+", ""));
    add(`format('{0}', ${s})`);
    add(`toJSON(${s})`);
}
for (const s of ["''", "'a'", "'it''s'", "'Hello World'", "'ÉCOLE'", "'école'", "'Ωmega'",
                 "'😀'", "'a\"b'", "'\\n'", "'tab\there'", "'line\nbreak'", "'{0}'", "'}}'",
                 "\"double\"", "'unterminated", "'a' 'b'", "''''", "'x'''", "true", "false",
                 "null", "True", "NULL", "nan", "infinity"])
    add(s);

// ---- contexts and paths ----
const paths = [
    "matrix", "matrix.os", "MATRIX.OS", "Matrix.Os", "matrix.node", "matrix.py", "matrix.pyNum",
    "matrix.flag", "matrix.off", "matrix.none", "matrix.zero", "matrix.neg", "matrix.big",
    "matrix.huge", "matrix.tiny", "matrix.third", "matrix.sum", "matrix.pi", "matrix.int53",
    "matrix.emptystr", "matrix.space", "matrix.numstr", "matrix.hexstr", "matrix.truestr",
    "matrix.unicode", "matrix.emoji", "matrix.quote", "matrix.braces", "matrix['mixed-Case']",
    "matrix.mixed-case", "matrix.MIXED-CASE", "matrix.upper_key", "matrix['UPPER_KEY']",
    "matrix.list", "matrix.list[0]", "matrix.list[1]", "matrix.list[6]", "matrix.list[6][1]",
    "matrix.list[7].k", "matrix.list[7].K", "matrix.list[8]", "matrix.list[99]",
    "matrix.list['1']", "matrix.list[' 1 ']", "matrix.list['0x1']", "matrix.list['']",
    "matrix.list[1.7]", "matrix.list[-1]", "matrix.list[-0.5]", "matrix.list[true]",
    "matrix.list[false]", "matrix.list[null]", "matrix.list[NaN]", "matrix.list[Infinity]",
    "matrix.list[matrix.list]", "matrix.list[1e300]", "matrix.list.length", "matrix.list.x",
    "matrix.strings", "matrix.nums", "matrix.emptyarr", "matrix.emptyobj", "matrix.nested",
    "matrix.nested.Deep", "matrix.nested.deep.X", "matrix.nested.DEEP.y[2]",
    "matrix.nested.Deep.z.w", "matrix.nested['Deep']['z']['w']", "matrix.nested.arr",
    "matrix.nested.arr.*", "matrix.nested.arr.*.v", "matrix.nested.arr.*.n",
    "matrix.nested.arr[*].v", "matrix.nested.arr.*[0]", "matrix.nested.arr.*[1]",
    "matrix.nested.arr.*['v']", "matrix.nested.arr.*.*", "matrix.nested.arr.*.x.y",
    "matrix.nested.arr.*.x.*", "matrix.nested.*", "matrix.nested.*.x", "matrix.nested.*.*",
    "matrix.nested.*.*.*", "matrix.nested.obj.*", "matrix.nested.obj.*.v",
    "matrix.nested.obj.*[0]", "matrix.*", "matrix.*.*", "matrix.strings.*", "matrix.os.*",
    "matrix.none.*", "matrix.none.x", "matrix.os.x", "matrix.os[0]", "matrix.emptyarr.*",
    "matrix.emptyarr.*.x", "matrix.nested.arr.*[matrix.zero]", "matrix.nested.arr.*[true]",
    "(matrix.nested.arr.*).v", "(matrix.nested.arr).*.v", "(matrix.nested.arr.*)[1]",
    "matrix.include[0].os", "matrix['include'][0]['node']", "matrix[matrix.os]",
    "matrix['os']", "matrix[\"os\"]", "matrix.nested.arr[matrix.strings]",
    "github.event_name", "github.event.pull_request.number", "github.event.pull_request.labels.*.name",
    "github.event.pull_request.labels.*.id", "github.event.pull_request.title",
    "github.event.commits.*.author.name", "github.event.commits.*.author",
    "github.event.commits[0].message", "github.event.commits[2].author.name",
    "github.event.pull_request.head", "github.run_number", "github.repository", "github.ref",
    "env", "env.CI", "env.EMPTY", "env.HEX", "env.SPACED", "env.FLOAT", "env.JSON", "env.mixed_case",
    "vars.RETRIES", "vars.ENABLED", "vars.LIST", "job.status", "job.container.id", "jobs",
    "steps.build.outputs.version", "steps.build.outputs", "steps['test-unit'].outcome",
    "steps.test-unit.conclusion", "steps.*.outcome", "steps.*.outputs.*", "runner.os", "runner.arch",
    "secrets.GITHUB_TOKEN", "secrets.NPM_TOKEN", "strategy['job-index']", "strategy.job-index",
    "strategy.job-total", "strategy.fail-fast", "needs.build.result", "needs.*.result",
    "needs.build.outputs.matrix", "inputs.name", "inputs.count", "inputs.debug", "inputs.level",
    "inputs.ratio", "inputs.tags", "inputs.empty", "inputs.missing", "inputs.missing.deeper",
];
for (const p of paths) {
    add(p);
    add(`toJSON(${p})`);
    add(`format('[{0}]', ${p})`);
    add(`!${p}`);
}

// ---- functions ----
const fnCases = [
    "contains('Hello', 'ell')", "contains('Hello', 'ELL')", "contains('Hello', '')", "contains('', '')",
    "contains(matrix.list, 'TWO')", "contains(matrix.list, 3.5)", "contains(matrix.list, '3.5')",
    "contains(matrix.list, null)", "contains(matrix.list, true)", "contains(matrix.list, 1)",
    "contains(matrix.list, matrix.list[6])", "contains(matrix.list, matrix.list)",
    "contains(matrix.emptyarr, 1)", "contains(matrix.nested, 'Deep')", "contains('abc', matrix.list)",
    "contains(123.5, '3.5')", "contains(true, 'ru')", "contains(null, '')", "contains(matrix.unicode, 'ÜNÏ')",
    "contains(matrix.unicode, 'ǆ')", "contains(matrix.unicode, 'S')", "contains(matrix.unicode, 'I')",
    "contains(github.event.pull_request.labels.*.name, 'ci')", "contains(matrix.strings.*, 'b')",
    "contains(fromJSON('[1,2,3]'), 2)", "contains(fromJSON('[\"1\",2]'), 1)",
    "startsWith('Hello', 'he')", "startsWith('Hello', '')", "startsWith('', 'a')", "startsWith(matrix.os, 'UBUNTU')",
    "startsWith(123, 12)", "startsWith(true, 'T')", "startsWith(null, '')", "startsWith(matrix.list, 'A')",
    "startsWith('a', matrix.list)", "startsWith(matrix.unicode, 'ωMEGA')", "startsWith(1e21, '1e')",
    "endsWith('Hello', 'LO')", "endsWith('Hello', 'Hello!')", "endsWith(matrix.pi, '159')",
    "endsWith(matrix.unicode, 'S')", "endsWith(matrix.unicode, 'ſ')", "endsWith('x', '')",
    "format('{0} {1}', 'a', 'b')", "format('{1}{0}', 1, 2)", "format('{{0}}', 1)", "format('{{{0}}}', 1)",
    "format('}}{{', 1)", "format('{0}')", "format('{1}', 1)", "format('{', 1)", "format('}', 1)",
    "format('{a}', 1)", "format('{ 0}', 1)", "format('{0 }', 1)", "format('{0:x}', 1)", "format('{00}', 1)",
    "format('{0', 1)", "format('0}', 1)", "format('{}', 1)", "format('{0}{0}', matrix.list)",
    "format('{0} {1} {2} {3}', null, true, 1.5, matrix.nested)", "format(matrix.braces, 'A')",
    "format(matrix.list, 1)", "format('x')", "format('')", "format('{0}}', 1)", "format('{{0}', 1)",
    "format('{0} {99999999999999999999}', 1)", "format('{1 {0}', 'a', 'b')", "format('a}}b{{c', 1)",
    "format('{0}', matrix.sum)", "format('{0}', matrix.third)", "format('{0}', matrix.big)",
    "format('{0}', matrix.tiny)", "format('{0}', matrix.huge)", "format('{0}', matrix.int53)",
    "join(matrix.strings)", "join(matrix.strings, ' | ')", "join(matrix.strings, '')",
    "join(matrix.list)", "join(matrix.list, null)", "join(matrix.list, true)", "join(matrix.list, 1.5)",
    "join(matrix.list, matrix.list)", "join('abc')", "join('abc', '-')", "join(1.5)", "join(null)",
    "join(matrix.nested)", "join(matrix.emptyarr)", "join(matrix.nested.arr.*.v, '+')",
    "join(github.event.commits.*.id)", "join(matrix.nested.*)",
    "toJSON(matrix)", "toJSON(github)", "toJSON(matrix.list)", "toJSON(matrix.nested)",
    "toJSON(matrix.emptyobj)", "toJSON(matrix.emptyarr)", "toJSON('a\"b\\\\c')", "toJSON('')",
    "toJSON(null)", "toJSON(true)", "toJSON(matrix.unicode)", "toJSON(matrix.emoji)",
    "toJSON(fromJSON('\"\\\\u0000\\\\u001f\\\\u007f\\\\b\\\\f\\\\n\\\\r\\\\t\\\\/\"'))",
    "toJSON(fromJSON('[1e400, -1e400]'))", "toJSON(NaN)", "toJSON(Infinity)", "toJSON(matrix.nested.arr.*)",
    "toJSON(matrix.*)", "toJSON(steps)",
    "fromJSON('1')", "fromJSON('\"x\"')", "fromJSON('null')", "fromJSON('true')", "fromJSON('[]')",
    "fromJSON('{}')", "fromJSON(' [1, 2] ')", "fromJSON('[1,2,]')", "fromJSON('{\"a\":1,}')",
    "fromJSON('{''a'':1}')", "fromJSON('[NaN]')", "fromJSON('[01]')", "fromJSON('[.5]')", "fromJSON('[1.]')",
    "fromJSON('[-]')", "fromJSON('[-0]')", "fromJSON('1e5')", "fromJSON('1E+5')", "fromJSON('[1] [2]')",
    "fromJSON('[1]\n')", "fromJSON('\t\r\n 1')", "fromJSON('')", "fromJSON('   ')", "fromJSON(null)",
    "fromJSON(matrix.list)", "fromJSON(matrix.nested)", "fromJSON(1.5)", "fromJSON(true)",
    "fromJSON('{\"a\":1,\"a\":2}')", "fromJSON('{\"a\":1,\"A\":2}')", "fromJSON('{\"A\":1,\"a\":2,\"A\":3}')",
    "fromJSON('{\"a\":{\"b\":[1,{\"c\":null}]}}').a.b[1].c", "fromJSON('\"\\\\ud83d\\\\ude00\"')",
    "fromJSON('\"\\\\u00e9\"')", "fromJSON('\"\\\\x\"')", "fromJSON('\"a\\tb\"')", "fromJSON('tru')",
    "fromJSON('nul')", "fromJSON('{\"a\" 1}')", "fromJSON('{a:1}')", "fromJSON('// c\n1')",
    "fromJSON(env.JSON)", "fromJSON(env.JSON).a[2].b", "fromJSON(env.JSON).A", "fromJSON(env.BADJSON)",
    "fromJSON(vars.LIST)", "fromJSON(vars.LIST).*", "fromJSON(vars.ENABLED)", "fromJSON(vars.RETRIES)",
    "fromJSON(steps.build.outputs.json).os[1]", "fromJSON(needs.build.outputs.matrix)",
    "fromJSON(inputs.count) + 1", "fromJSON('0x10')", "fromJSON('Infinity')", "fromJSON('-')",
    "fromJSON('1e400')", "fromJSON('[' + ']')", "fromJSON(format('[{0}]', matrix.node))",
    "case(true, 'a', 'b')", "case(false, 'a', 'b')", "case(false, 1, true, 2, 3)", "case(1, 'a', 'b')",
    "case(null, 'a', 'b')", "case('true', 'a', 'b')", "case(matrix.flag, matrix.list, matrix.nested)",
    "case(matrix.os == 'ubuntu-latest', 'linux', 'other')", "case(true, 'a')", "case(true, 'a', 'b', 'c')",
    "case(false, 'a', fromJSON('x'))", "case(true, 'a', fromJSON('x'))", "CASE(true, 1, 2)",
    "Contains('a', 'A')", "STARTSWITH('ab', 'A')", "ToJson(1)", "fromjson('1')", "FORMAT('{0}', 1)",
    "JOIN(matrix.strings)", "EndsWith('ab', 'B')",
    "contains('a')", "contains('a', 'b', 'c')", "startsWith()", "join()", "join(1, 2, 3)", "toJSON()",
    "toJSON(1, 2)", "fromJSON()", "case()", "case(true)", "case(true, 1)", "nofunc()",
    "success(1)", "always(1)", "hashFiles()", "contains('a',)", "contains('a', 'b',)", "format('x',)",
    "contains(,'a')", "contains('a' 'b')", "contains('a', 'b'", "contains(", "format('{0}', 1,)",
    "toJSON(1,,)",
];
for (const f of fnCases)
    add(f);
const fmtArgs = Array.from({ length: 254 }, (_, i) => String(i)).join(", ");
add(`format('{253}', ${fmtArgs})`);
add(`format('{0}', ${fmtArgs}, 254)`);

// ---- case-insensitive comparison ----
// One rule in every comparison, over letters of many scripts (those where the package
// and the runtime agree; the others are left out, see the top).
const cased = ["a", "A", "é", "É", "ÿ", "Ÿ", "ǅ", "Ǆ", "ǆ", "ω", "Ω", "ж", "Ж", "ա", "Ա", "ⓐ", "Ⓐ", "ａ",
               "Ａ", "ꙁ", "Ꙁ", "ᏸ", "Ᏸ", "𐐨", "𐐀", "𞤢", "𞤀", "ı", "I", "i", "ß", "ſ", "ς", "σ", "Σ",
               "µ", "μ", "K", "k", "ᾳ", "ᾼ", "İ", "ǈ"];
for (const a of cased) {
    for (const b of cased) {
        add(`${quote(a)} == ${quote(b)}`);
        add(`${quote("x" + a)} < ${quote("x" + b)}`);
        add(`contains(${quote("<" + a + ">")}, ${quote(b)})`);
        add(`startsWith(${quote(a + "z")}, ${quote(b)})`);
        add(`endsWith(${quote("z" + a)}, ${quote(b)})`);
        add(`contains(fromJSON(${quote(JSON.stringify(["y", a]))}), ${quote(b)})`);
        add(`fromJSON(${quote(JSON.stringify({ [a]: 1 }))})[${quote(b)}]`);
    }
}

// ---- known values a residual must write: ±Infinity inside arrays and objects ----
// (expr.sh also runs the set with one context unknown first, then the residual.)
const infinite = ["fromJSON('[1e400]')", "fromJSON('[-1e400, 1]')", "fromJSON('{\"a\": 1e400}')",
                  "fromJSON('[{\"a\": -1e400}]').*", "fromJSON('{\"a\": {\"b\": [1e400]}}')"];
for (const v of infinite) {
    for (const u of ["matrix.none", "matrix.os", "matrix.flag", "github.event_name", "env.CI"]) {
        for (const t of [`${u} || ${v}`, `${u} && ${v}`, `${v} == ${u}`, `contains(${v}, ${u})`,
                         `${v}[${u}]`, `toJSON(${u} || ${v})`, `join(${u} && ${v})`,
                         `case(${u} == ${u}, ${v}, 0)`, `format('{0}', ${u} || ${v})`,
                         `!(${u} || ${v})`, `(${u} || ${v}).*`, `(${u} && ${v}).a`])
            add(t);
    }
}

// ---- operators ----
const atoms = [
    "null", "true", "false", "0", "-0", "1", "-1", "1.5", "2", "NaN", "Infinity", "-Infinity", "''",
    "'0'", "'1'", "'1.5'", "' 1 '", "'0x10'", "'16'", "'abc'", "'ABC'", "'abd'", "'true'", "'false'",
    "'null'", "' '", "'Infinity'", "'-Infinity'", "'1e1'", "'ı'", "'I'", "'é'", "'É'", "'😀'",
    "matrix.list", "matrix.nested", "matrix.emptyarr", "matrix.emptyobj", "matrix.none",
    "matrix.node", "matrix.numstr", "matrix.hexstr", "matrix.os", "matrix.flag", "matrix.nested.arr.*",
    "fromJSON('[]')", "matrix.list[6]",
];
const ops = ["==", "!=", "<", "<=", ">", ">="];
for (const a of atoms) {
    for (const b of atoms) {
        if (chance(0.3))
            add(`${a} ${pick(ops)} ${b}`);
    }
}
for (const op of ops) {
    add(`matrix.list ${op} matrix.list`);
    add(`matrix.nested ${op} matrix.nested`);
    add(`matrix.nested.arr.* ${op} matrix.nested.arr.*`);
    add(`fromJSON('[]') ${op} fromJSON('[]')`);
    add(`1 ${op} 2 ${op} 3`);
    add(`'b' ${op} 'a' ${op} true`);
}
for (const a of atoms) {
    add(`${a} && 'yes'`);
    add(`${a} || 'no'`);
    add(`!${a}`);
    add(`!!${a}`);
}
add("true && false || true");
add("true || false && false");
add("(true || false) && false");
add("1 && 2 && 3");
add("0 || '' || null");
add("null || matrix.list");
add("matrix.none || matrix.emptystr || matrix.zero || matrix.off");
add("matrix.os == 'ubuntu-latest' && matrix.node >= 16 && 'run'");
add("!matrix.flag || matrix.node < 20");
add("1 == 1 == 1");
add("2 > 1 > 0");
add("(1 == 1) == (2 == 2)");
add("1 < 2 == 2 > 1");
add("!1 == false");
add("! 1");
add("!(1)");

// ---- syntax and limits ----
const syntax = [
    "", " ", "   \t\n ", "(", ")", "()", "(1", "1)", "(1))", "[1]", "1 2", "1 == ", "== 1", "1 =", "1 = 1",
    "a & b", "1 & 2", "1 | 2", "1 === 1", "1 !== 1", "!", "!!", "1 !", "matrix.", "matrix..os",
    "matrix.['os']", "matrix[", "matrix[]", "matrix['os'", "matrix.os.", "matrix.0", "matrix.1os",
    "matrix.os-", "matrix.-os", "matrix*", "matrix.**", "matrix[*]", "matrix[*].os", "matrix.*os",
    "'a'.length", "'a'[0]", "('a')[0]", "(matrix.list)[1]", "1[0]", "(1)[0]", "null.x", "true.x",
    "foo", "foo.bar", "Github.ref", "github .ref", "github. ref", "github . ref", "github\n.ref",
    "github\t.\tref", "matrix['os']['x']", "matrix . os", "matrix\u00a0.os", "matrix.os\u00a0",
    "\u00a0matrix.os", "matrix.os\u2028", "matrix.\u00e9", "é", "matrix.os == \"x\"", "`x`", "#x",
    "matrix.os; 1", "1,2", "(1,2)", "matrix.os,", "*", ".", "..", "1..2", "1.2.3", ".5.5", "a-b",
    "matrix-os", "_", "_.x", "github.event.pull_request.labels[*]", "github['event']", "[github]",
    "contains", "contains.x", "contains ('a', 'b')", "matrix (1)", "matrix.os (1)", "(matrix).os",
    "(matrix)['os']", "(matrix.os)", "((((1))))", "1 < 2 < 3", "!!!!!!true", "1 == == 1",
    "true false", "null null", "'a''b'", "'a'''", "'''", "'", "'\u0000'", "matrix.os\u0000",
];
for (const s of syntax)
    add(s);
for (const n of [47, 48, 49, 50, 51]) {
    add("!".repeat(n) + "true");
    add("(".repeat(n) + "1" + ")".repeat(n));
    add("matrix" + ".nested".repeat(n));
    add("toJSON(".repeat(n) + "1" + ")".repeat(n));
    add("matrix.list[".repeat(n) + "0" + "]".repeat(n));
    add("1 == ".repeat(n * 3) + "1");
    add(Array.from({ length: n }, (_, i) => i % 2 ? "true" : "1").join(" && "));
    add("(".repeat(n - 2) + "true && false || 1" + ")".repeat(n - 2));
    add("!(".repeat(Math.floor(n / 2)) + "1" + ")".repeat(Math.floor(n / 2)));
}
add("'" + "a".repeat(20998) + "'");
add("'" + "a".repeat(20999) + "'");
add("'" + "😀".repeat(10499) + "'");
add("'" + "😀".repeat(10500) + "'");
add("'" + "é".repeat(20998) + "'");
add("'" + "é".repeat(20999) + "'");

// ---- random trees ----
const leafs = [...atoms, ...paths.filter(p => !p.includes("\"")), "fromJSON(env.JSON)"];
function tree(d) {
    if (d <= 0 || chance(0.25))
        return pick(leafs);
    switch (Math.floor(rand() * 9)) {
    case 0:
        return "!" + tree(d - 1);
    case 1:
    case 2:
        return tree(d - 1) + " " + pick(ops) + " " + tree(d - 1);
    case 3:
        return tree(d - 1) + pick([" && ", " || "]) + tree(d - 1);
    case 4:
        return "(" + tree(d - 1) + ")";
    case 5:
        return pick(["contains", "startsWith", "endsWith"]) + "(" + tree(d - 1) + ", " + tree(d - 1) + ")";
    case 6:
        return pick([
            () => "format(" + quote(pick(["{0}", "{0}-{1}", "x{{{0}}}", "{1}", "[{0}]"])) + ", " + tree(d - 1) + ", " + tree(d - 1) + ")",
            () => "join(" + tree(d - 1) + (chance(0.5) ? ", " + tree(d - 1) : "") + ")",
            () => "toJSON(" + tree(d - 1) + ")",
            () => "fromJSON(toJSON(" + tree(d - 1) + "))",
            () => "case(" + tree(d - 1) + ", " + tree(d - 1) + ", " + tree(d - 1) + ")",
        ])();
    case 7:
        return "(" + tree(d - 1) + ")[" + tree(d - 1) + "]";
    default:
        return "(" + tree(d - 1) + ")." + pick(["x", "v", "n", "*", "os", "Deep", "list"]);
    }
}
const trees = [];
for (let i = 0; i < 900; i++) {
    const t = tree(1 + Math.floor(rand() * 4));
    trees.push(t);
    add(t);
}

// ---- random edits (mostly syntax errors) ----
const edits = ["(", ")", "[", "]", ".", ",", "!", "=", "<", ">", "&", "|", "'", "\"", "*", " ", "0", "1",
               "a", "-", "+", "e", "x", "{", "}"];
for (let i = 0; i < 700; i++) {
    let t = pick(trees);
    const at = Math.floor(rand() * (t.length + 1));
    if (chance(0.5))
        t = t.slice(0, at) + pick(edits) + t.slice(at);
    else
        t = t.slice(0, at) + t.slice(at + 1 + Math.floor(rand() * 3));
    add(t);
}

// ---- filter (see the top) and write ----
function intKey(o) {
    if (o === null || typeof o !== "object")
        return false;
    if (Array.isArray(o)) // indices are no keys
        return o.some(intKey);
    for (const k of Object.keys(o)) {
        if (/^(0|[1-9][0-9]*)$/.test(k) || k.toLowerCase() === "__proto__" || k.toLowerCase() === "constructor")
            return true;
        if (intKey(o[k]))
            return true;
    }
    return false;
}
// Whether the package and the runtime split the characters of `e`, with the letters the
// contexts hold, into the same classes of case-insensitively equal ones.
const contextLetters = new Set([...fs.readFileSync(path.join(path.dirname(url.fileURLToPath(import.meta.url)),
    "contexts.json"), "utf8")].filter(c => /\p{L}/u.test(c)));
function caseAgrees(e) {
    const runtime = new Map(), lower = new Map(), classes = new Set();
    for (const c of new Set([...e, ...contextLetters, ..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"])) {
        const u = c.toUpperCase(), l = c.toLowerCase();
        if (c === "ſ" || [...u].length !== 1 || [...l].length !== 1)
            return false; // the runtime keeps ſ, maps to one character, or does not map
        const r = c === "ı" ? c : u; // toUpperSpecial keeps ı too
        for (const [m, k] of [[runtime, r], [lower, l]]) {
            if (!m.has(k))
                m.set(k, m.size);
        }
        classes.add(runtime.get(r) + "," + lower.get(l));
    }
    return classes.size === runtime.size && classes.size === lower.size;
}
function kept(e) {
    if (/constructor|__proto__/i.test(e) || !e.isWellFormed()) // an edit may split a surrogate pair
        return false;
    if (!caseAgrees(e))
        return false;
    let tokens;
    try {
        tokens = new Lexer(e).lex().tokens;
    } catch {
        return true;
    }
    for (const t of tokens) {
        if (t.type !== 18) // STRING
            continue;
        const inner = t.lexeme.slice(1, -1);
        if (inner.split("''").length > 2)
            return false;
        try {
            if (intKey(JSON.parse(inner.replace(/''/g, "'"))))
                return false;
        } catch {
            // not JSON
        }
    }
    return true;
}
let lines = "";
for (const e of out) {
    if (kept(e))
        lines += JSON.stringify(e) + "\n";
}
process.stdout.write(lines);
