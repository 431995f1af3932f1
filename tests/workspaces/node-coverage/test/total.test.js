import { test } from "node:test";
import assert from "node:assert/strict";
import { total } from "../src/cart.js";

test("total adds the prices", () => {
  assert.equal(total([1, 2, 3]), 6);
});
