import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { cartTotal, discounted, isEmpty } from "./cart.js";

describe("cart", () => {
  it("sums price times quantity", () => {
    assert.equal(cartTotal([{ price: 2, quantity: 3 }]), 6);
  });

  it("knows an empty cart", () => {
    assert.equal(isEmpty([]), true);
  });

  describe("discounts", () => {
    it("takes the percentage off", () => {
      assert.equal(discounted(200, 10), 180, "10% off 200 is 180");
    });
  });
});
