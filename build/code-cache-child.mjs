// Child of code-cache.mts: `node <runtime flags> code-cache-child.mjs write|status <outdir>`.
// Imports the artifact (a full INIT, top-level await included), then either saves the SDK
// chunk's code cache or prints whether V8 accepted the one shipped.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [mode, outdir] = process.argv.slice(2);
await import(pathToFileURL(join(outdir, "index.mjs")).href);
if (mode === "write") {
  const script = globalThis[Symbol.for("warpstart.sdkScript")];
  if (!script) throw new Error(`${outdir}/index.mjs did not load an SDK chunk`);
  writeFileSync(join(outdir, "sdk.cache"), script.createCachedData());
} else {
  console.log(globalThis[Symbol.for("warpstart.codeCache")]);
}
