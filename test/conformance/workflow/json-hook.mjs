// A module loader hook for node: the package imports its schema (workflow-v1.0.min.json)
// without the `with {type: "json"}` attribute node 20 requires, so JSON files are
// served as modules whose default export is the parsed document.
import fs from "node:fs";
import url from "node:url";

export async function load(u, context, next) {
    if (u.endsWith(".json"))
        return {format: "module", shortCircuit: true,
                source: "export default " + fs.readFileSync(url.fileURLToPath(u), "utf8") + ";"};
    return next(u, context);
}
