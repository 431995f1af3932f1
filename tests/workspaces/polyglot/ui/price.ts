// Price formatting shared with the Go API's JSON (lintel's polyglot fixture).

export interface Price {
  cents: number;
  currency: string;
}

export function formatPrice(price: Price): string {
  const whole: string = price.cents / 100;
  return `${whole} ${price.currency}`;
}
