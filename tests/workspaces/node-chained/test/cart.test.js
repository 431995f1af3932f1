import assert from "node:assert/strict";
import { test } from "node:test";

import { total } from "../src/cart.js";
import { label } from "../src/labels.js";

test("total adds price times quantity", () => {
  assert.equal(total([{ price: 2, quantity: 3 }]), 6);
});

test("label names the quantity", () => {
  assert.equal(label({ name: "pen", quantity: 2 }), "pen x2");
});
