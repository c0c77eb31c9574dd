// Child of code-cache.mts: `node <runtime flags> code-cache-child.mjs write|status <handler file> <verdict file>`.
// Imports the built handler module (a full INIT, top-level await included), then either saves
// the SDK chunk's code cache for this CPU architecture beside it (sdk.<process.arch>.cache, the
// file the chunk loader reads) or writes whether V8 accepted the one there to <verdict file>:
// a channel of its own, since INIT's code writes what it likes to stdout and stderr. An INIT
// that never loaded the chunk (the SDK imported dynamically, after INIT) gets the verdict
// NOT_LOADED in either mode.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const [mode, handlerFile, verdictFile] = process.argv.slice(2);
const NOT_LOADED = "not loaded"; // code-cache.mts's CHUNK_NOT_LOADED
await import(pathToFileURL(handlerFile).href);
const script = globalThis[Symbol.for("warpstart.sdkScript")];
if (!script) {
  writeFileSync(verdictFile, NOT_LOADED);
} else if (mode === "write") {
  writeFileSync(join(dirname(handlerFile), `sdk.${process.arch}.cache`), script.createCachedData());
  writeFileSync(verdictFile, "written");
} else {
  writeFileSync(verdictFile, String(globalThis[Symbol.for("warpstart.codeCache")]));
}
