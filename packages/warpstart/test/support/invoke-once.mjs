// Child process of run-once.mts: imports a function's handler module as the runtime would
// (INIT, top-level await included), invokes it once with an event, and writes what happened
// as JSON to the file named by argv[3]. Plain JavaScript, so Node loads no TypeScript stripper
// into the process being measured. Usage: node <flags> invoke-once.mjs <event.json> <out.json>
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [eventFile, outFile] = process.argv.slice(2);
const [moduleName, exportName] = process.env._HANDLER.split(".");

/** Node builtins loaded so far (internal ones included): what INIT pulled in. */
const loadedBuiltins = () => process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice("NativeModule ".length));

let report;
try {
  const module = await import(pathToFileURL(join(process.env.LAMBDA_TASK_ROOT, `${moduleName}.mjs`)).href);
  const builtinsAtReady = loadedBuiltins(); // first: performance's first use loads perf_hooks
  const readyMs = performance.now(); // since this process started
  const handler = module[exportName];
  if (typeof handler !== "function") throw new Error(`${process.env._HANDLER} is undefined or not exported`);
  const event = JSON.parse(readFileSync(eventFile, "utf8"));
  const { randomUUID } = await import("node:crypto"); // after builtinsAtReady, so it is not counted
  const context = { awsRequestId: randomUUID(), functionName: process.env.AWS_LAMBDA_FUNCTION_NAME };
  const response = await handler(event, context);
  report = { ok: true, readyMs, builtinsAtReady, response };
} catch (error) {
  const e = error instanceof Error ? error : new Error(String(error));
  report = { ok: false, errorType: e.name, errorMessage: e.message };
}
writeFileSync(outFile, JSON.stringify(report));
