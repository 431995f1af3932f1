export function total(prices) {
  let sum = 0;
  for (const price of prices) {
    sum += price;
  }
  return sum;
}

export function discount(price, percent) {
  const rate = percent / 100;
  return price * (1 - rate);
}

export function unused() {
  return "never called";
}
