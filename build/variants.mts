// The build variants compared by this project: every option that differs between them is
// defined here and nowhere else. build.mts turns one entry into one esbuild run.
import type { BuildOptions } from "esbuild";

/** Where a variant's @aws-sdk/client-sts comes from. */
export type SdkSource =
  | "runtime" // not bundled: resolved at run time from the runtime's own copy (/var/runtime/node_modules)
  | "published" // bundled from the project's node_modules, as published on npm
  | "patched" // bundled from patches/node_modules, where patches/*.patch are applied
  | "none"; // no SDK at all

export interface Variant {
  /** One line for reports and the README. */
  summary: string;
  /** The handler source: src/functions/<entry>/index.mts. */
  entry: "identity" | "floor" | "cjs";
  sdk: SdkSource;
  /** The handler's module format: "esm" (default) writes index.mjs, "cjs" writes index.cjs. */
  format?: "esm" | "cjs";
  /** The STS client's https agent keeps connections alive (default true: the SDK's own agent). */
  keepAlive?: false;
  /** esbuild options on top of the shared ones in build.mts. */
  esbuild: BuildOptions;
  /** The SDK goes into its own CommonJS chunk (sdk.cjs), loaded with vm.Script (src/warp/). */
  sdkChunk?: boolean;
  /** Ship a V8 code cache of that chunk, made after a full INIT at build time (build/code-cache.mts); needs sdkChunk. */
  codeCache?: boolean;
  /** SDK files (path inside the SDK tree's node_modules) replaced by project modules at build time. */
  replace?: Record<string, string>;
}

// Credential providers the default chain imports lazily and never reaches on Lambda, where
// credentials arrive as environment variables: left out of the bundle (the seed's externals).
export const UNUSED_CREDENTIAL_PROVIDERS = [
  "@aws-sdk/credential-provider-http",
  "@aws-sdk/credential-provider-ini",
  "@aws-sdk/credential-provider-process",
  "@aws-sdk/credential-provider-sso",
  "@aws-sdk/credential-provider-web-identity",
  "@smithy/credential-provider-imds",
];

const bundledAsAwsGuides: BuildOptions = { bundle: true, mainFields: ["module", "main"] };

const optimized: Variant = {
  summary: "Bundled + unused credential providers external + patches/ + build-time constants",
  entry: "identity",
  sdk: "patched",
  esbuild: { ...bundledAsAwsGuides, external: UNUSED_CREDENTIAL_PROVIDERS },
};

/**
 * What Warp adds to Optimized, one entry per optimization, each kept only while the bench shows
 * it pays (`npm run bench -- --ablate` builds Warp without each one in turn). Tried and dropped
 * for not paying once the code cache is in (100 interleaved rounds, README): minify, and the
 * credential chain reduced to fromEnv.
 */
export const WARP_OPTIMIZATIONS = {
  /** No ~/.aws/config or credentials file exists on Lambda: the SDK's reads of them fail without fs. */
  noSharedConfigFiles: (v: Variant): Variant => ({
    ...v,
    replace: { ...v.replace, "@smithy/core/dist-es/submodules/config/shared-ini-file-loader/readFile.js": "src/warp/no-shared-config-files.mts" },
  }),
  /** The SDK as a CommonJS chunk compiled with vm.Script (what the code cache needs). */
  sdkChunk: (v: Variant): Variant => ({ ...v, sdkChunk: true }),
  /** A V8 code cache of the chunk made after a full INIT: no parsing or lazy compiling at INIT. Without sdkChunk there is nothing to cache. */
  codeCache: (v: Variant): Variant => ({ ...v, codeCache: true }),
};
export type WarpOptimization = keyof typeof WARP_OPTIMIZATIONS;
export const WARP_OPTIMIZATION_NAMES = Object.keys(WARP_OPTIMIZATIONS) as WarpOptimization[];

/** Optimized with every Warp optimization but the ones left out. */
export function warp(without: WarpOptimization[] = []): Variant {
  const summary = without.length
    ? `Warp without ${without.join(", ")}`
    : "Optimized + no shared config files + the SDK as a chunk with a post-INIT V8 code cache";
  return WARP_OPTIMIZATION_NAMES.filter((name) => !without.includes(name)).reduce((variant, name) => WARP_OPTIMIZATIONS[name](variant), { ...optimized, summary });
}

export const VARIANTS = {
  Raw: {
    summary: "handler transpiled only; the SDK comes from the runtime's own copy",
    entry: "identity",
    sdk: "runtime",
    esbuild: { bundle: true, packages: "external" },
  },
  Bundled: {
    summary: "esbuild ESM bundle with the SDK, mainFields module,main (AWS guidance)",
    entry: "identity",
    sdk: "published",
    esbuild: bundledAsAwsGuides,
  },
  Optimized: optimized,
  Warp: warp(),
  Floor: {
    summary: "the same STS call with no SDK: node:https and a minimal SigV4 signer (the lower bound)",
    entry: "floor",
    sdk: "none",
    esbuild: { bundle: true },
  },
  Cjs: {
    ...optimized,
    summary: "Optimized as CommonJS: INIT starts the STS call without waiting, the handler awaits it (no top-level await)",
    entry: "cjs",
    format: "cjs",
  },
  NoKeepAlive: { ...optimized, summary: "Optimized with an https agent that does not keep alive: a new connection for every STS call", keepAlive: false },
} satisfies Record<string, Variant>;

export type VariantName = keyof typeof VARIANTS;
export const VARIANT_NAMES = Object.keys(VARIANTS) as VariantName[];

/** Warp with each optimization switched off in turn, named Warp-no-<optimization>. */
export function warpAblations(): Record<string, Variant> {
  return Object.fromEntries(WARP_OPTIMIZATION_NAMES.map((name) => [`Warp-no-${name}`, warp([name])]));
}

export function variantNamed(name: string): Variant {
  const ablations = warpAblations();
  if (Object.hasOwn(ablations, name)) return ablations[name]!;
  if (!Object.hasOwn(VARIANTS, name)) {
    throw new Error(`Unknown variant "${name}". Known variants: ${VARIANT_NAMES.join(", ")} (and ${Object.keys(ablations).join(", ")}).`);
  }
  return VARIANTS[name as VariantName];
}
