// Replaced by esbuild's `define` at build time (builder/build.mts), so the artifact reads no
// environment variable for them. Tests assign them on globalThis before importing the handler.
/** The function's logical id in the template, and the profile it was built with. */
declare const WARPSTART_FUNCTION: string;
declare const WARPSTART_PROFILE: string;
/** The version of the SDK clients bundled ("provided by the runtime" for Raw). */
declare const WARPSTART_SDK_VERSION: string;
/** The template's BuildProperties.Define: false for NoKeepAlive, absent (keep-alive on) otherwise. */
declare const KEEP_ALIVE: boolean | undefined;
