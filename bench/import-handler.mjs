// What the process-start comparison (bench/process-start.mts) runs in each runtime: import the
// built handler given as the last argument (its INIT, STS call included), check it, exit.
// Plain JavaScript with nothing but import(): every runtime runs it as it is.
const file = process.argv[process.argv.length - 1];
const module = await import(`file://${file}`);
if (typeof (module.handler ?? module.default?.handler) !== "function") {
  console.error(`${file} exports no handler function`);
  process.exit(1);
}
