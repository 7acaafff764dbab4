// Runs the Khronos glTF Validator (npm package gltf-validator) on one file and prints a JSON
// summary: {"errors": N, "warnings": N, "messages": [{code, severity, pointer, message}...]}.
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
const file = process.argv[2];
const bytes = new Uint8Array(fs.readFileSync(file));
validator
    .validateBytes(bytes, {
      uri: path.basename(file),
      maxIssues: 50,
      externalResourceFunction: (uri) => new Promise((resolve, reject) => {
        const full = path.resolve(path.dirname(file), decodeURIComponent(uri));
        fs.readFile(full, (err, data) => err ? reject(err.toString()) : resolve(new Uint8Array(data)));
      }),
    })
    .then((report) => {
      const messages = report.issues.messages.map(
          (m) => ({code: m.code, severity: m.severity, pointer: m.pointer, message: m.message}));
      console.log(JSON.stringify(
          {errors: report.issues.numErrors, warnings: report.issues.numWarnings, messages}));
      process.exit(report.issues.numErrors === 0 ? 0 : 1);
    })
    .catch((e) => {
      console.log(JSON.stringify({fatal: String(e)}));
      process.exit(2);
    });
