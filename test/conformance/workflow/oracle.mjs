// The reference side of test/conformance/workflow.sh: GitHub's own workflow parser
// (@actions/workflow-parser, parseWorkflow: the YAML read and the template reader's
// checks against workflow-v1.0.json) on each file named on stdin, one line each:
// "accepts", or "rejects (Line: L, Col: C): <its first error>". The converter that
// follows in GitHub's language service (convertWorkflowTemplate) is not run: its
// errors are the language service's, not the parser's (it refuses the numeric
// workflow_dispatch defaults GitHub runs).
// Usage: node oracle.mjs NPM_DIR < FILES (NPM_DIR holds node_modules/@actions/workflow-parser).
import fs from "node:fs";
import path from "node:path";
import url from "node:url";
import {register} from "node:module";

register(url.pathToFileURL(path.join(path.dirname(url.fileURLToPath(import.meta.url)), "json-hook.mjs")).href);
const npmDir = process.argv[2];
const lib = await import(url.pathToFileURL(
    path.join(npmDir, "node_modules/@actions/workflow-parser/dist/index.js")).href);
const {parseWorkflow, NoOperationTraceWriter} = lib;

const out = [];
for (const file of fs.readFileSync(0, "utf8").split("\n")) {
    if (file === "")
        continue;
    const result = parseWorkflow({name: "f", content: fs.readFileSync(file, "utf8")}, new NoOperationTraceWriter());
    const errors = result.context.errors.getErrors();
    // the messages begin with the file's name ("f"): keep what follows it
    out.push(errors.length ? "rejects " + errors[0].message.replace(/^f /, "").replace(/\n/g, " ") : "accepts");
}
process.stdout.write(out.map(line => line + "\n").join(""));
