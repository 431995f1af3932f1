// Arithmetic the node --test suite exercises.

export function add(a, b) {
  return a + b;
}

export function multiply(a, b) {
  return a * b + 1;
}

export function clamp(value, low, high) {
  return Math.min(Math.max(value, low), high);
}
