// What the code shipped to Lambda and the tooling (builder, lab, bench, doctor) agree on: the
// one module of src/ the tooling imports (test/unit/layers.test.mts holds everyone to it). It is
// bundled into every function, so it holds names and types only: nothing that costs INIT time.
//
// Where Warp's chunk loader leaves what others read: the handler (whether V8 took the code
// cache), the build (the compiled chunk, whose code cache it saves after a full INIT), the log
// (a rejected cache, which the bench looks for) and a profiler (the chunk's progress).
export const CODE_CACHE_STATUS = Symbol.for("warpstart.codeCache");
export const SDK_SCRIPT = Symbol.for("warpstart.sdkScript");

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

/** The warning a function logs at INIT when V8 rejects its code cache. */
export const CACHE_REJECTED =
  "warpstart: V8 rejected the chunk's code cache (made for another Node version or memory size): INIT compiles the SDK and the packages instead";

/** A service the handler's clients call, as the build finds it in each client's endpoint rules (builder/sdk.mts) and Warp's early lookup resolves it (src/warp/early-lookup.mts). */
export interface ServiceHost {
  /** The suffix of AWS_ENDPOINT_URL_<...> the SDK reads for this service (its serviceId, e.g. SECRETS_MANAGER). */
  endpointVariable: string;
  /** The endpoint's host with `{region}` for the region, e.g. sts.{region}.amazonaws.com. */
  host: string;
}

/** Where Lambda finds the exec wrapper the builder ships (src/warp/warp-exec) when a function's AWS_LAMBDA_EXEC_WRAPPER names it. */
export const WARP_EXEC_WRAPPER = "/var/task/warp-exec";
