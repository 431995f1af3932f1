import { test } from "node:test";
import assert from "node:assert/strict";
import { discount } from "../src/cart.js";

test("discount takes a percentage off", () => {
  assert.equal(discount(200, 10), 180);
});
