import assert from "node:assert/strict";
import { describe, it, test } from "node:test";

import { add, clamp, multiply } from "./math.js";

test("add sums two numbers", () => {
  assert.equal(add(2, 3), 5);
});

test("multiply multiplies two numbers", () => {
  assert.equal(multiply(3, 4), 12, "multiply(3, 4) should be 12");
});

describe("clamp", () => {
  it("keeps values below the upper bound", () => {
    assert.equal(clamp(15, 0, 10), 10);
  });

  it("keeps values above the lower bound", () => {
    assert.equal(clamp(-5, 0, 10), 0);
  });
});
