// Valid code that prettier would reformat: `prettier -c src test` fails on this file.
export function label(item){ return `${item.name} x${item.quantity}` }
