// What the process-start comparison (bench/process-start.mts) runs in each runtime: import the
// built handler given as the last argument (its INIT, STS call included), check it, exit.
// Plain JavaScript with nothing but import(), and no `process` on Deno: touching it there loads
// Deno's Node compatibility layer (~20 ms), which an empty handler would otherwise be charged.
const args = globalThis.Deno ? globalThis.Deno.args : process.argv;
const file = args[args.length - 1];
const module = await import(`file://${file}`);
if (typeof (module.handler ?? module.default?.handler) !== "function") throw new Error(`${file} exports no handler function`);
