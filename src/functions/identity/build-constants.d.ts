// Replaced by esbuild's `define` at build time (build/variants.mts), so the artifact reads no
// environment variable for them. Tests assign them on globalThis before importing the handler.
declare const WARPSTART_VARIANT: string;
declare const WARPSTART_SDK_VERSION: string;
/** Whether the STS client's https agent keeps connections alive (false only for NoKeepAlive). */
declare const WARPSTART_KEEP_ALIVE: boolean;
