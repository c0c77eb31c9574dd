// How a build would fix each finding, written as a change to the function's resource in the SAM
// template, so the doctor can build the function as it is and as the fix would have it (with the
// same builder: this project's pipeline or SAM's esbuild builder) and measure both. A finding no
// build can fix, or whose cost the lab does not play, says why it is not measured.
import { UNUSED_CREDENTIAL_PROVIDERS } from "../builder/profiles.mts";
import type { TemplateResourceEntry } from "../core/template.mts";
import type { BuiltFunction } from "./artifact.mts";
import { keepAliveOffAt } from "./checks.mts";
import type { CheckId } from "./findings.mts";
import { labRuns, STAND_IN_RUNTIME } from "./lambda-runtimes.mts";

/** What a measurement compares: Init Duration of the cold start, or a warm invoke (keep-alive pays there). */
type Metric = "init" | "warm";

export interface BuildFix {
  metric: Metric;
  /** Changes a copy of the function's template resource as the fix would have it. */
  rewrite(resource: TemplateResourceEntry): void;
}

/** A build fix, or why there is none to measure. */
export type Fix = BuildFix | { why: string };

const buildPropertiesOf = (resource: TemplateResourceEntry): Record<string, unknown> => {
  resource.Metadata ??= {};
  resource.Metadata.BuildProperties ??= {};
  return resource.Metadata.BuildProperties as Record<string, unknown>;
};

/** esbuild's External as SAM's builder takes it: a list, or one comma-separated string. */
const externalOf = (properties: Record<string, unknown>): string[] => {
  const external = properties.External;
  if (Array.isArray(external)) return external.map(String);
  return typeof external === "string" ? external.split(",").map((entry) => entry.trim()) : [];
};

const isSdk = (specifier: string) => /^@(aws-sdk|smithy)\//.test(specifier) && !UNUSED_CREDENTIAL_PROVIDERS.includes(specifier);

/** SAM's esbuild builder: External changed, each entry once. */
const withExternal = (change: (external: string[]) => string[]): BuildFix => ({
  metric: "init",
  rewrite: (resource) => {
    const properties = buildPropertiesOf(resource);
    properties.External = [...new Set(change(externalOf(properties)))];
  },
});

/** This project's pipeline: its Optimized profile bundles the SDK without the providers Lambda never reaches. */
const toOptimized = (resource: TemplateResourceEntry) => {
  buildPropertiesOf(resource).Profile = "Optimized";
};

/** esbuild's wrapper of a CommonJS module in a bundle (`(mod = { exports: {} }).exports`, minified or not). */
const COMMONJS_WRAPPER = /\(\s*[\w$]+\s*=\s*\{\s*exports\s*:\s*\{\s*\}\s*\}\s*\)\s*\.exports/;

/**
 * What SAM users add to an ES-module bundle of CommonJS modules (Powertools' example app does):
 * a `require` for their requires of builtins, and the path variables they read. The imports are
 * renamed so they cannot meet the app's own.
 */
export const COMMONJS_BANNER = [
  'import { createRequire as __esmFixCreateRequire } from "node:module";',
  'import { fileURLToPath as __esmFixFileURLToPath } from "node:url";',
  'import { dirname as __esmFixDirname } from "node:path";',
  "const require = __esmFixCreateRequire(import.meta.url);",
  "const __filename = __esmFixFileURLToPath(import.meta.url);",
  "const __dirname = __esmFixDirname(__filename);",
].join(" ");

/**
 * BuildProperties.Banner with the CommonJS banner in its js entry. SAM passes a list entry to
 * esbuild as --banner:js=..., the form esbuild takes (a string would be --banner=js=..., which it
 * refuses); an app's own banner that gives a require already stays as it is.
 */
function withCommonJsBanner(banner: unknown): string[] {
  const entries = (Array.isArray(banner) ? banner : typeof banner === "string" ? [banner] : []).map(String);
  const js = entries.find((entry) => entry.startsWith("js="));
  if (js?.includes("createRequire")) return entries;
  const others = entries.filter((entry) => entry !== js);
  return [`js=${COMMONJS_BANNER}${js ? ` ${js.slice("js=".length)}` : ""}`, ...others];
}

const NOT_BUNDLED = "the function is not bundled (SAM's npm builder): the fix adds a bundler (BuildMethod: esbuild), which the doctor does not choose for you";

/** How `built` (which has the finding `id`) would be built with it fixed. */
export function fixFor(id: CheckId, built: BuiltFunction): Fix {
  const { fn, pipeline } = built;
  const esbuild = fn.buildMethod === "esbuild";
  switch (id) {
    case "deprecated-runtime":
      return {
        why: labRuns(fn.runtime)
          ? "the fix changes the runtime, not the build: npm run bench -- --runtimes compares runtimes"
          : `the lab does not run ${fn.runtime}: the function is traced and measured on ${STAND_IN_RUNTIME}, the runtime the fix moves it to`,
      };
    case "runtime-sdk":
      if (pipeline) return { metric: "init", rewrite: toOptimized };
      if (!esbuild) return { why: NOT_BUNDLED };
      return withExternal((external) => [...external.filter((entry) => !isSdk(entry)), ...UNUSED_CREDENTIAL_PROVIDERS]);
    case "credential-providers":
      if (pipeline) return { metric: "init", rewrite: toOptimized };
      if (!esbuild) return { why: NOT_BUNDLED };
      return withExternal((external) => [...external, ...UNUSED_CREDENTIAL_PROVIDERS]);
    case "commonjs":
      if (pipeline) return { metric: "init", rewrite: (resource) => delete buildPropertiesOf(resource).Format };
      if (!esbuild) return { why: "the function is not bundled: making its handler an ES module is a change to its code" };
      return {
        metric: "init",
        rewrite: (resource) => {
          const properties = buildPropertiesOf(resource);
          Object.assign(properties, { Format: "esm", OutExtension: [".js=.mjs"] });
          // An ES module cannot require(): a bundle of CommonJS modules needs the banner.
          if (built.ownCode.some(({ text }) => COMMONJS_WRAPPER.test(text))) properties.Banner = withCommonJsBanner(properties.Banner);
        },
      };
    case "source-maps":
      return {
        metric: "init",
        rewrite: (resource) => {
          // Only a build that writes source maps gets BuildProperties changed (--fix writes what the rewrite makes).
          const properties = resource.Metadata?.BuildProperties as Record<string, unknown> | undefined;
          if (properties && "Sourcemap" in properties) properties.Sourcemap = false;
          const nodeOptions = String(fn.environment.NODE_OPTIONS ?? "");
          if (!nodeOptions.includes("--enable-source-maps")) return;
          // A function's own variable overrides the Globals' one of the same name; an empty NODE_OPTIONS is none.
          resource.Properties ??= {};
          const variables = (resource.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables;
          const withoutMaps = nodeOptions.replace(/\s*--enable-source-maps\b/g, "").trim();
          resource.Properties.Environment = { ...(resource.Properties.Environment as object), Variables: { ...variables, NODE_OPTIONS: withoutMaps } };
        },
      };
    case "esbuild-target":
      return {
        metric: "init",
        rewrite: (resource) => {
          // Node 14's first releases lack top-level await: a function on an older runtime gets the one the lab runs it on.
          const major = (runtime: string | undefined) => Number(/^nodejs(\d+)/.exec(runtime ?? "")?.[1] ?? 0);
          buildPropertiesOf(resource).Target = `node${major(fn.runtime) >= 16 ? major(fn.runtime) : major(STAND_IN_RUNTIME)}`;
        },
      };
    case "keep-alive-off":
      if (!pipeline || keepAliveOffAt(built).inCode.length > 0) return { why: "keepAlive: false is in the function's code: the fix is a change to it" };
      return {
        metric: "warm",
        rewrite: (resource) => {
          const properties = buildPropertiesOf(resource);
          properties.Define = { ...(properties.Define as Record<string, unknown>), KEEP_ALIVE: true };
        },
      };
    case "environment-variables":
      return { why: "the lab does not play Lambda's decryption of environment variables: measure it on Lambda (npm run bench -- --stack)" };
    case "init-error":
      return { why: "there is nothing to measure until INIT completes" };
    case "invoke-error":
      return { why: "a handler that fails is not one whose cold start a fix would change: nothing to measure" };
    case "code-cache-mismatch":
      return {
        why: "the fix runs the function where the cache was made (nodejs22.x, the architecture it was built for), so the runtime changes too: what the cache is worth is Warp-no-codeCache in npm run bench -- --ablate",
      };
  }
}
