// Deliberate findings, each with eslint's own fix or suggestion.
var total = 0;
let count = 0
const unused = 1;

export function add(item, kind) {
  let price = item.price;
  if (!!item.free) return 0;
  if (kind == "gift") {
    count += 1;
  }
  if (typeof item == 'object') {
    total = total + price;
  }
  const label = 'item: ' + item["name"];
  const shape = { add: function () { return price; } };
  if ("book" === kind) console.log(label, shape, "\$");
  return parseInt(label) + count;
}
