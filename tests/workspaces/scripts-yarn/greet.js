// Prints what it was given, so a test can see the arguments lintel.runScript forwarded; `--fail` exits 3.
const args = process.argv.slice(2);
if (args.includes("--fail")) {
  console.error("greet: asked to fail");
  process.exit(3);
}
console.log(`greet: ${JSON.stringify(args)}`);
