// The custom runtimes' own startup caches (core/runtimes.mts, StartupCache), warmed at build
// time with this machine's binary of the same version: Deno's in its layer, Bun's in each
// function's artifact. On Lambda the directories are read-only: a cache that misses is rebuilt in
// memory at every cold start and never saved, so what the build leaves is what every start gets.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execOwned } from "../core/processes.mts";
import { assertInstalled, CUSTOM_RUNTIMES, type CustomRuntime, type StartupCache } from "../core/runtimes.mts";

/** Runs the host binary with its cache variable set; the process may fail (no AWS at build time): the cache is written first. */
async function runWarm(runtime: CustomRuntime, cache: StartupCache, cacheDir: string, file: string): Promise<void> {
  assertInstalled(runtime);
  // An unreachable endpoint ends a handler's INIT at once, and never lets it reach real AWS.
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ...runtime.env,
    [cache.variable]: cacheDir,
    AWS_ENDPOINT_URL: "https://127.0.0.1:9",
    AWS_REGION: "us-east-1",
  };
  await execOwned(runtime.hostBinary, [...runtime.args, file], { env, timeout: 60_000 }).catch(() => undefined);
}

/**
 * Warms a layer's cache: imports the runtime's warm-up modules twice (Deno writes its database
 * statistics on the second run; without them a read-only copy is not used: measured when the layer was made).
 */
export async function warmLayerCache(runtime: CustomRuntime, layerDir: string): Promise<void> {
  const cache = runtime.startupCache;
  if (cache?.in !== "layer") return;
  const scratch = mkdtempSync(join(tmpdir(), "warpstart-warmup-"));
  try {
    const warmup = join(scratch, "warmup.mjs");
    writeFileSync(warmup, cache.warmup.map((specifier) => `import ${JSON.stringify(specifier)};\n`).join(""));
    for (let i = 0; i < 2; i++) await runWarm(runtime, cache, join(layerDir, cache.dir), warmup);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  if (!existsSync(join(layerDir, cache.dir)) || readdirSync(join(layerDir, cache.dir)).length === 0) {
    throw new Error(`${runtime.name} wrote no startup cache into ${join(layerDir, cache.dir)}`);
  }
}

/** Warms the task-root caches of every custom runtime that keeps one there, by loading the artifact's handler. */
export async function warmTaskRootCaches(artifactDir: string, handlerFile: string): Promise<void> {
  for (const runtime of CUSTOM_RUNTIMES) {
    if (runtime.startupCache?.in !== "task-root") continue;
    const cacheDir = join(artifactDir, runtime.startupCache.dir);
    await runWarm(runtime, runtime.startupCache, cacheDir, join(artifactDir, handlerFile));
    // Bun caches only sources of 50 KB and more: a small handler leaves nothing worth shipping.
    if (existsSync(cacheDir) && readdirSync(cacheDir).length === 0) rmSync(cacheDir, { recursive: true });
  }
}
