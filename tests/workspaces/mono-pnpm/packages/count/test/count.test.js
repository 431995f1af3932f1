import { test } from "node:test";
import assert from "node:assert/strict";
import { count, double } from "../src/count.js";

test("count skips nulls", () => {
  assert.equal(count([1, null, 2]), 2);
});

test("double doubles", () => {
  assert.equal(double(3), 7);
});
