// Child of code-cache.mts: `node <runtime flags> code-cache-child.mjs write|status <handler file> <verdict file> full|partial`.
// Imports the built handler module (a full INIT, top-level await included), then either saves
// the SDK chunk's code cache for this CPU architecture beside it (sdk.<process.arch>.cache, the
// file the chunk loader reads) or writes whether V8 accepted the one there to <verdict file>:
// a channel of its own, since INIT's code writes what it likes to stdout and stderr. An INIT
// that never loaded the chunk (the SDK imported dynamically, after INIT) gets the verdict
// NOT_LOADED in either mode. With "partial" (BuildProperties.WarpPartialInit), an INIT that
// fails after loading the chunk still gets its cache: what it compiled until it failed, and the
// verdict says INIT STOPPED; the parent decides whether the failure was one it accepts.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const [mode, handlerFile, verdictFile, init] = process.argv.slice(2);
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
  await import(pathToFileURL(handlerFile).href);
} catch (error) {
  if (init !== "partial" || !globalThis[Symbol.for("warpstart.sdkScript")]) throw error;
  console.error(error);
  stopped = STOPPED;
}
const script = globalThis[Symbol.for("warpstart.sdkScript")];
if (!script) {
  writeFileSync(verdictFile, NOT_LOADED);
} else if (mode === "write") {
  writeFileSync(join(dirname(handlerFile), `sdk.${process.arch}.cache`), script.createCachedData());
  writeFileSync(verdictFile, `${stopped}written`);
} else {
  writeFileSync(verdictFile, `${stopped}${String(globalThis[Symbol.for("warpstart.codeCache")])}`);
}
// A stopped INIT may leave a client retrying or a socket open: the verdict is all this process is for.
if (stopped) process.exit(0);
