// Test-only: checks Kubernetes manifests against the API's schema with kubernetes-models (the
// OpenAPI schema of the Kubernetes release it was generated from, in ajv). Reads the YAML
// documents of FILE, or of stdin when FILE is "-", and calls each object's validate().
// Usage: node validate.js FILE  ->  "ok: Job/NAME" a line; exit 1 naming the first failure.
"use strict";
const fs = require("fs");
const yaml = require("js-yaml");

// The kinds `proofload k8s job` renders, by apiVersion (an unknown kind is a failure).
const modules = {
  v1: require("kubernetes-models/v1"),
  "batch/v1": require("kubernetes-models/batch/v1"),
};

function main() {
  if (process.argv.length !== 3) throw new Error("usage: node validate.js FILE|-");
  const file = process.argv[2];
  const text = fs.readFileSync(file === "-" ? 0 : file, "utf8");
  const objects = yaml.loadAll(text).filter((doc) => doc !== null && doc !== undefined);
  if (objects.length === 0) throw new Error("no YAML document in " + file);
  for (const object of objects) {
    const where = (object.kind || "?") + "/" + ((object.metadata && object.metadata.name) || "?");
    const model = modules[object.apiVersion] && modules[object.apiVersion][object.kind];
    if (typeof model !== "function") {
      throw new Error(where + ": no schema for apiVersion " + object.apiVersion);
    }
    try {
      new model(object).validate();
    } catch (e) {
      throw new Error(where + ": " + (e && e.message ? e.message : String(e)));
    }
    process.stdout.write("ok: " + where + "\n");
  }
}

try {
  main();
} catch (e) {
  process.stderr.write("validate.js: " + (e && e.message ? e.message : String(e)) + "\n");
  process.exit(1);
}
