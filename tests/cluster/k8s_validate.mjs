// Validates Kubernetes manifests offline, the way `kubeconform -strict` would:
// every document of every YAML file against the schema of its apiVersion and
// kind, as published in the Kubernetes OpenAPI spec and compiled into the npm
// package kubernetes-models (ajv validators: types, required fields, enums,
// formats), plus unknown fields (the spec's objects allow none, as kubectl's
// --validate=strict says), found from the same package's type declarations.
//
//   node k8s_validate.mjs NODE_MODULES_DIR FILE.yaml...
//
// Prints "FILE: KIND/NAME ok" or each error; exits 1 if any document fails,
// 2 on a usage or setup error. Needs no network: the packages are installed
// into NODE_MODULES_DIR by `make k8s-schemas`.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [nm, ...files] = process.argv.slice(2);
if (!nm || files.length === 0) {
  console.error("usage: node k8s_validate.mjs NODE_MODULES_DIR FILE.yaml...");
  process.exit(2);
}
const models = path.join(nm, "kubernetes-models");
if (!fs.existsSync(path.join(models, "package.json"))) {
  console.error(`k8s_validate: ${models} is missing (make k8s-schemas)`);
  process.exit(2);
}
const YAML = await import(pathToFileURL(path.join(nm, "yaml", "dist", "index.js")).href);

// --- unknown fields, from the type declarations ---------------------------
// A declaration file holds one interface: `"field"?: TYPE;` lines at four
// spaces, TYPE an imported interface, Array<...>, a map `{ [key: string]:
// ... }`, or a scalar / enum / alias (not looked into: ajv checks those).
const decls = new Map();
function declOf(file) {
  if (decls.has(file)) return decls.get(file);
  const text = fs.readFileSync(file, "utf8");
  const imports = {};
  for (const m of text.matchAll(/^import \{ ([^}]+) \} from "([^"]+)";$/gm)) {
    let target;
    if (m[2].startsWith(".")) target = path.resolve(path.dirname(file), m[2]);
    else target = path.join(nm, m[2]);
    target = target.replace(/\.js$/, "") + ".d.ts";
    for (const id of m[1].split(",")) imports[id.trim().split(/\s+as\s+/).pop()] = target;
  }
  let fields = null;
  const start = text.search(/^export interface \w+( extends [\w, ]+)? \{$/m);
  // Without an interface the file must declare an alias (of a scalar):
  // anything else is a layout this reader does not know, and is an error
  // rather than a check quietly skipped.
  if (start < 0 && !/^export type \w+ = /m.test(text))
    throw new Error(`${file}: neither an interface nor a type alias: cannot check fields`);
  if (start >= 0) {
    fields = {};
    const lines = text.slice(start).split("\n").slice(1);
    for (let i = 0; i < lines.length && lines[i] !== "}"; i++) {
      const m = /^ {4}"([^"]+)"\??: (.*)$/.exec(lines[i]);
      if (!m) continue;
      let type = m[2];
      if (type === "{") // a map over several lines, up to "    };"
        for (type = ""; i + 1 < lines.length && lines[i + 1] !== "    };"; i++)
          type += lines[i + 1].trim() + " ";
      fields[m[1]] = type.replace(/;\s*$/, "").trim();
    }
  }
  const d = { imports, fields };
  decls.set(file, d);
  return d;
}

function checkType(type, value, where, d, errors) {
  let m;
  if ((m = /^Array<(.*)>$/.exec(type))) {
    if (Array.isArray(value)) value.forEach((v, i) => checkType(m[1], v, `${where}/${i}`, d, errors));
  } else if ((m = /\[key: string\]: (.*?)\s*;?$/.exec(type))) {
    if (value && typeof value === "object")
      for (const [k, v] of Object.entries(value)) checkType(m[1], v, `${where}/${k}`, d, errors);
  } else if (/^I\w+$/.test(type) && d.imports[type]) {
    checkObject(d.imports[type], value, where, errors);
  }
}

function checkObject(file, value, where, errors) {
  if (!value || typeof value !== "object" || Array.isArray(value)) return;
  const d = declOf(file);
  if (!d.fields) return; // an alias of a scalar (Quantity, IntOrString, Time)
  for (const [k, v] of Object.entries(value)) {
    if (!(k in d.fields)) errors.push(`${where || "/"}: unknown field "${k}"`);
    else checkType(d.fields[k], v, `${where}/${k}`, d, errors);
  }
}

// --- one document ----------------------------------------------------------
async function validate(doc) {
  if (!doc || typeof doc !== "object" || typeof doc.apiVersion !== "string" ||
      typeof doc.kind !== "string")
    return ["not a Kubernetes object (apiVersion and kind are required)"];
  const base = path.join(models, doc.apiVersion, doc.kind);
  if (!/^[\w./-]+$/.test(doc.apiVersion + doc.kind) || !fs.existsSync(base + ".js"))
    return [`no schema for apiVersion ${doc.apiVersion}, kind ${doc.kind}`];
  const mod = await import(pathToFileURL(base + ".js").href);
  const errors = [];
  try {
    new mod[doc.kind](doc).validate();
  } catch (e) {
    const list = e.errors || [{ instancePath: "", message: String(e.message || e) }];
    for (const x of list)
      errors.push(`${x.instancePath || "/"}: ${x.message}` +
                  (x.params && Object.keys(x.params).length ? ` ${JSON.stringify(x.params)}` : ""));
  }
  checkObject(base + ".d.ts", doc, "", errors);
  return errors;
}

let failed = false;
for (const file of files) {
  let docs;
  try {
    docs = YAML.parseAllDocuments(fs.readFileSync(file, "utf8"));
  } catch (e) {
    console.log(`${file}: ${e.message}`);
    failed = true;
    continue;
  }
  for (const [i, d] of docs.entries()) {
    if (d.errors.length) {
      console.log(`${file}: document ${i + 1}: YAML: ${d.errors[0].message}`);
      failed = true;
      continue;
    }
    const doc = d.toJS();
    if (doc === null) continue; // an empty document (a trailing ---)
    const name = `${doc?.kind}/${doc?.metadata?.name}`;
    const errors = await validate(doc);
    if (errors.length) {
      failed = true;
      for (const e of errors) console.log(`${file}: ${name}: ${e}`);
    } else {
      console.log(`${file}: ${name} ok`);
    }
  }
}
process.exit(failed ? 1 : 0);
