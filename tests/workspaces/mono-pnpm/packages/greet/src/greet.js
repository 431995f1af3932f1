// Every finding here is deliberate: lintel's pnpm workspace fixture.
export function greet(name) {
  let greeting = "Hello, " + name;
  return greeting;
}

export function isEmpty(name) {
  const unused = name.length;
  return name == "";
}
