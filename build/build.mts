// One esbuild pipeline for every variant: `node build/build.mts <Variant> <outdir>`.
// SAM's makefile builder calls it from each build-<LogicalId> target with $(ARTIFACTS_DIR).
// Writes <outdir>/index.mjs (index.cjs for a CommonJS variant; + sdk.cjs and sdk.cache for an
// SDK chunk) and, beside the artifact, <outdir>.meta.json (esbuild's metafile, all outputs).
import { build, type BuildOptions, type Metafile, type Plugin } from "esbuild";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { makeCodeCache } from "./code-cache.mts";
import { warmTaskRootCaches } from "./startup-caches.mts";
import { type SdkSource, type Variant, variantNamed } from "./variants.mts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SDK = "@aws-sdk/client-sts";

/** The folder whose node_modules holds a source's SDK tree. */
const SDK_TREE: Record<Exclude<SdkSource, "runtime" | "none">, string> = {
  published: root,
  patched: join(root, "patches"),
};

function sdkVersion(source: SdkSource, tree: string | undefined): string {
  if (source === "none") return "none";
  if (!tree) return "provided by the runtime";
  const require = createRequire(join(tree, "package.json"));
  const manifest = join(dirname(require.resolve(SDK)), "..", "package.json");
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

/** Build-time replacement of SDK files by project modules (Variant.replace). */
function replaceFiles(tree: string, replacements: Record<string, string>): Plugin {
  const byPath = new Map(Object.entries(replacements).map(([inTree, replacement]) => [join(tree, "node_modules", inTree), join(root, replacement)]));
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
 * SDK packages imported by the project's own sources resolve from the variant's tree (the SDK's
 * own imports then stay inside it); with an SDK chunk, the handler's client-sts import becomes
 * the chunk loader.
 */
function sdkFrom(tree: string, chunkLoader?: string): Plugin {
  const treeModules = join(tree, "node_modules") + sep;
  return {
    name: "sdk-tree",
    setup(b) {
      b.onResolve({ filter: /^@(aws-sdk|smithy)\// }, (args) => {
        if (args.pluginData === "sdk-tree" || args.importer.startsWith(treeModules)) return undefined;
        if (chunkLoader && args.path === SDK) return { path: chunkLoader };
        return b.resolve(args.path, { kind: args.kind, resolveDir: tree, pluginData: "sdk-tree" });
      });
    },
  };
}

export interface BuildOverrides {
  /** Bundle the SDK from this folder's node_modules instead of the variant's own tree (tests). */
  sdkTree?: string;
  /** The function's memory size: the code cache is made under the node flags it implies. */
  memoryMb?: number;
}

export interface BuildResult {
  outfile: string;
  metafile: string;
  bytes: number;
  codeCache?: { bytes: number };
}

/** The handler file a variant's build writes: the runtime resolves `index.handler` to it. */
export function handlerFile(variant: Pick<Variant, "format">): string {
  return variant.format === "cjs" ? "index.cjs" : "index.mjs";
}

export async function buildVariant(name: string, outdir: string, overrides: BuildOverrides = {}): Promise<BuildResult> {
  return buildFrom(variantNamed(name), name, outdir, overrides);
}

export async function buildFrom(variant: Variant, name: string, outdir: string, overrides: BuildOverrides = {}): Promise<BuildResult> {
  const sdkTree = variant.sdk === "runtime" || variant.sdk === "none" ? undefined : (overrides.sdkTree ?? SDK_TREE[variant.sdk]);
  if (variant.format === "cjs" && variant.sdkChunk) throw new Error(`${name}: an SDK chunk needs an ES-module handler (the chunk loader uses import.meta)`);
  const outfile = join(outdir, handlerFile(variant));
  rmSync(outdir, { recursive: true, force: true });
  const shared = (plugins: Plugin[]): BuildOptions => ({
    ...variant.esbuild,
    absWorkingDir: root,
    platform: "node",
    target: "node22",
    metafile: true,
    logLevel: "warning",
    define: {
      WARPSTART_VARIANT: JSON.stringify(name),
      WARPSTART_SDK_VERSION: JSON.stringify(sdkVersion(variant.sdk, sdkTree)),
      WARPSTART_KEEP_ALIVE: JSON.stringify(variant.keepAlive ?? true),
    },
    plugins,
  });
  const chunkLoader = variant.sdkChunk ? join(root, "src/warp/sdk-chunk-loader.mts") : undefined;
  const sdkPlugins = (loader?: string) => (sdkTree ? [sdkFrom(sdkTree, loader), ...(variant.replace ? [replaceFiles(sdkTree, variant.replace)] : [])] : []);
  const builds: Promise<{ metafile?: Metafile }>[] = [
    build({ ...shared(sdkPlugins(chunkLoader)), entryPoints: [join(root, "src/functions", variant.entry, "index.mts")], outfile, format: variant.format ?? "esm" }),
  ];
  if (variant.sdkChunk && sdkTree) {
    builds.push(build({ ...shared(sdkPlugins()), entryPoints: [join(root, "src/warp/sdk-chunk.mts")], outfile: join(outdir, "sdk.cjs"), format: "cjs" }));
  }
  const metafiles = (await Promise.all(builds)).map((result) => result.metafile!);
  const merged: Metafile = { inputs: Object.assign({}, ...metafiles.map((m) => m.inputs)), outputs: Object.assign({}, ...metafiles.map((m) => m.outputs)) };
  const metafile = `${outdir.replace(/\/+$/, "")}.meta.json`;
  writeFileSync(metafile, JSON.stringify(merged));
  const bytes = Object.values(merged.outputs).reduce((sum, output) => sum + output.bytes, 0);
  const codeCache = variant.codeCache && variant.sdkChunk ? await makeCodeCache(outdir, overrides.memoryMb ?? 512) : undefined;
  // The same artifact runs on every runtime of the template's Runtime parameter (build/runtimes.mts).
  await warmTaskRootCaches(outdir, handlerFile(variant));
  return { outfile, metafile, bytes, codeCache };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [name, outdir] = process.argv.slice(2);
  if (!name || !outdir) {
    console.error("usage: node build/build.mts <Variant> <outdir>");
    process.exit(2);
  }
  try {
    const { templateFunctions } = await import("../lab/template.mts");
    const memoryMb = templateFunctions(join(root, "template.yaml")).find((fn) => fn.logicalId === name)?.memoryMb;
    const { outfile, bytes, codeCache } = await buildVariant(name, resolve(outdir), { memoryMb });
    const cache = codeCache ? `, V8 code cache ${(codeCache.bytes / 1024).toFixed(1)} KiB (accepted on a test INIT)` : "";
    console.log(`built ${name}: ${outfile} (${(bytes / 1024).toFixed(1)} KiB${cache})`);
  } catch (error) {
    console.error(`build of ${name} failed: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}
