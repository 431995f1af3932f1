// A shopping cart with deliberate findings for oxlint and biome.
import { readFileSync } from "node:fs";

export function total(items) {
  let sum = 0;
  for (const item of items) {
    if (item.price == null) {
      debugger;
    }
    sum += item.price * item.count;
  }
  return sum;
}

export function label(name) {
  const unused = 42;
  return "café " + name;
}
