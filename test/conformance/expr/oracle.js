// The reference side of the expression differential test: evaluates each expression
// (one JSON string a line) with @actions/expressions, GitHub's own evaluator, and prints
// one line each in the form test/conformance/expr_driver.c prints fanout's results.
// Usage: node oracle.js NPM_DIR CONTEXTS.json EXPRESSIONS.jsonl
// (NPM_DIR holds node_modules/@actions/expressions, installed from package-lock.json.)
import fs from "node:fs";
import path from "node:path";
import url from "node:url";

const [npmDir, contextsFile, exprFile] = process.argv.slice(2);
const lib = await import(url.pathToFileURL(
    path.join(npmDir, "node_modules/@actions/expressions/dist/index.js")).href);
const { Lexer, Parser, Evaluator, data } = lib;

const text = fs.readFileSync(contextsFile, "utf8");
const names = Object.keys(JSON.parse(text));
const contexts = JSON.parse(text, data.reviver);

function dump(d) {
    switch (d.kind) {
    case data.Kind.Null:
        return "null";
    case data.Kind.Boolean:
        return d.value ? "true" : "false";
    case data.Kind.Number:
        return Object.is(d.value, -0) ? "-0" : String(d.value);
    case data.Kind.String:
        return JSON.stringify(d.value);
    case data.Kind.Array:
        return "[" + d.values().map(dump).join(",") + "]";
    case data.Kind.Dictionary:
        return "{" + d.pairs().map(p => JSON.stringify(p.key) + ":" + dump(p.value)).join(",") + "}";
    }
    throw new Error("unknown kind " + d.kind);
}

const out = [];
for (const line of fs.readFileSync(exprFile, "utf8").split("\n")) {
    if (line === "")
        continue;
    const expr = JSON.parse(line);
    let tree;
    try {
        const lexed = new Lexer(expr).lex();
        tree = new Parser(lexed.tokens, names, []).parse();
    } catch {
        tree = undefined;
    }
    if (tree === undefined) {
        out.push("PARSE_ERROR");
        continue;
    }
    try {
        const v = new Evaluator(tree, contexts).evaluate();
        out.push("OK " + dump(v) + "\t" + JSON.stringify(v.coerceString()));
    } catch {
        out.push("EVAL_ERROR");
    }
}
process.stdout.write(out.join("\n") + "\n");
