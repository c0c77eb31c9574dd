// Where Warp's chunk loader leaves what others read: the handler (whether V8 took the code
// cache), the build (the compiled chunk, whose code cache it saves after a full INIT), the log
// (a rejected cache, which the bench looks for) and a profiler (the chunk's progress).
export const CODE_CACHE_STATUS = Symbol.for("warpstart.codeCache");
export const SDK_SCRIPT = Symbol.for("warpstart.sdkScript");

/** The chunk's file name, beside the handler bundle (and where a profiler finds the SDK's frames). */
export const SDK_CHUNK_FILE = "sdk.cjs";

/** The diagnostics channel on which the chunk loader says "started", "compiled" (read, cache deserialized) and "evaluated". */
export const SDK_CHUNK_CHANNEL = "warpstart:sdk-chunk";

/** Whether V8 took the build's code cache for this architecture, or there is none. */
export type CodeCacheStatus = "accepted" | "rejected" | "absent";

/** The warning a function logs at INIT when V8 rejects its code cache. */
export const CACHE_REJECTED = "warpstart: V8 rejected the SDK chunk's code cache (made for another Node version or memory size): INIT compiles the SDK instead";
