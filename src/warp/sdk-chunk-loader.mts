// What every SDK import of a Warp build becomes (builder/sdk.mts): loads sdk.cjs (next to this
// bundle) with vm.Script, handing V8 the code cache made after a full INIT at build time for this
// CPU architecture (sdk.<process.arch>.cache: V8's cache holds machine-dependent data), so the
// SDK's functions need neither parsing nor lazy compilation at INIT. V8 rejects a cache silently
// when the Node version, the V8 flags or the CPU differ: the status is checked.
import { CACHE_REJECTED, CODE_CACHE_STATUS, type CodeCacheStatus, SDK_CHUNK_CHANNEL, SDK_CHUNK_FILE, SDK_SCRIPT } from "../contract.mts";

// process.getBuiltinModule, not ES imports: an ES import of node:fs evaluates its lazy parts.
const { readFileSync } = process.getBuiltinModule("node:fs");
const { Script } = process.getBuiltinModule("node:vm");
const { fileURLToPath } = process.getBuiltinModule("node:url");
// Tells a profiler where the chunk's milliseconds go (`npm run phases` subscribes); with no
// subscriber a publish is a no-op, and the module is one Node loads before any user code.
const progress = process.getBuiltinModule("node:diagnostics_channel").channel(SDK_CHUNK_CHANNEL);

progress.publish("started");

const chunkPath = fileURLToPath(new URL(SDK_CHUNK_FILE, import.meta.url));
let cachedData: Buffer | undefined;
try {
  cachedData = readFileSync(new URL(`sdk.${process.arch}.cache`, import.meta.url));
} catch {
  cachedData = undefined; // built without a cache: the chunk compiles as usual
}

// The CommonJS wrapper Node itself uses, so the chunk sees require/module as it would.
const script = new Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(chunkPath, "utf8")}\n})`, {
  filename: chunkPath,
  cachedData,
});
progress.publish("compiled");
const status: CodeCacheStatus = cachedData === undefined ? "absent" : script.cachedDataRejected ? "rejected" : "accepted";
// Said only when it costs something: the log shows it on Lambda, and the bench reads it.
if (status === "rejected") console.warn(CACHE_REJECTED);
const globals = globalThis as Record<symbol, unknown>;
globals[CODE_CACHE_STATUS] = status;
globals[SDK_SCRIPT] = script; // the build takes its code cache from here after a full INIT

const module = { exports: {} as { sdkPackages: Record<string, unknown> } };
// The chunk bundles all of the SDK it uses and requires only Node builtins (a full require
// would load node:module and its source-map support for nothing).
const requireBuiltin = (id: string) => {
  const builtin = process.getBuiltinModule(id);
  if (!builtin) throw new Error(`${SDK_CHUNK_FILE} may only require Node builtins, not "${id}"`);
  return builtin;
};
script.runInThisContext()(module.exports, requireBuiltin, module, chunkPath, fileURLToPath(new URL(".", import.meta.url)));
progress.publish("evaluated");

/** The SDK modules the handler imports, by specifier (builder/sdk.mts, chunkEntry). */
export const { sdkPackages } = module.exports;
