// Child of code-cache.mts:
//   node <runtime flags> code-cache-child.mjs write|status|compile-cache <handler file> <verdict file> [<options>]
// options a JSON object: { partial, invoke: { event, exportPath, timeoutMs }, deferBuiltins }.
// Imports the built handler module (a full INIT, top-level await included) and, given `invoke`,
// invokes it once with the event in that file (in status mode only if INIT did not load the
// chunk), then either saves the chunk's code cache for this CPU architecture beside it
// (sdk.<process.arch>.cache, the file the chunk loader reads) or writes whether V8 accepted the
// one there to <verdict file>: a channel of its own, since INIT's code writes what it likes to
// stdout and stderr. The cache file's first line names the chunk it was made from and lists, with
// `deferBuiltins` after an invoke, the builtins the chunk requires that neither INIT nor the invoke
// used, which the loader then loads at their first use; otherwise none. A process that never loaded the chunk (its packages
// imported dynamically, on a path not taken) gets the verdict NOT_LOADED in either mode. With
// `partial` (BuildProperties.WarpPartialInit), an INIT that fails after loading the chunk still
// gets its cache: what it compiled until it failed, and the verdict says INIT STOPPED; the parent
// decides whether the failure was one it accepts. In compile-cache mode (a NodeCompileCache build,
// whose handler enables Node's module compile cache), it imports the handler and flushes that cache.
import { readFileSync, writeFileSync } from "node:fs";
import nodeModule from "node:module"; // a default import: the older runtimes' Node has no flushCompileCache
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const [mode, handlerFile, verdictFile, options = "{}"] = process.argv.slice(2);
const { partial = false, invoke, deferBuiltins = false } = JSON.parse(options);
const watch = { required: new Set(), used: new Set() };
// Watched only where the list is written: after an invoke, with deferBuiltins.
const watching = mode === "write" && invoke !== undefined && deferBuiltins;
if (watching) globalThis[Symbol.for("warpstart.builtinsWatch")] = watch; // src/contract.mts's BUILTINS_WATCH
const NOT_LOADED = "not loaded"; // code-cache.mts's CHUNK_NOT_LOADED
const STOPPED = "INIT stopped: "; // code-cache.mts's INIT_STOPPED
let stopped = "";
// What the runtime interface client puts on globalThis before it loads a handler: a response-streaming
// handler calls awslambda.streamifyResponse at its top level. Marks as the client marks (the symbols it reads).
const STREAMING = Symbol.for("aws.lambda.runtime.handler.streaming");
const HIGH_WATER_MARK = Symbol.for("aws.lambda.runtime.handler.streaming.highWaterMark");
globalThis.awslambda = {
  ...globalThis.awslambda,
  streamifyResponse(handler, options) {
    handler[STREAMING] = "response";
    if (typeof options?.highWaterMark === "number") handler[HIGH_WATER_MARK] = Number.parseInt(String(options.highWaterMark), 10);
    return handler;
  },
  HttpResponseStream: {
    from(stream, prelude) {
      stream.setContentType("application/vnd.awslambda.http-integration-response");
      const json = JSON.stringify(prelude);
      stream._onBeforeFirstWrite = (write) => {
        write(json);
        write(new Uint8Array(8));
      };
      return stream;
    },
  },
};
try {
  const module = await import(pathToFileURL(handlerFile).href);
  // The check invokes only where INIT left the chunk to the invoke (a package imported on first use).
  if (invoke && (mode === "write" || !globalThis[Symbol.for("warpstart.sdkScript")])) await invokeOnce(module, invoke);
} catch (error) {
  if (!partial || !globalThis[Symbol.for("warpstart.sdkScript")]) throw error;
  console.error(error);
  stopped = STOPPED;
}
/**
 * One invoke with the function's event, as the runtime client makes it (a callback for a handler
 * that takes one), within the function's timeout: what it compiles joins the cache. It answers
 * the local AWS only; its failure is the handler's own business (the cache holds what ran), and a
 * response-streaming handler, which needs the runtime's stream, is not invoked.
 */
async function invokeOnce(module, { event, exportPath, timeoutMs }) {
  const exported = exportPath.split(".");
  const handler = exported.reduce((value, key) => value?.[key], exported[0] in module ? module : module.default);
  if (typeof handler !== "function" || handler[STREAMING]) return;
  const context = {
    awsRequestId: "00000000-0000-4000-8000-000000000000",
    functionName: "build",
    getRemainingTimeInMillis: () => timeoutMs,
    callbackWaitsForEmptyEventLoop: true,
  };
  let timer;
  // An error thrown where the handler's own callbacks run (a request's, a timer's) ends the invoke, not the process.
  let crashed;
  try {
    await Promise.race([
      new Promise((resolve, reject) => {
        const answer = handler(JSON.parse(readFileSync(event, "utf8")), context, (error, value) => (error ? reject(error) : resolve(value)));
        if (typeof answer?.then === "function") answer.then(resolve, reject);
      }),
      new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
      new Promise((_, reject) => {
        crashed = reject;
        process.on("uncaughtException", crashed);
        process.on("unhandledRejection", crashed);
      }),
    ]);
  } catch (error) {
    console.error("the build's invoke failed:", error);
  } finally {
    clearTimeout(timer);
    process.off("uncaughtException", crashed);
    process.off("unhandledRejection", crashed);
  }
}

const loaded = globalThis[Symbol.for("warpstart.sdkScript")]; // src/contract.mts's LoadedChunk
if (mode === "compile-cache") {
  nodeModule.flushCompileCache();
  writeFileSync(verdictFile, "written");
} else if (!loaded) {
  writeFileSync(verdictFile, NOT_LOADED);
} else if (mode === "write") {
  const deferred = watching ? [...watch.required].filter((id) => !watch.used.has(id)) : [];
  const header = { chunk: loaded.chunk, deferred, node: process.version }; // src/contract.mts's CacheHeader
  writeFileSync(
    join(dirname(handlerFile), `sdk.${process.arch}.cache`),
    Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), loaded.script.createCachedData()]),
  );
  writeFileSync(verdictFile, `${stopped}written`);
} else {
  writeFileSync(verdictFile, `${stopped}${String(globalThis[Symbol.for("warpstart.codeCache")])}`);
}
// A stopped INIT, or the invoke, may leave a client retrying, a timer or a socket open: the verdict is all this process is for.
process.exit(0);
