// lintel's warm eslint worker (docs/architecture.md, "Warm workers"): `node eslint_worker.cjs <project root>`.
//
// It loads the PROJECT's own eslint (resolved from <root>/package.json, never a copy of lintel's), creates one
// ESLint instance with cwd <root>, as `eslint` run in <root> does, and lints texts through its API. The protocol
// is one JSON object per line on stdin and stdout:
//
//   out (once, first): {"ready": true, "version": "9.39.5", "configType": "flat", "packageJson": "/r/node_modules/eslint/package.json"}
//                  or {"ready": false, "error": "eslint is not installed in /r (...)"}  and the process exits 1
//   in:  {"id": 1, "file": "/r/src/a.js", "text": "..."}
//   out: {"id": 1, "output": "{...}", "configFile": "/r/eslint.config.js"}
//        output: what `eslint --format json-with-metadata` prints, its rulesMeta cut to each rule's docs.url
//     or {"id": 1, "error": "..."}                                          eslint threw (a broken config, a rule crash)
//   in:  {"id": 2, "fix": true, "file": "/r/src/a.js", "text": "..."}
//   out: {"id": 2, "fixed": "..." | null}  the text as `eslint --fix-dry-run` leaves it; null: eslint changed nothing
//   in:  {"cancel": 1}  a request lintel no longer waits for: skipped unless it has started
//
// Requests are linted one at a time, in order. stdin closing ends the process. Nothing but protocol lines goes to
// stdout: console.log from a config file or plugin would break the framing, so it is sent to stderr.
"use strict";

const path = require("node:path");
const fs = require("node:fs");
const readline = require("node:readline");
const { createRequire } = require("node:module");
const { pathToFileURL } = require("node:url");

const root = path.resolve(process.argv[2] || ".");
const protocolOut = process.stdout.write.bind(process.stdout);
// A config or plugin that logs must not corrupt the protocol: console output goes to stderr, which lintel logs.
for (const name of ["log", "info", "debug"]) {
  console[name] = (...args) => console.error(...args);
}
process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);

function send(message) {
  protocolOut(JSON.stringify(message) + "\n");
}

function describe(error) {
  if (error && typeof error === "object") {
    return String(error.stack || error.message || error);
  }
  return String(error);
}

/** eslint's package.json above its entry point: a changed version there means the worker must restart. */
function packageJsonOf(entry) {
  let folder = path.dirname(entry);
  for (;;) {
    const candidate = path.join(folder, "package.json");
    try {
      const data = JSON.parse(fs.readFileSync(candidate, "utf8"));
      if (data && data.name === "eslint") {
        return candidate;
      }
    } catch {
      // not there, or not JSON: keep going up
    }
    const parent = path.dirname(folder);
    if (parent === folder) {
      return null;
    }
    folder = parent;
  }
}

async function loadEslint() {
  const requireFromRoot = createRequire(path.join(root, "package.json"));
  let entry;
  try {
    entry = requireFromRoot.resolve("eslint");
  } catch (error) {
    throw new Error(`eslint is not installed in ${root} (${error.code || describe(error)})`);
  }
  let api;
  try {
    api = requireFromRoot("eslint");
  } catch (error) {
    if (error && error.code === "ERR_REQUIRE_ESM") {
      api = await import(pathToFileURL(entry).href);
    } else {
      throw error;
    }
  }
  // loadESLint (eslint 8.57+) picks flat config or eslintrc exactly as the eslint CLI does (ESLINT_USE_FLAT_CONFIG,
  // and for eslint 8 whether a flat config file exists).
  const ESLint = typeof api.loadESLint === "function" ? await api.loadESLint({ cwd: root }) : api.ESLint;
  if (typeof ESLint !== "function") {
    throw new Error(`eslint at ${entry} has no ESLint class (lintel's worker needs eslint 7 or later)`);
  }
  const eslint = new ESLint({ cwd: root });
  // The json formatter is the CLI's `--format json`: the answer's results are exactly what the CLI prints.
  const formatter = await eslint.loadFormatter("json");
  return {
    ESLint,
    eslint,
    fixer: null, // an ESLint with fix: true, made on the first fix request (it loads the config once more)
    formatter,
    hello: {
      ready: true,
      version: ESLint.version || (api.ESLint && api.ESLint.version) || null,
      configType: ESLint.configType || "eslintrc",
      packageJson: packageJsonOf(entry),
    },
  };
}

async function configFileFor(eslint, file) {
  if (typeof eslint.findConfigFile !== "function") {
    return null;
  }
  try {
    return (await eslint.findConfigFile(file)) || null;
  } catch {
    return null;
  }
}

/** Each reported rule's page, as json-with-metadata's rulesMeta gives it (the CLI's eslint 8 with an eslintrc
 * config lists every loaded rule there, schemas included: only the pages of the rules in the results are kept). */
function rulesMetaFor(eslint, results) {
  if (typeof eslint.getRulesMetaForResults !== "function") {
    return {};
  }
  const meta = eslint.getRulesMetaForResults(results);
  const pages = {};
  for (const [rule, ruleMeta] of Object.entries(meta || {})) {
    const url = ruleMeta && ruleMeta.docs && ruleMeta.docs.url;
    if (typeof url === "string") {
      pages[rule] = { docs: { url } };
    }
  }
  return pages;
}

async function lint(state, request) {
  const results = await state.eslint.lintText(request.text, { filePath: request.file });
  const json = await state.formatter.format(results);
  const metadata = JSON.stringify({ cwd: root, rulesMeta: rulesMetaFor(state.eslint, results) });
  const output = `{"results":${json},"metadata":${metadata}}`;
  return { id: request.id, output, configFile: await configFileFor(state.eslint, request.file) };
}

async function fix(state, request) {
  if (state.fixer === null) {
    state.fixer = new state.ESLint({ cwd: root, fix: true });
  }
  const results = await state.fixer.lintText(request.text, { filePath: request.file });
  const output = results.length > 0 ? results[0].output : undefined;
  return { id: request.id, fixed: typeof output === "string" ? output : null };
}

async function main() {
  let state;
  try {
    state = await loadEslint();
  } catch (error) {
    send({ ready: false, error: describe(error) });
    process.exitCode = 1;
    return;
  }
  send(state.hello);

  const queue = [];
  const cancelled = new Set();
  let running = false;

  async function pump() {
    if (running) {
      return;
    }
    running = true;
    while (queue.length > 0) {
      const request = queue.shift();
      if (cancelled.delete(request.id)) {
        continue;
      }
      let answer;
      try {
        answer = await (request.fix === true ? fix(state, request) : lint(state, request));
      } catch (error) {
        answer = { id: request.id, error: describe(error) };
      }
      cancelled.delete(request.id);
      send(answer);
    }
    running = false;
  }

  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (!line.trim()) {
      return;
    }
    let message;
    try {
      message = JSON.parse(line);
    } catch (error) {
      send({ id: null, error: `not JSON: ${describe(error)}` });
      return;
    }
    if (message && message.cancel !== undefined) {
      cancelled.add(message.cancel);
      return;
    }
    queue.push(message);
    pump();
  });
  // lintel closed our stdin (it stopped the worker, or it is gone): nothing more will come.
  lines.on("close", () => process.exit(0));
}

main();
