import { describe, expect, it } from "vitest";
import { add, average } from "../src/math.js";

describe("add", () => {
  it("adds small numbers", () => {
    expect(add(1, 2)).toBe(3);
  });

  it("adds to five", () => {
    expect(add(2, 2), "2 + 2 should make five here").toBe(5);
  });
});

describe("average", () => {
  it("of nothing is zero", () => {
    expect(average([])).toBe(0);
  });

  it("of one value is the value", () => {
    expect(average([4])).toBe(4);
  });
});
