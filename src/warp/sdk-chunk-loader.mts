// What `import ... from "@aws-sdk/client-sts"` becomes in Warp builds: loads sdk.cjs (next to
// this bundle) with vm.Script, handing V8 the code cache made after a full INIT at build time
// (sdk.cache), so the SDK's functions need neither parsing nor lazy compilation at INIT.
// V8 rejects a cache silently when the Node version or V8 flags differ: the status is checked.
import type * as Sdk from "@aws-sdk/client-sts";
import { CODE_CACHE_STATUS, type IdentityBody } from "../functions/identity/identity.mts";

// process.getBuiltinModule, not ES imports: an ES import of node:fs evaluates its lazy parts.
const { readFileSync } = process.getBuiltinModule("node:fs");
const { Script } = process.getBuiltinModule("node:vm");
const { fileURLToPath } = process.getBuiltinModule("node:url");

/** Where the build (build/code-cache.mts) finds the compiled chunk after a full INIT. */
export const SDK_SCRIPT = Symbol.for("warpstart.sdkScript");

const chunkPath = fileURLToPath(new URL("sdk.cjs", import.meta.url));
let cachedData: Buffer | undefined;
try {
  cachedData = readFileSync(new URL("sdk.cache", import.meta.url));
} catch {
  cachedData = undefined; // built without a cache: the chunk compiles as usual
}

// The CommonJS wrapper Node itself uses, so the chunk sees require/module as it would.
const script = new Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(chunkPath, "utf8")}\n})`, {
  filename: chunkPath,
  cachedData,
});
const status: IdentityBody["codeCache"] = cachedData === undefined ? "absent" : script.cachedDataRejected ? "rejected" : "accepted";
const globals = globalThis as Record<symbol, unknown>;
globals[CODE_CACHE_STATUS] = status;
globals[SDK_SCRIPT] = script; // the build takes its code cache from here after a full INIT

const module = { exports: {} as typeof Sdk };
// The chunk bundles all of the SDK it uses and requires only Node builtins (a full require
// would load node:module and its source-map support for nothing).
const requireBuiltin = (id: string) => {
  const builtin = process.getBuiltinModule(id);
  if (!builtin) throw new Error(`sdk.cjs may only require Node builtins, not "${id}"`);
  return builtin;
};
script.runInThisContext()(module.exports, requireBuiltin, module, chunkPath, fileURLToPath(new URL(".", import.meta.url)));

export const { GetCallerIdentityCommand, STSClient } = module.exports;
