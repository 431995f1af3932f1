// The shopping cart the web UI renders (lintel's polyglot fixture).

export function cartTotal(items) {
  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);
}

export function isEmpty(items) {
  return items.length == 0;
}

export function discounted(total, percent) {
  return total - (total * percent) / 100 + 1;
}
