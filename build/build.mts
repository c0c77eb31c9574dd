// One esbuild pipeline for every variant: `node build/build.mts <Variant> <outdir>`.
// SAM's makefile builder calls it from each build-<LogicalId> target with $(ARTIFACTS_DIR).
// Writes <outdir>/index.mjs and, beside the artifact, <outdir>.meta.json (esbuild's metafile).
import { build, type Plugin } from "esbuild";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type SdkSource, variantNamed } from "./variants.mts";

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

/** Resolves the SDK entry from the variant's tree; the SDK's own imports then stay inside it. */
function sdkFrom(tree: string): Plugin {
  return {
    name: "sdk-tree",
    setup(b) {
      b.onResolve({ filter: /^@aws-sdk\/client-sts$/ }, (args) =>
        args.pluginData === "sdk-tree" ? undefined : b.resolve(args.path, { kind: args.kind, resolveDir: tree, pluginData: "sdk-tree" }),
      );
    },
  };
}

export interface BuildOverrides {
  /** Bundle the SDK from this folder's node_modules instead of the variant's own tree (tests). */
  sdkTree?: string;
}

export async function buildVariant(name: string, outdir: string, overrides: BuildOverrides = {}): Promise<{ outfile: string; metafile: string; bytes: number }> {
  const variant = variantNamed(name);
  const sdkTree = variant.sdk === "runtime" || variant.sdk === "none" ? undefined : (overrides.sdkTree ?? SDK_TREE[variant.sdk]);
  const outfile = join(outdir, "index.mjs");
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    ...variant.esbuild,
    entryPoints: [join(root, "src/functions", variant.entry, "index.mts")],
    outfile,
    platform: "node",
    format: "esm",
    target: "node22",
    metafile: true,
    logLevel: "warning",
    define: {
      WARPSTART_VARIANT: JSON.stringify(name),
      WARPSTART_SDK_VERSION: JSON.stringify(sdkVersion(variant.sdk, sdkTree)),
    },
    plugins: sdkTree ? [sdkFrom(sdkTree)] : [],
  });
  const metafile = `${outdir.replace(/\/+$/, "")}.meta.json`;
  writeFileSync(metafile, JSON.stringify(result.metafile));
  const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  return { outfile, metafile, bytes };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [name, outdir] = process.argv.slice(2);
  if (!name || !outdir) {
    console.error("usage: node build/build.mts <Variant> <outdir>");
    process.exit(2);
  }
  try {
    const { outfile, bytes } = await buildVariant(name, resolve(outdir));
    console.log(`built ${name}: ${outfile} (${(bytes / 1024).toFixed(1)} KiB)`);
  } catch (error) {
    console.error(`build of ${name} failed: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}
