const assert = require("node:assert");

function restock(count, extra) {
  return count + extra;
}

describe("restock", function () {
  it("adds what arrived", function () {
    assert.strictEqual(restock(2, 3), 5);
  });

  it("never goes below zero", function () {
    assert.strictEqual(restock(1, -3), 0, "stock cannot be negative");
  });
});
