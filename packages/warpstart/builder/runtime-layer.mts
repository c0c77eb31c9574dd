// A custom runtime's layer, built by builder/build.mts for the template's DenoRuntime and
// BunRuntime (SAM's makefile builder, build-DenoRuntime / build-BunRuntime). Lambda extracts it to /opt and, for a
// provided.al2023 function, runs /opt/bootstrap. The layer holds:
//   bootstrap            a shell script: exports the runtime's variables, execs the binary on the client
//   bin/<binary>         the runtime's Linux arm64 binary, from the npm registry (tools/lambda-arm64)
//   runtime/client.mjs   the Runtime API client (src/runtime-client/), bundled
// (A runtime's startup cache, if it has one, is in each function's artifact: builder/startup-caches.mts.)

import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { ownModule } from "../core/paths.mts";
import { CUSTOM_RUNTIMES, type CustomRuntime, installArm64Tools, type Runtime } from "../core/runtimes.mts";

export const CLIENT_FILE = "runtime/client.mjs";

/**
 * What a runtime's bootstrap exports, with the task root where it is: for starting the runtime
 * outside its bootstrap (the process-start comparison) as the bootstrap would.
 */
export function bootstrapVariables(runtime: Runtime, taskRoot: string): Record<string, string> {
  if (runtime.kind !== "custom") return {};
  const cache = runtime.startupCache;
  return { ...runtime.env, ...(cache && { [cache.variable]: join(taskRoot, cache.dir) }) };
}

/** The bootstrap script: exports the runtime's variables (bootstrapVariables, in shell), then execs its binary on the client. */
export function bootstrapScript(runtime: CustomRuntime): string {
  const quote = (text: string) => `"${text.replace(/["\\$`]/g, "\\$&")}"`;
  const exports = Object.entries(runtime.env).map(([name, value]) => `export ${name}=${quote(value)}`);
  const cache = runtime.startupCache;
  // Lambda sets LAMBDA_TASK_ROOT before it starts the bootstrap.
  if (cache) exports.push(`export ${cache.variable}="$LAMBDA_TASK_ROOT/${cache.dir}"`);
  return [
    "#!/bin/sh",
    `# ${runtime.summary}. Written by builder/runtime-layer.mts from core/runtimes.mts.`,
    // Shell, not a template literal: ${0%/*} is the script's folder.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
    "# Lambda runs /opt/bootstrap with the layer at /opt; ${0%/*} finds it wherever it is (the lab).",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
    'layer="${0%/*}"',
    ...exports,
    `exec "$layer/bin/${runtime.binaryName}" ${runtime.args.map(quote).join(" ")}${runtime.args.length ? " " : ""}"$layer/${CLIENT_FILE}"`,
    "",
  ].join("\n");
}

export interface LayerOptions {
  /** Which binary goes into bin/: Lambda's arm64 one (a copy), or the host's (a symlink, for the lab). */
  binary: "lambda" | "host";
}

/** Writes the layer of `runtime` into outDir (emptied first). */
export async function buildRuntimeLayer(runtime: CustomRuntime, outDir: string, options: LayerOptions): Promise<void> {
  const binary = options.binary === "lambda" ? runtime.lambdaBinary : runtime.hostBinary;
  if (options.binary === "lambda" && binary) installArm64Tools([binary]);
  if (!binary || !existsSync(binary)) {
    const which = options.binary === "lambda" ? "Linux arm64 binary (for its Lambda layer)" : "binary";
    throw new Error(`${runtime.name} is not installed: its ${which} ${binary ?? "is not configured"}${binary ? " is missing" : ""}; ${runtime.installHint}.`);
  }
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(outDir, "bin"), { recursive: true });
  await build({
    entryPoints: [ownModule("src/runtime-client/index")],
    outfile: join(outDir, CLIENT_FILE),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "es2022",
    logLevel: "warning",
  });
  const binaryInLayer = join(outDir, "bin", runtime.binaryName);
  if (options.binary === "lambda") copyFileSync(binary, binaryInLayer);
  else symlinkSync(binary, binaryInLayer);
  chmodSync(binaryInLayer, 0o755);
  writeFileSync(join(outDir, "bootstrap"), bootstrapScript(runtime), { mode: 0o755 });
}

/** The custom runtime a template layer ships (its logical id, e.g. DenoRuntime). */
export function runtimeOfLayer(logicalId: string): CustomRuntime {
  const runtime = CUSTOM_RUNTIMES.find((candidate) => candidate.layer === logicalId);
  if (!runtime) throw new Error(`No runtime in core/runtimes.mts ships the layer "${logicalId}".`);
  return runtime;
}
