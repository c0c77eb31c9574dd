// The build profiles a function can be built with (template Metadata.BuildProperties.Profile):
// every option that differs between them is defined here and nowhere else. build.mts turns a
// function and its profile into esbuild runs.
import type { BuildOptions } from "esbuild";

/** Where a profile's @aws-sdk/* packages come from. */
type SdkSource =
  | "runtime" // not bundled: resolved at run time from the runtime's own copy (/var/runtime/node_modules)
  | "published" // bundled as the app installs it, as published on npm (builder/sdk-tree.mts)
  | "patched"; // bundled from a copy of the app's, with patches/*.patch applied

export interface Profile {
  /** One line for reports and the README. */
  summary: string;
  sdk: SdkSource;
  /** esbuild options on top of the shared ones in build.mts. */
  esbuild: BuildOptions;
  /** The SDK packages the handler imports go into one CommonJS chunk (sdk.cjs), loaded with vm.Script (src/warp/). */
  sdkChunk?: boolean;
  /** The packages the handler's own code imports from node_modules join the SDK in the chunk, each evaluated where it is first imported; needs sdkChunk. */
  libraryChunk?: boolean;
  /** The code cache is made after INIT and one invoke with the function's event (what that invoke compiles included); needs codeCache. */
  firstInvoke?: boolean;
  /** The builtins the chunk requires that neither INIT nor the first invoke used are loaded at their first use; needs firstInvoke. */
  deferBuiltins?: boolean;
  /** Ship a V8 code cache of that chunk, made after a full INIT at build time (builder/code-cache.mts); needs sdkChunk. */
  codeCache?: boolean;
  /** SDK files (path inside the SDK tree's node_modules) replaced by the package's own modules (path without extension: core/paths.mts ownModule) at build time. */
  replace?: Record<string, string>;
  /** Start the DNS lookup of each service the handler's clients call before the chunk loads (src/warp/early-lookup.mts); needs sdkChunk. */
  earlyLookup?: boolean;
  /**
   * The module format the tool a peer profile stands for writes (BuildProperties.Format still
   * decides); code with top-level await, which CommonJS cannot hold, is an ES module, as that
   * tool's users set it for such code.
   */
  format?: "cjs";
  /** What the tool adds to the function's environment (SAM's esbuild builder, for Sourcemap: true). */
  environment?: Record<string, string>;
  /** Ship Node's module compile cache of the bundle, made by a build-time INIT (Node saves a module's as it compiles it), enabled by the handler before it loads the bundle (builder/code-cache.mts). */
  nodeCompileCache?: boolean;
}

// Credential providers the default chain imports lazily and never reaches on Lambda, where
// credentials arrive as environment variables: left out of the bundle (as "The Fastest Node 22 Lambda
// Coldstart Configuration" did).
export const UNUSED_CREDENTIAL_PROVIDERS = [
  "@aws-sdk/credential-provider-http",
  "@aws-sdk/credential-provider-ini",
  "@aws-sdk/credential-provider-process",
  "@aws-sdk/credential-provider-sso",
  "@aws-sdk/credential-provider-web-identity",
  "@smithy/credential-provider-imds",
];

const bundledAsAwsGuides: BuildOptions = { bundle: true, mainFields: ["module", "main"] };

const optimized: Profile = {
  summary: "Bundled + unused credential providers external + patches/ + build-time constants",
  sdk: "patched",
  esbuild: { ...bundledAsAwsGuides, external: UNUSED_CREDENTIAL_PROVIDERS },
};

/**
 * What Warp adds to Optimized, one entry per optimization, each kept only while the bench shows
 * it pays (`npm run bench -- --ablate` builds Warp without each one in turn). Tried and dropped
 * for not paying once the code cache is in (100 interleaved rounds, docs/warp.md#tried-and-dropped): minify, and the
 * credential chain reduced to fromEnv.
 */
const WARP_OPTIMIZATIONS = {
  /** No ~/.aws/config or credentials file exists on Lambda: the SDK's reads of them fail without fs. */
  noSharedConfigFiles: (profile: Profile): Profile => ({
    ...profile,
    replace: { ...profile.replace, "@smithy/core/dist-es/submodules/config/shared-ini-file-loader/readFile.js": "src/warp/no-shared-config-files" },
  }),
  /** The SDK as a CommonJS chunk compiled with vm.Script (what the code cache needs). */
  sdkChunk: (profile: Profile): Profile => ({ ...profile, sdkChunk: true }),
  /** The libraries around the SDK (Powertools, middy, zod, a logger) in the chunk too, and so in its code cache. */
  libraryChunk: (profile: Profile): Profile => ({ ...profile, libraryChunk: true }),
  /** A V8 code cache of the chunk made after a full INIT: no parsing or lazy compiling at INIT. Without sdkChunk there is nothing to cache. */
  codeCache: (profile: Profile): Profile => ({ ...profile, codeCache: true }),
  /** The cache holds what the first invoke compiles too. */
  firstInvoke: (profile: Profile): Profile => ({ ...profile, firstInvoke: true }),
  /** A builtin a package requires for what the cold start never does (Powertools Logger's node:crypto, for log sampling) is not loaded at INIT. */
  deferBuiltins: (profile: Profile): Profile => ({ ...profile, deferBuiltins: true }),
  /** The endpoints' DNS lookups run in libuv's thread pool while the chunk loads, not after it. */
  earlyLookup: (profile: Profile): Profile => ({ ...profile, earlyLookup: true }),
};
export type WarpOptimization = keyof typeof WARP_OPTIMIZATIONS;
export const WARP_OPTIMIZATION_NAMES = Object.keys(WARP_OPTIMIZATIONS) as WarpOptimization[];

/** Optimized with every Warp optimization but the ones left out. */
function warp(without: WarpOptimization[] = []): Profile {
  const summary = without.length
    ? `Warp without ${without.join(", ")}`
    : "Optimized + no shared config files + the SDK and the libraries as a chunk with a post-INIT V8 code cache + the endpoints' DNS lookups started before it loads";
  return WARP_OPTIMIZATION_NAMES.filter((name) => !without.includes(name)).reduce((profile, name) => WARP_OPTIMIZATIONS[name](profile), {
    ...optimized,
    summary,
  });
}

/**
 * What a user would pick instead of this pipeline, each built as its tool builds it (docs/peers.md
 * cites each setting): the bench and the doctor measure them beside Warp.
 */
export const PEERS = {
  SamEsbuild: {
    summary: "SAM's esbuild builder as sam init's TypeScript templates set it: CommonJS, minified, es2020, source maps on, the SDK bundled",
    sdk: "published",
    format: "cjs",
    esbuild: { bundle: true, minify: true, sourcemap: true, target: "es2020" },
    environment: { NODE_OPTIONS: "--enable-source-maps" },
  },
  NodeCompileCache: {
    summary: "Bundled + Node's module compile cache made by a build-time INIT, enabled before the bundle loads (nodejs24.x)",
    sdk: "published",
    esbuild: bundledAsAwsGuides,
    nodeCompileCache: true,
  },
  RuntimeSdk: {
    summary: "CommonJS bundle without the SDK, which comes from the runtime's own copy (AWS CDK's NodejsFunction and the Serverless Framework's defaults)",
    sdk: "runtime",
    format: "cjs",
    esbuild: { bundle: true },
  },
} satisfies Record<string, Profile>;

export const PROFILES = {
  Raw: {
    summary: "handler transpiled and bundled without the SDK, which comes from the runtime's own copy",
    sdk: "runtime", // what the runtime's copy lacks is bundled (builder/sdk.mts, sdkFromRuntime)
    esbuild: { bundle: true },
  },
  Bundled: {
    summary: "esbuild ESM bundle with the SDK, mainFields module,main (AWS guidance)",
    sdk: "published",
    esbuild: bundledAsAwsGuides,
  },
  Optimized: optimized,
  Warp: warp(),
} satisfies Record<string, Profile>;

/** A function as the tool a peer profile stands for deploys it: with what that tool adds to its environment. */
export const withToolEnvironment = <F extends { environment: Record<string, unknown> }>(fn: F, profile: Profile): F =>
  profile.environment ? { ...fn, environment: { ...fn.environment, ...profile.environment } } : fn;

export type ProfileName = keyof typeof PROFILES;
export const PROFILE_NAMES = Object.keys(PROFILES) as ProfileName[];
export type PeerName = keyof typeof PEERS;
export const PEER_NAMES = Object.keys(PEERS) as PeerName[];
/** A function whose template metadata names no profile is built with this one. */
export const DEFAULT_PROFILE: ProfileName = "Optimized";

/** The oldest Node whose process.getBuiltinModule the chunk's loader and the early lookups use (src/warp/). */
const CHUNK_NODE_MAJOR = 20;

/**
 * A profile as a runtime's Node runs it: below Node 20, without the chunk and what needs it (its
 * code cache, the early lookups), and the line that says so; else as it is.
 */
export function profileForNode(profile: Profile, nodeMajor: number): { profile: Profile; note: string | null } {
  if (!profile.sdkChunk || nodeMajor >= CHUNK_NODE_MAJOR) return { profile, note: null };
  const { sdkChunk: _chunk, libraryChunk: _libraries, codeCache: _cache, firstInvoke: _invoke, deferBuiltins: _defer, earlyLookup: _lookup, ...rest } = profile;
  return {
    profile: rest,
    note: `Node ${nodeMajor} has no process.getBuiltinModule, which the chunk's loader uses: built without the chunk and its code cache (as Optimized, and no shared config files); Warp's code cache needs nodejs${CHUNK_NODE_MAJOR}.x or later`,
  };
}

/** Warp with each optimization switched off in turn, named Warp-no-<optimization> (the bench's --ablate). */
export function warpAblations(): Record<string, Profile> {
  return Object.fromEntries(WARP_OPTIMIZATION_NAMES.map((name) => [`Warp-no-${name}`, warp([name])]));
}

export function profileNamed(name: string): Profile {
  const named: Record<string, Profile> = { ...PROFILES, ...PEERS, ...warpAblations() };
  if (!Object.hasOwn(named, name)) {
    throw new Error(
      `Unknown build profile "${name}". Profiles: ${PROFILE_NAMES.join(", ")}; to measure Warp against what users pick instead, ${PEER_NAMES.join(", ")}; to measure Warp's parts, ${Object.keys(warpAblations()).join(", ")}.`,
    );
  }
  return named[name]!;
}
