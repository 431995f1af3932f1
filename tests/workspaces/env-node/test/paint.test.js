// The library's own tests: they pass in a shell or CI that does not set NO_COLOR, as most do not.
import assert from "node:assert/strict";
import { test } from "node:test";
import { green } from "../src/paint.js";

const pipe = { isTTY: false };

function withEnv(values, body) {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  const set = (entries) => {
    for (const [name, value] of Object.entries(entries)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  set(values);
  try {
    body();
  } finally {
    set(saved);
  }
}

test("FORCE_COLOR colours a pipe", () => {
  withEnv({ FORCE_COLOR: "1" }, () => assert.equal(green("ok", pipe), "\x1b[32mok\x1b[0m"));
});

test("CLICOLOR_FORCE colours a pipe", () => {
  withEnv({ FORCE_COLOR: undefined, CLICOLOR_FORCE: "1" }, () => assert.equal(green("ok", pipe), "\x1b[32mok\x1b[0m"));
});

// ENV_FIXTURE_EXPECT, set by lintel's own tests, names variables and the values (null: unset) the test runner
// was started with.
test("the environment is the one the tests were started in", () => {
  const expected = JSON.parse(process.env.ENV_FIXTURE_EXPECT ?? "{}");
  const actual = Object.fromEntries(Object.keys(expected).map((name) => [name, process.env[name] ?? null]));
  assert.deepEqual(actual, expected);
});
