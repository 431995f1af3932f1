// A warning for eslint (no-console), which does not fail `eslint .`.
export function total(items) {
  const sum = items.reduce((acc, item) => acc + item.price * item.quantity, 0);
  console.log(`total: ${sum}`);
  return sum;
}
