// Helpers with deliberate eslint findings (lintel's fixture).

export function sameValue(a, b) {
  return a == b;
}

export function label(name) {
  let prefix = "élément";
  const unused = 42;
  console.log(prefix);
  return `${prefix}-${name}-${missingSuffix}`;
}

export function sum(values) {
  let total = 0;
  for (const value of values) {
    total += value;
  }
  return total;
}
