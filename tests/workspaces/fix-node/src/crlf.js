// CRLF line ends.
var a = 1;
let b = 2
export function f(x) {
  if (x == 'y') return !!a;
  let c = b;
  return c + x["z"];
}
