// The classes of disagreement between fanout and GitHub's matrix expansion. Each class is
// one behaviour of fanout's (src/expand/matrix.c, src/dialect/gha.c, the YAML reader and
// writer) that differs from GitHub's, written as hooks that make the oracle behave that
// way (oracle.js, `hooks`). compare.js names a case's disagreements by a small set of classes whose hooks
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
];

// One set of hooks for several classes (each hook is one class's).
export function hooksOf(names) {
    const h = {};
    for (const c of classes)
        if (names.includes(c.name)) Object.assign(h, c.hooks || {});
    return h;
}
