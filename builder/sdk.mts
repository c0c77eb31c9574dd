// What the pipeline does with the AWS SDK: find what a handler imports from it, bundle it from a
// profile's SDK tree (published or patched), replace SDK files, and for Warp put it all into one
// CommonJS chunk that src/warp/sdk-chunk-loader.mts loads with a V8 code cache.

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, sep } from "node:path";
import { type BuildOptions, build, type Plugin } from "esbuild";
import { PROJECT_ROOT } from "../core/paths.mts";
import type { ServiceHost } from "../src/warp/early-lookup.mts";

/** Packages of the SDK: what a Raw build leaves to the runtime and what Warp's chunk holds. */
const SDK_PACKAGE = /^@(aws-sdk|smithy)\//;
const CHUNK_LOADER = join(PROJECT_ROOT, "src/warp/sdk-chunk-loader.mts");
const EARLY_LOOKUP = join(PROJECT_ROOT, "src/warp/early-lookup.mts");

/** Per SDK specifier the handler's code imports: the names it uses, or "*" when it takes the whole module. */
export type SdkImports = Map<string, Set<string> | "*">;

/** The package a specifier belongs to: @aws-sdk/client-ssm/dist-es/x -> @aws-sdk/client-ssm. */
export const packageOf = (specifier: string) => specifier.split("/").slice(0, 2).join("/");

// esbuild prints every import of an external module in one of these forms.
const STATIC = /\b(import|export)\s*([^;"'`]*?)\s*from\s*["']((?:@aws-sdk|@smithy)\/[^"']+)["']/g;
const BARE = /\bimport\s*["']((?:@aws-sdk|@smithy)\/[^"']+)["']/g;
const CALLED = /\b(?:import|require|__require)\s*\(\s*["']((?:@aws-sdk|@smithy)\/[^"']+)["']\s*\)/g;

/** Reads the SDK imports out of esbuild's output for a bundle that kept the SDK external. */
export function parseSdkImports(code: string): SdkImports {
  const imports: SdkImports = new Map();
  const add = (specifier: string, names: string[] | "*") => {
    const known = imports.get(specifier) ?? new Set<string>();
    if (known === "*" || names === "*") return void imports.set(specifier, "*");
    for (const name of names) known.add(name);
    imports.set(specifier, known);
  };
  for (const [, , clause, specifier] of code.matchAll(STATIC)) {
    const braces = /\{([^}]*)\}/.exec(clause!);
    const outside = clause!
      .replace(/\{[^}]*\}/, "")
      .replace(/,/g, "")
      .trim();
    // `* as ns`, a default import or `export *`: the module as a whole.
    if (outside || !braces) add(specifier!, "*");
    else
      add(
        specifier!,
        braces[1]!
          .split(",")
          .map((part) => part.trim().split(/\s+as\s+/)[0]!)
          .filter(Boolean),
      );
  }
  for (const [, specifier] of code.matchAll(BARE)) add(specifier!, []);
  for (const [, specifier] of code.matchAll(CALLED)) add(specifier!, "*");
  return imports;
}

/** Bundles the handler with the SDK external (nothing written) to see what it imports from the SDK. */
export async function findSdkImports(options: BuildOptions): Promise<SdkImports> {
  const result = await build({
    ...options,
    write: false,
    format: "esm",
    outfile: "sdk-imports.mjs",
    metafile: false,
    minify: false,
    external: [...(options.external ?? []), "@aws-sdk/*", "@smithy/*"],
  });
  return parseSdkImports(result.outputFiles.map((file) => file.text).join("\n"));
}

/** The version of an installed package in a tree, or null when it is not installed there. */
export function installedVersion(tree: string, pkg: string): string | null {
  const manifest = join(tree, "node_modules", pkg, "package.json");
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version : null;
}

/** Build-time replacement of SDK files by project modules (Profile.replace). */
export function replaceFiles(tree: string, replacements: Record<string, string>): Plugin {
  const byPath = new Map(Object.entries(replacements).map(([inTree, replacement]) => [join(tree, "node_modules", inTree), join(PROJECT_ROOT, replacement)]));
  return {
    name: "replace-sdk-files",
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, (args) => {
        const replacement = byPath.get(args.path);
        return replacement ? { contents: readFileSync(replacement, "utf8"), loader: "ts", resolveDir: dirname(replacement) } : undefined;
      });
    },
  };
}

/**
 * SDK packages imported from outside the tree (the function's own code, or a library it uses)
 * resolve from the profile's tree; the SDK's own imports then stay inside it.
 */
export function sdkFromTree(tree: string): Plugin {
  const treeModules = join(tree, "node_modules") + sep;
  return {
    name: "sdk-tree",
    setup(b) {
      b.onResolve({ filter: SDK_PACKAGE }, (args) => {
        if (args.pluginData === "sdk-tree" || args.importer.startsWith(treeModules)) return undefined;
        return b.resolve(args.path, { kind: args.kind, resolveDir: tree, pluginData: "sdk-tree" });
      });
    },
  };
}

/**
 * Warp's handler bundle: every SDK import outside the tree becomes the chunk's copy of that
 * module (CommonJS, so named, namespace and default imports all read from the one object). With
 * `earlyLookups`, the first of them starts those hosts' DNS lookups before the chunk loads
 * (src/warp/early-lookup.mts).
 */
export function sdkFromChunk(tree: string, earlyLookups: ServiceHost[] = []): Plugin {
  const treeModules = join(tree, "node_modules") + sep;
  const lookUpEarly = earlyLookups.length ? `require(${JSON.stringify(EARLY_LOOKUP)}).lookUpEarly(${JSON.stringify(earlyLookups)});\n` : "";
  return {
    name: "sdk-chunk",
    setup(b) {
      b.onResolve({ filter: SDK_PACKAGE }, (args) => (args.importer.startsWith(treeModules) ? undefined : { path: args.path, namespace: "sdk-chunk" }));
      b.onLoad({ filter: /.*/, namespace: "sdk-chunk" }, (args) => ({
        contents: `${lookUpEarly}module.exports = require(${JSON.stringify(CHUNK_LOADER)}).sdkPackages[${JSON.stringify(args.path)}];`,
        loader: "js",
        resolveDir: PROJECT_ROOT,
      }));
    },
  };
}

/**
 * The endpoint host of each SDK client package the handler imports, as that client's own
 * endpoint rules give it for a region (left as `{region}`), and the variable that overrides it
 * (AWS_ENDPOINT_URL_<serviceId>). Read by constructing each client from the tree: no request is sent.
 */
export function serviceHosts(imports: SdkImports, tree: string): ServiceHost[] {
  const requireFromTree = createRequire(join(tree, "node_modules") + sep);
  const sampleRegion = "us-east-1";
  const hosts: ServiceHost[] = [];
  for (const pkg of new Set([...imports.keys()].map(packageOf))) {
    if (!pkg.startsWith("@aws-sdk/client-")) continue;
    const exports = Object.values(requireFromTree(pkg) as Record<string, unknown>);
    const Client = exports.find((value): value is ClientClass => typeof value === "function" && value.name.endsWith("Client") && value.name !== "Client");
    if (!Client) continue;
    const client = new Client({ region: sampleRegion, credentials: { accessKeyId: "build", secretAccessKey: "build" } });
    try {
      const { url } = client.config.endpointProvider({ Region: sampleRegion, UseFIPS: false, UseDualStack: false }, {});
      hosts.push({ endpointVariable: client.config.serviceId.toUpperCase().replace(/ /g, "_"), host: url.hostname.replace(sampleRegion, "{region}") });
    } finally {
      client.destroy();
    }
  }
  return hosts;
}

type ClientClass = new (config: object) => { config: { serviceId: string; endpointProvider(params: object, context: object): { url: URL } }; destroy(): void };

/** The chunk's entry: imports what the handler imports and exports it by specifier (sdkPackages). */
export function chunkEntry(imports: SdkImports): string {
  const lines: string[] = [];
  const exported: string[] = [];
  [...imports].forEach(([specifier, names], i) => {
    const from = JSON.stringify(specifier);
    if (names === "*") {
      lines.push(`import * as m${i} from ${from};`);
      exported.push(`${from}: m${i}`);
    } else {
      lines.push(`import { ${[...names].map((name) => `${name} as m${i}_${name}`).join(", ")} } from ${from};`);
      exported.push(`${from}: { ${[...names].map((name) => `${name}: m${i}_${name}`).join(", ")} }`);
    }
  });
  return `${lines.join("\n")}\nexport const sdkPackages = { ${exported.join(", ")} };\n`;
}
