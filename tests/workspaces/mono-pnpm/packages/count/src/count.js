// Every finding here is deliberate: lintel's pnpm workspace fixture.
export function count(items) {
  let total = 0;
  for (const item of items) {
    if (item != null) total++;
  }
  return total;
}

export function double(x) {
  let result = x * 2;
  return result;
}
