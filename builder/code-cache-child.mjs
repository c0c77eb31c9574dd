// Child of code-cache.mts: `node <runtime flags> code-cache-child.mjs write|status <handler file> <verdict file>`.
// Imports the built handler module (a full INIT, top-level await included), then either saves
// the SDK chunk's code cache for this CPU architecture beside it (sdk.<process.arch>.cache, the
// file the chunk loader reads) or writes whether V8 accepted the one there to <verdict file>:
// a channel of its own, since INIT's code writes what it likes to stdout and stderr.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const [mode, handlerFile, verdictFile] = process.argv.slice(2);
await import(pathToFileURL(handlerFile).href);
if (mode === "write") {
  const script = globalThis[Symbol.for("warpstart.sdkScript")];
  if (!script) throw new Error(`${handlerFile} did not load an SDK chunk`);
  writeFileSync(join(dirname(handlerFile), `sdk.${process.arch}.cache`), script.createCachedData());
} else {
  writeFileSync(verdictFile, String(globalThis[Symbol.for("warpstart.codeCache")]));
}
