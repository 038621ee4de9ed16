// The classes of disagreement between fanout and GitHub's matrix expansion. Each class is
// one behaviour of fanout's (src/expand/matrix.c, src/dialect/gha.c, the YAML reader and
// writer) that differs from GitHub's, written as hooks that make the oracle behave that
// way (oracle.js, `hooks`; `rendered`: how fanout writes a value that GitHub then reads
// back). compare.js names a case's disagreements by a small set of classes whose hooks
// make the oracle agree with fanout's rendering; `rendering-name` is found by its
// own check. When fanout is fixed, its class stops explaining cases and its line in
// known-disagreements.tsv goes. `github` says which GitHub source decides the point.
import * as O from "./oracle.js";

// fanout's matches(): a mapping value only against a mapping (its keys, recursively), a
// list only against a list of the same length, a scalar by loose == (numbers as the
// filter hook spells them)
function fanoutMatches(have, want) {
    if (want instanceof O.Dict) {
        if (!(have instanceof O.Dict)) return false;
        for (const [k, w] of want) if (!fanoutMatches(have.get(k), w)) return false;
        return true;
    }
    if (Array.isArray(want)) {
        if (!Array.isArray(have) || have.length !== want.length) return false;
        return want.every((w, i) => fanoutMatches(have[i], w));
    }
    if (have === undefined || have instanceof O.Dict || Array.isArray(have)) return false;
    const m = new O.Dict();
    m.add("h", have);
    return O.holds(O.leafTest("matrix['h']", want), O.context(m));
}

// f over the scalars of a value (null included)
const mapValues = (v, f) => Array.isArray(v) ? v.map(x => mapValues(x, f))
    : v instanceof O.Dict ? (() => { const d = new O.Dict(); for (const [k, x] of v) d.add(k, mapValues(x, f)); return d; })()
    : f(v);
const mapNumbers = (v, f) => mapValues(v, x => typeof x === "number" ? f(x) : x);

export const classes = [
    {
        name: "filter-structure",
        reason: "include/exclude values that are mappings or lists are matched as structures (a mapping only against a mapping, a list only against a list of the same length); GitHub tests each leaf, `matrix['k']['x'] == literal`, so an empty {} or [] matches every configuration, {x: null} matches a scalar, [1] matches [1, 2]",
        github: "MatrixBuilder.cs MatrixFilter constructor (lines 515-557: one expression per LiteralToken leaf) and Match (559-576)",
        hooks: { filter: f => ({ match: matrix => [...f].every(([k, w]) => fanoutMatches(matrix.get(k), w)) }) },
    },
    {
        name: "filter-g15",
        reason: "include/exclude numbers are compared as written; GitHub writes each filter number into the filter expression as a G15 literal, so 16+-digit numbers and 0.30000000000000004 never match the vector's own value",
        github: "MatrixBuilder.cs AddExpression (lines 594-597: ExpressionUtility.ConvertToParseToken(Double), NumberFormat G15)",
        hooks: { filterNumber: v => String(v) },
    },
    {
        name: "null-as-empty",
        reason: "a null matrix value (null, ~, an empty value) is written as '' in the rendering, so the job's matrix has the empty string where GitHub's has null (toJSON(matrix) shows \"\", not null)",
        github: "YamlObjectReader.cs MatchNull (lines 699-717), TemplateTokenExtensions.ToExpressionData (TokenType.Null: null)",
        rendered: v => mapValues(v, x => x === null ? "" : x),
    },
    {
        name: "hex-int32",
        reason: "0x and 0o integers are read without GitHub's Int32 bound: 0xFFFFFFFF is 4294967295 (GitHub: -1), 0x100000000 a number (GitHub: an error)",
        github: "YamlObjectReader.cs MatchInteger (lines 656-692: Int32.TryParse(AllowHexSpecifier), Convert.ToInt32(s, 8))",
        hooks: { plain: (s, v) => /^0x[0-9a-fA-F]+$/.test(s) ? parseInt(s.slice(2), 16) : /^0o[0-7]+$/.test(s) ? parseInt(s.slice(2), 8) : v },
    },
    {
        name: "expressions-kept",
        reason: "${{ }} in vector items and include/exclude values is not evaluated (GitHub evaluates the strategy with github, inputs, vars, needs: literal expressions always): filters compare the text, names show it (and a name cut inside it makes fanout refuse its own rendering)",
        github: "WorkflowTemplateEvaluator.cs EvaluateStrategy (line 154: TemplateEvaluator.Evaluate over the whole strategy before ConvertToStrategy)",
        hooks: {
            keepExpressions: true,
            checkName: (name, reject) => {
                const at = name.lastIndexOf("${{");
                if (at >= 0 && name.indexOf("}}", at) < 0) reject("fanout: an expression not closed in the name");
            },
        },
    },
    {
        name: "name-number-format",
        reason: "names print NaN and ±Infinity as C's %G does (NAN, INF, -INF); GitHub's G15 prints NaN, Infinity, -Infinity",
        github: "NumberExpressionData.cs ToString (line 57: ToString(\"G15\", InvariantCulture)), used by MatrixBuilder.CreateConfiguration (line 194)",
        hooks: { numberSegment: v => Number.isNaN(v) ? "NAN" : v === Infinity ? "INF" : v === -Infinity ? "-INF" : O.g15(v) },
    },
    {
        name: "name-cut-bytes",
        reason: "names over 100 UTF-8 bytes are cut to 97 bytes and ...; GitHub cuts over 100 UTF-16 code units to 97 (a cut inside a multi-byte character makes invalid UTF-8, which fanout then refuses)",
        github: "JobNameBuilder.cs Build (lines 51-55: name.Length, a count of UTF-16 code units; Substring(0, 97))",
        hooks: {
            cut: name => {
                const b = Buffer.from(name);
                return b.length <= 100 ? name : Buffer.concat([b.subarray(0, 97), Buffer.from("...")]).toString();
            },
        },
    },
    {
        name: "name-expression-numbers",
        reason: "a number in a name's ${{ }} prints as the npm package @actions/expressions prints it (1e-7, 1234567890123456800); GitHub's runtime converts with G15 (1E-07, 1.23456789012346E+18)",
        github: "EvaluationResult.cs ConvertToString (lines 147-153: G15, -0 as 0) for text around ${{ }}; NumberToken.ToString (G15) for a lone ${{ }} (TemplateEvaluator.Validate)",
        hooks: { exprNumber: v => O.jsNumberString(v) },
    },
    {
        name: "name-not-string",
        reason: "a job name whose one ${{ }} is a mapping or list falls back to the generated name; GitHub fails the job (a mapping or sequence where a string is expected)",
        github: "TemplateEvaluator.cs Evaluate (UnexpectedMappingStart / UnexpectedSequenceStart for the string-strategy-context name), WorkflowTemplateEvaluator.EvaluateJobName",
        hooks: { nameNotString: true },
    },
    {
        name: "single-include-name",
        reason: "a matrix of one include row (no vector) is kept as written, under the written name: `lint`, not GitHub's `lint (linux)`; an empty ${{ }} name stays empty",
        github: "MatrixBuilder.cs Build (lines 171-175: an unmatched include row is a configuration) and CreateConfiguration (lines 188-212: its values name it, JobNameBuilder)",
        hooks: { singleIncludeName: true },
    },
    {
        name: "null-matrix-name",
        reason: "the one job of a matrix with no configuration left (all excluded) shows its name expression's value even when empty (name: \"\"); GitHub falls back to the job id when the evaluated name is empty",
        github: "WorkflowTemplateEvaluator.cs EvaluateJobName (lines 219-223: an empty result is the default name) with EvaluateStrategy's configuration (lines 166-172)",
        hooks: { nullMatrixName: true },
    },
    {
        name: "max-parallel",
        reason: "strategy.max-parallel is the written value (0, -1, 3.7, also for the one job of an empty matrix); GitHub takes (Int32) of it, the job count when that is 0 or less, and 1 for the single job of a matrix with no configuration",
        github: "WorkflowTemplateConverter.cs ConvertToStrategy (line 908: (Int32); lines 1026-1039: MaxParallel > 0 or Configurations.Count), WorkflowTemplateEvaluator.cs EvaluateStrategy (lines 190-193: 1)",
        hooks: { maxParallel: (written, total) => written === undefined ? total : written },
    },
    {
        name: "rendered-number-digits",
        reason: "the rendering writes a non-integer number with 15 significant digits and -0 as 0, so GitHub reads back another number (0.30000000000000004 becomes 0.3)",
        github: "YamlObjectReader.cs MatchFloat (the rendered text is read back exactly: Double.TryParse)",
        rendered: v => mapNumbers(v, x => Object.is(x, -0) ? 0 : Number.isFinite(x) && !Number.isInteger(x) ? Number(x.toPrecision(15)) : x),
    },
    {
        name: "rendered-special-numbers",
        reason: "the rendering writes NaN and ±Infinity as plain NaN, Infinity, -Infinity, which GitHub reads as strings (YAML's .nan, .inf, -.inf are the numbers)",
        github: "YamlObjectReader.cs MatchFloat (lines 505-526: only .inf/.Inf/.INF, .nan/.NaN/.NAN are special)",
        rendered: v => mapNumbers(v, x => Number.isFinite(x) ? x : O.g15(x)),
    },
];

// One set of hooks for several classes: `plain` hooks chain, the others are each one
// class's.
export function hooksOf(names) {
    const h = {}, plains = [], rendered = [];
    for (const c of classes) {
        if (!names.includes(c.name)) continue;
        for (const [k, f] of Object.entries(c.hooks || {})) {
            if (k === "plain") plains.push(f);
            else h[k] = f;
        }
        if (c.rendered) rendered.push(c.rendered);
    }
    if (plains.length) h.plain = (s, v) => plains.reduce((x, f) => f(s, x), v);
    h.rendered = v => rendered.reduce((x, f) => f(x), v);
    return h;
}
