function multiply(a, b) {
  return a * b;
}

describe("multiply", () => {
  test("by one keeps the number", () => {
    expect(multiply(7, 1)).toBe(7);
  });

  test("two by three", () => {
    expect(multiply(2, 3)).toBe(7);
  });
});

test("a thrown error", () => {
  throw new Error("the café is closed");
});
