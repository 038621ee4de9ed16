// node validate.js NPM_DIR SCHEMA INSTANCE.json: ajv's verdict on one JSON document, the
// peer of `fanout validate --schema` in make bench (exit 0 valid, 1 invalid). Every
// violation is collected (allErrors), as fanout reports every one; strict mode is off
// and unknown formats are ignored silently, since Buildkite's schema uses "regex"
// as a format, which ajv does not define.
const fs = require('fs');
const path = require('path');
const Ajv = require(path.resolve(process.argv[2], 'node_modules/ajv'));
const ajv = new Ajv({ allErrors: true, strict: false, logger: false });
const validate = ajv.compile(JSON.parse(fs.readFileSync(process.argv[3], 'utf8')));
const ok = validate(JSON.parse(fs.readFileSync(process.argv[4], 'utf8')));
if (!ok) console.error(`${validate.errors.length} errors, first: ${JSON.stringify(validate.errors[0])}`);
process.exit(ok ? 0 : 1);
