// What every SDK and package import of a Warp build becomes (builder/sdk.mts): loads sdk.cjs
// (next to this bundle) with vm.Script, handing V8 the code cache made after a full INIT and a
// first invoke at build time for this CPU architecture (sdk.<process.arch>.cache: V8's cache holds
// machine-dependent data), so the functions of the SDK and the packages need neither parsing nor
// lazy compilation at INIT. V8 rejects a cache silently when the Node version, the V8 flags or the
// CPU differ: the status is checked. A cache of another build of the chunk, which V8 takes when
// the two sources have the same length, the loader refuses: its header names another chunk.
import {
  BUILTINS_WATCH,
  type BuiltinsWatch,
  CACHE_OF_ANOTHER_BUILD,
  CACHE_REJECTED_BY_V8,
  type CacheHeader,
  CHUNK_MARK,
  CODE_CACHE_STATUS,
  type CodeCacheStatus,
  type LoadedChunk,
  SDK_CHUNK_CHANNEL,
  SDK_CHUNK_FILE,
  SDK_SCRIPT,
} from "../contract.mts";

// process.getBuiltinModule, not ES imports: an ES import of node:fs evaluates its lazy parts.
const { readFileSync } = process.getBuiltinModule("node:fs");
const { Script } = process.getBuiltinModule("node:vm");
// Tells a profiler where the chunk's milliseconds go (`npm run phases` subscribes); with no
// subscriber a publish is a no-op, and the module is one Node loads before any user code.
const progress = process.getBuiltinModule("node:diagnostics_channel").channel(SDK_CHUNK_CHANNEL);

progress.publish("started");

// The handler's folder: import.meta.dirname in an ES-module bundle, __dirname in a CommonJS one (builder/build.mts).
const here = import.meta.dirname;
const chunkPath = `${here}/${SDK_CHUNK_FILE}`;
const source = readFileSync(chunkPath, "utf8");
const chunk = source.startsWith(CHUNK_MARK) ? source.slice(CHUNK_MARK.length, source.indexOf("*/")) : "";
let cachedData: Buffer | undefined;
let deferred = new Set<string>();
let ofAnotherBuild = false;
try {
  const file = readFileSync(`${here}/sdk.${process.arch}.cache`);
  const line = file.indexOf(10);
  const header = JSON.parse(file.toString("latin1", 0, line)) as CacheHeader;
  // V8 would take the cache of another build's chunk of the same length, and run that build's code.
  ofAnotherBuild = header.chunk !== chunk;
  if (!ofAnotherBuild) {
    deferred = new Set(header.deferred);
    cachedData = file.subarray(line + 1);
  }
} catch {
  cachedData = undefined; // built without a cache: the chunk compiles as usual
}

// The CommonJS wrapper Node itself uses, so the chunk sees require/module as it would.
const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
  filename: chunkPath,
  cachedData,
});
progress.publish("compiled");
const status: CodeCacheStatus = ofAnotherBuild || script.cachedDataRejected ? "rejected" : cachedData === undefined ? "absent" : "accepted";
// Said only when it costs something: the log shows it on Lambda, and the bench reads it.
if (status === "rejected") console.warn(ofAnotherBuild ? CACHE_OF_ANOTHER_BUILD : CACHE_REJECTED_BY_V8);
const globals = globalThis as Record<symbol, unknown>;
globals[CODE_CACHE_STATUS] = status;
globals[SDK_SCRIPT] = { script, chunk } satisfies LoadedChunk; // the build takes its code cache from here after a full INIT

const module = { exports: {} as { sdkPackages: Record<string, unknown> } };
// The build watches which builtins the chunk requires and which INIT and the first invoke use (code-cache-child.mjs).
const watch = globals[BUILTINS_WATCH] as BuiltinsWatch | undefined;
let requireModule: NodeJS.Require | undefined;
// The chunk bundles all it uses and requires Node builtins; a real require (node:module and its
// source-map support) only for what a library requires that the build left out (a layer's package).
const require = (id: string) => {
  if (deferred.has(id)) return onFirstUse(() => process.getBuiltinModule(id) as object);
  const builtin = process.getBuiltinModule(id);
  if (builtin) {
    if (!watch || typeof builtin !== "object") return builtin;
    watch.required.add(id);
    return onFirstUse(() => {
      watch.used.add(id);
      return builtin;
    });
  }
  requireModule ??= process.getBuiltinModule("node:module").createRequire(chunkPath);
  return requireModule(id);
};

/**
 * A builtin module object that becomes the builtin at its first use (a property read, a key
 * listed...): loaded then, not at require (esbuild's CommonJS reads an import's names at each use).
 */
function onFirstUse(load: () => object): object {
  let builtin: object | undefined;
  const real = () => (builtin ??= load());
  return new Proxy(
    {},
    {
      get: (_, key) => Reflect.get(real(), key),
      set: (_, key, value) => Reflect.set(real(), key, value),
      has: (_, key) => Reflect.has(real(), key),
      ownKeys: () => Reflect.ownKeys(real()),
      // Reported configurable: the stand-in object holds none of the builtin's own properties.
      getOwnPropertyDescriptor: (_, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
        return descriptor && { ...descriptor, configurable: true };
      },
      defineProperty: (_, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
      deleteProperty: (_, key) => Reflect.deleteProperty(real(), key),
      getPrototypeOf: () => Reflect.getPrototypeOf(real()),
    },
  );
}
script.runInThisContext()(module.exports, require, module, chunkPath, here);
progress.publish("evaluated");

/** The SDK modules the handler imports, by specifier (builder/sdk.mts, chunkEntry). */
export const { sdkPackages } = module.exports;
