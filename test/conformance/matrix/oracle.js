// An independent oracle for GitHub's matrix expansion and job display names: a
// transcription (ours, in JavaScript) of the C# that GitHub runs, from actions/runner at
// commit 258d6c857db3519913f7deb6004b60172f8043ae (2026-08-17):
//   src/Sdk/WorkflowParser/Conversion/YamlObjectReader.cs          how a scalar is typed
//   src/Sdk/WorkflowParser/ObjectTemplating/TemplateReader.cs       ParseScalar: ${{ }} in a string (${{ 'text' }} a literal)
//   src/Sdk/WorkflowParser/ObjectTemplating/Tokens/TemplateToken.cs an expression's result as a token
//   src/Sdk/WorkflowParser/ObjectTemplating/TemplateEvaluator.cs    Validate: a scalar where a string is wanted
//   src/Sdk/WorkflowParser/Conversion/WorkflowTemplateConverter.cs  ConvertToStrategy (lines 855-1053)
//   src/Sdk/WorkflowParser/WorkflowTemplateEvaluator.cs             EvaluateStrategy (139-199), EvaluateJobName (201-234)
//   src/Sdk/WorkflowParser/Conversion/MatrixBuilder.cs              Build, MatrixInclude, MatrixExclude, MatrixFilter
//   src/Sdk/WorkflowParser/Conversion/JobNameBuilder.cs             "name (a, b)" and the cut at 100
//   src/Sdk/Expressions/Data/NumberExpressionData.cs                numbers in names: ToString("G15")
//   src/Sdk/Expressions/Data/ExpressionDataExtensions.cs            Traverse(omitKeys: true)
//   src/Sdk/Expressions/Data/DictionaryExpressionData.cs            keys ignore case, the first spelling stays
//   src/Sdk/Expressions/Sdk/ExpressionUtility.cs                    ConvertToParseToken: the filter literals
//   src/Sdk/Expressions/EvaluationResult.cs                         ConvertToString (G15, -0 as 0)
// The filter expressions MatrixBuilder builds (`matrix['os'] == 'linux'`) and the ${{ }} in
// strategy values and job names are evaluated by @actions/expressions (npm, GitHub's own
// evaluator, pinned by package-lock.json). Two things come from outside the runner: the
// service's limit of 256 jobs per matrix (docs: "A matrix will generate a maximum of 256
// jobs per workflow run"), and which name the strategy gets (the written `name` when it has
// no ${{ }}, else the job id; an expression name is evaluated per configuration and an
// empty result falls back to the strategy's name), as GitHub displays them.
// actions/languageservices (commit 4043eda158e16579cc5fb1b0b07a4bce2a76f0b5) has no matrix
// expansion: its languageservice/src/context-providers/matrix.ts only lists the keys.
//
// Usage as a library: read/readAll(text) -> workflow tokens; expandWorkflow(text) and
// expandJob(id, job) -> per job its configurations or an error; the CLI is at the end.
import path from "node:path";
import url from "node:url";

let YAML, X;

export async function load(npmDir) {
    const mod = p => import(url.pathToFileURL(path.join(npmDir, "node_modules", p)).href);
    YAML = await mod("yaml/dist/index.js");
    X = await mod("@actions/expressions/dist/index.js");
}

// ---- values ----
// Tokens and values share one shape: null, true/false, numbers, strings, arrays, and Dict
// (ordered pairs, keys looked up ignoring case, as DictionaryExpressionData does; a
// mapping token keeps its pairs in order the same way). A string with ${{ }} is read as
// {expr: [segments], raw}, its segments strings or {code}.
export class Dict {
    constructor() { this.keys = []; this.vals = []; }
    index(k) {
        const u = k.toUpperCase();
        return this.keys.findIndex(x => x.toUpperCase() === u);
    }
    has(k) { return this.index(k) >= 0; }
    get(k) { const i = this.index(k); return i < 0 ? undefined : this.vals[i]; }
    add(k, v) { this.keys.push(k); this.vals.push(v); }
    // DictionaryExpressionData's indexer: an existing key keeps its first spelling
    set(k, v) { const i = this.index(k); if (i < 0) this.add(k, v); else this.vals[i] = v; }
    get size() { return this.keys.length; }
    *[Symbol.iterator]() { for (let i = 0; i < this.keys.length; i++) yield [this.keys[i], this.vals[i]]; }
}
const isDict = v => v instanceof Dict;

// Hooks for naming a disagreement (classes.js): each replaces one rule of GitHub's with
// the behaviour of the implementation under test. None while the oracle speaks for GitHub.
let hooks = {};
function withHooks(h, f) {
    const saved = hooks;
    if (h !== undefined) hooks = h;
    try { return f(); } finally { hooks = saved; }
}
const isExpr = v => v !== null && typeof v === "object" && "expr" in v;

class Reject extends Error {}
const reject = msg => { throw new Reject(msg); };

// @actions/expressions' own string form of a number (not GitHub's runtime's: classes.js)
export function jsNumberString(v) {
    return new X.data.NumberData(v).coerceString();
}

// .NET's Double.ToString("G15", InvariantCulture) (.NET Core 3.0+): 15 significant digits,
// trailing zeros dropped, scientific when the exponent is below -4 or above 14, the
// exponent with a sign and at least two digits, "-0" for negative zero.
export function g15(x) {
    if (Number.isNaN(x)) return "NaN";
    if (x === Infinity) return "Infinity";
    if (x === -Infinity) return "-Infinity";
    if (x === 0) return Object.is(x, -0) ? "-0" : "0";
    const [mant, expText] = Math.abs(x).toExponential(14).split("e");
    const e = Number(expText);
    const digits = mant.replace(".", "").replace(/0+$/, "");
    let out;
    if (e > -5 && e < 15) {
        if (e >= 0) {
            const whole = digits.slice(0, e + 1).padEnd(e + 1, "0"), frac = digits.slice(e + 1);
            out = frac ? whole + "." + frac : whole;
        } else {
            out = "0." + "0".repeat(-e - 1) + digits;
        }
    } else {
        out = digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "") +
            "E" + (e < 0 ? "-" : "+") + String(Math.abs(e)).padStart(2, "0");
    }
    return (x < 0 ? "-" : "") + out;
}

// ---- YAML, as YamlObjectReader types a scalar ----
// A tagged scalar: !!str is a string; other tags need the plain style and their own
// match. An untagged plain scalar: null, boolean, integer, float (YAML 1.2 core, with
// the C#'s own parsing: hex and octal as Int32, overflow an error); any other style is
// a string.
function matchNull(s) { return ["", "null", "Null", "NULL", "~"].includes(s); }
function matchBoolean(s) {
    if (["true", "True", "TRUE"].includes(s)) return true;
    if (["false", "False", "FALSE"].includes(s)) return false;
    return undefined;
}
function int32(v) { return v | 0; } // Int32.TryParse(AllowHexSpecifier) reads 8 hex digits as two's complement
function matchInteger(s) {
    if (s === "") return undefined;
    if (/^[0-9]+$/.test(s) || /^[-+][0-9]+$/.test(s)) return Number(s); // Double.TryParse; overflow is Infinity since .NET Core 3.0
    if (/^0x[0-9a-fA-F]+$/.test(s)) {
        const hex = s.slice(2).replace(/^0+(?=.)/, "");
        if (hex.length > 8) reject(`integer out of Int32 range: ${s}`);
        return int32(parseInt(hex, 16));
    }
    if (/^0o[0-7]+$/.test(s)) {
        const v = parseInt(s.slice(2), 8); // Convert.ToInt32(s, 8): up to 32 bits, two's complement
        if (v > 0xffffffff) reject(`integer out of Int32 range: ${s}`);
        return int32(v);
    }
    return undefined;
}
function matchFloat(s) {
    if (s === "") return undefined;
    if ([".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"].includes(s)) return Infinity;
    if (["-.inf", "-.Inf", "-.INF"].includes(s)) return -Infinity;
    if ([".nan", ".NaN", ".NAN"].includes(s)) return NaN;
    if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(s)) return Number(s);
    return undefined;
}
function typedPlain(s) {
    if (matchNull(s)) return null;
    const b = matchBoolean(s);
    if (b !== undefined) return b;
    let n = matchInteger(s);
    if (n === undefined) n = matchFloat(s);
    return n === undefined ? s : n;
}
function literal(node) {
    const s = String(node.value ?? "");
    if (node.tag) {
        if (node.tag === "tag:yaml.org,2002:str") return s;
        if (node.type !== "PLAIN") reject(`a ${node.type} scalar cannot have the tag ${node.tag}`);
        let v;
        switch (node.tag) {
        case "tag:yaml.org,2002:null": if (matchNull(s)) return null; break;
        case "tag:yaml.org,2002:bool": v = matchBoolean(s); break;
        case "tag:yaml.org,2002:int": v = matchInteger(s); break;
        case "tag:yaml.org,2002:float": v = matchFloat(s); break;
        }
        if (v === undefined) reject(`'${s}' is not a valid ${node.tag}`);
        return v;
    }
    return node.type === "PLAIN" ? typedPlain(s) : s;
}

// TemplateReader.ParseScalar: a string holding ${{ is split into text and expressions
// ('...' inside an expression hides }}).
function parseScalar(s) {
    if (typeof s !== "string" || !s.includes("${{")) return s;
    const segments = [];
    let i = 0;
    while (i < s.length) {
        const start = s.indexOf("${{", i);
        if (start < 0) { segments.push(s.slice(i)); break; }
        if (start > i) segments.push(s.slice(i, start));
        let end = -1, inString = false;
        for (let j = start + 3; j < s.length; j++) {
            if (s[j] === "'") inString = !inString;
            else if (!inString && s[j] === "}" && s[j - 1] === "}") { end = j; break; }
        }
        if (end < 0) reject("expression not closed");
        segments.push({ code: s.slice(start + 3, end - 1) });
        i = end + 1;
    }
    // A lone string literal, ${{ 'text' }}, is that string at once (IsExpressionString):
    // a literal, so a job name written so is extended with the matrix values as any.
    if (segments.length === 1 && typeof segments[0] !== "string") {
        const str = expressionString(segments[0].code.trim());
        if (str !== undefined) return str;
    }
    return { expr: segments, raw: s };
}

// TemplateReader.IsExpressionString: the string an expression is when it is nothing but
// one string literal ('' inside it a quote), else undefined.
function expressionString(code) {
    let out = "", inString = false;
    for (let i = 0; i < code.length; i++) {
        const c = code[i];
        if (c === "'") {
            inString = !inString;
            if (inString && i !== 0) out += c;
        } else if (!inString) {
            return undefined;
        } else {
            out += c;
        }
    }
    return out;
}

function token(node) {
    if (node === null || node === undefined) return null;
    if (YAML.isAlias(node)) reject("aliases are not generated");
    if (YAML.isMap(node)) {
        const d = new Dict();
        for (const p of node.items) {
            let k = literal(p.key);
            // TemplateReader: a key that is not a string becomes one (its ToString())
            k = k === null ? "" : typeof k === "string" ? k : typeof k === "number" ? g15(k) : String(k);
            if (d.has(k)) reject(`'${k}' is already defined`); // TemplateReader: keys are unique ignoring case
            d.add(k, token(p.value));
        }
        return d;
    }
    if (YAML.isSeq(node)) return node.items.map(token);
    return parseScalar(literal(node));
}

const YAML_OPTIONS = { schema: "failsafe", uniqueKeys: false };
function fromDocument(doc) {
    if (doc.errors.length) reject("YAML: " + doc.errors[0].message.split("\n")[0]);
    return token(doc.contents);
}
// (the parsed documents are kept: a case is read again under each class's hooks)
const parsed = new Map();
export function read(text) {
    if (!parsed.has(text)) parsed.set(text, YAML.parseDocument(text, YAML_OPTIONS));
    return fromDocument(parsed.get(text));
}
// Each document of a YAML stream: its tokens, or { error }.
export function readAll(text) {
    return YAML.parseAllDocuments(text, YAML_OPTIONS).map(doc => {
        try { return fromDocument(doc); } catch (e) { if (e instanceof Reject) return { error: e.message }; throw e; }
    });
}

// ---- expressions, by @actions/expressions ----
function toData(v) {
    const D = X.data;
    if (v === null || v === undefined) return new D.Null();
    if (typeof v === "boolean") return new D.BooleanData(v);
    if (typeof v === "number") return new D.NumberData(v);
    if (typeof v === "string") return new D.StringData(v);
    if (Array.isArray(v)) return new D.Array(...v.map(toData));
    const out = new D.Dictionary();
    for (const [k, x] of v) out.add(k, toData(x));
    return out;
}
function fromData(d) {
    const K = X.data.Kind;
    switch (d.kind) {
    case K.Null: return null;
    case K.Boolean: case K.Number: case K.String: return d.value;
    case K.Array: return d.values().map(fromData);
    case K.Dictionary: {
        const out = new Dict();
        for (const p of d.pairs()) out.add(p.key, fromData(p.value));
        return out;
    }
    }
    throw new Error("unknown kind " + d.kind);
}
// The package's lexer unescapes only the first '' of a string literal; GitHub's
// (LexicalAnalyzer.cs) all of them: the tokens are mended before parsing.
function parseExpression(code, names) {
    const lexed = new X.Lexer(code).lex();
    for (const t of lexed.tokens)
        if (t.type === 18 /* STRING */) t.value = t.lexeme.slice(1, -1).replace(/''/g, "'");
    return new X.Parser(lexed.tokens, names, []).parse();
}
function evaluate(code, names, contexts) {
    let tree;
    try { tree = parseExpression(code, names); } catch (e) { reject(`expression ${code}: ${e.message}`); }
    const ctx = new X.data.Dictionary();
    for (const [k, v] of Object.entries(contexts)) ctx.add(k, toData(v));
    try { return fromData(new X.Evaluator(tree, ctx).evaluate()); } catch (e) { reject(`expression ${code}: ${e.message}`); }
}
// EvaluationResult.ConvertToString
function convertToString(v) {
    if (v === null) return "";
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "number") return hooks.exprNumber ? hooks.exprNumber(v) : v === 0 ? "0" : g15(v);
    if (typeof v === "string") return v;
    return Array.isArray(v) ? "Array" : "Object";
}
// An expression token's value: a lone expression keeps its type (TemplateToken
// .ConvertToTemplateToken), text around it makes it format(...), a string.
function evalExpr(e, names, contexts) {
    const segs = e.expr;
    if (segs.length === 1 && typeof segs[0] !== "string") return evaluate(segs[0].code, names, contexts);
    return segs.map(s => typeof s === "string" ? s : convertToString(evaluate(s.code, names, contexts))).join("");
}
// TemplateEvaluator over a subtree whose definitions all allow `names`.
function evalTree(t, names, contexts) {
    if (isExpr(t) && hooks.keepExpressions) return t.raw;
    if (isExpr(t)) return evalTree(evalExpr(t, names, contexts), [], {}); // a result is not read again
    if (Array.isArray(t)) return t.map(x => evalTree(x, names, contexts));
    if (isDict(t)) {
        const d = new Dict();
        for (const [k, v] of t) {
            if (d.has(k)) reject(`'${k}' is already defined`);
            d.add(k, evalTree(v, names, contexts));
        }
        return d;
    }
    return t;
}

// A value as GitHub reads it again from a rendering's `include` row: the strategy's
// ${{ }} evaluated.
export function reread(v) {
    const parse = x => typeof x === "string" ? parseScalar(x)
        : Array.isArray(x) ? x.map(parse)
        : isDict(x) ? (() => { const d = new Dict(); for (const [k, y] of x) d.add(k, parse(y)); return d; })()
        : x;
    return withHooks({}, () => {
        try { return evalTree(parse(v), STRATEGY_CONTEXTS, {}); }
        catch (e) { if (e instanceof Reject) return "(GitHub rejects the value: " + e.message + ")"; throw e; }
    });
}

// ---- MatrixBuilder ----
// ExpressionUtility.ConvertToParseToken
function parseToken(v) {
    if (v === null) return "null";
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "number") return hooks.filterNumber ? hooks.filterNumber(v) : g15(v);
    return "'" + v.replace(/'/g, "''") + "'";
}
// MatrixFilter: one `path == literal` expression per leaf of the filter mapping (keys as
// ['key'], list items as [0]); a filter with no leaves matches every configuration.
export class MatrixFilter {
    constructor(filter) {
        this.trees = [];
        const walk = (p, v) => {
            if (isDict(v)) { for (const [k, x] of v) walk(`${p}[${parseToken(k)}]`, x); return; }
            if (Array.isArray(v)) { v.forEach((x, i) => walk(`${p}[${parseToken(i)}]`, x)); return; }
            this.trees.push(leafTest(p, v));
        };
        for (const [k, v] of filter) walk(`matrix[${parseToken(k)}]`, v);
    }
    match(matrix) {
        const ctx = context(matrix);
        return this.trees.every(tree => holds(tree, ctx)); // IsFalsy: each leaf is a boolean ==
    }
}

export function leafTest(p, v) {
    return parseExpression(`${p} == ${parseToken(v)}`, ["matrix"]);
}
// the expression contexts of a filter: `matrix` (converted once per configuration)
const contexts = new WeakMap();
export function context(matrix) {
    if (!contexts.has(matrix)) contexts.set(matrix, new X.data.Dictionary({ key: "matrix", value: toData(matrix) }));
    return contexts.get(matrix);
}
export function holds(tree, ctx) {
    return !!new X.Evaluator(tree, ctx).evaluate().value;
}

// Traverse(omitKeys: true): every value depth-first; JobNameBuilder keeps the scalars
// (booleans, numbers in G15, strings) that are not empty.
function* leaves(v) {
    if (isDict(v)) { for (const [, x] of v) yield* leaves(x); return; }
    if (Array.isArray(v)) { for (const x of v) yield* leaves(x); return; }
    yield v;
}
function segment(v) {
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "number") return hooks.numberSegment ? hooks.numberSegment(v) : g15(v);
    if (typeof v === "string") return v;
    return "";
}
export function jobNameBuild(jobName, segments) {
    let name = segments.length ? `${jobName} (${segments.join(", ")})` : jobName;
    if (hooks.cut) return hooks.cut(name);
    if (name.length > 100) name = name.slice(0, 97) + "...";
    return name;
}
function configurationName(jobName, matrix) {
    return jobNameBuild(jobName, [...leaves(matrix)].map(segment).filter(s => s !== ""));
}

const newFilter = f => hooks.filter ? hooks.filter(f) : new MatrixFilter(f);

function build(vectors, includeSeq, excludeSeq, jobName) {
    // MatrixInclude: each entry's vector keys are its filter, the others its extra
    const includes = [];
    for (const item of includeSeq || []) {
        if (!isDict(item)) reject("a matrix include item must be a mapping");
        const filter = new Dict(), extra = new Dict();
        for (const [k, v] of item) (vectors.has(k) ? filter : extra).add(k, v);
        if (filter.size === 0 && extra.size === 0) reject("Matrix include mapping does not contain any values");
        includes.push({ filter, extra, test: newFilter(filter), matched: false });
    }
    // MatrixExclude: not empty, every key a vector
    const excludes = [];
    for (const item of excludeSeq || []) {
        if (!isDict(item)) reject("a matrix exclude item must be a mapping");
        if (item.size === 0) reject("Matrix exclude filter must not be empty");
        for (const [k] of item)
            if (!vectors.has(k)) reject(`Matrix exclude key '${k}' does not match any key within the matrix`);
        excludes.push(newFilter(item));
    }
    let productSize = vectors.size ? 1 : 0;
    for (const [, v] of vectors) {
        productSize *= v.length;
        if (productSize > 2147483647) reject("the product overflows Int32 (checked)");
    }
    const out = [];
    for (let p = 0; p < productSize; p++) {
        const matrix = new Dict();
        let block = productSize;
        for (const [k, v] of vectors) {
            block /= v.length;
            matrix.add(k, v[Math.floor(p / block) % v.length]);
        }
        if (excludes.some(f => f.match(matrix))) continue;
        let extra = null;
        for (const inc of includes) {
            if (!inc.test.match(matrix)) continue;
            inc.matched = true;
            extra = extra || new Dict();
            for (const [k, v] of inc.extra) extra.set(k, v);
        }
        const name = configurationName(jobName, matrix); // before the extras
        if (extra) for (const [k, v] of extra) matrix.add(k, v);
        out.push({ name, matrix });
    }
    for (const inc of includes) {
        if (inc.matched) continue;
        const matrix = new Dict();
        for (const [k, v] of inc.filter) matrix.add(k, v);
        for (const [k, v] of inc.extra) matrix.add(k, v);
        out.push({ name: configurationName(jobName, matrix), matrix });
    }
    return out;
}

const STRATEGY_CONTEXTS = ["github", "inputs", "vars", "needs"];
const NAME_CONTEXTS = ["github", "inputs", "vars", "needs", "strategy", "matrix"];

// WorkflowTemplateConverter.ConvertToStrategy, then EvaluateStrategy's default
// configuration when there is none, then the job's display name for each.
export function expandJob(jobId, job, h) {
    return withHooks(h, () => {
        try { return { configs: expandJobOrThrow(jobId, job) }; }
        catch (e) { if (e instanceof Reject) return { error: e.message }; throw e; }
    });
}
function expandJobOrThrow(jobId, job) {
    if (!isDict(job)) reject("a job must be a mapping");
    const nameToken = job.get("name");
    // a written name that is no string is one (TemplateEvaluator.Validate: ToString())
    const written = nameToken === null || nameToken === undefined || isExpr(nameToken) ? "" : segment(nameToken);
    const jobName = written !== "" ? written : jobId;
    let failFast = true, maxParallel = 0, maxParallelWritten, configs = [];
    let strategy = job.get("strategy"), singleInclude = false;
    if (strategy !== undefined && strategy !== null) {
        if (hooks.keepExpressions && isDict(strategy) && isDict(strategy.get("matrix"))) {
            // (fanout evaluates a whole vector that is one ${{ }}, and keeps the others)
            const m = strategy.get("matrix"), evaluated = new Dict();
            for (const [k, v] of m)
                evaluated.add(k, isExpr(v) && k !== "include" && k !== "exclude"
                    ? withHooks({}, () => evalTree(v, STRATEGY_CONTEXTS, {})) : v);
            strategy = Object.assign(new Dict(), strategy);
            strategy.vals = strategy.keys.map((k, i) => k === "matrix" ? evaluated : strategy.vals[i]);
        }
        strategy = evalTree(strategy, STRATEGY_CONTEXTS, {});
        if (!isDict(strategy)) reject("strategy must be a mapping");
        let vectors = null, include = null, exclude = null;
        for (const [k, v] of strategy) {
            if (k === "fail-fast") {
                if (typeof v !== "boolean") reject("fail-fast must be a boolean");
                failFast = v;
            } else if (k === "max-parallel") {
                if (typeof v !== "number") reject("max-parallel must be a number");
                maxParallel = Math.trunc(v) | 0; // (Int32) of a double in range
                maxParallelWritten = v;
            } else if (k === "matrix") {
                if (!isDict(v)) reject("matrix must be a mapping");
                vectors = new Dict();
                let hasVector = false, hasInclude = false;
                for (const [mk, mv] of v) {
                    if (mk === "include") { // the switch is ordinal: `Include` is a vector
                        if (!Array.isArray(mv)) reject("matrix include must be a sequence");
                        hasInclude = mv.length > 0;
                        include = mv;
                    } else if (mk === "exclude") {
                        if (!Array.isArray(mv)) reject("matrix exclude must be a sequence");
                        exclude = mv;
                    } else {
                        hasVector = true;
                        if (!Array.isArray(mv)) reject(`matrix vector '${mk}' must be a sequence`);
                        if (mv.length === 0) reject(`Matrix vector '${mk}' does not contain any values`);
                        vectors.add(mk, mv);
                    }
                }
                if (!hasVector && !hasInclude) reject("Matrix must define at least one vector");
            } else {
                reject(`unexpected strategy key '${k}'`);
            }
        }
        if (vectors) configs = build(vectors, include, exclude, jobName);
        singleInclude = vectors !== null && vectors.size === 0 && configs.length === 1;
        if (configs.length > 256) reject(`${configs.length} jobs: a matrix makes at most 256`);
    }
    let result;
    if (configs.length === 0) {
        result = [{ name: jobNameBuild(jobName, []), matrix: null,
                    strategy: { "fail-fast": failFast, "job-index": 0, "job-total": 1, "max-parallel": 1 } }];
    } else {
        result = configs.map((c, i) => ({
            name: c.name, matrix: c.matrix,
            strategy: { "fail-fast": failFast, "job-index": i, "job-total": configs.length,
                        "max-parallel": maxParallel > 0 ? maxParallel : configs.length } }));
    }
    if (hooks.maxParallel)
        for (const c of result) c.strategy["max-parallel"] = hooks.maxParallel(maxParallelWritten, configs.length || 1);
    if (isExpr(nameToken)) {
        for (const c of result) {
            const v = nameValue(nameToken, c.matrix, c.strategy);
            // EvaluateJobName: an empty result falls back to the default name
            if (v !== "" || (hooks.nullMatrixName && c.matrix === null) || (hooks.singleIncludeName && singleInclude)) c.name = v;
        }
    }
    if (hooks.singleIncludeName && singleInclude && written !== "") result[0].name = written;
    // The display name as GitHub sends it: a lone surrogate left by the cut at 100 UTF-16
    // code units becomes U+FFFD in UTF-8 (Encoding.UTF8's replacement fallback).
    for (const c of result) c.name = c.name.toWellFormed();
    if (hooks.checkName) for (const c of result) hooks.checkName(c.name, reject);
    return result;
}
// A job name with ${{ }} evaluated for one configuration (EvaluateJobName).
function nameValue(nameToken, matrix, strategy) {
    let v = evalExpr(nameToken, NAME_CONTEXTS, { matrix, strategy: toDictionary(strategy) });
    // TemplateEvaluator.Validate: a scalar becomes its ToString() (numbers G15, null
    // empty); a mapping or sequence is no string
    if (v !== null && typeof v === "object" && hooks.nameNotString) v = null;
    if (v !== null && typeof v === "object") reject("the job name is not a string");
    return typeof v === "number" ? (hooks.exprNumber ? hooks.exprNumber(v) : g15(v)) : v === null ? "" : String(v);
}
// The name GitHub displays for a job `jobId` written with the name `text` (with ${{ }})
// and a one-row matrix, or an error.
export function displayName(jobId, text, matrix, strategy) {
    return withHooks({}, () => {
        try {
            const v = nameValue(parseScalar(text), matrix, strategy);
            return (v === "" ? configurationName(jobId, matrix) : v).toWellFormed();
        } catch (e) { if (e instanceof Reject) return "(GitHub rejects the name: " + e.message + ")"; throw e; }
    });
}
function toDictionary(obj) {
    const d = new Dict();
    for (const [k, v] of Object.entries(obj)) d.add(k, v);
    return d;
}

// Every job of a workflow: { jobId: {configs} | {error} }, in file order; a workflow that
// cannot be read at all is { error }.
export function expandWorkflow(text, h) {
    return withHooks(h, () => expandWorkflowText(text));
}
function expandWorkflowText(text) {
    let wf;
    try { wf = read(text); } catch (e) { if (e instanceof Reject) return { error: e.message }; throw e; }
    if (!isDict(wf) || !isDict(wf.get("jobs"))) return { error: "no jobs mapping" };
    const jobs = {};
    for (const [id, job] of wf.get("jobs")) jobs[id] = expandJob(id, job);
    return { name: wf.get("name"), jobs };
}

// A canonical, order-keeping form for comparison and display: flow YAML with numbers in
// JavaScript's round-trip form (NaN, Infinity, -0 spelled out) and strings quoted.
export function show(v) {
    if (v === null) return "null";
    if (typeof v === "boolean") return String(v);
    if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
    if (typeof v === "string") return JSON.stringify(v);
    if (Array.isArray(v)) return "[" + v.map(show).join(", ") + "]";
    if (isExpr(v)) return JSON.stringify(v.raw);
    return "{" + [...v].map(([k, x]) => JSON.stringify(k) + ": " + show(x)).join(", ") + "}";
}

// CLI: node oracle.js NPM_DIR [--rejected] FILE...: one JSON line a job (its
// configurations or GitHub's error); with --rejected only the files GitHub rejects.
if (import.meta.url === url.pathToFileURL(process.argv[1]).href) {
    const fs = await import("node:fs");
    let [npmDir, ...files] = process.argv.slice(2);
    const rejected = files[0] === "--rejected";
    if (rejected) files = files.slice(1);
    await load(npmDir);
    for (const f of files) {
        const r = expandWorkflow(fs.readFileSync(f, "utf8"));
        if (rejected) {
            if (r.error || Object.values(r.jobs).some(j => j.error)) console.log(f);
            continue;
        }
        if (r.error) { console.log(JSON.stringify({ file: f, error: r.error })); continue; }
        for (const [id, j] of Object.entries(r.jobs))
            console.log(JSON.stringify({ file: f, job: id, error: j.error,
                configs: j.configs && j.configs.map(c => ({ name: c.name, matrix: show(c.matrix), strategy: c.strategy })) }));
    }
}
