// Runs the Khronos glTF Validator (npm package gltf-validator) on one or more files and prints a
// JSON summary: {"errors": N, "warnings": N, "files": [{file, errors, warnings, messages:
// [{code, severity, pointer, message}...]}]} with the totals over all files.
// Exit code 0 when there are no errors, 1 when there are, 2 when the validator cannot run.
'use strict';
const fs = require('fs');
const path = require('path');
let validator;
try {
  validator = require('gltf-validator');
} catch (e) {
  console.log(JSON.stringify({fatal: 'gltf-validator is not installed: ' + e.message}));
  process.exit(2);
}

async function validate(file) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 50,
    externalResourceFunction: (uri) => new Promise((resolve, reject) => {
      const full = path.resolve(path.dirname(file), decodeURIComponent(uri));
      fs.readFile(full, (err, data) => err ? reject(err.toString()) : resolve(new Uint8Array(data)));
    }),
  });
  const messages = report.issues.messages.map(
      (m) => ({code: m.code, severity: m.severity, pointer: m.pointer, message: m.message}));
  return {file, errors: report.issues.numErrors, warnings: report.issues.numWarnings, messages};
}

(async () => {
  const files = [];
  for (const file of process.argv.slice(2)) files.push(await validate(file));
  const errors = files.reduce((n, f) => n + f.errors, 0);
  const warnings = files.reduce((n, f) => n + f.warnings, 0);
  console.log(JSON.stringify({errors, warnings, files}));
  process.exit(errors === 0 ? 0 : 1);
})().catch((e) => {
  console.log(JSON.stringify({fatal: String(e)}));
  process.exit(2);
});
