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
  entry: "identity" | "floor";
  sdk: SdkSource;
  /** esbuild options on top of the shared ones in build.mts. */
  esbuild: BuildOptions;
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
  Optimized: {
    summary: "Bundled + unused credential providers external + patches/ + build-time constants",
    entry: "identity",
    sdk: "patched",
    esbuild: { ...bundledAsAwsGuides, external: UNUSED_CREDENTIAL_PROVIDERS },
  },
  Floor: {
    summary: "the same STS call with no SDK: node:https and a minimal SigV4 signer (the lower bound)",
    entry: "floor",
    sdk: "none",
    esbuild: { bundle: true },
  },
} satisfies Record<string, Variant>;

export type VariantName = keyof typeof VARIANTS;
export const VARIANT_NAMES = Object.keys(VARIANTS) as VariantName[];

export function variantNamed(name: string): Variant {
  if (!Object.hasOwn(VARIANTS, name)) {
    throw new Error(`Unknown variant "${name}". Known variants: ${VARIANT_NAMES.join(", ")}.`);
  }
  return VARIANTS[name as VariantName];
}
