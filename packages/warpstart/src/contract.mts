// What the code shipped to Lambda and the tooling (builder, lab, bench, doctor) agree on: the
// one module of src/ the tooling imports (test/unit/layers.test.mts holds everyone to it). It is
// bundled into every function, so it holds names and types only: nothing that costs INIT time.
//
// Where Warp's chunk loader leaves what others read: the handler (whether V8 took the code
// cache), the build (the loaded chunk, whose code cache it saves after a full INIT), the log
// (a rejected cache, which the bench looks for) and a profiler (the chunk's progress).
import type { Script } from "node:vm";

export const CODE_CACHE_STATUS = Symbol.for("warpstart.codeCache");
export const SDK_SCRIPT = Symbol.for("warpstart.sdkScript");
/** What the loader leaves at SDK_SCRIPT: the compiled chunk and its build's id (its mark's). */
export interface LoadedChunk {
  script: Script;
  chunk: string;
}

/** Where the build watches which Node builtins the chunk requires, and which of them INIT and the first invoke use. */
export const BUILTINS_WATCH = Symbol.for("warpstart.builtinsWatch");
export interface BuiltinsWatch {
  required: Set<string>;
  used: Set<string>;
}

/** The chunk's file name, beside the handler bundle (and where a profiler finds the SDK's frames). */
export const SDK_CHUNK_FILE = "sdk.cjs";

/** The diagnostics channel on which the chunk loader says "started", "compiled" (read, cache deserialized) and "evaluated". */
export const SDK_CHUNK_CHANNEL = "warpstart:sdk-chunk";

/** Whether V8 took the build's code cache for this architecture, or there is none. */
export type CodeCacheStatus = "accepted" | "rejected" | "absent";

/**
 * What the chunk's text starts with: `/*warpstart chunk <id>*\/`, the id a hash of the text the
 * build wrote. V8 checks a code cache against its source's length only, and runs the cached code
 * of another source of that length; the cache's header names the chunk it was made from.
 */
export const CHUNK_MARK = "/*warpstart chunk ";

/** The code cache file's first line (JSON), before V8's data. */
export interface CacheHeader {
  /** The id of the chunk the cache was made from. */
  chunk: string;
  /** The builtins the chunk requires that the build's INIT and first invoke never used: loaded at their first use. */
  deferred: string[];
  /** The Node that made it (process.version): the one whose V8 takes it. */
  node: string;
}

/** How every warning a function logs at INIT when its code cache goes unused begins (the bench, the lab's trace and the doctor look for it). */
export const CACHE_REJECTED = "warpstart: the chunk's code cache was rejected";
const COMPILES_INSTEAD = "INIT compiles the SDK and the packages instead";
export const CACHE_REJECTED_BY_V8 = `${CACHE_REJECTED} by V8 (made for another Node version or memory size): ${COMPILES_INSTEAD}`;
export const CACHE_OF_ANOTHER_BUILD = `${CACHE_REJECTED}: it was made from another build of ${SDK_CHUNK_FILE}, whose code V8 would run: ${COMPILES_INSTEAD}`;

/** A service the handler's clients call, as the build finds it in each client's endpoint rules (builder/sdk.mts) and Warp's early lookup resolves it (src/warp/early-lookup.mts). */
export interface ServiceHost {
  /** The suffix of AWS_ENDPOINT_URL_<...> the SDK reads for this service (its serviceId, e.g. SECRETS_MANAGER). */
  endpointVariable: string;
  /** The endpoint's host with `{region}` for the region, e.g. sts.{region}.amazonaws.com. */
  host: string;
}

/** Where Lambda finds the exec wrapper the builder ships (src/warp/warp-exec) when a function's AWS_LAMBDA_EXEC_WRAPPER names it. */
export const WARP_EXEC_WRAPPER = "/var/task/warp-exec";
